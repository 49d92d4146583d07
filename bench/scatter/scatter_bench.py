#!/usr/bin/env python3
"""PyTorch side of the scatter-add benchmark (issue 16), run by
bench/compare.sh on the GPU machine in a bundle made by
bench/scatter/prepare.sh (not part of the product: Stride itself has no
Python). index_add of 65,536 source rows of 768 into zeros of 50,257 x 768
under four index patterns (uniform, Zipf(1.1), all to one row, two hot rows),
f32 and bf16: Stride in its default and deterministic modes, PyTorch eager
(default and torch.use_deterministic_algorithms(True)), torch.compile, and
JAX (default and with XLA_FLAGS=--xla_gpu_exclude_nondeterministic_ops=true,
each in a process of its own since XLA reads XLA_FLAGS when it starts: see
jax_bench.py). Every output is checked against an f64 PyTorch reference
(norm-wise relative error <= 1e-5 for f32, 1e-2 for bf16).

  scatter_bench.py inputs DIR            write DIR/<module>/argN.npy
  scatter_bench.py report DIR RESULTS    time the peers, compare, print the table

$SCATTER_DTYPES (default "f32,bf16") limits the dtypes; compare.sh still
runs every module of the bundle (remove the others' modules to save time).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import copy_bandwidth, main, rel_err, save_inputs, time_ms  # noqa: E402

ROWS, UPDATES, WIDTH = 50257, 65536, 768
PATTERNS = ["uniform", "zipf", "one_row", "two_rows"]
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
RTOL = {"f32": 1e-5, "bf16": 1e-2}
HERE = os.path.dirname(os.path.abspath(__file__))


def index_of(pattern, gen):
    """The index of `pattern`, on the GPU."""
    if pattern == "uniform":
        return torch.randint(0, ROWS, (UPDATES,), generator=gen, device="cuda")
    if pattern == "zipf":  # token ids of an embedding gradient: rank r has p ~ r^-1.1
        p = torch.arange(1, ROWS + 1, device="cuda", dtype=torch.float64) ** -1.1
        draws = torch.multinomial(p / p.sum(), UPDATES, replacement=True, generator=gen)
        return torch.randperm(ROWS, generator=gen, device="cuda")[draws]
    if pattern == "one_row":
        return torch.full((UPDATES,), 7, device="cuda", dtype=torch.int64)
    hot = torch.tensor([3, 41], device="cuda")
    return hot[torch.randint(0, 2, (UPDATES,), generator=gen, device="cuda")]


def case_inputs(pattern, dtype):
    gen = torch.Generator(device="cuda").manual_seed(16)
    idx = index_of(pattern, gen)
    src = (torch.rand(UPDATES, WIDTH, generator=gen, device="cuda") * 2 - 1).to(DTYPES[dtype])
    return idx, src


def cases():
    """(pattern, dtype) pairs; $SCATTER_DTYPES (e.g. "f32") limits the dtypes."""
    dtypes = os.environ.get("SCATTER_DTYPES", ",".join(DTYPES)).split(",")
    return [(p, d) for d in dtypes for p in PATTERNS]


def module_name(pattern, dtype, deterministic):
    return f"index_add_{pattern}_{dtype}" + ("_det" if deterministic else "")


def index_add(idx, src):
    return torch.zeros(ROWS, WIDTH, dtype=src.dtype, device=src.device).index_add(0, idx, src)


def cmd_inputs(directory):
    for pattern, dtype in cases():
        args = case_inputs(pattern, dtype)
        for det in (False, True):
            save_inputs(directory, module_name(pattern, dtype, det), args)


def checked(ms, out, ref, dtype):
    if ms is None or out is None:
        return None
    return (ms, rel_err(out, ref), RTOL[dtype])


def stride_entry(results, name, ref, dtype):
    s = results.get(name, {})
    if not s.get("output") or not os.path.exists(s["output"]):
        return None
    return checked(s["ms"], torch.from_numpy(np.load(s["output"])).cuda(), ref, dtype)


def torch_entries(args, ref, dtype):
    eager = checked(time_ms(lambda: index_add(*args)), index_add(*args), ref, dtype)
    torch.use_deterministic_algorithms(True)
    try:  # up to 45 ms a call (issue 16): fewer calls
        det = checked(time_ms(lambda: index_add(*args), warmup=2, batches=5, per_batch=4),
                      index_add(*args), ref, dtype)
    finally:
        torch.use_deterministic_algorithms(False)
    compiled = torch.compile(index_add)
    compiled(*args)
    comp = checked(time_ms(lambda: compiled(*args)), compiled(*args), ref, dtype)
    return eager, det, comp


def jax_results(directory, deterministic):
    """Runs jax_bench.py in a process of its own; name -> {ms, output}."""
    out = tempfile.mkdtemp()
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    if deterministic:
        env["XLA_FLAGS"] = "--xla_gpu_exclude_nondeterministic_ops=true"
    run = subprocess.run([sys.executable, os.path.join(HERE, "jax_bench.py"), directory, out],
                         env=env, capture_output=True, text=True)
    if run.returncode != 0:
        print(f"jax_bench.py failed: {run.stderr[-2000:]}", file=sys.stderr)
        return {}
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def cmd_report(directory, results_path):
    with open(results_path) as f:
        results = json.load(f)  # name -> {"ms": float, "output": path or None}
    jax = {False: jax_results(directory, False), True: jax_results(directory, True)}
    bw = copy_bandwidth()
    rows = []
    for pattern, dtype in cases():
        args = case_inputs(pattern, dtype)
        ref = torch.zeros(ROWS, WIDTH, dtype=torch.float64, device="cuda").index_add(
            0, args[0], args[1].double())
        size = args[1].element_size()
        row = {"pattern": pattern, "dtype": dtype,
               "floor": (UPDATES * WIDTH * size + UPDATES * 8 + ROWS * WIDTH * size) / bw * 1e3}
        for det in (False, True):
            name = module_name(pattern, dtype, det)
            row["stride_det" if det else "stride"] = stride_entry(results, name, ref, dtype)
            j = jax[det].get(module_name(pattern, dtype, False), {})
            out = torch.from_numpy(np.load(j["output"])).cuda() if j.get("output") else None
            row["jax_det" if det else "jax"] = checked(j.get("ms"), out, ref, dtype)
        row["eager"], row["eager_det"], row["compile"] = torch_entries(args, ref, dtype)
        rows.append(row)
        del args, ref
        torch.cuda.empty_cache()
    print_table(rows, bw)


COLUMNS = [("stride", "Stride"), ("stride_det", "Stride det."), ("eager", "eager"),
           ("eager_det", "eager det."), ("compile", "torch.compile"), ("jax", "JAX"),
           ("jax_det", "JAX det.")]


def cell(entry):
    if entry is None:
        return "n/a"
    ms, err, rtol = entry
    return f"{ms:.3f}" + ("" if err <= rtol else f" (WRONG: rel err {err:.2g})")


def ratio(a, b):
    return "n/a" if a is None or b is None else f"{a[0] / b[0]:.2f}"


def print_table(rows, bw):
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"copy bandwidth {bw / 1e12:.2f} TB/s (read + write)")
    print("ms, median; det.: deterministic mode; every result within 1e-5 (f32) or 1e-2 "
          "(bf16) of f64 unless marked")
    print("| pattern | dtype | floor | " + " | ".join(t for _, t in COLUMNS)
          + " | floor / Stride | torch.compile / Stride | Stride det. / fastest non-det. peer "
          "| eager det. / Stride det. |")
    print("|---" * (len(COLUMNS) + 6) + "|")
    for r in rows:
        peers = [r[k] for k in ("eager", "compile", "jax") if r[k] is not None]
        fastest = min(peers, key=lambda e: e[0]) if peers else None
        floor = (r["floor"], 0.0, 1.0)
        print(f"| {r['pattern']} | {r['dtype']} | {r['floor']:.3f} | "
              + " | ".join(cell(r[k]) for k, _ in COLUMNS)
              + f" | {ratio(floor, r['stride'])} | {ratio(r['compile'], r['stride'])} | "
              f"{ratio(r['stride_det'], fastest)} | {ratio(r['eager_det'], r['stride_det'])} |")


if __name__ == "__main__":
    main(cmd_inputs, cmd_report, __doc__)
