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

from pt2_writer import F32, Graph, rand, symbolic_meta, t, write_archive

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


def cumsum_batch():
    """cumsum over a dynamic batch: an op whose builder takes static sizes
    only, refused by name."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64}}
    symbolic_input(graph, "x", ["s0", 8])
    symbolic_node(graph, "cumsum.default", [("self", "x"), ("dim", {"as_int": 0})],
                  "cumsum", ["s0", 8])
    graph.outputs = ["cumsum"]
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
    write_archive(OUT, "floordiv-inexact", floordiv_inexact())
    write_archive(OUT, "cumsum-batch", cumsum_batch())
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
