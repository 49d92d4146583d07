#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-22, ASan + UBSan) in build-hardened/ and
# runs each, seeded from the examples, the test inputs and the committed
# corpus (test/Fuzz/corpus/FUZZER/). Fails on any crash, leak or timeout; the
# input that caused it is kept in fuzz-artifacts/.
#
#   ./scripts/fuzz.sh [SECONDS] [FUZZER...]        random fuzzing, SECONDS
#                                                  each (default 60)
#   ./scripts/fuzz.sh --replay [RUNS] [FUZZER...]  deterministic (CI): the
#                                                  seeds, then RUNS mutations
#                                                  (default 20000) from a
#                                                  fixed random seed
#
# A finding becomes a fixed bug plus a file in test/Fuzz/corpus/FUZZER/, so
# every later replay runs it again.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --replay ]]; then
  shift
  RUNS=${1:-20000}
  shift || true
  LIMIT=(-seed=1 -runs="$RUNS")
  BUDGET="$RUNS runs from seed 1"
else
  SECONDS_EACH=${1:-60}
  shift || true
  LIMIT=(-max_total_time="$SECONDS_EACH")
  BUDGET="${SECONDS_EACH}s"
fi
FUZZERS=("$@")
((${#FUZZERS[@]})) || FUZZERS=(stride-graph-fuzzer stride-npy-fuzzer stride-module-fuzzer stride-archive-fuzzer)

./scripts/setup-deps.sh || exit 1
export STRIDE_BUILD_DIR=build-hardened
source ./scripts/hardened-env.sh
# stridec compiles the module fuzzer's seeds.
extra=()
[[ " ${FUZZERS[*]} " == *" stride-module-fuzzer "* ]] && extra=(stridec)
./scripts/build.sh "${FUZZERS[@]}" "${extra[@]}" || exit 1

# Seed corpora: every graph in the repository for the graph fuzzer, the .npy
# files the tests use for the npy fuzzer (plus a few written here).
seed_dir() {
  local name=$1 dir
  dir=$(mktemp -d)
  case $name in
    stride-graph-fuzzer) find examples test -name '*.mlir' -exec cp {} "$dir" \; ;;
    stride-npy-fuzzer) find test -name '*.npy' -exec cp {} "$dir" \; 2>/dev/null
      printf '\x93NUMPY\x01\x00v\x00{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }%*s\n\x00\x00\x80\x3f\x00\x00\x00\x40' 52 '' > "$dir/seed.npy" ;;
    stride-module-fuzzer) # modules compiled from the examples, CUBIN and PTX
      for f in examples/*.mlir; do
        "$STRIDE_BUILD_DIR/bin/stridec" "$f" -o "$dir/$(basename "$f" .mlir).stridemod" 2>/dev/null
        "$STRIDE_BUILD_DIR/bin/stridec" "$f" --emit=ptx -o "$dir/$(basename "$f" .mlir).ptx" 2>/dev/null
      done
      rm -f "$dir"/*.ptx ;;
    stride-archive-fuzzer) # the .pt2 fixtures and bad archives, and the
      # fixtures' model.json (the fuzzer wraps non-zip bytes into an archive)
      find test/Import/Torch -name '*.pt2' -size -64k | while read -r f; do
        name=$(echo "$f" | tr / _)
        cp "$f" "$dir/$name"
        unzip -p "$f" '*/models/model.json' > "$dir/$name.json" 2>/dev/null || rm -f "$dir/$name.json"
      done ;;
  esac
  [[ -d test/Fuzz/corpus/$name ]] && cp test/Fuzz/corpus/"$name"/* "$dir"/ 2>/dev/null
  echo "$dir"
}

mkdir -p fuzz-artifacts
status=0
summary=()
for fuzzer in "${FUZZERS[@]}"; do
  corpus=$(seed_dir "$fuzzer")
  log=fuzz-artifacts/$fuzzer.log
  echo "== $fuzzer: $BUDGET, seeds: $(ls "$corpus" | wc -l)"
  # The seed corpus is read from a copy, so the run never writes into it.
  ASAN_OPTIONS=abort_on_error=1:allow_user_poisoning=0 "$STRIDE_BUILD_DIR/bin/$fuzzer" "$corpus" "${LIMIT[@]}" \
    -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="fuzz-artifacts/$fuzzer-" >"$log" 2>&1
  rc=$?
  stats=$(grep -E "^#[0-9]+.*DONE" "$log" | tail -1)
  execs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}')
  if ((rc != 0)); then
    status=1
    summary+=("$fuzzer: FAILED (exit $rc); input kept: $(ls fuzz-artifacts/$fuzzer-* 2>/dev/null | tr '\n' ' ')")
    tail -40 "$log"
  else
    summary+=("$fuzzer: ok, ${execs:-?} runs ($BUDGET; ${stats:-no stats})")
  fi
  rm -rf "$corpus"
done
printf '%s\n' "${summary[@]}"
exit $status
