#!/bin/sh
# q8 bench --peer ort on a many-core machine without Debian's libraries: torchvision's ResNet-50 and
# MobileNetV2 (random weights, exported there by cnn_peers_device.py), the factory's 640x640
# detectors (from PKG) and a BERT-base-sized encoder (tests/families/zoo.py at Q8_ZOO_SIZE=base,
# exported there by torch's TorchScript exporter), each calibrated and quantized by q8 there with
# its defaults; then for each THREADS and batch 1 and 16, q8's FP32 executor, its INT8 plan on the
# CPU INT8 backend and ONNX Runtime's CPU execution provider (PKG's libonnxruntime.so.1) on the
# same files and inputs, one q8 bench run each, and the table of bench/run_bench_peer.sh.
#   bench/run_bench_peer_device.sh PKG OUT [THREADS] [MODELS]
# PKG holds bin/q8, lib/ (with libonnxruntime.so.1) and models/NAME.onnx, NAME.qdq.onnx.
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
THREADS=${3:-$(nproc)}
MODELS=${4:-resnet50 mobilenet_v2 mobile_detector_opset17 detector640 bert_base}
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
lscpu | grep -E "Model name|^CPU\(s\)"
for m in $MODELS; do
  [ -f "$OUT/$m.qdq.onnx" ] && continue
  case $m in
    resnet50|mobilenet_v2)
      [ -f "$OUT/$m.onnx" ] || python3 "$HERE/cnn_peers_device.py" "$OUT" --models "$m" --export-only >/dev/null 2>&1 || echo "$m: export failed"
      data="$OUT/calib/$m" ;;
    bert_base)
      Q8_ZOO_SIZE=base Q8_ZOO_EXPORTER=torchscript python3 "$HERE/../tests/families/zoo.py" "$OUT/bert_base_model" bert >/dev/null 2>&1 ||
        echo "bert_base: export failed"
      cp "$OUT/bert_base_model/bert.onnx" "$OUT/bert_base.onnx"
      data="$OUT/bert_base_model/bert"
      for b in 1 16; do
        python3 -c "
import numpy as np, os
os.makedirs('$OUT/bert_base_b$b', exist_ok=True)
r = np.random.default_rng($b)
np.save('$OUT/bert_base_b$b/input_ids.npy', r.integers(2, 30522, size=($b, 128)).astype(np.int64))
np.save('$OUT/bert_base_b$b/attention_mask.npy', np.ones(($b, 128), np.int64))
np.save('$OUT/bert_base_b$b/token_type_ids.npy', np.zeros(($b, 128), np.int64))
"
      done ;;
    *)
      cp "$PKG/models/$m.onnx" "$PKG/models/$m.qdq.onnx" "$OUT/"
      continue ;;
  esac
  "$PKG/bin/q8" calibrate "$OUT/$m.onnx" --data "$data" --json "$OUT/$m.json" --quiet >/dev/null 2>&1 || echo "$m: calibrate failed"
  "$PKG/bin/q8" quantize "$OUT/$m.onnx" --calib "$OUT/$m.json" -o "$OUT/$m.qdq.onnx" --check-samples 0 >/dev/null 2>&1 || echo "$m: quantize failed"
done
for T in $THREADS; do
  for m in $MODELS; do
    for b in 1 16; do
      case $m in
        resnet50|mobilenet_v2) inputs="--shape input=${b}x3x224x224" ;;
        bert_base) d="$OUT/bert_base_b$b"
                   inputs="--input input_ids=$d/input_ids.npy --input attention_mask=$d/attention_mask.npy --input token_type_ids=$d/token_type_ids.npy" ;;
        *) inputs="--shape input=${b}x3x640x640" ;;
      esac
      iterations=10
      [ "$b" = 16 ] && iterations=5
      # shellcheck disable=SC2086
      "$PKG/bin/q8" bench "$OUT/$m.onnx" --int8 "$OUT/$m.qdq.onnx" $inputs --threads "$T" --warmup 2 --iterations $iterations \
        --peer ort --ort-library "$PKG/lib/libonnxruntime.so.1" --json "$OUT/peer_${m}_b${b}_t${T}.json" >"$OUT/peer_${m}_b${b}_t${T}.log" 2>&1 ||
        { echo "$m b$b t$T: q8 bench failed"; tail -3 "$OUT/peer_${m}_b${b}_t${T}.log"; }
    done
  done
  python3 - "$OUT" "$T" "$MODELS" <<'PY'
import json, os, sys
out, threads, models = sys.argv[1], sys.argv[2], sys.argv[3].split()
print(f"ms per run (mean), {threads} threads: q8 INT8 / q8 FP32 / ORT INT8 / ORT FP32; INT8 ÷ ORT INT8, FP32 ÷ ORT FP32, FP32 ÷ INT8")
for m in models:
    for b in (1, 16):
        f = f"{out}/peer_{m}_b{b}_t{threads}.json"
        if not os.path.exists(f):
            continue
        j = json.load(open(f))
        q8i, q8f = j["int8"]["latency_ms"]["mean"], j["fp32"]["latency_ms"]["mean"]
        oi, of = j["peer"]["int8"]["latency_ms"]["mean"], j["peer"]["fp32"]["latency_ms"]["mean"]
        print(f"{m:24s} b{b:<3d} {q8i:9.1f} {q8f:9.1f} {oi:9.1f} {of:9.1f}   {q8i / oi:5.2f} {q8f / of:5.2f} {q8f / q8i:5.2f}")
PY
done
