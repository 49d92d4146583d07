#!/usr/bin/env python3
"""Writes the .pt2 archives of convolution.test into ops/ beside this
script, by hand in the export schema (pt2_writer.py), as torch.export
writes aten.convolution (issue 42):

  conv        a ResNet-style 2-D convolution with bias, stride and padding
              (its output claimed channels-last), a depthwise dilated one,
              a grouped dilated 1-D one (Whisper's encoder is 1-D), a
              grouped transposed 2-D one with output_padding, a 3-D one and
              a ViT patch embedding (kernel = stride);
  conv-bn     a convolution without bias, an inference batch norm and a
              relu (stride-fold-into-convolution folds the batch norm);
  conv-bn-weights  the same with the weights stored in the archive, as
              a model's (stride-fold-constants computes the folded weight
              and bias at compile time);
  conv-backward  convolution_backward of a grouped, strided, dilated 2-D
              convolution whose input size leaves a remainder (all three
              gradients), and of a 1-D one (the weight's gradient only, as
              a first layer's);
  error-conv-*  groups that do not divide the channels, a negative padding,
              a weight whose channels do not match the input's.

The expected outputs are computed here in float64 by direct sums (a
transposed convolution by scattering each input element through the
kernel, not by the reference interpreter's gather) and rounded once to
f32. Python's standard library only. Run it again after changing it and
commit the files; the tests read the committed files.
"""

import functools
import itertools
import math
import os
import random

from pt2_writer import F32, Tensor, rand, rounded
import pt2_writer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops")
write_archive = functools.partial(pt2_writer.write_archive, OUT)
write_case = functools.partial(pt2_writer.write_case, OUT)


def ints(x):
    return {"as_ints": x}


def out_size(size, k, s, p, d, transposed, op):
    if transposed:
        return (size - 1) * s - 2 * p + d * (k - 1) + op + 1
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def conv_ref(x, w, b, stride, padding, dilation, groups, transposed=False,
             output_padding=None):
    """aten.convolution in float64: a gather of each output element's
    window, or (transposed) each input element scattered through the
    kernel into the output."""
    n, c = x.shape[:2]
    spatial = len(x.shape) - 2
    kernel = w.shape[2:]
    output_padding = output_padding or [0] * spatial
    cout = w.shape[1] * groups if transposed else w.shape[0]
    cin_g, cout_g = c // groups, cout // groups
    ys = [out_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i],
                   transposed, output_padding[i]) for i in range(spatial)]
    shape = [n, cout] + ys
    out = {}
    for idx in itertools.product(*[range(s) for s in shape]):
        out[idx] = b.values[idx[1]] if b else 0.0
    if transposed:
        for xi in itertools.product(*[range(s) for s in x.shape]):
            g = xi[1] // cin_g
            for oc in range(cout_g):
                for k in itertools.product(*[range(s) for s in kernel]):
                    pos = [xi[2 + i] * stride[i] - padding[i] + k[i] * dilation[i]
                           for i in range(spatial)]
                    if all(0 <= pos[i] < ys[i] for i in range(spatial)):
                        o = (xi[0], g * cout_g + oc) + tuple(pos)
                        out[o] += x[xi] * w[(xi[1], oc) + k]
    else:
        for o in out:
            g = o[1] // cout_g
            for ci in range(cin_g):
                for k in itertools.product(*[range(s) for s in kernel]):
                    pos = [o[2 + i] * stride[i] - padding[i] + k[i] * dilation[i]
                           for i in range(spatial)]
                    if all(0 <= pos[i] < x.shape[2 + i] for i in range(spatial)):
                        out[o] += (x[(o[0], g * cin_g + ci) + tuple(pos)]
                                   * w[(o[1], ci) + k])
    return Tensor(shape, [out[i] for i in sorted(out)])


def conv_node(graph, name, x, w, b, stride, padding, dilation, groups, shape,
              transposed=False, output_padding=None, order=None):
    spatial = len(stride)
    graph.node("convolution.default",
               [("input", x), ("weight", w), ("bias", b), ("stride", ints(stride)),
                ("padding", ints(padding)), ("dilation", ints(dilation)),
                ("transposed", {"as_bool": transposed}),
                ("output_padding", ints(output_padding or [0] * spatial)),
                ("groups", {"as_int": groups})],
               [(name, F32, shape) + ((order,) if order else ())])


# name: (input, weight, bias or None, stride, padding, dilation, groups,
# transposed, output_padding, claimed dim order of the output)
CONVS = {
    "resnet": ([2, 3, 7, 6], [4, 3, 3, 3], True, [2, 2], [1, 1], [1, 1], 1, False, None,
               [0, 2, 3, 1]),
    "depthwise": ([1, 4, 5, 5], [4, 1, 3, 3], False, [1, 1], [1, 1], [2, 2], 4, False,
                  None, None),
    "conv1d": ([1, 4, 9], [6, 2, 3], True, [1], [2], [2], 2, False, None, None),
    "transposed": ([1, 4, 3, 3], [4, 3, 3, 3], True, [2, 2], [1, 1], [1, 1], 2, True,
                   [1, 1], None),
    "conv3d": ([1, 2, 3, 4, 4], [2, 2, 2, 2, 2], False, [1, 2, 2], [0, 0, 0],
               [1, 1, 1], 1, False, None, None),
    "patch": ([1, 3, 8, 8], [5, 3, 4, 4], True, [4, 4], [0, 0], [1, 1], 1, False, None,
              None),
}


def case_conv(rng):
    inputs, expected = {}, {}
    for name, (xs, ws, bias, s, p, d, g, tr, op, order) in CONVS.items():
        inputs[name + "_x"] = rand(rng, xs)
        inputs[name + "_w"] = rand(rng, ws)
        if bias:
            cout = ws[1] * g if tr else ws[0]
            inputs[name + "_b"] = rand(rng, [cout])
    graph = pt2_writer.Graph()
    for name, value in inputs.items():
        graph.input(name, value.dtype, value.shape)
    for name, (xs, ws, bias, s, p, d, g, tr, op, order) in CONVS.items():
        b = inputs.get(name + "_b")
        y = conv_ref(inputs[name + "_x"], inputs[name + "_w"], b, s, p, d, g, tr, op)
        conv_node(graph, name, name + "_x", name + "_w", name + "_b" if b else None,
                  s, p, d, g, y.shape, tr, op, order)
        expected[name] = rounded(y)
    graph.outputs = list(CONVS)
    write_case("conv", graph, inputs, expected)


def case_conv_bn(rng, name="conv-bn", stored=False):
    """ResNet's convolution, batch norm (inference) and relu; `stored`: the
    weight and the batch norm's tensors are the module's buffers, stored
    in the archive (constants of the graph), the image the only input."""
    x = {"x": rand(rng, [2, 3, 6, 6]), "w": rand(rng, [4, 3, 3, 3]),
         "gamma": rand(rng, [4]), "beta": rand(rng, [4]), "mean": rand(rng, [4]),
         "var": Tensor([4], [0.5, 1.25, 2.0, 0.75])}
    graph = pt2_writer.Graph()
    for input_name, value in x.items():
        if stored and input_name != "x":
            graph.buffer(input_name, "bn." + input_name, value)
        else:
            graph.input(input_name, value.dtype, value.shape)
    conv_node(graph, "conv", "x", "w", None, [1, 1], [1, 1], [1, 1], 1, [2, 4, 6, 6])
    graph.node("_native_batch_norm_legit_no_training.default",
               [("input", "conv"), ("weight", "gamma"), ("bias", "beta"),
                ("running_mean", "mean"), ("running_var", "var"),
                ("momentum", {"as_float": 0.1}), ("eps", {"as_float": 1e-5})],
               [("bn", F32, [2, 4, 6, 6]), ("bn_mean", F32, [0]), ("bn_rstd", F32, [0])])
    graph.node("relu.default", [("self", "bn")], [("relu", F32, [2, 4, 6, 6])])
    graph.outputs = ["relu"]
    y = conv_ref(x["x"], x["w"], None, [1, 1], [1, 1], [1, 1], 1)
    out = []
    for i, v in enumerate(y.values):
        c = (i // 36) % 4
        bn = ((v - x["mean"].values[c]) / math.sqrt(x["var"].values[c] + 1e-5)
              * x["gamma"].values[c] + x["beta"].values[c])
        out.append(max(bn, 0.0))
    inputs = {"x": x["x"]} if stored else x
    write_case(name, graph, inputs, {"relu": rounded(Tensor(y.shape, out))})


def conv_backward_ref(dy, x, w, stride, padding, dilation, groups):
    """The three gradients of a convolution (not transposed) by their
    definitions: each product of the forward's sum credited to the input
    and weight element it read."""
    spatial = len(stride)
    cout_g, cin_g = w.shape[0] // groups, x.shape[1] // groups
    dx = {i: 0.0 for i in itertools.product(*[range(s) for s in x.shape])}
    dw = {i: 0.0 for i in itertools.product(*[range(s) for s in w.shape])}
    db = [0.0] * w.shape[0]
    for o in itertools.product(*[range(s) for s in dy.shape]):
        g, grad = o[1] // cout_g, dy[o]
        db[o[1]] += grad
        for ci in range(cin_g):
            for k in itertools.product(*[range(s) for s in w.shape[2:]]):
                pos = tuple(o[2 + i] * stride[i] - padding[i] + k[i] * dilation[i]
                            for i in range(spatial))
                if all(0 <= pos[i] < x.shape[2 + i] for i in range(spatial)):
                    xi = (o[0], g * cin_g + ci) + pos
                    wi = (o[1], ci) + k
                    dx[xi] += grad * w[wi]
                    dw[wi] += grad * x[xi]
    return (Tensor(x.shape, [dx[i] for i in sorted(dx)]),
            Tensor(w.shape, [dw[i] for i in sorted(dw)]), Tensor([w.shape[0]], db))


def backward_node(graph, name, dy, x, w, stride, padding, dilation, groups, outputs):
    spatial = len(stride)
    graph.node("convolution_backward.default",
               [("grad_output", dy), ("input", x), ("weight", w),
                ("bias_sizes", ints([outputs[-1][2][0]] if outputs[-1] else [0])),
                ("stride", ints(stride)), ("padding", ints(padding)),
                ("dilation", ints(dilation)), ("transposed", {"as_bool": False}),
                ("output_padding", ints([0] * spatial)), ("groups", {"as_int": groups}),
                ("output_mask", {"as_bools": [o is not None for o in outputs]})],
               [o if o is not None else pt2_writer.NONE for o in outputs])


def case_conv_backward(rng):
    x = {"x": rand(rng, [2, 4, 8, 6]), "w": rand(rng, [6, 2, 3, 3]),
         "dy": rand(rng, [2, 6, 4, 4]),
         "x1": rand(rng, [2, 3, 9]), "w1": rand(rng, [4, 3, 3]), "dy1": rand(rng, [2, 4, 4])}
    graph = pt2_writer.Graph()
    for name, value in x.items():
        graph.input(name, value.dtype, value.shape)
    backward_node(graph, "dx", "dy", "x", "w", [2, 1], [1, 1], [1, 2], 2,
                  [("dx", F32, [2, 4, 8, 6]), ("dw", F32, [6, 2, 3, 3]), ("db", F32, [6])])
    backward_node(graph, "dw1", "dy1", "x1", "w1", [2], [0], [1], 1,
                  [None, ("dw1", F32, [4, 3, 3]), None])
    graph.outputs = ["dx", "dw", "db", "dw1"]
    dx, dw, db = conv_backward_ref(x["dy"], x["x"], x["w"], [2, 1], [1, 1], [1, 2], 2)
    _, dw1, _ = conv_backward_ref(x["dy1"], x["x1"], x["w1"], [2], [0], [1], 1)
    write_case("conv-backward", graph, x, {"dx": rounded(dx), "dw": rounded(dw),
                                           "db": rounded(db), "dw1": rounded(dw1)})


def errors():
    """Groups that do not divide the channels, a negative padding, a weight
    whose channels do not match the input's."""
    for name, weight, padding, groups in (("groups", [6, 2, 3, 3], [0, 0], 3),
                                          ("padding", [6, 4, 3, 3], [-1, 0], 1),
                                          ("weight", [6, 3, 3, 3], [0, 0], 1)):
        graph = pt2_writer.Graph()
        graph.input("x", F32, [1, 4, 5, 5])
        graph.input("w", F32, weight)
        conv_node(graph, "conv", "x", "w", None, [1, 1], padding, [1, 1], groups,
                  [1, 6, 3, 3])
        graph.outputs = ["conv"]
        write_archive("error-conv-" + name, graph)


def main():
    os.makedirs(OUT, exist_ok=True)
    case_conv(random.Random(42))
    case_conv_bn(random.Random(7))
    case_conv_bn(random.Random(7), "conv-bn-weights", stored=True)
    case_conv_backward(random.Random(11))
    errors()


if __name__ == "__main__":
    main()
