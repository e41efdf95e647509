#!/bin/sh
# Transformers on a GPU machine, in one run (docs/opencl.md): BERT-base (sequence 128) and
# ViT-B/16 exported there by PyTorch 2.x (bench/transformers_device.py), calibrated (max, 16
# samples), quantized (as is, and with --quantize-bmm) and built by q8; the plan's placement through
# OpenCL; q8 bench of each INT8 plan through OpenCL at batch 1 and 64; PyTorch FP32, FP16 and torch.compile FP16 on the same GPU.
# Each bench's whole output (device kernels, the values that cross) is OUT/q8_<model>[_bmm]_b<batch>.txt.
#   bench/run_transformers_device.sh PKG OUT       (PKG: bin/q8 and lib/, as run_opencl_device.sh;
#                                                  PEERS=0 leaves PyTorch out)
set -u
PKG=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$PKG/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
W=$(mktemp -d)
command -v nvidia-smi >/dev/null && nvidia-smi -L
python3 "$HERE/transformers_device.py" export "$W" 2>&1 | grep -v Warning
for m in ${MODELS:-bert vit}; do
  echo "== $m"
  "$PKG/bin/q8" calibrate "$W/$m.onnx" --data "$W/$m" --method max --json "$W/$m.json" --quiet || continue
  if [ "$m" = bert ]; then S="--shape input_ids=BX128 --shape attention_mask=BX128"; else S="--shape pixel_values=BX3x224x224"; fi
  # The default plan (attention's MatMuls FP32), then with --quantize-bmm (QMatMul): label m, m_bmm.
  for v in "" bmm; do
    l=$m${v:+_$v}
    "$PKG/bin/q8" quantize "$W/$m.onnx" --calib "$W/$m.json" -o "$W/$l.qdq.onnx" ${v:+--quantize-bmm} | grep -E "quantized|FP32:" | head -5
    "$PKG/bin/q8" build "$W/$l.qdq.onnx" -o "$W/$l.q8plan" --device opencl > "$W/$l.build.txt"
    grep -E "^lowering|^placement|QGemm|QMatMul" "$W/$l.build.txt" | grep -v "→"
    echo "nodes on the CPU other than shape arithmetic, by op and reason:"
    grep "→ cpu" "$W/$l.build.txt" | grep -v "on shapes, indices or masks" | sed -E "s/^ *[0-9]+ ([A-Za-z0-9]+) '[^']*' → cpu/\1/" | sort | uniq -c | sort -rn
    for b in 1 64; do
      it=20; [ "$b" = 64 ] && it=5
      "$PKG/bin/q8" bench "$W/$l.q8plan" --device opencl $(echo $S | sed "s/BX/${b}x/g") --iterations $it --warmup 2 \
        --json "$OUT/q8_${l}_b$b.json" > "$OUT/q8_${l}_b$b.txt" 2>&1
      grep -E "placement|latency|device time|copies per run|×|error" "$OUT/q8_${l}_b$b.txt" | sed "s/^/$l b$b: /"
    done
  done
done
[ "${PEERS:-1}" = 0 ] && exit 0
echo "== PyTorch on the same GPU"
python3 "$HERE/transformers_device.py" peers --json "$OUT/torch_transformers.json" 2>&1 | grep -E "^torch|Error"
rm -rf "$W"
