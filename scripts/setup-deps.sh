#!/usr/bin/env bash
# Installs, with apt, the Debian packages Stride builds and tests with, when
# any is missing. Sourced by quickstart.sh and check.sh.
set -euo pipefail

STRIDE_PACKAGES=(
  cmake ninja-build g++ ccache python3 python3-numpy python3-psutil
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libfmt-dev libgtest-dev
  flatbuffers-compiler libflatbuffers-dev
  libzip-dev zip unzip
  clang-22 libclang-rt-22-dev libfuzzer-22-dev
)

missing=()
for pkg in "${STRIDE_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep "install ok installed" >/dev/null ||
    missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "stride: installing missing packages: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ ! -f /usr/local/cuda/include/nvrtc.h ]]; then
  echo "stride: the CUDA 13 toolkit is expected in /usr/local/cuda (NVRTC headers and library)" >&2
  exit 1
fi
