#!/usr/bin/env python3
"""The Python package on a GPU machine: one command, PASS/FAIL lines and
figures, exit status 0 only when every check passed.

  python3 -m pip install --no-deps ./python   # once (needs no network)
  STRIDE_LIBRARY=build/portable/lib/libstride.so python3 python/tests/gpu_check.py

Needs torch with CUDA, numpy and, for the GPT-2 check, transformers.
STRIDE_LIBRARY defaults to build/portable/lib/libstride.so, then
build/lib/libstride.so, of the repository this file is in. Checks:

  seed        the seed's reproducer, slice_scatter(x, y, dim=1).sum(dim=1),
              backward under torch.compile(backend="stride") at the five
              shapes of the seed, f32 and f64: x.grad equals eager's, and
              both graphs ran as Stride modules (the backward repaired);
              inductor's x.grad beside it at 4x13x33
  shapes      the five shapes in one process without torch._dynamo.reset():
              Dynamo makes the graph dynamic, the backend compiles each shape
  load        stride.compile + stride.load of the seed's forward: results,
              a refused input layout (StrideError with the signature),
              copy_inputs=True, PyTorch's current stream
  overhead    host time of one call of the seed's forward at 4x13x33
              (median of many): Stride vs eager, torch.compile default and
              reduce-overhead; passes at most half of torch.compile's
  states      the LLaMA decode fixture (test/Import/Torch/fixtures/
              llama_decode): prefill.pt2 and decode.pt2 compiled, loaded
              with the decode module sharing the prefill's states, the
              prompt and the decode steps run with each step's next_token
              and next_position fed back: the tokens equal
              expected_tokens.npy, the final states expected_states/;
              read_state, write_states and reset_states on the shared cache
  gpt2        GPT-2 (2 layers, sdpa attention, f32, TF32 off) trained 100
              AdamW steps under backend="stride" (its default options, and
              attention="fused") vs eager: max relative loss difference
              (passes <= 1e-3), step times vs torch.compile (the default
              options' must be at most torch.compile default's)

--only NAME (repeatable) runs some of them; --steps N for GPT-2.
"""

import argparse
import os
import statistics
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def find_library():
    for sub in ("build/portable/lib", "build/lib"):
        path = os.path.join(REPO, sub, "libstride.so")
        if os.path.exists(path):
            os.environ.setdefault("STRIDE_LIBRARY", path)
            return


find_library()
import torch  # noqa: E402

try:
    import stride
except ImportError:  # not installed: the repository's copy
    sys.path.insert(0, os.path.join(REPO, "python"))
    import stride
    print("WARN: stride is not installed (python3 -m pip install --no-deps ./python); "
          "using python/ of the repository")
import stride.dynamo  # noqa: E402

# The export helper's GPT-2 logits wrapper (its fixtures' models).
sys.path.insert(0, os.path.join(REPO, "tools", "stride-export"))
from stride_export import Logits  # noqa: E402

stride.dynamo.register()
DEVICE = torch.device("cuda")
RESULTS = []  # (name, passed)


def report(name, passed, detail):
    RESULTS.append((name, passed))
    print(f"{'PASS' if passed else 'FAIL'} {name}: {detail}", flush=True)


def check(name):
    """Runs a check function; an exception is a FAIL with its traceback."""
    def wrap(function):
        def run(*args, **kwargs):
            try:
                function(*args, **kwargs)
            except Exception as error:  # noqa: BLE001
                traceback.print_exc()
                report(name, False, f"{type(error).__name__}: {error}")
        run.check_name = name
        return run
    return wrap


# ----------------------------------------------------------------------------
# The seed

SHAPES = ((4, 13, 33, 0, 6), (2, 8, 16, 0, 4), (1, 6, 100, 0, 3),
          (3, 20, 7, 5, 12), (7, 63, 33, 0, 31))


def seed_function(start, end):
    def f(x, y):
        return torch.slice_scatter(x, y, dim=1, start=start, end=end).sum(dim=1)
    return f


def seed_gradient(f, shape, dtype, seed=0):
    """(x.grad, output) of f's backward for a random output gradient."""
    b, n, h, start, end = shape
    generator = torch.Generator(device=DEVICE).manual_seed(seed)
    x = torch.randn(b, n, h, device=DEVICE, dtype=dtype, generator=generator,
                    requires_grad=True)
    y = torch.randn(b, end - start, h, device=DEVICE, dtype=dtype, generator=generator)
    g = torch.randn(b, h, device=DEVICE, dtype=dtype, generator=generator)
    out = f(x, y)
    out.backward(g)
    torch.cuda.synchronize()
    return x.grad, out.detach()


def stats_delta(before):
    return {k: stride.dynamo.stats[k] - before.get(k, 0)
            for k in ("compiled", "fallback", "repaired", "specialized")}


@check("seed")
def check_seed():
    for dtype in (torch.float32, torch.float64):
        for shape in SHAPES:
            name = f"seed {str(dtype)[6:]} {'x'.join(map(str, shape[:3]))} [{shape[3]}:{shape[4]}]"
            f = seed_function(shape[3], shape[4])
            expected, eager_out = seed_gradient(f, shape, dtype)
            torch._dynamo.reset()
            before = dict(stride.dynamo.stats)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got, out = seed_gradient(torch.compile(f, backend="stride"), shape, dtype)
            delta = stats_delta(before)
            said = [str(w.message) for w in caught
                    if issubclass(w.category, (stride.dynamo.StrideRepairWarning,
                                               stride.dynamo.StrideFallbackWarning))]
            exact = torch.equal(got, expected)
            # The forward sums in another order than eager does: compare
            # against the largest result (an element-wise rtol fails on
            # sums that cancel to near zero).
            forward_error = ((out - eager_out).abs().max() / eager_out.abs().max()).item()
            close = forward_error <= (1e-5 if dtype == torch.float32 else 1e-12)
            via_stride = delta["compiled"] == 2 and delta["fallback"] == 0
            report(name, exact and close and via_stride,
                   f"x.grad sum {got.sum().item():.4f} (eager {expected.sum().item():.4f}), "
                   f"exact {exact}, forward error {forward_error:.1e}; graphs by Stride "
                   f"{delta['compiled']}, eager {delta['fallback']}, repaired "
                   f"{delta['repaired']}" + "".join(f"\n    said: {s}" for s in said))
    shape = SHAPES[0]
    torch._dynamo.reset()
    f = seed_function(shape[3], shape[4])
    inductor, _ = seed_gradient(torch.compile(f), shape, torch.float32)
    expected, _ = seed_gradient(f, shape, torch.float32)
    print(f"INFO seed 4x13x33 under inductor (torch.compile's default): x.grad sum "
          f"{inductor.sum().item():.4f}, eager {expected.sum().item():.4f}", flush=True)


@check("shapes")
def check_shapes():
    """The five shapes in one process: after the second, Dynamo marks the
    dims dynamic, and the backend specializes per shape."""
    torch._dynamo.reset()
    before = dict(stride.dynamo.stats)
    wrong = []
    # One function for all shapes (start and end as in the first), so that
    # Dynamo sees one code object called with new shapes.
    for b, n, h, _, _ in SHAPES:
        shape = (b, n, h, 0, 3)
        f = seed_function(0, 3)
        expected, _ = seed_gradient(f, shape, torch.float64)
        got, _ = seed_gradient(compiled_once(f), shape, torch.float64)
        if not torch.equal(got, expected):
            wrong.append(shape)
    delta = stats_delta(before)
    report("shapes without reset", not wrong and delta["fallback"] == 0,
           f"wrong at {wrong or 'none'}; graphs by Stride {delta['compiled']}, "
           f"eager {delta['fallback']}, dynamic graphs specialized "
           f"{delta['specialized']}")


_compiled = {}


def compiled_once(f):
    key = f.__code__
    if key not in _compiled:
        _compiled[key] = torch.compile(f, backend="stride")
    return _compiled[key]


# ----------------------------------------------------------------------------
# stride.compile and stride.load


class Seed(torch.nn.Module):
    def forward(self, x, y):
        return torch.slice_scatter(x, y, dim=1, start=0, end=6).sum(dim=1)


def seed_inputs(dtype=torch.float32):
    generator = torch.Generator(device=DEVICE).manual_seed(1)
    x = torch.randn(4, 13, 33, device=DEVICE, dtype=dtype, generator=generator)
    y = torch.randn(4, 6, 33, device=DEVICE, dtype=dtype, generator=generator)
    return x, y


@check("load")
def check_load():
    import tempfile

    x, y = seed_inputs()
    compiled = stride.compile(Seed(), (x, y))
    expected = Seed()(x, y)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "seed.stridemod")
        with open(path, "wb") as f:
            f.write(compiled.module_bytes)
        loaded = stride.load(path)
    print("INFO " + loaded.signature.replace("\n", "\n     "))
    got = loaded(x, y)
    torch.cuda.synchronize()
    report("load: result", torch.allclose(got, expected, rtol=1e-5, atol=1e-6),
           f"max abs diff {(got - expected).abs().max().item():.3g}, output "
           f"{tuple(got.shape)} strides {got.stride()} on {got.device}")
    # A layout other than the signature's: refused, naming the expectation.
    xt = x.transpose(1, 2).contiguous().transpose(1, 2)
    try:
        loaded(xt, y)
        report("load: refuses a layout", False, "no error")
    except stride.StrideError as error:
        report("load: refuses a layout", error.code == "STRIDE_INVALID_ARGUMENT"
               and "expected" in error.message and "takes" in error.message,
               f"{error.code}: {error.message.splitlines()[0]}")
    copying = stride.load(compiled.module_bytes, copy_inputs=True)
    got = copying(xt, y)
    torch.cuda.synchronize()
    report("load: copy_inputs", torch.allclose(got, expected, rtol=1e-5, atol=1e-6),
           "a transposed-layout input copied into the signature's layout")
    # PyTorch's current stream: a side stream, waited for alone.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = loaded(x, y)
        copy = got.clone()
    side.synchronize()
    report("load: current stream", torch.allclose(copy, expected, rtol=1e-5, atol=1e-6),
           f"ran on a side stream; {len(loaded._invocations)} invocations "
           "(one per stream)")
    try:
        loaded(x)
        report("load: wrong count", False, "no error")
    except stride.StrideError as error:
        report("load: wrong count", error.code == "STRIDE_INVALID_ARGUMENT",
               error.message.splitlines()[0])


# ----------------------------------------------------------------------------
# States: a prefill and a decode module on one KV cache

LLAMA_DECODE = os.path.join(REPO, "test", "Import", "Torch", "fixtures", "llama_decode")


def compile_fixture(name):
    """A TorchModule's bytes for fixture archive `name` (compiled for this
    device's arch, as stride.compile does, without a cache)."""
    arch = stride.module.runtime(torch.cuda.current_device()).arch
    compiler = stride.Compiler(arch=arch)
    return compiler.compile_file(os.path.join(LLAMA_DECODE, name)).module_bytes


def generate(prefill, decode, prompt, new_tokens):
    """Greedy decoding: the prompt through `prefill`, then `new_tokens` - 1
    steps of `decode`, each fed the last step's next_token and
    next_position (on the device). Returns the tokens [B, new_tokens]."""
    positions = torch.arange(prompt.shape[1], device=DEVICE, dtype=torch.int64)
    _, token, position = prefill(prompt, positions)
    tokens = [token]
    for _ in range(new_tokens - 1):
        _, token, position = decode(token, position)
        tokens.append(token)
    return torch.cat(tokens, dim=1)


def state_errors(module, folder):
    """{state: max abs difference} between `module`'s states and the
    expected ones in `folder` (one .npy per state it has)."""
    import numpy as np

    errors = {}
    for spec in module.states:
        path = os.path.join(folder, spec.name + ".npy")
        if os.path.exists(path):
            expected = torch.from_numpy(np.load(path)).to(DEVICE)
            got = module.read_state(spec.name)
            errors[spec.name] = (got.double() - expected.double()).abs().max().item()
    return errors


@check("states")
def check_states():
    import numpy as np

    prefill = stride.load(compile_fixture("prefill.pt2"))
    decode = stride.load(compile_fixture("decode.pt2"), share_states_with=prefill)
    print("INFO " + decode.signature.replace("\n", "\n     "))
    prompt = torch.from_numpy(np.load(os.path.join(LLAMA_DECODE, "prompt.npy"))).to(DEVICE)
    expected = np.load(os.path.join(LLAMA_DECODE, "expected_tokens.npy"))
    tokens = generate(prefill, decode, prompt, expected.shape[1]).cpu().numpy()
    report("states: tokens", (tokens == expected).all(),
           f"{(tokens == expected).sum()} of {expected.size} tokens equal "
           "transformers' (decode sharing the prefill's states)")
    errors = state_errors(decode, os.path.join(LLAMA_DECODE, "expected_states"))
    worst = max(errors, key=errors.get)
    report("states: final states", errors[worst] <= 1e-4,
           f"{len(errors)} states read from the decode module; largest "
           f"difference {errors[worst]:.3g} ({worst})")
    # The storage is one: a write through one module is read by the other;
    # a reset of either gives the initial values (the cache: zeros).
    cache = next(s.name for s in decode.states if "key_cache" in s.name)
    value = prefill.read_state(cache)
    decode.write_states({cache: torch.ones_like(value)})
    shared = bool((prefill.read_state(cache) == 1).all())
    prefill.reset_states()
    reset = not decode.read_state(cache).any()
    report("states: one storage", shared and reset,
           f"'{cache}' written through the decode module and read from the "
           f"prefill's: {shared}; zeros after the prefill's reset: {reset}")
    # After the reset the same prompt gives the same tokens again.
    again = generate(prefill, decode, prompt, 4).cpu().numpy()
    report("states: after reset", (again == expected[:, :4]).all(),
           "the prompt and 3 decode steps from reset states: the first 4 tokens")


# ----------------------------------------------------------------------------
# Host overhead


def host_median_us(call, calls=3000, warmup=200):
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    times = []
    clock = time.perf_counter_ns
    for _ in range(calls):
        start = clock()
        call()
        times.append(clock() - start)
    torch.cuda.synchronize()
    return statistics.median(times) / 1000.0


@check("overhead")
def check_overhead():
    x, y = seed_inputs()
    model = Seed()
    f = lambda: model(x, y)  # noqa: E731
    torch._dynamo.reset()
    default = torch.compile(Seed())
    reduce = torch.compile(Seed(), mode="reduce-overhead")
    module = stride.compile(Seed(), (x, y))
    figures = {
        "eager": host_median_us(f),
        "torch.compile default": host_median_us(lambda: default(x, y)),
        "torch.compile reduce-overhead": host_median_us(lambda: reduce(x, y)),
        "stride (stride.compile module)": host_median_us(lambda: module(x, y)),
    }
    for name, us in figures.items():
        print(f"INFO overhead 4x13x33 {name}: {us:.1f} us per call (median)", flush=True)
    ratio = figures["stride (stride.compile module)"] / figures["torch.compile default"]
    report("overhead", ratio <= 0.5,
           f"Stride {figures['stride (stride.compile module)']:.1f} us = {ratio:.2f} x "
           f"torch.compile default's {figures['torch.compile default']:.1f} us "
           "(target <= 0.5)")


# ----------------------------------------------------------------------------
# GPT-2 training


def gpt2(seed, vocab, width, tokens):
    import transformers

    config = transformers.GPT2Config(
        vocab_size=vocab, n_positions=tokens, n_embd=width, n_layer=2, n_head=4,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
    torch.manual_seed(seed)
    try:
        model = transformers.GPT2LMHeadModel._from_config(config, attn_implementation="sdpa")
    except Exception:  # noqa: BLE001 - older transformers
        config._attn_implementation = "sdpa"
        model = transformers.GPT2LMHeadModel(config)
    return Logits(model).to(DEVICE).train()


def train(model, compiled, batches, steps, vocab):
    """Losses and per-step times (ms) of `steps` AdamW steps."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    losses, times = [], []
    for step in range(steps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        ids = batches[step % len(batches)]
        logits = compiled(ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, vocab), ids[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())  # synchronizes
        times.append((time.perf_counter() - start) * 1000)
    return losses, times


@check("gpt2")
def check_gpt2(steps=100, vocab=1024, width=256, tokens=128, batch=8):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    generator = torch.Generator(device=DEVICE).manual_seed(0)
    batches = [torch.randint(0, vocab, (batch, tokens + 1), device=DEVICE,
                             generator=generator) for _ in range(8)]
    runs = {}
    variants = (("eager", None, None), ("torch.compile default", "inductor", None),
                ("stride", "stride", None), ("stride attention=fused", "stride",
                                             {"attention": "fused"}))
    for name, backend, options in variants:
        torch._dynamo.reset()
        model = gpt2(0, vocab, width, tokens)
        before = dict(stride.dynamo.stats)
        compiled = model if backend is None else torch.compile(
            model, backend=backend, options=options)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            losses, times = train(model, compiled, batches, steps, vocab)
        first = times[0]
        steady = statistics.median(times[5:]) if len(times) > 5 else statistics.median(times)
        runs[name] = (losses, steady)
        delta = stats_delta(before)
        said = [str(w.message) for w in caught
                if issubclass(w.category, (stride.dynamo.StrideRepairWarning,
                                           stride.dynamo.StrideFallbackWarning))]
        extra = (f"; graphs by Stride {delta['compiled']}, eager {delta['fallback']}, "
                 f"repaired {delta['repaired']}" if backend == "stride" else "")
        if backend is not None:
            eager = runs["eager"][0]
            worst = max(abs(a - b) / abs(b) for a, b in zip(losses, eager))
            extra += f"; max relative loss difference vs eager {worst:.3g}"
        print(f"INFO gpt2 {name}: step {steady:.3f} ms (median of steps 6-{steps}), "
              f"first step {first:.0f} ms, loss {losses[0]:.4f} -> {losses[-1]:.4f}"
              f"{extra}" + "".join(f"\n    said: {s}" for s in said[:6]), flush=True)
        if backend == "stride":
            report(f"gpt2 {name}: losses", worst <= 1e-3 and delta["fallback"] == 0,
                   f"max relative loss difference vs eager over {steps} steps "
                   f"{worst:.3g} (<= 1e-3), graphs by Stride {delta['compiled']}, "
                   f"eager {delta['fallback']}")
            inductor = runs["torch.compile default"][1]
            timing = (f"{steady:.3f} ms vs torch.compile default {inductor:.3f} ms "
                      f"({inductor / steady:.2f}x), eager {runs['eager'][1]:.3f} ms")
            if options is None:  # the target is for the backend's defaults
                report(f"gpt2 {name}: step time", steady <= inductor, timing)
            else:
                print(f"INFO gpt2 {name}: step time {timing}")


CHECKS = {"seed": check_seed, "shapes": check_shapes, "load": check_load,
          "states": check_states, "overhead": check_overhead, "gpt2": check_gpt2}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(CHECKS), default=[])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}, stride "
          f"{stride.version()} from {stride.__file__}, libstride "
          f"{os.environ.get('STRIDE_LIBRARY', '(loader path)')}", flush=True)
    for name, function in CHECKS.items():
        if args.only and name not in args.only:
            continue
        print(f"== {name}", flush=True)
        if name == "gpt2":
            function(steps=args.steps)
        else:
            function()
    passed = sum(1 for _, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
