#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (lit tests
# and GoogleTest unit tests, both through lit). Exits non-zero on any failure;
# the last line is "N passed, N failed". STRIDE_HARDENED=1 runs the suite on
# the AddressSanitizer + UndefinedBehaviorSanitizer build instead.
set -uo pipefail
cd "$(dirname "$0")/.."

./scripts/setup-deps.sh || exit 1
if [[ ${STRIDE_HARDENED:-0} == 1 ]]; then
  # The same suite on the clang ASan + UBSan build (build-hardened/).
  export STRIDE_BUILD_DIR=build-hardened
  source ./scripts/hardened-env.sh
fi
./scripts/build.sh all mlir-doc || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

BUILD_DIR=${STRIDE_BUILD_DIR:-build}
log=$(mktemp)
# A test that runs past 20 minutes fails by name (lit's --timeout, with
# python3-psutil) instead of holding the suite until CI's own limit.
/usr/lib/llvm-22/bin/lit -sv --timeout=1200 "$BUILD_DIR/test" "$BUILD_DIR/test/Unit" 2>&1 | tee "$log"
lit_status=${PIPESTATUS[0]}

count() { grep -E "^ *$1( Tests)? *:" "$log" | awk -F: '{s += $2} END {print s + 0}'; }
passed=$(( $(count Passed) + $(count "Expectedly Failed") ))
failed=$(( $(count Failed) + $(count "Unexpectedly Passed") + $(count Unresolved) + $(count "Timed Out") ))
rm -f "$log"
if (( lit_status != 0 && failed == 0 )); then
  failed=1 # lit failed without counting a test (e.g. a bad config)
fi
echo "$passed passed, $failed failed"
(( failed == 0 ))
