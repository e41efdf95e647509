#!/bin/sh
# The CPU figures on a many-core machine, in one run: FP32 inference of q8 beside ONNX Runtime
# (Python's onnxruntime) at 1, 2 and all threads (all twice: OpenMP's default spinning wait, then
# OMP_WAIT_POLICY=PASSIVE, docs/cpu.md "Threads"), then calibration throughput with every observer
# and plain FP32 over the same batches at 2 threads and at all but one thread (one core left to
# the batch reader), with calibrate's default batch size and streams.
#   bench/run_cpu_device.sh PKG
# PKG holds bin/ (fp32_inference, calibration_throughput), lib/ (their shared libraries),
# fashion_cnn.onnx, resnet18.onnx, detector640.onnx, mobile_detector_opset17.onnx (test-model
# factory) and t10k-images-idx3-ubyte.gz (Fashion-MNIST).
set -u
PKG=$(cd "$1" && pwd)
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
HERE=$(cd "$(dirname "$0")" && pwd)
ALL=$(nproc)
echo "== FP32 inference, q8 (--graph-optimization all) and ONNX Runtime, same shapes and threads"
echo "   (the last rows again with OMP_WAIT_POLICY=PASSIVE: q8's OpenMP threads sleep instead of spinning)"
for T in 1 2 "$ALL" "$ALL passive"; do
  set -- $T
  T=$1
  if [ $# -gt 1 ]; then export OMP_WAIT_POLICY=PASSIVE; fi
  for m in "fashion_cnn input=256x1x28x28" "resnet18 input=8x3x224x224" "detector640 input=1x3x640x640" \
           "mobile_detector_opset17 input=1x3x640x640"; do
    set -- $m
    q=$("$PKG/bin/fp32_inference" --name "$1" --model "$PKG/$1.onnx" --shape "$2" --threads "$T" --repeat 11 | sed 's/.*| q8 *\([0-9.]*\) ms.*/\1/')
    o=$(python3 "$HERE/ort_inference.py" "$PKG/$1.onnx" "$2" "$T" 11 | grep -o '[0-9.]* ms' | head -1 | cut -d' ' -f1)
    awk -v n="$1" -v t="$T" -v q="$q" -v o="$o" -v w="${OMP_WAIT_POLICY:-}" \
      'BEGIN { printf "%-26s threads %2d  q8 %9.2f ms  ORT %9.2f ms  q8/ORT %.2f  %s\n", n, t, q, o, q / o, w }'
  done
done
unset OMP_WAIT_POLICY
echo "== calibration throughput (samples/s)"
DET=$(mktemp -d)
python3 -c "
import numpy as np
r = np.random.default_rng(0)
for i in range(64): np.save(f'$DET/{i:03d}.npy', r.integers(0, 256, (640, 640, 3), dtype=np.uint8))
"
for T in 2 $((ALL - 1)); do
  for m in plain max entropy percentile mse; do
    flag="--method $m"; [ "$m" = plain ] && flag="--plain"
    "$PKG/bin/calibration_throughput" --name fashion_cnn --model "$PKG/fashion_cnn.onnx" --data "$PKG/t10k-images-idx3-ubyte.gz" \
      --limit 10000 --threads "$T" $flag | tail -1
    "$PKG/bin/calibration_throughput" --name detector640 --model "$PKG/detector640.onnx" --data "$DET" --limit 64 \
      --threads "$T" $flag | tail -1
  done
done
rm -rf "$DET"
