#!/bin/sh
# The models the CPU INT8 benchmarks time: from the test-model factory (torchvision's ResNet-50 and
# MobileNetV2 with random weights, the 640x640 detectors), each calibrated by q8 on 16 random
# samples and quantized with q8's defaults. Prints "NAME MODEL QDQ_MODEL SIDE" a line each.
#   bench/prepare_int8_models.sh BUILD_DIR MODELS
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$1"
MODELS="$2"
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
    "$BUILD/q8" calibrate "$model" --data "$data" --json "$WORK/$m.json" --quiet >&2
    "$BUILD/q8" quantize "$model" --calib "$WORK/$m.json" -o "$WORK/$m.qdq.onnx" >/dev/null
  fi
  echo "$m $model $WORK/$m.qdq.onnx $side"
done
