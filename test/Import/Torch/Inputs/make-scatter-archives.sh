#!/usr/bin/env bash
# Writes the small .pt2 archives of scatter-ops.test into this folder: the
# seed_fwd_2x8x16 fixture (torch 2.11) with its graph replaced by a few
# nodes of torch's scatter ops, written here by hand in the export schema
# (one index input; the other operands are zeros, ones and fulls, so that
# the results can be checked by hand). Also writes each archive's index
# input as NAME.idx.npy. Run it again after changing it and commit the
# files; the tests read the committed files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
good=$here/../fixtures/seed_fwd_2x8x16/model.pt2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unzip -q "$good"
json=model/models/model.json
cp "$json" seed.json

# The jq definitions of a graph: meta(dtype; sizes) a contiguous tensor
# (dtype 5 int64, 7 float32, 12 bool), t(name) a tensor argument, arg(name;
# value) a named argument, node(target; inputs; output) a node.
defs='
def strides(s): [range(0; s | length) as $i
                 | (s[$i + 1:] | reduce .[] as $x (1; . * $x)) | {as_int: .}];
def meta(dt; s): {dtype: dt, sizes: [s[] | {as_int: .}], requires_grad: false,
                  device: {type: "cpu", index: null}, strides: strides(s),
                  storage_offset: {as_int: 0}, layout: 7};
def t(n): {as_tensor: {name: n}};
def arg(n; v): {name: n, arg: v, kind: 1};
def node(target; ins; out): {target: ("torch.ops.aten." + target), inputs: ins,
  outputs: [t(out)], metadata: {}, is_hop_single_tensor_return: null, name: out};
def program(inputs; outputs; nodes; values):
  .graph_module.graph.inputs = [inputs[] | t(.)]
  | .graph_module.graph.outputs = [outputs[] | t(.)]
  | .graph_module.graph.nodes = nodes
  | .graph_module.graph.tensor_values = values
  | .graph_module.signature.input_specs = [inputs[] | {user_input: {arg: t(.)}}]
  | .graph_module.signature.output_specs = [outputs[] | {user_output: {arg: t(.)}}];
'

# Writes $here/$1.pt2 from the jq expression $2 (after $defs).
archive() {
  local name=$1 expr=$2
  jq -c "$defs $expr" seed.json > "$json"
  (rm -f "$here/$name.pt2" && zip -q -0 -X -r "$here/$name.pt2" model -x seed.json)
}

# Writes $here/$1.idx.npy: int64 of shape $2 (a Python tuple, e.g. "(4,)")
# holding the values $3..., each in 0..255.
index_npy() {
  local name=$1 shape=$2
  shift 2
  local header="{'descr': '<i8', 'fortran_order': False, 'shape': $shape, }"
  while (( (10 + ${#header} + 1) % 64 != 0 )); do header+=" "; done
  {
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $(( (${#header} + 1) % 256 )))\\x$(printf %02x $(( (${#header} + 1) / 256 )))"
    printf '%s\n' "$header"
    for v in "$@"; do printf "\\x$(printf %02x "$v")\\x00\\x00\\x00\\x00\\x00\\x00\\x00"; done
  } > "$here/$name.idx.npy"
}

# index_add(zeros[5, 3], 0, idx[4], ones[4, 3], alpha=2).
archive index-add '
program(["idx"]; ["index_add"];
  [node("zeros.default"; [arg("size"; {as_ints: [5, 3]})]; "zeros"),
   node("ones.default"; [arg("size"; {as_ints: [4, 3]})]; "ones"),
   node("index_add.default"; [arg("self"; t("zeros")), arg("dim"; {as_int: 0}),
     arg("index"; t("idx")), arg("source"; t("ones")),
     arg("alpha"; {as_int: 2})]; "index_add")];
  {idx: meta(5; [4]), zeros: meta(7; [5, 3]), ones: meta(7; [4, 3]),
   index_add: meta(7; [5, 3])})'
index_npy index-add "(4,)" 0 2 0 4

# scatter_add(zeros[3, 3], 0, idx[2, 3], ones[2, 3]),
# scatter.value(zeros, 0, idx, 5), scatter.src(zeros, 1, idx, ones).
archive scatters '
program(["idx"]; ["scatter_add", "scatter_value", "scatter_src"];
  [node("zeros.default"; [arg("size"; {as_ints: [3, 3]})]; "zeros"),
   node("ones.default"; [arg("size"; {as_ints: [2, 3]})]; "ones"),
   node("scatter_add.default"; [arg("self"; t("zeros")), arg("dim"; {as_int: 0}),
     arg("index"; t("idx")), arg("src"; t("ones"))]; "scatter_add"),
   node("scatter.value"; [arg("self"; t("zeros")), arg("dim"; {as_int: 0}),
     arg("index"; t("idx")), arg("value"; {as_float: 5.0})]; "scatter_value"),
   node("scatter.src"; [arg("self"; t("zeros")), arg("dim"; {as_int: 1}),
     arg("index"; t("idx")), arg("src"; t("ones"))]; "scatter_src")];
  {idx: meta(5; [2, 3]), zeros: meta(7; [3, 3]), ones: meta(7; [2, 3]),
   scatter_add: meta(7; [3, 3]), scatter_value: meta(7; [3, 3]),
   scatter_src: meta(7; [3, 3])})'
index_npy scatters "(2, 3)" 0 1 0 2 2 1

# embedding_dense_backward's decomposition:
# _unsafe_index_put(zeros[4, 2], [idx[2, 3]], ones[2, 3, 2], accumulate=True),
# and index_put(zeros, [idx], full[2] of 7, accumulate=False).
archive index-put '
program(["idx"]; ["accumulated", "put"];
  [node("zeros.default"; [arg("size"; {as_ints: [4, 2]})]; "zeros"),
   node("ones.default"; [arg("size"; {as_ints: [2, 3, 2]})]; "ones"),
   node("full.default"; [arg("size"; {as_ints: [2]}),
     arg("fill_value"; {as_float: 7.0})]; "sevens"),
   node("_unsafe_index_put.default"; [arg("self"; t("zeros")),
     arg("indices"; {as_optional_tensors: [{as_tensor: {name: "idx"}}]}),
     arg("values"; t("ones")), arg("accumulate"; {as_bool: true})]; "accumulated"),
   node("index_put.default"; [arg("self"; t("zeros")),
     arg("indices"; {as_optional_tensors: [{as_tensor: {name: "idx"}}]}),
     arg("values"; t("sevens"))]; "put")];
  {idx: meta(5; [2, 3]), zeros: meta(7; [4, 2]), ones: meta(7; [2, 3, 2]),
   sevens: meta(7; [2]), accumulated: meta(7; [4, 2]), put: meta(7; [4, 2])})'
index_npy index-put "(2, 3)" 1 0 1 3 1 0

# index_put with two index tensors (linearized), and with a bool mask
# (unsupported).
archive index-put-two '
program(["idx"]; ["put"];
  [node("zeros.default"; [arg("size"; {as_ints: [4, 2]})]; "zeros"),
   node("ones.default"; [arg("size"; {as_ints: [3]})]; "ones"),
   node("index_put.default"; [arg("self"; t("zeros")),
     arg("indices"; {as_optional_tensors: [{as_tensor: {name: "idx"}},
                                          {as_tensor: {name: "idx"}}]}),
     arg("values"; t("ones")), arg("accumulate"; {as_bool: true})]; "put")];
  {idx: meta(5; [3]), zeros: meta(7; [4, 2]), ones: meta(7; [3]),
   put: meta(7; [4, 2])})'
archive index-put-mask '
program(["mask"]; ["put"];
  [node("zeros.default"; [arg("size"; {as_ints: [4, 2]})]; "zeros"),
   node("ones.default"; [arg("size"; {as_ints: [2]})]; "ones"),
   node("index_put.default"; [arg("self"; t("zeros")),
     arg("indices"; {as_optional_tensors: [{as_tensor: {name: "mask"}}]}),
     arg("values"; t("ones"))]; "put")];
  {mask: meta(12; [4]), zeros: meta(7; [4, 2]), ones: meta(7; [2]),
   put: meta(7; [4, 2])})'
