#!/usr/bin/env bash
# Builds, here, the bundle that bench/decode/run.sh runs on the GPU machine:
# the models bundle (bench/models/prepare.sh: the portable stridec and
# stride-run-gpu, the export helper, the stride package, bench_models.py,
# whose timing and runner functions bench_decode.py uses) plus
# bench_decode.py, run.sh and stride-generate (build it first:
# scripts/build.sh).
#
# usage: bench/decode/prepare.sh [--out DIR]   (default build/decode-bundle)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=build/decode-bundle
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    *) echo "bench/decode/prepare.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done

bench/models/prepare.sh --out "$out" >/dev/null
rm "$out/run.sh"
cp bench/decode/bench_decode.py bench/decode/skinny_sweep.py \
  bench/decode/attention_sweep.py bench/decode/run.sh "$out/"
# The greedy decoding example (examples/generate), linked like
# stride-run-gpu: it runs on the GPU machine as it is.
cp build/bin/stride-generate "$out/bin/"
echo "$out: $(du -sm "$out" | cut -f1) MiB"
