#!/usr/bin/env bash
# Regenerates the op, type and pass reference (docs/generated/) from the ODS
# definitions with mlir-tblgen (CMake target mlir-doc). A lit test fails when
# the checked-in pages are stale, so run this after changing a .td file.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh mlir-doc >/dev/null
cp build/docs/stride/StrideOps.md build/docs/stride/StridePasses.md \
  build/docs/stride/StrideAttrs.md build/docs/stride/StrideCUDAPasses.md docs/generated/
echo "docs/generated/ updated"
