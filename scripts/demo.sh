#!/bin/sh
# The q8 demo: installs what q8 needs, builds it, runs the shipped Fashion-MNIST CNN on the shipped
# sample images (each prediction beside its label), calibrates, quantizes and compares it, builds
# the INT8 plan and runs it (on the CPU integer reference and through OpenCL) and benchmarks it, and
# compares every calibration method.
#   ./scripts/demo.sh [BUILD_DIR]
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
MODEL="$ROOT/datasets/models/fashion_cnn.onnx"
SAMPLES="$ROOT/datasets/samples/fashion-mnist"
"$ROOT/scripts/install-deps.sh"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target q8

echo "== q8 inspect"
"$BUILD/q8" inspect "$MODEL"
echo
echo "== q8 run on $(wc -l < "$SAMPLES/labels.txt") Fashion-MNIST test images"
# Runs MODEL (or a plan) on the sample images and joins its per-row top-1 with the labels.
run_and_score() {
  "$BUILD/q8" run "$1" --input "input=$SAMPLES/images.npy" --output-dir "$2" --dump-output ${3:+--device "$3"} > "$2.txt"
  grep -v '^\s*\[' "$2.txt"
  grep '^\s*\[' "$2.txt" | awk -v labels="$SAMPLES/labels.txt" -v classes="$SAMPLES/classes.txt" '
    BEGIN { while ((getline line < classes) > 0) { split(line, f, " "); name[f[1]] = substr(line, length(f[1]) + 2) }
            while ((getline line < labels) > 0) { split(line, f, " "); label[n++] = f[1] }
            printf "%-6s %-14s %-14s %s\n", "image", "predicted", "label", "" }
    { i = $1; gsub(/[\[\]]/, "", i); p = $3; ok = (p == label[i]) ? "ok" : "MISS"; hits += (p == label[i])
      printf "%-6s %-14s %-14s %s\n", i, name[p], name[label[i]], ok }
    END { printf "top-1: %d of %d correct\n", hits, NR }'
}
run_and_score "$MODEL" "$BUILD/demo"
echo
echo "== q8 calibrate on 1024 Fashion-MNIST training images (the default method, auto: each method tried on held-back images)"
"$BUILD/q8" calibrate "$MODEL" --data /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz --limit 1024 \
  --cache "$BUILD/fashion_cnn.cache" --json "$BUILD/fashion_cnn.calib.json" --histograms "$BUILD/fashion_cnn.h5"
echo "-- $BUILD/fashion_cnn.cache (TensorRT calibration cache), first lines:"
head -6 "$BUILD/fashion_cnn.cache"
echo
echo "== q8 quantize"
"$BUILD/q8" quantize "$MODEL" --calib "$BUILD/fashion_cnn.calib.json" -o "$BUILD/fashion_cnn.qdq.onnx"
echo
echo "== q8 compare: INT8 against FP32 on the 10,000 Fashion-MNIST test images"
TEST=/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz
"$BUILD/q8" compare "$MODEL" "$BUILD/fashion_cnn.qdq.onnx" --data "$TEST" --batch-size 256 --quiet --json "$BUILD/fashion_cnn.accuracy.json"
echo
echo "== q8 build: the QDQ model lowered into fused INT8 ops, written as a plan"
"$BUILD/q8" build "$BUILD/fashion_cnn.qdq.onnx" -o "$BUILD/fashion_cnn.q8plan"
echo
echo "== q8 run on the plan (the INT8 engine's integer reference), the same $(wc -l < "$SAMPLES/labels.txt") images"
run_and_score "$BUILD/fashion_cnn.q8plan" "$BUILD/demo-int8"
echo
echo "== q8 run on the plan through OpenCL (the first OpenCL device: PoCL on a machine without a GPU)"
run_and_score "$BUILD/fashion_cnn.q8plan" "$BUILD/demo-opencl" opencl
if cmp -s "$BUILD/demo-int8/logits.npy" "$BUILD/demo-opencl/logits.npy"; then
  echo "OpenCL logits: bit-identical to the integer reference"
else
  echo "OpenCL logits DIFFER from the integer reference"; exit 1
fi
echo
echo "== q8 compare --int8: the INT8 engine against FP32 on the 10,000 test images"
"$BUILD/q8" compare "$MODEL" "$BUILD/fashion_cnn.qdq.onnx" --data "$TEST" --batch-size 256 --int8 | grep -E "^(engine|placement|top-1)"
echo
echo "== q8 bench: FP32 and the INT8 engine at batch 32"
"$BUILD/q8" bench "$MODEL" --int8 "$BUILD/fashion_cnn.q8plan" --shape input=32x1x28x28 --iterations 10 --json "$BUILD/fashion_cnn.bench.json"
echo
echo "== every calibration method (1,024 calibration images, 10,000 test images)"
printf "%-11s %9s %9s %9s %10s\n" method "FP32" "INT8" delta agreement
for method in max entropy percentile mse auto; do
  "$BUILD/q8" calibrate "$MODEL" --data /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz --limit 1024 \
    --method "$method" --json "$BUILD/demo.$method.json" --quiet >/dev/null
  "$BUILD/q8" quantize "$MODEL" --calib "$BUILD/demo.$method.json" -o "$BUILD/demo.$method.qdq.onnx" >/dev/null
  "$BUILD/q8" compare "$MODEL" "$BUILD/demo.$method.qdq.onnx" --data "$TEST" --batch-size 256 > "$BUILD/demo.$method.txt" 2> "$BUILD/demo.$method.log"
  awk -v m="$method" '/^top-1:/ { fp = $3; i8 = $6; d = $8 } /^top-1 agreement/ { a = $3 }
    END { gsub(/\(/, "", d); printf "%-11s %8s%% %8s%% %9s %9s%%\n", m, fp, i8, d, a }' "$BUILD/demo.$method.txt"
done
