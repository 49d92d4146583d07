#!/usr/bin/env python3
"""Writes the archives of collectives.test into collectives/ beside this
script: the two rank programs of a 2-way tensor-parallel MLP as
torch.export records them (PyTorch's functional collectives,
torch.ops._c10d_functional.*), by hand in the export schema (pt2_writer.py).

Rank r holds columns r*4 .. r*4+3 of the up projection W1 [8, 8] and the
same rows of the down projection W2 [8, 8] (Megatron's column- and
row-parallel split) and computes

  h_r  = relu(x @ W1[:, cols_r])                     [4, 4]
  p_r  = h_r @ W2[cols_r, :]                         [4, 8]  (a partial sum)
  y    = wait_tensor(all_reduce(p_r, "sum", "tp"))   [4, 8]  = relu(x @ W1) @ W2
  g    = wait_tensor(all_gather_into_tensor(h_r, 2, "tp"))   [8, 4]
  s    = wait_tensor(reduce_scatter_tensor(p_r, "sum", 2, "tp"))  [2, 8]
  m    = wait_tensor(all_reduce(h_r, "max", "tp"))   [4, 4]

product.pt2 is an all_reduce by product, which Stride refuses.

The expected outputs (rank r's: collectives/expected/rank<r>/, as stride-run --expect reads them) are computed
here from the unsplit weights in float64, rounded once to f32. Python's
standard library only; run it again after changing it and commit the files.
"""

import os
import random

from pt2_writer import F32, Graph, Tensor, rand, rounded
import pt2_writer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collectives")
RANKS, HIDDEN, INNER, ROWS = 2, 8, 8, 4
PART = INNER // RANKS


def matmul(a, b):
    m, k = a.shape
    n = b.shape[1]
    return Tensor([m, n], [sum(a[i, c] * b[c, j] for c in range(k))
                           for i in range(m) for j in range(n)])


def relu(a):
    return Tensor(a.shape, [max(v, 0.0) for v in a.values])


def columns(a, start, end):
    return Tensor([a.shape[0], end - start],
                  [a[i, j] for i in range(a.shape[0]) for j in range(start, end)])


def rows(a, start, end):
    return Tensor([end - start, a.shape[1]],
                  [a[i, j] for i in range(start, end) for j in range(a.shape[1])])


def combine(ts, fn):
    return Tensor(ts[0].shape, [fn(vs) for vs in zip(*(t.values for t in ts))])


def concat_rows(ts):
    return Tensor([sum(t.shape[0] for t in ts), ts[0].shape[1]],
                  [v for t in ts for v in t.values])


def rank_graph(w1, w2):
    g = Graph()
    g.input("x", F32, [ROWS, HIDDEN])
    g.buffer("w1", "up.weight", w1)
    g.buffer("w2", "down.weight", w2)
    g.node("mm.default", [("self", "x"), ("mat2", "w1")], [("mm", F32, [ROWS, PART])])
    g.node("relu.default", [("self", "mm")], [("h", F32, [ROWS, PART])])
    g.node("mm.default", [("self", "h"), ("mat2", "w2")], [("p", F32, [ROWS, HIDDEN])])
    c10d = "_c10d_functional"
    text = lambda s: {"as_string": s}
    g.node("all_reduce.default", [("input", "p"), ("reduce_op", text("sum")),
                                  ("group_name", text("tp"))],
           [("ar", F32, [ROWS, HIDDEN])], c10d)
    g.node("wait_tensor.default", [("tensor", "ar")], [("y", F32, [ROWS, HIDDEN])], c10d)
    g.node("all_gather_into_tensor.default",
           [("input", "h"), ("group_size", {"as_int": RANKS}), ("group_name", text("tp"))],
           [("ag", F32, [ROWS * RANKS, PART])], c10d)
    g.node("wait_tensor.default", [("tensor", "ag")], [("g", F32, [ROWS * RANKS, PART])], c10d)
    g.node("reduce_scatter_tensor.default",
           [("input", "p"), ("reduce_op", text("sum")), ("group_size", {"as_int": RANKS}),
            ("group_name", text("tp"))],
           [("rs", F32, [ROWS // RANKS, HIDDEN])], c10d)
    g.node("wait_tensor.default", [("tensor", "rs")], [("s", F32, [ROWS // RANKS, HIDDEN])], c10d)
    g.node("all_reduce.default", [("input", "h"), ("reduce_op", text("max")),
                                  ("group_name", text("tp"))],
           [("am", F32, [ROWS, PART])], c10d)
    g.node("wait_tensor.default", [("tensor", "am")], [("m", F32, [ROWS, PART])], c10d)
    g.outputs = ["y", "g", "s", "m"]
    return g


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(43)
    x, w1, w2 = rand(rng, [ROWS, HIDDEN]), rand(rng, [HIDDEN, INNER]), rand(rng, [INNER, HIDDEN])
    pt2_writer.write_npy(os.path.join(OUT, "x.npy"), x)
    y = matmul(relu(matmul(x, w1)), w2)
    hs = [relu(matmul(x, columns(w1, r * PART, (r + 1) * PART))) for r in range(RANKS)]
    ps = [matmul(hs[r], rows(w2, r * PART, (r + 1) * PART)) for r in range(RANKS)]
    g = concat_rows(hs)
    total = combine(ps, sum)
    m = combine(hs, max)
    for r in range(RANKS):
        graph = rank_graph(columns(w1, r * PART, (r + 1) * PART),
                           rows(w2, r * PART, (r + 1) * PART))
        pt2_writer.write_archive(OUT, f"rank{r}", graph)
        folder = os.path.join(OUT, "expected", f"rank{r}")
        os.makedirs(folder, exist_ok=True)
        for name, value in {
            "y": rounded(y), "g": rounded(g), "m": rounded(m),
                "s": rounded(rows(total, r * (ROWS // RANKS), (r + 1) * (ROWS // RANKS)))}.items():
            pt2_writer.write_npy(os.path.join(folder, name + ".npy"), value)
    product = Graph()
    product.input("x", F32, [ROWS, HIDDEN])
    product.node("all_reduce.default", [("input", "x"), ("reduce_op", {"as_string": "product"}),
                                        ("group_name", {"as_string": "tp"})],
                 [("y", F32, [ROWS, HIDDEN])], "_c10d_functional")
    product.outputs = ["y"]
    pt2_writer.write_archive(OUT, "product", product)


if __name__ == "__main__":
    main()
