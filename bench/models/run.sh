#!/usr/bin/env bash
# The whole-model benchmark on the GPU machine, in a bundle made by
# bench/models/prepare.sh: exports each model, compiles it with the bundle's
# stridec, runs it with its stride-run-gpu, runs PyTorch eager and
# torch.compile on the same inputs, and prints the table
# (bench_models.py --help lists the options; all are passed on).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The Python package (bench_models.py --package) finds the bundle's library.
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
export STRIDE_LIBRARY=${STRIDE_LIBRARY:-$here/lib/libstride.so}
exec python3 "$here/bench_models.py" --bin "$here/bin" "$@"
