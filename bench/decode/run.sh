#!/usr/bin/env bash
# The decode benchmark on the GPU machine, in a bundle made by
# bench/decode/prepare.sh (bench_decode.py --help lists the options; all are
# passed on).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
exec python3 "$here/bench_decode.py" --bin "$here/bin" "$@"
