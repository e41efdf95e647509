#!/bin/sh
# INT8 CPU inference, q8 vs ONNX Runtime: the models of bench/prepare_int8_models.sh timed at batch
# 1 and 16: the plan on the CPU INT8 backend, q8's FP32 executor and ONNX Runtime's FP32 and INT8
# (the same QDQ model), same input and threads. The first row of each model also times the integer
# reference alone and checks that both INT8 paths give the same bytes.
#   bench/run_int8_inference.sh [BUILD_DIR] [THREADS] [MODELS]
# Writes BUILD_DIR/bench/int8_*.json.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
THREADS="${2:-$(nproc)}"
MODELS="${3:-resnet50 mobilenetv2 mobile_detector_opset17 detector640}"
sh "$ROOT/bench/prepare_int8_models.sh" "$BUILD" "$MODELS" | while read -r m model qdq side; do
  ref="--reference"
  for batch in 1 16; do
    "$BUILD/int8_inference" --name "$m" --model "$model" --qdq "$qdq" \
      --shape "input=${batch}x3x${side}x${side}" --ort-dir "$ROOT/.deps/ort" --threads "$THREADS" --repeat 5 $ref \
      --json "$BUILD/bench/int8_${m}_b${batch}_t${THREADS}.json" </dev/null
    ref=""
  done
done
