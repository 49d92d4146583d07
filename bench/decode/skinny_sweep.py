#!/usr/bin/env python3
"""Times Stride's skinny product kernel (form (g), python-free-docs/matmul.md,
"Skinny products") over its tuning knobs, beside cuBLASLt, on the products of
bench/decode's LLaMA-style decoder at 8B-class dims (hidden 4096, 8 KV heads
of 128, MLP 14336, vocabulary 32000), bf16.

Python and NumPy only (no PyTorch): it writes each product as a graph in the
stride dialect, compiles it with stridec under each setting of
--skinny-columns-per-warp and --skinny-loads-per-lane (and with
--skinny-products=library: cuBLASLt), and times it with stride-run-gpu
--bench. Each graph holds `copies` products of one activation by distinct
weights (together at least 256 MB, so a replay does not find the weights in
the 50 MB L2 cache); a product's time is the plan's over `copies`.

Run it on the GPU machine from the decode bundle (bench/decode/prepare.sh):
    python3 skinny_sweep.py --bin bin [--rows 1 --rows 8] [--work DIR]
It prints, per product and row count, ms and TB/s (weight bytes over time)
for each setting, and the copy bandwidth stride-run-gpu measures.
"""

import argparse
import itertools
import os
import re
import subprocess
import sys

import numpy as np

# (name, K, N): y[rows, N] = x[rows, K] . W[N, K]^T, as nn.Linear stores W.
PRODUCTS = [
    ("q/o 4096x4096", 4096, 4096),
    ("k/v 4096x1024", 4096, 1024),
    ("gate/up 4096x14336", 4096, 14336),
    ("down 14336x4096", 14336, 4096),
    ("lm head 4096x32000", 4096, 32000),
]
MIN_GRAPH_BYTES = 256 << 20


def tensor(shape, strides=None):
    dims = "x".join(str(d) for d in shape)
    if strides is None:
        return f"!stride.tensor<{dims}xbf16>"
    return (f"!stride.tensor<{dims}xbf16, strides = "
            f"[{', '.join(str(s) for s in strides)}], offset = 0>")


def graph_text(rows, depth, columns, copies):
    """`copies` products of x [rows, depth] by weights [columns, depth],
    each read through a permute, as the importer writes nn.Linear."""
    x, w = tensor([rows, depth]), tensor([columns, depth])
    wt = tensor([depth, columns], [1, depth])
    y = tensor([rows, columns])
    args = [f'%x: {x} {{stride.name = "x"}}'] + [
        f'%w{i}: {w} {{stride.name = "w{i}"}}' for i in range(copies)]
    results = [f'{y} {{stride.name = "y{i}"}}' for i in range(copies)]
    lines = [f"func.func @products({', '.join(args)})",
             f"    -> ({', '.join(results)}) {{"]
    for i in range(copies):
        lines.append(f"  %t{i} = stride.permute %w{i} dims [1, 0] : {w} -> {wt}")
        lines.append(f"  %y{i} = stride.matmul %x, %t{i} : {x}, {wt} -> {y}")
    names = ", ".join(f"%y{i}" for i in range(copies))
    lines.append(f"  return {names} : {', '.join([y] * copies)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def settings(rows):
    """(label, stridec options): cuBLASLt, then the kernel's knobs."""
    yield "cuBLASLt", ["--skinny-products=library"]
    tiles = (1, 2, 4) if rows <= 2 else (1, 2)
    for tile, loads in itertools.product(tiles, (1, 2, 4, 8)):
        yield (f"{tile} col/warp, {loads} loads",
               ["--skinny-products=generated",
                f"--skinny-columns-per-warp={tile}",
                f"--skinny-loads-per-lane={loads}"])


def bench(args, directory, options, copies, inputs):
    module = os.path.join(directory, "m.stridemod")
    compiled = subprocess.run(
        [os.path.join(args.bin, "stridec"), "--no-cache",
         os.path.join(directory, "graph.mlir"), "-o", module] + options,
        capture_output=True, text=True)
    if compiled.returncode:
        return None, compiled.stderr.strip().splitlines()[-1:]
    command = [os.path.join(args.bin, "stride-run-gpu"), module, "--bench",
               "--iterations", str(args.iterations), "--warmup", "5"]
    for name, path in inputs:
        command += ["--input", f"{name}={path}"]
    ran = subprocess.run(command, capture_output=True, text=True)
    found = re.search(r"median ([0-9.]+) ms", ran.stdout)
    bandwidth = re.search(r"copy bandwidth, ([0-9.]+) GB/s", ran.stdout)
    if ran.returncode or not found:
        return None, (ran.stderr or ran.stdout).strip().splitlines()[-1:]
    if bandwidth:
        bench.bandwidth = float(bandwidth.group(1)) * 1e9
    return float(found.group(1)) / copies, None


bench.bandwidth = None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="stridec and stride-run-gpu")
    parser.add_argument("--rows", type=int, action="append",
                        help="activation rows (default 1 and 8)")
    parser.add_argument("--only", action="append", default=[],
                        help="products whose name contains this")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--work", default="/tmp/skinny-sweep")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print("| product | rows | setting | ms | TB/s of weights |")
    print("|---|---|---|---|---|")
    for name, depth, columns in PRODUCTS:
        if args.only and not any(o in name for o in args.only):
            continue
        weight_bytes = depth * columns * 2
        copies = max(1, min(16, -(-MIN_GRAPH_BYTES // weight_bytes)))
        for rows in args.rows or [1, 8]:
            directory = os.path.join(args.work, f"{depth}x{columns}-{rows}")
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(directory, "graph.mlir"), "w") as f:
                f.write(graph_text(rows, depth, columns, copies))
            x = os.path.join(directory, "x.npy")
            np.save(x, rng.standard_normal((rows, depth), dtype=np.float32))
            w = os.path.join(args.work, f"w-{depth}x{columns}.npy")
            if not os.path.exists(w):
                np.save(w, rng.standard_normal((columns, depth),
                                               dtype=np.float32) * 0.02)
            inputs = [("x", x)] + [(f"w{i}", w) for i in range(copies)]
            for label, options in settings(rows):
                ms, error = bench(args, directory, options, copies, inputs)
                print_row([name, rows, label], ms, error, weight_bytes)
    finish()


def print_row(cells, ms, error, nbytes):
    """A table row: `cells`, then ms and `nbytes` over that time in TB/s
    (or the error)."""
    shown = (f"{ms:.4f} | {nbytes / (ms * 1e-3) / 1e12:.2f}"
             if ms else f"failed: {' '.join(error or [])} |")
    print(f"| {' | '.join(str(c) for c in cells)} | {shown} |", flush=True)


def finish():
    """The copy bandwidth stride-run-gpu measured; exits at once."""
    if bench.bandwidth:
        print(f"\ncopy bandwidth (stride-run-gpu --bench): "
              f"{bench.bandwidth / 1e12:.2f} TB/s")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
