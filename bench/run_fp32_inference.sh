#!/bin/sh
# FP32 CPU inference, q8 vs ONNX Runtime: the shipped model at batch 256, a ResNet-18-shaped
# model (random weights, from the test-model factory) at batch 8, 224x224, and two 640x640
# detector-shaped models (an encoder-decoder with ConvTranspose; a mobile detector with depthwise
# convs, HardSwish, Resize and ConvTranspose) at batch 1.
#   bench/run_fp32_inference.sh [BUILD_DIR] [THREADS]
# Writes BUILD_DIR/bench/fp32_*.json.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
THREADS="${2:-$(nproc)}"
mkdir -p "$BUILD/bench"
for m in resnet18 detector640 mobile_detector_opset17; do
  [ -f "$BUILD/factory/$m.onnx" ] || /usr/bin/python3 "$ROOT/tests/models/factory.py" "$BUILD/factory" $m >/dev/null 2>&1
done
"$BUILD/fp32_inference" --name fashion_cnn --model "$ROOT/datasets/models/fashion_cnn.onnx" --shape input=256x1x28x28 \
  --ort-dir "$ROOT/.deps/ort" --threads "$THREADS" --repeat 20 --json "$BUILD/bench/fp32_fashion_cnn.json"
"$BUILD/fp32_inference" --name resnet18 --model "$BUILD/factory/resnet18.onnx" --shape input=8x3x224x224 \
  --ort-dir "$ROOT/.deps/ort" --threads "$THREADS" --repeat 11 --json "$BUILD/bench/fp32_resnet18.json"
for m in detector640 mobile_detector_opset17; do
  "$BUILD/fp32_inference" --name $m --model "$BUILD/factory/$m.onnx" --shape input=1x3x640x640 \
    --ort-dir "$ROOT/.deps/ort" --threads "$THREADS" --repeat 11 --json "$BUILD/bench/fp32_$m.json"
done
