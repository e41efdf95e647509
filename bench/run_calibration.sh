#!/bin/sh
# Calibration cost against plain FP32 inference over the same batches: the shipped model on
# 10,000 Fashion-MNIST training images and a 640x640 encoder-decoder (test-model factory) on 64
# random images, each with plain inference and with the max, entropy and percentile observers, at
# q8 calibrate's default batch size and streams;
# then the detector's peak RSS at batch 1 and 32.
#   bench/run_calibration.sh [BUILD_DIR] [THREADS]
# Prints samples/s, the observers' overhead over plain inference, peak RSS; writes
# BUILD_DIR/bench/calibration_*.json.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
THREADS="${2:-$(nproc)}"
OUT="$BUILD/bench"
mkdir -p "$OUT"
IDX=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
FASHION="$ROOT/datasets/models/fashion_cnn.onnx"
[ -f "$BUILD/factory/detector640.onnx" ] || /usr/bin/python3 "$ROOT/tests/models/factory.py" "$BUILD/factory" detector640 >/dev/null 2>&1
DET="$BUILD/bench-data/detector640"
if [ ! -d "$DET" ]; then
  mkdir -p "$DET"
  /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(0)
for i in range(64):
    np.save(f'$DET/{i:03d}.npy', r.integers(0, 256, (640, 640, 3), dtype=np.uint8))
"
fi
sps() { sed -n 's/.*"samples_per_second": \([0-9.e+-]*\).*/\1/p' "$1"; }
# compare NAME MODEL DATA BATCH LIMIT: plain inference, then each method; prints the overhead.
compare() {
  name=$1 model=$2 data=$3 batch=$4 limit=$5
  # A first plain run warms the page cache and the JIT kernels; it is not reported.
  "$BUILD/calibration_throughput" --name "$name" --model "$model" --data "$data" --batch-size "$batch" --limit "$limit" \
    --threads "$THREADS" --plain >/dev/null 2>&1
  "$BUILD/calibration_throughput" --name "$name" --model "$model" --data "$data" --batch-size "$batch" --limit "$limit" \
    --threads "$THREADS" --plain --json "$OUT/calibration_${name}_plain.json"
  for method in max entropy percentile; do
    "$BUILD/calibration_throughput" --name "$name" --model "$model" --data "$data" --batch-size "$batch" --limit "$limit" \
      --threads "$THREADS" --method "$method" --json "$OUT/calibration_${name}_$method.json"
    awk -v n="$name" -v m="$method" -v p="$(sps "$OUT/calibration_${name}_plain.json")" \
        -v c="$(sps "$OUT/calibration_${name}_$method.json")" \
        'BEGIN { printf "%-14s %-10s observer overhead %+6.1f %% over plain inference\n", n, m, 100 * (p / c - 1) }'
  done
}
# Batch 0: the batch q8 calibrate picks (32 and 1 here); streams: its default, one per thread.
compare fashion_cnn "$FASHION" "$IDX" 0 10000
compare detector640 "$BUILD/factory/detector640.onnx" "$DET" 0 64
# Memory per batch: only live intermediates are held.
for batch in 1 32; do
  "$BUILD/calibration_throughput" --name detector640 --model "$BUILD/factory/detector640.onnx" --data "$DET" \
    --batch-size "$batch" --limit 32 --threads "$THREADS" --method max --json "$OUT/calibration_detector640_rss_b$batch.json"
done
