#!/bin/sh
# q8 as a library: installs the build to a fresh prefix, builds examples/calibrate against it with
# find_package(q8) alone, runs it on Fashion-MNIST, and checks that the TensorRT cache it writes
# through the C++ API is byte for byte the one `q8 calibrate` writes with the same settings, and
# that its QDQ model loads.
#   install_test.sh BUILD_DIR WORK_DIR
set -eu
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="$1"
WORK="$2"
MODEL="$ROOT/datasets/models/fashion_cnn.onnx"
TRAIN=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
rm -rf "$WORK"
mkdir -p "$WORK"

cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
[ -f "$WORK/prefix/lib/cmake/q8/q8Config.cmake" ] || { echo "FAIL no q8Config.cmake installed"; exit 1; }
[ -x "$WORK/prefix/bin/q8" ] || { echo "FAIL no q8 executable installed"; exit 1; }
# The example sees the installed headers only: no path into the source tree.
cmake -S "$ROOT/examples/calibrate" -B "$WORK/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
if grep -q -- "-I$ROOT" "$WORK/example/build.ninja"; then echo "FAIL the example's include paths reach into the source tree"; exit 1; fi
cmake --build "$WORK/example" >/dev/null
echo "ok   installed to a prefix; examples/calibrate built against it with find_package(q8)"

"$WORK/example/calibrate_example" "$MODEL" "$TRAIN" "$WORK/api"
"$WORK/prefix/bin/q8" calibrate "$MODEL" --data "$TRAIN" --method entropy --batch-size 64 --limit 512 --trt-version 8601 \
  --cache "$WORK/cli.cache" --json "$WORK/cli.json" --quiet
if cmp -s "$WORK/api.cache" "$WORK/cli.cache"; then
  echo "ok   the API's TensorRT cache equals q8 calibrate's ($(wc -l < "$WORK/cli.cache") lines)"
else
  echo "FAIL the API's cache differs from q8 calibrate's:"; diff "$WORK/api.cache" "$WORK/cli.cache" | head -5; exit 1
fi
# The QDQ models: the same nodes and initializers (q8 quantize also records the preprocessing).
"$WORK/prefix/bin/q8" quantize "$MODEL" --calib "$WORK/cli.json" -o "$WORK/cli.qdq.onnx" --quiet
/usr/bin/python3 - "$WORK/api.qdq.onnx" "$WORK/cli.qdq.onnx" <<'PY'
import sys
import onnx
a, b = (onnx.load(p) for p in sys.argv[1:])
onnx.checker.check_model(a)
same = [n.SerializeToString() for n in a.graph.node] == [n.SerializeToString() for n in b.graph.node] and \
       sorted(i.SerializeToString() for i in a.graph.initializer) == sorted(i.SerializeToString() for i in b.graph.initializer)
q = sum(n.op_type == "QuantizeLinear" for n in a.graph.node)
print(("ok  " if same and q else "FAIL") + f" the API's QDQ model ({q} QuantizeLinear) passes onnx.checker and equals q8 quantize's")
sys.exit(0 if same and q else 1)
PY

# The Python package, installed beside the libraries: it imports from the prefix alone and writes
# the same cache as the CLI.
PACKAGE="$(find "$WORK/prefix" -path '*dist-packages/q8/__init__.py' | head -1)"
[ -n "$PACKAGE" ] || { echo "FAIL no q8 Python package installed"; exit 1; }
(cd "$WORK" && PYTHONPATH="$(dirname "$(dirname "$PACKAGE")")" /usr/bin/python3 - "$MODEL" "$TRAIN" "$WORK" <<'PY'
import sys
import q8
model, train, work = sys.argv[1:]
assert q8.__file__.startswith(work), q8.__file__
table = q8.calibrate(q8.load(model), train, method="entropy", batch_size=64, limit=512, progress=False)
table.save_trt_cache(work + "/py.cache", trt_version="8601")
same = open(work + "/py.cache", "rb").read() == open(work + "/cli.cache", "rb").read()
print(("ok  " if same else "FAIL") + " the installed Python package imports from the prefix and writes q8 calibrate's cache")
sys.exit(0 if same else 1)
PY
)
