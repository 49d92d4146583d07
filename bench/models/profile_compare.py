"""Puts Stride's per-step profile of a model beside torch.compile's kernels,
to find where the two spend their time (bench/NOTES.md section 24).

Run on the GPU machine in the bundle, after run.sh has compiled and run the
model (the graph's work folder holds Stride's profile.json):

  python3 profile_compare.py --model gpt2_f32 \\
      --stride-profile /tmp/stride-models/gpt2_f32/model/profile.json

Prints, for torch.compile (default), the device time per call of each
kernel over 5 profiled calls (torch.profiler), and for Stride the steps
grouped by name without their numeric suffix; each side's matrix products
(cuBLAS / cuBLASLt kernels, library calls) and other kernels in total.
"""

import argparse
import collections
import json
import re

import torch
from torch.profiler import ProfilerActivity, profile

import bench_models as bm
import stride_export as sx

CALLS = 5


def is_gemm(name):
    return bool(re.search(r"gemm|cutlass|sm90_xmma|cublas|nvjet", name, re.I))


def torch_kernels(make, kind, attention="sdpa"):
    model, inputs = make(attention)[:2]
    model = model.cuda()
    inputs = [t.cuda() for t in inputs]
    with sx.attention_backend(bm.tracing(attention)):
        compiled = torch.compile(model)
        step = bm.torch_step(compiled, inputs, kind, None)
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(CALLS):
                step()
            torch.cuda.synchronize()
    times = collections.Counter()
    counts = collections.Counter()
    for event in prof.key_averages():
        us = getattr(event, "device_time_total", None)
        if us is None:
            us = event.cuda_time_total
        if us:
            times[event.key] += us / 1000.0 / CALLS
            counts[event.key] += event.count / CALLS
    return times, counts


def stride_steps(path):
    with open(path) as f:
        steps = json.load(f)["steps"]
    times = collections.Counter()
    counts = collections.Counter()
    for step in steps:
        name = re.sub(r"_[0-9]+$", "", step["name"])
        times[(step["kind"], name)] += step["median_ms"]
        counts[(step["kind"], name)] += 1
    return times, counts


def print_side(title, times, counts, gemm):
    total = sum(times.values())
    products = sum(ms for key, ms in times.items() if gemm(key))
    print(f"\n## {title}: {total:.3f} ms per call; matrix products "
          f"{products:.3f} ms, other {total - products:.3f} ms")
    for key, ms in times.most_common(40):
        print(f"{ms:9.4f} ms  x{counts[key]:<5g} {key}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gpt2_f32")
    parser.add_argument("--stride-profile", required=True)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, kind, make, _ in bm.model_list():
        if name == args.model:
            break
    else:
        raise SystemExit(f"no model {args.model}")
    times, counts = torch_kernels(make, kind)
    print_side("torch.compile", times, counts, is_gemm)
    times, counts = stride_steps(args.stride_profile)
    print_side("Stride", times, counts,
               lambda key: key[0] == "library call")


if __name__ == "__main__":
    main()
