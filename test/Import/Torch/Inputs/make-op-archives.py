#!/usr/bin/env python3
"""Writes the small .pt2 archives of ops.test into ops/ beside this script,
by hand in the export schema (pt2_writer.py): forms that transformers' and
AOTAutograd's graphs take and that PyTorch cannot make here (issue 42):

  size-one-view  the view of a LLaMA forward with one key/value head at
                 batch 1, whose size-1 dims the archive gives other strides
                 than Stride's view rule;
  cat-empty      PyTorch's legacy cat, which skips 1-D inputs of size 0
                 (GPT2Model's default cache);
  reciprocal     aten.reciprocal on floats and integers;
  none-outputs   a backward graph whose outputs include None (the gradients
                 of inputs that need none).

Each writes its inputs (NAME.INPUT.npy) and the outputs computed here in
float64 (NAME.expected/OUTPUT.npy, rounded once to f32), for `stride-run
--expect`. Python's standard library only. Run it again after changing it
and commit the files; the tests read the committed files.
"""

import functools
import os
import random

from pt2_writer import BOOL, F32, I64, Graph, Tensor, rand, rounded
import pt2_writer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops")
write_archive = functools.partial(pt2_writer.write_archive, OUT)
write_case = functools.partial(pt2_writer.write_case, OUT)


def floats(x):
    return {"as_float": x}


def ints(x):
    return {"as_ints": x}


def graph_of(inputs):
    graph = Graph()
    for name, value in inputs.items():
        graph.input(name, value.dtype, value.shape)
    return graph


def case_size_one_view(rng):
    """repeat_kv of one key/value head at batch 1: x[:, :, None]
    .expand(1, 1, 2, 8, 16).reshape(1, 2, 8, 16), with the strides PyTorch
    gives the size-1 dims (128 where Stride's rule computes 0), then times
    2; an alias and a comparison whose file layouts differ from Stride's in
    size-1 dims only."""
    x = {"x": rand(rng, [1, 1, 8, 16])}
    graph = graph_of(x)
    graph.node("unsqueeze.default", [("self", "x"), ("dim", {"as_int": 2})],
               [("unsqueeze", F32, [1, 1, 1, 8, 16])])
    graph.claim("unsqueeze", [128, 128, 128, 16, 1])
    graph.node("expand.default", [("self", "unsqueeze"), ("size", ints([1, 1, 2, 8, 16]))],
               [("expand", F32, [1, 1, 2, 8, 16])])
    graph.claim("expand", [128, 128, 0, 16, 1])
    graph.node("view.default", [("self", "expand"), ("size", ints([1, 2, 8, 16]))],
               [("view_12", F32, [1, 2, 8, 16])])
    graph.claim("view_12", [128, 0, 16, 1])
    graph.node("mul.Tensor", [("self", "view_12"), ("other", floats(2.0))],
               [("mul", F32, [1, 2, 8, 16])])
    graph.node("alias.default", [("self", "x")], [("alias", F32, [1, 1, 8, 16])])
    graph.claim("alias", [7, 5, 16, 1])
    graph.node("gt.Scalar", [("self", "alias"), ("other", floats(0.0))],
               [("gt", BOOL, [1, 1, 8, 16])])
    graph.claim("gt", [1, 1, 16, 1])
    graph.outputs = ["mul", "gt"]
    doubled = [2 * v for v in x["x"].values]
    write_case("size-one-view", graph, x, {
        "mul": rounded(Tensor([1, 2, 8, 16], doubled + doubled)),
        "gt": Tensor([1, 1, 8, 16], [v > 0 for v in x["x"].values], BOOL)})


def case_cat_empty(rng):
    """GPT2Model's cache: cat([past, k], dim=-2) with past an empty 1-D
    tensor, skipped as PyTorch skips it; an empty 1-D input between two
    others; and a cat of rank 1, where an empty input is an ordinary one."""
    x = {"k": rand(rng, [1, 2, 3, 4]), "a": rand(rng, [2])}
    graph = graph_of(x)
    graph.node("zeros.default", [("size", ints([0]))], [("past", F32, [0])])
    graph.node("cat.default", [("tensors", {"as_tensors": [{"name": "past"}, {"name": "k"}]}),
                               ("dim", {"as_int": -2})],
               [("cat", F32, [1, 2, 3, 4])])
    graph.node("cat.default", [("tensors", {"as_tensors": [{"name": "k"}, {"name": "past"},
                                                          {"name": "k"}]}),
                               ("dim", {"as_int": 1})],
               [("cat_1", F32, [1, 4, 3, 4])])
    graph.node("cat.default", [("tensors", {"as_tensors": [{"name": "a"}, {"name": "past"},
                                                          {"name": "a"}]})],
               [("cat_2", F32, [4])])
    graph.outputs = ["cat", "cat_1", "cat_2"]
    k, a = x["k"].values, x["a"].values
    write_case("cat-empty", graph, x, {
        "cat": rounded(x["k"]), "cat_1": rounded(Tensor([1, 4, 3, 4], k + k)),
        "cat_2": rounded(Tensor([4], a + a))})


def case_reciprocal(rng):
    """reciprocal of f32 (its values away from 0) and of int64 (an f32
    result, as PyTorch promotes it)."""
    x = {"x": Tensor([2, 3], [0.5, -0.25, 3.0, -7.125, 0.1, 1e-3]),
         "n": Tensor([3], [1, -2, 3], I64)}
    graph = graph_of(x)
    graph.node("reciprocal.default", [("self", "x")], [("reciprocal", F32, [2, 3])])
    graph.node("reciprocal.default", [("self", "n")], [("reciprocal_1", F32, [3])])
    graph.outputs = ["reciprocal", "reciprocal_1"]
    inverse = lambda t: rounded(Tensor(t.shape, [1 / pt2_writer.f32(v) for v in t.values]))
    write_case("reciprocal", graph, x, {"reciprocal": inverse(x["x"]),
                                        "reciprocal_1": inverse(x["n"])})


def case_none_outputs(rng):
    """A backward graph's outputs: None for the first and last inputs'
    gradients, a tensor between them."""
    x = {"tangent": rand(rng, [2, 3])}
    graph = graph_of(x)
    graph.node("mul.Tensor", [("self", "tangent"), ("other", floats(3.0))],
               [("mul", F32, [2, 3])])
    graph.outputs = [None, "mul", None]
    write_case("none-outputs", graph, x, {
        "mul": rounded(Tensor([2, 3], [3 * v for v in x["tangent"].values]))})


def errors():
    """A cat whose every input is an empty 1-D tensor, but whose result has
    rank 2; a graph output that is an int."""
    graph = Graph()
    graph.node("zeros.default", [("size", ints([0]))], [("past", F32, [0])])
    graph.node("cat.default", [("tensors", {"as_tensors": [{"name": "past"}, {"name": "past"}]})],
               [("cat", F32, [0, 3])])
    graph.outputs = ["cat"]
    write_archive("error-cat-all-empty", graph)
    graph = Graph()
    graph.node("zeros.default", [("size", ints([2]))], [("zeros", F32, [2])])
    graph.outputs = ["zeros", {"as_int": 3}]
    write_archive("error-int-output", graph)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(42)
    for case in (case_size_one_view, case_cat_empty, case_reciprocal, case_none_outputs):
        case(rng)
    errors()


if __name__ == "__main__":
    main()
