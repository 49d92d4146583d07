#!/usr/bin/env bash
# Compiles a graph with stridec, builds its CUDA source for the CPU with
# CudaEmulation.h, and runs the module's plan with stride-emu:
#
#   emulate.sh [-c STRIDEC_OPTION]... GRAPH.mlir [stride-run options...]
#
# e.g. emulate.sh examples/softmax.mlir --input x.npy --expect ref/
# Tools come from $STRIDE_BIN (default: build/bin of this checkout); the
# work files go to $EMU_WORK (default: a temporary directory, removed).
# With EMU_BUILD_ONLY=1 it stops after building $EMU_WORK/kernels-N.so: one
# library per translation unit (plan.executable) of the module, numbered
# from 0, that stride-emu takes in order (--kernels once each). EMU_EDIT, a
# sed script, edits the kernels' source before they are built: the
# emulator's own tests take a barrier out to see the emulator catch it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${STRIDE_BIN:-$here/../../build/bin}
stridec_options=()
while [[ $# -gt 0 && $1 == -c ]]; do
  stridec_options+=("$2")
  shift 2
done
graph=$1
shift
if [[ -n ${EMU_WORK:-} ]]; then
  mkdir -p "$EMU_WORK"
  work=$(cd "$EMU_WORK" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

"$bin/stridec" "${stridec_options[@]}" "$graph" -o "$work/graph.stridemod"
"$bin/stridec" "${stridec_options[@]}" --emit=cuda "$graph" -o "$work/kernels.cu"
# One file per translation unit: stridec separates several with a line
# "// ==== Stride translation unit I of N: ..." (stride::unitHeader).
rm -f "$work"/kernels-*.cu "$work"/kernels-*.so
awk -v dir="$work" 'BEGIN { unit = 0 }
  /^\/\/ ==== Stride translation unit [0-9]+ of [0-9]+:/ { unit = $6; next }
  { print > (dir "/kernels-" unit ".cu") }' "$work/kernels.cu"
units=$(ls "$work"/kernels-*.cu | wc -l)
if [[ -n ${EMU_EDIT:-} ]]; then
  sed -i -e "$EMU_EDIT" "$work"/kernels-*.cu
fi
# Each unit's library, built in parallel.
pids=()
for ((u = 0; u < units; u++)); do
  {
    echo "#include \"$work/kernels-$u.cu\""
    echo '#include "EmuLaunch.h"'
    printf 'STRIDE_EMU_KERNELS('
    # Each kernel's name (the line after its signature's first) and its
    # cluster's blocks (__cluster_dims__, else 1).
    awk '/^extern "C" __global__/ {
           blocks = match($0, /__cluster_dims__\([0-9]+/) ? substr($0, RSTART + 17, RLENGTH - 17) : 1
           getline; sub(/\(.*/, ""); printf "%sSTRIDE_EMU_KERNEL(%s, %s)", sep, $0, blocks; sep = ", " }' "$work/kernels-$u.cu"
    echo ')'
  } > "$work/table-$u.cpp"
  ${CXX:-g++} -std=c++20 -O1 -fPIC -shared -pthread -w -I"$here" -I"$here/include" \
    -include "$here/CudaEmulation.h" "$work/table-$u.cpp" -o "$work/kernels-$u.so" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid"
done
[[ ${EMU_BUILD_ONLY:-0} == 1 ]] && exit 0
kernels=()
for ((u = 0; u < units; u++)); do
  kernels+=(--kernels "$work/kernels-$u.so")
done
# A guard against a hung emulation (an endless loop; a barrier that not
# every thread reaches is reported at once, EmuFibers.h), not a timing.
timeout "${EMU_TIMEOUT:-900}" "$bin/stride-emu" "$work/graph.stridemod" "${kernels[@]}" "$@"
