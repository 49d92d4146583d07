#!/usr/bin/env bash
# Builds, here, the probe bench/ceiling/ceiling.cu with the CUDA toolkit's
# nvcc (/usr/local/cuda; no GPU needed), for the GPU machine to run:
#
#   bench/ceiling/build.sh [OUT [ARCH]]   (default build/ceiling, sm_90)
#   (on the GPU machine)  OUT/ceiling
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/ceiling}
arch=${2:-sm_90}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$out"
"$nvcc" -O3 -std=c++17 -arch="$arch" -o "$out/ceiling" bench/ceiling/ceiling.cu
echo "made from commit $(git rev-parse --short HEAD) on $(date -u +%F)" >"$out/MANIFEST"
