#!/usr/bin/env bash
# Runs every case of a bundle made by scripts/gpu-prepare.sh on the GPU and
# compares each output with the reference interpreter's: integers exactly,
# floats with relative error <= the case's rtol (1e-5 for f32; 0 = exactly,
# as for the seed's f64 gradients) or absolute error <= its atol (1e-6 for
# f32: an output that is rounding alone, such as a sum of deviations from a
# mean, has no scale to be relative to; bench/NOTES.md section 28). Outputs are poisoned (0xFF bytes, NaN or
# -1) before each run, so an element no kernel writes fails the comparison.
# On the GPU, the bundle's bin/StrideCublasLtGpuTests (the cublaslt.matmul
# routine against a host reference) is one more case, "cublaslt-matmul", and
# bin/StrideCudnnGpuTests (the cudnn.sdpa_forward, cudnn.sdpa_backward and
# cudnn.convolution routines against a host reference; it prints PASS or
# FAIL per shape) is "cudnn-sdpa". cuDNN is STRIDE_CUDNN, else the loader's libcudnn.so.9, else
# the one Python's nvidia-cudnn-cu13 package installed.
# A case with a file `repeat` (N) runs N times and passes only when every
# run's outputs have the same bytes (deterministic mode). A case with a file
# `generate` (a decode fixture) runs bin/stride-generate over its prefill and
# decode modules against transformers' tokens, logits and final cache (on
# the GPU only).
# Prints a table of pass/fail, then one of the PyTorch fixtures (cases
# fixture_*: PyTorch's inputs, its outputs as the reference) with their ops
# (graph nodes), kernels, library calls and compile times (stridec's,
# measured by gpu-prepare.sh on the machine that made the bundle: this one
# has no compiler), as Markdown, and a last line "N passed, M failed";
# exits 0 only when everything passed.
#
# usage: ./gpu-check.sh [--memcheck] [--filter REGEX] [--device N] [BUNDLE]
#
#   BUNDLE      the bundle directory (default: the directory of this script)
#   --memcheck  run every case under compute-sanitizer --tool memcheck too
#               (a case fails on any memcheck error)
#   --filter R  only the cases whose name matches the regular expression R
#   --device N  the CUDA device (default 0)
#   --emulate   run the kernels on the CPU instead (bin/stride-emu and each
#               case's kernels-0.so, kernels-1.so, ...: one per translation
#               unit, made by gpu-prepare.sh --emulate): checks the bundle
#               and the emitter on a machine without a GPU
#
# Needs only the bundle, an NVIDIA driver and, for --memcheck,
# compute-sanitizer (part of the CUDA toolkit). No MLIR, no compiler.
set -uo pipefail

bundle=$(cd "$(dirname "$0")" && pwd)
memcheck=0
emulate=0
filter=.
device=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --memcheck) memcheck=1; shift ;;
    --emulate) emulate=1; shift ;;
    --filter) filter=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-check: unknown option $1" >&2; exit 1 ;;
    *) bundle=$(cd "$1" && pwd); shift ;;
  esac
done

if [[ ! -d $bundle/cases ]]; then
  echo "gpu-check: $bundle is not a bundle (no cases/); make one with scripts/gpu-prepare.sh" >&2
  exit 1
fi
runner=$bundle/bin/stride-run-gpu
if [[ $emulate == 1 ]]; then
  runner=$bundle/bin/stride-emu
fi
sanitizer=
if [[ $memcheck == 1 ]]; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [[ ! -x $sanitizer ]]; then
    echo "gpu-check: --memcheck needs compute-sanitizer (CUDA toolkit), not found" >&2
    exit 1
  fi
fi

[[ -f $bundle/MANIFEST ]] && sed 's/^/# /' "$bundle/MANIFEST"
if [[ $emulate == 0 ]]; then
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# GPU: /'
fi

# repeatRuns DIR LOG RUNNER_ARGS...: runs the case `repeat` more times (with
# --output-dir) and fails unless every run's outputs are the same bytes.
repeatRuns() {
  local dir=$1 out=$2
  shift 2
  local n first= i
  n=$(cat "$dir/repeat")
  for ((i = 1; i <= n; i++)); do
    "$runner" "$@" --output-dir "$out.run$i" >>"$out" 2>&1 || return 1
    if [[ -z $first ]]; then
      first=$out.run$i
    elif ! diff -r "$first" "$out.run$i" >/dev/null; then
      echo "ERROR: run $i's outputs differ from run 1's" >>"$out"
      return 1
    fi
  done
  echo "$n runs, the same bytes" >>"$out"
}

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
passed=0
failed=0
failures=()
fixtures=()
printf '%-40s %-8s %-12s %s\n' case result "max rel err" detail
printf '%-40s %-8s %-12s %s\n' ---- ------ ----------- ------
# reportCase NAME OK OUT PASS_DETAIL FAIL_DETAIL: counts a case that is not
# one module run (a decode fixture, a GoogleTest binary) and prints its row;
# OK is 1 when it passed.
reportCase() {
  local name=$1 ok=$2 out=$3
  if [[ $ok == 1 ]]; then
    passed=$((passed + 1))
    printf '%-40s %-8s %-12s %s\n' "$name" PASS - "$4"
  else
    failed=$((failed + 1))
    printf '%-40s %-8s %-12s %s\n' "$name" FAIL - "$5"
    failures+=("$out")
  fi
}

# generateCase DIR NAME: a decode fixture (a file `generate`): greedy
# decoding with bin/stride-generate, its tokens, every step's logits and
# the final KV cache against transformers'.
generateCase() {
  local dir=$1 name=$2 out=$log/$2.plain ok=0
  "$bundle/bin/stride-generate" "$dir/prefill.stridemod" "$dir/decode.stridemod" \
    --prompt "$dir/prompt.npy" --new-tokens "$(cat "$dir/generate")" \
    --expect-tokens "$dir/expected_tokens.npy" --expect-logits "$dir/expected_logits.npy" \
    --expect-states "$dir/expected_states" --device "$device" >"$out" 2>&1 && ok=1
  reportCase "$name" $ok "$out" "$(tail -1 "$out" | cut -c1-100)" \
    "$(grep -m1 -iE 'error|differ|mismatch' "$out" | cut -c1-120)"
}

for dir in "$bundle"/cases/*/; do
  name=$(basename "$dir")
  [[ $name =~ $filter ]] || continue
  if [[ -f $dir/generate ]]; then
    [[ $emulate == 0 ]] && generateCase "$dir" "$name"
    continue
  fi
  args=("$dir/module.stridemod" --poison --device "$device" --expect "$dir/expected" --rtol "$(cat "$dir/rtol")")
  [[ -f $dir/atol ]] && args+=(--atol "$(cat "$dir/atol")")
  for f in "$dir"/inputs/*.npy; do
    [[ -e $f ]] && args+=(--input "$(basename "$f" .npy)=$f")
  done
  # A case's own runner options (gpu-prepare.sh), on the GPU only.
  if [[ $emulate == 0 && -f $dir/runner-options ]]; then
    read -r -a extra <"$dir/runner-options"
    args+=("${extra[@]}")
  fi
  if [[ $emulate == 1 ]]; then
    # One library per executable (translation unit), in order.
    units=$(ls "$dir"/kernels-*.so | wc -l)
    for ((u = 0; u < units; u++)); do
      args+=(--kernels "$dir/kernels-$u.so")
    done
  fi
  runs=(plain)
  [[ $memcheck == 1 ]] && runs+=(memcheck)
  for run in "${runs[@]}"; do
    out=$log/$name.$run
    if [[ $run == memcheck ]]; then
      "$sanitizer" --tool memcheck --error-exitcode 97 --print-limit 20 "$runner" "${args[@]}" >"$out" 2>&1
    else
      "$runner" "${args[@]}" >"$out" 2>&1
    fi
    status=$?
    if [[ $status == 0 && $run == plain && -f $dir/repeat ]]; then
      repeatRuns "$dir" "$out" "${args[@]}" || status=$?
    fi
    worst=$(sed -n 's/.*(max relative error \([^)]*\)).*/\1/p' "$out" | sort -g | tail -1)
    label=$name
    [[ $run == memcheck ]] && label="$name (memcheck)"
    result=FAIL
    if [[ $status == 0 ]] && ! grep -q MISMATCH "$out"; then
      result=PASS
    fi
    if [[ $run == plain && -f $dir/fixture ]]; then
      read -r nodes kernels calls cold cached <"$dir/fixture"
      fixtures+=("| ${name#fixture_} | $nodes | $kernels | $calls | $cold | $cached | ${worst:--} | $result |")
    fi
    if [[ $result == PASS ]]; then
      passed=$((passed + 1))
      printf '%-40s %-8s %-12s %s\n' "$label" PASS "${worst:--}" ""
    else
      failed=$((failed + 1))
      detail=$(grep -m1 -E 'MISMATCH|error|ERROR|failed|Invalid' "$out" | cut -c1-160)
      [[ $status == 97 ]] && detail="memcheck: $(grep -m1 -E '=+ (Invalid|Error|.*error)' "$out" | cut -c1-140)"
      printf '%-40s %-8s %-12s %s\n' "$label" FAIL "${worst:--}" "${detail:-exit status $status}"
      failures+=("$out")
    fi
  done
done

# unitCase NAME BINARY: a GoogleTest binary of the bundle run as one case
# (on the GPU only): it passes when every test passed and none was skipped.
unitCase() {
  local name=$1 unit=$2 out ok=0
  [[ $emulate == 0 && -x $unit && $name =~ $filter ]] || return 0
  out=$log/$name.plain
  CUDA_VISIBLE_DEVICES=$device "$unit" >"$out" 2>&1 &&
    grep -q '^\[  PASSED  \]' "$out" && ! grep -q SKIPPED "$out" && ok=1
  reportCase "$name" $ok "$out" "$(grep -m1 '^\[  PASSED' "$out")" \
    "$(grep -m1 -E 'FAIL|SKIPPED|Failure' "$out" | cut -c1-120)"
}

# cuDNN for the attention routines: STRIDE_CUDNN if set, else the loader's
# libcudnn.so.9, else the one of Python's nvidia-cudnn-cu13 package (as
# PyTorch installs it), if any.
if [[ -z ${STRIDE_CUDNN:-} && $(ldconfig -p 2>/dev/null) != *'libcudnn.so.9 '* ]]; then
  wheel=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
  if [[ -n $wheel && -e $wheel/libcudnn.so.9 ]]; then
    export STRIDE_CUDNN=$wheel/libcudnn.so.9
    export LD_LIBRARY_PATH=$wheel${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "# cuDNN: $STRIDE_CUDNN"
  fi
fi

# The library routines' GPU tests: cublaslt.matmul, cudnn.sdpa_* and
# cudnn.convolution against host references.
unitCase cublaslt-matmul "$bundle/bin/StrideCublasLtGpuTests"
unitCase cudnn-sdpa "$bundle/bin/StrideCudnnGpuTests"

if ((${#fixtures[@]})); then
  echo
  echo "== PyTorch fixtures (compile times: stridec on the machine that made the bundle)"
  echo
  echo "| fixture | ops | kernels | library calls | cold compile ms | cached compile ms | max rel err | result |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  printf '%s\n' "${fixtures[@]}"
fi

if ((${#failures[@]})); then
  echo
  echo "== output of the failed runs"
  for f in "${failures[@]}"; do
    echo "-- $(basename "$f")"
    head -40 "$f"
  done
fi
echo
echo "$passed passed, $failed failed"
((failed == 0 && passed > 0))
