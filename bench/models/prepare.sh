#!/usr/bin/env bash
# Builds, here, the bundle that bench/models/run.sh runs on the GPU machine:
#
#   bundle/
#     run.sh                 the entry point (below)
#     bench_models.py        the benchmark (PyTorch side and the table)
#     lm_head_layouts.py     probes (bench/NOTES.md section 24): GPT-2's
#     profile_compare.py     LM head's layouts; Stride's steps beside
#                            torch.compile's kernels
#     stride_export.py       Stride's export helper (tools/stride-export)
#     python/stride/         the package whose export logic it runs
#     bin/stridec            the compiler, MLIR and LLVM linked statically
#     bin/stride-run-gpu     the runtime's command-line runner
#     lib/                   the shared libraries stridec needs beyond glibc
#     MANIFEST               the commit and date it was made from
#
# Both binaries come from scripts/build-portable.sh, which makes them start
# on the GPU machine (Ubuntu 24.04, CUDA, no MLIR or LLVM): the models are
# exported, compiled and run there, since their weights (hundreds of MB)
# never leave it.
#
# usage: bench/models/prepare.sh [--out DIR] [--add FILE]...
#        (default build/models-bundle). Each --add FILE is copied into the
#        bundle too, a run.sh in place of this bundle's, a stride-* tool
#        into bin/: how bench/decode, bench/distributed and bench/dynamic
#        make their bundles from this one.
#
# The folder is written beside its archive, DIR.tar.xz, which is what
# travels: the device tool sends the tracked tree with what `carry` names,
# 64 MiB in all, and the tree alone (the test fixtures' archives) leaves
# too little room for the folder itself. On the GPU machine:
#   tar xJf build/models-bundle.tar.xz -C build && build/models-bundle/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

out=build/models-bundle
added=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --add) added+=("$2"); shift 2 ;;
    *) echo "bench/models/prepare.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done

./scripts/build-portable.sh >/dev/null
rm -rf "$out"
mkdir -p "$out"
cp -r build/portable/bin build/portable/lib "$out/"
cp bench/models/run.sh bench/models/*.py tools/stride-export/stride_export.py "$out/"
# The export logic stride_export.py imports (the stride package).
mkdir -p "$out/python" && cp -r python/stride "$out/python/"
for file in ${added[@]+"${added[@]}"}; do
  case $(basename "$file") in
    stride-*) cp "$file" "$out/bin/" ;;
    *) cp "$file" "$out/" ;;
  esac
done
echo "made from commit $(git rev-parse --short HEAD) on $(date -u +%F)" >"$out/MANIFEST"
tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -T0 -6 >"$out.tar.xz"
# What the device tool sends: the tracked tree plus the carried archive.
tree=$(git ls-files -z | xargs -0 stat -c %s | awk '{s += $1} END {print int(s / 1048576) + 1}')
archive=$(( ($(stat -c %s "$out.tar.xz") + 1048575) / 1048576 ))
if ((tree + archive > 64)); then
  echo "bench/models/prepare.sh: $out.tar.xz ($archive MiB) and the tracked tree ($tree MiB) are over the 64 MiB the device tool carries" >&2
  exit 1
fi
echo "$out: $(du -sm "$out" | cut -f1) MiB; carry $out.tar.xz ($archive MiB, the tree $tree MiB)"
