#!/bin/sh
# How the INT8 plan of ResNet-50 scales with threads at batch 1 on a many-core machine: for 1, 2,
# 4, 8, 12 and 16 threads, q8 bench's mean latency (20 runs after 3), and oneDNN's own execution
# time per run (ONEDNN_VERBOSE=1, the exec lines' last field summed over 8 runs) with its three
# costliest primitives. Run after bench/run_bench_peer_device.sh PKG OUT, which leaves
# OUT/resnet50.qdq.onnx.
#   bench/run_int8_threads_device.sh PKG OUT
PKG=$(cd "$1" && pwd)
OUT=$2
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$PKG/bin/q8" build "$OUT/resnet50.qdq.onnx" --shape input=1x3x224x224 -o "$OUT/r50.plan" >/dev/null 2>&1
for T in 1 2 4 8 12 16; do
  lat=$("$PKG/bin/q8" bench "$OUT/r50.plan" --shape input=1x3x224x224 --threads $T --warmup 3 --iterations 20 2>&1 | grep "^INT8  latency" | cut -c1-40)
  ONEDNN_VERBOSE=1 "$PKG/bin/q8" bench "$OUT/r50.plan" --shape input=1x3x224x224 --threads $T --warmup 3 --iterations 5 2>/dev/null |
    grep "^onednn_verbose,exec" > "$OUT/verbose_t$T.txt"
  n=$(wc -l < "$OUT/verbose_t$T.txt")
  total=$(awk -F, '{s += $NF} END {printf "%.1f", s / 8}' "$OUT/verbose_t$T.txt")
  top=$(awk -F, '{k = $5 " " $(NF-1); s[k] += $NF} END {for (k in s) printf "%.2f %s\n", s[k] / 8, k}' "$OUT/verbose_t$T.txt" | sort -rn | head -3 | tr '\n' ';')
  echo "t$T $lat | oneDNN exec ms/run $total ($n calls in 8 runs) | costliest: $top"
done
