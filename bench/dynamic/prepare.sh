#!/usr/bin/env bash
# Builds, here, the bundle that bench/dynamic/run.sh runs on the GPU
# machine: bench/models' bundle (the portable stridec and stride-run-gpu,
# the export helper) with bench_dynamic.py and its run.sh.
#
# usage: bench/dynamic/prepare.sh [--out DIR]   (default build/dynamic-bundle)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=build/dynamic-bundle
[[ ${1:-} == --out ]] && out=$2
bench/models/prepare.sh --out "$out" --add bench/dynamic/bench_dynamic.py --add bench/dynamic/run.sh
