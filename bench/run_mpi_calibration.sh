#!/bin/sh
# Calibration across processes on one machine: `mpirun -n N q8 calibrate` for N = 1, 2 and 4, each
# rank with (all cores / N) threads (--bind-to none), beside one process without mpirun at 2 and
# at all threads. Two workloads: fashion_cnn (entropy) on Fashion-MNIST's 10,000 test images at
# batch 32, and the 640x640 detector (entropy) on 64 random images at batch 4. Samples/s are
# q8's own ("observed N samples in S s": from the first batch to the merged observers on rank 0).
#   bench/run_mpi_calibration.sh PKG [OUT_DIR]
# PKG holds bin/q8, lib/ (its shared libraries), fashion_cnn.onnx, detector640.onnx and
# t10k-images-idx3-ubyte.gz; MPIRUN names the launcher (default: mpirun), PYTHON a Python with
# numpy (default: python3). Writes
# OUT_DIR/mpi_calibration.json.
set -u
PKG=$(cd "$1" && pwd)
OUT="${2:-.}"
MPIRUN="${MPIRUN:-mpirun}"
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ALL=$(nproc)
WORK=$(mktemp -d)
"${PYTHON:-python3}" -c "
import numpy as np
r = np.random.default_rng(0)
for i in range(64): np.save('$WORK/det_%03d.npy' % i, r.integers(0, 256, (640, 640, 3), dtype=np.uint8))
" && mkdir -p "$WORK/det" && mv "$WORK"/det_*.npy "$WORK/det/"
echo "== mpirun q8 calibrate: $ALL cores; $("$MPIRUN" --version 2>&1 | head -1)"
JSON="["
# run NAME MODEL DATA BATCH LIMIT RANKS THREADS: one calibration; prints and records samples/s.
run() {
  if [ "$6" = 0 ]; then launcher=""; else launcher="$MPIRUN --bind-to none --oversubscribe -n $6"; fi
  line=$($launcher "$PKG/bin/q8" calibrate "$PKG/$2" --data "$3" --batch-size "$4" --limit "$5" --method entropy \
           --threads "$7" --cache "$WORK/out.cache" 2>&1 | grep "^observed" | tail -1)
  sps=$(echo "$line" | sed 's/.*(\([0-9.]*\) samples\/s).*/\1/')
  printf "%-12s %-18s %2s threads each  %10s samples/s\n" "$1" "$( [ "$6" = 0 ] && echo "one process" || echo "mpirun -n $6")" "$7" "$sps"
  JSON="$JSON{\"model\": \"$1\", \"ranks\": $6, \"threads_per_rank\": $7, \"samples_per_second\": ${sps:-null}},"
}
for w in "fashion_cnn fashion_cnn.onnx $PKG/t10k-images-idx3-ubyte.gz 32 10000" "detector640 detector640.onnx $WORK/det 4 64"; do
  set -- $w
  run "$1" "$2" "$3" "$4" "$5" 0 2
  run "$1" "$2" "$3" "$4" "$5" 0 "$ALL"
  for n in 1 2 4; do t=$((ALL / n)); [ "$t" -ge 1 ] || t=1; run "$1" "$2" "$3" "$4" "$5" "$n" "$t"; done
done
echo "${JSON%,}]" > "$OUT/mpi_calibration.json"
rm -rf "$WORK"
