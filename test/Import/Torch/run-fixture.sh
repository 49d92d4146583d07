#!/usr/bin/env bash
# Compiles a fixture's archive, runs it emulated on the CPU (test/Emu) on the
# inputs the fixture was made with, and compares each output with PyTorch's:
#
#   run-fixture.sh ARCHIVE.pt2 PREFIX RTOL INPUTS OUTPUTS [STRIDEC_OPTION...]
#
# PREFIX names the fixture's .npy files (PREFIXinputs_N.npy,
# PREFIXoutputs_N.npy, e.g. "backward_" or ""); INPUTS and OUTPUTS are the
# graph's input and output names in order, comma-separated.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
archive=$1 prefix=$2 rtol=$3
IFS=, read -r -a inputs <<< "$4"
IFS=, read -r -a outputs <<< "$5"
shift 5
dir=$(dirname "$archive")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/expected"
for i in "${!outputs[@]}"; do
  cp "$dir/${prefix}outputs_$i.npy" "$work/expected/${outputs[$i]}.npy"
done
args=()
for i in "${!inputs[@]}"; do
  args+=(--input "${inputs[$i]}=$dir/${prefix}inputs_$i.npy")
done
options=()
for option in "$@"; do
  options+=(-c "$option")
done
EMU_WORK=$work/emu "$here/../../Emu/emulate.sh" "${options[@]}" "$archive" \
  "${args[@]}" --expect "$work/expected" --rtol "$rtol"
