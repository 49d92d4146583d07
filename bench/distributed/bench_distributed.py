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
slowest rank's beside it). Rank 0's and the last rank's logits are checked
against PyTorch eager on one GPU (bf16: relative error max |d| / max |ref|,
pass at 2e-2); every rank returns the unsplit logits.

PyTorch: this script again under torchrun --nproc-per-node N
(--tp-worker): the same model (same seed), q/k/v and gate/up
ColwiseParallel, o and down RowwiseParallel, the embedding RowwiseParallel
and the LM head ColwiseParallel with replicated outputs (torchtitan's LLaMA
plan), then torch.compile; CUDA-event medians of rank 0. TP = 1: the model
under torch.compile alone.

Data parallelism (--dp N, default 1, 2 and 4 as far as the GPUs go): a
training step of bench_models' GPT-2 rows (--dp-model; gpt2_train_f32 and
gpt2_train_bf16: 2 layers, 8 x 512 tokens per GPU). Stride: the captured
forward and backward graphs at the per-GPU batch, the backward compiled
with stridec --data-parallel=N (gradients averaged in buckets), both run by
the launcher on N GPUs; the step's time is rank 0's forward plus backward
medians, and every rank's results are checked against the captured CPU
step (every rank gets the same batch, so the average equals it). PyTorch:
this script under torchrun (--ddp-worker), the model wrapped in
DistributedDataParallel and then torch.compile, forward and backward with
the same output gradients. DP = 1: no wrapper, no --data-parallel. With
--no-overlap-collectives the backward is compiled with it (the
all-reduces on the invocation's stream, between the kernels around them),
to compare with the default (the all-reduces on the collective stream,
beside the rest of the backward).

Printed: one row per case and TP size with both times (ms), Stride's
speedup over its TP = 1 time of the case, and Stride's speedup over
PyTorch's time at the same TP; one row per training model and DP size
with both step times, Stride's speedup over DDP and its samples a second
over all GPUs; results.json in --work.

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
# Sequences per GPU of bench_models' training rows (8 x 512 tokens).
DP_BATCH = {"gpt2_train_f32": 8, "gpt2_train_bf16": 8}


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
    return [c for c in found if not args.case or c[0] in args.case]


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


def join_group():
    """(rank, world size, local rank) from torchrun's environment, this
    process on its GPU and, for more than one rank, in the NCCL group."""
    rank, world, local = (int(os.environ.get(k, d)) for k, d in
                          (("RANK", "0"), ("WORLD_SIZE", "1"), ("LOCAL_RANK", "0")))
    torch.cuda.set_device(local)
    if world > 1:
        torch.distributed.init_process_group("nccl")
    return rank, world, local


def leave_group(args, rank, world, results):
    """Rank 0 writes the worker's {name: ms or error} to --result."""
    if rank == 0:
        with open(args.result, "w") as f:
            json.dump(results, f)
    if world > 1:
        torch.distributed.destroy_process_group()


def local_cache_heads(model, tp):
    """The static KV cache of a rank holds its heads only: the config the
    cache is sized from gets the rank's head counts (the attention layers
    keep their head dim and their query heads per key/value head; the cache
    of the whole heads would not match the rank's projections)."""
    config = model.config
    config.head_dim = getattr(config, "head_dim", None) or (
        config.hidden_size // config.num_attention_heads)
    config.num_attention_heads //= tp
    config.num_key_value_heads //= tp


def torch_worker(args):
    """One rank of PyTorch's TP run (under torchrun): rank 0 writes
    {case: ms or error} to --result."""
    rank, tp, _ = join_group()
    results = {}
    for name, batch, tokens in cases(args):
        try:
            model = make_model(args, name).cuda()
            if tp > 1:
                model = parallelize(model, tp)
                if name != "prefill":
                    local_cache_heads(model, tp)
            module = case_module(model, name, batch, args)
            torch._dynamo.reset()
            compiled = torch.compile(module)
            inputs = [t.cuda() for t in case_inputs(name, batch, tokens,
                                                     LLAMA_8B["vocab"], args)]
            with torch.no_grad():
                results[name] = bm.median_ms(lambda: compiled(*inputs), args.warmup,
                                             args.iterations)
        except Exception as e:  # a failing case is a table entry
            results[name] = f"error: {type(e).__name__}: {str(e)[:300]}"
    leave_group(args, rank, tp, results)


def torch_times(args, ranks, worker="tp"):
    """PyTorch's times on `ranks` GPUs: this script under torchrun, as the
    tensor-parallel worker ("tp") or the data-parallel one ("ddp")."""
    result = os.path.join(args.work, f"torch_{worker}{ranks}.json")
    command = ["torchrun", "--standalone", f"--nproc-per-node={ranks}",
               os.path.abspath(__file__), f"--{worker}-worker", "--result", result,
               *worker_args(args)]
    done, _ = bm.run(command, os.path.join(args.work, f"torch_{worker}{ranks}.log"))
    if done.returncode != 0 or not os.path.exists(result):
        names = ([name for name, _, _ in cases(args)] if worker == "tp"
                 else [name for name, _, _ in dp_models(args)])
        return {name: "error: " + " ".join(done.stdout.strip().splitlines()[-1:])
                for name in names}
    with open(result) as f:
        return json.load(f)


def worker_args(args):
    out = ["--layers", str(args.layers), "--prefill-tokens", str(args.prefill_tokens),
           "--cache-len", str(args.cache_len), "--position", str(args.position),
           "--warmup", str(args.warmup), "--iterations", str(args.iterations),
           "--work", args.work]
    for b in args.decode_batch:
        out += ["--decode-batch", str(b)]
    for name in args.case or []:
        out += ["--case", name]
    for name in args.dp_model:
        out += ["--dp-model", name]
    return out


# ----------------------------------------------------------------------------
# Stride


def export_case(model, name, batch, tokens, args):
    """The case's archive, its inputs as .npy files and PyTorch eager's
    logits (one GPU, unsplit): (directory, graph description)."""
    directory = os.path.join(args.work, name)
    module = case_module(model, name, batch, args)
    inputs = case_inputs(name, batch, tokens, LLAMA_8B["vocab"], args)
    # A module holding transformers' StaticCache needs Dynamo's tracing
    # (stride.export.export_program).
    sx.export_model(module, inputs, directory, attention="fused", strict=name != "prefill")
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


def run_ranks(args, module, directory, graph, ranks, expected, tag):
    """stride-run-gpu MODULE --ranks N --bench: rank 0's median ms, the
    slowest rank's, and the largest relative error of rank 0's and the last
    rank's outputs against the files in `expected` (NAME.npy)."""
    runner = os.path.join(args.bin, "stride-run-gpu")
    out = os.path.join(directory, f"{tag}-outputs")
    command = [runner, module, "--ranks", str(ranks), *bm.stride_inputs(directory, graph),
               "--output-dir", out, "--bench", "--warmup", str(args.warmup),
               "--iterations", str(args.iterations), "--tune-library-calls"]
    done, _ = bm.run(command, os.path.join(directory, f"{tag}-run.log"))
    if done.returncode != 0:
        return {"failed": " ".join(done.stdout.strip().splitlines()[-1:])}
    times = [float(t) for t in re.findall(r"median ([0-9.]+) ms", done.stdout)]
    row = {"ms": times[0] if times else None, "slowest_ms": max(times, default=None)}
    errors = []
    for rank in {0, ranks - 1}:
        for name in graph["output_names"]:
            want = os.path.join(expected, f"{name}.npy")
            got = os.path.join(out, f"rank{rank}", f"{name}.npy")
            if os.path.exists(want):
                errors.append(bm.relative_error_of(load_npy(got), load_npy(want))
                              if os.path.exists(got) else float("inf"))
    if errors:
        row["rel_err"] = max(errors)
    return row


def load_npy(path):
    """A .npy file as a torch tensor; bf16 ('<V2' records, as Stride and
    ml_dtypes write it) read as bfloat16."""
    array = np.load(path)
    if array.dtype.kind == "V" and array.dtype.itemsize == 2:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


# ----------------------------------------------------------------------------
# Data parallelism: GPT-2 training steps against DDP


def dp_models(args):
    """(name, make, rtol): bench_models' training rows named by --dp-model."""
    return [(name, make, rtol) for name, kind, make, rtol in bm.model_list()
            if kind == "train" and name in args.dp_model]


def ddp_worker(args):
    """One rank of PyTorch's data-parallel run (under torchrun): the model
    wrapped in DistributedDataParallel, then torch.compile (PyTorch's
    recommended order: Dynamo splits the graph at DDP's buckets, so the
    gradients' all-reduce overlaps the backward); every rank its own batch
    of the bench_models row's size. Rank 0 writes {model: ms or error}."""
    from torch.nn.parallel import DistributedDataParallel
    rank, world, local = join_group()
    results = {}
    for name, make, _ in dp_models(args):
        try:
            torch.manual_seed(0)
            model, inputs = make("sdpa")
            model = model.cuda()
            inputs = [t.cuda() for t in inputs]
            grads = bm.output_grads(model, inputs, "sdpa")
            if world > 1:
                model = DistributedDataParallel(model, device_ids=[local])
            torch._dynamo.reset()
            step = bm.torch_step(torch.compile(model), inputs, "train", grads)
            results[name] = bm.median_ms(step, args.warmup, args.iterations)
        except Exception as e:  # a failing model is a table entry
            results[name] = f"error: {type(e).__name__}: {str(e)[:300]}"
    leave_group(args, rank, world, results)


def stride_dp(args, name, make, sizes):
    """Stride's step on each of `sizes` ranks: the captured forward and
    backward graphs (bench_models' capture, the per-rank batch), the
    backward compiled with --data-parallel=N, both run by the launcher
    (every rank on the same inputs, so the averaged gradients equal the
    captured ones). {N: {"ms": forward + backward, ...}}."""
    directory = os.path.join(args.work, name)
    os.makedirs(directory, exist_ok=True)
    torch.manual_seed(0)
    model, inputs = make("sdpa")
    sx.capture_training(model, inputs, directory, attention="fused")
    with open(os.path.join(directory, "export.json")) as f:
        graphs = json.load(f)["graphs"]
    stridec = os.path.join(args.bin, "stridec")
    found = {}
    for n in sizes:
        row = {"ms": 0.0, "rel_err": 0.0}
        for archive, graph in graphs.items():
            stem = archive[: -len(".pt2")]
            module = os.path.join(directory, f"{stem}.dp{n}.stridemod")
            split = [f"--data-parallel={n}"] if stem == "backward" and n > 1 else []
            if split and args.no_overlap_collectives:
                split.append("--no-overlap-collectives")
            done, _ = bm.run([stridec, os.path.join(directory, archive), "-o", module, *split,
                              f"--cache-dir={os.path.join(args.work, 'nvrtc-cache')}"],
                             os.path.join(directory, "stridec.log"))
            if done.returncode != 0:
                row = {"failed": " ".join(done.stdout.strip().splitlines()[-1:])}
                break
            ran = run_ranks(args, module, directory, graph, n,
                            os.path.join(directory, f"{stem}_expected"), f"{stem}-dp{n}")
            if "failed" in ran or ran.get("ms") is None:
                row = {"failed": ran.get("failed", "no time printed")}
                break
            row[f"{stem}_ms"] = ran["ms"]
            row["ms"] += ran["ms"]
            row["rel_err"] = max(row["rel_err"], ran.get("rel_err", 0.0))
        found[n] = row
    return found


# ----------------------------------------------------------------------------


def fmt(x, spec=".3f"):
    return format(x, spec) if isinstance(x, (int, float)) else "-"


def print_table(rows):
    print(f"\n{'case':<12} {'TP':>3} {'stride ms':>10} {'torch ms':>10} "
          f"{'vs TP=1':>8} {'vs torch':>9} {'err':>9}  note")
    for r in rows:
        s, t = r["stride"].get("ms"), r["torch"]
        vs_torch = t / s if isinstance(s, float) and isinstance(t, float) else None
        note = r["stride"].get("failed") or (t if isinstance(t, str) else "")
        err = r["stride"].get("rel_err")
        if isinstance(err, float) and err > BF16_RTOL:
            note = f"MISMATCH {note}"
        print(f"{r['case']:<12} {r['tp']:>3} {fmt(s):>10} {fmt(t):>10} "
              f"{fmt(r.get('speedup_vs_tp1'), '.2f'):>8} {fmt(vs_torch, '.2f'):>9} "
              f"{fmt(err, '.1e'):>9}  {note[:120]}")


def print_dp_table(rows):
    print(f"\n{'model (per GPU)':<18} {'DP':>3} {'stride ms':>10} {'fwd + bwd':>17} "
          f"{'DDP ms':>8} {'vs DDP':>7} {'samples/s':>10} {'err':>9}  note")
    for r in rows:
        s, t = r["stride"], r["torch"]
        ms = s.get("ms")
        vs = t / ms if isinstance(ms, float) and isinstance(t, float) else None
        rate = r["dp"] * r["batch"] * 1000 / ms if isinstance(ms, float) else None
        note = s.get("failed") or (t if isinstance(t, str) else "")
        err = s.get("rel_err")
        if isinstance(err, float) and err > r["rtol"]:
            note = f"MISMATCH {note}"
        split = f"{fmt(s.get('forward_ms'))} + {fmt(s.get('backward_ms'))}"
        print(f"{r['model']:<18} {r['dp']:>3} {fmt(ms):>10} {split:>17} {fmt(t):>8} "
              f"{fmt(vs, '.2f'):>7} {fmt(rate, '.1f'):>10} {fmt(err, '.1e'):>9}  {note[:120]}")


def tensor_parallel_rows(args):
    torch_by_tp = {tp: torch_times(args, tp) for tp in args.tp}
    rows = []
    for name, batch, tokens in cases(args):
        model = make_model(args, name)
        directory, graph = export_case(model, name, batch, tokens, args)
        base = None
        for tp in args.tp:
            row = {"case": name, "tp": tp, "torch": torch_by_tp[tp].get(name)}
            error = None if args.torch_only else compile_ranks(args, directory, tp)
            row["stride"] = ({"failed": error or "--torch-only"} if error or args.torch_only
                             else run_ranks(args, os.path.join(directory, f"tp{tp}.rank%d.stridemod"),
                                            directory, graph, tp,
                                            os.path.join(directory, "model_expected"), f"tp{tp}"))
            if tp == 1:
                base = row["stride"].get("ms")
            if base and row["stride"].get("ms"):
                row["speedup_vs_tp1"] = base / row["stride"]["ms"]
            rows.append(row)
            print(json.dumps(row, default=str)[:1000], flush=True)
    return rows


def data_parallel_rows(args):
    torch_by_dp = {n: torch_times(args, n, "ddp") for n in args.dp}
    rows = []
    for name, make, rtol in dp_models(args):
        stride = ({n: {"failed": "--torch-only"} for n in args.dp} if args.torch_only
                  else stride_dp(args, name, make, args.dp))
        batch = DP_BATCH.get(name, 1)
        for n in args.dp:
            row = {"model": name, "dp": n, "batch": batch, "rtol": rtol,
                   "torch": torch_by_dp[n].get(name), "stride": stride[n]}
            rows.append(row)
            print(json.dumps(row, default=str)[:1000], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", help="stridec and stride-run-gpu")
    parser.add_argument("--work", default="/tmp/stride-distributed")
    parser.add_argument("--tp", type=int, action="append",
                        help="TP sizes (default 1, 2 and 4 as far as the GPUs go; "
                        "0: no tensor-parallel rows)")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--prefill-tokens", type=int, default=4096)
    parser.add_argument("--decode-batch", type=int, action="append")
    parser.add_argument("--cache-len", type=int, default=4096)
    parser.add_argument("--position", type=int, default=1024)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--case", action="append",
                        help="only these cases (prefill, decode_b<B>); default all")
    parser.add_argument("--dp", type=int, action="append",
                        help="data-parallel sizes (default 1, 2 and 4 as far as the "
                        "GPUs go; 0: no data-parallel rows)")
    parser.add_argument("--dp-model", action="append",
                        help="bench_models training rows for data parallelism "
                        "(default gpt2_train_f32 and gpt2_train_bf16)")
    parser.add_argument("--no-overlap-collectives", action="store_true",
                        help="compile the data-parallel backward with stridec "
                        "--no-overlap-collectives (the all-reduces on one stream)")
    parser.add_argument("--torch-only", action="store_true")
    parser.add_argument("--tp-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ddp-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.decode_batch = args.decode_batch or [1, 32]
    args.dp_model = args.dp_model or ["gpt2_train_f32", "gpt2_train_bf16"]
    if args.tp_worker:
        return torch_worker(args)
    if args.ddp_worker:
        return ddp_worker(args)
    gpus = torch.cuda.device_count()
    sizes = [n for n in (1, 2, 4) if n <= gpus]
    args.tp = [n for n in (args.tp or sizes) if n > 0]
    args.dp = [n for n in (args.dp or sizes) if n > 0]
    os.makedirs(args.work, exist_ok=True)
    print(f"{gpus} x {torch.cuda.get_device_name()}; torch {torch.__version__}; "
          f"NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}", flush=True)
    rows = tensor_parallel_rows(args) if args.tp else []
    dp_rows = data_parallel_rows(args) if args.dp else []
    if rows:
        print_table(rows)
    if dp_rows:
        print_dp_table(dp_rows)
    bm.write_results_and_exit({"tensor_parallel": rows, "data_parallel": dp_rows}, args.work)


if __name__ == "__main__":
    sys.exit(main())
