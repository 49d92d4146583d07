#!/usr/bin/env python3
"""Writes the .pt2 archives of state.test into state/ beside this script:
graphs with mutated buffers and inputs, as torch.export records them after
run_decompositions (the mutation a functional op, its result an output of
kind buffer_mutation or user_input_mutation), written here by hand in the
export schema. For the decode step it also writes the inputs of several
steps and the outputs and caches computed here in float64 (rounded once to
f32), step after step with the caches carried between them: the folders
for `stride-run --expect` and `--state-in`.

Python's standard library only (no PyTorch, no NumPy). Run it again after
changing it and commit the files; the tests read the committed files.
"""

import copy
import os
import random

from pt2_writer import (F32, I64, Graph, Tensor, index, meta, numel, rand,
                        rounded, write_archive, write_npy)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "state")

B, H, S, D = 1, 2, 8, 4  # the caches: [B, H, S, D]
CACHE = [B, H, S, D]
NEW = [B, H, 1, D]        # one new position per step


def ints(x):
    return {"as_int": x}


def int_list(names):
    """An index list of index_put: tensor names, None for a whole dim."""
    return {"as_optional_tensors": [{"as_tensor": {"name": n}} if n else {"as_none": True}
                                    for n in names]}


def decode_inplace_graph(stored_v):
    """The decode step as a graph run_decompositions did not functionalize
    records it: index_put_ and index_copy_ write the caches in place, and
    the reads name the buffers, which hold the new values after them."""
    g = decode_graph(stored_v)
    g.nodes[0]["target"] = "torch.ops.aten.index_put_.default"
    g.nodes[1]["target"] = "torch.ops.aten.index_copy_.default"
    g.nodes[2]["inputs"][1]["arg"] = {"as_tensor": {"name": "b_k_cache"}}
    g.nodes[4]["inputs"][0]["arg"] = {"as_tensor": {"name": "b_v_cache"}}
    return g


def decode_graph(stored_v):
    """One decode step: the new key written at `pos` of k_cache by
    index_put(k_cache, [None, None, pos], k) (what index_copy_ decomposes
    to), the new value by index_copy(v_cache, 2, pos, v); the scores
    sum(q * k_cache, -1) [B, H, S] and sum(v_cache, 2) [B, H, D] read the
    updated caches."""
    g = Graph()
    g.buffer("b_k_cache", "k_cache", Tensor(CACHE, [0.0] * numel(CACHE)))
    g.buffer("b_v_cache", "v_cache", stored_v)
    g.input("pos", I64, [1])
    for name in ("q", "k", "v"):
        g.input(name, F32, NEW)
    g.node("index_put.default",
           [("self", "b_k_cache"), ("indices", int_list([None, None, "pos"])),
            ("values", "k")], [("index_put", F32, CACHE)])
    g.node("index_copy.default",
           [("self", "b_v_cache"), ("dim", ints(2)), ("index", "pos"),
            ("source", "v")], [("index_copy", F32, CACHE)])
    g.node("mul.Tensor", [("self", "q"), ("other", "index_put")],
           [("mul", F32, CACHE)])
    g.node("sum.dim_IntList", [("self", "mul"), ("dim", {"as_ints": [-1]})],
           [("scores", F32, [B, H, S])])
    g.node("sum.dim_IntList", [("self", "index_copy"), ("dim", {"as_ints": [2]})],
           [("v_sum", F32, [B, H, D])])
    g.outputs = ["index_put", "index_copy", "scores", "v_sum"]
    g.mutates("index_put", "buffer_mutation", "k_cache")
    g.mutates("index_copy", "buffer_mutation", "v_cache")
    return g


def step(k_cache, v_cache, pos, q, k, v):
    """The step in float64: the caches after it, the scores and v_sum."""
    k_cache, v_cache = copy.deepcopy(k_cache), copy.deepcopy(v_cache)
    for flat in range(numel(NEW)):
        b, h, _, d = index(NEW, flat)
        at = ((b * H + h) * S + pos) * D + d
        k_cache.values[at] = k.values[flat]
        v_cache.values[at] = v.values[flat]
    scores = Tensor([B, H, S], [sum(q[b, h, 0, d] * k_cache[b, h, s, d] for d in range(D))
                                for b in range(B) for h in range(H) for s in range(S)])
    v_sum = Tensor([B, H, D], [sum(v_cache[b, h, s, d] for s in range(S))
                               for b in range(B) for h in range(H) for d in range(D)])
    return k_cache, v_cache, rounded(scores), rounded(v_sum)


def case_decode(rng):
    """decode.pt2 and three steps at positions 0, 1 and 5: decode.stepN/
    holds the inputs (pos, q, k, v), expected/ the outputs and the caches
    after the step (state-out files, named after the buffers)."""
    stored_v = rand(rng, CACHE)
    write_archive(OUT, "decode", decode_graph(stored_v))
    write_archive(OUT, "decode-inplace", decode_inplace_graph(stored_v))
    k_cache, v_cache = Tensor(CACHE, [0.0] * numel(CACHE)), stored_v
    for n, pos in enumerate((0, 1, 5)):
        folder = os.path.join(OUT, f"decode.step{n}")
        os.makedirs(os.path.join(folder, "expected"), exist_ok=True)
        x = {"pos": Tensor([1], [pos], I64), "q": rand(rng, NEW),
             "k": rand(rng, NEW), "v": rand(rng, NEW)}
        for name, value in x.items():
            write_npy(os.path.join(folder, name + ".npy"), value)
        k_cache, v_cache, scores, v_sum = step(k_cache, v_cache, pos, x["q"], x["k"], x["v"])
        for name, value in (("scores", scores), ("v_sum", v_sum),
                            ("k_cache", k_cache), ("v_cache", v_cache)):
            write_npy(os.path.join(folder, "expected", name + ".npy"), value)


def case_input_mutation(rng):
    """input-mutation.pt2: x[idx] = rows (index_put on dim 0 of a user
    input, recorded as a user_input_mutation) and the sum of the new x."""
    g = Graph()
    g.input("x", F32, [4, 3])
    g.input("idx", I64, [2])
    g.input("rows", F32, [2, 3])
    g.node("index_put.default",
           [("self", "x"), ("indices", int_list(["idx"])), ("values", "rows")],
           [("index_put", F32, [4, 3])])
    g.node("sum.dim_IntList", [("self", "index_put"), ("dim", {"as_ints": [0]})],
           [("total", F32, [3])])
    g.outputs = ["index_put", "total"]
    g.mutates("index_put", "user_input_mutation", "x")
    write_archive(OUT, "input-mutation", g)
    x, rows = rand(rng, [4, 3]), rand(rng, [2, 3])
    idx = Tensor([2], [3, 1], I64)
    new = copy.deepcopy(x)
    for r in range(2):
        for c in range(3):
            new.values[idx.values[r] * 3 + c] = rows[r, c]
    total = Tensor([3], [sum(new[r, c] for r in range(4)) for c in range(3)])
    folder = os.path.join(OUT, "input-mutation.run")
    os.makedirs(os.path.join(folder, "expected"), exist_ok=True)
    for name, value in (("x", x), ("idx", idx), ("rows", rows)):
        write_npy(os.path.join(folder, name + ".npy"), value)
    write_npy(os.path.join(folder, "expected", "total.npy"), rounded(total))


def case_index_put_dims(rng):
    """index-put-dims.pt2: y = index_put(x, [None, i, j], v) into x of
    [2, 3, 4, 5]: two index tensors on dims 1 and 2 that broadcast ([2, 1]
    and [3]: positions [2, 3]), values [2, 3, 5] broadcast from [3, 5]."""
    shape = [2, 3, 4, 5]
    g = Graph()
    g.input("x", F32, shape)
    g.input("i", I64, [2, 1])
    g.input("j", I64, [3])
    g.input("v", F32, [3, 5])
    g.node("index_put.default",
           [("self", "x"), ("indices", int_list([None, "i", "j"])), ("values", "v")],
           [("y", F32, shape)])
    g.outputs = ["y"]
    write_archive(OUT, "index-put-dims", g)
    x, v = rand(rng, shape), rand(rng, [3, 5])
    i, j = Tensor([2, 1], [2, 0], I64), Tensor([3], [1, 3, 0], I64)
    y = copy.deepcopy(x)
    for a in range(2):
        for p in range(2):
            for q in range(3):
                for e in range(5):
                    y.values[((a * 3 + i[p, 0]) * 4 + j[q,]) * 5 + e] = v[q, e]
    folder = os.path.join(OUT, "index-put-dims.run")
    os.makedirs(os.path.join(folder, "expected"), exist_ok=True)
    for name, value in (("x", x), ("i", i), ("j", j), ("v", v)):
        write_npy(os.path.join(folder, name + ".npy"), value)
    write_npy(os.path.join(folder, "expected", "y.npy"), y)


def case_overlapping_write():
    """error-overlapping-write.pt2: a user input whose layout repeats dim 0
    (stride 0, as an expanded tensor's) mutated by copy: the in-place write
    would store 4 rows into the addresses of one."""
    g = Graph()
    g.input("x", F32, [4, 3])
    g.values["x"]["strides"] = [ints(0), ints(1)]
    g.input("src", F32, [4, 3])
    g.node("copy.default", [("self", "x"), ("src", "src")], [("copy", F32, [4, 3])])
    g.nodes[-1]["metadata"]["stack_trace"] = (
        'File "/home/user/model.py", line 7, in forward\n    self.x.copy_(src)')
    g.outputs = ["copy"]
    g.mutates("copy", "user_input_mutation", "x")
    write_archive(OUT, "error-overlapping-write", g)


def case_inplace_expand():
    """error-inplace-expand.pt2: copy_ into an expand of x [1, 4] to
    [3, 4]: the three rows of the view are one row of x."""
    g = Graph()
    g.input("x", F32, [1, 4])
    g.input("src", F32, [3, 4])
    g.node("expand.default", [("self", "x"), ("size", {"as_ints": [3, 4]})],
           [("expand", F32, [3, 4])])
    g.values["expand"]["strides"] = [ints(0), ints(1)]
    g.node("copy_.default", [("self", "expand"), ("src", "src")],
           [("copy_", F32, [3, 4])])
    g.nodes[-1]["metadata"]["stack_trace"] = (
        'File "/home/user/model.py", line 9, in forward\n    x.expand(3, 4).copy_(src)')
    g.outputs = ["copy_"]
    write_archive(OUT, "error-inplace-expand", g)


def case_bad_specs():
    """Archives whose output specs Stride refuses: a parameter mutation, a
    buffer mutation of an input that is no buffer."""
    g = Graph()
    g.input("x", F32, [4])
    g.node("neg.default", [("self", "x")], [("neg", F32, [4])])
    g.outputs = ["neg"]
    g.output_specs["neg"] = {"parameter_mutation": {"arg": {"name": "neg"},
                                                    "parameter_name": "w"}}
    write_archive(OUT, "error-parameter-mutation", g)
    g.output_specs = {}
    g.mutates("neg", "buffer_mutation", "x")
    write_archive(OUT, "error-mutates-no-buffer", g)


def case_index_put_apart():
    """error-index-put-apart.pt2: index tensors on dims 0 and 2 with a
    whole dim between them (PyTorch moves the broadcast dims first)."""
    g = Graph()
    g.input("x", F32, [3, 4, 5])
    g.input("i", I64, [2])
    g.input("v", F32, [2, 4])
    g.node("index_put.default",
           [("self", "x"), ("indices", int_list(["i", None, "i"])), ("values", "v")],
           [("y", F32, [3, 4, 5])])
    g.outputs = ["y"]
    write_archive(OUT, "error-index-put-apart", g)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(40)
    case_decode(rng)
    case_input_mutation(rng)
    case_index_put_dims(rng)
    case_overlapping_write()
    case_bad_specs()
    case_index_put_apart()
    case_inplace_expand()


if __name__ == "__main__":
    main()
