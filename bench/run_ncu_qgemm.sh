#!/bin/sh
# Nsight Compute on qgemm_mma, on a GPU machine with CUDA's toolkit: Nsight Compute does not see
# OpenCL's kernels, so the PTX NVIDIA's OpenCL compiled for q8's program (from q8's program cache)
# is launched again through the CUDA driver API (bench/ncu/qgemm_cuda_launch.cpp) with QGemm's
# arguments, and profiled there; ptxas reports its registers and shared memory.
#   bench/run_ncu_qgemm.sh PKG OUT [N]
# PKG holds bin/opencl_gemm and lib/ (its shared libraries); OUT receives ncu's report (text).
set -eu
PKG=$(cd "$1" && pwd)
OUT=$2
N=${3:-8192}
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT/vendors"
# NVIDIA's OpenCL alone: device 0 is the GPU whatever other ICDs the machine has.
echo libnvidia-opencl.so.1 > "$OUT/vendors/nvidia.icd"
export OCL_ICD_VENDORS="$OUT/vendors"
export Q8_CACHE_DIR="$OUT/program-cache"
rm -rf "$Q8_CACHE_DIR"
# One GEMM of N: the program is built with the device's tile alone, so the cache holds one file.
"$PKG/bin/opencl_gemm" --n "$N" --repeat 1 | tee "$OUT/opencl_gemm.txt"
# OpenCL's PTX adds %envreg0 and %envreg1 (the launch's global offset, in work-groups: 0 here) to
# the group ids; a CUDA launch leaves them undefined, so they become 0.
PTX="$OUT/qgemm.ptx"
sed 's/\(mov\.b32[[:space:]]*%r[0-9]*\), %envreg[0-9]*;/\1, 0;/' "$(ls "$Q8_CACHE_DIR"/*.bin | head -1)" > "$PTX"
TILE=$(sed -n 's/.*qgemm_mma \([0-9]*\)x\([0-9]*\)x[0-9]*\/\([0-9]*\)x\([0-9]*\)\/.*/\1 \2 \3 \4/p' "$OUT/opencl_gemm.txt" | head -1)
set -- $TILE
ROWS=$1 COLS=$2 THREADS=$((32 * $3 * $4))
CUDA=${CUDA_HOME:-/usr/local/cuda}
g++ -O2 -o "$OUT/qgemm_cuda_launch" "$HERE/ncu/qgemm_cuda_launch.cpp" -I"$CUDA/include" -L"$CUDA/lib64/stubs" -L"$CUDA/lib64" -lcuda
"$CUDA/bin/ptxas" -arch=sm_90 -v "$PTX" -o "$OUT/qgemm.cubin" > "$OUT/ptxas.txt" 2>&1 || true
grep -A1 "'qgemm_mma'" "$OUT/ptxas.txt" || tail -3 "$OUT/ptxas.txt"
"$OUT/qgemm_cuda_launch" "$PTX" "$N" "$ROWS" "$COLS" "$THREADS"
ncu --clock-control none --kernel-name qgemm_mma --launch-skip 1 --launch-count 1 --set full \
  "$OUT/qgemm_cuda_launch" "$PTX" "$N" "$ROWS" "$COLS" "$THREADS" > "$OUT/ncu.txt" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Registers Per|Shared Memory Config|Achieved Occupancy|Theoretical Occupancy|Block Limit|Executed Ipc|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|One or More Eligible|Tensor" "$OUT/ncu.txt" | head -40
