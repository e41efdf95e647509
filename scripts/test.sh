#!/bin/sh
# Installs what q8 needs (Debian packages, ONNX Runtime from npm), builds with warnings as
# errors, and runs the whole test suite, ending with ctest's summary.
#   ./scripts/test.sh [BUILD_DIR]
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
"$ROOT/scripts/install-deps.sh"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQ8_WERROR=ON
cmake --build "$BUILD" -j "$(nproc)"
cd "$BUILD"
ctest --output-on-failure -j "$(nproc)"
