#!/usr/bin/env bash
# The symbolic-size benchmark on the GPU machine, in a bundle made by
# bench/dynamic/prepare.sh (bench_dynamic.py --help lists the options; all
# are passed on).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
exec python3 "$here/bench_dynamic.py" --bin "$here/bin" "$@"
