#!/usr/bin/env bash
# Runs the benchmark suite on one GPU with Stride, PyTorch eager and
# torch.compile, checks every result against an f64 PyTorch reference, and
# prints a markdown table (time, % of the copy-bandwidth floor, correct or
# not) for python-free-docs/performance.md. Run on the GPU machine, in a bundle made by
# bench/prepare.sh:
#
#   ./compare.sh [BUNDLE [DRIVER]]   (default: this script's directory,
#                                     torch_bench.py)
#
# DRIVER is the PyTorch side, in the bundle: torch_bench.py, or
# shapes.py for the shapes sweep (bench/shapes/prepare.sh).
set -uo pipefail
bundle=$(cd "${1:-$(dirname "$0")}" && pwd)
driver=$bundle/${2:-torch_bench.py}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$driver" inputs "$work/inputs" || exit 1

echo "{" >"$work/results.json"
first=1
for module in "$bundle"/modules/*.stridemod; do
  name=$(basename "$module" .stridemod)
  inputs=()
  for ((i = 0; ; i++)); do
    f=$work/inputs/$name/arg$i.npy
    [[ -e $f ]] || break
    inputs+=(--input "arg$i=$f") # the graphs' arguments are unnamed: arg0, arg1, ...
  done
  log=$work/$name.log
  "$bundle/bin/stride-run-gpu" "$module" "${inputs[@]}" --output-dir "$work/out/$name" \
    --bench --warmup 5 --iterations 30 >"$log" 2>&1
  rc=$?
  cat "$log"
  ms=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' "$log" | tail -1)
  output=$(ls "$work/out/$name"/*.npy 2>/dev/null | sed -n 1p)
  if ((rc != 0)) || [[ -z $ms ]]; then ms=null; output=""; fi
  ((first)) || echo "," >>"$work/results.json"
  first=0
  printf '"%s": {"ms": %s, "output": "%s"}' "$name" "$ms" "$output" >>"$work/results.json"
done
echo "}" >>"$work/results.json"

python3 "$driver" report "$work/inputs" "$work/results.json"
