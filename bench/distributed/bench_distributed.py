#!/usr/bin/env python3
"""Stride's tensor-parallel benchmark (issue 43): a LLaMA-style decoder at
8B-class layer dims (hidden 4096, 32 heads, 8 KV heads, MLP 14336, vocab
32000), random weights, bf16, at TP = 1, 2, 4 on the GPUs of one host,
against PyTorch's tensor parallelism (DTensor parallelize_module, then
torch.compile) under torchrun, in one run.

Run it on a 2- or 4-GPU machine, in the bundle bench/distributed/prepare.sh
makes:

    ./run.sh [--tp N]... [--layers L] [--work DIR]

Cases: prefill (batch 1 x 4096 tokens: the logits of every position) and
decode (batch 1 and 32: one token with a static KV cache of --cache-len
positions, at position --position; stride.decode.CachedLM, as
bench/decode).

Stride: for each TP size N, the case is exported once (on the CPU; weights
in the archive), compiled once per rank (stridec --tensor-parallel=N
--rank=R; N = 1: no split) and run by the launcher, stride-run-gpu
MODEL.rank%d.stridemod --ranks N --bench (one process per GPU, each
replaying its plan as a CUDA graph; rank 0's median is the row's time, the
slowest rank's beside it). Rank 0's logits are checked against PyTorch
eager on one GPU (bf16: relative error max |d| / max |ref|, pass at 2e-2);
every rank returns the unsplit logits.

PyTorch: this script again under torchrun --nproc-per-node N
(--torch-worker): the same model (same seed), q/k/v and gate/up
ColwiseParallel, o and down RowwiseParallel, the embedding RowwiseParallel
and the LM head ColwiseParallel with replicated outputs (torchtitan's LLaMA
plan), then torch.compile; CUDA-event medians of rank 0. TP = 1: the model
under torch.compile alone.

Printed: one row per case and TP size with both times (ms), Stride's
speedup over its TP = 1 time of the case, and Stride's speedup over
PyTorch's time at the same TP; results.json in --work.

NVLink multicast stays off everywhere: NCCL_NVLS_ENABLE=0 is set here
before anything starts (torchrun and stride-run-gpu inherit it; the
runtime sets it too).

At TP > 1 each rank's decode module holds only its key/value heads of the
cache (python-free-docs/distributed.md, "A KV cache split by heads"). A
case Stride cannot compile is a row with its error.
"""

import os

# Before torch, NCCL or any child process starts.
os.environ["NCCL_NVLS_ENABLE"] = "0"

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "models"),
                os.path.join(HERE, "..", "decode"),
                os.path.join(HERE, "..", "..", "tools", "stride-export")]
import bench_models as bm  # noqa: E402
import stride_export as sx  # noqa: E402

BF16_RTOL = 2e-2
LLAMA_8B = dict(width=4096, heads=32, kv_heads=8, inner=14336, vocab=32000)


def make_model(args, name):
    """The decoder with seeded random weights (the same on every process):
    for prefill, the logits of every position, no cache (stride_export's
    llama); for decode, transformers' causal LM with its cache on."""
    torch.manual_seed(0)
    if name == "prefill":
        model, _ = sx.llama(layers=args.layers, batch=1, tokens=args.prefill_tokens,
                            dtype=torch.bfloat16, attention="sdpa", **LLAMA_8B)
        return model.eval()
    return sx.causal_lm("llama", torch.bfloat16, layers=args.layers, **LLAMA_8B).eval()


def cases(args):
    """(name, batch, tokens): prefill, then each decode batch."""
    found = [("prefill", 1, args.prefill_tokens)]
    found += [(f"decode_b{b}", b, 1) for b in args.decode_batch]
    return found


def case_inputs(name, batch, tokens, vocab, args):
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, vocab, (batch, tokens), generator=generator)
    if name == "prefill":
        return (ids,)
    return ids, torch.tensor([args.position], dtype=torch.int64)


def case_module(model, name, batch, args):
    """What the case calls: the prefill model itself, or one cached decode
    step (stride.decode.CachedLM: its logits and next position)."""
    if name == "prefill":
        return model
    from stride.decode import CachedLM
    return CachedLM(model, batch, args.cache_len, greedy=False).eval()


# ----------------------------------------------------------------------------
# PyTorch under torchrun


def causal_lm_of(module):
    for m in module.modules():
        if hasattr(m, "lm_head") and hasattr(m, "model"):
            return m
    raise RuntimeError("no transformers causal LM in the module")


def parallelize(module, tp):
    """torchtitan's LLaMA plan over a 1-D mesh of `tp` GPUs."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                                   parallelize_module)
    mesh = init_device_mesh("cuda", (tp,))
    lm = causal_lm_of(module)
    parallelize_module(lm, mesh, {
        "model.embed_tokens": RowwiseParallel(input_layouts=Replicate()),
        "lm_head": ColwiseParallel(output_layouts=Replicate()),
    })
    for layer in lm.model.layers:
        parallelize_module(layer, mesh, {
            "self_attn.q_proj": ColwiseParallel(),
            "self_attn.k_proj": ColwiseParallel(),
            "self_attn.v_proj": ColwiseParallel(),
            "self_attn.o_proj": RowwiseParallel(),
            "mlp.gate_proj": ColwiseParallel(),
            "mlp.up_proj": ColwiseParallel(),
            "mlp.down_proj": RowwiseParallel(),
        })
    return module


def torch_worker(args):
    """One rank of PyTorch's TP run (under torchrun): rank 0 writes
    {case: ms or error} to --result."""
    rank = int(os.environ.get("RANK", "0"))
    tp = int(os.environ.get("WORLD_SIZE", "1"))
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    if tp > 1:
        torch.distributed.init_process_group("nccl")
    results = {}
    for name, batch, tokens in cases(args):
        try:
            model = make_model(args, name).cuda()
            module = case_module(model, name, batch, args)
            if tp > 1:
                module = parallelize(module, tp)
            torch._dynamo.reset()
            compiled = torch.compile(module)
            inputs = [t.cuda() for t in case_inputs(name, batch, tokens,
                                                     LLAMA_8B["vocab"], args)]
            with torch.no_grad():
                results[name] = bm.median_ms(lambda: compiled(*inputs), args.warmup,
                                             args.iterations)
        except Exception as e:  # a failing case is a table entry
            results[name] = f"error: {type(e).__name__}: {str(e)[:300]}"
    if rank == 0:
        with open(args.result, "w") as f:
            json.dump(results, f)
    if tp > 1:
        torch.distributed.destroy_process_group()


def torch_times(args, tp):
    """PyTorch's times at `tp`: this script under torchrun."""
    result = os.path.join(args.work, f"torch_tp{tp}.json")
    command = ["torchrun", "--standalone", f"--nproc-per-node={tp}",
               os.path.abspath(__file__), "--torch-worker", "--result", result,
               *worker_args(args)]
    done, _ = bm.run(command, os.path.join(args.work, f"torch_tp{tp}.log"))
    if done.returncode != 0 or not os.path.exists(result):
        return {name: "error: " + " ".join(done.stdout.strip().splitlines()[-1:])
                for name, _, _ in cases(args)}
    with open(result) as f:
        return json.load(f)


def worker_args(args):
    out = ["--layers", str(args.layers), "--prefill-tokens", str(args.prefill_tokens),
           "--cache-len", str(args.cache_len), "--position", str(args.position),
           "--warmup", str(args.warmup), "--iterations", str(args.iterations),
           "--work", args.work]
    for b in args.decode_batch:
        out += ["--decode-batch", str(b)]
    return out


# ----------------------------------------------------------------------------
# Stride


def export_case(model, name, batch, tokens, args):
    """The case's archive, its inputs as .npy files and PyTorch eager's
    logits (one GPU, unsplit): (directory, graph description)."""
    directory = os.path.join(args.work, name)
    module = case_module(model, name, batch, args)
    inputs = case_inputs(name, batch, tokens, LLAMA_8B["vocab"], args)
    sx.export_model(module, inputs, directory, attention="fused")
    with open(os.path.join(directory, "export.json")) as f:
        graph = json.load(f)["graphs"]["model.pt2"]
    return directory, graph


def compile_ranks(args, directory, tp):
    """MODEL.rank<r>.stridemod for each rank; None, or the error."""
    archive = os.path.join(directory, "model.pt2")
    stridec = os.path.join(args.bin, "stridec")
    for rank in range(tp):
        module = os.path.join(directory, f"tp{tp}.rank{rank}.stridemod")
        split = [f"--tensor-parallel={tp}", f"--rank={rank}"] if tp > 1 else []
        done, _ = bm.run([stridec, archive, "-o", module, *split,
                          f"--cache-dir={os.path.join(args.work, 'nvrtc-cache')}"],
                         os.path.join(directory, "stridec.log"))
        if done.returncode != 0:
            return "error: " + " ".join(done.stdout.strip().splitlines()[-1:])
    return None


def run_ranks(args, directory, graph, tp):
    """stride-run-gpu --ranks tp --bench: rank 0's ms, the slowest rank's,
    and rank 0's logits' error against eager."""
    runner = os.path.join(args.bin, "stride-run-gpu")
    out = os.path.join(directory, f"tp{tp}-outputs")
    command = [runner, os.path.join(directory, f"tp{tp}.rank%d.stridemod"),
               "--ranks", str(tp), *bm.stride_inputs(directory, graph),
               "--output-dir", out, "--bench", "--warmup", str(args.warmup),
               "--iterations", str(args.iterations), "--tune-library-calls"]
    done, _ = bm.run(command, os.path.join(directory, f"tp{tp}-run.log"))
    if done.returncode != 0:
        return {"error": " ".join(done.stdout.strip().splitlines()[-1:])}
    times = [float(t) for t in re.findall(r"median ([0-9.]+) ms", done.stdout)]
    row = {"ms": times[0] if times else None, "slowest_ms": max(times, default=None)}
    name = graph["output_names"][0]
    expected = os.path.join(directory, "model_expected", f"{name}.npy")
    got = os.path.join(out, "rank0", f"{name}.npy")
    if os.path.exists(got) and os.path.exists(expected):
        row["error_vs_eager"] = bm.relative_error_of(np.load(got), np.load(expected))
    return row


# ----------------------------------------------------------------------------


def fmt(x, spec=".3f"):
    return format(x, spec) if isinstance(x, (int, float)) else "-"


def print_table(rows):
    print(f"\n{'case':<12} {'TP':>3} {'stride ms':>10} {'torch ms':>10} "
          f"{'vs TP=1':>8} {'vs torch':>9} {'err':>9}  note")
    for r in rows:
        s, t = r["stride"].get("ms"), r["torch"]
        vs_torch = t / s if isinstance(s, float) and isinstance(t, float) else None
        note = r["stride"].get("error") or (t if isinstance(t, str) else "")
        err = r["stride"].get("error_vs_eager")
        if isinstance(err, float) and err > BF16_RTOL:
            note = f"MISMATCH {note}"
        print(f"{r['case']:<12} {r['tp']:>3} {fmt(s):>10} {fmt(t):>10} "
              f"{fmt(r.get('speedup_vs_tp1'), '.2f'):>8} {fmt(vs_torch, '.2f'):>9} "
              f"{fmt(err, '.1e'):>9}  {note[:120]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", help="stridec and stride-run-gpu")
    parser.add_argument("--work", default="/tmp/stride-distributed")
    parser.add_argument("--tp", type=int, action="append",
                        help="TP sizes (default 1, 2 and 4 as far as the GPUs go)")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--prefill-tokens", type=int, default=4096)
    parser.add_argument("--decode-batch", type=int, action="append")
    parser.add_argument("--cache-len", type=int, default=4096)
    parser.add_argument("--position", type=int, default=1024)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--torch-only", action="store_true")
    parser.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.decode_batch = args.decode_batch or [1, 32]
    if args.torch_worker:
        return torch_worker(args)
    gpus = torch.cuda.device_count()
    args.tp = args.tp or [n for n in (1, 2, 4) if n <= gpus]
    os.makedirs(args.work, exist_ok=True)
    print(f"{gpus} x {torch.cuda.get_device_name()}; torch {torch.__version__}; "
          f"NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}", flush=True)
    torch_by_tp = {tp: torch_times(args, tp) for tp in args.tp}
    rows = []
    for name, batch, tokens in cases(args):
        model = make_model(args, name)
        directory, graph = export_case(model, name, batch, tokens, args)
        base = None
        for tp in args.tp:
            row = {"case": name, "tp": tp, "torch": torch_by_tp[tp].get(name)}
            error = None if args.torch_only else compile_ranks(args, directory, tp)
            row["stride"] = ({"error": error or "--torch-only"} if error or args.torch_only
                             else run_ranks(args, directory, graph, tp))
            if tp == 1:
                base = row["stride"].get("ms")
            if base and row["stride"].get("ms"):
                row["speedup_vs_tp1"] = base / row["stride"]["ms"]
            rows.append(row)
            print(json.dumps(row, default=str)[:1000], flush=True)
    print_table(rows)
    bm.write_results_and_exit(rows, args.work)


if __name__ == "__main__":
    sys.exit(main())
