#!/usr/bin/env bash
# Builds, here, the probes bench/ceiling/ceiling.cu and rows.cu with the CUDA
# toolkit's nvcc (/usr/local/cuda; no GPU needed), for the GPU machine to
# run:
#
#   bench/ceiling/build.sh [OUT [ARCH]]   (default build/ceiling, sm_90)
#   (on the GPU machine)  OUT/ceiling; OUT/rows
#
# rows.cu times hand-written variants next to the kernels stridec emits for
# the same graphs: build/bin/stridec (./scripts/build.sh) writes them to
# OUT/rows_generated.cu, one translation unit, each entry renamed gen_NAME.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/ceiling}
arch=${2:-sm_90}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
stridec=${STRIDEC:-build/bin/stridec}
mkdir -p "$out"
"$nvcc" -O3 -std=c++17 -arch="$arch" -o "$out/ceiling" bench/ceiling/ceiling.cu

# The emitted kernels, the prelude kept once.
generated=$out/rows_generated.cu
# nvcc's host pass reads the kernels' bodies too, where the prelude defines
# the cluster functions for the device only (NVRTC compiles device code).
cat >"$generated" <<'DECLARE'
#if !defined(__CUDA_ARCH__)
__device__ void stride_cluster_sync();
template <typename T> __device__ T stride_cluster_read(const T *p, unsigned rank);
#endif
DECLARE
keep=p # the first file whole, then from the prelude's end marker on
for name in softmax_f32_256x65536 softmax_f32_512x32768 softmax_bf16_512x65536 \
  layernorm_f32_256x65536 layernorm_f32_512x32768 layernorm_bf16_512x65536; do
  bench/shapes/gen.sh "$name" >"$out/$name.mlir"
  "$stridec" "$out/$name.mlir" --emit=cuda --arch="$arch" >"$out/$name.cu"
  sed -n "${keep}" "$out/$name.cu" |
    sed -E "s/^(max_sub_exp_sum_div|mean_sub_mul_mean_full_add)\(/gen_$name(/" >>"$generated"
  keep='/^\/\/ ---- End of the prelude/,$p'

done
"$nvcc" -O3 -std=c++17 -arch="$arch" -I bench/ceiling -o "$out/rows" \
  bench/ceiling/rows.cu "$generated"
echo "made from commit $(git rev-parse --short HEAD) on $(date -u +%F)" >"$out/MANIFEST"
