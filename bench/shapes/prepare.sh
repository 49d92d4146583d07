#!/usr/bin/env bash
# Builds, here, the bundle of the shapes sweep (README.md) that
# bench/compare.sh runs on the GPU machine with shapes.py as its PyTorch
# side: stride-run-gpu, every graph of sweep.txt written by gen.sh and
# compiled by stridec, and issue 17's table graphs (bench/*.mlir named
# FORM_DTYPE_ROWSxLENGTH).
#
# usage: bench/shapes/prepare.sh [OUT [ARCH]]   (default: build/shapes-bundle sm_90)
# then, on the GPU machine: OUT/compare.sh OUT shapes.py
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/shapes-bundle}
arch=${2:-sm_90}

./scripts/build.sh stridec stride-run-gpu >/dev/null
rm -rf "$out"
mkdir -p "$out/bin" "$out/modules" "$out/graphs"
cp build/bin/stride-run-gpu "$out/bin/"
cp bench/compare.sh bench/torch_bench.py bench/shapes/shapes.py bench/shapes/sweep.txt "$out/"
for name in $(grep -v '^#' bench/shapes/sweep.txt); do
  bench/shapes/gen.sh "$name" >"$out/graphs/$name.mlir"
done
cp bench/*_f32_[0-9]*x[0-9]*.mlir "$out/graphs/"
for graph in "$out"/graphs/*.mlir; do
  build/bin/stridec --arch="$arch" "$graph" -o "$out/modules/$(basename "$graph" .mlir).stridemod"
done
echo "made from commit $(git rev-parse --short HEAD) on $(date -u +%F)" >"$out/MANIFEST"
du -sh "$out"
