#!/usr/bin/env bash
# Runs a graph on the reference interpreter with random inputs, then the
# compiled graph emulated on the CPU (CudaEmulation.h, the module's own
# plan) with the same inputs, and compares the outputs:
#
#   compare-reference.sh GRAPH.mlir [-c STRIDEC_OPTION]...
#
# Environment: RTOL (default 1e-6), SEED (1), STRIDE_BIN (build/bin),
# EMU_ARGS (more stride-emu options, e.g. "--runs 3").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${STRIDE_BIN:-$here/../../build/bin}
graph=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/stride-run" "$graph" --random-inputs --seed "${SEED:-1}" \
  --save-inputs "$work/in" --output-dir "$work/expected"
inputs=()
for f in "$work"/in/*.npy; do
  name=$(basename "$f" .npy)
  inputs+=(--input "$name=$f")
done
EMU_WORK=$work/emu "$here/emulate.sh" "$@" "$graph" "${inputs[@]}" \
  --expect "$work/expected" --rtol "${RTOL:-1e-6}" ${EMU_ARGS:-}
