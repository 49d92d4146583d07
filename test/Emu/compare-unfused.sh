#!/usr/bin/env bash
# Runs a graph whose kernels were written by hand (or by the fusion pass)
# and the same graph with every op in a kernel of its own (--no-fuse) and without
# vector accesses (--no-vectorize), both emulated on the CPU with the same
# random inputs, and compares the outputs:
#
#   compare-unfused.sh GRAPH.mlir
#
# Environment: RTOL (default 1e-6), SEED (1), INT_RANGE ("LO HI" for integer
# inputs), STRIDE_BIN (build/bin), STRIDE_OPT_ARGS (extra stride-opt passes
# run before inlining).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${STRIDE_BIN:-$here/../../build/bin}
graph=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/stridec" "$graph" -o "$work/fused.stridemod"
range=()
[[ -n ${INT_RANGE:-} ]] && range=(--int-range ${INT_RANGE})
"$bin/stride-random-inputs" "$work/fused.stridemod" "$work/in" --seed "${SEED:-1}" "${range[@]}"
inputs=()
for f in "$work"/in/*.npy; do
  name=$(basename "$f" .npy)
  inputs+=(--input "$name=$f")
done
"$bin/stride-opt" --stride-inline-kernels "$graph" -o "$work/unfused.mlir"
EMU_WORK=$work/u "$here/emulate.sh" -c --no-vectorize -c --no-fuse "$work/unfused.mlir" "${inputs[@]}" --output-dir "$work/expected"
EMU_WORK=$work/f "$here/emulate.sh" "$graph" "${inputs[@]}" --expect "$work/expected" --rtol "${RTOL:-1e-6}"
