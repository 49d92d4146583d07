#!/usr/bin/env bash
# From a fresh clone to a compiled graph: installs the packages Stride needs,
# builds it, and runs examples/seed_backward.mlir through the default
# pipeline, printing the result.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup-deps.sh
./scripts/build.sh

echo
echo "== stride-opt --stride-pipeline examples/seed_backward.mlir"
./build/bin/stride-opt --stride-pipeline examples/seed_backward.mlir
