#!/usr/bin/env bash
# Compiles a training fixture's two archives together (stridec --backward:
# eager attention paired across them, python-free-docs/attention.md), runs
# both emulated on the CPU (test/Emu) and compares the backward's gradients
# with PyTorch's:
#
#   run-training-fixture.sh DIR RTOL FORWARD_INPUTS USER_OUTPUTS TANGENTS GRADIENTS [STRIDEC_OPTION...]
#
# FORWARD_INPUTS are the forward's input names in order (its
# forward_inputs_N.npy), USER_OUTPUTS the forward's outputs that are the
# model's (not saved for the backward), TANGENTS the backward's output
# gradients as NAME=N (its backward_inputs_N.npy), GRADIENTS the backward's
# outputs in order (backward_outputs_N.npy); lists comma-separated. The
# backward reads every other forward output by its name: the saved tensors,
# whatever the pairing made of them. Prints the paired graphs' attention ops
# (to FileCheck) before the comparison.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${STRIDE_BIN:-$here/../../../build/bin}
dir=$1 rtol=$2
IFS=, read -r -a inputs <<< "$3"
IFS=, read -r -a user_outputs <<< "$4"
IFS=, read -r -a tangents <<< "$5"
IFS=, read -r -a gradients <<< "$6"
shift 6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
options=()
for option in "$@"; do
  options+=(-c "$option")
done
"$bin/stridec" "$@" "$dir/forward.pt2" --backward="$dir/backward.pt2" --emit=graph \
  -o "$work/forward.mlir" --backward-output="$work/backward.mlir"
grep -ho "stride.attention[_a-z]* " "$work/forward.mlir" "$work/backward.mlir" | sed 's/^/paired: /'

args=()
for i in "${!inputs[@]}"; do
  args+=(--input "${inputs[$i]}=$dir/forward_inputs_$i.npy")
done
EMU_WORK=$work/emu-forward "$here/../../Emu/emulate.sh" "${options[@]}" "$work/forward.mlir" \
  "${args[@]}" --output-dir "$work/saved" >/dev/null
for name in "${user_outputs[@]}"; do
  rm "$work/saved/$name.npy"
done

args=()
for saved in "$work"/saved/*.npy; do
  args+=(--input "$(basename "$saved" .npy)=$saved")
done
for tangent in "${tangents[@]}"; do
  args+=(--input "${tangent%%=*}=$dir/backward_inputs_${tangent#*=}.npy")
done
mkdir -p "$work/expected"
for i in "${!gradients[@]}"; do
  cp "$dir/backward_outputs_$i.npy" "$work/expected/${gradients[$i]}.npy"
done
EMU_WORK=$work/emu-backward "$here/../../Emu/emulate.sh" "${options[@]}" "$work/backward.mlir" \
  "${args[@]}" --expect "$work/expected" --rtol "$rtol"
