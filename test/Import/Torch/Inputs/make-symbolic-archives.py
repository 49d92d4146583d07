#!/usr/bin/env python3
"""Writes the .pt2 archives of symbolic.test into symbolic/ beside this
script: programs whose sizes are symbols (`s0`, `s1`), as torch.export
writes them for dynamic_shapes (a SymInt `{"as_expr": {"expr_str": "s0"}}`
in tensor_values, the symbol's range in range_constraints), and archives
whose symbolic sizes Stride refuses.

Python's standard library only (no PyTorch). Run it again after changing
it and commit the files; the tests read the committed files.
"""

import os
import random

from pt2_writer import (BOOL, F32, I64, Graph, Tensor, rand, symbolic_meta, t,
                        write_archive)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "symbolic")


def symbolic_input(graph, name, shape):
    graph.inputs.append(name)
    graph.values[name] = symbolic_meta(F32, shape)
    return name


def symbolic_node(graph, target, args, name, shape, strides=None):
    """A node with one output `name` of symbolic `shape`."""
    graph.node(target, args, [t(name)])
    graph.nodes[-1]["name"] = name
    graph.values[name] = symbolic_meta(F32, shape, strides)
    return name


def sym_node(graph, target, args, name, expr):
    """A node whose one output is the SymInt `name` of expression `expr`, as
    torch.export writes sym_size and Python's operators on SymInts: its
    arguments are (name, argument union) pairs."""
    graph.nodes.append({
        "target": target, "name": name, "metadata": {},
        "inputs": [{"name": n, "arg": a, "kind": 1} for n, a in args],
        "outputs": [{"as_sym_int": {"as_name": name}}]})
    graph.sym_ints[name] = {"as_expr": {"expr_str": expr, "hint": {"as_int": 1}}}
    return name


def sym_size(graph, tensor, dim, name, expr):
    return sym_node(graph, "torch.ops.aten.sym_size.int",
                    [("self", t(tensor)), ("dim", {"as_int": dim})], name, expr)


def sym_arg(value):
    """A SymInt argument: a SymInt node's name, or an int."""
    if isinstance(value, int):
        return {"as_int": value}
    return {"as_sym_int": {"as_name": value}}


def operator(graph, op, a, b, name, expr):
    return sym_node(graph, "_operator." + op,
                    [("a", sym_arg(a)), ("b", sym_arg(b))], name, expr)


def linear_weights(graph, rng, prefix, rows, cols):
    """The weight [rows, cols] and bias [rows] of a linear layer, and the
    weight transposed (as export writes linear: permute, then addmm)."""
    graph.buffer(prefix + "_w", prefix + ".weight", rand(rng, [rows, cols]))
    graph.buffer(prefix + "_b", prefix + ".bias", rand(rng, [rows]))
    graph.node("permute.default", [("self", prefix + "_w"),
                                   ("dims", {"as_ints": [1, 0]})],
               [(prefix + "_t", F32, [cols, rows], [1, 0])])
    return prefix + "_b", prefix + "_t"


def mlp_batch():
    """Linear, GELU, linear over a dynamic batch: x [s0, 64] -> [s0, 16]."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 1024}}
    symbolic_input(graph, "x", ["s0", 64])
    rng = random.Random(44)
    b1, w1 = linear_weights(graph, rng, "fc1", 32, 64)
    b2, w2 = linear_weights(graph, rng, "fc2", 16, 32)
    symbolic_node(graph, "addmm.default",
                  [("self", b1), ("mat1", "x"), ("mat2", w1)],
                  "addmm", ["s0", 32])
    symbolic_node(graph, "gelu.default", [("self", "addmm")], "gelu", ["s0", 32])
    symbolic_node(graph, "addmm.default",
                  [("self", b2), ("mat1", "gelu"), ("mat2", w2)],
                  "addmm_1", ["s0", 16])
    graph.outputs = ["addmm_1"]
    return graph


def view_batch_seq():
    """x [s0, s1, 64] viewed as [s0*s1, 64], a ReLU, and viewed back, the
    views' sizes computed as torch.export writes them: sym_size nodes and
    operator.mul."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64},
                               "s1": {"min_val": 1, "max_val": 4096}}
    symbolic_input(graph, "x", ["s0", "s1", 64])
    sym_size(graph, "x", 0, "sym_size_int", "s0")
    sym_size(graph, "x", 1, "sym_size_int_1", "s1")
    operator(graph, "mul", "sym_size_int", "sym_size_int_1", "mul", "s0*s1")
    sizes = {"as_sym_ints": [{"as_name": "mul"}, {"as_int": 64}]}
    symbolic_node(graph, "view.default", [("self", "x"), ("size", sizes)],
                  "view", ["s0*s1", 64])
    symbolic_node(graph, "relu.default", [("self", "view")], "relu", ["s0*s1", 64])
    back = {"as_sym_ints": [{"as_name": "sym_size_int"},
                            {"as_name": "sym_size_int_1"}, {"as_int": 64}]}
    symbolic_node(graph, "view.default", [("self", "relu"), ("size", back)],
                  "view_1", ["s0", "s1", 64])
    graph.outputs = ["view_1"]
    return graph


def tensor_node(graph, target, args, name, shape, strides=None, offset=0,
                dtype=F32):
    """A node of one output `name` (symbolic `shape`, strides row-major
    unless given), its arguments (name, argument union or tensor name)."""
    graph.node(target, args, [t(name)])
    graph.nodes[-1]["name"] = name
    graph.values[name] = symbolic_meta(dtype, shape, strides, offset)
    return name


def transformer_block():
    """A GPT-2 block over a dynamic batch s0 and sequence s1 as torch.export
    (2.11, transformers' sdpa attention) writes it: token and position
    embeddings, a causal mask built from arange over the symbolic sequence
    (sym_size nodes give its end), layer norm, the fused qkv linear split
    into heads, sdpa with the mask, the output projection and the residual.
    Width 16, 2 heads of 8, a vocabulary of 32."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64},
                               "s1": {"min_val": 2, "max_val": 1024}}
    graph.inputs.append("ids")
    graph.values["ids"] = symbolic_meta(I64, ["s0", "s1"])
    rng = random.Random(45)
    graph.buffer("wte", "wte.weight", rand(rng, [32, 16]))
    graph.buffer("wpe", "wpe.weight", rand(rng, [64, 16]))
    graph.buffer("ln_w", "ln_1.weight", rand(rng, [16]))
    graph.buffer("ln_b", "ln_1.bias", rand(rng, [16]))
    graph.buffer("attn_w", "attn.c_attn.weight", rand(rng, [16, 48]))
    graph.buffer("attn_b", "attn.c_attn.bias", rand(rng, [48]))
    graph.buffer("proj_w", "attn.c_proj.weight", rand(rng, [16, 16]))
    graph.buffer("proj_b", "attn.c_proj.bias", rand(rng, [16]))
    batch = sym_size(graph, "ids", 0, "sym_size_int", "Symbol('s0', positive=True, integer=True)")
    seq = sym_size(graph, "ids", 1, "sym_size_int_1", "Symbol('s1', positive=True, integer=True)")
    node = lambda *a, **k: tensor_node(graph, *a, **k)
    node("embedding.default", [("weight", "wte"), ("indices", "ids")],
         "embedding", ["s0", "s1", 16])
    node("arange.start_step", [("start", {"as_int": 0}),
                               ("end", sym_arg(seq))],
         "arange", ["s1"], dtype=I64)
    node("unsqueeze.default", [("self", "arange"), ("dim", {"as_int": 0})],
         "unsqueeze", [1, "s1"], ["s1", 1], dtype=I64)
    node("embedding.default", [("weight", "wpe"), ("indices", "unsqueeze")],
         "embedding_1", [1, "s1", 16])
    node("add.Tensor", [("self", "embedding"), ("other", "embedding_1")],
         "add", ["s0", "s1", 16])
    # The causal mask: key position <= query position, and-ed into an
    # all-true scalar, as transformers' sdpa_mask builds it.
    node("unsqueeze.default", [("self", "arange"), ("dim", {"as_int": 1})],
         "unsqueeze_1", ["s1", 1], dtype=I64)
    node("le.Tensor", [("self", "unsqueeze"), ("other", "unsqueeze_1")],
         "le", ["s1", "s1"], dtype=BOOL)
    graph.node("full.default", [("size", {"as_ints": []}),
                                ("fill_value", {"as_bool": True}),
                                ("dtype", {"as_scalar_type": BOOL})],
               [("full", BOOL, [])])
    node("bitwise_and.Tensor", [("self", "full"), ("other", "le")],
         "bitwise_and", ["s1", "s1"], dtype=BOOL)
    node("unsqueeze.default", [("self", "bitwise_and"), ("dim", {"as_int": 0})],
         "unsqueeze_2", [1, "s1", "s1"], ["s1**2", "s1", 1], dtype=BOOL)
    node("unsqueeze.default", [("self", "unsqueeze_2"), ("dim", {"as_int": 0})],
         "unsqueeze_3", [1, 1, "s1", "s1"], ["s1**2", "s1**2", "s1", 1],
         dtype=BOOL)
    node("expand.default",
         [("self", "unsqueeze_3"),
          ("size", {"as_sym_ints": [{"as_name": batch}, {"as_int": -1},
                                    {"as_name": seq}, {"as_name": seq}]})],
         "expand", ["s0", 1, "s1", "s1"], [0, "s1**2", "s1", 1], dtype=BOOL)
    graph.node("native_layer_norm.default",
               [("input", "add"), ("normalized_shape", {"as_ints": [16]}),
                ("weight", "ln_w"), ("bias", "ln_b"),
                ("eps", {"as_float": 1e-05})],
               [t("getitem"), t("getitem_1"), t("getitem_2")])
    graph.values["getitem"] = symbolic_meta(F32, ["s0", "s1", 16])
    for stat in ("getitem_1", "getitem_2"):
        graph.values[stat] = symbolic_meta(F32, ["s0", "s1", 1], ["s1", 1, 1])
    node("view.default", [("self", "getitem"), ("size", {"as_ints": [-1, 16]})],
         "view", ["s0*s1", 16])
    node("addmm.default", [("self", "attn_b"), ("mat1", "view"),
                           ("mat2", "attn_w")], "addmm", ["s0*s1", 48])
    three = {"as_sym_ints": [{"as_name": batch}, {"as_name": seq},
                             {"as_int": 48}]}
    node("view.default", [("self", "addmm"), ("size", three)], "view_1",
         ["s0", "s1", 48])
    graph.node("split_with_sizes.default",
               [("self", "view_1"), ("split_sizes", {"as_ints": [16, 16, 16]}),
                ("dim", {"as_int": 2})],
               [{"as_tensors": [{"name": "q"}, {"name": "k"}, {"name": "v"}]}])
    heads = {"as_sym_ints": [{"as_name": batch}, {"as_name": seq},
                             {"as_int": -1}, {"as_int": 8}]}
    for i, part in enumerate("qkv"):
        graph.values[part] = symbolic_meta(F32, ["s0", "s1", 16],
                                           ["48*s1", 48, 1], 16 * i)
        node("view.default", [("self", part), ("size", heads)], part + "_heads",
             ["s0", "s1", 2, 8], ["48*s1", 48, 8, 1], 16 * i)
        node("permute.default", [("self", part + "_heads"),
                                 ("dims", {"as_ints": [0, 2, 1, 3]})],
             part + "_t", ["s0", 2, "s1", 8], ["48*s1", 8, 48, 1], 16 * i)
    node("scaled_dot_product_attention.default",
         [("query", "q_t"), ("key", "k_t"), ("value", "v_t"),
          ("attn_mask", "expand"), ("scale", {"as_float": 0.3535533905932738})],
         "sdpa", ["s0", 2, "s1", 8], ["16*s1", 8, 16, 1])
    node("permute.default", [("self", "sdpa"),
                             ("dims", {"as_ints": [0, 2, 1, 3]})],
         "permute", ["s0", "s1", 2, 8], ["16*s1", 16, 8, 1])
    merged = {"as_sym_ints": [{"as_name": batch}, {"as_name": seq},
                              {"as_int": -1}]}
    node("view.default", [("self", "permute"), ("size", merged)], "view_2",
         ["s0", "s1", 16])
    node("view.default", [("self", "view_2"), ("size", {"as_ints": [-1, 16]})],
         "view_3", ["s0*s1", 16])
    node("addmm.default", [("self", "proj_b"), ("mat1", "view_3"),
                           ("mat2", "proj_w")], "addmm_1", ["s0*s1", 16])
    back = {"as_sym_ints": [{"as_name": batch}, {"as_name": seq},
                            {"as_int": 16}]}
    node("view.default", [("self", "addmm_1"), ("size", back)], "view_4",
         ["s0", "s1", 16])
    node("add.Tensor", [("self", "view_4"), ("other", "add")], "add_1",
         ["s0", "s1", 16])
    graph.outputs = ["add_1"]
    return graph


def llama_pieces():
    """The pieces of a LLaMA-style layer over a dynamic batch s0 and sequence
    s1 that the GPT-2 block lacks: an RMS norm (pow, mean with keepdim, add,
    rsqrt, mul), attention spelled out (bmm of the keys transposed, a
    padding mask filled with -inf by where, amax, _softmax,
    _log_softmax, sum) and a cumsum."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 32},
                               "s1": {"min_val": 1, "max_val": 2048}}
    symbolic_input(graph, "x", ["s0", "s1", 16])
    graph.inputs.append("pad")
    graph.values["pad"] = symbolic_meta(BOOL, ["s0", 1, "s1"], ["s1", "s1", 1])
    graph.buffer("norm_w", "norm.weight", rand(random.Random(46), [16]))
    node = lambda *a, **k: tensor_node(graph, *a, **k)
    x3 = ["s0", "s1", 16]
    node("pow.Tensor_Scalar", [("self", "x"), ("exponent", {"as_int": 2})],
         "pow", x3)
    node("mean.dim", [("self", "pow"), ("dim", {"as_ints": [-1]}),
                      ("keepdim", {"as_bool": True})],
         "mean", ["s0", "s1", 1], ["s1", 1, 1])
    node("add.Tensor", [("self", "mean"), ("other", {"as_float": 1e-06})],
         "add", ["s0", "s1", 1], ["s1", 1, 1])
    node("rsqrt.default", [("self", "add")], "rsqrt", ["s0", "s1", 1],
         ["s1", 1, 1])
    node("mul.Tensor", [("self", "x"), ("other", "rsqrt")], "mul", x3)
    node("mul.Tensor", [("self", "norm_w"), ("other", "mul")], "h", x3)
    node("permute.default", [("self", "h"), ("dims", {"as_ints": [0, 2, 1]})],
         "keys", ["s0", 16, "s1"], ["16*s1", 1, 16])
    scores = ["s0", "s1", "s1"]
    node("bmm.default", [("self", "h"), ("mat2", "keys")], "scores", scores)
    graph.node("scalar_tensor.default", [("s", {"as_float": "-Infinity"})],
               [("ninf", F32, [])])
    node("where.self", [("condition", "pad"), ("self", "scores"),
                        ("other", "ninf")], "masked", scores)
    node("amax.default", [("self", "masked"), ("dim", {"as_ints": [-1]}),
                          ("keepdim", {"as_bool": True})],
         "amax", ["s0", "s1", 1], ["s1", 1, 1])
    node("sub.Tensor", [("self", "masked"), ("other", "amax")], "shifted",
         scores)
    node("_softmax.default", [("self", "shifted"), ("dim", {"as_int": -1}),
                              ("half_to_float", {"as_bool": False})],
         "probs", scores)
    node("_log_softmax.default", [("self", "shifted"), ("dim", {"as_int": -1}),
                                  ("half_to_float", {"as_bool": False})],
         "logprobs", scores)
    node("sum.dim_IntList", [("self", "probs"), ("dim", {"as_ints": [-1]})],
         "total", ["s0", "s1"])
    node("cumsum.default", [("self", "total"), ("dim", {"as_int": -1})],
         "running", ["s0", "s1"])
    graph.outputs = ["running", "logprobs"]
    return graph


def floordiv_inexact():
    """x [s0, 64] viewed as [s0 // 2, 128]: a floordiv that does not divide
    exactly for every value of s0."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 2, "max_val": 64}}
    symbolic_input(graph, "x", ["s0", 64])
    sym_size(graph, "x", 0, "sym_size_int", "s0")
    operator(graph, "floordiv", "sym_size_int", 2, "floordiv",
             "((s0//2))")
    graph.outputs = ["x"]
    return graph


def fused_attention():
    """CPU flash attention (`--attention fused` captures on the CPU) over a
    dynamic batch s0 and tokens s1, causal: the result and the logsumexp
    [s0, 2, s1]."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 16},
                               "s1": {"min_val": 1, "max_val": 4096}}
    for name in "qkv":
        symbolic_input(graph, name, ["s0", 2, "s1", 8])
    graph.node("_scaled_dot_product_flash_attention_for_cpu.default",
               [("query", "q"), ("key", "k"), ("value", "v"),
                ("is_causal", {"as_bool": True}),
                ("scale", {"as_float": 0.25})],
               [t("out"), t("lse")])
    graph.values["out"] = symbolic_meta(F32, ["s0", 2, "s1", 8],
                                        ["16*s1", 8, 16, 1])
    graph.values["lse"] = symbolic_meta(F32, ["s0", 2, "s1"], ["2*s1", 1, 2])
    graph.outputs = ["out", "lse"]
    return graph


def mask_builder(positions_input=False):
    """transformers' mask builder (sdpa_mask with packed-sequence detection
    from the position ids) over a dynamic batch s0 and sequence s1, node for
    node as torch.export writes it for GPT-2: the positions expanded to the
    batch, a column of the first position minus 1 concatenated before them
    (cat to s1 + 1), the slices [1, s1 + 1) and [0, s1) subtracted (torch.diff),
    `!= 1`, a cumsum (the packed-sequence index of each token), and the
    causal mask (kv <= q) and-ed with the equality of the indices of query
    and key, each read by index.Tensor with the batch and a position as
    index tensors; sym_size and _operator.add nodes give the sizes. With
    `positions_input`, the positions are an input (transformers given
    position_ids) instead of an arange expanded to the batch."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64},
                               "s1": {"min_val": 2, "max_val": 1024}}
    graph.inputs.append("ids")
    graph.values["ids"] = symbolic_meta(I64, ["s0", "s1"])
    # The positions' strides: an arange expanded over the batch, or an input.
    positions, positions_strides = "expand", [0, 1]
    if positions_input:
        positions, positions_strides = "position_ids", ["s1", 1]
        graph.inputs.append(positions)
        graph.values[positions] = symbolic_meta(I64, ["s0", "s1"])
    batch = sym_size(graph, "ids", 0, "sym_size_int", "s0")
    seq = sym_size(graph, "ids", 1, "sym_size_int_1", "s1")
    node = lambda *a, dtype=I64, **k: tensor_node(graph, *a, dtype=dtype, **k)

    def arange(name, end, size):
        return node("arange.start_step", [("start", {"as_int": 0}),
                                          ("end", sym_arg(end))], name, [size])

    def unsqueeze(name, source, dim, shape):
        return node("unsqueeze.default",
                    [("self", source), ("dim", {"as_int": dim})], name, shape)
    if not positions_input:
        arange("arange", seq, "s1")
        node("add.Tensor", [("self", "arange"), ("other", {"as_int": 0})],
             "add", ["s1"])
        unsqueeze("unsqueeze", "add", 0, [1, "s1"])
        node("expand.default",
             [("self", "unsqueeze"),
              ("size", {"as_sym_ints": [{"as_name": batch}, {"as_int": -1}]})],
             "expand", ["s0", "s1"], [0, 1])
    # torch.diff(positions, prepend=positions[:, :1] - 1).
    node("slice.Tensor", [("self", positions), ("dim", {"as_int": 1}),
                          ("start", {"as_int": 0}), ("end", {"as_int": 1})],
         "slice_1", ["s0", 1], positions_strides)
    node("sub.Tensor", [("self", "slice_1"), ("other", {"as_int": 1})], "sub",
         ["s0", 1])
    node("cat.default", [("tensors", {"as_tensors": [{"name": "sub"},
                                                     {"name": positions}]}),
                         ("dim", {"as_int": -1})], "cat", ["s0", "s1 + 1"])
    end = operator(graph, "add", seq, 1, "add_1", "s1 + 1")
    node("slice.Tensor", [("self", "cat"), ("dim", {"as_int": -1}),
                          ("start", {"as_int": 0}), ("end", sym_arg(seq))],
         "slice_2", ["s0", "s1"], ["s1 + 1", 1])
    node("slice.Tensor", [("self", "cat"), ("dim", {"as_int": -1}),
                          ("start", {"as_int": 1}), ("end", sym_arg(end))],
         "slice_3", ["s0", "s1"], ["s1 + 1", 1], offset=1)
    node("sub.Tensor", [("self", "slice_3"), ("other", "slice_2")], "sub_1",
         ["s0", "s1"])
    node("ne.Scalar", [("self", "sub_1"), ("other", {"as_int": 1})], "ne",
         ["s0", "s1"], dtype=BOOL)
    node("cumsum.default", [("self", "ne"), ("dim", {"as_int": -1})],
         "cumsum", ["s0", "s1"])
    # The batch and query / key positions as index tensors.
    arange("arange_1", batch, "s0")
    arange("arange_3", seq, "s1")
    arange("arange_4", seq, "s1")
    unsqueeze("unsqueeze_1", "arange_1", 1, ["s0", 1])
    unsqueeze("unsqueeze_2", "unsqueeze_1", 2, ["s0", 1, 1])
    unsqueeze("unsqueeze_3", "unsqueeze_2", 3, ["s0", 1, 1, 1])
    unsqueeze("unsqueeze_7", "arange_3", 0, [1, "s1"])
    unsqueeze("unsqueeze_8", "unsqueeze_7", 1, [1, 1, "s1"])
    unsqueeze("unsqueeze_9", "unsqueeze_8", 3, [1, 1, "s1", 1])
    unsqueeze("unsqueeze_10", "arange_4", 0, [1, "s1"])
    unsqueeze("unsqueeze_11", "unsqueeze_10", 1, [1, 1, "s1"])
    unsqueeze("unsqueeze_12", "unsqueeze_11", 2, [1, 1, 1, "s1"])
    graph.node("full.default", [("size", {"as_ints": []}),
                                ("fill_value", {"as_bool": True}),
                                ("dtype", {"as_scalar_type": BOOL})],
               [("full", BOOL, [])])
    square = ["s0", 1, "s1", "s1"]
    node("le.Tensor", [("self", "unsqueeze_12"), ("other", "unsqueeze_9")],
         "le", [1, 1, "s1", "s1"], dtype=BOOL)
    node("bitwise_and.Tensor", [("self", "full"), ("other", "le")],
         "bitwise_and", [1, 1, "s1", "s1"], dtype=BOOL)
    for name, position, shape in (("index", "unsqueeze_9", ["s0", 1, "s1", 1]),
                                  ("index_1", "unsqueeze_12",
                                   ["s0", 1, 1, "s1"])):
        node("index.Tensor",
             [("self", "cumsum"),
              ("indices", {"as_tensors": [{"name": "unsqueeze_3"},
                                          {"name": position}]})],
             name, shape)
    node("eq.Tensor", [("self", "index"), ("other", "index_1")], "eq", square,
         dtype=BOOL)
    node("bitwise_and.Tensor", [("self", "bitwise_and"), ("other", "eq")],
         "bitwise_and_1", square, dtype=BOOL)
    graph.outputs = ["bitwise_and_1"]
    return graph


def slice_symbolic_end():
    """positions [s0, s1 + 1] sliced [0, s1) on dim 1, as transformers'
    packed-sequence mask slices its positions: an end that is a SymInt."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64},
                               "s1": {"min_val": 2, "max_val": 1024}}
    symbolic_input(graph, "x", ["s0", "s1 + 1"])
    seq = operator(graph, "sub", sym_size(graph, "x", 1, "sym_size_int",
                                          "s1 + 1"), 1, "sub", "s1")
    symbolic_node(graph, "slice.Tensor",
                  [("self", "x"), ("dim", {"as_int": 1}),
                   ("start", {"as_int": 0}), ("end", sym_arg(seq))],
                  "slice_2", ["s0", "s1"], ["s1 + 1", 1])
    graph.outputs = ["slice_2"]
    return graph


def slice_static_dim():
    """w [16, 4] (a static dim) sliced [0, s0) by the batch of y [s0, 4], as
    a model slices a table of positions to the sequence: a static operand,
    a result of symbolic size."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 16}}
    symbolic_input(graph, "y", ["s0", 4])
    graph.buffer("w", "table", rand(random.Random(47), [16, 4]))
    rows = sym_size(graph, "y", 0, "sym_size_int", "s0")
    symbolic_node(graph, "slice.Tensor",
                  [("self", "w"), ("dim", {"as_int": 0}),
                   ("start", {"as_int": 0}), ("end", sym_arg(rows))],
                  "slice", ["s0", 4])
    symbolic_node(graph, "add.Tensor", [("self", "y"), ("other", "slice")],
                  "add", ["s0", 4])
    graph.outputs = ["add"]
    return graph


def slice_beyond_dim():
    """x [s0, 8] sliced [0, 4) on dim 0 where s0 may be below 4: PyTorch
    clamps the end, Stride's verifier refuses it for those values."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 16}}
    symbolic_input(graph, "x", ["s0", 8])
    symbolic_node(graph, "slice.Tensor",
                  [("self", "x"), ("dim", {"as_int": 0}),
                   ("start", {"as_int": 0}), ("end", {"as_int": 4})],
                  "slice", [4, 8])
    graph.outputs = ["slice"]
    return graph


def select_symbolic_index():
    """x [s0, 8, 8] selected at index s0 - 1 of dim 1: a builder that takes
    a static int given a SymInt whose value is symbolic."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 8}}
    symbolic_input(graph, "x", ["s0", 8, 8])
    last = operator(graph, "sub", sym_size(graph, "x", 0, "sym_size_int", "s0"),
                    1, "sub", "s0 - 1")
    symbolic_node(graph, "select.int",
                  [("self", "x"), ("dim", {"as_int": 1}), ("index", sym_arg(last))],
                  "select", ["s0", 8], [64, 1])
    graph.outputs = ["select"]
    return graph


def broadcast_mismatch():
    """x [s0, 4] + y [s1, 4] claimed as [s0, 4]: s1 is not s0 for every
    value, nor the constant 1, so it does not broadcast."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 8},
                               "s1": {"min_val": 1, "max_val": 8}}
    symbolic_input(graph, "x", ["s0", 4])
    symbolic_input(graph, "y", ["s1", 4])
    symbolic_node(graph, "add.Tensor", [("self", "x"), ("other", "y")], "add",
                  ["s0", 4])
    graph.outputs = ["add"]
    return graph


def assert_fails():
    """An _assert_scalar of s0 >= 100 over s0 in [1, 64]: false for every
    value."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64}}
    symbolic_input(graph, "x", ["s0", 8])
    size = sym_size(graph, "x", 0, "sym_size_int", "s0")
    graph.nodes.append({
        "target": "_operator.ge", "name": "ge", "metadata": {},
        "inputs": [{"name": "a", "arg": sym_arg(size), "kind": 1},
                   {"name": "b", "arg": {"as_int": 100}, "kind": 1}],
        "outputs": [{"as_sym_bool": {"as_name": "ge"}}]})
    graph.nodes.append({
        "target": "torch.ops.aten._assert_scalar.default",
        "name": "_assert_scalar", "metadata": {},
        "inputs": [{"name": "self", "arg": {"as_sym_bool": {"as_name": "ge"}},
                    "kind": 1},
                   {"name": "assert_msg",
                    "arg": {"as_string": "Runtime assertion failed for "
                                         "expression u0 >= 100"},
                    "kind": 1}],
        "outputs": []})
    symbolic_node(graph, "relu.default", [("self", "x")], "relu", ["s0", 8])
    graph.outputs = ["relu"]
    return graph


def sizes_overflow():
    """x [s0, 2^40, 2^40] (strides given): the product of its sizes, which
    the importer's row-major types need, overflows int64."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 8}}
    graph.inputs.append("x")
    graph.values["x"] = symbolic_meta(F32, ["s0", 2**40, 2**40], [0, 0, 1])
    symbolic_node(graph, "relu.default", [("self", "x")], "relu",
                  ["s0", 2**40, 2**40], [0, 0, 1])
    graph.outputs = ["relu"]
    return graph


def flip_batch():
    """flip over a dynamic batch: an op whose builder takes static sizes
    only, refused by name."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64}}
    symbolic_input(graph, "x", ["s0", 8])
    symbolic_node(graph, "flip.default", [("self", "x"), ("dims", {"as_ints": [0]})],
                  "flip", ["s0", 8])
    graph.outputs = ["flip"]
    return graph


def relu_of(shape, ranges):
    """x of `shape`, its ReLU; range_constraints `ranges`."""
    graph = Graph()
    graph.range_constraints = ranges
    symbolic_input(graph, "x", shape)
    symbolic_node(graph, "relu.default", [("self", "x")], "relu", shape)
    graph.outputs = ["relu"]
    return graph


def main():
    os.makedirs(OUT, exist_ok=True)
    write_archive(OUT, "mlp-batch", mlp_batch())
    write_archive(OUT, "view-batch-seq", view_batch_seq())
    write_archive(OUT, "transformer-block", transformer_block())
    write_archive(OUT, "llama-pieces", llama_pieces())
    write_archive(OUT, "fused-attention", fused_attention())
    write_archive(OUT, "floordiv-inexact", floordiv_inexact())
    write_archive(OUT, "flip-batch", flip_batch())
    write_archive(OUT, "sizes-overflow", sizes_overflow())
    write_archive(OUT, "slice-symbolic-end", slice_symbolic_end())
    write_archive(OUT, "mask-builder", mask_builder())
    write_archive(OUT, "mask-builder-positions",
                  mask_builder(positions_input=True))
    write_archive(OUT, "slice-static-dim", slice_static_dim())
    write_archive(OUT, "slice-beyond-dim", slice_beyond_dim())
    write_archive(OUT, "assert-fails", assert_fails())
    write_archive(OUT, "broadcast-mismatch", broadcast_mismatch())
    write_archive(OUT, "select-symbolic-index", select_symbolic_index())
    # Refused: an empty range, a range without a maximum, a symbol that
    # range_constraints does not bound, an expression Stride cannot read.
    write_archive(OUT, "empty-range",
                  relu_of(["s0", 8], {"s0": {"min_val": 8, "max_val": 4}}))
    write_archive(OUT, "no-max",
                  relu_of(["s0", 8], {"s0": {"min_val": 2, "max_val": None}}))
    write_archive(OUT, "unbounded",
                  relu_of(["s0", "s1"], {"s0": {"min_val": 1, "max_val": 8}}))
    write_archive(OUT, "unreadable",
                  relu_of(["floor(s0/2)", 8], {"s0": {"min_val": 2, "max_val": 8}}))


if __name__ == "__main__":
    main()
