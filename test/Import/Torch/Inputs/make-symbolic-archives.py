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


def mlp_batch():
    """A linear layer and a ReLU over a dynamic batch: x [s0, 64]."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 1024}}
    symbolic_input(graph, "x", ["s0", 64])
    rng = random.Random(44)
    graph.buffer("w", "fc.weight", rand(rng, [32, 64]))
    graph.buffer("b", "fc.bias", rand(rng, [32]))
    graph.node("permute.default", [("self", "w"), ("dims", {"as_ints": [1, 0]})],
               [("permute", F32, [64, 32], [1, 0])])
    symbolic_node(graph, "addmm.default",
                  [("self", "b"), ("mat1", "x"), ("mat2", "permute")],
                  "addmm", ["s0", 32])
    symbolic_node(graph, "relu.default", [("self", "addmm")], "relu", ["s0", 32])
    graph.outputs = ["relu"]
    return graph


def view_batch_seq():
    """x [s0, s1, 64] viewed as [s0*s1, 64], a ReLU, and viewed back: the
    view's size argument names the SymInts of the product (which no node
    here computes: Stride's view reads its result type only)."""
    graph = Graph()
    graph.range_constraints = {"s0": {"min_val": 1, "max_val": 64},
                               "s1": {"min_val": 1, "max_val": 4096}}
    symbolic_input(graph, "x", ["s0", "s1", 64])
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
