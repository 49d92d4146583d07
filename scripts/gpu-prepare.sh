#!/usr/bin/env bash
# Builds, on the development machine, the bundle that scripts/gpu-check.sh
# runs on a GPU machine (which has CUDA but no MLIR and no compiler):
#
#   bundle/
#     gpu-check.sh            the runner (a copy of scripts/gpu-check.sh)
#     bin/stride-run-gpu      stride-run's GPU mode: runtime + .npy only,
#                             libstdc++ linked statically (runs on Ubuntu 24.04)
#     bin/stride-generate     greedy decoding with a prefill and a decode
#                             module (examples/generate), linked alike
#     bin/StrideCublasLtGpuTests  the cublaslt.matmul routine through the
#                             real cuBLASLt against a host reference
#                             (test/Runtime/CublasLtGpuTest.cpp)
#     bin/StrideCudnnGpuTests the cudnn.sdpa_forward and cudnn.sdpa_backward
#                             routines through the real cuDNN against a
#                             host reference (test/Runtime/CudnnGpuTest.cpp)
#     cases/NAME/graph.mlir   the graph, for reference
#     cases/NAME/module.stridemod
#     cases/NAME/inputs/*.npy     fresh random inputs (a new seed every run;
#                                 index operands in range)
#     cases/NAME/expected/*.npy   the reference interpreter's outputs
#     cases/NAME/rtol             the tolerance (0: exact)
#     cases/NAME/repeat           (deterministic cases) how many runs must
#                                 give the same bytes
#     cases/NAME/runner-options   (some cases) more options of the GPU
#                                 runner, e.g. --tune-library-calls
#     cases/fixture_NAME/         a PyTorch fixture (test/Import/Torch/fixtures):
#       model.pt2 (or forward.pt2 / backward.pt2)  the archive
#       module.stridemod, inputs/, expected/       compiled here; PyTorch's
#                                 inputs and outputs, named as the module names them
#       fixture                   "NODES KERNELS LIBRARY_CALLS COLD_MS CACHED_MS":
#                                 the graph's nodes, the module's kernels and
#                                 library calls, and stridec's wall time here,
#                                 cold (--no-cache) and from the NVRTC cache
#     cases/generate_NAME/        a decode fixture (prefill.pt2, decode.pt2):
#       prefill.stridemod, decode.stridemod, prompt.npy, expected_tokens.npy,
#       expected_logits.npy, expected_states/  run by bin/stride-generate
#       generate                  the number of tokens to generate
#     MANIFEST                    how and when the bundle was made
#
# Cases: every PyTorch fixture's archive (with PyTorch's inputs and
# outputs as the reference: rtol 1e-4, as test/Import/Torch/run-fixtures.test;
# 1e-6 for the seed's forward; the seed's repaired backward exactly), every
# example graph, every end-to-end test graph (test/Emu/Inputs,
# test/e2e), N
# random graphs from the generator, M random one-matmul graphs (stride-gen
# --matmul: f32/f16/bf16/f64, odd sizes, transposed, sliced,
# batch-broadcast and copied operands, biases and epilogues), and the seed's forward and backward
# graphs in f64 at the five seed shapes (the backward gradient is compared
# exactly), and the index_add patterns compiled with --deterministic, each
# run 20 times (every run's bytes the same).
#
# usage: scripts/gpu-prepare.sh [--out DIR] [--random N] [--seed S]
#                               [--matmul M] [--wide W] [--arch sm_90] [--emulate]
#                               [--unit-ops N]
#
#   --out DIR     where the bundle goes (default build/gpu-bundle); it must
#                 stay under 64 MiB, which the script checks
#   --random N    random graphs (default 200)
#   --matmul M    random one-matmul graphs (default 200)
#   --wide W      random wide graphs (default 0; stride-gen --wide: one long
#                 dim of 8 to 70,001 elements, f32 or bf16, for the backend's
#                 size-dependent kernel forms; up to a few MiB of inputs each,
#                 so a few dozen fit the bundle)
#   --seed S      base seed of graphs and inputs (default: from the clock)
#   --arch A      the GPU's arch (default sm_90: H100 and H200)
#   --unit-ops N  compile every case with stridec --unit-ops N (e.g. 8: most
#                 modules then have several executables, one per NVRTC
#                 translation unit), to check the runtime on them
#   --emulate     also build each case for the CPU emulator (test/Emu) and
#                 run it here, through gpu-check.sh --emulate, before
#                 shipping: catches emitter bugs without spending GPU time
#
# The reference is the CPU interpreter, which also makes the inputs (index
# operands in range), run as
#   $STRIDE_REFERENCE GRAPH.mlir --random-inputs --seed N
#       --save-inputs DIR/inputs --output-dir DIR/expected
# (default: build/bin/stride-run, whose mode for graph files is the
# reference), writing <name>.npy for each input and output, as the module
# names them (stridec --inspect: `stride.name`, else arg<N> / result<N>).
# Random graphs come from
#   $STRIDE_GENERATOR --seed S -o FILE.mlir
# (default: build/bin/stride-gen, if built).
set -euo pipefail
cd "$(dirname "$0")/.."

out=build/gpu-bundle
random=200
matmul=200
wide=0
seed=$(date +%s)
arch=sm_90
emulate=0
unit_ops=
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --random) random=$2; shift 2 ;;
    --matmul) matmul=$2; shift 2 ;;
    --wide) wide=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --emulate) emulate=1; shift ;;
    --unit-ops) unit_ops=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-prepare: unknown argument $1" >&2; exit 1 ;;
  esac
done

bin=build/bin
# The options of every compile (and of the emulator's compile of the same
# module, which must make the same translation units).
common=(--arch="$arch")
[[ -n $unit_ops ]] && common+=(--unit-ops "$unit_ops")
emu_common=()
for option in "${common[@]}"; do emu_common+=(-c "$option"); done
reference=${STRIDE_REFERENCE:-$bin/stride-run}
generator=${STRIDE_GENERATOR:-$bin/stride-gen}

STRIDE_JOBS=${STRIDE_JOBS:-1} ./scripts/build.sh stridec stride-run stride-run-gpu \
  stride-generate stride-emu StrideCublasLtGpuTests StrideCudnnGpuTests >/dev/null

rm -rf "$out"
mkdir -p "$out/bin" "$out/cases" "$out/graphs"
out=$(cd "$out" && pwd)
cp "$bin/stride-run-gpu" "$bin/stride-generate" "$out/bin/"
cp build/unittests/StrideCublasLtGpuTests build/unittests/StrideCudnnGpuTests "$out/bin/"
cp scripts/gpu-check.sh "$out/"
if [[ $emulate == 1 ]]; then
  cp "$bin/stride-emu" "$out/bin/"
fi

# The reference must run graph files: try it on a graph without inputs.
if ! "$reference" test/Tools/Inputs/no-inputs.mlir --random-inputs \
     --save-inputs "$out/probe/in" --output-dir "$out/probe" >/dev/null 2>&1 ||
   [[ ! -e $out/probe/result0.npy ]]; then
  echo "gpu-prepare: '$reference test/Tools/Inputs/no-inputs.mlir --random-inputs" \
       "--save-inputs DIR --output-dir DIR' did not write DIR/result0.npy: the" \
       "reference (stride-run running a graph file on the CPU interpreter) is" \
       "missing; build it or set STRIDE_REFERENCE" >&2
  exit 1
fi
rm -rf "$out/probe"

# The tolerance of a module's outputs: exact for integers, 1e-5 for f32,
# 1e-12 for f64, 1e-2 for f16/bf16 (the loosest output decides), 2e-2 for
# f16/bf16 with a bias folded into a matrix product: cuBLASLt's bias
# epilogue sometimes rounds the product before adding the bias, depending
# on the algorithm it picks (python-free-docs/matmul.md, "Accuracy"), one rounding the
# reference (round(product + bias)) cannot predict.
tolerance() {
  local inspect kinds
  inspect=$("$bin/stridec" --inspect "$1")
  kinds=$(sed -n "s/^  output [0-9]* '[^']*': \([a-z0-9]*\) .*/\1/p" <<<"$inspect" | sort -u)
  if grep -qE '^(f16|bf16)$' <<<"$kinds" && grep -q 'epilogue = "bias' <<<"$inspect"; then echo 2e-2
  elif grep -qE '^(f16|bf16)$' <<<"$kinds"; then echo 1e-2
  elif grep -q '^f32$' <<<"$kinds"; then echo 1e-5
  elif grep -q '^f64$' <<<"$kinds"; then echo 1e-12
  else echo 0
  fi
}

count=0
failed=()
# add_case NAME GRAPH [RTOL [STRIDEC_OPTION...]]
add_case() {
  local name=$1 graph=$2 rtol=${3:-}
  shift $(($# < 3 ? $# : 3))
  local dir=$out/cases/$name
  mkdir -p "$dir"
  cp "$graph" "$dir/graph.mlir"
  if ! "$bin/stridec" "${common[@]}" "$@" "$graph" -o "$dir/module.stridemod" 2>"$dir/stridec.log"; then
    failed+=("$name (stridec: $(head -1 "$dir/stridec.log"))")
    rm -rf "$dir"
    return
  fi
  count=$((count + 1))
  if ! "$reference" "$graph" --random-inputs --seed $((seed + count)) \
       --save-inputs "$dir/inputs" --output-dir "$dir/expected" >"$dir/reference.log" 2>&1; then
    failed+=("$name (reference: $(tail -1 "$dir/reference.log"))")
    rm -rf "$dir"
    count=$((count - 1))
    return
  fi
  echo "${rtol:-$(tolerance "$dir/module.stridemod")}" >"$dir/rtol"
  # f32: elements that are rounding alone pass within 1e-6 (gpu-check.sh).
  [[ $(cat "$dir/rtol") == 1e-5 ]] && echo 1e-6 >"$dir/atol"
  if [[ $emulate == 1 ]]; then
    local options=("${emu_common[@]}")
    for option in "$@"; do options+=(-c "$option"); done
    EMU_WORK=$dir/emu EMU_BUILD_ONLY=1 STRIDE_BIN=$bin test/Emu/emulate.sh "${options[@]}" "$graph"
    mv "$dir"/emu/kernels-*.so "$dir/"
    rm -rf "$dir/emu"
  fi
  rm -f "$dir/stridec.log" "$dir/reference.log"
}

# Milliseconds since the epoch.
now_ms() { date +%s%3N; }

# add_fixture NAME ARCHIVE PREFIX RTOL [STRIDEC OPTION...]: a fixture's
# archive compiled with the same options cold (--no-cache: NVRTC compiles
# every kernel), then into a fresh NVRTC cache and again from it, the
# first and the last timed; its inputs
# (PREFIXinputs_N.npy) and PyTorch's outputs (PREFIXexpected/, "model_"
# for an export fixture) named as the module names them.
add_fixture() {
  local name=$1 archive=$2 prefix=$3 rtol=$4
  shift 4
  local src dir cache t0 t1 t2 t3 nodes kernels calls
  src=$(dirname "$archive")
  dir=$out/cases/fixture_$name
  mkdir -p "$dir/inputs" "$dir/expected"
  cp "$archive" "$dir/"
  cache=$(mktemp -d)
  t0=$(now_ms)
  if ! "$bin/stridec" "${common[@]}" --no-cache "$@" "$archive" -o "$dir/module.stridemod" 2>"$dir/stridec.log"; then
    failed+=("fixture_$name (stridec: $(head -1 "$dir/stridec.log"))")
    rm -rf "$dir" "$cache"
    return
  fi
  t1=$(now_ms)
  "$bin/stridec" "${common[@]}" --cache-dir "$cache" "$@" "$archive" -o "$cache/primed.stridemod" 2>/dev/null
  t2=$(now_ms)
  "$bin/stridec" "${common[@]}" --cache-dir "$cache" "$@" "$archive" -o "$cache/cached.stridemod" 2>/dev/null
  t3=$(now_ms)
  rm -rf "$cache"
  count=$((count + 1))
  "$bin/stridec" --inspect "$dir/module.stridemod" >"$dir/inspect.txt"
  while read -r i input; do
    cp "$src/${prefix}inputs_$i.npy" "$dir/inputs/$input.npy"
  done < <(sed -n "s/^  input \([0-9]*\) '\([^']*\)'.*/\1 \2/p" "$dir/inspect.txt")
  cp "$src/${prefix:-model_}expected/"*.npy "$dir/expected/"
  echo "$rtol" >"$dir/rtol"
  nodes=$(sed -n "s/^# $(basename "$archive"): \([0-9]*\) nodes$/\1/p" "$src/ops.txt")
  kernels=$(sed -n 's/^  executable [0-9]*: .*, \([0-9]*\) kernels\{0,1\}$/\1/p' "$dir/inspect.txt" | awk '{s += $1} END {print s + 0}')
  calls=$(grep -c ': library call ' "$dir/inspect.txt" || true)
  echo "${nodes:-?} $kernels $calls $((t1 - t0)) $((t3 - t2))" >"$dir/fixture"
  if [[ $emulate == 1 ]]; then
    local options=("${emu_common[@]}")
    for option in "$@"; do options+=(-c "$option"); done
    EMU_WORK=$dir/emu EMU_BUILD_ONLY=1 STRIDE_BIN=$bin test/Emu/emulate.sh "${options[@]}" "$archive"
    mv "$dir"/emu/kernels-*.so "$dir/"
    rm -rf "$dir/emu"
  fi
  rm -f "$dir/stridec.log" "$dir/inspect.txt"
}

# add_decode_fixture NAME DIR: a decode fixture (stride_export.py decode:
# prefill.pt2 and decode.pt2 sharing a KV cache) as a case that
# gpu-check.sh runs with bin/stride-generate: both modules, the prompt,
# transformers' greedy tokens, logits and final cache, and the file
# `generate` holding the number of new tokens (export.json's new_tokens).
add_decode_fixture() {
  local name=$1 src=$2 graph tokens
  local dir=$out/cases/generate_$name
  mkdir -p "$dir"
  for graph in prefill decode; do
    if ! "$bin/stridec" "${common[@]}" "$src/$graph.pt2" -o "$dir/$graph.stridemod" 2>"$dir/stridec.log"; then
      failed+=("generate_$name (stridec $graph.pt2: $(head -1 "$dir/stridec.log"))")
      rm -rf "$dir"
      return
    fi
  done
  cp -r "$src/prompt.npy" "$src/expected_tokens.npy" "$src/expected_logits.npy" \
    "$src/expected_states" "$dir/"
  tokens=$(sed -n 's/^ *"new_tokens": \([0-9]*\),\{0,1\}$/\1/p' "$src/export.json")
  echo "${tokens:?no new_tokens in $src/export.json}" >"$dir/generate"
  rm -f "$dir/stridec.log"
  count=$((count + 1))
}

# Every fixture: its archive, both graphs of a training fixture, or the
# two modules of a decode fixture.
fixture_cases() {
  local dir name graph rtol options
  for dir in test/Import/Torch/fixtures/*/; do
    name=$(basename "$dir")
    if [[ -f $dir/prefill.pt2 ]]; then
      # No emulation: stride-generate needs the GPU (test/Import/Torch/
      # decode.test emulates the same modules step by step).
      [[ $emulate == 1 ]] || add_decode_fixture "$name" "$dir"
      continue
    fi
    if [[ -f $dir/model.pt2 ]]; then
      rtol=1e-4
      [[ $name == seed_fwd_* ]] && rtol=1e-6
      add_fixture "$name" "$dir/model.pt2" "" "$rtol"
      continue
    fi
    for graph in forward backward; do
      rtol=1e-4 options=()
      if [[ $name == seed_train_* && $graph == backward ]]; then
        rtol=0 options=(--repair-layouts) # the seed's bug: repaired, exact
      fi
      add_fixture "${name}_$graph" "$dir/$graph.pt2" "${graph}_" "$rtol" "${options[@]}"
    done
  done
}

# The seed graphs in f64: backward (the gradient of x, compared exactly)
# and forward, for x of shape BxNxC with rows [S, E) of dim 1 scattered.
seed_graphs() {
  local b=$1 n=$2 c=$3 s=$4 e=$5 k=$(($5 - $4))
  local tag="${b}x${n}x${c}_${s}_${e}"
  cat >"$out/graphs/seed_backward_$tag.mlir" <<EOF
// The gradient of x in sum(slice_scatter(x, src, dim=1, start=$s, end=$e), dim=1)
// for x of shape ${b}x${n}x${c}: g broadcast over dim 1, rows [$s, $e) zero.
func.func @seed_backward(%g: !stride.tensor<${b}x${c}xf64>) -> !stride.tensor<${b}x${n}x${c}xf64> {
  %u = stride.unsqueeze %g dim 1 : !stride.tensor<${b}x${c}xf64>
      -> !stride.tensor<${b}x1x${c}xf64, strides = [${c}, ${c}, 1], offset = 0>
  %x = stride.expand %u : !stride.tensor<${b}x1x${c}xf64, strides = [${c}, ${c}, 1], offset = 0>
      -> !stride.tensor<${b}x${n}x${c}xf64, strides = [${c}, 0, 1], offset = 0>
  %z = stride.full 0.0 : !stride.tensor<${b}x${k}x${c}xf64>
  %r = stride.slice_scatter %x, %z dim 1 start $s end $e step 1
      : !stride.tensor<${b}x${n}x${c}xf64, strides = [${c}, 0, 1], offset = 0>,
        !stride.tensor<${b}x${k}x${c}xf64> -> !stride.tensor<${b}x${n}x${c}xf64>
  return %r : !stride.tensor<${b}x${n}x${c}xf64>
}
EOF
  cat >"$out/graphs/seed_forward_$tag.mlir" <<EOF
// sum(slice_scatter(x, src, dim=1, start=$s, end=$e), dim=1), x of shape ${b}x${n}x${c}.
func.func @seed_forward(%x: !stride.tensor<${b}x${n}x${c}xf64>, %src: !stride.tensor<${b}x${k}x${c}xf64>)
    -> !stride.tensor<${b}x${c}xf64> {
  %s = stride.slice_scatter %x, %src dim 1 start $s end $e step 1
      : !stride.tensor<${b}x${n}x${c}xf64>, !stride.tensor<${b}x${k}x${c}xf64>
      -> !stride.tensor<${b}x${n}x${c}xf64>
  %r = stride.sum %s dims [1] : !stride.tensor<${b}x${n}x${c}xf64> -> !stride.tensor<${b}x${c}xf64>
  return %r : !stride.tensor<${b}x${c}xf64>
}
EOF
  add_case "seed_backward_$tag" "$out/graphs/seed_backward_$tag.mlir" 0
  add_case "seed_forward_$tag" "$out/graphs/seed_forward_$tag.mlir" 1e-12
}

echo "gpu-prepare: seed $seed, arch $arch, bundle $out"
fixture_cases
seed_graphs 4 13 33 0 6
seed_graphs 2 8 16 0 4
seed_graphs 1 6 100 0 3
seed_graphs 3 20 7 5 12
seed_graphs 7 63 33 0 31

for graph in examples/*.mlir; do
  name=$(basename "$graph" .mlir)
  [[ $name == *_fx ]] && continue # rejected by design (test/dialects/stride/Transforms/seed-fx.test)
  add_case "example_$name" "$graph"
done

# The graphs of the emulated end-to-end tests (test/Emu/Inputs): hand-fused
# kernels of every form and element type. gather-check.mlir is left out: its
# point is a run-time error (an out-of-range index, a division by zero); so is
# index-add-order.mlir, whose f32 sum differs from the reference's f64 one by
# design (its test checks the exact bytes of --deterministic).
for graph in test/Emu/Inputs/*.mlir; do
  name=$(basename "$graph" .mlir)
  [[ $name == gather-check || $name == index-add-order ]] && continue
  [[ $name == rows-wide-many ]] && continue # e2e_clusters_many_rows, below
  add_case "e2e_emu_$name" "$graph"
done

# Deterministic mode (issue 16): the index_add patterns, each run 20 times
# by gpu-check.sh, every run's output bytes the same.
for graph in test/Emu/Inputs/index-add-patterns.mlir test/Emu/Inputs/index-add-patterns-bf16.mlir; do
  name=deterministic_$(basename "$graph" .mlir)
  add_case "$name" "$graph" "" --deterministic
  [[ -d $out/cases/$name ]] && echo 20 >"$out/cases/$name/repeat"
done

# Thread-block clusters that each reduce several rows in turn (issue 17):
# grids sized for one multiprocessor, on the GPU's own barriers and timing
# (the emulator runs this graph too and checks that no slot changes while
# the cluster reads it: test/Emu/wide-rows.test).
add_case e2e_clusters_many_rows test/Emu/Inputs/rows-wide-many.mlir "" --multiprocessors=1
# Rows held in shared memory, two blocks walking three rows each kernel
# (test/Emu/shared-rows.test).
add_case e2e_shared_rows_one_mp test/Emu/Inputs/rows-shared.mlir "" --multiprocessors=1

if [[ -d test/e2e ]]; then
  while IFS= read -r graph; do
    name=e2e_$(echo "${graph#test/e2e/}" | sed 's|/|_|g; s|\.mlir$||')
    add_case "$name" "$graph"
  done < <(find test/e2e -name '*.mlir' -not -path '*/Inputs/*' | sort)
fi

# add_generated_cases PREFIX COUNT [GENERATOR FLAGS...]
add_generated_cases() {
  local prefix=$1 n=$2
  shift 2
  ((n > 0)) || return 0
  if ! [[ -x $generator ]] && ! command -v "$generator" >/dev/null 2>&1; then
    echo "gpu-prepare: no random graph generator ($generator); set STRIDE_GENERATOR" >&2
    exit 1
  fi
  for ((i = 0; i < n; i++)); do
    g=$out/graphs/${prefix}_$i.mlir
    "$generator" "$@" --seed $((seed * 1000 + i)) -o "$g"
    add_case "${prefix}_$i" "$g"
  done
}
add_generated_cases random "$random"
add_generated_cases matmul "$matmul" --matmul
add_generated_cases wide "$wide" --wide
# Every other one-matmul case runs with its library calls tuned
# (stride-run-gpu --tune-library-calls): the algorithm chosen by timing
# must compute the same product.
for ((i = 1; i < matmul; i += 2)); do
  [[ -d $out/cases/matmul_$i ]] && echo --tune-library-calls >"$out/cases/matmul_$i/runner-options"
done

{
  echo "made by scripts/gpu-prepare.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
  echo "seed $seed, arch $arch, $count cases ($random random graphs, $matmul matmul graphs, $wide wide graphs asked for)"
  echo "stridec options: ${common[*]}"
  echo "reference: $reference; generator: $generator"
} >"$out/MANIFEST"

size=$(du -sm "$out" | cut -f1)
echo "gpu-prepare: $count cases, ${size} MiB in $out"
if ((${#failed[@]})); then
  echo "gpu-prepare: ${#failed[@]} graphs were left out:" >&2
  printf '  %s\n' "${failed[@]}" >&2
fi
if ((size >= 64)); then
  echo "gpu-prepare: the bundle is ${size} MiB, over the 64 MiB limit; use fewer --random graphs" >&2
  exit 1
fi
if [[ $emulate == 1 ]]; then
  "$out/gpu-check.sh" --emulate "$out"
fi
((${#failed[@]} == 0))
