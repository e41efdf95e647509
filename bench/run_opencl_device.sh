#!/bin/sh
# The OpenCL backend on a GPU machine, in one run: q8 tune (qgemm_mma's tiles, recorded in a
# tuning database under OUT that the rest of the run uses), the cross-backend harness with the
# device's variants selected, each plan's outputs on the device against the CPU integer reference, q8 bench
# (FP32 on the CPU beside INT8 through OpenCL, batch 1 and 64, with device kernel and copy
# times), CLBlast's SGEMM under each Xgemm candidate, q8's INT8 GEMM beside the FP32 Gemm, and PyTorch on the same GPU (torch_peers.py).
#   bench/run_opencl_device.sh PKG OUT
# PKG holds bin/ (q8, q8_unit_tests, opencl_gemm), lib/ (their shared libraries), and for each
# NAME in $MODELS (default: resnet18 resnet50 mobilenetv2) NAME.onnx and NAME.q8plan (built by q8
# from the test-model factory's NAME); OUT receives the JSON.
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
MODELS=${MODELS:-resnet18 resnet50 mobilenetv2}
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
if [ -w /etc ] && [ ! -f /etc/OpenCL/vendors/nvidia.icd ]; then
  mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L
echo "== q8 tune: qgemm_mma's tiles on this device"
export Q8_TUNING_DB="$OUT/tuning.json"
"$PKG/bin/q8" tune --repeat 3 --json "$OUT/tune.json" 2>&1 | grep -E "device:|present:|\[|best|wrote|error"
echo "== harness (every op case, bit for bit against the integer reference)"
"$PKG/bin/q8_unit_tests" --gtest_filter='BackendHarness*:ProgramCache*:Select*:MmaTile*:TuningDb*:OpenClChannelsLast*' 2>&1 | grep -E "^\[ +(OK|FAILED|PASSED)|Failure|first difference|as expected|declined"
echo "== whole plans: OpenCL outputs against the CPU integer reference (batch 2)"
for m in $MODELS; do
  "$PKG/bin/q8" run "$PKG/$m.q8plan" --shape input=2x3x224x224 --output-dir "$OUT/cpu_$m" >/dev/null
  "$PKG/bin/q8" run "$PKG/$m.q8plan" --device opencl --shape input=2x3x224x224 --output-dir "$OUT/ocl_$m" | grep -E "placement|→"
  if cmp -s "$OUT/cpu_$m/output.npy" "$OUT/ocl_$m/output.npy"; then echo "$m: identical"; else echo "$m: DIFFERENT"; fi
done
echo "== q8 bench: FP32 on the CPU, INT8 through OpenCL"
for m in $MODELS; do
  for b in 1 64; do
    it=20; [ "$b" = 64 ] && it=5
    "$PKG/bin/q8" bench "$PKG/$m.onnx" --int8 "$PKG/$m.q8plan" --device opencl --shape input=${b}x3x224x224 --iterations $it \
      --warmup 2 --json "$OUT/q8_${m}_b$b.json" 2>&1 | grep -E "device:|threads:|latency|device time|copies|×" | sed "s/^/$m b$b: /"
  done
done
echo "== CLBlast's SGEMM under each candidate Xgemm parameter set (engine/opencl/clblast_tuning.cpp)"
"$PKG/bin/opencl_gemm" --xgemm-sweep 4096 --repeat 3 --json "$OUT/xgemm_sweep.json"
echo "== INT8 GEMM: q8's QGemm beside the FP32 Gemm (CLBlast's SGEMM)"
"$PKG/bin/opencl_gemm" --n 1024,2048,4096,8192 --repeat 3 --json "$OUT/q8_gemm.json"
echo "== PyTorch on the same GPU"
python3 "$(dirname "$0")/torch_peers.py" --json "$OUT/torch_peers.json"
