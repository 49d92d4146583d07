#!/usr/bin/env bash
# Builds, here, the bundle of the scatter-add benchmark (issue 16) that
# bench/compare.sh runs on the GPU machine with scatter_bench.py as its
# PyTorch side:
#
#   bench/scatter/prepare.sh [DIR [ARCH]]   (default build/scatter-bundle, sm_90)
#   (on the GPU machine)  DIR/compare.sh DIR scatter_bench.py
#                         DIR/phases.sh DIR   (Stride only, launch by launch)
#
# index_add_{f32,bf16}.mlir compiled with and without --deterministic, one
# copy of each module per index pattern (the patterns are the inputs
# scatter_bench.py makes: uniform, zipf, one_row, two_rows).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/scatter-bundle}
arch=${2:-sm_90}

./scripts/build.sh stridec stride-run-gpu >/dev/null
rm -rf "$out"
mkdir -p "$out/bin" "$out/modules"
cp build/bin/stride-run-gpu "$out/bin/"
cp bench/compare.sh bench/torch_bench.py bench/scatter/scatter_bench.py bench/scatter/jax_bench.py \
  bench/scatter/phases.sh "$out/"
for dtype in f32 bf16; do
  for mode in default det; do
    flags=(--arch="$arch")
    suffix=
    if [[ $mode == det ]]; then
      flags+=(--deterministic)
      suffix=_det
    fi
    module=$out/index_add_$dtype$suffix.stridemod
    build/bin/stridec "${flags[@]}" bench/scatter/index_add_$dtype.mlir -o "$module"
    for pattern in uniform zipf one_row two_rows; do
      cp "$module" "$out/modules/index_add_${pattern}_$dtype$suffix.stridemod"
    done
  done
done
echo "made from commit $(git rev-parse --short HEAD) on $(date -u +%F)" >"$out/MANIFEST"
du -sh "$out"
