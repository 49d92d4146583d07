#!/usr/bin/env bash
# The collective steps on real GPUs, against the reference interpreter: a
# check for a 2- or 4-GPU machine, in two halves.
#
#   bench/distributed/collectives-check.sh prepare DIR   (here, after
#       scripts/build.sh: compiles the modules, computes the expected
#       outputs with the reference interpreter, copies stride-run-gpu)
#   DIR/check.sh                                          (on the GPU machine)
#
# Cases, each run by the launcher (stride-run-gpu --ranks 2, one process
# per GPU, NCCL_NVLS_ENABLE=0):
#   - every kind of collective (test/Runtime/Inputs/collective-steps.mlir)
#     on the same inputs on both ranks, against the group simulated by
#     stride-run --simulate-ranks 2 (rank r's results in expected/rank<r>);
#   - the small LLaMA-style decoder split for 2 ranks
#     (stridec --tensor-parallel=2 --rank=R, one module per rank): every
#     rank returns the unsplit graph's results (expected/llama);
#   - the data-parallel backward of test/dialects/stride/Transforms
#     (dp-shard.mlir, stridec --data-parallel=2): every rank returns the
#     full batch's gradients (expected/dp);
#   - a decode step with a KV cache split by heads for 2 ranks (the
#     llama_decode fixture of test/Import/Torch, as
#     decode-tensor-parallel.test runs it on the CPU): the prompt, then 3
#     decode steps, each rank's half of the caches carried from step to
#     step (--state-out, --state-in: state/after<k>/rank<r>); every step's
#     outputs against the unsplit graph's, run by the reference interpreter
#     with its whole caches carried the same way (expected/decode/step<k>).
# Prints each rank's comparison; exits non-zero on a mismatch or an error.
set -euo pipefail

if [[ ${1:-} != prepare || -z ${2:-} ]]; then
  echo "usage: $0 prepare DIR" >&2
  exit 1
fi
cd "$(dirname "$0")/../.."
out=$2
bin=build/bin
rm -rf "$out" && mkdir -p "$out/bin" "$out/expected" "$out/in"
cp "$bin/stride-run-gpu" "$out/bin/"

# Every kind of collective.
steps=test/Runtime/Inputs/collective-steps.mlir
"$bin/stridec" "$steps" -o "$out/steps.stridemod"
build/bin/stride-random-inputs "$out/steps.stridemod" "$out/in/steps" --seed 3
"$bin/stride-run" "$steps" --simulate-ranks 2 --input x="$out/in/steps/x.npy" \
  --input i="$out/in/steps/i.npy" --output-dir "$out/expected/steps" >/dev/null

# The split decoder: one module per rank, the unsplit graph's results.
llama=test/dialects/stride/Transforms/Inputs/llama-tp.mlir
for rank in 0 1; do
  "$bin/stridec" "$llama" --tensor-parallel=2 --rank=$rank -o "$out/llama.rank$rank.stridemod"
done
"$bin/stride-run" "$llama" --random-inputs --seed 5 --save-inputs "$out/in/llama" \
  --output-dir "$out/expected/llama" >/dev/null

# Data parallelism: each rank's half of the batch, the full batch's gradients.
dp=test/dialects/stride/Transforms/Inputs
for rank in 0 1; do
  sed -e "s/START/$((4 * rank))/g; s/END/$((4 * rank + 4))/g" \
      -e "s/OFFSET_X/$((12 * rank))/g; s/OFFSET_G/$((16 * rank))/g" \
      "$dp/dp-shard.mlir" > "$out/dp.rank$rank.mlir"
  "$bin/stridec" "$out/dp.rank$rank.mlir" --data-parallel=2 -o "$out/dp.rank$rank.stridemod"
done
"$bin/stride-run" "$dp/dp-full.mlir" --random-inputs --seed 1 --save-inputs "$out/in/dp" \
  --output-dir "$out/expected/dp" >/dev/null

# The split decode step with its cache: one module per rank of the prompt
# and of the step; the unsplit graphs' outputs, step by step.
fixture=test/Import/Torch/fixtures/llama_decode
python3 test/Import/Torch/Inputs/decode-steps.py "$fixture" "$out/in/decode" 4
for graph in prefill decode; do
  "$bin/stridec" "$fixture/$graph.pt2" --emit=graph -o "$out/$graph.mlir"
  for rank in 0 1; do
    "$bin/stridec" "$fixture/$graph.pt2" --tensor-parallel=2 --rank=$rank \
      -o "$out/$graph.rank$rank.stridemod"
  done
done
states=()
for step in 0 1 2 3; do
  graph=decode; [[ $step == 0 ]] && graph=prefill
  "$bin/stride-run" "$out/$graph.mlir" "${states[@]}" \
    --input input_ids="$out/in/decode/step$step/input_ids.npy" \
    --input cache_position="$out/in/decode/step$step/cache_position.npy" \
    --state-out "$out/whole-states/after$step" \
    --output-dir "$out/expected/decode/step$step" >/dev/null
  states=(--state-in "$out/whole-states/after$step")
done
rm -f "$out/prefill.mlir" "$out/decode.mlir"

cat > "$out/check.sh" <<'CHECK'
#!/usr/bin/env bash
# Runs the four cases on 2 GPUs (see bench/distributed/collectives-check.sh).
set -uo pipefail
cd "$(dirname "$0")"
export NCCL_NVLS_ENABLE=0
status=0
run() {
  echo "== $1"
  shift
  bin/stride-run-gpu "$@" --ranks 2 || status=1
}
run "every kind of collective" steps.stridemod --input x=in/steps/x.npy \
  --input i=in/steps/i.npy --expect expected/steps --rtol 1e-6
run "the split decoder (f32)" 'llama.rank%d.stridemod' $(for f in in/llama/*.npy; do
  n=$(basename "$f" .npy); echo "--input $n=$f"; done) --expect expected/llama --rtol 1e-4
run "data-parallel gradients" 'dp.rank%d.stridemod' --input x=in/dp/x.npy \
  --input g=in/dp/g.npy --expect expected/dp --rtol 1e-5
rm -rf state
for step in 0 1 2 3; do
  if [[ $step == 0 ]]; then graph=prefill; carried=(); else
    graph=decode; carried=(--state-in "state/after$((step - 1))"); fi
  run "the split decode step with its KV cache: step $step" "$graph.rank%d.stridemod" \
    --input input_ids=in/decode/step$step/input_ids.npy \
    --input cache_position=in/decode/step$step/cache_position.npy \
    "${carried[@]}" --state-out "state/after$step" \
    --expect expected/decode/step$step --rtol 1e-4
done
echo "exit status $status"
exit $status
CHECK
chmod +x "$out/check.sh"
echo "$out: copy it to the GPU machine and run $out/check.sh"
