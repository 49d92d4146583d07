#!/usr/bin/env python3
"""PyTorch side of bench/compare.sh, run on the GPU machine (not part of the
product: Stride itself has no Python). For each benchmark graph it makes the
inputs (saved as .npy for Stride; bf16 inputs as f32 holding bf16 values,
which stride-run-gpu rounds back exactly), times PyTorch eager and
torch.compile with CUDA events, and checks Stride's, eager's and
torch.compile's outputs against an f64 eager reference computed on the same
inputs. Two tables: the memory-bound graphs (against the copy-bandwidth
floor) and the matrix-product graphs (TFLOP/s, and Stride's speed relative to
eager and to torch.compile).

  torch_bench.py inputs DIR            write DIR/<graph>/argN.npy
  torch_bench.py report DIR RESULTS    time torch, compare, print the table
"""
import json
import os
import statistics
import sys

import numpy as np
import torch
import torch.nn.functional as F

GIB = 1 << 30

# name -> (argument shapes/dtypes, torch function, minimal bytes moved)
def seed_bwd(g):
    e = g.unsqueeze(1).expand(64, 1024, 4096)
    z = torch.zeros(64, 512, 4096, dtype=g.dtype, device=g.device)
    return torch.slice_scatter(e, z, dim=1, start=0, end=512)

def seed_fwd(x, y):
    return torch.slice_scatter(x, y, dim=1, start=0, end=512).sum(dim=1)

def bias_gelu_residual(x, bias, r):
    return F.gelu(x + bias.expand(16384, 4096)) + r

def transpose_add(x, z):
    return x.permute(0, 2, 1) * 2 + z

def index_add(idx, src):
    z = torch.zeros(65536, 1024, dtype=src.dtype, device=src.device)
    return z.index_add(0, idx, src)

def select_scatter_mul(x, row):
    return torch.select_scatter(x, row, dim=1, index=3) * 0.5

def softmax(x):
    m = x.amax(dim=1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=1, keepdim=True)

# The forms of the shapes sweep (bench/shapes/gen.sh writes their graphs):
# FORM_DTYPE_ROWSxLENGTH, the rows the kept dim and the length the reduced
# one. form -> (argument shapes/dtypes, torch function, elements moved),
# each a function of (rows, length, dtype).
def layernorm(x, w, b):
    return F.layer_norm(x, [x.shape[-1]], w, b, eps=1e-5)

def causal_softmax(x, mask):
    """GPT-2's attention softmax: scaled scores plus a causal mask."""
    z = x * 0.125 + mask
    e = torch.exp(z - z.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)


FORMS = {
    "sum_all": (lambda r, l, d: [((r, l), d)], lambda x: x.sum(), lambda r, l: r * l + 1),
    "sum_rows": (lambda r, l, d: [((r, l), d)], lambda x: x.sum(dim=1), lambda r, l: r * l + r),
    "sum_cols": (lambda r, l, d: [((r, l), d)], lambda x: x.sum(dim=0), lambda r, l: r * l + l),
    "softmax": (lambda r, l, d: [((r, l), d)], softmax, lambda r, l: 2 * r * l),
    "layernorm": (lambda r, l, d: [((r, l), d), ((l,), d + ":ln"), ((l,), d)], layernorm,
                  lambda r, l: 2 * r * l + 2 * l),
    "permute_add": (lambda r, l, d: [((r, l), d), ((l, r), d)],
                    lambda x, z: x.permute(1, 0) + z, lambda r, l: 3 * r * l),
    "causal_softmax": (lambda r, l, d: [((r // l, l, l), d), ((l, l), d + ":causal")],
                       causal_softmax, lambda r, l: 2 * r * l + l * l),
}
ELEMENT_BYTES = {"f32": 4, "bf16": 2}


def shaped_graph(name):
    """(argument shapes/dtypes, torch function, minimal bytes moved) of the
    sweep graph `name` (FORM_DTYPE_ROWSxLENGTH)."""
    form, dtype, size = name.rsplit("_", 2)
    rows, length = (int(n) for n in size.split("x"))
    args, fn, elements = FORMS[form]
    return (args(rows, length, dtype), fn, elements(rows, length) * ELEMENT_BYTES[dtype])


# The shapes of issue 17's table (bench/*.mlir, written by bench/shapes/gen.sh).
ISSUE_GRAPHS = ["sum_all_f32_16384x4096", "layernorm_f32_16384x4096", "sum_cols_f32_65536x1024",
                "sum_rows_f32_4194304x8", "permute_add_f32_8191x8193",
                "softmax_f32_1024x32768", "sum_rows_f32_1024x65536"]

GRAPHS = {
    "seed_bwd": ([((64, 4096), "f32")], seed_bwd, 1_074_790_400),
    "seed_fwd": ([((64, 1024, 4096), "f32"), ((64, 512, 4096), "f32")], seed_fwd, 1_074_790_400),
    "bias_gelu_residual": ([((16384, 4096), "f32"), ((4096,), "f32"), ((16384, 4096), "f32")],
                           bias_gelu_residual, 805_322_752),
    "transpose_add": ([((64, 1024, 1024), "f32"), ((64, 1024, 1024), "f32")], transpose_add, 805_306_368),
    "index_add": ([((65536,), "i64:65536"), ((65536, 1024), "f32")], index_add, 537_395_200),
    "select_scatter_mul": ([((4096, 16, 4096), "f32"), ((4096, 4096), "f32")], select_scatter_mul,
                           2_147_483_648),
    "softmax": ([((65536, 1024), "f32")], softmax, 536_870_912),
}
GRAPHS.update({name: shaped_graph(name) for name in ISSUE_GRAPHS})

# GPT-2 small at 8192 tokens: its four GEMMs (torch.matmul), the MLP's
# up-projection with bias and GELU (tanh), and the MLP block.
TOKENS = 8192


def gelu_tanh(h):
    return F.gelu(h, approximate="tanh")


def linear_bias_gelu(x, w, b):
    return gelu_tanh(F.linear(x, w, b))


def mlp_block(x, ln_w, ln_b, w1, b1, w2, b2):
    return x + F.linear(gelu_tanh(F.linear(F.layer_norm(x, [768], ln_w, ln_b), w1, b1)), w2, b2)


def matmul_graphs():
    """name -> (argument shapes/dtypes, torch function, floating-point
    operations, tolerance of the norm-wise relative error)."""
    graphs = {}
    for dt in ("f32", "bf16"):
        rtol = 1e-5 if dt == "f32" else 1e-2
        for k, n in ((768, 2304), (768, 768), (768, 3072), (3072, 768)):
            graphs[f"gemm_{k}x{n}_{dt}"] = (
                [((TOKENS, k), dt), ((k, n), dt + ":w")], torch.matmul, 2 * TOKENS * k * n, rtol)
        graphs[f"linear_bias_gelu_{dt}"] = (
            [((TOKENS, 768), dt), ((3072, 768), dt + ":w"), ((3072,), dt)],
            linear_bias_gelu, 2 * TOKENS * 768 * 3072, rtol)
        graphs[f"mlp_block_{dt}"] = (
            [((TOKENS, 768), dt), ((768,), dt + ":ln"), ((768,), dt), ((3072, 768), dt + ":w"),
             ((3072,), dt), ((768, 3072), dt + ":w"), ((768,), dt)],
            mlp_block, 2 * 2 * TOKENS * 768 * 3072, rtol)
    return graphs


MATMUL_GRAPHS = matmul_graphs()
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}


def make_inputs(name, seed=0):
    return inputs_of(GRAPHS[name][0] if name in GRAPHS else MATMUL_GRAPHS[name][0], seed)


def inputs_of(spec, seed=0):
    """Random inputs of the argument shapes/dtypes `spec`, on the GPU."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    args = []
    for shape, kind in spec:
        if kind.startswith("i64"):
            bound = int(kind.split(":")[1])
            args.append(torch.randint(0, bound, shape, generator=gen, device="cuda", dtype=torch.int64))
            continue
        dtype, _, role = kind.partition(":")
        t = torch.rand(shape, generator=gen, device="cuda", dtype=torch.float32) * 2 - 1
        if role == "w":  # a weight: scaled like a trained layer's
            t = t / max(shape) ** 0.5
        elif role == "ln":  # LayerNorm's scale, around 1
            t = 1 + t / 4
        elif role == "causal":  # an attention mask: -inf above the diagonal
            t = torch.full(shape, float("-inf"), device="cuda").triu(1)
        args.append(t.to(DTYPES[dtype]))
    return args


def time_ms(fn, warmup=5, batches=15, per_batch=10):
    """Median over batches of the mean time of `per_batch` back-to-back calls,
    timed with CUDA events. Calls queue up while the GPU works, so Python's
    and the launcher's overhead stay off the clock: the kindest timing for
    PyTorch (Stride's own figure times every replay of its plan alone)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(per_batch):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / per_batch)
    return statistics.median(times)


def copy_bandwidth():
    a = torch.empty(GIB // 4, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    ms = time_ms(lambda: b.copy_(a))
    return 2 * GIB / (ms * 1e-3)


def rel_err(out, ref):
    out = out.to(torch.float64)
    if not torch.isfinite(out).all():
        return float("inf")
    denom = torch.linalg.vector_norm(ref).item()
    return torch.linalg.vector_norm(out - ref).item() / (denom if denom else 1.0)


def save_inputs(directory, name, args):
    """DIR/<name>/argN.npy for stride-run-gpu."""
    os.makedirs(os.path.join(directory, name), exist_ok=True)
    for i, t in enumerate(args):
        if t.dtype == torch.bfloat16:  # .npy has no bf16: exact as f32
            t = t.float()
        np.save(os.path.join(directory, name, f"arg{i}.npy"), t.cpu().numpy())


def cmd_inputs(directory):
    for name in list(GRAPHS) + list(MATMUL_GRAPHS):
        save_inputs(directory, name, make_inputs(name))


def stride_row(stride_results, name, ref):
    s = stride_results.get(name, {})
    if s.get("output") and os.path.exists(s["output"]):
        out = torch.from_numpy(np.load(s["output"])).cuda()
        return (s["ms"], rel_err(out, ref))
    return (None, None)


def measure(fn, args, ref):
    """(eager, torch.compile): each (ms, relative error)."""
    eager = (time_ms(lambda: fn(*args)), rel_err(fn(*args), ref))
    compiled = torch.compile(fn)
    compiled(*args)
    return eager, (time_ms(lambda: compiled(*args)), rel_err(compiled(*args), ref))


def matmul_report(stride_results):
    rows = []
    for name, (_, fn, flops, rtol) in MATMUL_GRAPHS.items():
        args = make_inputs(name)
        ref = fn(*[a.double() for a in args])
        row = {"graph": name, "flops": flops, "rtol": rtol}
        row["eager"], row["compile"] = measure(fn, args, ref)
        row["stride"] = stride_row(stride_results, name, ref)
        rows.append(row)
        del args, ref
        torch.cuda.empty_cache()
    print_matmul_table(rows)


def cmd_report(directory, results_path):
    with open(results_path) as f:
        stride_results = json.load(f)  # name -> {"ms": float, "output": path or None}
    bw = copy_bandwidth()
    rows = []
    for name, (_, fn, nbytes) in GRAPHS.items():
        args = make_inputs(name)
        ref = fn(*[a.double() if a.is_floating_point() else a for a in args])
        floor_ms = nbytes / bw * 1e3
        row = {"graph": name, "bytes": nbytes, "floor_ms": floor_ms}
        row["eager"], row["compile"] = measure(fn, args, ref)
        row["stride"] = stride_row(stride_results, name, ref)
        rows.append(row)
        del args, ref
        torch.cuda.empty_cache()
    print_table(rows, bw)
    print()
    matmul_report(stride_results)


def fmt(entry, floor_ms):
    ms, err = entry
    if ms is None:
        return "n/a | n/a | not run"
    ok = "yes" if err is not None and err <= 1e-5 else f"NO (rel err {err:.2g})"
    return f"{ms:.4f} | {100 * floor_ms / ms:.0f}% | {ok}"


def print_table(rows, bw):
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"copy bandwidth {bw / 1e12:.2f} TB/s (read + write)")
    print("| graph | floor ms | Stride ms | % floor | correct | eager ms | % floor | correct "
          "| torch.compile ms | % floor | correct |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['graph']} | {r['floor_ms']:.4f} | {fmt(r['stride'], r['floor_ms'])} | "
              f"{fmt(r['eager'], r['floor_ms'])} | {fmt(r['compile'], r['floor_ms'])} |")


def fmt_flops(entry, flops, rtol):
    ms, err = entry
    if ms is None:
        return "n/a | n/a | not run"
    ok = "yes" if err is not None and err <= rtol else f"NO (rel err {err:.2g})"
    return f"{ms:.4f} | {flops / (ms * 1e-3) / 1e12:.0f} | {ok}"


def speed(stride, other):
    if stride[0] is None:
        return "n/a"
    return f"{other[0] / stride[0]:.3f}x"


def print_matmul_table(rows):
    print("Matrix products (TF32 off; correct: norm-wise relative error against f64 "
          "<= 1e-5 for f32, 1e-2 for bf16; speed: the other's time / Stride's)")
    print("| graph | Stride ms | TFLOP/s | correct | eager ms | TFLOP/s | correct "
          "| torch.compile ms | TFLOP/s | correct | vs eager | vs torch.compile |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [fmt_flops(r[k], r["flops"], r["rtol"]) for k in ("stride", "eager", "compile")]
        print(f"| {r['graph']} | {' | '.join(cells)} | {speed(r['stride'], r['eager'])} | "
              f"{speed(r['stride'], r['compile'])} |")


def main(inputs, report, usage):
    """The commands of a PyTorch side of bench/compare.sh: `inputs DIR` and
    `report DIR RESULTS`."""
    if len(sys.argv) >= 3 and sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        sys.exit(usage)


if __name__ == "__main__":
    main(cmd_inputs, cmd_report, __doc__)
