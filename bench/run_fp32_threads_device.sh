#!/bin/sh
# FP32 inference of q8 beside ONNX Runtime (Python's onnxruntime) at 1, 2, 4, 8 and 16 threads, batch
# 1 and 16, on torchvision's ResNet-50 and MobileNetV2 (exported there, cnn_peers_device.py) and the
# factory's 640x640 detector: how each scales with threads, in one run, same shapes and inputs.
#   bench/run_fp32_threads_device.sh PKG OUT
# PKG holds bin/fp32_inference, lib/ (its shared libraries) and models/detector640.onnx.
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
lscpu | grep -E "Model name|^CPU\(s\)"
python3 "$HERE/cnn_peers_device.py" "$OUT" --models resnet50,mobilenet_v2 --export-only >/dev/null 2>&1 || echo "export failed"
cp "$PKG/models/detector640.onnx" "$OUT/"
echo "model          batch threads       q8 ms      ORT ms   q8/ORT"
for m in resnet50 mobilenet_v2 detector640; do
  case $m in detector640) side=640 ;; *) side=224 ;; esac
  for b in 1 16; do
    [ "$m" = detector640 ] && [ "$b" = 16 ] && continue
    for T in 1 2 4 8 16; do
      shape="input=${b}x3x${side}x${side}"
      q=$("$PKG/bin/fp32_inference" --name "$m" --model "$OUT/$m.onnx" --shape "$shape" --threads "$T" --repeat 5 \
          --json "$OUT/fp32_${m}_b${b}_t${T}.json" | sed 's/.*| q8 *\([0-9.]*\) ms.*/\1/')
      o=$(python3 "$HERE/ort_inference.py" "$OUT/$m.onnx" "$shape" "$T" 5 | grep -o '[0-9.]* ms' | head -1 | cut -d' ' -f1)
      awk -v n="$m" -v b="$b" -v t="$T" -v q="$q" -v o="$o" \
        'BEGIN { printf "%-14s %5d %7d %11.2f %11.2f %8.2f\n", n, b, t, q, o, q / o }'
    done
  done
done
