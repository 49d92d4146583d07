#!/usr/bin/env bash
# Configures (once) and builds Stride into build/ with ninja. Extra arguments
# go to ninja (e.g. a target name).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${STRIDE_BUILD_DIR:-build}
JOBS=${STRIDE_JOBS:-$(nproc)}

if [[ ! -f $BUILD_DIR/build.ninja ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    ${STRIDE_CMAKE_ARGS:-}
fi
ninja -C "$BUILD_DIR" -j "$JOBS" "$@"
