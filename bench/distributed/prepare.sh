#!/usr/bin/env bash
# Builds, here, the bundle that bench/distributed/run.sh runs on a 2- or
# 4-GPU machine: the models bundle (bench/models/prepare.sh: the portable
# stridec and stride-run-gpu, whose --ranks launcher runs the ranks, the
# export helper, the stride package, bench_models.py, whose timing and
# runner functions bench_distributed.py uses) plus bench_distributed.py and
# run.sh (build first: scripts/build.sh).
#
# usage: bench/distributed/prepare.sh [--out DIR]   (default build/distributed-bundle)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=build/distributed-bundle
[[ ${1:-} == --out ]] && out=$2
bench/models/prepare.sh --out "$out" --add bench/distributed/bench_distributed.py \
  --add bench/distributed/run.sh
