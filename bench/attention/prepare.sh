#!/usr/bin/env bash
# Writes bench/attention's graphs (graphs.py) and compiles each with this
# build's stridec, into a folder that travels to the GPU machine with
# stride-run-gpu (which needs no MLIR): there, `sdpa.py run --bin DIR/bin
# --modules DIR/modules` times them beside PyTorch's SDPA backends.
#
# usage: bench/attention/prepare.sh OUT [graphs.py options, e.g. --tokens 512,4096 --dtypes bf16]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1
shift
rm -rf "$out"
mkdir -p "$out/bin" "$out/modules"
python3 bench/attention/graphs.py "$out/modules" "$@"
for graph in "$out"/modules/*/*.mlir; do
  build/bin/stridec "$graph" -o "${graph%.mlir}.stridemod"
  rm "$graph"
done
cp build/bin/stride-run-gpu "$out/bin/"
cp bench/attention/sdpa.py bench/attention/graphs.py tools/stride-export/stride_export.py "$out/"
# The export logic stride_export.py imports (the stride package).
mkdir -p "$out/python" && cp -r python/stride "$out/python/"
echo "$out: $(ls "$out"/modules | wc -l) cases, $(du -sm "$out" | cut -f1) MiB"
