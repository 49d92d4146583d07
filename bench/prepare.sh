#!/usr/bin/env bash
# Builds, here, the bundle that bench/compare.sh runs on the GPU machine:
# the runtime-only stride-run-gpu, every bench/*.mlir compiled by stridec,
# and the PyTorch side (torch_bench.py). Each plain GEMM of the benchmark
# (gemm_KxN_DTYPE, torch.matmul of [8192, K] and [K, N]) that no graph
# compiled to is written by stride-gemm-module (bench/gemm-module): one
# cuBLASLt call, so that its time through the runtime is measured too.
#
# usage: bench/prepare.sh [--out DIR] [--arch sm_90]
set -euo pipefail
cd "$(dirname "$0")/.."

out=build/bench-bundle
arch=sm_90
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    *) echo "bench/prepare.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done

./scripts/build.sh stridec stride-run-gpu stride-gemm-module >/dev/null
rm -rf "$out"
mkdir -p "$out/bin" "$out/modules"
cp build/bin/stride-run-gpu "$out/bin/"
cp bench/compare.sh bench/torch_bench.py "$out/"
# Compile time end to end (parse to module file), for python-free-docs/compile-time.md:
# cold (NVRTC runs) and warm (NVRTC's output comes from the cache), each the
# best of three, since other work on the machine only ever adds time.
cache=$(mktemp -d)
seconds() { local start end; start=$(date +%s.%N); "$@"; end=$(date +%s.%N); echo "$end - $start" | bc; }
best_of_3() { for _ in 1 2 3; do seconds "$@"; done | sort -g | sed -n 1p; }
for graph in bench/*.mlir; do
  name=$(basename "$graph" .mlir)
  compile=(build/bin/stridec --arch="$arch" "$graph" -o "$out/modules/$name.stridemod")
  cold=$(best_of_3 "${compile[@]}" --no-cache)
  "${compile[@]}" --cache-dir "$cache"
  warm=$(best_of_3 "${compile[@]}" --cache-dir "$cache")
  printf '%s: compiled in %.3f s (cold), %.3f s (warm NVRTC cache)\n' "$name" "$cold" "$warm"
done | tee "$out/compile-times.txt"
rm -rf "$cache"
for dtype in f32 bf16; do
  for kn in "768 2304" "768 768" "768 3072" "3072 768"; do
    read -r k n <<<"$kn"
    module=$out/modules/gemm_${k}x${n}_$dtype.stridemod
    [[ -e $module ]] || build/bin/stride-gemm-module --arch "$arch" --dtype "$dtype" 8192 "$k" "$n" "$module"
  done
done
echo "made from commit $(git rev-parse --short HEAD) on $(date -u +%F)" >"$out/MANIFEST"
du -sh "$out"
