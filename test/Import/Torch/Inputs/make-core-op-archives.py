#!/usr/bin/env python3
"""Writes the small .pt2 archives of core-ops.test into ops/ beside this
script, by hand in the export schema (pt2_writer.py): the rest of PyTorch's
core ATen set (issue 42), which make-op-archives.py's cases do not cover:

  scatter-reduce  scatter_reduce.two (sum, mean, amax, amin, prod; with
                  and without include_self; duplicate indices),
                  masked_scatter (a broadcast mask), atan2.out,
                  native_dropout in inference;
  pool3d          avg_pool3d, max_pool3d_with_indices (dilation, padding),
                  _adaptive_avg_pool2d (sizes the output does not divide),
                  _adaptive_avg_pool3d;
  pool-backward   avg_pool2d_backward (ceil_mode, count_include_pad=False,
                  padding; divisor_override), _adaptive_avg_pool2d_backward,
                  max_pool2d_with_indices_backward (shared indices);
  distance        _cdist_forward (p 2, 1, inf, 0, 3; broadcast batch),
                  _pdist_forward (p 2 and 1.5);
  grid-sample     grid_sampler_2d (bilinear and nearest; zeros and border
                  padding; align_corners either way; points outside);
  embedding-bag-max  _embedding_bag in mode max (an empty bag, ties, a bag
                  of padding only) and padding_idx in modes sum, mean, max;
  sym-ints        sym_numel and sym_storage_offset, whose static SymInts
                  later nodes read (a view's size, a select's index);

and the archives of their refusals (error-*.pt2). Each case writes its
inputs (NAME.INPUT.npy) and the outputs computed here in float64
(NAME.expected/OUTPUT.npy, rounded once to f32). Python's standard library
only. Run it again after changing it and commit the files.
"""

import functools
import itertools
import math
import os
import random

from pt2_writer import BOOL, F32, I64, Graph, Tensor, graph_of, ints, numel, rand, rounded
import pt2_writer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops")
write_archive = functools.partial(pt2_writer.write_archive, OUT)
write_case = functools.partial(pt2_writer.write_case, OUT)
f32 = pt2_writer.f32


def integer(x):
    return {"as_int": x}


def boolean(x):
    return {"as_bool": x}


def positions(shape):
    return itertools.product(*[range(s) for s in shape])


def flat_of(shape, idx):
    flat = 0
    for i, size in zip(idx, shape):
        flat = flat * size + i
    return flat


# ----------------------------------------------------------------------------
# scatter_reduce, masked_scatter, atan2.out, native_dropout


def scatter_reduce_ref(self, index, src, reduce, include_self):
    """Along dim 0."""
    out = [f32(v) for v in self.values]
    groups = {}
    for i, j in positions(index.shape):
        target = flat_of(self.shape, (index[i, j], j))
        groups.setdefault(target, []).append(f32(src[i, j]))
    for target, values in groups.items():
        values = values + ([out[target]] if include_self else [])
        if reduce == "sum":
            out[target] = sum(values)
        elif reduce == "mean":
            out[target] = sum(values) / len(values)
        elif reduce == "prod":
            out[target] = math.prod(values)
        elif reduce == "amax":
            out[target] = max(values)
        else:
            out[target] = min(values)
    return rounded(Tensor(self.shape, out))


def case_scatter_reduce(rng):
    """scatter_reduce.two along dim 0 of self [3, 4] with an index [2, 4]
    that names some targets twice and others never, from src [2, 5]
    (wider than the index); masked_scatter of self [2, 3, 4] under a mask
    [3, 4]; atan2.out into an input; native_dropout with train=False."""
    index = Tensor([2, 4], [0, 2, 2, 1, 0, 2, 0, 1], I64)
    x = {"self": rand(rng, [3, 4]), "index": index, "src": rand(rng, [2, 5]),
         "base": rand(rng, [2, 3, 4]),
         "mask": Tensor([3, 4], [rng.random() < 0.5 for _ in range(12)], BOOL),
         "source": rand(rng, [30]), "a": rand(rng, [2, 3]), "b": rand(rng, [2, 3]),
         "out": rand(rng, [2, 3])}
    graph = graph_of(x)
    cases = [("sum", True), ("mean", False), ("amax", True), ("amin", False),
             ("prod", True), ("amax", False)]
    names = []
    for k, (reduce, include_self) in enumerate(cases):
        name = f"{reduce}_{k}"
        graph.node("scatter_reduce.two",
                   [("self", "self"), ("dim", integer(0)), ("index", "index"),
                    ("src", "src"), ("reduce", {"as_string": reduce}),
                    ("include_self", boolean(include_self))],
                   [(name, F32, [3, 4])])
        names.append(name)
    graph.node("masked_scatter.default",
               [("self", "base"), ("mask", "mask"), ("source", "source")],
               [("masked", F32, [2, 3, 4])])
    graph.node("atan2.out", [("self", "a"), ("other", "b"), ("out", "out")],
               [("atan2", F32, [2, 3])])
    graph.node("native_dropout.default",
               [("input", "a"), ("p", {"as_float": 0.5}), ("train", boolean(False))],
               [("dropout", F32, [2, 3]), ("dropout_mask", BOOL, [2, 3])])
    graph.outputs = names + ["masked", "atan2", "dropout", "dropout_mask"]
    expected = {name: scatter_reduce_ref(x["self"], index, x["src"], reduce, include_self)
                for name, (reduce, include_self) in zip(names, cases)}
    taken, masked = 0, []
    for b, i, j in positions([2, 3, 4]):
        if x["mask"][i, j]:
            masked.append(x["source"].values[taken])
            taken += 1
        else:
            masked.append(x["base"][b, i, j])
    expected["masked"] = rounded(Tensor([2, 3, 4], masked))
    expected["atan2"] = rounded(Tensor([2, 3], [math.atan2(f32(u), f32(v)) for u, v in
                                                zip(x["a"].values, x["b"].values)]))
    expected["dropout"] = rounded(x["a"])
    expected["dropout_mask"] = Tensor([2, 3], [True] * 6, BOOL)
    write_case("scatter-reduce", graph, x, expected)


# ----------------------------------------------------------------------------
# Pooling


def windows_of(size, out, k, s, p, d=1):
    """Each output cell's input positions along one dim (in range)."""
    return [[o * s - p + i * d for i in range(k) if 0 <= o * s - p + i * d < size]
            for o in range(out)]


def pool_nd(x, spatial, kernel, stride, padding, dilation, mode):
    """avg (count_include_pad), avg_exclusive (count_include_pad=False: the
    mean of the input elements the window covers) or max (with the index in
    the volume)."""
    lead, dims = x.shape[:-spatial], x.shape[-spatial:]
    outs = [(dims[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
            for i in range(spatial)]
    wins = [windows_of(dims[i], outs[i], kernel[i], stride[i], padding[i], dilation[i])
            for i in range(spatial)]
    values, indices = [], []
    for l in positions(lead):
        for o in positions(outs):
            cells = list(itertools.product(*[wins[i][o[i]] for i in range(spatial)]))
            got = [f32(x[l + c]) for c in cells]
            if mode == "avg":
                values.append(sum(got) / math.prod(kernel))
            elif mode == "avg_exclusive":
                values.append(sum(got) / len(got))
            else:
                best = max(range(len(got)), key=lambda i: (got[i], -i))
                values.append(got[best])
                indices.append(flat_of(dims, cells[best]))
    shape = list(lead) + outs
    return rounded(Tensor(shape, values)), Tensor(shape, indices or [0] * len(values), I64)


def adaptive_windows(size, out):
    return [list(range(o * size // out, -((-(o + 1) * size) // out))) for o in range(out)]


def adaptive_nd(x, out):
    spatial = len(out)
    lead, dims = x.shape[:-spatial], x.shape[-spatial:]
    wins = [adaptive_windows(dims[i], out[i]) for i in range(spatial)]
    values = []
    for l in positions(lead):
        for o in positions(out):
            cells = list(itertools.product(*[wins[i][o[i]] for i in range(spatial)]))
            values.append(sum(f32(x[l + c]) for c in cells) / len(cells))
    return rounded(Tensor(list(lead) + list(out), values))


def case_pool3d(rng):
    """avg_pool3d with padding, max_pool3d_with_indices with dilation and
    padding, _adaptive_avg_pool3d and _adaptive_avg_pool2d to sizes the
    input's do not divide, avg_pool2d with padding and
    count_include_pad=False (the border windows divide by fewer)."""
    x = {"x": rand(rng, [1, 2, 4, 5, 6]), "y": rand(rng, [2, 3, 7, 5])}
    graph = graph_of(x)
    graph.node("avg_pool3d.default",
               [("self", "x"), ("kernel_size", ints([2, 2, 3])), ("stride", ints([2, 1, 2])),
                ("padding", ints([1, 0, 1]))],
               [("avg3", F32, [1, 2, 3, 4, 3])])
    graph.node("max_pool3d_with_indices.default",
               [("self", "x"), ("kernel_size", ints([2, 3, 2])), ("stride", ints([1, 2, 2])),
                ("padding", ints([0, 1, 1])), ("dilation", ints([2, 1, 1]))],
               [("max3", F32, [1, 2, 2, 3, 4]), ("max3_index", I64, [1, 2, 2, 3, 4])])
    graph.node("_adaptive_avg_pool3d.default", [("self", "x"), ("output_size", ints([3, 2, 4]))],
               [("adaptive3", F32, [1, 2, 3, 2, 4])])
    graph.node("_adaptive_avg_pool2d.default", [("self", "y"), ("output_size", ints([3, 4]))],
               [("adaptive2", F32, [2, 3, 3, 4])])
    graph.node("avg_pool2d.default",
               [("self", "y"), ("kernel_size", ints([3, 2])), ("stride", ints([2, 2])),
                ("padding", ints([1, 1])), ("ceil_mode", boolean(False)),
                ("count_include_pad", boolean(False))],
               [("avg2_exclusive", F32, [2, 3, 4, 3])])
    graph.outputs = ["avg3", "max3", "max3_index", "adaptive3", "adaptive2", "avg2_exclusive"]
    avg, _ = pool_nd(x["x"], 3, [2, 2, 3], [2, 1, 2], [1, 0, 1], [1, 1, 1], "avg")
    exclusive, _ = pool_nd(x["y"], 2, [3, 2], [2, 2], [1, 1], [1, 1], "avg_exclusive")
    mx, index = pool_nd(x["x"], 3, [2, 3, 2], [1, 2, 2], [0, 1, 1], [2, 1, 1], "max")
    write_case("pool3d", graph, x, {
        "avg3": avg, "max3": mx, "max3_index": index,
        "adaptive3": adaptive_nd(x["x"], [3, 2, 4]), "adaptive2": adaptive_nd(x["y"], [3, 4]),
        "avg2_exclusive": exclusive})


def avg_backward_ref(grad, in_shape, k, s, p, ceil, include_pad, divisor=None):
    """PyTorch's avg_pool2d windows and divisors, each gradient spread."""
    out = [0.0] * numel(in_shape)
    h, w = in_shape[-2:]
    oh, ow = grad.shape[-2:]
    for l in positions(grad.shape[:-2]):
        for i, j in positions([oh, ow]):
            hs, ws = i * s[0] - p[0], j * s[1] - p[1]
            he, we = min(hs + k[0], h + p[0]), min(ws + k[1], w + p[1])
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            by = divisor or (size if include_pad else (he - hs) * (we - ws))
            g = f32(grad[l + (i, j)]) / by
            for a, b in positions([he - hs, we - ws]):
                out[flat_of(in_shape, l + (hs + a, ws + b))] += g
    return rounded(Tensor(in_shape, out))


def case_pool_backward(rng):
    """avg_pool2d_backward with ceil_mode (a partial last window), padding
    and count_include_pad=False, and with divisor_override;
    _adaptive_avg_pool2d_backward; max_pool2d_with_indices_backward whose
    indices name some input elements twice."""
    indices = Tensor([2, 3, 3, 3], [rng.randrange(42) for _ in range(54)], I64)
    x = {"self": rand(rng, [2, 3, 7, 6]), "grad": rand(rng, [2, 3, 4, 4]),
         "grad3": rand(rng, [2, 3, 3, 3]), "grad_adaptive": rand(rng, [2, 3, 3, 4]),
         "indices": indices}
    graph = graph_of(x)
    graph.node("avg_pool2d_backward.default",
               [("grad_output", "grad"), ("self", "self"), ("kernel_size", ints([3, 2])),
                ("stride", ints([2, 2])), ("padding", ints([1, 1])),
                ("ceil_mode", boolean(True)), ("count_include_pad", boolean(False)),
                ("divisor_override", None)],
               [("avg_grad", F32, [2, 3, 7, 6])])
    graph.node("avg_pool2d_backward.default",
               [("grad_output", "grad3"), ("self", "self"), ("kernel_size", ints([2])),
                ("stride", ints([2])), ("padding", ints([0])),
                ("ceil_mode", boolean(False)), ("count_include_pad", boolean(True)),
                ("divisor_override", integer(5))],
               [("avg_grad_override", F32, [2, 3, 7, 6])])
    graph.node("_adaptive_avg_pool2d_backward.default",
               [("grad_output", "grad_adaptive"), ("self", "self")],
               [("adaptive_grad", F32, [2, 3, 7, 6])])
    graph.node("max_pool2d_with_indices_backward.default",
               [("grad_output", "grad3"), ("self", "self"), ("kernel_size", ints([2])),
                ("stride", ints([2])), ("padding", ints([0])), ("dilation", ints([1])),
                ("ceil_mode", boolean(False)), ("indices", "indices")],
               [("max_grad", F32, [2, 3, 7, 6])])
    graph.outputs = ["avg_grad", "avg_grad_override", "adaptive_grad", "max_grad"]
    shape = [2, 3, 7, 6]
    adaptive = [0.0] * numel(shape)
    wins = [adaptive_windows(7, 3), adaptive_windows(6, 4)]
    grad = x["grad_adaptive"]
    for l in positions([2, 3]):
        for i, j in positions([3, 4]):
            cells = list(itertools.product(wins[0][i], wins[1][j]))
            for c in cells:
                adaptive[flat_of(shape, l + c)] += f32(grad[l + (i, j)]) / len(cells)
    maxed = [0.0] * numel(shape)
    for l in positions([2, 3]):
        for i, j in positions([3, 3]):
            at = indices[l + (i, j)]
            maxed[flat_of(shape, l + (at // 6, at % 6))] += f32(x["grad3"][l + (i, j)])
    write_case("pool-backward", graph, x, {
        "avg_grad": avg_backward_ref(x["grad"], shape, [3, 2], [2, 2], [1, 1], True, False),
        "avg_grad_override": avg_backward_ref(x["grad3"], shape, [2, 2], [2, 2], [0, 0],
                                              False, True, 5),
        "adaptive_grad": rounded(Tensor(shape, adaptive)),
        "max_grad": rounded(Tensor(shape, maxed))})


# ----------------------------------------------------------------------------
# Distances and grid sampling


def norm(diffs, p):
    diffs = [abs(d) for d in diffs]
    if p == math.inf:
        return max(diffs)
    if p == 0:
        return float(sum(1 for d in diffs if d != 0))
    return sum(d ** p for d in diffs) ** (1 / p)


def case_distance(rng):
    """_cdist_forward of x1 [2, 3, 4] against x2 [2, 5, 4] (p 2, 1, inf,
    0: x2 shares some elements with x1) and against x3 [5, 4] (p 3, the
    batch broadcast); _pdist_forward of [5, 3] (p 2 and 1.5)."""
    x1 = rand(rng, [2, 3, 4])
    x2 = rand(rng, [2, 5, 4])
    for i in range(0, 40, 3):  # equal elements, for p 0
        x2.values[i] = x1.values[i % 24]
    x = {"x1": x1, "x2": x2, "x3": rand(rng, [5, 4]), "rows": rand(rng, [5, 3])}
    graph = graph_of(x)
    outputs, expected = [], {}
    for p, other in ((2.0, "x2"), (1.0, "x2"), (math.inf, "x2"), (0.0, "x2"), (3.0, "x3")):
        name = f"cdist_{len(outputs)}"
        graph.node("_cdist_forward.default",
                   [("x1", "x1"), ("x2", other),
                    ("p", {"as_float": "Infinity" if p == math.inf else p}),
                    ("compute_mode", None)],
                   [(name, F32, [2, 3, 5])])
        outputs.append(name)
        y = x[other]
        values = []
        for b, i, j in positions([2, 3, 5]):
            row = y.values[(b * 5 + j) * 4:(b * 5 + j + 1) * 4] if other == "x2" else \
                y.values[j * 4:(j + 1) * 4]
            values.append(norm([f32(x1[b, i, m]) - f32(row[m]) for m in range(4)], p))
        expected[name] = rounded(Tensor([2, 3, 5], values))
    for p in (2.0, 1.5):
        name = f"pdist_{len(outputs)}"
        graph.node("_pdist_forward.default", [("self", "rows"), ("p", {"as_float": p})],
                   [(name, F32, [10])])
        outputs.append(name)
        r = x["rows"]
        expected[name] = rounded(Tensor([10], [
            norm([f32(r[i, m]) - f32(r[j, m]) for m in range(3)], p)
            for i in range(5) for j in range(i + 1, 5)]))
    graph.outputs = outputs
    write_case("distance", graph, x, expected)


def grid_sample_ref(image, grid, mode, padding, align):
    n, c, h, w = image.shape
    _, ho, wo, _ = grid.shape

    def unnormalize(g, size):
        v = (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2
        return min(max(v, 0), size - 1) if padding == 1 else v

    def pixel(b, ch, yy, xx):
        return f32(image[b, ch, yy, xx]) if 0 <= yy < h and 0 <= xx < w else 0.0
    out = []
    for b, ch, i, j in positions([n, c, ho, wo]):
        gx = unnormalize(f32(grid[b, i, j, 0]), w)
        gy = unnormalize(f32(grid[b, i, j, 1]), h)
        if mode == 1:
            out.append(pixel(b, ch, round(gy), round(gx)))
            continue
        x0, y0 = math.floor(gx), math.floor(gy)
        dx, dy = gx - x0, gy - y0
        out.append(pixel(b, ch, y0, x0) * (1 - dx) * (1 - dy)
                   + pixel(b, ch, y0, x0 + 1) * dx * (1 - dy)
                   + pixel(b, ch, y0 + 1, x0) * (1 - dx) * dy
                   + pixel(b, ch, y0 + 1, x0 + 1) * dx * dy)
    return rounded(Tensor([n, c, ho, wo], out))


def case_grid_sample(rng):
    """grid_sampler_2d of an image [2, 2, 4, 5] at a grid [2, 3, 4, 2]
    reaching past [-1, 1]: bilinear with zeros padding, nearest with border
    padding and align_corners, bilinear with border padding."""
    grid = Tensor([2, 3, 4, 2], [round(rng.uniform(-1.2, 1.2), 3) for _ in range(48)])
    x = {"image": rand(rng, [2, 2, 4, 5]), "grid": grid}
    graph = graph_of(x)
    cases = [(0, 0, False), (1, 1, True), (0, 1, True)]
    names = []
    for mode, padding, align in cases:
        name = f"sampled_{len(names)}"
        graph.node("grid_sampler_2d.default",
                   [("input", "image"), ("grid", "grid"), ("interpolation_mode", integer(mode)),
                    ("padding_mode", integer(padding)), ("align_corners", boolean(align))],
                   [(name, F32, [2, 2, 3, 4])])
        names.append(name)
    graph.outputs = names
    write_case("grid-sample", graph, x, {
        name: grid_sample_ref(x["image"], grid, *case) for name, case in zip(names, cases)})


def bag_ref(weight, idx, starts, count, mode, padding):
    """embedding_bag's output, bag sizes and max indices: the rows of each
    bag [start, next start) but those of index `padding`, summed, averaged
    or their largest per column (the first of equal ones; an empty bag: 0
    and index -1)."""
    width = weight.shape[1]
    out, sizes, maxed = [], [], []
    for b, start in enumerate(starts):
        end = starts[b + 1] if b + 1 < len(starts) else count
        members = [idx[i] for i in range(start, end) if idx[i] != padding]
        sizes.append(len(members))
        for col in range(width):
            column = [f32(weight[w, col]) for w in members]
            if mode == 2:
                best = max(range(len(column)), key=lambda i: (column[i], -i), default=None)
                out.append(0.0 if best is None else column[best])
                maxed.append(-1 if best is None else members[best])
            else:
                out.append(sum(column) / (max(len(column), 1) if mode == 1 else 1))
    return (rounded(Tensor([len(starts), width], out)), Tensor([len(starts)], sizes, I64),
            Tensor([len(starts), width], maxed or [0] * len(out), I64))


def case_embedding_bag_max(rng):
    """_embedding_bag with offsets [0, 2, 2, 5, 6] over indices with
    padding_idx 1 among them (the last bag holds it alone): mode max (a tie
    from a repeated row, an empty bag) without and with padding_idx, modes
    sum and mean with it."""
    idx = [4, 0, 1, 3, 3, 1, 0, 2]
    x = {"weight": rand(rng, [6, 3]), "indices": Tensor([8], idx, I64),
         "offsets": Tensor([5], [0, 2, 2, 5, 6], I64)}
    graph = graph_of(x)
    starts = [0, 2, 2, 5, 6]
    expected, outputs = {}, []
    for mode, padding in ((2, -1), (2, 1), (0, 1), (1, 1)):
        name = f"bag_{mode}_{len(outputs)}"
        graph.node("_embedding_bag.default",
                   [("weight", "weight"), ("indices", "indices"), ("offsets", "offsets"),
                    ("mode", integer(mode)), ("padding_idx", integer(padding))],
                   [(name, F32, [5, 3]), (name + "_offset2bag", I64, [8]),
                    (name + "_size", I64, [5]), (name + "_max", I64, [5, 3])])
        out, sizes, maxed = bag_ref(x["weight"], idx, starts, 8, mode, padding)
        outputs += [name, name + "_size"]
        expected[name], expected[name + "_size"] = out, sizes
        if mode == 2:
            outputs.append(name + "_max")
            expected[name + "_max"] = maxed
    graph.outputs = outputs
    write_case("embedding-bag-max", graph, x, expected)


def case_sym_ints(rng):
    """x.view(x.numel()) with the size a SymInt sym_numel gives, and
    x.select(2, y.storage_offset()) for y = x[:, :, 1:] (offset 1)."""
    x = {"x": rand(rng, [2, 3, 4])}
    graph = graph_of(x)
    graph.node("sym_numel.default", [("self", "x")], [24])
    graph.node("view.default", [("self", "x"), ("size", {"as_sym_ints": [{"as_name": "sym_0"}]})],
               [("flat", F32, [24])])
    graph.node("slice.Tensor", [("self", "x"), ("dim", integer(2)), ("start", integer(1)),
                                ("end", integer(4))], [("tail", F32, [2, 3, 3])])
    graph.claim("tail", [12, 4, 1])
    graph.values["tail"]["storage_offset"] = {"as_int": 1}
    graph.node("sym_storage_offset.default", [("self", "tail")], [1])
    graph.node("select.int", [("self", "x"), ("dim", integer(2)),
                              ("index", {"as_sym_int": {"as_name": "sym_1"}})],
               [("column", F32, [2, 3])])
    graph.claim("column", [12, 4])
    graph.values["column"]["storage_offset"] = {"as_int": 1}
    graph.outputs = ["flat", "column"]
    write_case("sym-ints", graph, x, {
        "flat": rounded(Tensor([24], x["x"].values)),
        "column": rounded(Tensor([2, 3], [x["x"][i, j, 1] for i, j in positions([2, 3])]))})


# ----------------------------------------------------------------------------
# Refusals


def error_archive(name, inputs, target, args, outputs):
    graph = Graph()
    for input_name, dtype, shape in inputs:
        graph.input(input_name, dtype, shape)
    graph.node(target, args, outputs)
    graph.outputs = [outputs[0][0]]
    write_archive(name, graph)


def errors():
    """A reduce PyTorch does not have; bicubic grid sampling; dropout in
    training; adaptive pooling to size 0, and with weights [4096, 8192]
    beyond the bound on constant tables; cdist with p < 0; a padding_idx
    outside the weight; a SymInt no node computes."""
    error_archive("error-scatter-reduce-mode",
                  [("x", F32, [3]), ("i", I64, [2]), ("s", F32, [2])],
                  "scatter_reduce.two",
                  [("self", "x"), ("dim", integer(0)), ("index", "i"), ("src", "s"),
                   ("reduce", {"as_string": "median"})],
                  [("sr", F32, [3])])
    error_archive("error-grid-bicubic",
                  [("image", F32, [1, 1, 2, 2]), ("grid", F32, [1, 1, 1, 2])],
                  "grid_sampler_2d.default",
                  [("input", "image"), ("grid", "grid"), ("interpolation_mode", integer(2)),
                   ("padding_mode", integer(0)), ("align_corners", boolean(False))],
                  [("gs", F32, [1, 1, 1, 1])])
    error_archive("error-dropout-train", [("x", F32, [4])], "native_dropout.default",
                  [("input", "x"), ("p", {"as_float": 0.1}), ("train", boolean(True))],
                  [("drop", F32, [4]), ("drop_mask", BOOL, [4])])
    error_archive("error-adaptive-size", [("x", F32, [1, 1, 4, 4])],
                  "_adaptive_avg_pool2d.default",
                  [("self", "x"), ("output_size", ints([0, 2]))],
                  [("ap", F32, [1, 1, 0, 2])])
    error_archive("error-adaptive-table", [("x", F32, [1, 1, 1, 8192])],
                  "_adaptive_avg_pool2d.default",
                  [("self", "x"), ("output_size", ints([1, 4096]))],
                  [("big", F32, [1, 1, 1, 4096])])
    error_archive("error-cdist-p", [("a", F32, [2, 3]), ("b", F32, [4, 3])],
                  "_cdist_forward.default",
                  [("x1", "a"), ("x2", "b"), ("p", {"as_float": -1.0})],
                  [("cd", F32, [2, 4])])
    error_archive("error-bag-padding", [("w", F32, [4, 2]), ("i", I64, [3]), ("o", I64, [1])],
                  "_embedding_bag.default",
                  [("weight", "w"), ("indices", "i"), ("offsets", "o"),
                   ("padding_idx", integer(4))],
                  [("eb", F32, [1, 2]), ("eb_offset2bag", I64, [3]), ("eb_size", I64, [1]),
                   ("eb_max", I64, [1, 2])])
    error_archive("error-sym-unknown", [("x", F32, [2, 3])], "select.int",
                  [("self", "x"), ("dim", integer(1)),
                   ("index", {"as_sym_int": {"as_name": "s9"}})],
                  [("picked", F32, [2])])


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(7)
    for case in (case_scatter_reduce, case_pool3d, case_pool_backward, case_distance,
                 case_grid_sample, case_sym_ints, case_embedding_bag_max):
        case(rng)
    errors()


if __name__ == "__main__":
    main()
