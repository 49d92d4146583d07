#!/usr/bin/env python3
"""Stride's whole-model benchmark (issue 18): real transformer graphs and
convolutional networks (ResNet-50, ViT-B/16: issue 42), exported from PyTorch, compiled by stridec and run by the runtime on the GPU
machine, against PyTorch eager, torch.compile and
torch.compile(mode="reduce-overhead") on the same inputs in the same run.

Run it on the GPU machine, in the bundle bench/models/prepare.sh makes:

    ./run.sh [--only NAME]... [--work DIR] [--iterations N] [--torch-only]

For each model: random weights from a config (no downloads; ResNet-50 from
torchvision, ViT-B/16 from timm, which the GPU machine needs installed), built with
transformers' default attention (`--attention sdpa`: PyTorch's fused
attention kernels in eager and torch.compile; Stride imports the op as
stride.attention and runs it through cuDNN) or eager attention, export with
stride_export.py (on the CPU), stridec cold (--no-cache) and from a warm
NVRTC cache, stride-run-gpu --bench (the plan replayed as a CUDA graph) and
--profile-json (each step timed on its own: library calls vs generated
kernels), then PyTorch on the GPU. Prints one markdown table and writes
DIR/results.json.

Correctness: each Stride output against PyTorch eager on the GPU (TF32 off)
for inference graphs, against the captured CPU run for training graphs;
relative error = max |stride - torch| / max |torch|; f32 passes at 1e-4,
bf16 at 2e-2. The bf16 inference models are also run in f32 (the same
weights widened, math attention): Stride's error and PyTorch eager's
against that reference are printed side by side (the last table, which
also sums a training step's forward and backward graphs). A training
row's two archives are compiled together (stridec --backward, unless
--no-pair-training: eager attention fused across them) and its backward
runs on the saved tensors of Stride's own forward run, so its error
includes the forward's; the forward's outputs compared are those both
Stride's module and the capture have (a paired forward saves each
attention's logsumexp and output instead of its probabilities).

Timing: PyTorch's columns are the median of CUDA-event-timed calls after
warmup (a call includes its launches; reduce-overhead replays CUDA graphs),
Stride's the median of its CUDA-graph replays (stride-run-gpu --bench).
Peak memory: torch.cuda.max_memory_allocated() over one call, the weights
included; Stride's as stride-run-gpu reports it.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# stride_export.py: beside this file in the bundle, in tools/ in the repository.
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "tools", "stride-export")]
import stride_export as sx  # noqa: E402  (copied into the bundle beside this file)

F32_RTOL, BF16_RTOL = 1e-4, 2e-2



# The attention of each inference model, for the fused-attention bound:
# (batch, heads, kv_heads, tokens, head_dim, causal, layers).
ATTENTION = {
    "gpt2_f32": (8, 12, 12, 1024, 64, True, 12),
    "gpt2_bf16": (8, 12, 12, 1024, 64, True, 12),
    "bert_f32": (32, 12, 12, 128, 64, False, 12),
    "llama_bf16": (4, 16, 4, 1024, 64, True, 4),
    "vit_b16_f32": (64, 12, 12, 197, 64, False, 12),
    "vit_b16_bf16": (64, 12, 12, 197, 64, False, 12),
}


def model_list():
    """(name, kind, make, rtol): the issue's models at their full sizes;
    make(attention) builds one with transformers' attention implementation
    `attention` ("sdpa", the default users get, or "eager")."""
    bf16 = torch.bfloat16
    gpt2_small = dict(layers=12, width=768, heads=12, vocab=50257)
    return [
        ("gpt2_f32", "export",
         lambda a: sx.gpt2(**gpt2_small, batch=8, tokens=1024, attention=a), F32_RTOL),
        ("gpt2_bf16", "export",
         lambda a: sx.gpt2(**gpt2_small, batch=8, tokens=1024, dtype=bf16, attention=a),
         BF16_RTOL),
        ("bert_f32", "export",
         lambda a: sx.bert(layers=12, width=768, heads=12, inner=3072, vocab=30522,
                           batch=32, tokens=128, attention=a), F32_RTOL),
        ("llama_bf16", "export",
         lambda a: sx.llama(layers=4, width=1024, heads=16, kv_heads=4, inner=2816,
                            vocab=32000, batch=4, tokens=1024, dtype=bf16, attention=a),
         BF16_RTOL),
        ("gpt2_train_f32", "train",
         lambda a: sx.gpt2(layers=2, width=768, heads=12, vocab=50257, batch=8,
                           tokens=512, train=True, attention=a), F32_RTOL),
        ("gpt2_train_bf16", "train",
         lambda a: sx.gpt2(layers=2, width=768, heads=12, vocab=50257, batch=8,
                           tokens=512, train=True, dtype=bf16, attention=a), BF16_RTOL),
        # Convolutional networks (issue 42, item 6): batch 64 of 224 x 224
        # images, random weights. The attention argument does not apply
        # (ResNet has none; timm's ViT always calls PyTorch's fused
        # attention, which Stride imports as stride.attention).
        ("resnet50_f32", "export",
         lambda a: sx.resnet50(batch=64, size=224), F32_RTOL),
        ("resnet50_bf16", "export",
         lambda a: sx.resnet50(batch=64, size=224, dtype=bf16), BF16_RTOL),
        ("vit_b16_f32", "export", lambda a: sx.vit_b16(batch=64), F32_RTOL),
        ("vit_b16_bf16", "export", lambda a: sx.vit_b16(batch=64, dtype=bf16),
         BF16_RTOL),
        # One training step (forward and backward graphs, batch statistics),
        # batch 32: the capture runs it on the CPU once.
        ("resnet50_train_f32", "train",
         lambda a: sx.resnet50(batch=32, size=224, train=True), F32_RTOL),
        ("resnet50_train_bf16", "train",
         lambda a: sx.resnet50(batch=32, size=224, train=True, dtype=bf16),
         BF16_RTOL),
        # Whisper-base's encoder (transformers' WhisperEncoder: 6 layers, 512
        # wide, 8 heads, 80 mel bins x 3000 frames), batch 8.
        ("whisper_encoder_bf16", "export",
         lambda a: sx.whisper_encoder(layers=6, width=512, heads=8, inner=2048,
                                      mel_bins=80, positions=1500, batch=8, dtype=bf16,
                                      attention=a), BF16_RTOL),
        # A Mixtral-style sparse MoE block (8 experts, top 2) at a quarter of
        # Mixtral's width, 4 x 256 tokens; every expert runs on every token
        # (stride_export.SparseMoeBlock says why).
        ("moe_block_bf16", "export",
         lambda a: sx.moe_block(width=1024, inner=3584, experts=8, top_k=2, batch=4,
                                tokens=256, dtype=bf16), BF16_RTOL),
        # A DLRM-style model at Criteo's feature counts (13 dense features, 26
        # tables of 20,000 rows, width 64, bags of 1 to 3 ids), batch 2048.
        ("dlrm_f32", "export",
         lambda a: sx.dlrm(batch=2048, dense=13, rows=(20000,) * 26, width=64,
                           bottom=(512, 256), top=(512, 256)), F32_RTOL),
    ]


def tracing(attention):
    """How PyTorch traces a model built with transformers' `attention`:
    sdpa keeps scaled dot-product attention one op, eager writes it out."""
    return "fused" if attention == "sdpa" else "math"


# ----------------------------------------------------------------------------
# PyTorch


def median_ms(fn, warmup, iterations):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iterations):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def peak_bytes(fn):
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated()


def torch_step(model, inputs, kind, grads):
    """One call: the forward (inference), or forward and backward (training)."""
    if kind == "export":
        def step():
            with torch.no_grad():
                return model(*inputs)
    else:
        def step():
            outputs = sx.flat_tensors(model(*inputs))
            torch.autograd.backward(outputs, grads)
            for p in model.parameters():
                p.grad = None
            return outputs
    return step


def output_grads(model, inputs, attention):
    """Seeded random gradients of a training step's outputs (on the GPU)."""
    with sx.attention_backend(tracing(attention)):
        outs = sx.flat_tensors(model(*inputs))
    generator = torch.Generator(device="cuda").manual_seed(0)
    return [torch.randn(o.shape, generator=generator, device="cuda", dtype=o.dtype)
            for o in outs]


def time_torch(model, inputs, kind, args, attention="sdpa"):
    """Eager, torch.compile and reduce-overhead: ms, peak bytes, eager
    outputs. With attention "sdpa", PyTorch picks its fused attention
    kernels as it does for users; with "eager", the model's attention is
    written out and run so."""
    model = model.cuda()
    inputs = [t.cuda() for t in inputs]
    grads = output_grads(model, inputs, attention) if kind == "train" else None
    row = {}
    with sx.attention_backend(tracing(attention)):
        eager = torch_step(model, inputs, kind, grads)
        expected = [t.detach().float().cpu() for t in sx.flat_tensors(eager())]
        row["eager_peak"] = peak_bytes(eager)
        row["eager_ms"] = median_ms(eager, args.warmup, args.iterations)
        for column, mode in (("compile", "default"), ("reduce_overhead", "reduce-overhead")):
            torch._dynamo.reset()
            compiled = torch.compile(model, mode=mode)
            step = torch_step(compiled, inputs, kind, grads)
            try:
                started = time.time()
                step()
                torch.cuda.synchronize()
                row[f"{column}_first_s"] = time.time() - started
                row[f"{column}_ms"] = median_ms(step, args.warmup, args.iterations)
                row[f"{column}_peak"] = peak_bytes(step)
            except Exception as e:  # noqa: BLE001 - a peer failing is a table entry
                row[f"{column}_error"] = f"{type(e).__name__}: {e}"[:200]
    model.cpu()
    torch.cuda.empty_cache()
    return row, expected


def f32_reference(model, inputs):
    """The outputs of `model` computed in f32 on the GPU (weights widened
    exactly from bf16, TF32 off, attention by the math backend): the
    reference both PyTorch's and Stride's bf16 results are measured
    against."""
    import copy

    reference = copy.deepcopy(model).float().cuda()
    wide = [t.float().cuda() if t.is_floating_point() else t.cuda() for t in inputs]
    with torch.no_grad(), sx.attention_backend("math"):
        outputs = [t.detach().float().cpu() for t in sx.flat_tensors(reference(*wide))]
    del reference
    torch.cuda.empty_cache()
    return outputs


def fused_attention_ms(shape, dtype, args):
    """PyTorch's fastest fused attention (flash, else memory-efficient, else
    cuDNN) over all layers of a model: the time a fused attention kernel
    would take in Stride's place, measured, not guessed. None when no fused
    backend takes the shape."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    batch, heads, kv_heads, tokens, head_dim, causal, layers = shape
    q = torch.randn(batch, heads, tokens, head_dim, device="cuda", dtype=dtype)
    k = torch.randn(batch, kv_heads, tokens, head_dim, device="cuda", dtype=dtype)
    v = torch.randn_like(k)
    best = None
    for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                    SDPBackend.CUDNN_ATTENTION):
        def call():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, enable_gqa=kv_heads != heads)
        try:
            ms = median_ms(call, args.warmup, args.iterations)
        except RuntimeError:  # the backend does not take this dtype or shape
            continue
        best = ms if best is None else min(best, ms)
    return None if best is None else best * layers


# ----------------------------------------------------------------------------
# Stride


def run(command, log):
    started = time.time()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    seconds = time.time() - started
    with open(log, "a") as f:
        f.write("$ " + " ".join(command) + "\n" + result.stdout + "\n")
    return result, seconds


def compile_graph(bin_dir, archive, module, work, options=()):
    """stridec cold (--no-cache), then twice through a cache: (cold s, cached s, error).
    `options`: more stridec options for every compile (bench/decode's
    --stridec-option)."""
    log = os.path.join(work, "stridec.log")
    stridec = os.path.join(bin_dir, "stridec")
    options = list(options)
    result, cold = run([stridec, archive, "-o", module, "--no-cache", *options], log)
    if result.returncode != 0:
        return None, None, result.stdout.strip().splitlines()[-1:]
    cache = os.path.join(work, "nvrtc-cache")
    run([stridec, archive, "-o", module, f"--cache-dir={cache}", *options], log)
    _, cached = run([stridec, archive, "-o", module, f"--cache-dir={cache}", *options], log)
    return cold, cached, None


def compile_training_step(bin_dir, directory, modules, work, options=()):
    """compile_graph of a training row's two archives together (stridec
    --backward: the attention paired across them, python-free-docs/attention.md)."""
    return compile_graph(
        bin_dir, os.path.join(directory, "forward.pt2"), modules["forward.pt2"], work,
        [f"--backward={os.path.join(directory, 'backward.pt2')}",
         f"--backward-output={modules['backward.pt2']}", *options])


def backward_after(graph, forward_outputs, forward_graph, user_outputs):
    """The backward graph's inputs when it runs after Stride's forward (the
    modules of a paired compile: their saved tensors are not the capture's):
    each forward output but the model's that the backward reads (by its
    name) or that the pairing added (attention's logsumexp, output, mask),
    then the recorded output gradients. A batch norm's updated running
    statistics are forward outputs the backward does not read. Where the
    pairing changed nothing, the recorded inputs."""
    reads = set(graph["input_names"])
    recorded = set(forward_graph["output_names"])
    produced = {os.path.splitext(f)[0] for f in os.listdir(forward_outputs)
                if f.endswith(".npy")}
    if produced <= recorded:
        # Nothing paired (no attention): the modules are the unpaired ones,
        # and the backward runs on the capture's saved tensors, as its
        # reference did (Stride's own max-pool indices part from the CPU
        # capture's where ReLU's zeros tie, and the gradients follow them).
        return graph
    inputs = []
    for f in sorted(os.listdir(forward_outputs)):
        name = os.path.splitext(f)[0]
        if f.endswith(".npy") and name not in user_outputs and (
                name in reads or name not in recorded):
            inputs.append((name, os.path.join(forward_outputs, f)))
    inputs += [(name, spec["file"]) for name, spec in zip(graph["input_names"], graph["inputs"])
               if name.startswith("tangents")]
    return dict(graph, input_names=[n for n, _ in inputs],
                inputs=[{"file": f} for _, f in inputs])


def stride_inputs(directory, graph):
    args = []
    for name, spec in zip(graph["input_names"], graph["inputs"]):
        args += ["--input", f"{name}={os.path.join(directory, spec['file'])}"]
    return args


def run_module(bin_dir, module, directory, graph, work, args, extra=()):
    """stride-run-gpu: outputs, --bench median, --profile-json; a dict.
    `extra`: more stride-run-gpu options for both runs (bench/decode's
    --state-in)."""
    runner = os.path.join(bin_dir, "stride-run-gpu")
    out_dir = os.path.join(work, "outputs")
    profile = os.path.join(work, "profile.json")
    log = os.path.join(work, "stride-run.log")
    tuning = ["--tune-library-calls"] if args.tune_library_calls else []
    tuning += list(extra)
    command = [runner, module, *stride_inputs(directory, graph), "--output-dir", out_dir,
               "--bench", "--warmup", str(args.warmup),
               "--iterations", str(args.iterations), *tuning]
    result, _ = run(command, log)
    row = {"log": result.stdout}
    if result.returncode != 0:
        row["error"] = result.stdout.strip().splitlines()[-1:]
        return row
    found = re.search(r"median ([0-9.]+) ms", result.stdout)
    row["ms"] = float(found.group(1)) if found else None
    found = re.search(r"peak allocated by the runtime [0-9.]+ MiB \(([0-9]+) bytes\)",
                      result.stdout)
    row["peak"] = int(found.group(1)) if found else None
    # A module compiled with --l2-resident-bytes: what the runtime applied.
    found = re.search(r"^(L2 windows: .*)$", result.stdout, re.M)
    if found:
        row["l2_windows"] = found.group(1)
    # A module with variants selected at run time: which ones these inputs
    # ran (the decode attention by the position).
    found = re.search(r"^variants: (.*)$", result.stdout, re.M)
    if found:
        row["variants"] = found.group(1)
    result, _ = run([runner, module, *stride_inputs(directory, graph),
                     "--profile-json", profile, "--iterations", str(args.iterations),
                     *tuning], log)
    if result.returncode == 0 and os.path.exists(profile):
        with open(profile) as f:
            row["profile"] = json.load(f)
    # A paired training step's forward returns other saved tensors than
    # the capture's: compared are the outputs both have.
    row["outputs"] = {name: os.path.join(out_dir, f"{name}.npy")
                      for name in graph["output_names"]
                      if os.path.exists(os.path.join(out_dir, f"{name}.npy"))}
    return row


def run_package(module, directory, graph, args):
    """The module through the Python package (stride.load: torch tensors in
    and out, the plan replayed as a CUDA graph, tuned as stride-run-gpu
    is), timed as PyTorch's columns are: ms, outputs (as float tensors on
    the CPU) or error."""
    import stride

    try:
        m = stride.load(module, copy_inputs=True, use_cuda_graph=True,
                        tune_library_calls=args.tune_library_calls)
        # bf16 inputs are stored as f32 (stride_export.to_numpy): cast each
        # to the signature's dtype; stage_inputs copies to its layout.
        tensors = [torch.from_numpy(np.load(os.path.join(directory, spec["file"])))
                   .to(dtype).cuda()
                   for spec, dtype in zip(graph["inputs"], m.input_dtypes)]
        inputs = m.stage_inputs(*tensors)
        outputs = m.run(*inputs)
        ms = median_ms(lambda: m.run(*inputs), args.warmup, args.iterations)
        # As stride-run-gpu --bench times: the mean of 10 back-to-back calls,
        # each call's outputs dropped before the next (as a loop drops them:
        # the caching allocator hands the same addresses back and the CUDA
        # graph replays as it is) ...
        loop_ms = median_ms(lambda: run_dropping_outputs(m, inputs, 10),
                            args.warmup, args.iterations) / 10
        # ... and with every call's outputs kept: new addresses each call,
        # so the graph is captured again and updated in place each time.
        kept_ms = median_ms(lambda: [m.run(*inputs) for _ in range(10)],
                            args.warmup, args.iterations) / 10
        return {"package_ms": ms, "package_loop_ms": loop_ms,
                "package_kept_ms": kept_ms,
                "package_outputs": [o.float().cpu() for o in outputs]}
    except stride.StrideError as e:
        return {"package_error": str(e).splitlines()[:1]}


def write_results_and_exit(rows, work):
    """Writes `rows` to WORK/results.json and exits at once: inductor's
    compile workers can keep a normal interpreter exit waiting (measured on
    the H200: a run's time limit hit after its table was printed)."""
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(rows, f, indent=1, default=str)
    sys.stdout.flush()
    os._exit(0)


def run_dropping_outputs(module, inputs, calls):
    for _ in range(calls):
        module.run(*inputs)


def relative_error(got_file, expected):
    return relative_error_of(torch.from_numpy(np.load(got_file)), expected)


def relative_error_of(got, expected):
    """max |got - expected| / max |expected| (inf when the shapes differ)."""
    got = got.double()
    expected = expected.double()
    if got.shape != expected.shape:
        return float("inf")
    scale = expected.abs().max().item() or 1.0
    return (got - expected).abs().max().item() / scale


def recorded_input(directory, spec):
    """A recorded input as the tensor the graph read (bf16 from its f32 file)."""
    tensor = torch.from_numpy(np.load(os.path.join(directory, spec["file"])))
    return tensor.bfloat16() if spec["dtype"].startswith("bfloat16") else tensor


def captured_graph_on_gpu(archive, directory, graph):
    """PyTorch's own run of a captured training graph on the GPU, from the
    recorded inputs (bf16 ones rounded back from their f32 files): its
    outputs, to print PyTorch's error against the captured CPU run beside
    Stride's. None where the graph does not run there."""
    from torch.export.graph_signature import InputKind
    try:
        program = torch.export.load(archive)
        inputs = iter(recorded_input(directory, spec).cuda() for spec in graph["inputs"])
        arguments = [program.constants[spec.target].cuda()
                     if spec.kind == InputKind.CONSTANT_TENSOR else next(inputs)
                     for spec in program.graph_signature.input_specs]
        module = program.graph_module.cuda()
        # Tensors the graph creates (arange, full) were captured on the CPU.
        for node in module.graph.nodes:
            if isinstance(node.kwargs.get("device"), torch.device):
                node.kwargs = {**node.kwargs, "device": torch.device("cuda")}
        module.recompile()
        with torch.no_grad():
            got = torch.fx.Interpreter(module).run(*arguments)
        return [t.float().cpu() for t in sx.flat_tensors(got)]
    except Exception as error:  # noqa: BLE001 - a comparison column only
        print(f"  {os.path.basename(archive)}: PyTorch's GPU run of the captured graph "
              f"failed: {type(error).__name__}: {error}", flush=True)
        return None


def batched_call(step):
    """A library call of a batched product (attention's Q K^T or P V; the
    linear layers' products have batch=1)."""
    found = re.search(r"batch=([0-9]+)", step["name"])
    return step["kind"] == "library call" and found and int(found.group(1)) > 1


def attention_ms(profile):
    """ms of the steps of attention: from each batched product to the next
    one, both included (the scores' scaling, mask and softmax between them).
    None without a profile or batched products."""
    if not profile:
        return None
    steps = profile.get("steps", [])
    marks = [i for i, step in enumerate(steps) if batched_call(step)]
    if len(marks) < 2:
        return None
    return sum(sum(step["median_ms"] for step in steps[first:second + 1])
               for first, second in zip(marks[0::2], marks[1::2]))


def top_steps(profile, count=12):
    """The `count` slowest steps, as lines for the log."""
    steps = sorted(profile.get("steps", []), key=lambda step: -step["median_ms"])
    return [f"{step['median_ms']:8.4f} ms  {step['kind']:<12}  {step['name']}"
            for step in steps[:count]]


def profile_split(profile):
    """ms in library calls and in generated kernels, from --profile-json."""
    if not profile:
        return None
    kinds = profile.get("kinds", {})
    return (kinds.get("library call", {}).get("ms"),
            kinds.get("kernel", {}).get("ms"))


# ----------------------------------------------------------------------------


def export(name, kind, make, directory, attention, partition):
    torch.manual_seed(0)
    model, inputs = make(attention)
    started = time.time()
    if kind == "export":
        sx.export_model(model, inputs, directory, attention=tracing(attention))
    else:
        sx.capture_training(model, inputs, directory, attention=tracing(attention),
                            partition=partition)
    with open(os.path.join(directory, "export.json")) as f:
        description = json.load(f)
    print(f"  exported in {time.time() - started:.1f} s", flush=True)
    return model, inputs, description


def bench_model(name, kind, make, rtol, args):
    directory = os.path.join(args.work, name)
    os.makedirs(directory, exist_ok=True)
    print(f"== {name}", flush=True)
    row = {"name": name, "kind": kind, "rtol": rtol, "graphs": {}}
    if args.torch_only:
        torch.manual_seed(0)
        model, inputs = make(args.attention)
        row.update(time_torch(model, inputs, kind, args, args.attention)[0])
        return row
    model, inputs, description = export(name, kind, make, directory, args.attention,
                                         args.partition)
    torch_row, eager_outputs = time_torch(model, inputs, kind, args, args.attention)
    row.update(torch_row)
    reference = None
    if kind == "export" and "bf16" in name:
        reference = f32_reference(model, inputs)
        row["torch_f32_err"] = max(
            (relative_error_of(e, r) for e, r in zip(eager_outputs, reference)), default=0.0)
    if args.attention == "sdpa" and args.compare_eager_attention:
        # torch.compile on the same model with attention written out, the
        # comparison of the tables before Stride fused attention.
        torch.manual_seed(0)
        eager_model, eager_inputs = make("eager")
        written_out, _ = time_torch(eager_model, eager_inputs, kind, args, "eager")
        row["compile_eager_attention_ms"] = written_out.get("compile_ms")
        del eager_model
    paired = kind == "train" and args.pair_training
    modules = {archive: os.path.join(directory, archive[: -len(".pt2")], "module.stridemod")
               for archive in description["graphs"]}
    for module in modules.values():  # a paired compile writes both at once
        os.makedirs(os.path.dirname(module), exist_ok=True)
    for archive, graph in description["graphs"].items():
        work = os.path.join(directory, archive[: -len(".pt2")])
        os.makedirs(work, exist_ok=True)
        g = {"nodes": sum(sx.count_targets(sx.archive_graph_json(
            os.path.join(directory, archive))).values())}
        row["graphs"][archive] = g
        module = modules[archive]
        if not paired:
            g["cold_s"], g["cached_s"], g["compile_error"] = compile_graph(
                args.bin, os.path.join(directory, archive), module, work,
                args.stridec_option)
        elif archive == "forward.pt2":  # both modules, timed on the forward's row
            g["cold_s"], g["cached_s"], g["compile_error"] = compile_training_step(
                args.bin, directory, modules, work, args.stridec_option)
        else:
            g["compile_error"] = row["graphs"]["forward.pt2"]["compile_error"]
        if g["compile_error"]:
            continue
        recorded = graph  # what the capture saw: PyTorch's run of the graph
        if paired and archive == "backward.pt2":
            forward_graph = description["graphs"]["forward.pt2"]
            graph = backward_after(
                graph, os.path.join(directory, "forward", "outputs"), forward_graph,
                forward_graph["output_names"][: description["user_outputs"]])
        g.update(run_module(args.bin, module, directory, graph, work, args))
        if "outputs" not in g:
            continue
        if kind == "export":
            expected = eager_outputs
            dtypes = [str(e.dtype) for e in eager_outputs]
        else:
            expected = [torch.from_numpy(np.load(os.path.join(directory, o["file"]))).float()
                        for o in graph["outputs"]]
            dtypes = [str(np.load(os.path.join(directory, o["file"]), mmap_mode="r").dtype)
                      for o in graph["outputs"]]
        # The outputs Stride's module has (a paired forward saves others).
        compared = [i for i, n in enumerate(graph["output_names"]) if n in g["outputs"]]
        errors = [relative_error(g["outputs"][graph["output_names"][i]], expected[i])
                  for i in compared]
        g["rel_err"] = max(errors, default=0.0)
        # PyTorch's error on the same graph and inputs, beside Stride's: a
        # training graph's reference is a CPU run, which PyTorch's GPU
        # kernels do not match bit for bit either.
        torch_errors = [None] * len(errors)
        if kind == "train":
            on_gpu = captured_graph_on_gpu(os.path.join(directory, archive), directory,
                                           recorded)
            if on_gpu is not None and len(on_gpu) == len(expected):
                torch_errors = [relative_error_of(on_gpu[i], expected[i]) for i in compared]
                g["torch_gpu_err"] = max(torch_errors, default=0.0)
        if g["rel_err"] > rtol:
            print(f"  {archive}: outputs over {rtol:g} (Stride's error, PyTorch's on the "
                  "GPU): " + ", ".join(
                      f"{graph['output_names'][i]} {dtypes[i]} {tuple(expected[i].shape)} "
                      f"{err:.3g} / {fmt(terr, '.3g')}"
                      for i, err, terr in zip(compared, errors, torch_errors)
                      if err > rtol), flush=True)
        if args.package:
            via = run_package(module, directory, graph, args)
            outputs = via.pop("package_outputs", None)
            g.update(via)
            if outputs is not None:
                g["package_err"] = max((relative_error_of(o, e)
                                        for o, e in zip(outputs, expected)), default=0.0)
        if reference is not None:
            g["f32_err"] = max((relative_error(g["outputs"][n], r)
                                for n, r in zip(graph["output_names"], reference)),
                               default=0.0)
        g.pop("log", None)
        if kind == "export":  # in a backward graph the batched products do not pair up
            g["attention_ms"] = attention_ms(g.get("profile"))
        if g.get("profile"):
            print("  slowest steps of " + archive + ":\n    " +
                  "\n    ".join(top_steps(g["profile"])), flush=True)
    if name in ATTENTION and not args.torch_only:
        dtype = torch.bfloat16 if "bf16" in name else torch.float32
        row["fused_attention_ms"] = fused_attention_ms(ATTENTION[name], dtype, args)
    return row


def mib(b):
    return f"{b / 2**20:.0f}" if b else "n/a"


def fmt(x, spec):
    return format(x, spec) if isinstance(x, (int, float)) else "n/a"


def accuracy_verdict(row, g):
    """ok within the row's tolerance; for a training graph, whose reference
    is a CPU run that PyTorch's own GPU kernels miss too (bf16 errors grow
    through ResNet-50's 50 layers of batch statistics), also ok when
    Stride's largest error is at most 1.25 times PyTorch's GPU run's."""
    err, torch_err = g["rel_err"], g.get("torch_gpu_err")
    if err <= row["rtol"]:
        return "ok"
    if torch_err is not None and err <= 1.25 * torch_err:
        return "ok, as PyTorch"
    return "FAIL"


def print_table(rows):
    print("\n| model | graph | nodes | stridec cold s | cached s | Stride ms | "
          "lib/kernels ms | eager ms | compile ms | reduce-overhead ms | rel err | "
          "Stride peak MiB | eager peak MiB | compile peak MiB | compile, eager attention ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        for archive, g in (row["graphs"].items() or [("(not compiled)", {"nodes": "n/a"})]):
            split = profile_split(g.get("profile"))
            err = g.get("rel_err")
            verdict = "n/a" if err is None else f"{err:.2g} ({accuracy_verdict(row, g)})"
            if g.get("torch_gpu_err") is not None:
                verdict += f"; PyTorch on the GPU {g['torch_gpu_err']:.2g}"
            stride_ms = g.get("ms")
            if g.get("compile_error"):
                stride_ms = "compile failed: " + " ".join(g["compile_error"])
            elif g.get("error"):
                stride_ms = "run failed: " + " ".join(g["error"])
            print(f"| {row['name']} | {archive} | {g['nodes']} | {fmt(g.get('cold_s'), '.2f')} | "
                  f"{fmt(g.get('cached_s'), '.3f')} | "
                  f"{stride_ms if isinstance(stride_ms, str) else fmt(stride_ms, '.3f')} | "
                  f"{'n/a' if not split else fmt(split[0], '.2f') + '/' + fmt(split[1], '.2f')} | "
                  f"{fmt(row.get('eager_ms'), '.3f')} | {fmt(row.get('compile_ms'), '.3f')} | "
                  f"{fmt(row.get('reduce_overhead_ms'), '.3f')} | {verdict} | "
                  f"{mib(g.get('peak'))} | {mib(row.get('eager_peak'))} | "
                  f"{mib(row.get('compile_peak'))} | "
                  f"{fmt(row.get('compile_eager_attention_ms'), '.3f')} |")
    print("\n(training rows: PyTorch's columns time the whole step, forward and "
          "backward; Stride's each graph. Their reference is the captured CPU run; "
          "'ok, as PyTorch': over the tolerance, but at most 1.25 times the error "
          "of PyTorch's own GPU run of the same graph)")
    if any("package_ms" in g or "package_error" in g
           for row in rows for g in row["graphs"].values()):
        print_package(rows)
    print_steps(rows)
    print("\n| model | Stride ms | of which attention ms | fused attention ms (PyTorch SDPA) | "
          "Stride with fused attention ms (bound) | compile ms |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        for archive, g in row["graphs"].items():
            attention, fused = g.get("attention_ms"), row.get("fused_attention_ms")
            bound = (g["ms"] - attention + fused
                     if None not in (attention, fused, g.get("ms")) else None)
            if attention is None:
                continue
            print(f"| {row['name']} | {fmt(g.get('ms'), '.3f')} | {fmt(attention, '.3f')} | "
                  f"{fmt(fused, '.3f')} | {fmt(bound, '.3f')} | "
                  f"{fmt(row.get('compile_ms'), '.3f')} |")


def print_package(rows):
    """--package: each graph through the Python package beside
    stride-run-gpu."""
    print("\n| model | graph | stride-run-gpu ms | package ms (one call) | "
          "package ms (10 back to back, outputs dropped, as stride-run-gpu) | "
          "package / stride-run-gpu (same method) | "
          "package ms (10 back to back, outputs kept: a graph update each) | "
          "package rel err |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        for archive, g in row["graphs"].items():
            ms, via, loop = g.get("ms"), g.get("package_ms"), g.get("package_loop_ms")
            ratio = loop / ms if ms and loop else None
            shown = (fmt(via, ".3f") if "package_error" not in g
                     else "failed: " + " ".join(g["package_error"]))
            print(f"| {row['name']} | {archive} | {fmt(ms, '.3f')} | {shown} | "
                  f"{fmt(loop, '.3f')} | {fmt(ratio, '.3f')} | "
                  f"{fmt(g.get('package_kept_ms'), '.3f')} | "
                  f"{fmt(g.get('package_err'), '.2g')} |")


def print_steps(rows):
    """Per model, Stride's whole call (a training step: its forward and
    backward graphs together) against PyTorch's, and for bf16 models each
    one's error against the f32 reference."""
    print("\n| model | Stride ms (all graphs) | compile ms | reduce-overhead ms | "
          "eager ms | compile / Stride | Stride err vs f32 | PyTorch err vs f32 |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        graphs = list(row["graphs"].values())
        times = [g.get("ms") for g in graphs]
        total = sum(times) if graphs and None not in times else None
        compile_ms = row.get("compile_ms")
        ratio = compile_ms / total if total and compile_ms else None
        f32_errs = [g["f32_err"] for g in graphs if "f32_err" in g]
        print(f"| {row['name']} | {fmt(total, '.3f')} | {fmt(compile_ms, '.3f')} | "
              f"{fmt(row.get('reduce_overhead_ms'), '.3f')} | {fmt(row.get('eager_ms'), '.3f')} | "
              f"{fmt(ratio, '.3f')} | {fmt(max(f32_errs) if f32_errs else None, '.2g')} | "
              f"{fmt(row.get('torch_f32_err'), '.2g')} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="one model (repeatable): " +
                        ", ".join(m[0] for m in model_list()))
    parser.add_argument("--work", default="/tmp/stride-models", metavar="DIR")
    parser.add_argument("--bin", default=os.path.join(HERE, "bin"), metavar="DIR",
                        help="where stridec and stride-run-gpu are (default: the bundle's bin/)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--tune-library-calls", action="store_true",
                        help="run Stride's modules with stride-run-gpu "
                             "--tune-library-calls (each product's algorithm "
                             "chosen by timing before the first run)")
    parser.add_argument("--attention", choices=("sdpa", "eager"), default="sdpa",
                        help="transformers' attention implementation of every model: "
                        "sdpa (default, what users get: Stride imports it as one fused "
                        "op) or eager (attention written out)")
    parser.add_argument("--compare-eager-attention", action="store_true",
                        help="with --attention sdpa: also time torch.compile on the "
                        "model with eager attention")
    parser.add_argument("--partition", choices=sx.PARTITIONS, default="min-cut",
                        help="how a training row's capture splits forward and "
                        "backward (stride_export.py train --partition): min-cut "
                        "(default, as torch.compile) or default")
    parser.add_argument("--no-pair-training", dest="pair_training", action="store_false",
                        help="compile a training row's forward and backward archives "
                        "each on its own; by default they are compiled together "
                        "(stridec --backward: eager attention fused across them), "
                        "and the backward runs on the saved tensors of Stride's "
                        "forward run")
    parser.add_argument("--stridec-option", action="append", default=[], metavar="OPTION",
                        help="pass OPTION to every stridec (repeatable; e.g. "
                        "--stridec-option=--pad-operand-rows)")
    parser.add_argument("--torch-only", action="store_true",
                        help="export and time PyTorch only (no stridec)")
    parser.add_argument("--package", action="store_true",
                        help="also run each module through the Python package "
                        "(stride.load, torch tensors, a CUDA graph), timed as "
                        "PyTorch's columns are (one call) and as stride-run-gpu "
                        "--bench times (10 back-to-back calls), beside stride-run-gpu")
    args = parser.parse_args(argv)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cudnn = sx.use_torchs_cudnn()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, cuDNN "
          f"{torch.backends.cudnn.version()}; {args.attention} attention; Stride's "
          f"cuDNN: {cudnn or 'the loader finds'}", flush=True)
    rows = []
    for name, kind, make, rtol in model_list():
        if args.only and name not in args.only:
            continue
        try:
            rows.append(bench_model(name, kind, make, rtol, args))
        except Exception as e:  # noqa: BLE001 - one model failing must not stop the rest
            import traceback
            traceback.print_exc()
            rows.append({"name": name, "kind": kind, "rtol": rtol,
                         "graphs": {"(export)": {"nodes": 0, "compile_error": [str(e)[:200]]}}})
        with open(os.path.join(args.work, "results.json"), "w") as f:
            json.dump(rows, f, indent=1, default=str)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
