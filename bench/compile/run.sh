#!/usr/bin/env bash
# Compile-time benchmark: generates chain and wide graphs (gen.sh), compiles
# each with stridec, and prints one table: cold compile time (an empty NVRTC
# cache, so NVRTC runs as with --no-cache), wall clock and CPU (user +
# system: NVRTC runs on every core when a graph has several translation
# units, so CPU may exceed wall clock; on a shared machine CPU is the figure
# that does not depend on the other work; pass `-- -j1` for one thread), CPU per op, cached compile time (the next compile, NVRTC's
# output from the cache), peak memory of the cold compile (maximum resident
# set size, from /usr/bin/time -v) and the number of kernels. The benchmark
# graphs bench/*.mlir follow, for their cached times. See
# python-free-docs/compile-time.md.
#
# usage: bench/compile/run.sh [--sizes "100 1000 4000"] [--kinds "pointwise row wide"]
#                             [--timeout SECONDS] [--no-bench] [--keep DIR]
#                             [-- STRIDEC_OPTION...]
# Options after `--` go to every stridec call (e.g. --max-kernel-ops=0).
set -euo pipefail
cd "$(dirname "$0")/../.."

sizes="100 1000 4000"
kinds="pointwise row wide"
limit=900
bench=1
keep=
while [[ $# -gt 0 ]]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --no-bench) bench=0; shift ;;
    --keep) keep=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "bench/compile/run.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
extra=("$@")

stridec=build/bin/stridec
[[ -x $stridec ]] || { echo "bench/compile/run.sh: build stridec first (./scripts/build.sh stridec)" >&2; exit 1; }
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[[ -n $keep ]] || trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
# Runs one compile under `timeout` and /usr/bin/time; sets `secs` (wall
# clock, or "" past the limit), `cpu` (user + system seconds) and `rss_mb`
# (maximum resident set size).
timed() {
  local start end status=0
  start=$(now)
  timeout "$limit" /usr/bin/time -v -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" || status=$?
  end=$(now)
  if [[ $status -eq 124 ]]; then secs=""; return 0; fi
  if [[ $status -ne 0 ]]; then
    echo "bench/compile/run.sh: failed ($status): $*" >&2
    cat "$work/err.txt" >&2
    exit 1
  fi
  secs=$(echo "$end - $start" | bc)
  cpu=$(awk -F': ' '/User time|System time/ { t += $2 } END { print t }' "$work/time.txt")
  rss_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time.txt")
}

kernels_of() {
  "$stridec" "${extra[@]}" --emit=mlir "$1" | grep -c 'stride.kernel "' || true
}

# One row of the table. The cold compile starts from an empty NVRTC cache
# (NVRTC runs, as with --no-cache, and fills the cache); the cached compile
# is the next one.
row() {
  local name=$1 graph=$2 ops=$3 cold cold_cpu cold_rss cached kernels
  local cache="$work/cache-$name"
  rm -rf "$cache"
  timed "$stridec" "${extra[@]}" --cache-dir "$cache" "$graph" -o "$work/out.stridemod"
  if [[ -z $secs ]]; then
    printf '| %s | %s | > %s s | - | - | - | - | - |\n' "$name" "$ops" "$limit"
    return
  fi
  cold=$(printf '%.2f s' "$secs") cold_cpu=$(printf '%.2f s' "$cpu") cold_rss="$rss_mb MB"
  local per_op
  per_op=$(printf '%.1f ms' "$(echo "$cpu * 1000 / $ops" | bc -l)")
  timed "$stridec" "${extra[@]}" --cache-dir "$cache" "$graph" -o "$work/out.stridemod"
  cached=$(printf '%.0f ms' "$(echo "$secs * 1000" | bc)")
  kernels=$(kernels_of "$graph")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$ops" "$cold" \
    "$cold_cpu" "$per_op" "$cached" "$cold_rss" "$kernels"
}

echo "stridec ${extra[*]} at $(git rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC, $(nproc) cores"
echo
echo "| graph | ops | cold (wall) | cold (CPU) | CPU per op | cached (wall) | peak memory | kernels |"
echo "|---|---|---|---|---|---|---|---|"
for kind in $kinds; do
  for n in $sizes; do
    graph="$work/$kind-$n.mlir"
    bench/compile/gen.sh "$kind" "$n" >"$graph"
    row "$kind-$n" "$graph" "$n"
  done
done
if [[ $bench -eq 1 ]]; then
  for graph in bench/*.mlir; do
    ops=$(grep -c '= stride\.' "$graph")
    row "$(basename "$graph" .mlir)" "$graph" "$ops"
  done
fi
