#!/bin/sh
# q8 bench --peer ort on the models of bench/prepare_int8_models.sh at batch 1 and 16 (images of
# their side, or bert_base's 128 token ids, mask and token types given by --input): q8's FP32
# executor, the INT8 plan on the CPU INT8 backend, and ONNX Runtime's CPU execution provider on the
# same FP32 and QDQ files and inputs, with the same threads, in one run each; then a table of the
# four latencies and the ratios.
#   bench/run_bench_peer.sh [BUILD_DIR] [THREADS] [MODELS] [ORT_LIBRARY]
# Writes BUILD_DIR/bench/peer_NAME_bB_tT.json (q8 bench's JSON).
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
THREADS="${2:-$(nproc)}"
MODELS="${3:-resnet50 mobilenetv2 mobile_detector_opset17 detector640 bert_base}"
ORT="${4:-$ROOT/.deps/ort/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1}"
OUT="$BUILD/bench"
sh "$ROOT/bench/prepare_int8_models.sh" "$BUILD" "$MODELS" | while read -r m model qdq side; do
  for batch in 1 16; do
    iterations=10
    [ "$batch" = 16 ] && iterations=5
    if [ "$side" = text ]; then
      d="$OUT/int8_work/${m}_b$batch"
      inputs="--input input_ids=$d/input_ids.npy --input attention_mask=$d/attention_mask.npy --input token_type_ids=$d/token_type_ids.npy"
    else
      inputs="--shape input=${batch}x3x${side}x${side}"
    fi
    # shellcheck disable=SC2086
    "$BUILD/q8" bench "$model" --int8 "$qdq" $inputs --threads "$THREADS" --warmup 2 \
      --iterations "$iterations" --peer ort --ort-library "$ORT" --json "$OUT/peer_${m}_b${batch}_t${THREADS}.json" </dev/null >&2
  done
done
/usr/bin/python3 - "$OUT" "$THREADS" "$MODELS" <<'PY'
import json, sys
out, threads, models = sys.argv[1], sys.argv[2], sys.argv[3].split()
print(f"ms per run (mean), {threads} threads: q8 INT8 / q8 FP32 / ORT INT8 / ORT FP32; INT8 ÷ ORT INT8, FP32 ÷ ORT FP32, FP32 ÷ INT8")
for m in models:
    for b in (1, 16):
        j = json.load(open(f"{out}/peer_{m}_b{b}_t{threads}.json"))
        q8i, q8f = j["int8"]["latency_ms"]["mean"], j["fp32"]["latency_ms"]["mean"]
        oi, of = j["peer"]["int8"]["latency_ms"]["mean"], j["peer"]["fp32"]["latency_ms"]["mean"]
        print(f"{m:24s} b{b:<3d} {q8i:9.1f} {q8f:9.1f} {oi:9.1f} {of:9.1f}   {q8i / oi:5.2f} {q8f / of:5.2f} {q8f / q8i:5.2f}")
PY
