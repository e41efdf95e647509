#!/bin/sh
# INT8 CPU inference, q8 vs ONNX Runtime: models from the test-model factory (torchvision's
# ResNet-50 and MobileNetV2 with random weights, the 640x640 detectors), each calibrated by q8 on 16
# random samples and quantized with q8's defaults, then timed at batch 1 and 16: the plan on the
# CPU INT8 backend, q8's FP32 executor and ONNX Runtime's FP32 and INT8 (the same QDQ model), same
# input and threads. The first row of each model also times the integer reference alone and checks
# that both INT8 paths give the same bytes.
#   bench/run_int8_inference.sh [BUILD_DIR] [THREADS] [MODELS]
# Writes BUILD_DIR/bench/int8_*.json.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
THREADS="${2:-$(nproc)}"
MODELS="${3:-resnet50 mobilenetv2 mobile_detector_opset17 detector640}"
WORK="$BUILD/bench/int8_work"
mkdir -p "$WORK"
for m in $MODELS; do
  # The test factory's model where the tests made it, else made here (not beside the tests' models,
  # which the oracle tests read all of).
  model="$BUILD/factory/$m.onnx"
  if [ ! -f "$model" ]; then
    model="$BUILD/bench/models/$m.onnx"
    [ -f "$model" ] || /usr/bin/python3 "$ROOT/tests/models/factory.py" "$BUILD/bench/models" $m >/dev/null
  fi
  case $m in
    resnet50|mobilenetv2) side=224 ;;
    *) side=640 ;;
  esac
  data="$WORK/calib_$side"
  [ -d "$data" ] || /usr/bin/python3 -c "
import numpy as np, os
os.makedirs('$data')
r = np.random.default_rng(0)
for i in range(16): np.save(f'$data/{i:02d}.npy', r.random((3, $side, $side), dtype=np.float32))
"
  if [ ! -f "$WORK/$m.qdq.onnx" ]; then
    "$BUILD/q8" calibrate "$model" --data "$data" --json "$WORK/$m.json" --quiet
    "$BUILD/q8" quantize "$model" --calib "$WORK/$m.json" -o "$WORK/$m.qdq.onnx" >/dev/null
  fi
  ref="--reference"
  for batch in 1 16; do
    "$BUILD/int8_inference" --name "$m" --model "$model" --qdq "$WORK/$m.qdq.onnx" \
      --shape "input=${batch}x3x${side}x${side}" --ort-dir "$ROOT/.deps/ort" --threads "$THREADS" --repeat 5 $ref \
      --json "$BUILD/bench/int8_${m}_b${batch}_t${THREADS}.json"
    ref=""
  done
done
