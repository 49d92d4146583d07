#!/usr/bin/env python3
"""Stride's symbolic-size benchmark (issue 44; python-free-docs/symbolic-sizes.md).

One module compiled once for a range of sizes, run at sampled sizes,
against the static module of each size (the same archive instantiated at
that size, `stridec --instantiate-symbols`), PyTorch eager,
torch.compile(dynamic=True) and torch.compile's default (which compiles
again for each new shape), in one run on one GPU.

Run it on the GPU machine, in the bundle bench/dynamic/prepare.sh makes:

    ./run.sh [--only NAME]... [--size T|BxT]... [--work DIR] [--iterations N]

Models (random weights; the dynamic dims are the rows of a 2-D input, or
the batch and the tokens of a language model's ids; a size T is batch 1,
BxT batch B):
  mlp_f32          Linear(1024, 4096), GELU, Linear(4096, 1024); f32, TF32 off;
                   rows 1 to 4096 (batch 1 only)
  llama_mlp_bf16   a LLaMA layer's second half at 8B-class dims: RMSNorm,
                   gate and up projections (4096 -> 14336), SiLU, down
                   projection, residual add; bf16; rows (tokens) 1 to 4096
  gpt2_bf16        transformers' GPT2LMHeadModel at GPT-2 small's dims, its
                   default (sdpa) attention, no cache; bf16; ids [B, T],
                   batch 1 to 64, tokens 1 to 1024 (larger sizes skipped)
  llama_bf16       transformers' LlamaForCausalLM, 2 layers at 1B-class dims
                   (2048 wide, 16 heads, 4 key/value heads, MLP 5632, vocab
                   32000), sdpa attention, no cache; bf16; ids [B, T], batch
                   1 to 64, tokens 1 to 4096

Each model is exported once by the export helper's logic with its dynamic
dims as torch.export.Dims, compiled once by stridec (the dynamic module), and
compiled again per sampled size with --instantiate-symbols (the static
modules). Every Stride output is compared with PyTorch eager on the GPU at
that size (relative error max |s - t| / max |t|; f32 passes at 1e-4, bf16
at 2e-2). Times: Stride's the median of CUDA-graph replays
(stride-run-gpu --bench: a symbolic module captures one graph per shape);
PyTorch's the median of CUDA-event-timed calls after warmup.
"""

import argparse
import json
import os
import re
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "models")]
import bench_models as bm  # noqa: E402  (beside this file in the bundle)
import stride_export as sx  # noqa: E402

ROWS_MAX = 4096


class Mlp(torch.nn.Module):
    def __init__(self, width=1024, inner=4096):
        super().__init__()
        self.up = torch.nn.Linear(width, inner)
        self.down = torch.nn.Linear(inner, width)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


class LlamaMlp(torch.nn.Module):
    """RMSNorm, SwiGLU MLP and the residual add, as transformers' LlamaDecoderLayer."""

    def __init__(self, width=4096, inner=14336, eps=1e-5):
        super().__init__()
        self.norm = torch.nn.Parameter(torch.ones(width))
        self.gate = torch.nn.Linear(width, inner, bias=False)
        self.up = torch.nn.Linear(width, inner, bias=False)
        self.down = torch.nn.Linear(inner, width, bias=False)
        self.eps = eps

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        h = self.norm * h.to(x.dtype)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class Gpt2Logits(torch.nn.Module):
    """transformers' GPT2LMHeadModel at GPT-2 small's dims (12 layers, 768
    wide, 12 heads, vocab 50257), its default (sdpa) attention, no cache:
    token ids [1, T] to logits [1, T, vocab]."""

    def __init__(self):
        super().__init__()
        self.lm = sx.causal_lm("gpt2", torch.float32, layers=12, width=768,
                               heads=12, vocab=50257)
        self.lm.config.use_cache = False

    def forward(self, ids):
        return self.lm(input_ids=ids, use_cache=False).logits


class LlamaLogits(torch.nn.Module):
    """transformers' LlamaForCausalLM (grouped-query attention, rotary
    positions, SwiGLU), its default (sdpa) attention, no cache: token ids
    [1, T] to logits [1, T, vocab]."""

    def __init__(self):
        super().__init__()
        self.lm = sx.causal_lm("llama", torch.float32, layers=2, width=2048,
                               heads=16, kv_heads=4, inner=5632, vocab=32000)
        self.lm.config.use_cache = False

    def forward(self, ids):
        return self.lm(input_ids=ids, use_cache=False).logits


BATCH_MAX = 64


def rows_of(width, dtype):
    """A 2-D input of `rows` x width, its rows the symbolic dim (a size
    BxT is B*T rows)."""
    return ((lambda size: torch.randn(size[0] * size[1], width, dtype=dtype)),
            lambda largest: {0: torch.export.Dim("rows", min=1, max=largest)})


def tokens_of(vocab):
    """Token ids [batch, tokens], both symbolic: batch in [1, BATCH_MAX]."""
    return ((lambda size: torch.randint(0, vocab, size)),
            lambda largest: {0: torch.export.Dim("batch", min=1, max=BATCH_MAX),
                             1: torch.export.Dim("tokens", min=1, max=largest)})


# name: (the model, (its input at a size (batch, tokens), its symbolic dims
# at the largest size), dtype, tolerance, the largest size (rows or tokens))
MODELS = {
    "mlp_f32": (lambda: Mlp(), rows_of(1024, torch.float32), torch.float32,
                bm.F32_RTOL, ROWS_MAX),
    "llama_mlp_bf16": (lambda: LlamaMlp(), rows_of(4096, torch.bfloat16),
                       torch.bfloat16, bm.BF16_RTOL, ROWS_MAX),
    "gpt2_bf16": (lambda: Gpt2Logits(), tokens_of(50257), torch.bfloat16,
                  bm.BF16_RTOL, 1024),
    "llama_bf16": (lambda: LlamaLogits(), tokens_of(32000), torch.bfloat16,
                   bm.BF16_RTOL, ROWS_MAX),
}


def export_dynamic(model, example, dims, largest, directory):
    """The archive with its input's dims symbolic (`dims(largest)`)."""
    program = sx.export_program(model, [example((2, 8))],
                                dynamic_shapes=(dims(largest),))
    archive = os.path.join(directory, "model.pt2")
    torch.export.save(program, archive)
    return archive


def symbols_of(bin_dir, archive, work):
    """The archive's symbols in the order of its input's dims, as stridec
    --inspect names them."""
    result, _ = bm.run([os.path.join(bin_dir, "stridec"), "--inspect", archive],
                       os.path.join(work, "stridec.log"))
    found = re.search(r"inputs:\n\s+\S+: \S+ \[([^\]]*)\]", result.stdout)
    names = re.findall(r"Symbol\('(\w+)'", found.group(1)) if found else []
    if not names:
        raise SystemExit(f"no symbol in {archive}:\n{result.stdout}")
    return names


def instantiate_option(symbols, size):
    """stridec's --instantiate-symbols at `size` (batch, tokens): one
    symbol is the rows (batch * tokens), two the batch and the tokens."""
    values = [size[0] * size[1]] if len(symbols) == 1 else list(size)
    return "--instantiate-symbols=" + ",".join(
        f"{name}={value}" for name, value in zip(symbols, values))


def parse_size(text):
    """--size: T (batch 1) or BxT, as (batch, tokens)."""
    batch, _, tokens = text.rpartition("x")
    size = (int(batch) if batch else 1, int(tokens))
    if size[0] < 1 or size[1] < 1:
        raise argparse.ArgumentTypeError(f"--size {text}: sizes are at least 1")
    return size


def size_text(size):
    return str(size[1]) if size[0] == 1 else f"{size[0]}x{size[1]}"


def compile_module(bin_dir, archive, module, work, options=()):
    """stridec cold (--no-cache): (seconds, None), or (None, the error)."""
    result, seconds = bm.run([os.path.join(bin_dir, "stridec"), archive, "-o", module,
                              "--no-cache", *options], os.path.join(work, "stridec.log"))
    if result.returncode != 0:
        return None, result.stdout.strip().splitlines()[-1:]
    return seconds, None


def bench_stride(bin_dir, module, x_file, out_dir, args):
    """stride-run-gpu --bench on one input: (ms, output file or error)."""
    runner = os.path.join(bin_dir, "stride-run-gpu")
    result, _ = bm.run([runner, module, "--input", x_file, "--output-dir", out_dir,
                        "--bench", "--warmup", str(args.warmup),
                        "--iterations", str(args.iterations), "--tune-library-calls"],
                       os.path.join(args.work, "stride-run.log"))
    if result.returncode != 0:
        return None, result.stdout.strip().splitlines()[-1:]
    found = re.search(r"median ([0-9.]+) ms", result.stdout)
    outputs = [f for f in os.listdir(out_dir) if f.endswith(".npy")]
    return (float(found.group(1)) if found else None), os.path.join(out_dir, outputs[0])


def time_torch(model, x, args):
    """Eager, compile(dynamic=True) and compile default at x's size: ms each."""
    row = {}
    with torch.no_grad():
        row["eager_ms"] = bm.median_ms(lambda: model(x), args.warmup, args.iterations)
        for column, compiled in (("torch_dynamic_ms", args.compiled_dynamic),
                                 ("torch_default_ms", args.compiled_default)):
            try:
                row[column] = bm.median_ms(lambda: compiled(x), args.warmup,
                                           args.iterations)
            except Exception as e:  # noqa: BLE001 - a peer failing is a table entry
                row[column + "_error"] = f"{type(e).__name__}: {e}"[:160]
    return row


def bench_model(name, args):
    make, (example, dims), dtype, rtol, largest = MODELS[name]
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    torch.manual_seed(0)
    model = make().to(dtype).eval()
    try:
        archive = export_dynamic(model, example, dims, largest, work)
    except Exception as e:  # torch.export's own refusal: a row that says so
        row = {"model": name, "rows": "-",
               "error": f"torch.export: {type(e).__name__}: "
               + str(e).splitlines()[0][:300]}
        print(json.dumps(row), flush=True)
        return [row]
    symbols = symbols_of(args.bin, archive, work)
    dynamic = os.path.join(work, "dynamic.stridemod")
    dynamic_s, error = compile_module(args.bin, archive, dynamic, work)
    model = model.cuda()
    torch._dynamo.reset()
    args.compiled_dynamic = torch.compile(model, dynamic=True)
    args.compiled_default = torch.compile(model)
    rows = []
    # Sizes past the range, and batches for a model of rows, are skipped.
    def runs(size):
        if len(symbols) == 2:
            return size[0] <= BATCH_MAX and size[1] <= largest
        return size[0] == 1 and size[1] <= largest

    sizes = [s for s in args.size if runs(s)]
    for size in sizes:
        tag = size_text(size)
        row = {"model": name, "rows": tag, "dynamic_compile_s": dynamic_s}
        rows.append(row)
        x = example(size).cuda()
        with torch.no_grad():
            expected = model(x).float().cpu()
        x_file = os.path.join(work, f"x-{tag}.npy")
        np.save(x_file, sx.to_numpy(x))
        row.update(time_torch(model, x, args))
        if error:
            row["error"] = error
            continue
        static = os.path.join(work, f"static-{tag}.stridemod")
        row["static_compile_s"], static_error = compile_module(
            args.bin, archive, static, work, [instantiate_option(symbols, size)])
        for kind, module in (("dynamic", dynamic), ("static", static)):
            if kind == "static" and static_error:
                row["static_error"] = static_error
                continue
            out_dir = os.path.join(work, f"out-{kind}-{tag}")
            os.makedirs(out_dir, exist_ok=True)
            ms, got = bench_stride(args.bin, module, x_file, out_dir, args)
            if ms is None:
                row[f"{kind}_error"] = got
                continue
            row[f"{kind}_ms"] = ms
            err = bm.relative_error(got, expected)
            row[f"{kind}_rel_err"] = err
            row[f"{kind}_ok"] = err <= rtol
        print(json.dumps(row), flush=True)
    model.cpu()
    torch.cuda.empty_cache()
    return rows


def fmt(value, spec=".3f"):
    return "-" if value is None else format(value, spec)


def print_table(rows):
    print("\n| model | size | Stride, one module | static module | one / static "
          "| compile(dynamic=True) | compile default | eager | error one / static |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = (r["dynamic_ms"] / r["static_ms"]
                 if r.get("dynamic_ms") and r.get("static_ms") else None)
        error = r.get("error") or r.get("dynamic_error") or r.get("static_error")
        print(f"| {r['model']} | {r['rows']} | {fmt(r.get('dynamic_ms'))} "
              f"| {fmt(r.get('static_ms'))} | {fmt(ratio, '.2f')} "
              f"| {fmt(r.get('torch_dynamic_ms'))} | {fmt(r.get('torch_default_ms'))} "
              f"| {fmt(r.get('eager_ms'))} "
              f"| {fmt(r.get('dynamic_rel_err'), '.1e')} / "
              f"{fmt(r.get('static_rel_err'), '.1e')}"
              + (f" ({error})" if error else "") + " |")
    compiles = {r["model"]: (r.get("dynamic_compile_s"), r.get("static_compile_s"))
                for r in rows}
    for model, (one, static) in compiles.items():
        print(f"{model}: stridec (cold, --no-cache) {fmt(one, '.1f')} s for the one "
              f"module; {fmt(static, '.1f')} s for one static module")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.path.join(HERE, "bin"),
                        help="stridec and stride-run-gpu (default: bin/ beside this file)")
    parser.add_argument("--work", default="/tmp/stride-dynamic")
    parser.add_argument("--only", action="append", default=[], choices=sorted(MODELS))
    parser.add_argument("--size", type=parse_size, action="append",
                        help=f"a size to run: T tokens (rows) or BxT, batch B in "
                        f"[1, {BATCH_MAX}] for the language models, B*T at most "
                        f"the model's largest size (repeatable; default 1 7 64 "
                        "512 4096 8x128)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=50)
    args = parser.parse_args(argv)
    args.size = args.size or [(1, 1), (1, 7), (1, 64), (1, 512), (1, 4096), (8, 128)]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for name in args.only or list(MODELS):
        rows += bench_model(name, args)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print_table(rows)
    failed = [r for r in rows if r.get("error") or r.get("dynamic_ok") is False
              or r.get("static_ok") is False]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
