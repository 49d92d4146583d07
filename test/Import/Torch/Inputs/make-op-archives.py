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
                 of inputs that need none);
  argmax         argmax and argmin along a dim and over every element
                 (keepdim or not, of a transposed input), max.dim and
                 min.dim (an output unused), over rows with ties, NaNs and
                 signed zeros;
  argmax-bf16    greedy decoding's logits.argmax(dim=-1, keepdim=True) of
                 logits cast to bf16 (rounding makes ties);
  convnet        batch norm in inference, constant_pad_nd (a negative pad
                 too), avg_pool2d with padding, max_pool2d_with_indices
                 with dilation and its indices;
  norm-upsample  native_group_norm with weight and bias, upsample_nearest2d
                 by whole factors;
  embedding-bag  _embedding_bag in modes sum (per-sample weights) and mean
                 (include_last_offset), with an empty bag;
  activations    clamp, clamp_min, hardtanh, leaky_relu, elu, hardsigmoid,
                 hardswish, isnan, isinf over NaN and infinities,
                 _log_softmax, and var.correction over a dim and all;
  math           the core set's remaining pointwise functions: inverse
                 and hyperbolic trigonometry, expm1, log1p, log2, log10,
                 rounding, sign, atan2, fmod, remainder, xor and the
                 Scalar forms of bitwise and/or, pow and div;
  reorder        diagonal, flip, repeat, prod over all, empty;
  sort           sort (both orders, either dim, ties, NaN, integers) and
                 topk (largest and smallest);
  batch-norm-train  batch norm with batch statistics: the functional form
                 (running statistics updated), .no_stats and .default (an
                 in-place update of the running statistics);
  upsample-bilinear  upsample_bilinear2d to sizes (align_corners either
                 way) and by scale factors.

Each writes its inputs (NAME.INPUT.npy) and the outputs computed here in
float64 (NAME.expected/OUTPUT.npy, rounded once to f32), for `stride-run
--expect`. Python's standard library only. Run it again after changing it
and commit the files; the tests read the committed files.
"""

import functools
import os
import random

import math
import struct

from pt2_writer import BOOL, F32, I64, Graph, Tensor, graph_of, ints, rand, rounded
import pt2_writer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops")
write_archive = functools.partial(pt2_writer.write_archive, OUT)
write_case = functools.partial(pt2_writer.write_case, OUT)


def floats(x):
    return {"as_float": x}


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


BF16 = 13  # torch's ScalarType
NAN = float("nan")


def bf16(x):
    """x (an f32) rounded to bf16, to nearest even, as a float."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    if math.isnan(x):
        return x
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def arg_extreme(values, largest):
    """torch.argmax (largest) / argmin of a list: the first NaN, else the
    first extreme value (-0.0 equal to 0.0)."""
    for i, v in enumerate(values):
        if math.isnan(v):
            return i
    best = 0
    for i, v in enumerate(values):
        if (v > values[best]) if largest else (v < values[best]):
            best = i
    return best


def rows_of(t, dim):
    """The rows of 2-D tensor t along dim, in the order of the other dim."""
    n, m = t.shape
    if dim == 1:
        return [[t[i, j] for j in range(m)] for i in range(n)]
    return [[t[i, j] for i in range(n)] for j in range(m)]


def case_argmax(rng):
    """argmax(dim=-1, keepdim) and argmin(dim=0) of rows with ties, NaNs
    and signed zeros; argmax over every element, keepdim or not, and over
    a transposed input (a copy before the flat view); max.dim (values and
    indices) and min.dim with its values unused."""
    x = {"x": Tensor([4, 6], [1.0, 3.0, -2.0, 3.0, 0.5, 3.0,
                              5.0, NAN, 9.0, NAN, -1.0, 2.0,
                              -0.0, 0.0, -0.0, 0.0, -0.0, 0.0,
                              0.25, -7.0, 0.75, -7.0, 0.75, -0.5])}
    graph = graph_of(x)
    graph.node("argmax.default", [("self", "x"), ("dim", {"as_int": -1}),
                                  ("keepdim", {"as_bool": True})],
               [("argmax", I64, [4, 1])])
    graph.node("argmin.default", [("self", "x"), ("dim", {"as_int": 0})],
               [("argmin", I64, [6])])
    graph.node("argmax.default", [("self", "x")], [("argmax_1", I64, [])])
    graph.node("argmin.default", [("self", "x"), ("keepdim", {"as_bool": True})],
               [("argmin_1", I64, [1, 1])])
    graph.node("permute.default", [("self", "x"), ("dims", ints([1, 0]))],
               [("permute", F32, [6, 4], [1, 0])])
    graph.node("argmax.default", [("self", "permute")], [("argmax_2", I64, [])])
    graph.node("max.dim", [("self", "x"), ("dim", {"as_int": 1})],
               [("max_1", F32, [4]), ("max_2", I64, [4])])
    graph.node("min.dim", [("self", "x"), ("dim", {"as_int": 1}),
                           ("keepdim", {"as_bool": True})],
               [("min_1", F32, [4, 1]), ("min_2", I64, [4, 1])])
    graph.outputs = ["argmax", "argmin", "argmax_1", "argmin_1", "argmax_2",
                     "max_1", "max_2", "min_2"]
    t = x["x"]
    rows, cols = rows_of(t, 1), rows_of(t, 0)
    flat_t = [v for col in cols for v in col]
    index = lambda shape, vals: Tensor(shape, vals, I64)
    nan_max = lambda row: NAN if any(math.isnan(v) for v in row) else max(row)
    write_case("argmax", graph, x, {
        "argmax": index([4, 1], [arg_extreme(r, True) for r in rows]),
        "argmin": index([6], [arg_extreme(c, False) for c in cols]),
        "argmax_1": index([], [arg_extreme(t.values, True)]),
        "argmin_1": index([1, 1], [arg_extreme(t.values, False)]),
        "argmax_2": index([], [arg_extreme(flat_t, True)]),
        "max_1": Tensor([4], [nan_max(r) for r in rows]),
        "max_2": index([4], [arg_extreme(r, True) for r in rows]),
        "min_2": index([4, 1], [arg_extreme(r, False) for r in rows])})


def case_argmax_bf16(rng):
    """Greedy decoding: logits (f32, 3 rows of 1000) cast to bf16, then
    argmax(dim=-1, keepdim=True); bf16's rounding makes ties near the
    maximum, the first of which wins; a NaN in the last row."""
    logits = rand(rng, [3, 1000])
    logits.values[2 * 1000 + 517] = NAN
    x = {"logits": logits}
    graph = graph_of(x)
    graph.node("_to_copy.default", [("self", "logits"), ("dtype", {"as_scalar_type": BF16})],
               [("to", BF16, [3, 1000])])
    graph.node("argmax.default", [("self", "to"), ("dim", {"as_int": -1}),
                                  ("keepdim", {"as_bool": True})],
               [("argmax", I64, [3, 1])])
    graph.outputs = ["argmax"]
    rows = [[bf16(pt2_writer.f32(v)) for v in r] for r in rows_of(logits, 1)]
    write_case("argmax-bf16", graph, x, {
        "argmax": Tensor([3, 1], [arg_extreme(r, True) for r in rows], I64)})


def batch_norm_ref(x, w, b, mean, var, eps):
    n, c, h, wd = x.shape
    out = []
    for i in range(n * c * h * wd):
        ch = (i // (h * wd)) % c
        xv = pt2_writer.f32(x.values[i])
        out.append((xv - mean.values[ch]) / math.sqrt(var.values[ch] + eps)
                   * w.values[ch] + b.values[ch])
    return Tensor(x.shape, out)


def pad_ref(x, pad, value):
    """constant_pad_nd on the last two dims: pad = [left, right, top, bottom]
    (negative: removed)."""
    n, c, h, w = x.shape
    left, right, top, bottom = pad
    oh, ow = h + top + bottom, w + left + right
    out = []
    for i in range(n * c):
        for r in range(oh):
            for col in range(ow):
                hr, wc = r - top, col - left
                inside = 0 <= hr < h and 0 <= wc < w
                out.append(x.values[(i * h + hr) * w + wc] if inside else value)
    return Tensor([n, c, oh, ow], out)


def pool_ref(x, kernel, stride, padding, dilation, kind):
    """avg (zeros in the padding, counted) or max (index of the first
    largest in the H x W plane) pooling of [N, C, H, W]."""
    n, c, h, w = x.shape
    oh = (h + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    values, indices = [], []
    for i in range(n * c):
        for r in range(oh):
            for col in range(ow):
                best, where, total = None, None, 0.0
                for kh in range(kernel[0]):
                    for kw in range(kernel[1]):
                        hr = r * stride[0] - padding[0] + kh * dilation[0]
                        wc = col * stride[1] - padding[1] + kw * dilation[1]
                        inside = 0 <= hr < h and 0 <= wc < w
                        v = x.values[(i * h + hr) * w + wc] if inside else (
                            0.0 if kind == "avg" else -math.inf)
                        total += v
                        if best is None or v > best:
                            best, where = v, hr * w + wc
                values.append(total / (kernel[0] * kernel[1]) if kind == "avg" else best)
                indices.append(where)
    return Tensor([n, c, oh, ow], values), Tensor([n, c, oh, ow], indices, I64)


def case_convnet(rng):
    """A convolutional network's ops around the convolution: batch norm in
    inference, constant padding (with a negative pad), average pooling
    with padding and max pooling with dilation and its indices."""
    x = {"x": rand(rng, [2, 3, 7, 6]), "weight": rand(rng, [3]), "bias": rand(rng, [3]),
         "mean": rand(rng, [3]),
         "var": Tensor([3], [0.5, 1.25, 2.0])}
    graph = graph_of(x)
    graph.node("_native_batch_norm_legit_no_training.default",
               [("input", "x"), ("weight", "weight"), ("bias", "bias"),
                ("running_mean", "mean"), ("running_var", "var"),
                ("momentum", floats(0.1)), ("eps", floats(1e-5))],
               [("bn", F32, [2, 3, 7, 6]), ("bn_mean", F32, [0]), ("bn_rstd", F32, [0])])
    graph.node("constant_pad_nd.default",
               [("self", "bn"), ("pad", ints([1, 2, 0, -1])), ("value", floats(0.5))],
               [("pad", F32, [2, 3, 6, 9])])
    graph.node("avg_pool2d.default",
               [("self", "pad"), ("kernel_size", ints([2, 3])), ("stride", ints([2, 2])),
                ("padding", ints([1, 1]))],
               [("avg", F32, [2, 3, 4, 5])])
    graph.node("max_pool2d_with_indices.default",
               [("self", "x"), ("kernel_size", ints([3, 2])), ("stride", ints([2, 1])),
                ("padding", ints([1, 0])), ("dilation", ints([1, 2]))],
               [("maxpool", F32, [2, 3, 4, 4]), ("maxpool_index", I64, [2, 3, 4, 4])])
    graph.outputs = ["bn", "pad", "avg", "maxpool", "maxpool_index"]
    bn = batch_norm_ref(x["x"], x["weight"], x["bias"], x["mean"], x["var"], 1e-5)
    padded = pad_ref(rounded(bn), [1, 2, 0, -1], 0.5)
    avg, _ = pool_ref(padded, [2, 3], [2, 2], [1, 1], [1, 1], "avg")
    mx, index = pool_ref(x["x"], [3, 2], [2, 1], [1, 0], [1, 2], "max")
    write_case("convnet", graph, x, {"bn": rounded(bn), "pad": rounded(padded),
                                     "avg": rounded(avg), "maxpool": rounded(mx),
                                     "maxpool_index": index})


def group_norm_ref(x, w, b, groups, eps):
    n, c, h, wd = x.shape
    per = c // groups * h * wd
    out = [0.0] * len(x.values)
    for i in range(n * groups):
        chunk = [pt2_writer.f32(v) for v in x.values[i * per:(i + 1) * per]]
        mean = sum(chunk) / per
        var = sum((v - mean) ** 2 for v in chunk) / per
        for j, v in enumerate(chunk):
            ch = (i % groups) * (c // groups) + j // (h * wd)
            out[i * per + j] = (v - mean) / math.sqrt(var + eps) * w.values[ch] + b.values[ch]
    return Tensor(x.shape, out)


def case_norm_upsample(rng):
    """group norm (2 groups of 2 channels) with weight and bias, and nearest
    upsampling by 2 x 3 (upsample_nearest2d.vec)."""
    x = {"x": rand(rng, [2, 4, 3, 5]), "weight": rand(rng, [4]), "bias": rand(rng, [4]),
         "y": rand(rng, [1, 2, 3, 2])}
    graph = graph_of(x)
    graph.node("native_group_norm.default",
               [("input", "x"), ("weight", "weight"), ("bias", "bias"),
                ("N", {"as_int": 2}), ("C", {"as_int": 4}), ("HxW", {"as_int": 15}),
                ("group", {"as_int": 2}), ("eps", floats(1e-5))],
               [("gn", F32, [2, 4, 3, 5]), ("gn_mean", F32, [2, 2]), ("gn_rstd", F32, [2, 2])])
    graph.node("upsample_nearest2d.vec",
               [("input", "y"), ("output_size", {"as_none": True}),
                ("scale_factors", {"as_floats": [2.0, 3.0]})],
               [("up", F32, [1, 2, 6, 6])])
    graph.outputs = ["gn", "up"]
    gn = group_norm_ref(x["x"], x["weight"], x["bias"], 2, 1e-5)
    y = x["y"]
    up = [y.values[(c * 3 + r // 2) * 2 + col // 3] for c in range(2) for r in range(6)
          for col in range(6)]
    write_case("norm-upsample", graph, x, {"gn": rounded(gn),
                                           "up": rounded(Tensor([1, 2, 6, 6], up))})


def bag_ref(weight, idx, starts, count, mode, per_sample=None):
    """embedding_bag's output: the rows of each bag [start, next start),
    summed (weighted) or averaged (an empty bag: zeros)."""
    width = weight.shape[1]
    out = []
    for b, start in enumerate(starts):
        end = starts[b + 1] if b + 1 < len(starts) else count
        for col in range(width):
            total = sum(weight.values[idx[i] * width + col]
                        * (per_sample.values[i] if per_sample else 1.0)
                        for i in range(start, end))
            out.append(total / max(end - start, 1) if mode == 1 else total)
    return Tensor([len(starts), width], out)


def case_embedding_bag(rng):
    """_embedding_bag in mode sum with per-sample weights (offsets [0, 2,
    2, 5]: the second bag empty) and in mode mean with include_last_offset
    (the same bags, the offsets ending at 7)."""
    idx = [4, 0, 5, 5, 1, 3, 2]
    x = {"weight": rand(rng, [6, 3]), "indices": Tensor([7], idx, I64),
         "offsets": Tensor([4], [0, 2, 2, 5], I64),
         "offsets_last": Tensor([5], [0, 2, 2, 5, 7], I64),
         "per_sample": rand(rng, [7])}
    graph = graph_of(x)
    graph.node("_embedding_bag.default",
               [("weight", "weight"), ("indices", "indices"), ("offsets", "offsets"),
                ("mode", {"as_int": 0}), ("per_sample_weights", "per_sample")],
               [("bag_sum", F32, [4, 3]), ("bag_sum_offset2bag", I64, [7]),
                ("bag_sum_size", I64, [4]), ("bag_sum_max", I64, [4])])
    graph.node("_embedding_bag.default",
               [("weight", "weight"), ("indices", "indices"), ("offsets", "offsets_last"),
                ("mode", {"as_int": 1}), ("include_last_offset", {"as_bool": True})],
               [("bag_mean", F32, [4, 3]), ("bag_mean_offset2bag", I64, [7]),
                ("bag_mean_size", I64, [4]), ("bag_mean_max", I64, [4])])
    graph.outputs = ["bag_sum", "bag_sum_size", "bag_mean"]
    starts = [0, 2, 2, 5]
    write_case("embedding-bag", graph, x, {
        "bag_sum": rounded(bag_ref(x["weight"], idx, starts, 7, 0, x["per_sample"])),
        "bag_sum_size": Tensor([4], [2, 0, 3, 2], I64),
        "bag_mean": rounded(bag_ref(x["weight"], idx, starts, 7, 1))})


def variance_of(values, correction):
    mean = sum(pt2_writer.f32(v) for v in values) / len(values)
    return sum((pt2_writer.f32(v) - mean) ** 2 for v in values) / (len(values) - correction)


def case_activations(rng):
    """clamp (scalar bounds, one absent), clamp_min, hardtanh (ReLU6),
    leaky_relu, elu, hardsigmoid, hardswish, isnan, isinf and
    _log_softmax, over values with a NaN and infinities."""
    inf = math.inf
    values = [-7.0, -2.5, -0.5, 0.0, 0.25, 1.5, 3.0, 6.5, NAN, inf, -inf, 2.0]
    x = {"x": Tensor([3, 4], values), "s": rand(rng, [2, 5])}
    graph = graph_of(x)
    B = BOOL

    def node(target, args, name, dtype=F32, shape=(3, 4)):
        graph.node(target, [("self", "x")] + args, [(name, dtype, list(shape))])

    node("clamp.default", [("min", floats(-1.0)), ("max", {"as_none": True})], "clamp")
    node("clamp_min.default", [("min", floats(0.5))], "clamp_min")
    node("hardtanh.default", [("min_val", floats(0.0)), ("max_val", floats(6.0))], "relu6")
    node("leaky_relu.default", [("negative_slope", floats(0.2))], "leaky")
    node("elu.default", [("alpha", floats(1.5))], "elu")
    node("hardsigmoid.default", [], "hsig")
    node("hardswish.default", [], "hswish")
    node("isnan.default", [], "isnan", B)
    node("isinf.default", [], "isinf", B)
    graph.node("_log_softmax.default", [("self", "s"), ("dim", {"as_int": 1}),
                                        ("half_to_float", {"as_bool": False})],
               [("log_softmax", F32, [2, 5])])
    names = ["clamp", "clamp_min", "relu6", "leaky", "elu", "hsig", "hswish", "isnan",
             "isinf", "log_softmax"]
    graph.node("var.correction", [("self", "s"), ("dim", ints([1])),
                                  ("correction", floats(1.0)),
                                  ("keepdim", {"as_bool": True})],
               [("var", F32, [2, 1])])
    graph.node("var.correction", [("self", "s"), ("correction", floats(0.0))],
               [("var_all", F32, [])])
    names += ["var", "var_all"]
    graph.outputs = names

    def nan_max(a, b):
        return a if a != a or a > b else b

    def nan_min(a, b):
        return a if a != a or a < b else b

    def hsig(v):
        return nan_min(nan_max(v + 3.0, 0.0), 6.0) / 6.0

    def each(f, dtype=F32):
        t = Tensor([3, 4], [f(v) for v in values], dtype)
        return rounded(t) if dtype == F32 else t

    rows = []
    for r in range(2):
        row = x["s"].values[r * 5:(r + 1) * 5]
        top = max(row)
        log_sum = math.log(sum(math.exp(v - top) for v in row))
        rows += [v - top - log_sum for v in row]
    write_case("activations", graph, x, {
        "clamp": each(lambda v: nan_max(v, -1.0)),
        "clamp_min": each(lambda v: nan_max(v, 0.5)),
        "relu6": each(lambda v: nan_min(nan_max(v, 0.0), 6.0)),
        "leaky": each(lambda v: v if v > 0 else 0.2 * v),
        "elu": each(lambda v: v if v > 0 else 1.5 * (math.exp(v) - 1) if v == v else v),
        "hsig": each(hsig),
        "hswish": each(lambda v: v * hsig(v)),
        "isnan": each(lambda v: v != v, B),
        "isinf": each(lambda v: v in (inf, -inf), B),
        "log_softmax": rounded(Tensor([2, 5], rows)),
        "var": rounded(Tensor([2, 1], [variance_of(x["s"].values[r * 5:(r + 1) * 5], 1)
                                       for r in range(2)])),
        "var_all": rounded(Tensor([], [variance_of(x["s"].values, 0)]))})


def case_math(rng):
    """The trigonometric, hyperbolic, exponential and logarithmic functions
    of the core ATen set over their domains; floor, ceil, round (halves to
    even) and trunc over halves, and of an integer tensor (itself); sign
    with a NaN (0, as PyTorch's kernels give); atan2, fmod and remainder
    over every sign; bitwise and logical xor, and the Scalar forms of
    bitwise and/or, pow, and div with rounding_mode 'floor' (floats and
    integers of every sign) and 'trunc' (floats)."""
    unit = rand(rng, [2, 5])                          # in (-1, 1)
    big = Tensor([2, 5], [1.0 + 4 * abs(v) for v in rand(rng, [2, 5]).values])
    halves = Tensor([2, 5], [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.75, 0.75, 3.49, NAN])
    signed = Tensor([2, 5], [-7.5, -3.0, -0.0, 2.0, 5.25, 7.5, -2.0, 4.0, -1.25, 0.5])
    divisor = Tensor([2, 5], [2.0, -2.0, 3.0, -3.0, 1.5, -1.75, 0.5, 2.5, -4.0, 0.25])
    n = Tensor([2, 5], [-3, -1, 0, 1, 2, 7, -8, 5, 12, 6], I64)
    m = Tensor([2, 5], [5, 3, 1, 0, 9, -2, 4, 6, 10, 6], I64)
    k = Tensor([2, 5], [2, -3, 4, 5, -2, 3, -4, 7, 5, -6], I64)
    flags = Tensor([2, 5], [True, False, True, False, True, False, False, True, True, False],
                   BOOL)
    others = Tensor([2, 5], [True, True, False, False, True, False, True, True, False, False],
                    BOOL)
    x = {"u": unit, "big": big, "halves": halves, "signed": signed, "divisor": divisor,
         "n": n, "m": m, "k": k, "flags": flags, "others": others}
    graph = graph_of(x)
    expected = {}

    def add(target, args, name, values, dtype=F32):
        graph.node(target, args, [(name, dtype, [2, 5])])
        t = Tensor([2, 5], values, dtype)
        expected[name] = rounded(t) if dtype == F32 else t

    def unary(target, of, f, dtype=F32):
        add(target + ".default", [("self", of)], target, [f(v) for v in x[of].values],
            dtype)

    for target, f in (("tan", math.tan), ("asin", math.asin), ("acos", math.acos),
                      ("atan", math.atan), ("sinh", math.sinh), ("cosh", math.cosh),
                      ("asinh", math.asinh), ("atanh", math.atanh), ("expm1", math.expm1),
                      ("log1p", math.log1p)):
        unary(target, "u", f)
    for target, f in (("acosh", math.acosh), ("log2", math.log2), ("log10", math.log10)):
        unary(target, "big", f)

    def keep_nan(f):
        return lambda v: v if v != v else float(f(v))

    for target, f in (("floor", math.floor), ("ceil", math.ceil),
                      ("round", round), ("trunc", math.trunc)):
        unary(target, "halves", keep_nan(f))
    graph.node("floor.default", [("self", "n")], [("floor_int", I64, [2, 5])])
    expected["floor_int"] = n
    unary("sign", "halves", lambda v: float((0.0 < v) - (v < 0.0)))
    graph.node("sign.default", [("self", "n")], [("sign_int", I64, [2, 5])])
    expected["sign_int"] = Tensor([2, 5], [(v > 0) - (v < 0) for v in n.values], I64)

    def binary(target, a, b, f, name, dtype=F32, rhs="other"):
        add(target, [("self", a), (rhs, b)], name,
            [f(p, q) for p, q in zip(x[a].values, x[b].values)], dtype)

    def remainder(p, q):
        r = math.fmod(p, q)
        return r + q if r != 0 and (q < 0) != (r < 0) else r

    binary("atan2.default", "signed", "divisor", math.atan2, "atan2")
    binary("fmod.Tensor", "signed", "divisor", math.fmod, "fmod")
    binary("remainder.Tensor", "signed", "divisor", remainder, "remainder")
    add("remainder.Scalar", [("self", "signed"), ("other", floats(-2.0))], "remainder_scalar",
        [remainder(v, -2.0) for v in signed.values])
    binary("bitwise_xor.Tensor", "n", "m", lambda p, q: p ^ q, "xor", I64)
    binary("logical_xor.default", "flags", "others", lambda p, q: p != q, "logical_xor", BOOL)
    add("bitwise_and.Scalar", [("self", "n"), ("other", {"as_int": 6})], "and_scalar",
        [v & 6 for v in n.values], I64)
    add("bitwise_or.Scalar", [("self", "n"), ("other", {"as_int": 6})], "or_scalar",
        [v | 6 for v in n.values], I64)
    add("pow.Scalar", [("self", floats(2.0)), ("exponent", "signed")], "pow_scalar",
        [2.0 ** v for v in signed.values])
    add("div.Scalar_mode", [("self", "signed"), ("other", floats(-2.0)),
                            ("rounding_mode", {"as_string": "floor"})], "div_floor",
        [math.floor(v / -2.0) for v in signed.values])
    add("div.Tensor_mode", [("self", "signed"), ("other", "divisor"),
                            ("rounding_mode", {"as_string": "floor"})], "div_floor_tensor",
        [math.floor(p / q) for p, q in zip(signed.values, divisor.values)])
    add("div.Tensor_mode", [("self", "signed"), ("other", "divisor"),
                            ("rounding_mode", {"as_string": "trunc"})], "div_trunc",
        [math.trunc(p / q) for p, q in zip(signed.values, divisor.values)])
    add("div.Tensor_mode", [("self", "n"), ("other", "k"),
                            ("rounding_mode", {"as_string": "floor"})], "div_floor_int",
        [p // q for p, q in zip(n.values, k.values)], I64)
    graph.outputs = list(expected)
    write_case("math", graph, x, expected)


def case_reorder(rng):
    """diagonal (offsets 0, 1 and -1; dims 1 and 2 of a 3-D tensor), flip
    of two dims, repeat with a leading new dim, prod over every element,
    and empty (zeros in Stride)."""
    x = {"x": rand(rng, [2, 3, 4]), "y": rand(rng, [2, 3])}
    graph = graph_of(x)
    X, Y = x["x"], x["y"]
    expected = {}

    def diagonal(offset, name):
        rows = [i for i in range(3) if 0 <= i + offset < 4]
        graph.node("diagonal.default", [("self", "x"), ("offset", {"as_int": offset}),
                                        ("dim1", {"as_int": 1}), ("dim2", {"as_int": 2})],
                   [(name, F32, [2, len(rows)])])
        expected[name] = rounded(Tensor([2, len(rows)], [X[b, i, i + offset]
                                                         for b in range(2) for i in rows]))

    diagonal(0, "diag")
    diagonal(1, "diag_above")
    diagonal(-1, "diag_below")
    graph.node("flip.default", [("self", "x"), ("dims", ints([0, -1]))],
               [("flip", F32, [2, 3, 4])])
    expected["flip"] = rounded(Tensor([2, 3, 4], [X[1 - b, r, 3 - c] for b in range(2)
                                                  for r in range(3) for c in range(4)]))
    graph.node("repeat.default", [("self", "y"), ("repeats", ints([2, 1, 3]))],
               [("repeat", F32, [2, 2, 9])])
    expected["repeat"] = rounded(Tensor([2, 2, 9], [Y[r, c % 3] for _ in range(2)
                                                    for r in range(2) for c in range(9)]))
    graph.node("prod.default", [("self", "y")], [("prod", F32, [])])
    expected["prod"] = rounded(Tensor([], [math.prod(Y.values)]))
    graph.node("empty.memory_format", [("size", ints([2, 2]))], [("empty", F32, [2, 2])])
    expected["empty"] = Tensor([2, 2], [0.0] * 4)
    graph.outputs = list(expected)
    write_case("reorder", graph, x, expected)


def sorted_row(row, descending):
    """(values, indices) of `row` in PyTorch's stable order: NaN above every
    number, ties by index."""
    def key(item):
        i, v = item
        nan = v != v
        if descending:
            return (0 if nan else 1, 0 if nan else -v, i)
        return (1 if nan else 0, 0 if nan else v, i)
    order = sorted(enumerate(row), key=key)
    return [v for _, v in order], [i for i, _ in order]


def sort_along(t, dim, descending, count=None):
    """sort (or topk's first `count`) of 2-D `t` along `dim`."""
    rows, cols = t.shape
    count = count if count is not None else t.shape[dim]
    shape = [count, cols] if dim == 0 else [rows, count]
    values, indices = [0.0] * (shape[0] * shape[1]), [0] * (shape[0] * shape[1])
    for line in range(cols if dim == 0 else rows):
        row = [t[k, line] if dim == 0 else t[line, k] for k in range(t.shape[dim])]
        v, i = sorted_row(row, descending)
        for k in range(count):
            at = k * cols + line if dim == 0 else line * count + k
            values[at], indices[at] = v[k], i[k]
    return Tensor(shape, values, t.dtype), Tensor(shape, indices, I64)


def case_sort(rng):
    """sort ascending and descending (ties, a NaN, signed zeros), along
    either dim; topk largest and smallest; sort of integers."""
    x = Tensor([3, 6], [0.5, -1.0, 0.5, NAN, 2.0, -0.0,
                        3.0, 3.0, -2.0, 0.0, 1.0, 3.0,
                        -0.5, 0.25, 0.25, -0.5, 7.0, 0.0])
    ints_ = Tensor([3, 6], [rng.randrange(-4, 5) for _ in range(18)], I64)
    inputs = {"x": x, "n": ints_}
    graph = graph_of(inputs)
    expected = {}

    def add(target, args, source, dim, descending, name, count=None):
        values, indices = sort_along(inputs[source], dim, descending, count)
        graph.node(target, [("self", source)] + args,
                   [(name, values.dtype, values.shape), (name + "_index", I64, values.shape)])
        expected[name] = values
        expected[name + "_index"] = indices

    add("sort.default", [], "x", 1, False, "sort")
    add("sort.default", [("dim", {"as_int": 0}), ("descending", {"as_bool": True})], "x",
        0, True, "sort_down")
    add("sort.stable", [("stable", {"as_bool": True}), ("dim", {"as_int": -1})], "n", 1,
        False, "sort_int")
    add("topk.default", [("k", {"as_int": 2})], "x", 1, True, "top2", 2)
    add("topk.default", [("k", {"as_int": 2}), ("dim", {"as_int": 0}),
                         ("largest", {"as_bool": False})], "x", 0, False, "bottom2", 2)
    graph.outputs = list(expected)
    write_case("sort", graph, inputs, expected)


def batch_statistics(x):
    """Per channel of x [N, C, H, W] (as f32 inputs): mean, biased and
    unbiased variance."""
    n, c, h, w = x.shape
    stats = []
    for ch in range(c):
        v = [pt2_writer.f32(x[b, ch, i, j]) for b in range(n) for i in range(h)
             for j in range(w)]
        mean = sum(v) / len(v)
        biased = sum((e - mean) ** 2 for e in v) / len(v)
        stats.append((mean, biased, biased * len(v) / (len(v) - 1)))
    return stats


def case_batch_norm_train(rng):
    """Batch norm with batch statistics: the functional form with running
    statistics updated (momentum 0.1), .no_stats without weight and bias,
    and .default, whose in-place update a later node reads."""
    x = {"x": rand(rng, [2, 3, 2, 2]), "weight": rand(rng, [3]), "bias": rand(rng, [3]),
         "mean": rand(rng, [3]), "var": Tensor([3], [0.5, 1.25, 2.0])}
    graph = graph_of(x)
    eps, momentum = 1e-5, 0.1
    stats = batch_statistics(x["x"])
    common = [("training", {"as_bool": True}), ("momentum", floats(momentum)),
              ("eps", floats(eps))]
    shape, C = [2, 3, 2, 2], [3]
    graph.node("_native_batch_norm_legit_functional.default",
               [("input", "x"), ("weight", "weight"), ("bias", "bias"),
                ("running_mean", "mean"), ("running_var", "var")] + common,
               [("bn", F32, shape), ("bn_mean", F32, C), ("bn_rstd", F32, C),
                ("bn_running_mean", F32, C), ("bn_running_var", F32, C)])
    graph.node("_native_batch_norm_legit.no_stats",
               [("input", "x"), ("weight", {"as_none": True}), ("bias", {"as_none": True})]
               + common,
               [("plain", F32, shape), ("plain_mean", F32, C), ("plain_rstd", F32, C)])
    graph.node("_native_batch_norm_legit.default",
               [("input", "x"), ("weight", "weight"), ("bias", "bias"),
                ("running_mean", "mean"), ("running_var", "var")] + common,
               [("inplace", F32, shape), ("inplace_mean", F32, C),
                ("inplace_rstd", F32, C)])
    graph.node("clone.default", [("self", "mean")], [("mean_after", F32, C)])
    graph.outputs = ["bn", "bn_mean", "bn_rstd", "bn_running_mean", "bn_running_var",
                     "plain", "plain_mean", "plain_rstd", "inplace", "mean_after"]
    rstd = [1 / math.sqrt(b + eps) for _, b, _ in stats]

    def normalized(affine):
        out = []
        for i in range(24):
            ch = (i // 4) % 3
            v = (pt2_writer.f32(x["x"].values[i]) - stats[ch][0]) * rstd[ch]
            out.append(v * x["weight"].values[ch] + x["bias"].values[ch] if affine else v)
        return rounded(Tensor(shape, out))

    running_mean = [(1 - momentum) * m + momentum * s[0]
                    for m, s in zip(x["mean"].values, stats)]
    running_var = [(1 - momentum) * v + momentum * s[2]
                   for v, s in zip(x["var"].values, stats)]
    write_case("batch-norm-train", graph, x, {
        "bn": normalized(True), "bn_mean": rounded(Tensor(C, [s[0] for s in stats])),
        "bn_rstd": rounded(Tensor(C, rstd)),
        "bn_running_mean": rounded(Tensor(C, running_mean)),
        "bn_running_var": rounded(Tensor(C, running_var)),
        "plain": normalized(False), "plain_mean": rounded(Tensor(C, [s[0] for s in stats])),
        "plain_rstd": rounded(Tensor(C, rstd)), "inplace": normalized(True),
        "mean_after": rounded(Tensor(C, running_mean))})


def bilinear_taps(size_in, size_out, align, scale_factor=None):
    """PyTorch's source rows and weights along one dim, in f32 arithmetic."""
    f32 = pt2_writer.f32
    if align:
        scale = f32((size_in - 1) / (size_out - 1)) if size_out > 1 else 0.0
    else:
        scale = f32(1.0 / scale_factor) if scale_factor else f32(size_in / size_out)
    taps = []
    for i in range(size_out):
        src = f32(scale * i) if align else max(f32(f32(scale * f32(i + 0.5)) - 0.5), 0.0)
        low = min(int(src), size_in - 1)
        high = low + 1 if low < size_in - 1 else low
        lam = f32(src - low)
        taps.append((low, high, f32(1.0 - lam), lam))
    return taps


def bilinear_ref(x, out_h, out_w, align, scales=(None, None)):
    n, c, h, w = x.shape
    th = bilinear_taps(h, out_h, align, scales[0])
    tw = bilinear_taps(w, out_w, align, scales[1])
    out = []
    for b in range(n):
        for ch in range(c):
            for i in range(out_h):
                h0, h1, a0, a1 = th[i]
                for j in range(out_w):
                    w0, w1, b0, b1 = tw[j]
                    v = lambda r, q: pt2_writer.f32(x[b, ch, r, q])  # noqa: E731
                    out.append(b0 * (a0 * v(h0, w0) + a1 * v(h1, w0))
                               + b1 * (a0 * v(h0, w1) + a1 * v(h1, w1)))
    return rounded(Tensor([n, c, out_h, out_w], out))


def case_upsample_bilinear(rng):
    """upsample_bilinear2d.vec to an output size (align_corners False and
    True, a shrink along one dim) and by scale factors."""
    x = {"x": rand(rng, [1, 2, 3, 4])}
    graph = graph_of(x)
    graph.node("upsample_bilinear2d.vec",
               [("input", "x"), ("output_size", ints([5, 3])),
                ("align_corners", {"as_bool": False}), ("scale_factors", {"as_none": True})],
               [("up", F32, [1, 2, 5, 3])])
    graph.node("upsample_bilinear2d.vec",
               [("input", "x"), ("output_size", ints([6, 7])),
                ("align_corners", {"as_bool": True}), ("scale_factors", {"as_none": True})],
               [("up_aligned", F32, [1, 2, 6, 7])])
    graph.node("upsample_bilinear2d.vec",
               [("input", "x"), ("output_size", {"as_none": True}),
                ("align_corners", {"as_bool": False}),
                ("scale_factors", {"as_floats": [2.5, 1.5]})],
               [("up_scaled", F32, [1, 2, 7, 6])])
    graph.outputs = ["up", "up_aligned", "up_scaled"]
    write_case("upsample-bilinear", graph, x, {
        "up": bilinear_ref(x["x"], 5, 3, False),
        "up_aligned": bilinear_ref(x["x"], 6, 7, True),
        "up_scaled": bilinear_ref(x["x"], 7, 6, False, (2.5, 1.5))})


def errors():
    """A cat whose every input is an empty 1-D tensor, but whose result has
    rank 2; a graph output that is an int; argmax of no elements; max
    pooling whose ceil_mode adds a partial window; fmod of integers; topk
    over rows longer than sort's bound (a vocabulary)."""
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
    graph = Graph()
    graph.input("x", F32, [2, 0])
    graph.node("argmax.default", [("self", "x"), ("dim", {"as_int": 1})],
               [("argmax", I64, [2])])
    graph.outputs = ["argmax"]
    write_archive("error-argmax-empty", graph)
    graph = Graph()
    graph.input("x", F32, [1, 2, 5, 5])
    graph.node("max_pool2d_with_indices.default",
               [("self", "x"), ("kernel_size", ints([2])), ("stride", ints([2])),
                ("ceil_mode", {"as_bool": True})],
               [("mp", F32, [1, 2, 3, 3]), ("mp_index", I64, [1, 2, 3, 3])])
    graph.outputs = ["mp"]
    write_archive("error-pool-ceil", graph)
    graph = Graph()
    graph.input("n", I64, [3])
    graph.node("fmod.Scalar", [("self", "n"), ("other", {"as_int": 2})],
               [("fmod", I64, [3])])
    graph.outputs = ["fmod"]
    write_archive("error-fmod-int", graph)
    graph = Graph()
    graph.input("logits", F32, [2, 32000])
    graph.node("topk.default", [("self", "logits"), ("k", {"as_int": 50})],
               [("top", F32, [2, 50]), ("top_index", I64, [2, 50])])
    graph.outputs = ["top", "top_index"]
    write_archive("error-topk-long", graph)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(42)
    for case in (case_size_one_view, case_cat_empty, case_reciprocal, case_none_outputs,
                 case_argmax, case_argmax_bf16, case_convnet, case_norm_upsample,
                 case_embedding_bag, case_activations, case_math, case_reorder,
                 case_sort, case_batch_norm_train, case_upsample_bilinear):
        case(rng)
    errors()


if __name__ == "__main__":
    main()
