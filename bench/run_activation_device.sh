#!/bin/sh
# Convolutional nets with modern activations through OpenCL on a GPU machine, against PyTorch in
# the same run (cnn_peers_device.py: EfficientNet-B0 and MobileNetV3-Large, exported there): for
# each q8 build in PKG/bin (q8, and q8_before when present, for a before/after), calibrate on 8
# samples, quantize, build, then q8 bench FP32 on the CPU beside INT8 through OpenCL at batch 1
# and 64, with the placement line (nodes left on the host) and the plan's FP32 node count.
#   bench/run_activation_device.sh PKG OUT      (MODELS as below; BINS, default "q8_before q8": the builds in PKG/bin to run)
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
MODELS=${MODELS:-efficientnet_b0 mobilenet_v3_large}
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
command -v nvidia-smi >/dev/null && nvidia-smi -L
python3 "$(dirname "$0")/cnn_peers_device.py" "$OUT" --models "$(echo $MODELS | tr ' ' ,)" ${NO_COMPILE:+--no-compile}
for bin in ${BINS:-q8_before q8}; do
  [ -x "$PKG/bin/$bin" ] || continue
  for m in $MODELS; do
    w="$OUT/$bin/$m"
    mkdir -p "$w"
    "$PKG/bin/$bin" calibrate "$OUT/$m.onnx" --data "$OUT/calib/$m" --json "$w/table.json" --quiet >/dev/null 2>&1 || echo "$bin $m: calibrate failed"
    "$PKG/bin/$bin" quantize "$OUT/$m.onnx" --calib "$w/table.json" -o "$w/qdq.onnx" --check-samples 0 >/dev/null 2>&1 || echo "$bin $m: quantize failed"
    "$PKG/bin/$bin" build "$w/qdq.onnx" -o "$w/plan.q8plan" --device opencl > "$w/build.log" 2>&1 || echo "$bin $m: build failed"
    grep -E "fused|FP32|left" "$w/build.log" | head -3 | sed "s/^/$bin $m build: /"
    "$PKG/bin/$bin" run "$w/plan.q8plan" --shape input=2x3x224x224 --output-dir "$w/cpu" >/dev/null 2>&1
    "$PKG/bin/$bin" run "$w/plan.q8plan" --device opencl --shape input=2x3x224x224 --output-dir "$w/ocl" 2>&1 | grep -E "placement" | sed "s/^/$bin $m: /"
    if cmp -s "$w/cpu/output.npy" "$w/ocl/output.npy"; then echo "$bin $m: OpenCL output identical to the CPU reference"; else echo "$bin $m: OpenCL output DIFFERENT"; fi
    for b in 1 64; do
      it=50; [ "$b" = 64 ] && it=10
      "$PKG/bin/$bin" bench "$OUT/$m.onnx" --int8 "$w/plan.q8plan" --device opencl --shape input=${b}x3x224x224 --iterations $it \
        --warmup 3 --json "$w/bench_b$b.json" 2>&1 | grep -E "placement|latency|device time|×" | sed "s/^/$bin $m b$b: /"
    done
  done
done
