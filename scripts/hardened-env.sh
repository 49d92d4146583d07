# Sourced by check.sh and fuzz.sh: the hardened build (clang-22, AddressSanitizer
# + UndefinedBehaviorSanitizer, libFuzzer coverage) in build-hardened/.
export STRIDE_CMAKE_ARGS="-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DSTRIDE_SANITIZERS=address;undefined -DSTRIDE_ENABLE_FUZZERS=ON"
# LLVM's tools free some global state lazily at exit; leaks are checked by
# the fuzzers, which run in-process.
# allow_user_poisoning=0: the Debian LLVM libraries are not instrumented, while
# the allocator code inlined from their headers is, and the two disagree
# about manual poisoning (false use-after-poison reports in BumpPtrAllocator).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The emulator's guard against a hung emulation (test/Emu/emulate.sh): the
# sanitized stride-emu runs slower, so the guard is longer here, still below
# lit's per-test limit (check.sh, 1,200 s) so that its message shows.
export EMU_TIMEOUT=${EMU_TIMEOUT:-1000}
