#!/usr/bin/env bash
# Builds, on the development machine, stridec and stride-run-gpu for a GPU
# machine that has the CUDA 13 driver and NVRTC but no MLIR, LLVM or
# compiler (Ubuntu 24.04, glibc 2.39), and checks the result:
#
#   build/portable/
#     bin/stridec          MLIR and LLVM linked statically (STRIDE_PORTABLE,
#                          cmake/Portable.cmake), libstdc++ and libgcc
#                          static, fmt header-only; stripped
#     bin/stride-run-gpu   the runtime and .npy I/O, libstdc++ static; stripped
#     lib/libstride.so     the compiler and runtime with the C API, for the
#                          Python package (python/README.md: STRIDE_LIBRARY);
#                          linked as stridec is; stripped
#     lib/                 the shared libraries stridec needs beyond glibc
#                          (libzip, which Debian ships only shared, and its
#                          own dependencies); stridec finds them through
#                          its RPATH, $ORIGIN/../lib
#     MANIFEST             commit, date, sizes
#
# The folder moves as a whole (copy or carry build/portable). NVRTC and
# libcuda are opened at run time: stridec looks for libnvrtc.so.13 on the
# loader path, then in /usr/local/cuda/lib64 (STRIDE_NVRTC=PATH names it);
# the CUDA headers NVRTC compiles against come from the include/ folder
# beside NVRTC's lib folder, $CUDA_PATH/include or /usr/local/cuda/include.
#
# Checks (the script fails if one does not hold): no libLLVM, libMLIR,
# libstdc++, libfmt or libnvrtc in the binaries' dynamic dependencies; no
# glibc symbol version above 2.39; `stridec --version`, `stridec --help`
# and `stride-run-gpu --help` run with an empty environment and an empty
# LD_LIBRARY_PATH; stridec compiles examples/softmax.mlir to CUDA C++ there
# (no NVRTC needed), and, with NVRTC from this machine's CUDA, to a module.
#
# Slow (it links LLVM statically, a separate build in build/portable-build,
# several minutes on a loaded machine), so scripts/check.sh does not run it.
#
# usage: scripts/build-portable.sh [--out DIR]   (default build/portable)
set -euo pipefail
cd "$(dirname "$0")/.."

out=build/portable
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-portable: unknown argument $1" >&2; exit 1 ;;
  esac
done

build=build/portable-build
max_glibc=2.39

fail() { echo "build-portable: $*" >&2; exit 1; }

start=$(date +%s)
STRIDE_BUILD_DIR=$build STRIDE_CMAKE_ARGS="-DSTRIDE_PORTABLE=ON" \
  ./scripts/build.sh stridec stride-run-gpu StrideEmbed
seconds=$(($(date +%s) - start))

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
out=$(cd "$out" && pwd)
raw=$(stat -c %s "$build/bin/stridec")
for tool in stridec stride-run-gpu; do
  strip -o "$out/bin/$tool" "$build/bin/$tool"
done
# One file (the loader finds it by that name through STRIDE_LIBRARY or a
# path), no version links.
strip -o "$out/lib/libstride.so" "$(readlink -f "$build/lib/libstride.so")"

# The shared libraries stridec needs that are neither glibc's nor the
# loader: copied next to it (resolved through its RUNPATH).
is_glibc() {
  [[ $1 =~ ^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libresolv)\. ]]
}
while read -r name _ path _; do
  [[ -n $path && -f $path ]] || continue
  is_glibc "$name" && continue
  cp -L "$path" "$out/lib/$name"
done < <(ldd "$out/bin/stridec")
# The linker wrote DT_RPATH $ORIGIN/../lib (cmake/Portable.cmake), which
# also serves libzip's own dependencies.
readelf -d "$out/bin/stridec" | grep '(RPATH).*\$ORIGIN/../lib' >/dev/null ||
  fail "stridec has no RPATH \$ORIGIN/../lib: $(readelf -d "$out/bin/stridec" | grep -E 'RPATH|RUNPATH')"

# Dependencies: nothing from the toolchain.
for binary in "$out"/bin/* "$out"/lib/*; do
  if deps=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
            grep -E '^lib(LLVM|MLIR|stdc\+\+|fmt|nvrtc|cuda|z3|edit|xml2|ffi)'); then
    fail "$binary needs $(echo $deps): it must not link the toolchain's libraries"
  fi
  newest=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' |
           sort -uV | tail -1)
  if [[ -n $newest && $(printf '%s\n%s\n' "$newest" "$max_glibc" | sort -V | tail -1) != "$max_glibc" ]]; then
    fail "$binary needs glibc $newest, newer than the GPU machine's $max_glibc"
  fi
done

# Start with nothing from this machine's environment.
bare() { env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH= HOME="$out" "$@"; }
version=$(bare "$out/bin/stridec" --version) || fail "stridec --version failed"
bare "$out/bin/stridec" --help >/dev/null || fail "stridec --help failed"
bare "$out/bin/stride-run-gpu" --help >/dev/null || fail "stride-run-gpu --help failed"
if command -v python3 >/dev/null; then
  bare python3 -c "import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); \
lib.stride_version.restype = ctypes.c_char_p; print(lib.stride_version().decode())" \
    "$out/lib/libstride.so" >/dev/null || fail "lib/libstride.so does not load"
fi
# `grep >/dev/null`, not `grep -q`: -q exits at its first match, and the
# writer, still printing, then dies of SIGPIPE and fails the pipe (pipefail).
bare "$out/bin/stridec" examples/softmax.mlir --emit=cuda | grep '__global__' >/dev/null ||
  fail "stridec --emit=cuda printed no kernel"
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if [[ -e /usr/local/cuda/lib64/libnvrtc.so.13 ]]; then
  bare "$out/bin/stridec" --no-cache examples/softmax.mlir -o "$probe/softmax.stridemod" ||
    fail "stridec could not compile examples/softmax.mlir to a module"
  "$out/bin/stridec" --inspect "$probe/softmax.stridemod" | grep 'kernel' >/dev/null ||
    fail "the module stridec wrote lists no kernel"
fi

xz -9 -T1 -c "$out/bin/stridec" >"$probe/stridec.xz"
{
  echo "made by scripts/build-portable.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) in ${seconds} s"
  echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
  echo "$(head -1 <<<"$version")"
  echo "stridec: $raw bytes linked, $(stat -c %s "$out/bin/stridec") stripped," \
       "$(stat -c %s "$probe/stridec.xz") xz -9"
  echo "stride-run-gpu: $(stat -c %s "$out/bin/stride-run-gpu") stripped"
  echo "libstride.so: $(stat -c %s "$out/lib/libstride.so") stripped"
  echo "lib/: $(cd "$out/lib" && ls | tr '\n' ' ')"
} >"$out/MANIFEST"
cat "$out/MANIFEST"
echo "build-portable: $(du -sh "$out" | cut -f1) in $out"
