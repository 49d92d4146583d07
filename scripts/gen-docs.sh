#!/usr/bin/env bash
# Regenerates what the docs show of generated output, each checked by a lit
# test under test/Docs/ that fails when the checked-in text is stale:
#   - the op, type and pass reference (python-free-docs/generated/) from the ODS
#     definitions with mlir-tblgen (CMake target mlir-doc): run this after
#     changing a .td file;
#   - the `stridec --inspect` sample in python-free-docs/module-format.md (the module of
#     examples/embedding_grad.mlir, between the "inspect-sample" markers):
#     run this after changing what a module holds or how --inspect prints it;
#   - the core ATen coverage page (python-free-docs/generated/CoreAtenOps.md)
#     from python-free-docs/core-aten-ops.tsv and `stridec --list-torch-ops`
#     (scripts/core-aten-table.py): run this after adding an op to the
#     importer.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh mlir-doc stridec >/dev/null
cp build/docs/stride/StrideOps.md build/docs/stride/StridePasses.md \
  build/docs/stride/StrideAttrs.md build/docs/stride/StrideCUDAPasses.md \
  build/docs/stride/PlanOps.md build/docs/stride/PlanPasses.md python-free-docs/generated/
echo "python-free-docs/generated/ updated"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/bin/stridec --no-cache examples/embedding_grad.mlir -o "$tmp/m.stridemod"
build/bin/stridec --inspect "$tmp/m.stridemod" > "$tmp/inspect.txt"
awk -v sample="$tmp/inspect.txt" '
  /^<!-- inspect-sample: begin -->$/ {
    print; print "```"
    while ((getline line < sample) > 0) print line
    print "```"; skip = 1; next
  }
  /^<!-- inspect-sample: end -->$/ { skip = 0 }
  !skip' python-free-docs/module-format.md > "$tmp/module-format.md"
cp "$tmp/module-format.md" python-free-docs/module-format.md
echo "python-free-docs/module-format.md: --inspect sample updated"

python3 scripts/core-aten-table.py build/bin/stridec python-free-docs/generated/CoreAtenOps.md
echo "python-free-docs/generated/CoreAtenOps.md updated"
