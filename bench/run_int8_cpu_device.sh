#!/bin/sh
# The CPU INT8 backend on a many-core machine, in one run: the CPU's int8 instructions; the
# cross-backend harness on the CPU INT8 backend under every ONEDNN_MAX_CPU_ISA and Q8_MAX_CPU_ISA
# setting; then INT8 inference of torchvision's ResNet-50 and MobileNetV2 (exported there, random
# weights; cnn_peers_device.py) and the factory's 640x640 detectors (from PKG), each calibrated by
# q8 and quantized with its defaults: q8's plan (CPU INT8 backend), q8's FP32 executor and ONNX
# Runtime's FP32 and INT8 (Python's onnxruntime, the same QDQ model) at THREADS (default: all, 2
# and 1), batch 1 and 16, under each oneDNN instruction-set cap of ISAS (default: none; e.g.
# "ALL AVX512_CORE" adds the u8 sources of CPUs without VNNI on the same cores); at all threads the
# plan's bytes are compared with the integer reference's, at both batch sizes.
#   [THREADS="16 2"] [ISAS="ALL AVX512_CORE"] bench/run_int8_cpu_device.sh PKG OUT
# PKG holds bin/ (q8, q8_unit_tests, int8_inference), lib/, and models/NAME.onnx, NAME.qdq.onnx.
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
ALL=$(nproc)
lscpu | grep -E "Model name|^CPU\(s\)"
echo "int8 instructions: $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx512f|avx512_vnni|avx_vnni|amx_int8)$' | tr '\n' ' ')"
echo "== harness: the CPU INT8 backend under each instruction-set setting"
for isa in ALL AVX512_CORE_VNNI AVX2_VNNI AVX512_CORE AVX2 AVX SSE41; do
  for q in avx512 avx2; do
    r=$(ONEDNN_MAX_CPU_ISA=$isa Q8_MAX_CPU_ISA=$q "$PKG/bin/q8_unit_tests" --gtest_filter='BackendHarness.CpuInt8*:Int8Primitive.*:RequantizeRow.*' 2>&1)
    echo "ONEDNN_MAX_CPU_ISA=$isa Q8_MAX_CPU_ISA=$q: $(echo "$r" | grep -E "instruction set|cases of" | tr '\n' ' ') $(echo "$r" | grep -E "^\[  (PASSED|FAILED) " | tr '\n' ' ')"
    echo "$r" | grep -E "Failure|differ|expected" | head -5
  done
done
r=$(OMP_NUM_THREADS=2 "$PKG/bin/q8_unit_tests" --gtest_filter='BackendHarness.CpuInt8*' 2>&1)
echo "2 threads (a sample per thread where a case has two or more): $(echo "$r" | grep -E "cases of|^\[  (PASSED|FAILED) " | tr '\n' ' ')"
echo "== models"
python3 "$HERE/cnn_peers_device.py" "$OUT" --models resnet50,mobilenet_v2 --export-only >/dev/null 2>&1 || echo "export failed"
for m in resnet50 mobilenet_v2; do
  "$PKG/bin/q8" calibrate "$OUT/$m.onnx" --data "$OUT/calib/$m" --json "$OUT/$m.json" --quiet >/dev/null 2>&1 || echo "$m: calibrate failed"
  "$PKG/bin/q8" quantize "$OUT/$m.onnx" --calib "$OUT/$m.json" -o "$OUT/$m.qdq.onnx" --check-samples 0 >/dev/null 2>&1 || echo "$m: quantize failed"
  echo "$m FP32 $("$PKG/bin/q8" bench "$OUT/$m.onnx" --shape input=1x3x224x224 --warmup 0 --iterations 1 2>&1 | grep 'graph optimization')"
done
cp "$PKG"/models/*.onnx "$OUT/"
echo "== INT8 inference: q8 (CPU INT8 backend) beside q8 FP32 and ONNX Runtime FP32 / INT8 (ms per run)"
for m in resnet50 mobilenet_v2 mobile_detector_opset17 detector640; do
  case $m in resnet50|mobilenet_v2) side=224 ;; *) side=640 ;; esac
  for T in ${THREADS:-$ALL 2 1}; do
    for b in 1 16; do
      [ "$m" = detector640 ] && [ "$b" = 16 ] && [ "$T" != "$ALL" ] && continue
      shape="input=${b}x3x${side}x${side}"
      of=$(python3 "$HERE/ort_inference.py" "$OUT/$m.onnx" "$shape" "$T" 5 | grep -o 'ORT *[0-9.]* ms' | grep -o '[0-9.]*')
      oi=$(python3 "$HERE/ort_inference.py" "$OUT/$m.qdq.onnx" "$shape" "$T" 5 | grep -o 'ORT *[0-9.]* ms' | grep -o '[0-9.]*')
      for isa in ${ISAS:-ALL}; do
        ref=""; [ "$T" = "$ALL" ] && ref="--reference"
        q=$(ONEDNN_MAX_CPU_ISA=$isa "$PKG/bin/int8_inference" --name $m --model "$OUT/$m.onnx" --qdq "$OUT/$m.qdq.onnx" --shape "$shape" \
            --threads "$T" --repeat 5 $ref --json "$OUT/int8_${m}_b${b}_t${T}_${isa}.json" 2>&1 | tail -1)
        echo "$q | ORT FP32 $of ms | ORT INT8 $oi ms | oneDNN cap $isa"
      done
    done
  done
done
