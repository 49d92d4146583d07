#!/usr/bin/env python3
"""Writes the small .pt2 archives of attention-ops.test into attention/ beside
this script: the seed_fwd_2x8x16 fixture (torch 2.11) with its graph replaced
by nodes of PyTorch's scaled dot-product attention ops, written here by hand
in the export schema (PyTorch records the fused variants in training
captures and on GPUs, which this machine cannot make). For the archives that
compute, it also writes their inputs (NAME.INPUT.npy) and the outputs
computed here in float64 from the ops' formulas (NAME.expected/OUTPUT.npy,
rounded once to the output's dtype): the folders for `stride-run --expect`.

Python's standard library only (no PyTorch, no NumPy). Run it again after
changing it and commit the files; the tests read the committed files.
"""

import functools
import math
import os
import random

from pt2_writer import (BOOL, F32, I64, INF, NONE, U64, Graph, Tensor,
                        broadcast_get, numel, rand, rounded)
import pt2_writer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention")
write_archive = functools.partial(pt2_writer.write_archive, OUT)
write_case = functools.partial(pt2_writer.write_case, OUT)

# ----------------------------------------------------------------------------
# Attention in float64 (python-free-docs/attention.md's formulas)


def scores(q, k, mask, scale, causal, b, h, i):
    """Row i of the scaled, masked scores of query head h in batch b (a
    batch of 1 broadcasts; head h reads key head h / (Hq / Hkv))."""
    g = h // (q.shape[1] // k.shape[1])
    bq, bk = min(b, q.shape[0] - 1), min(b, k.shape[0] - 1)
    row = []
    for j in range(k.shape[2]):
        x = scale * sum(q[bq, h, i, d] * k[bk, g, j, d] for d in range(q.shape[3]))
        if mask is not None:
            m = broadcast_get(mask, (b, h, i, j))
            x = (x if m else -INF) if mask.dtype == BOOL else x + m
        row.append(-INF if causal and j > i else x)
    return row


def attention(q, k, v, mask, scale, causal):
    """q [B, Hq, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev] (batch 1
    broadcasts), mask broadcastable to [B, Hq, L, S] (bool or additive) or
    None. Returns (out [B, Hq, L, Ev], lse [B, Hq, L])."""
    B = max(q.shape[0], k.shape[0])
    Hq, L = q.shape[1:3]
    S, Ev = k.shape[2], v.shape[3]
    out, lse = [], []
    for b in range(B):
        bk = min(b, k.shape[0] - 1)
        for h in range(Hq):
            g = h // (Hq // k.shape[1])
            for i in range(L):
                s = scores(q, k, mask, scale, causal, b, h, i)
                top = max(s)
                e = [math.exp(x - top) for x in s]
                total = sum(e)
                lse.append(top + math.log(total))
                for d in range(Ev):
                    out.append(sum(e[j] / total * v[bk, g, j, d] for j in range(S)))
    return Tensor([B, Hq, L, Ev], out), Tensor([B, Hq, L], lse)


def attention_backward(dout, q, k, v, out, lse, mask, scale, causal):
    """The gradients of query, key and value from the forward's output and
    logsumexp (batch sizes equal)."""
    B, Hq, L, E = q.shape
    S, Ev = k.shape[2], v.shape[3]
    gq = [0.0] * numel(q.shape)
    gk = [0.0] * numel(k.shape)
    gv = [0.0] * numel(v.shape)
    at = lambda shape, *i: sum(x * math.prod(shape[n + 1:]) for n, x in enumerate(i))
    for b in range(B):
        for h in range(Hq):
            g = h // (Hq // k.shape[1])
            for i in range(L):
                p = [math.exp(x - lse[b, h, i]) for x in scores(q, k, mask, scale, causal, b, h, i)]
                dp = [sum(dout[b, h, i, e] * v[b, g, j, e] for e in range(Ev)) for j in range(S)]
                delta = sum(dout[b, h, i, e] * out[b, h, i, e] for e in range(Ev))
                ds = [p[j] * (dp[j] - delta) for j in range(S)]
                for d in range(E):
                    gq[at(q.shape, b, h, i, d)] += scale * sum(ds[j] * k[b, g, j, d] for j in range(S))
                for j in range(S):
                    for d in range(E):
                        gk[at(k.shape, b, g, j, d)] += scale * ds[j] * q[b, h, i, d]
                    for e in range(Ev):
                        gv[at(v.shape, b, g, j, e)] += p[j] * dout[b, h, i, e]
    return Tensor(q.shape, gq), Tensor(k.shape, gk), Tensor(v.shape, gv)


# ----------------------------------------------------------------------------
# The cases


def floats(x):
    return {"as_float": x}


def flag(x):
    return {"as_bool": x}


def ints(x):
    return {"as_int": x}


def randoms(rng, **shapes):
    """Random inputs of these shapes, by name (in order)."""
    return {name: rand(rng, shape) for name, shape in shapes.items()}


def graph_of(inputs):
    """A graph with user inputs (name -> Tensor)."""
    graph = Graph()
    for name, value in inputs.items():
        graph.input(name, value.dtype, value.shape)
    return graph


BSHE = [0, 2, 1, 3]  # [B, H, L, E] stored as [B, L, H, E], as fused kernels write it


def qkv(*names):
    return [(n, n[0] if n in ("query", "key", "value") else n) for n in names]


def case_cpu(rng):
    """Flash attention for the CPU (what a training capture on the CPU
    records) and its backward: an additive mask [L, S] and the causal flag,
    the result and the logsumexp in the layouts the kernel writes."""
    x = randoms(rng, q=[1, 2, 3, 2], k=[1, 2, 4, 2], v=[1, 2, 4, 3], m=[3, 4],
                g=[1, 2, 3, 3])
    graph = graph_of(x)
    common = [("dropout_p", floats(0.0)), ("is_causal", flag(True)),
              ("attn_mask", "m"), ("scale", floats(0.5))]
    graph.node("_scaled_dot_product_flash_attention_for_cpu.default",
               [("query", "q"), ("key", "k"), ("value", "v")] + common,
               [("out", F32, [1, 2, 3, 3], BSHE), ("lse", F32, [1, 2, 3], [0, 2, 1])])
    graph.node("_scaled_dot_product_flash_attention_for_cpu_backward.default",
               [("grad_out", "g"), ("query", "q"), ("key", "k"), ("value", "v"),
                ("out", "out"), ("logsumexp", "lse")] + common,
               [("grad_q", F32, [1, 2, 3, 2], BSHE), ("grad_k", F32, [1, 2, 4, 2]),
                ("grad_v", F32, [1, 2, 4, 3])])
    graph.outputs = ["out", "lse", "grad_q", "grad_k", "grad_v"]
    out, lse = attention(x["q"], x["k"], x["v"], x["m"], 0.5, True)
    out, lse = rounded(out), rounded(lse)
    grads = attention_backward(x["g"], x["q"], x["k"], x["v"], out, lse, x["m"], 0.5, True)
    write_case("cpu", graph, x, {"out": out, "lse": lse,
                                 **{n: rounded(d) for n, d in zip(graph.outputs[2:], grads)}})


def case_efficient(rng):
    """Memory-efficient attention and its backward: one key/value head for
    two query heads, an additive bias over the heads, the default scale, the
    logsumexp padded to 32 with +inf, zeros for the random-number state."""
    x = randoms(rng, q=[1, 2, 3, 2], k=[1, 1, 4, 2], v=[1, 1, 4, 2],
                bias=[1, 1, 3, 4], g=[1, 2, 3, 2])
    graph = graph_of(x)
    graph.node("_scaled_dot_product_efficient_attention.default",
               [("query", "q"), ("key", "k"), ("value", "v"), ("attn_bias", "bias"),
                ("compute_log_sumexp", flag(True)), ("dropout_p", floats(0.0))],
               [("out", F32, [1, 2, 3, 2], BSHE), ("lse", F32, [1, 2, 32]),
                ("seed", I64, []), ("offset", I64, [])])
    graph.node("_scaled_dot_product_efficient_attention_backward.default",
               [("grad_out_", "g"), ("query", "q"), ("key", "k"), ("value", "v"),
                ("attn_bias", "bias"), ("out", "out"), ("logsumexp", "lse"),
                ("philox_seed", "seed"), ("philox_offset", "offset"),
                ("dropout_p", floats(0.0)),
                ("grad_input_mask", {"as_bools": [True, True, True, False]})],
               [("grad_q", F32, [1, 2, 3, 2]), ("grad_k", F32, [1, 1, 4, 2]),
                ("grad_v", F32, [1, 1, 4, 2]), NONE])
    graph.outputs = ["out", "lse", "seed", "grad_q", "grad_k", "grad_v"]
    scale = 1 / math.sqrt(2)
    out, lse = attention(x["q"], x["k"], x["v"], x["bias"], scale, False)
    out, lse = rounded(out), rounded(lse)
    grads = attention_backward(x["g"], x["q"], x["k"], x["v"], out, lse, x["bias"], scale, False)
    padded = []
    for row in range(2):
        padded += lse.values[3 * row:3 * row + 3] + [INF] * 29
    write_case("efficient", graph, x, {
        "out": out, "lse": Tensor([1, 2, 32], padded), "seed": Tensor([], [0], I64),
        **{n: rounded(d) for n, d in zip(graph.outputs[3:], grads)}})


def case_sdpa(rng):
    """scaled_dot_product_attention itself: rank 3 ([N, L, E], no heads)
    with a key and value of batch 1 and a boolean mask [L, S], the default
    scale; and rank 4 with enable_gqa (two key/value heads for four query
    heads), causal, an explicit scale."""
    x = {"q3": rand(rng, [2, 3, 2]), "k3": rand(rng, [1, 4, 2]), "v3": rand(rng, [1, 4, 2]),
         "mask": Tensor([3, 4], [True, False, True, True, False, True, True, False,
                                 True, True, False, True], BOOL),
         "q4": rand(rng, [1, 4, 3, 2]), "k4": rand(rng, [1, 2, 3, 2]),
         "v4": rand(rng, [1, 2, 3, 2])}
    graph = graph_of(x)
    graph.node("scaled_dot_product_attention.default",
               [("query", "q3"), ("key", "k3"), ("value", "v3"), ("attn_mask", "mask")],
               [("attn3", F32, [2, 3, 2])])
    graph.node("scaled_dot_product_attention.default",
               [("query", "q4"), ("key", "k4"), ("value", "v4"), ("is_causal", flag(True)),
                ("scale", floats(0.3)), ("enable_gqa", flag(True))],
               [("attn4", F32, [1, 4, 3, 2])])
    graph.outputs = ["attn3", "attn4"]
    headed = lambda t: Tensor([t.shape[0], 1] + t.shape[1:], t.values)
    attn3, _ = attention(headed(x["q3"]), headed(x["k3"]), headed(x["v3"]), x["mask"],
                            1 / math.sqrt(2), False)
    attn4, _ = attention(x["q4"], x["k4"], x["v4"], None, 0.3, True)
    write_case("sdpa", graph, x, {"attn3": rounded(Tensor([2, 3, 2], attn3.values)),
                                  "attn4": rounded(attn4)})


def case_flash(rng):
    """CUDA flash attention and its backward: no mask, causal; its None and
    SymInt outputs, zeros for the random-number state (int64 here; PyTorch
    writes uint64, which Stride lacks) and the empty debug mask."""
    x = randoms(rng, q=[1, 2, 3, 2], k=[1, 2, 3, 2], v=[1, 2, 3, 2], g=[1, 2, 3, 2])
    graph = graph_of(x)
    graph.node("_scaled_dot_product_flash_attention.default",
               [("query", "q"), ("key", "k"), ("value", "v"), ("dropout_p", floats(0.0)),
                ("is_causal", flag(True)), ("return_debug_mask", flag(False)),
                ("scale", floats(0.5))],
               [("out", F32, [1, 2, 3, 2], BSHE), ("lse", F32, [1, 2, 3]), NONE, NONE, 3, 3,
                ("rng_state", I64, [2]), ("unused", I64, []), ("out_unused_8", F32, [0])])
    graph.node("_scaled_dot_product_flash_attention_backward.default",
               [("grad_out", "g"), ("query", "q"), ("key", "k"), ("value", "v"),
                ("out", "out"), ("logsumexp", "lse"), ("cum_seq_q", None),
                ("cum_seq_k", None), ("max_q", ints(3)), ("max_k", ints(3)),
                ("dropout_p", floats(0.0)), ("is_causal", flag(True)),
                ("philox_seed", "rng_state"), ("philox_offset", "unused"),
                ("scale", floats(0.5))],
               [("grad_q", F32, [1, 2, 3, 2], BSHE), ("grad_k", F32, [1, 2, 3, 2], BSHE),
                ("grad_v", F32, [1, 2, 3, 2], BSHE)])
    graph.outputs = ["out", "lse", "rng_state", "grad_q", "grad_k", "grad_v"]
    out, lse = attention(x["q"], x["k"], x["v"], None, 0.5, True)
    out, lse = rounded(out), rounded(lse)
    grads = attention_backward(x["g"], x["q"], x["k"], x["v"], out, lse, None, 0.5, True)
    write_case("flash", graph, x, {
        "out": out, "lse": lse, "rng_state": Tensor([2], [0, 0], I64),
        **{n: rounded(d) for n, d in zip(graph.outputs[3:], grads)}})


def case_cudnn(rng):
    """cuDNN attention and its backward: an additive bias [B, H, L, S], the
    logsumexp as [B, H, L, 1]."""
    x = randoms(rng, q=[1, 2, 3, 2], k=[1, 2, 3, 2], v=[1, 2, 3, 2],
                bias=[1, 2, 3, 3], g=[1, 2, 3, 2])
    graph = graph_of(x)
    graph.node("_scaled_dot_product_cudnn_attention.default",
               [("query", "q"), ("key", "k"), ("value", "v"), ("attn_bias", "bias"),
                ("compute_log_sumexp", flag(True)), ("dropout_p", floats(0.0)),
                ("is_causal", flag(False)), ("return_debug_mask", flag(False))],
               [("out", F32, [1, 2, 3, 2], BSHE), ("lse", F32, [1, 2, 3, 1]), NONE, NONE,
                3, 3, ("seed", I64, []), ("offset", I64, []), NONE])
    graph.node("_scaled_dot_product_cudnn_attention_backward.default",
               [("grad_out", "g"), ("query", "q"), ("key", "k"), ("value", "v"),
                ("out", "out"), ("logsumexp", "lse"), ("philox_seed", "seed"),
                ("philox_offset", "offset"), ("attn_bias", "bias"), ("cum_seq_q", None),
                ("cum_seq_k", None), ("max_q", ints(3)), ("max_k", ints(3)),
                ("dropout_p", floats(0.0)), ("is_causal", flag(False))],
               [("grad_q", F32, [1, 2, 3, 2]), ("grad_k", F32, [1, 2, 3, 2]),
                ("grad_v", F32, [1, 2, 3, 2])])
    graph.outputs = ["out", "lse", "grad_q", "grad_k", "grad_v"]
    scale = 1 / math.sqrt(2)
    out, lse = attention(x["q"], x["k"], x["v"], x["bias"], scale, False)
    out, lse = rounded(out), rounded(lse)
    grads = attention_backward(x["g"], x["q"], x["k"], x["v"], out, lse, x["bias"], scale, False)
    write_case("cudnn", graph, x, {
        "out": out, "lse": Tensor([1, 2, 3, 1], lse.values),
        **{n: rounded(d) for n, d in zip(graph.outputs[2:], grads)}})


def error(name, target, args, outputs, inputs):
    """An archive whose one node Stride refuses: inputs (name -> f32 shape,
    or a tuple (dtype, shape)), the node's arguments and outputs."""
    graph = Graph()
    for input_name, shape in inputs.items():
        dtype, shape = shape if isinstance(shape, tuple) else (F32, shape)
        graph.input(input_name, dtype, shape)
    graph.node(target, args, outputs)
    graph.outputs = [outputs[0][0]]
    write_archive("error-" + name, graph)


SDPA = "scaled_dot_product_attention.default"
QKV = [("query", "q"), ("key", "k"), ("value", "v")]
SMALL = {"q": [1, 2, 3, 2], "k": [1, 2, 3, 2], "v": [1, 2, 3, 2]}
BACKWARD_INPUTS = dict(SMALL, g=[1, 2, 3, 2], out=[1, 2, 3, 2], lse=[1, 2, 3])
BACKWARD_ARGS = [("grad_out", "g")] + QKV + [("out", "out"), ("logsumexp", "lse")]
GRADS = [("grad_q", F32, [1, 2, 3, 2]), ("grad_k", F32, [1, 2, 3, 2]),
         ("grad_v", F32, [1, 2, 3, 2])]


def errors():
    out = [("attn", F32, [1, 2, 3, 2])]
    error("dropout", SDPA, QKV + [("dropout_p", floats(0.1))], out, SMALL)
    error("rank5", SDPA, QKV, [("attn", F32, [1, 1, 2, 3, 2])],
          {n: [1, 1, 2, 3, 2] for n in "qkv"})
    error("ranks", SDPA, QKV, out, dict(SMALL, k=[2, 3, 2]))
    error("rank3-fused", "_scaled_dot_product_flash_attention_for_cpu.default", QKV,
          [("attn", F32, [1, 3, 2]), ("lse", F32, [1, 3])], {n: [1, 3, 2] for n in "qkv"})
    error("gqa-divides", SDPA, QKV + [("enable_gqa", flag(True))],
          [("attn", F32, [1, 4, 3, 2])], {"q": [1, 4, 3, 2], "k": [1, 3, 3, 2], "v": [1, 3, 3, 2]})
    error("heads", SDPA, QKV, [("attn", F32, [1, 4, 3, 2])], dict(SMALL, q=[1, 4, 3, 2]))
    error("kv-heads", SDPA, QKV + [("enable_gqa", flag(True))], [("attn", F32, [1, 4, 3, 2])],
          {"q": [1, 4, 3, 2], "k": [1, 2, 3, 2], "v": [1, 4, 3, 2]})
    error("mask-dtype", SDPA, QKV + [("attn_mask", "m")], out, dict(SMALL, m=(I64, [3, 3])))
    error("batch", SDPA, QKV, [("attn", F32, [3, 2, 3, 2])],
          {"q": [2, 2, 3, 2], "k": [3, 2, 3, 2], "v": [3, 2, 3, 2]})
    error("output-shape", SDPA, QKV, [("attn", F32, [1, 2, 3, 5])], SMALL)
    # A fused variant whose output 0 (the result) is None (found by the
    # archive fuzzer: the importer read the type of the absent output).
    graph = Graph()
    for input_name, shape in SMALL.items():
        graph.input(input_name, F32, shape)
    graph.node("_scaled_dot_product_flash_attention_for_cpu.default", QKV,
               [NONE, ("lse", F32, [1, 2, 3])])
    graph.outputs = ["lse"]
    write_archive("error-output-none", graph)
    error("lse-output", "_scaled_dot_product_flash_attention_for_cpu.default", QKV,
          out + [("lse", F32, [1, 2, 2])], SMALL)
    error("lse-input", "_scaled_dot_product_flash_attention_for_cpu_backward.default",
          BACKWARD_ARGS + [("dropout_p", floats(0.0)), ("is_causal", flag(False))], GRADS,
          dict(BACKWARD_INPUTS, lse=[1, 2, 3, 2]))
    error("debug-mask", "_scaled_dot_product_flash_attention.default",
          QKV + [("dropout_p", floats(0.0)), ("is_causal", flag(False)),
                 ("return_debug_mask", flag(True))],
          out + [("lse", F32, [1, 2, 3]), NONE, NONE, 3, 3, ("seed", I64, [2]),
                 ("offset", I64, []), ("debug", F32, [1, 2, 3, 128])], SMALL)
    error("flash-uint64", "_scaled_dot_product_flash_attention.default",
          QKV + [("dropout_p", floats(0.0)), ("is_causal", flag(False))],
          out + [("lse", F32, [1, 2, 3]), NONE, NONE, 3, 3, ("rng_state", U64, [2]),
                 ("unused", U64, []), ("debug", F32, [0])], SMALL)
    error("flash-causal", "_scaled_dot_product_flash_attention_backward.default",
          BACKWARD_ARGS + [("cum_seq_q", None), ("cum_seq_k", None), ("max_q", ints(3)),
                           ("max_k", ints(4)), ("dropout_p", floats(0.0)),
                           ("is_causal", flag(True)), ("philox_seed", None),
                           ("philox_offset", None)],
          [("grad_q", F32, [1, 2, 3, 2]), ("grad_k", F32, [1, 2, 4, 2]),
           ("grad_v", F32, [1, 2, 4, 2])],
          dict(BACKWARD_INPUTS, k=[1, 2, 4, 2], v=[1, 2, 4, 2]))
    error("grad-bias", "_scaled_dot_product_efficient_attention_backward.default",
          [("grad_out_", "g")] + QKV + [("attn_bias", "bias"), ("out", "out"),
                                        ("logsumexp", "lse"), ("philox_seed", None),
                                        ("philox_offset", None), ("dropout_p", floats(0.0)),
                                        ("grad_input_mask", {"as_bools": [True] * 4})],
          GRADS + [("grad_bias", F32, [1, 2, 3, 3])],
          dict(BACKWARD_INPUTS, bias=[1, 2, 3, 3]))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(39)
    for case in (case_cpu, case_efficient, case_sdpa, case_flash, case_cudnn):
        case(rng)
    errors()


if __name__ == "__main__":
    main()
