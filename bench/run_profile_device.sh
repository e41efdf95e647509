#!/bin/sh
# Per-layer-class profile on a GPU machine: q8 INT8 through OpenCL (q8 bench --profile: device
# time per kernel launch) beside PyTorch FP16 channels-last (torch.profiler), the same torchvision
# models with random weights, one batch (bench/profile_device.py says how layers are classed).
#   bench/run_profile_device.sh PKG OUT      (MODELS, default "resnet50 efficientnet_b0"; BATCH, default 64)
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
MODELS=${MODELS:-resnet50 efficientnet_b0}
BATCH=${BATCH:-64}
HERE=$(dirname "$0")
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
python3 "$HERE/cnn_peers_device.py" "$OUT" --models "$(echo $MODELS | tr ' ' ,)" --export-only 2>/dev/null
args=""
for m in $MODELS; do
  w="$OUT/q8/$m"
  mkdir -p "$w"
  "$PKG/bin/q8" calibrate "$OUT/$m.onnx" --data "$OUT/calib/$m" --json "$w/table.json" --quiet >/dev/null 2>&1 || echo "$m: calibrate failed"
  "$PKG/bin/q8" quantize "$OUT/$m.onnx" --calib "$w/table.json" -o "$w/qdq.onnx" --check-samples 0 >/dev/null 2>&1 || echo "$m: quantize failed"
  "$PKG/bin/q8" build "$w/qdq.onnx" -o "$w/plan.q8plan" --device opencl >/dev/null 2>&1 || echo "$m: build failed"
  "$PKG/bin/q8" bench "$w/plan.q8plan" --device opencl --shape input=${BATCH}x3x224x224 --iterations 10 --warmup 3 --profile \
    --json "$w/profile_b$BATCH.json" 2>&1 | grep -E "latency|device time" | sed "s/^/q8 $m b$BATCH: /"
  args="$args --q8-json $m=$w/profile_b$BATCH.json"
done
python3 "$HERE/profile_device.py" $args --batch "$BATCH" --json "$OUT/profile.json"
