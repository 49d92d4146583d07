#!/usr/bin/env bash
# The tensor-parallel benchmark on a 2- or 4-GPU machine, in a bundle made
# by bench/distributed/prepare.sh (bench_distributed.py --help lists the
# options; all are passed on). NVLink multicast stays off.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
exec python3 "$here/bench_distributed.py" --bin "$here/bin" "$@"
