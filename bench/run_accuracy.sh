#!/bin/sh
# INT8 accuracy: for each calibration method, calibrate on 1,024 Fashion-MNIST training images,
# quantize, and compare INT8 against FP32 on the 10,000 test images — the shipped model and two
# more trained classifiers (a ConvTranspose head, a MatMul/Gemm MLP).
#   bench/run_accuracy.sh [BUILD_DIR]
# Writes BUILD_DIR/bench/accuracy_<model>_<method>.json and prints a table.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="$BUILD/bench"
WORK="$BUILD/bench-accuracy"
mkdir -p "$OUT" "$WORK"
TRAIN=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
TEST=/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz
[ -f "$WORK/deconv_head.onnx" ] || /usr/bin/python3 "$ROOT/bench/train_classifiers.py" "$WORK" 2>/dev/null
printf "%-13s %-11s %8s %8s %8s %10s %9s\n" model method FP32 INT8 delta agreement cosine
for model in "$ROOT/datasets/models/fashion_cnn.onnx" "$WORK/deconv_head.onnx" "$WORK/mlp.onnx"; do
  name=$(basename "$model" .onnx)
  for method in max entropy percentile mse; do
    "$BUILD/q8" calibrate "$model" --data "$TRAIN" --limit 1024 --method "$method" --json "$WORK/$name.$method.json" --quiet >/dev/null
    "$BUILD/q8" quantize "$model" --calib "$WORK/$name.$method.json" -o "$WORK/$name.$method.qdq.onnx" >/dev/null
    "$BUILD/q8" compare "$model" "$WORK/$name.$method.qdq.onnx" --data "$TEST" --batch-size 256 --quiet \
      --json "$OUT/accuracy_${name}_$method.json" >/dev/null
    /usr/bin/python3 -c "
import json; r = json.load(open('$OUT/accuracy_${name}_$method.json'))
print('%-13s %-11s %7.2f%% %7.2f%% %+7.2f %9.2f%% %9.5f' % ('$name', '$method', 100 * r['fp32_top1'], 100 * r['int8_top1'],
      100 * (r['int8_top1'] - r['fp32_top1']), 100 * r['top1_agreement'], r['output_cosine']))"
  done
done
