#!/bin/sh
# The models the CPU INT8 benchmarks time: from the test-model factory (torchvision's ResNet-50 and
# MobileNetV2 with random weights, the 640x640 detectors), each calibrated by q8 on 16 random
# samples, and bert_base, a BERT-base-sized encoder (tests/families/zoo.py's Bert at Q8_ZOO_SIZE=base:
# 12 layers, hidden 768, 128 tokens; random weights) calibrated on the zoo's 4 token sequences; each
# quantized with q8's defaults. Prints "NAME MODEL QDQ_MODEL SIDE" a line each: SIDE is the
# image side, or "text" for bert_base, whose token inputs for batch B lie in
# BUILD_DIR/bench/int8_work/bert_base_bB/NAME.npy (B = 1, 16).
#   bench/prepare_int8_models.sh BUILD_DIR MODELS
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$1"
MODELS="$2"
WORK="$BUILD/bench/int8_work"
mkdir -p "$WORK"
for m in $MODELS; do
  if [ "$m" = bert_base ]; then
    model="$BUILD/bench/models/bert_base/bert.onnx"
    [ -f "$model" ] || Q8_ZOO_SIZE=base /usr/bin/python3 "$ROOT/tests/families/zoo.py" "$BUILD/bench/models/bert_base" bert >/dev/null
    for b in 1 16; do
      [ -d "$WORK/bert_base_b$b" ] || /usr/bin/python3 -c "
import numpy as np, os
os.makedirs('$WORK/bert_base_b$b')
r = np.random.default_rng($b)
np.save('$WORK/bert_base_b$b/input_ids.npy', r.integers(2, 30522, size=($b, 128)).astype(np.int64))
np.save('$WORK/bert_base_b$b/attention_mask.npy', np.ones(($b, 128), np.int64))
np.save('$WORK/bert_base_b$b/token_type_ids.npy', np.zeros(($b, 128), np.int64))
"
    done
    if [ ! -f "$WORK/$m.qdq.onnx" ]; then
      "$BUILD/q8" calibrate "$model" --data "$BUILD/bench/models/bert_base/bert" --json "$WORK/$m.json" --quiet >&2
      "$BUILD/q8" quantize "$model" --calib "$WORK/$m.json" -o "$WORK/$m.qdq.onnx" >/dev/null
    fi
    echo "$m $model $WORK/$m.qdq.onnx text"
    continue
  fi
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
