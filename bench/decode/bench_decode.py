#!/usr/bin/env python3
"""Stride's decode benchmark (issue 40): one decode step of a LLaMA-style
decoder at 8B-class layer dims (hidden 4096, 32 heads, 8 KV heads, MLP
14336, vocab 32000), random weights, bf16, a static KV cache of 4096
positions, against transformers' documented fast path in the same run.

Run it on the GPU machine, in the bundle bench/decode/prepare.sh makes:

    ./run.sh [--batch B]... [--position P]... [--layers N] [--work DIR]

For each batch size: the model wrapped with its StaticCache
(stride.decode.CachedLM: transformers' TorchExportableModuleWithStaticCache
plus the last position's logits, their argmax and the next position) is
exported as a one-token step (stride_export's decode route), compiled by
stridec and run by stride-run-gpu --bench (the step replayed as a CUDA
graph; the cache is state, written in place). PyTorch runs the same wrapper
eagerly, under torch.compile(fullgraph=True) (the default mode) and under
torch.compile(mode="reduce-overhead", fullgraph=True), transformers'
documented setting for static-cache decoding.

Each step runs at cache positions `--position` (default 1024 and 4000):
both sides get the same random cache (stride-run-gpu --state-in) and the
same token; Stride's logits are checked against PyTorch eager's (bf16,
relative error max |d| / max |ref|, pass at 2e-2) and against an f32
reference of the same step (weights and cache widened), PyTorch's error
beside Stride's.

`--stridec-option=OPTION` (repeatable) passes OPTION to every stridec
compile. `--peers` picks the torch.compile modes timed beside eager.
`--compare-decode-attention` also compiles each step under
`--decode-attention=staged`, `=split-kv` (Stride's two schemes) and
`=library` (cuDNN) and runs them beside the first compile, whose default chooses the staged
kernel or cuDNN by the position at run time where the staged kernel
takes the step (python-free-docs/attention.md, "Chosen at run time by the
position"); each run prints the variants its position ran.
`--compare-skinny` also compiles each step under
`--skinny-products=library` (every product a cuBLASLt call) and
`--skinny-products=generated` (Stride's skinny product kernel up to 32
rows) and runs both beside the first compile (`auto` unless a
--stridec-option says otherwise): a second table gives the three times,
their errors against eager and their slowest steps
(python-free-docs/matmul.md, "Skinny products").
`--compare-skinny-prologue` also compiles each step under
`--skinny-prologue` (the SwiGLU computed by the down projection's kernel,
not a kernel of its own) and runs it beside the first compile.
`--compare-launch-groups` also compiles each step under
`--no-launch-groups` (every kernel launched on its own, not in launch
groups: python-free-docs/cuda-backend.md, "Launch groups") and runs it
beside the first compile; `--compare-early-triggers` likewise under
`--no-early-triggers` (no kernel lets the small grid after it launch as
it starts: python-free-docs/cuda-backend.md, "The kernel ABI").

The bytes floor of a step: the weights it reads (every parameter but the
embedding table, of which it reads B rows) plus the valid part of the cache
(positions 0..p of every layer's keys and values), over the bandwidth of a
1 GiB copy measured in the same run (read + write bytes over time, as
bench/ceiling). Timing: medians of CUDA-event-timed calls (PyTorch) and of
CUDA-graph replays (stride-run-gpu). Peak memory: torch.cuda's peak over
one step (weights and cache included), Stride's runtime peak.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "models"),
                os.path.join(HERE, "..", "..", "tools", "stride-export")]
import bench_models as bm  # noqa: E402  (beside this file in the bundle)
import stride_export as sx  # noqa: E402

from stride.decode import CachedLM, rename_outputs  # noqa: E402

BF16_RTOL = 2e-2
# The stridec variants run beside the default compile: the option each
# sets, and its values (--compare-skinny, --compare-decode-attention,
# --compare-skinny-prologue, --compare-early-launch, --compare-launch-groups,
# --compare-early-triggers, --compare-skinny-epilogue,
# --compare-skinny-row-prologue).
VARIANTS = {
    "skinny": ("--skinny-products", ("library", "generated")),
    "attention": ("--decode-attention", ("staged", "split-kv", "library")),
    "prologue": ("--skinny-prologue", ("true",)),
    "early": ("--early-launch", ("true",)),
    "ungrouped": ("--no-launch-groups", ("true",)),
    "untriggered": ("--no-early-triggers", ("true",)),
    "swiglu_apart": ("--no-skinny-epilogue", ("true",)),
    "norm_prologue": ("--skinny-row-prologue", ("true",)),
}
# --compare-<flag> for the variants of one value: (flag, variant, what the
# variant's option does).
ONE_VALUE_VARIANTS = [
    ("skinny-prologue", "prologue",
     "the SwiGLU computed by the down projection's kernel; only with "
     "--stridec-option=--no-skinny-epilogue, since by default the gate/up "
     "product's kernel takes it first"),
    ("early-launch", "early",
     "each kernel lets the next launch as its blocks start; skinny products "
     "fetch their weights' first lines into L2 before they wait"),
    ("launch-groups", "ungrouped", "every kernel launched on its own"),
    ("early-triggers", "untriggered",
     "no kernel lets the small grid after it launch as it starts"),
    ("skinny-epilogue", "swiglu_apart",
     "the SwiGLU a kernel of its own after the gate/up product instead of "
     "that product's epilogue"),
    ("skinny-row-prologue", "norm_prologue",
     "each RMSNorm computed by the kernel of the product that reads it (its "
     "row prologue) instead of a kernel of its own"),
]
LLAMA_8B_LAYER = dict(width=4096, heads=32, kv_heads=8, inner=14336, vocab=32000)


def copy_bandwidth(args):
    a = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    ms = bm.median_ms(lambda: b.copy_(a), args.warmup, args.iterations)
    return 2 * a.numel() * 4 / (ms * 1e-3)


def floor_bytes(model, batch, position, layers, kv_heads, head_dim):
    weights = sum(p.numel() * p.element_size() for n, p in model.named_parameters()
                  if "embed_tokens" not in n)
    embedding = model.get_input_embeddings().weight
    rows = batch * embedding.shape[1] * embedding.element_size()
    cache = layers * 2 * batch * kv_heads * (position + 1) * head_dim * 2
    return weights + rows + cache


def is_cache(name):
    """The KV cache's buffers (not the rotary embedding's inv_freq, a
    buffer too, which the module holds as a constant)."""
    return "key_cache" in name or "value_cache" in name


def random_caches(wrapper, seed):
    """Fills every cache buffer with N(0, 1) values (the same for both sides)."""
    generator = torch.Generator(device="cuda").manual_seed(seed)
    for name, buf in wrapper.named_buffers():
        if is_cache(name):
            buf.copy_(torch.randn(buf.shape, generator=generator, device="cuda",
                                  dtype=torch.float32).to(buf.dtype))
    return {n: b.detach().clone() for n, b in wrapper.named_buffers()}


def restore(wrapper, states):
    for name, buf in wrapper.named_buffers():
        buf.copy_(states[name])


def save_states(directory, states):
    os.makedirs(directory, exist_ok=True)
    for name, t in states.items():
        np.save(os.path.join(directory, f"{name}.npy"), sx.to_numpy(t))


def step_inputs(batch, position, vocab, seed):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (batch, 1), generator=generator)
    return ids, torch.tensor([position], dtype=torch.int64)


def time_compiled(wrapper, ids, pos, args, key, **options):
    """torch.compile(wrapper, **options): row entries key_ms, key_peak (or
    key_error: a peer failing is a table entry)."""
    torch._dynamo.reset()
    compiled = torch.compile(wrapper, fullgraph=True, **options)
    step = lambda: compiled(ids, pos)  # noqa: E731
    try:
        for _ in range(3):
            step()
        return {f"{key}_ms": bm.median_ms(step, args.warmup, args.iterations),
                f"{key}_peak": bm.peak_bytes(step)}
    except Exception as e:  # noqa: BLE001
        return {f"{key}_error": f"{type(e).__name__}: {e}"[:300]}


def time_torch(wrapper, inputs, states, args):
    """Eager, torch.compile default and reduce-overhead: ms, peak bytes;
    eager's logits."""
    ids, pos = (t.cuda() for t in inputs)
    row = {}
    with torch.no_grad():
        restore(wrapper, states)
        row["eager_logits"] = wrapper(ids, pos)[0].float().cpu()
        eager = lambda: wrapper(ids, pos)  # noqa: E731
        row["eager_peak"] = bm.peak_bytes(eager)
        row["eager_ms"] = bm.median_ms(eager, args.warmup, args.iterations)
        peers = args.peers.split(",")
        if "compile" in peers:
            row.update(time_compiled(wrapper, ids, pos, args, "compile"))
        if "reduce-overhead" in peers:
            row.update(time_compiled(wrapper, ids, pos, args, "ro",
                                     mode="reduce-overhead"))
    return row


def f32_logits(model, batch, cache_len, inputs, states):
    """The step in f32: weights and cache widened exactly from bf16."""
    import copy

    wide = copy.deepcopy(model).float()  # on the model's device (the GPU)
    wrapper = CachedLM(wide, batch, cache_len).eval()  # its cache there too
    for name, buf in wrapper.named_buffers():
        buf.copy_(states[name].to(buf.dtype))
    with torch.no_grad(), sx.attention_backend("math"):
        logits = wrapper(*(t.cuda() for t in inputs))[0].float().cpu()
    del wrapper, wide
    torch.cuda.empty_cache()
    return logits


def export_step(model, batch, args, work):
    """decode.pt2 for `batch` (T = 1), exported on the CPU."""
    directory = os.path.join(work, f"b{batch}")
    os.makedirs(directory, exist_ok=True)
    archive = os.path.join(directory, "decode.pt2")
    wrapper = CachedLM(model, batch, args.cache_len, greedy=not args.no_argmax).eval()
    example = step_inputs(batch, args.cache_len // 2, model.config.vocab_size, 0)
    program = rename_outputs(sx.export_program(wrapper, example, strict=True),
                             wrapper.output_names)
    torch.export.save(program, archive)
    names = list(program.graph_signature.user_inputs)
    return directory, archive, names


def stride_step(args, directory, module, names, inputs, states, position,
                variant=""):
    """stride-run-gpu --bench of one step at `position`: ms, peak, logits.
    `variant`: a subdirectory of the step's for the run's outputs (a
    variant's module, --compare-skinny or --compare-decode-attention)."""
    case = os.path.join(directory, f"p{position}")
    work = os.path.join(case, variant)
    os.makedirs(work, exist_ok=True)
    graph = {"input_names": names, "inputs": [], "output_names": ["logits"]}
    for name, t in zip(names, inputs):
        np.save(os.path.join(case, f"{name}.npy"), t.numpy())
        graph["inputs"].append({"file": f"{name}.npy"})
    save_states(os.path.join(case, "states"), states)
    row = bm.run_module(args.bin, module, case, graph, work, args,
                        extra=["--state-in", os.path.join(case, "states")])
    logits = row.get("outputs", {}).get("logits")
    row["logits"] = (torch.from_numpy(np.load(logits))
                     if logits and os.path.exists(logits) else None)
    return row


def variant_keys(args):
    """The variants asked for: (key, options) for each, key as
    "<variant>_<value>" for the --compare-X ones and NAME for --compare-options
    NAME=... (row entries "<key>_ms" and so on)."""
    asked = {"skinny": args.compare_skinny,
             "attention": args.compare_decode_attention,
             "prologue": args.compare_skinny_prologue,
             "early": args.compare_early_launch,
             "ungrouped": args.compare_launch_groups,
             "untriggered": args.compare_early_triggers,
             "swiglu_apart": args.compare_skinny_epilogue,
             "norm_prologue": args.compare_skinny_row_prologue}
    named = [(f"{name}_{value}", [f"{option}={value}"])
             for name, (option, values) in VARIANTS.items() if asked[name]
             for value in values]
    for spec in args.compare_options:
        name, _, options = spec.partition("=")
        named.append((name, options.split()))
    return named


def compile_variants(args, archive, directory):
    """The step compiled once more for each variant (through the NVRTC
    cache of the first compile): {key: (module, error)}."""
    if args.torch_only:
        return {}
    stridec = os.path.join(args.bin, "stridec")
    cache = os.path.join(directory, "nvrtc-cache")
    modules = {}
    for key, variant in variant_keys(args):
        # The variant's options replace those of the same names given with
        # --stridec-option.
        names = {o.partition("=")[0] for o in variant}
        options = [o for o in args.stridec_option
                   if o.partition("=")[0] not in names]
        module = os.path.join(directory, f"decode-{key}.stridemod")
        result, _ = bm.run([stridec, archive, "-o", module, f"--cache-dir={cache}",
                            *options, *variant],
                           os.path.join(directory, "stridec.log"))
        error = (result.stdout.strip().splitlines()[-1:]
                 if result.returncode != 0 else None)
        modules[key] = (module, error)
    return modules


def run_variants(args, directory, modules, names, inputs, states, row):
    """Each variant's module at the row's position, into
    row["<key>_ms" / "_err" / "_error" / "_top_steps"]."""
    for key, (module, error) in modules.items():
        if error:
            row[f"{key}_error"] = error
            continue
        got = stride_step(args, directory, module, names, inputs, states,
                          row["position"], variant=key)
        row[f"{key}_ms"], row[f"{key}_error"] = got.get("ms"), got.get("error")
        row[f"{key}_l2_windows"] = got.get("l2_windows")
        row[f"{key}_variants"] = got.get("variants")
        if got["logits"] is not None:
            row[f"{key}_err"] = bm.relative_error_of(got["logits"], row["eager_logits"])
        if got.get("profile"):
            row[f"{key}_top_steps"] = bm.top_steps(got["profile"], args.profile_steps)


def bench_batch(model, batch, args, bandwidth):
    directory, archive, names = export_step(model, batch, args, args.work)
    module = os.path.join(directory, "decode.stridemod")
    cold = cached = error = None
    if not args.torch_only:
        cold, cached, error = bm.compile_graph(args.bin, archive, module, directory,
                                               args.stridec_option)
    variant_modules = compile_variants(args, archive, directory)
    config = model.config
    head_dim = config.hidden_size // config.num_attention_heads
    gpu_model = model.cuda()
    wrapper = CachedLM(gpu_model, batch, args.cache_len,
                       greedy=not args.no_argmax).cuda().eval()
    rows = []
    for position in args.position:
        inputs = step_inputs(batch, position, config.vocab_size, position)
        states = random_caches(wrapper, seed=position)
        row = {"batch": batch, "position": position, "compile_s": cold,
               "compile_cached_s": cached}
        row.update(time_torch(wrapper, inputs, states, args))
        floor = floor_bytes(gpu_model, batch, position, config.num_hidden_layers,
                            config.num_key_value_heads, head_dim)
        row["floor_ms"] = floor / bandwidth * 1e3
        cpu_states = {n: s.cpu() for n, s in states.items()}
        if error:
            row["stride_error"] = error
        elif not args.torch_only:
            got = stride_step(args, directory, module, names, inputs,
                              cpu_states, position)
            row["stride_ms"], row["stride_peak"] = got.get("ms"), got.get("peak")
            row["stride_error"] = got.get("error")
            row["stride_variants"] = got.get("variants")
            if got["logits"] is not None:
                row["stride_err"] = bm.relative_error_of(got["logits"], row["eager_logits"])
                if args.f32_reference:
                    reference = f32_logits(gpu_model, batch, args.cache_len, inputs,
                                           states)
                    row["stride_err_f32"] = bm.relative_error_of(got["logits"], reference)
                    row["torch_err_f32"] = bm.relative_error_of(row["eager_logits"],
                                                                reference)
            profile = got.get("profile")
            if profile:
                row["top_steps"] = bm.top_steps(profile, args.profile_steps)
        run_variants(args, directory, variant_modules, names, inputs,
                     cpu_states, row)
        del row["eager_logits"]
        # Printed as soon as it is measured, so that a run stopped by a time
        # limit still shows every position it reached.
        print(json.dumps(row, default=str)[:2000], flush=True)
        rows.append(row)
    del wrapper
    model.cpu()
    torch.cuda.empty_cache()
    return rows


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def print_table(rows):
    print("\n| batch | position | Stride ms | reduce-overhead ms | compile ms | eager ms | "
          "Stride vs reduce-overhead | floor ms | Stride % of floor | "
          "peak MiB Stride / reduce-overhead | Stride err vs eager |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s, ro = r.get("stride_ms"), r.get("ro_ms")
        speedup = f"{ro / s:.2f}x" if s and ro else "-"
        share = f"{100 * r['floor_ms'] / s:.0f}%" if s else "-"
        peak = f"{bm.mib(r.get('stride_peak'))} / {bm.mib(r.get('ro_peak'))}"
        print(f"| {r['batch']} | {r['position']} | {fmt(s)} | {fmt(ro)} | "
              f"{fmt(r.get('compile_ms'))} | {fmt(r.get('eager_ms'))} | {speedup} | {fmt(r['floor_ms'])} | {share} | "
              f"{peak} | {fmt(r.get('stride_err'), '.2e')} |")
    for r in rows:
        if r.get("stride_error") or r.get("ro_error") or r.get("compile_error"):
            print(f"batch {r['batch']} position {r['position']}: "
                  f"stride: {r.get('stride_error')}; reduce-overhead: {r.get('ro_error')}; "
                  f"compile: {r.get('compile_error')}")
        if "stride_err_f32" in r:
            print(f"batch {r['batch']} position {r['position']}: error vs the f32 "
                  f"reference: Stride {r['stride_err_f32']:.3e}, PyTorch eager "
                  f"{r['torch_err_f32']:.3e}")
        if r.get("stride_variants"):
            print(f"batch {r['batch']} position {r['position']}: variants: "
                  f"{r['stride_variants']}")
        for step in r.get("top_steps", []):
            print(f"  b{r['batch']} p{r['position']}: {step}")


def print_variants_table(rows, keys):
    """The step under each variant (--compare-skinny,
    --compare-decode-attention) beside the default compile."""
    print("\n| batch | position | Stride ms | " +
          " | ".join(f"{k} ms" for k in keys) +
          " | floor ms | err vs eager: Stride / " + " / ".join(keys) + " |")
    print("|---|---|---|" + "---|" * len(keys) + "---|---|")
    for r in rows:
        errors = " / ".join(fmt(r.get(f"{key}_err"), ".2e")
                            for key in ["stride", *keys])
        times = " | ".join(fmt(r.get(f"{key}_ms")) for key in keys)
        print(f"| {r['batch']} | {r['position']} | {fmt(r.get('stride_ms'))} | "
              f"{times} | {fmt(r['floor_ms'])} | {errors} |")
    for r in rows:
        for key in keys:
            if r.get(f"{key}_error"):
                print(f"batch {r['batch']} position {r['position']} {key}: "
                      f"{r[f'{key}_error']}")
            for detail in ("l2_windows", "variants"):
                if r.get(f"{key}_{detail}"):
                    print(f"batch {r['batch']} position {r['position']} {key}: "
                          f"{r[f'{key}_{detail}']}")
            for step in r.get(f"{key}_top_steps", []):
                print(f"  b{r['batch']} p{r['position']} {key}: {step}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="stridec and stride-run-gpu")
    parser.add_argument("--work", default="/tmp/stride-decode")
    parser.add_argument("--batch", type=int, action="append")
    parser.add_argument("--position", type=int, action="append")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--cache-len", type=int, default=4096)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--tune-library-calls", action="store_true", default=True)
    parser.add_argument("--torch-only", action="store_true")
    parser.add_argument("--stridec-option", action="append", default=[],
                        metavar="OPTION",
                        help="pass OPTION to every stridec compile (repeatable; "
                        "write it with '=': --stridec-option=--skinny-products=library)")
    parser.add_argument("--compare-skinny", action="store_true",
                        help="also compile each step with --skinny-products=library "
                        "and =generated and run both beside the default (a second "
                        "table)")
    # The one-value variants: --compare-X compiles each step once more with
    # the variant's option set (a second table, key <variant>_true).
    for flag, variant, what in ONE_VALUE_VARIANTS:
        option = VARIANTS[variant][0]
        parser.add_argument(f"--compare-{flag}", action="store_true",
                            help=f"also compile each step with {option} ({what}) "
                            f"and run it beside the default (a second table, "
                            f"key {variant}_true)")
    parser.add_argument("--compare-decode-attention", action="store_true",
                        help="also compile each step with --decode-attention=staged, "
                        "=split-kv (Stride's two schemes) and =library (cuDNN) and "
                        "run them beside the default, which chooses by the "
                        "position at run time (a second table)")
    parser.add_argument("--compare-options", action="append", default=[],
                        metavar="NAME=OPTIONS",
                        help="also compile each step with the stridec OPTIONS "
                        "(space-separated, each written with '=') and run it "
                        "beside the default, as variant NAME (repeatable): "
                        "--compare-options 'staged=--decode-attention=staged'")
    parser.add_argument("--profile-steps", type=int, default=8, metavar="N",
                        help="print the N slowest steps of each module, each "
                        "timed alone (stride-run-gpu --profile; default 8)")
    parser.add_argument("--peers", default="compile,reduce-overhead",
                        help="the torch.compile modes to time beside eager, "
                        "comma-separated: compile (the default mode), "
                        "reduce-overhead, or none (default: both)")
    parser.add_argument("--no-argmax", action="store_true",
                        help="export the step without the argmax (logits and "
                        "next position only)")
    parser.add_argument("--no-f32-reference", dest="f32_reference",
                        action="store_false",
                        help="skip the check of both against the step in f32 "
                        "(weights and cache widened exactly; done by default)")
    args = parser.parse_args(argv)
    args.batch = args.batch or [1, 8, 32]
    args.position = args.position or [1024, 4000]
    torch.backends.cuda.matmul.allow_tf32 = False
    sx.use_torchs_cudnn()
    os.makedirs(args.work, exist_ok=True)
    torch.manual_seed(0)
    model = sx.causal_lm("llama", torch.bfloat16, layers=args.layers,
                         **LLAMA_8B_LAYER).eval()
    bandwidth = copy_bandwidth(args)
    print(f"{torch.cuda.get_device_name()}: copy bandwidth {bandwidth / 1e12:.2f} TB/s; "
          f"torch {torch.__version__}", flush=True)
    rows = []
    for batch in args.batch:
        rows += bench_batch(model, batch, args, bandwidth)
    print_table(rows)
    keys = [key for key, _ in variant_keys(args)]
    if keys:
        print_variants_table(rows, keys)
    bm.write_results_and_exit(rows, args.work)


if __name__ == "__main__":
    sys.exit(main())
