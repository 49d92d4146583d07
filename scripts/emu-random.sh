#!/usr/bin/env bash
# Random graphs against the reference interpreter, with the kernels run on
# the CPU emulator (test/Emu): the long random campaign behind
# test/Emu/wide-random.test, which replays a few committed seeds. Needs no
# GPU. Each graph comes from stride-gen (--wide: one long dim per graph, 8
# to 70,001 elements, for the CUDA backend's size-dependent kernel forms;
# --matmul: one matrix product with its operands' views, bias, addend,
# epilogue and residual add, run as the emulator's cuBLASLt and Stride's
# skinny product kernel; --attention: one attention op, at times with its
# backward, run as the emulator's cuDNN call, Stride's split-KV kernel or
# the decomposition; --convolution: one convolution and the per-channel
# ops, residual add and ReLU after it, run as the emulator's cuDNN call,
# a cuBLASLt product or the decomposition),
# is compiled by stridec for the default GPU and, every other seed, for a
# GPU of one multiprocessor (other grids, splits and waves), and is compared
# with test/Emu/compare-reference.sh (relative error <= RTOL, default 1e-5,
# or absolute <= ATOL, default 1e-6, as scripts/gpu-check.sh does for f32;
# a graph with f16 or bf16 values: relative error <= BF16_RTOL, default
# 1e-2; a convolution graph with them: CONV_BF16_RTOL, default 5e-2, since
# the batch norm folded into its weights (each rounded to bf16) and the
# residual add and ReLU in its call (rounded once, where the reference
# rounds the convolution first) differ from the reference by a few ulps of
# the intermediate values, which cancellation can make a few percent of a
# small result).
#
#   scripts/emu-random.sh [--wide | --matmul | --attention | --convolution]
#                         [--seed S] [--keep DIR] N
#
# STRIDEC_OPTIONS (space-separated) are given to every stridec, e.g.
# "--attention-library=none" (the split-KV kernel and the decomposition).
#
# Prints one line per graph and a last line "N passed, M failed"; exits 1
# when any failed. A failing graph is kept in DIR (default
# emu-random-failures/) as seed-S.mlir with its log: reduce it with
# stride-reduce, fix the bug, and add the seed to wide-random.test.
set -uo pipefail
cd "$(dirname "$0")/.."

kind=()
seed=1
keep=emu-random-failures
count=
while [[ $# -gt 0 ]]; do
  case $1 in
    --wide) kind=(--wide); shift ;;
    --matmul) kind=(--matmul); shift ;;
    --attention) kind=(--attention); shift ;;
    --convolution) kind=(--convolution); shift ;;
    --seed) seed=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) count=$1; shift ;;
  esac
done
if ! [[ $count =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/emu-random.sh [--wide | --matmul | --attention | --convolution] [--seed S] [--keep DIR] N" >&2
  exit 1
fi

bin=${STRIDE_BIN:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for ((i = 0; i < count; i++)); do
  s=$((seed + i))
  graph=$work/seed-$s.mlir
  "$bin/stride-gen" "${kind[@]}" --seed "$s" -o "$graph" || exit 1
  options=()
  for option in ${STRIDEC_OPTIONS:-}; do options+=(-c "$option"); done
  ((s % 2)) || options+=(-c --multiprocessors=1)
  rtol=${RTOL:-1e-5}
  grep -q f16 "$graph" && rtol=${BF16_RTOL:-1e-2}
  grep -q f16 "$graph" && grep -q 'stride.convolution ' "$graph" &&
    rtol=${CONV_BF16_RTOL:-5e-2}
  if STRIDE_BIN=$bin RTOL=$rtol EMU_ARGS="--atol ${ATOL:-1e-6}" \
       test/Emu/compare-reference.sh "$graph" "${options[@]}" >"$work/log" 2>&1 &&
     ! grep -q MISMATCH "$work/log"; then
    echo "seed $s: pass"
    passed=$((passed + 1))
  else
    echo "seed $s: FAIL ($(grep -m1 -E 'MISMATCH|error' "$work/log"))"
    mkdir -p "$keep"
    cp "$graph" "$keep/"
    cp "$work/log" "$keep/seed-$s.log"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
((failed == 0))
