#!/bin/sh
# Two or more q8 binaries alternated on the same machine, models and inputs: for each THREADS and
# ROUNDS times, each binary of BINS in turn runs q8 bench on MODEL --int8 QDQ at BATCH (40 timed
# runs after 5), and the FP32 and INT8 mean latencies are printed a line each. Run after
# bench/run_bench_peer_device.sh PKG OUT, which leaves OUT/NAME.onnx and OUT/NAME.qdq.onnx.
#   [BINS="q8_before q8"] [ROUNDS=2] [BATCH=1] bench/run_cpu_ab_device.sh PKG OUT "THREADS…" "MODELS…"
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
THREADS=${3:-16}
MODELS=${4:-mobilenet_v2 mobile_detector_opset17 resnet50 detector640}
BINS=${BINS:-q8_before q8}
ROUNDS=${ROUNDS:-2}
BATCH=${BATCH:-1}
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "mean ms a run at batch $BATCH: binary, threads, model, round, FP32, INT8"
for T in $THREADS; do
  for m in $MODELS; do
    case $m in
      resnet50|mobilenet_v2) side=224 ;;
      *) side=640 ;;
    esac
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
      for b in $BINS; do
        "$PKG/bin/$b" bench "$OUT/$m.onnx" --int8 "$OUT/$m.qdq.onnx" --shape "input=${BATCH}x3x${side}x${side}" --threads "$T" \
          --warmup 5 --iterations 40 </dev/null 2>&1 |
          awk -v b="$b" -v t="$T" -v m="$m" -v r="$r" '/^FP32  latency/{f=$4} /^INT8  latency/{i=$4} END{printf "%-10s %3s %-24s %s %9s %9s\n", b, t, m, r, f, i}'
      done
      r=$((r + 1))
    done
  done
done
