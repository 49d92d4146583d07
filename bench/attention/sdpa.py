#!/usr/bin/env python3
"""PyTorch side of bench/attention (Python, run on the GPU machine; Stride
itself has no Python). Times attention alone, forward and backward, with each
of PyTorch's SDPA backends (flash, memory-efficient, cuDNN, math) on the
shapes of GPT-2 (12 heads x 64), LLaMA (32 query heads, 8 key/value heads x
128) and BERT (12 x 64 with a padding mask: additive as BERT builds it, and
boolean as bert_bool), and prints each backend's error
against an f32 reference computed from the same (rounded) inputs.

  sdpa.py torch [--tokens 128,512,...] [--dtypes bf16,f16,f32]
                [--models gpt2,llama,bert,bert_bool] [--causal both|yes|no] [--json FILE]
      time PyTorch's backends alone, print a table, write every figure to FILE
  sdpa.py run --bin DIR [--work DIR] [same options]
      the same, and Stride beside them in the same run: for each case a graph
      with one stride.attention (and one with its backward) is written,
      compiled with DIR/stridec and timed with DIR/stride-run-gpu --bench
      on the same inputs; its outputs are checked against the f32 reference
      beside PyTorch's backends' errors

Times are medians over 30 warm samples, each the mean of 10 back-to-back
calls between two CUDA events (as stride-run-gpu --bench times Stride); the
backward is timed as forward + backward minus forward. With `run`, the
fastest fused backend of each direction is timed again after Stride (the
GPU's clocks drift over a long run, and Stride's timing comes last), and
Stride is compared with the mean of its two timings; the "again" column
prints the second, so the spread of one version timed twice is in the
table.
"""
import argparse
import json
import re
import subprocess
import math
import os
import statistics
import sys

import numpy as np
import torch

from graphs import MODELS, backward_graph, cases, forward_graph  # noqa: E402

# stride_export.py: beside this file in the bundle, in tools/ in the repository.
sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                             "tools", "stride-export")]
import stride_export as sx  # noqa: E402
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "math": SDPBackend.MATH,
}
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}

def make_inputs(model, b, hq, hkv, s, d, causal, dt, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dtype = DTYPES[dt]
    q = torch.randn(b, hq, s, d, device="cuda", generator=g).to(dtype)
    k = torch.randn(b, hkv, s, d, device="cuda", generator=g).to(dtype)
    v = torch.randn(b, hkv, s, d, device="cuda", generator=g).to(dtype)
    mask = None
    if MODELS[model][4]:
        # A padding mask [b, 1, 1, s] over the last eighth of each sequence:
        # additive as BERT's attention builds it (0 for the tokens kept, the
        # dtype's lowest for padding), or boolean (true for the tokens kept).
        keep = torch.ones(b, s, device="cuda")
        keep[:, s - s // 8:] = 0
        if MODELS[model][4] == "bool":
            mask = keep.bool()[:, None, None, :]
        else:
            mask = ((1.0 - keep) * torch.finfo(dtype).min).to(dtype)[:, None, None, :]
    return q, k, v, mask


def additive(mask):
    """The mask as f32 scores to add (a boolean one: 0 or -inf)."""
    if mask is None or mask.dtype != torch.bool:
        return None if mask is None else mask.float()
    return torch.zeros(mask.shape, device=mask.device).masked_fill(~mask, float("-inf"))


def attention(q, k, v, mask, causal):
    gqa = q.shape[1] != k.shape[1]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                          is_causal=causal, enable_gqa=gqa)


def reference(q, k, v, mask, causal, grad):
    """The f32 reference: the same rounded inputs, upcast, math backend
    (TF32 off)."""
    q32, k32, v32 = (t.float().requires_grad_() for t in (q, k, v))
    m32 = additive(mask)
    with sdpa_kernel([SDPBackend.MATH]):
        out = attention(q32, k32, v32, m32, causal)
    out.backward(grad.float())
    return out.detach(), q32.grad, k32.grad, v32.grad


def rel_err(x, ref):
    x = x.float()
    return (torch.linalg.vector_norm(x - ref) /
            torch.linalg.vector_norm(ref)).item()


# Calls per timed sample: stride-run-gpu --bench times the mean of 10
# launches between two events (tools/benchmark, kLaunchesPerTimedSample),
# so PyTorch's calls are timed the same way. With one call per sample,
# PyTorch's 30 samples kept the GPU busy for 1/10 of Stride's 300 launches;
# at LLaMA 1 x 8192 f16 the H200 then ran the same cuDNN kernel at a median
# of 1.71 ms for PyTorch and 1.85 ms for Stride (both 1.64 ms alone under
# ncu): the clocks of a longer run, not a slower kernel.
CALLS_PER_SAMPLE = 10


def time_ms(fn, repeat=30):
    """The median over `repeat` samples of the mean time of CALLS_PER_SAMPLE
    back-to-back calls of `fn`."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(CALLS_PER_SAMPLE):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / CALLS_PER_SAMPLE)
    return statistics.median(times)


def flops(b, hq, s, d, causal):
    f = 4.0 * b * hq * s * s * d
    return f / 2 if causal else f


def run_torch(args):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results = {}
    for name, model, b, hq, hkv, s, d, causal, dt in cases(args.tokens, args.dtypes):
        if args.models and model not in args.models:
            continue
        if args.causal != "both" and causal != (args.causal == "yes"):
            continue
        q, k, v, mask = make_inputs(model, b, hq, hkv, s, d, causal, dt)
        grad = torch.randn(b, hq, s, d, device="cuda").to(q.dtype)
        ref = reference(q, k, v, mask, causal, grad) if s <= args.ref_tokens else None
        row = {"model": model, "b": b, "hq": hq, "hkv": hkv, "s": s, "d": d,
               "causal": causal, "dtype": dt,
               "gflop_fwd": flops(b, hq, s, d, causal) / 1e9}
        for backend in BACKENDS:
            if backend == "math" and s > args.math_tokens:
                continue
            row[backend] = time_backend(backend, q, k, v, mask, causal, grad, ref)
            torch.cuda.empty_cache()
        if getattr(args, "bin", None):
            row["stride"] = stride_case(name, model, b, hq, hkv, s, d, causal, dt,
                                        q, k, v, mask, grad, ref, args)
            for key in ("fwd_ms", "bwd_ms"):
                backend = fastest_backend(row, key)
                if backend:
                    again = time_backend(backend, q, k, v, mask, causal, grad, None)
                    row[backend][key + "_again"] = again.get(key)
        results[name] = row
        print_row(name, row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def time_backend(backend, q, k, v, mask, causal, grad, ref):
    """One backend's forward and backward times (and errors against `ref`,
    if given), or why it refuses the case."""
    qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
    try:
        with sdpa_kernel([BACKENDS[backend]]):
            def fwd():
                with torch.no_grad():
                    return attention(q, k, v, mask, causal)
            def fwd_bwd():
                # Fresh gradients each call: the last call's are checked.
                qg.grad = kg.grad = vg.grad = None
                out = attention(qg, kg, vg, mask, causal)
                out.backward(grad)
                return out
            out = fwd_bwd()
            entry = {"fwd_ms": time_ms(fwd)}
            entry["bwd_ms"] = max(0.0, time_ms(fwd_bwd) - entry["fwd_ms"])
            if ref is not None:
                entry["err_out"] = rel_err(out, ref[0])
                entry["err_dq"] = rel_err(qg.grad, ref[1])
                entry["err_dk"] = rel_err(kg.grad, ref[2])
                entry["err_dv"] = rel_err(vg.grad, ref[3])
    except RuntimeError as e:  # the backend refuses this case
        entry = {"refused": str(e).splitlines()[0][:160]}
    return entry


def fmt(entry, key):
    if "refused" in entry:
        return "   -  "
    return f"{entry[key]:6.3f}" if key in entry else "   ?  "


def fastest_backend(row, key):
    """The fused backend (math is not fused) fastest at `key`, or None."""
    timed = [b for b in ("flash", "efficient", "cudnn") if key in row.get(b, {})]
    return min(timed, key=lambda b: row[b][key]) if timed else None


def fastest(row, key):
    """The fastest fused backend's time for `key`: the mean of its timings
    before and after Stride's where it was timed again."""
    backend = fastest_backend(row, key)
    if backend is None:
        return None
    entry = row[backend]
    again = entry.get(key + "_again")
    return (entry[key] + again) / 2 if again else entry[key]


def again_text(row):
    """The second timing of each direction's fastest backend, if any."""
    parts = []
    for key in ("fwd_ms", "bwd_ms"):
        backend = fastest_backend(row, key)
        again = row[backend].get(key + "_again") if backend else None
        if again:
            parts.append(f"{key[:3]} {backend} {again:.3f}")
    return " | again " + ", ".join(parts) if parts else ""


def print_row(name, row):
    cells = []
    for backend in list(BACKENDS) + (["stride"] if "stride" in row else []):
        e = row.get(backend)
        if e is None:
            cells.append("   n/a /    n/a")
        else:
            cells.append(f"{fmt(e, 'fwd_ms')} / {fmt(e, 'bwd_ms')}")
    line = f"{name:40s} " + " | ".join(cells)
    stride = row.get("stride", {})
    for key in ("fwd_ms", "bwd_ms"):
        best = fastest(row, key)
        if key in stride and best and stride[key]:
            line += f" | {key[:3]} {best / stride[key]:4.2f}x"
    line += again_text(row)
    if "err_out" in stride:
        errors = " ".join(f"{b}:{row[b]['err_out']:.1e}" for b in BACKENDS
                          if "err_out" in row.get(b, {}))
        line += f" | err out stride:{stride['err_out']:.1e} {errors}"
    if "refused" in stride:
        line += " | stride: " + stride["refused"][:80]
    print(line, flush=True)


# ----------------------------------------------------------------------------
# Stride: one graph per case and direction, compiled and timed by the tools


def save(path, t):
    """f16 and bool as they are; bf16 as f32 holding its values, which
    stride-run-gpu rounds back exactly; f32 as is."""
    t = t.detach().cpu()
    np.save(path, t.numpy() if t.dtype in (torch.float16, torch.bool)
            else t.float().numpy())


def run_stride(bin_dir, work, name, graph, inputs, args):
    """Compiles `graph`, runs it on `inputs` ({name: tensor}): (ms, {output
    name: f32 tensor}, error text)."""
    os.makedirs(work, exist_ok=True)
    source, module = os.path.join(work, f"{name}.mlir"), os.path.join(work, f"{name}.stridemod")
    prebuilt = (os.path.join(args.modules, os.path.basename(work), f"{name}.stridemod")
                if args.modules else None)
    if prebuilt and os.path.exists(prebuilt):
        module = prebuilt  # compiled where the compiler is (run.sh)
    else:
        with open(source, "w") as f:
            f.write(graph)
        done = subprocess.run([os.path.join(bin_dir, "stridec"), source, "-o", module],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return None, None, (done.stderr.strip().splitlines() or ["stridec failed"])[-1]
    command = [os.path.join(bin_dir, "stride-run-gpu"), module,
               "--output-dir", os.path.join(work, name + "_out"),
               "--bench", "--warmup", "3", "--iterations", str(args.iterations)]
    if args.tune_library_calls:
        command.append("--tune-library-calls")
    for arg, t in inputs.items():
        path = os.path.join(work, f"{name}_{arg}.npy")
        save(path, t)
        command += ["--input", f"{arg}={path}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return None, None, (done.stdout + done.stderr).strip().splitlines()[-1]
    found = re.search(r"median ([0-9.]+) ms", done.stdout)
    out_dir = os.path.join(work, name + "_out")
    outputs = {f[:-len(".npy")]: torch.from_numpy(np.load(os.path.join(out_dir, f)))
               for f in os.listdir(out_dir)}
    return float(found.group(1)) if found else None, outputs, None


def stride_case(name, model, b, hq, hkv, s, d, causal, dt, q, k, v, mask, grad, ref, args):
    """Stride's forward and backward on the case's inputs: times and errors."""
    work = os.path.join(args.work, name)
    small = None if mask is None else mask[:, :, :1, :]
    inputs = {"q": q, "k": k, "v": v}
    if small is not None:
        inputs["m"] = small
    entry = {}
    ms, outs, error = run_stride(args.bin, work, "fwd",
                                 forward_graph(b, hq, hkv, s, d, causal, dt, mask is not None),
                                 inputs, args)
    if error:
        return {"refused": error}
    entry["fwd_ms"] = ms
    if ref is not None:
        entry["err_out"] = rel_err(outs["o"].to(q.device), ref[0])
    # The backward reads PyTorch's output and logsumexp (f32 math), so it
    # is timed and checked on its own.
    with torch.no_grad():
        q32, k32, v32 = q.float(), k.float(), v.float()
        if hkv != hq:
            k32 = k32.repeat_interleave(hq // hkv, dim=1)
            v32 = v32.repeat_interleave(hq // hkv, dim=1)
        scores = (q32 @ k32.transpose(-1, -2)) / math.sqrt(d)
        if mask is not None:
            scores = scores + additive(mask)
        if causal:
            scores = scores.masked_fill(torch.ones(s, s, device=q.device, dtype=torch.bool)
                                        .triu(1), float("-inf"))
        lse = torch.logsumexp(scores, dim=-1)
        out = (torch.softmax(scores, dim=-1) @ v32).to(q.dtype)
        del scores
    inputs = {"do": grad, "q": q, "k": k, "v": v, "o": out, "lse": lse}
    if small is not None:
        inputs["m"] = small
    ms, outs, error = run_stride(args.bin, work, "bwd",
                                 backward_graph(b, hq, hkv, s, d, causal, dt, mask is not None),
                                 inputs, args)
    if error:
        entry["bwd_refused"] = error
        return entry
    entry["bwd_ms"] = ms
    if ref is not None:
        for key, ref_t in (("dq", ref[1]), ("dk", ref[2]), ("dv", ref[3])):
            entry[f"err_{key}"] = rel_err(outs[key].to(q.device), ref_t)
    return entry


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("torch")
    r = sub.add_parser("run")
    r.add_argument("--bin", required=True, help="folder with stridec and stride-run-gpu")
    r.add_argument("--work", default="/tmp/stride-attention")
    r.add_argument("--iterations", type=int, default=30)
    r.add_argument("--tune-library-calls", action="store_true",
                   help="let stride-run-gpu time cuDNN's engine configurations and keep "
                   "the fastest (else the heuristics' first)")
    r.add_argument("--modules", help="folder of modules compiled beforehand "
                   "(DIR/<case>/fwd.stridemod, bwd.stridemod: graphs.py, then stridec); "
                   "a case without one is compiled with --bin's stridec")
    for t in (t, r):
        add_case_options(t)
    args = p.parse_args()
    cudnn = sx.use_torchs_cudnn() if args.cmd == "run" else None
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}; ms fwd / bwd per backend: "
          + " | ".join(BACKENDS) + (" | stride; x: Stride's speed over the fastest fused "
                                    "backend" if args.cmd == "run" else "") +
          (f"; Stride's cuDNN: {cudnn}" if cudnn else ""), flush=True)
    run_torch(args)


def add_case_options(t):
    t.add_argument("--tokens", default="128,512,1024,2048,4096,8192,16384",
                   type=lambda x: [int(v) for v in x.split(",")])
    t.add_argument("--dtypes", default="bf16,f16,f32",
                   type=lambda x: x.split(","))
    t.add_argument("--models", type=lambda x: x.split(","),
                   help="only these of gpt2,llama,bert,bert_bool (default: all)")
    t.add_argument("--causal", choices=("both", "yes", "no"), default="both",
                   help="only the causal or the non-causal cases")
    t.add_argument("--ref-tokens", type=int, default=4096,
                   help="compute the f32 reference (and errors) up to this many tokens")
    t.add_argument("--math-tokens", type=int, default=4096,
                   help="time the math backend up to this many tokens")
    t.add_argument("--json")


if __name__ == "__main__":
    main()
