#!/usr/bin/env bash
# Builds, here, the bundle that bench/dynamic/run.sh runs on the GPU
# machine: bench/models' bundle (the portable stridec and stride-run-gpu,
# the export helper) with bench_dynamic.py and its run.sh.
#
# usage: bench/dynamic/prepare.sh [--out DIR]   (default build/dynamic-bundle)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=build/dynamic-bundle
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    *) echo "bench/dynamic/prepare.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done

bench/models/prepare.sh --out "$out" >/dev/null
rm "$out/run.sh"
cp bench/dynamic/bench_dynamic.py bench/dynamic/run.sh "$out/"
echo "$out: $(du -sm "$out" | cut -f1) MiB"
