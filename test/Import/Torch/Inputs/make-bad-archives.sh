#!/usr/bin/env bash
# Writes the bad .pt2 archives of bad-archives.test into this folder, each a
# small edit of the seed_fwd_2x8x16 fixture (torch 2.11). Run it again after
# changing it and commit the archives; the tests read the committed files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
good=$here/../fixtures/seed_fwd_2x8x16/model.pt2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unzip -q "$good"
json=model/models/model.json

# Re-zips model/ with model.json edited by the sed expression $2 (stored, as
# torch writes it).
edited() {
  local out=$1 expr=$2
  cp "$json" "$json.orig"
  sed -i "$expr" "$json"
  (rm -f "$here/$out" && zip -q -0 -X -r "$here/$out" model -x "$json.orig")
  mv "$json.orig" "$json"
}

echo "this is not a zip archive" > "$here/not-a-zip.pt2"
head -c 700 "$good" > "$here/truncated.pt2"

# A byte of model.json changed in place: the entry's CRC no longer matches.
cp "$good" "$here/crc.pt2"
at=$(grep -obUa '"graph_module"' "$here/crc.pt2" | sed -n 1p | cut -d: -f1)
printf 'G' | dd of="$here/crc.pt2" bs=1 seek=$((at + 1)) conv=notrunc status=none

edited not-schema.pt2 's/.*/{"hello": "world"}/'
edited bad-argument.pt2 's/"name": "dim", "arg": {"as_int": 1}/"name": "dim", "arg": {"as_int": "one"}/'
edited major-9.pt2 's/"major": 8/"major": 9/'
edited symbolic.pt2 's/"x": {"dtype": 7, "sizes": \[{"as_int": 2}/"x": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "s0", "hint": {"as_int": 2}}}/'
edited complex.pt2 's/"x": {"dtype": 7/"x": {"dtype": 10/'
edited negative-size.pt2 's/"x": {"dtype": 7, "sizes": \[{"as_int": 2}/"x": {"dtype": 7, "sizes": [{"as_int": -2}/'
edited uint8.pt2 's/"x": {"dtype": 7/"x": {"dtype": 1/'
edited float8.pt2 's/"x": {"dtype": 7/"x": {"dtype": 29/'
edited no-outputs.pt2 's/"outputs": \[{"as_tensor": {"name": "sum_1"}}\], "metadata"/"outputs": [], "metadata"/'
edited unsupported-ops.pt2 's/aten.slice_scatter.default/aten.scramble.default/g; s/aten.sum.dim_IntList/aten.frobnicate.default/g'

# A weight stored pickled.
cp model/data/weights/model_weights_config.json weights.orig
echo '{"config": {"w": {"path_name": "weight_0", "is_param": true, "use_pickle": true, "tensor_meta": null}}}' \
  > model/data/weights/model_weights_config.json
edited pickled-weights.pt2 's/^//'
mv weights.orig model/data/weights/model_weights_config.json

# The torch 2.5-2.7 layout, and a zip without a model.
mkdir -p legacy/x && echo '{}' > legacy/x/serialized_exported_program.json
(cd legacy && rm -f "$here/legacy.pt2" && zip -q -0 -X -r "$here/legacy.pt2" x)
mkdir -p plain && echo hello > plain/hello.txt
(cd plain && rm -f "$here/no-model.pt2" && zip -q -X "$here/no-model.pt2" hello.txt)
