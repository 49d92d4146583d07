#!/usr/bin/env bash
# Builds, here, the bundle that bench/decode/run.sh runs on the GPU machine:
# the models bundle (bench/models/prepare.sh: the portable stridec and
# stride-run-gpu, the export helper, the stride package, bench_models.py,
# whose timing and runner functions bench_decode.py uses) plus
# bench_decode.py, run.sh and stride-generate (build it first:
# scripts/build.sh).
#
# usage: bench/decode/prepare.sh [--out DIR]   (default build/decode-bundle;
#        carry DIR.tar.xz, bench/models/prepare.sh says how)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=build/decode-bundle
[[ ${1:-} == --out ]] && out=$2
bench/models/prepare.sh --out "$out" --add bench/decode/bench_decode.py --add bench/decode/skinny_sweep.py \
  --add bench/decode/attention_sweep.py --add bench/decode/run.sh \
  --add build/bin/stride-generate
