#!/bin/sh
# Installs what q8 needs (Debian packages, ONNX Runtime from npm), builds with warnings as
# errors, and runs the whole test suite twice: built with AddressSanitizer and
# UndefinedBehaviorSanitizer (any finding fails its test), then the release build, ending with
# ctest's summary.
#   ./scripts/test.sh [BUILD_DIR]        (the sanitizer build goes to BUILD_DIR-sanitize)
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
JOBS="$(nproc)"
"$ROOT/scripts/install-deps.sh"

echo "== sanitizer build (ASan + UBSan): $BUILD-sanitize"
cmake -S "$ROOT" -B "$BUILD-sanitize" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQ8_WERROR=ON -DQ8_SANITIZE=ON \
  -DQ8_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD-sanitize" -j "$JOBS"
(cd "$BUILD-sanitize" && ctest --output-on-failure -j "$JOBS")

echo "== release build: $BUILD"
# The benchmark programs are left out of both builds: no test runs them (cmake --build builds them).
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQ8_WERROR=ON -DQ8_BUILD_BENCH=OFF
cmake --build "$BUILD" -j "$JOBS"
cd "$BUILD"
ctest --output-on-failure -j "$JOBS"
