#!/bin/sh
# Calibration throughput and peak RSS: the shipped model on 1,000 and 10,000 Fashion-MNIST
# training images, and a 640x640 encoder-decoder with ConvTranspose layers (test-model factory)
# on 16 and 64 random images; each with plain FP32 inference as the baseline.
#   bench/run_calibration.sh [BUILD_DIR]
# Writes BUILD_DIR/bench/calibration_*.json.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="$BUILD/bench"
mkdir -p "$OUT"
IDX=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
FASHION="$ROOT/datasets/models/fashion_cnn.onnx"
[ -f "$BUILD/factory/detector640.onnx" ] || /usr/bin/python3 "$ROOT/tests/models/factory.py" "$BUILD/factory" detector640 >/dev/null 2>&1
DET="$BUILD/bench-data/detector640"
if [ ! -d "$DET" ]; then
  mkdir -p "$DET"
  /usr/bin/python3 -c "
import numpy as np, sys
r = np.random.default_rng(0)
for i in range(64):
    np.save(f'$DET/{i:03d}.npy', r.integers(0, 256, (640, 640, 3), dtype=np.uint8))
"
fi
run() { "$BUILD/calibration_throughput" "$@"; }
run --name fashion_cnn --model "$FASHION" --data "$IDX" --limit 10000 --plain --json "$OUT/calibration_fashion_plain_10k.json"
run --name fashion_cnn --model "$FASHION" --data "$IDX" --limit 1000 --json "$OUT/calibration_fashion_entropy_1k.json"
run --name fashion_cnn --model "$FASHION" --data "$IDX" --limit 10000 --json "$OUT/calibration_fashion_entropy_10k.json"
run --name detector640 --model "$BUILD/factory/detector640.onnx" --data "$DET" --batch-size 4 --limit 64 --plain \
  --json "$OUT/calibration_detector640_plain_64.json"
run --name detector640 --model "$BUILD/factory/detector640.onnx" --data "$DET" --batch-size 4 --limit 16 \
  --json "$OUT/calibration_detector640_entropy_16.json"
run --name detector640 --model "$BUILD/factory/detector640.onnx" --data "$DET" --batch-size 4 --limit 64 \
  --json "$OUT/calibration_detector640_entropy_64.json"
