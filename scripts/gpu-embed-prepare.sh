#!/usr/bin/env bash
# Builds, on the development machine, a bundle that checks the embedding API
# and the runtime's GPU unit tests on a GPU machine without MLIR or LLVM:
# libstride.so with Debian's libLLVM (xz-compressed) and the few libraries
# it needs that an Ubuntu 24.04 GPU machine may lack, the module, NVRTC,
# runtime and embedding unit tests (their GPU tests run there, skipped here),
# the C API test and examples/embed built against an installed tree. On the
# GPU machine: BUNDLE/run.sh.
#
# usage: scripts/gpu-embed-prepare.sh [--out DIR]   (default build/gpu-embed)
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/gpu-embed
[[ ${1:-} == --out ]] && out=$2

./scripts/build.sh StrideModuleTests StrideNVRTCTests StrideRuntimeTests StrideEmbedTests stride-capi-test StrideEmbed >/dev/null
# examples/embed, built against an installed tree as an embedder builds it.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install build --prefix "$work/prefix" >/dev/null
cmake -S examples/embed -B "$work/embed" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/embed" >/dev/null

rm -rf "$out"
mkdir -p "$out/lib" "$out/bin"
cp -a build/lib/libstride.so* "$out/lib/"
llvm=$(readlink -f /usr/lib/llvm-22/lib/libLLVM.so.22.1)
xz -T0 -6 -c "$llvm" >"$out/lib/libLLVM.so.22.1.xz"
xz -T0 -6 -c /lib/x86_64-linux-gnu/libz3.so.4 >"$out/lib/libz3.so.4.xz"
for lib in libfmt.so.9 libedit.so.2 libbsd.so.0 libmd.so.0; do
  cp -L "/lib/x86_64-linux-gnu/$lib" "$out/lib/"
done
cp build/unittests/StrideModuleTests build/unittests/StrideNVRTCTests build/unittests/StrideRuntimeTests build/unittests/StrideEmbedTests \
  build/bin/stride-capi-test "$work/embed/embed" "$out/bin/"
cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Run on the GPU machine, from the repository root's copy (EmbedTest reads
# the examples of the source tree it was built in, @SOURCE_DIR@; a link
# there to the copy is made when that path does not exist).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=${STRIDE_REPO:-$(pwd)}
for f in "$here"/lib/*.xz; do xz -dc "$f" >"${f%.xz}"; done
export LD_LIBRARY_PATH=$here/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
source_dir=@SOURCE_DIR@
[[ -e $source_dir/examples ]] || { mkdir -p "$(dirname "$source_dir")" && ln -sfn "$repo" "$source_dir"; }
status=0
for t in StrideModuleTests StrideNVRTCTests StrideRuntimeTests; do
  echo "== $t (the runtime's GPU tests run here)"
  "$here/bin/$t" --gtest_brief=1 || status=1
done
echo "== StrideEmbedTests"
"$here/bin/StrideEmbedTests" --gtest_brief=1 || status=1
echo "== stride-capi-test (C)"
"$here/bin/stride-capi-test" "$repo/examples/seed_backward_fx.mlir" || status=1
echo "== examples/embed"
"$here/bin/embed" || status=1
exit $status
RUN
sed -i "s|@SOURCE_DIR@|$(pwd)|" "$out/run.sh"
chmod +x "$out/run.sh"
du -sh "$out"
