#!/usr/bin/env bash
# Times Stride's index_add modules of the scatter bundle (bench/scatter/
# prepare.sh) on the GPU, whole and launch by launch, so that a slow pattern
# can be explained: for each module, the median of the plan replayed as a
# CUDA graph (stride-run-gpu --bench), then one run under Nsight Compute
# (ncu: each launch timed on its own, serialized; clocks and caches left as
# they are), one column per launch in launch order (the schedule's phases).
# Prints a Markdown table. Run on the GPU machine:
#
#   DIR/phases.sh [DIR [REGEX]]   (DIR: this script's directory; REGEX
#                                  selects modules by name, default all)
#
# $SCATTER_DTYPES (e.g. "f32") limits the inputs made, as for compare.sh. A
# module named NAME__TAG (e.g. NAME compiled at another commit, copied into
# modules/) runs on NAME's inputs, for a comparison in the same run.
set -uo pipefail
bundle=$(cd "${1:-$(dirname "$0")}" && pwd)
filter=${2:-.}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$bundle/scatter_bench.py" inputs "$work/inputs" || exit 1
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

# The launches' durations in microseconds, in launch order, from ncu's CSV
# (one row per launch; the last field is the value, in ns with
# --print-units base).
durations() {
  grep '"gpu__time_duration.sum"' "$1" | sed 's/.*,"\([0-9,.]*\)"$/\1/' | tr -d , |
    awk '{ printf "%s%.1f", sep, $1 / 1000; sep = " | " }'
}

echo "| module | median ms | launches (us, in order) |"
echo "|---|---|---|"
for module in "$bundle"/modules/*.stridemod; do
  name=$(basename "$module" .stridemod)
  [[ $name =~ $filter ]] || continue
  case=${name%%__*}
  [[ -d $work/inputs/$case ]] || continue
  inputs=()
  for ((i = 0; ; i++)); do
    f=$work/inputs/$case/arg$i.npy
    [[ -e $f ]] || break
    inputs+=(--input "arg$i=$f")
  done
  log=$work/$name.log
  "$bundle/bin/stride-run-gpu" "$module" "${inputs[@]}" --output-dir "$work/out" \
    --bench --warmup 5 --iterations 30 >"$log" 2>&1
  ms=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' "$log" | tail -1)
  "$ncu" --clock-control none --cache-control none --print-units base --csv \
    --metrics gpu__time_duration.sum \
    "$bundle/bin/stride-run-gpu" "$module" "${inputs[@]}" --output-dir "$work/out" \
    >"$work/$name.csv" 2>"$work/$name.ncu.log"
  launches=$(durations "$work/$name.csv")
  [[ -n $launches ]] || launches="ncu gave none: $(tail -c 300 "$work/$name.ncu.log" | tr '\n' ' ')"
  echo "| $name | ${ms:-failed: $(tail -c 300 "$log" | tr '\n' ' ')} | $launches |"
done
