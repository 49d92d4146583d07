#!/usr/bin/env bash
# On the GPU machine: stride-generate against transformers' greedy
# generate(do_sample=False), with the binaries of a bundle made by
# bench/decode/prepare.sh (bin/stridec, bin/stride-generate,
# stride_export.py) and the repository's committed decode fixtures.
#
#   1. test/Import/Torch/fixtures/{llama,gpt2}_decode (2 layers, f32, 64 new
#      tokens): compiled here, then every token exactly, every step's logits
#      and the final KV cache within --rtol 1e-5.
#   2. A bf16 LLaMA exported here (2 layers, width 1024, 8 heads on 8
#      key/value heads of 128, seed 1, a prompt of 2040 tokens, 40 new
#      ones): its steps cross the default's 2048-key threshold, so the
#      decode step runs the staged attention for 8 steps and cuDNN's after
#      (the choice by the position, python-free-docs/attention.md). The
#      tokens as transformers' generate (run on the CPU in bf16); the logits
#      and cache within --rtol 0.1 of it: two bf16 computations, each about
#      0.05 from f32 (below). Then generate_f32_reference.py writes the f32
#      logits of the same weights and tokens and prints PyTorch's bf16
#      errors against them, and stride-generate prints Stride's (--rtol 1:
#      measured, not checked).
#
# The tokens of a bf16 run follow transformers' only while no step's top
# two logits are nearer than the two computations' difference: with seed 0
# and a prompt of 2016 tokens, step 32's top two are equal in transformers'
# bf16 logits and the two argmaxes part there (bench/NOTES.md section 89).
#
# Prints each check's verdict and ends with "N passed, M failed"; exits 0
# only when every check passed. About two minutes on an H100.
#
# usage: bench/decode/generate_check.sh BUNDLE [WORK]
set -uo pipefail
bundle=$(cd "${1:?usage: generate_check.sh BUNDLE [WORK]}" && pwd)
work=${2:-/tmp/stride-generate-check}
repo=$(cd "$(dirname "$0")/../.." && pwd)
export PYTHONPATH="$bundle/python${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$work"
passed=0 failed=0

# check NAME FIXTURE_DIR RTOL: compile both graphs, run stride-generate.
check() {
  local name=$1 src=$2 rtol=$3 dir=$work/$1 graph tokens
  mkdir -p "$dir"
  for graph in prefill decode; do
    if ! "$bundle/bin/stridec" --arch=sm_90 "$src/$graph.pt2" -o "$dir/$graph.stridemod"; then
      echo "$name: FAIL (stridec $graph.pt2)"
      failed=$((failed + 1))
      return
    fi
  done
  tokens=$(sed -n 's/^ *"new_tokens": \([0-9]*\),\{0,1\}$/\1/p' "$src/export.json")
  if "$bundle/bin/stride-generate" "$dir/prefill.stridemod" "$dir/decode.stridemod" \
    --prompt "$src/prompt.npy" --new-tokens "${tokens:?no new_tokens in $src/export.json}" \
    --expect-tokens "$src/expected_tokens.npy" --expect-logits "$src/expected_logits.npy" \
    --expect-states "$src/expected_states" --rtol "$rtol"; then
    echo "$name: PASS"
    passed=$((passed + 1))
  else
    echo "$name: FAIL"
    failed=$((failed + 1))
  fi
}

for fixture in llama_decode gpt2_decode; do
  check "$fixture" "$repo/test/Import/Torch/fixtures/$fixture" 1e-5
done

sizes=(layers=2 width=1024 heads=8 kv_heads=8 inner=2816 vocab=32000)
new_tokens=40
bf16=$work/llama_bf16_export
if python3 "$bundle/stride_export.py" decode llama -o "$bf16" --dtype bfloat16 \
  "${sizes[@]/#/--size=}" --seed 1 --prompt-len 2040 --cache-len 2112 --new-tokens $new_tokens; then
  check llama_bf16_2040 "$bf16" 0.1
  python3 "$repo/bench/decode/generate_f32_reference.py" "$bundle" "$bf16" 1 "${sizes[@]}"
  "$bundle/bin/stride-generate" "$work/llama_bf16_2040/prefill.stridemod" \
    "$work/llama_bf16_2040/decode.stridemod" --prompt "$bf16/prompt.npy" \
    --new-tokens $new_tokens --expect-logits "$bf16/f32_logits.npy" --rtol 1 |
    sed -n 's/^logits of step \([0-9]*\): match (max relative error \(.*\))$/\2/p' |
    sort -g | awk '{e[NR] = $1} END {printf "Stride against f32 over %d steps: largest %s (median %s)\n", NR, e[NR], e[int((NR + 1) / 2)]}'
else
  echo "llama_bf16_2040: FAIL (stride_export.py decode)"
  failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
((failed == 0))
