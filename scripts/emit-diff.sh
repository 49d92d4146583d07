#!/usr/bin/env bash
# Compares the CUDA C++ that two stridec binaries emit for every graph in
# examples/, bench/ and test/ (and any extra graph files given): for each
# graph that either compiles, `--emit=cuda` from both, byte for byte. Prints
# one line per graph that differs (or compiles with only one of them) and a
# summary; exits 1 when any differ. Graphs that neither binary accepts
# (diagnostics tests) are counted as skipped.
#
# usage: scripts/emit-diff.sh BEFORE_STRIDEC AFTER_STRIDEC [GRAPH.mlir...]
#   e.g. cp build/bin/stridec /tmp/stridec-before; (change, rebuild);
#        scripts/emit-diff.sh /tmp/stridec-before build/bin/stridec
# Set KEEP=DIR to keep both outputs of each differing graph in DIR.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BEFORE_STRIDEC AFTER_STRIDEC [GRAPH.mlir...]" >&2
  exit 1
fi
before=$1 after=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

graphs=("$@")
if [[ ${#graphs[@]} -eq 0 ]]; then
  mapfile -t graphs < <(find examples bench test -name '*.mlir' | sort)
fi

same=0 differ=0 skipped=0
for graph in "${graphs[@]}"; do
  "$before" --emit=cuda "$graph" -o "$work/before.cu" 2>/dev/null
  before_status=$?
  "$after" --emit=cuda "$graph" -o "$work/after.cu" 2>/dev/null
  after_status=$?
  if [[ $before_status -ne 0 && $after_status -ne 0 ]]; then
    skipped=$((skipped + 1))
  elif [[ $before_status -eq 0 && $after_status -eq 0 ]] &&
       cmp -s "$work/before.cu" "$work/after.cu"; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "differs: $graph (exit $before_status before, $after_status after)"
    if [[ -n ${KEEP:-} ]]; then
      mkdir -p "$KEEP"
      name=$(echo "$graph" | tr '/' '_')
      cp "$work/before.cu" "$KEEP/$name.before.cu" 2>/dev/null
      cp "$work/after.cu" "$KEEP/$name.after.cu" 2>/dev/null
    fi
  fi
done
echo "$same same, $differ differ, $skipped skipped (neither compiles)"
[[ $differ -eq 0 ]]
