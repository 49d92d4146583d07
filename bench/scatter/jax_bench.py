#!/usr/bin/env python3
"""JAX side of the scatter-add benchmark (bench/scatter/scatter_bench.py
starts it, once with XLA's default flags and once with
--xla_gpu_exclude_nondeterministic_ops=true): times
zeros.at[idx].add(src), jitted, on the inputs scatter_bench.py wrote, and
writes OUT/results.json (name -> {ms, output}) and each output as .npy.

  jax_bench.py INPUTS OUT
"""
import json
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

ROWS, WIDTH = 50257, 768


def time_ms(fn, warmup=5, batches=15, per_batch=10):
    """Median over batches of the mean time of `per_batch` calls."""
    for _ in range(warmup):
        fn().block_until_ready()
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(per_batch):
            out = fn()
        out.block_until_ready()
        times.append((time.perf_counter() - start) * 1e3 / per_batch)
    return statistics.median(times)


def main(inputs, out):
    results = {}
    for name in sorted(os.listdir(inputs)):
        if name.endswith("_det"):
            continue
        dtype = jnp.bfloat16 if name.endswith("bf16") else jnp.float32
        idx = jnp.asarray(np.load(os.path.join(inputs, name, "arg0.npy")))
        src = jnp.asarray(np.load(os.path.join(inputs, name, "arg1.npy"))).astype(dtype)
        fn = jax.jit(lambda i, s: jnp.zeros((ROWS, WIDTH), s.dtype).at[i].add(s))
        ms = time_ms(lambda: fn(idx, src))
        path = os.path.join(out, name + ".npy")
        np.save(path, np.asarray(fn(idx, src).astype(jnp.float32)))
        results[name] = {"ms": ms, "output": path}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
