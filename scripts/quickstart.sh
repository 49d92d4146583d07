#!/usr/bin/env bash
# From a fresh clone to a compiled graph: installs the packages Stride needs,
# builds it, runs examples/seed_backward.mlir through the default pipeline,
# printing the result, then compiles it into a GPU module and inspects it.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup-deps.sh
./scripts/build.sh

echo
echo "== stride-opt --stride-pipeline examples/seed_backward.mlir"
./build/bin/stride-opt --stride-pipeline examples/seed_backward.mlir

echo
echo "== stridec examples/seed_backward.mlir -o build/seed_backward.stridemod"
./build/bin/stridec examples/seed_backward.mlir -o build/seed_backward.stridemod
echo "== stridec --inspect build/seed_backward.stridemod"
./build/bin/stridec --inspect build/seed_backward.stridemod
