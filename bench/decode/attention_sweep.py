#!/usr/bin/env python3
"""Times one decode step's attention at bench/decode's dims (32 query heads
on 8 key/value heads of 128, bf16, a static cache of 4096 positions) as
Stride's staged kernel, its split-KV kernel and cuDNN, one stridec policy
each (`--decode-attention=staged`, `=split-kv` and `=library`,
python-free-docs/attention.md, "Decode attention"; staged falls back to the
split-KV kernel where its scheme does not apply, batch 32), at batches 1
and 32 and positions 1024 and 4000.

Python and NumPy only (no PyTorch): it writes each case as a graph in the
stride dialect, compiles it with stridec under each policy and times it
with stride-run-gpu --bench (skinny_sweep.py's `bench`, whose table rows
it prints). Each graph holds
`copies` attention ops, one per layer's cache (distinct inputs; together at
least 256 MB of valid positions where they fit in 64 copies, so a replay
does not find the keys in the 50 MB L2 cache), all with the query and the
mask of a static cache at the position (`kv_idx <= position`, broadcast
over batch and heads, as transformers builds it from `cache_position`);
an op's time is the plan's over `copies`. With `--mask position` (the
default) the graph computes the mask from the position, an input, as a
decode step does, so `stride-fold-index-masks` makes it the ops' valid
key count (kv_length: cuDNN's padding mask, the end of the split-KV
kernel's keys); with `--mask input` the mask itself is the input, read as
a boolean mask (cuDNN: a bias over the whole cache), the form before the
valid key count.

Run it on the GPU machine from the decode bundle (bench/decode/prepare.sh):
    python3 attention_sweep.py --bin bin [--batch 1 --position 4000] [--work DIR]
It prints, per batch, position and policy, ms per op and the valid cache's
bytes over that time, and the copy bandwidth stride-run-gpu measures.
"""

import argparse
import os

import numpy as np

from skinny_sweep import bench, finish, print_row

QUERY_HEADS, KV_HEADS, HEAD_DIM, CACHE = 32, 8, 128, 4096
MIN_GRAPH_BYTES = 256 << 20
MAX_COPIES = 64
POLICIES = ("staged", "split-kv", "library")


def tensor(shape, element="bf16", strides=None):
    dims = "x".join(str(d) for d in shape)
    if strides is None:
        return f"!stride.tensor<{dims}x{element}>"
    return (f"!stride.tensor<{dims}x{element}, strides = "
            f"[{', '.join(str(s) for s in strides)}], offset = 0>")


def mask_from_position(keep):
    """The lines that compute `%keep` (key index <= %position[0]) as
    transformers' mask builder does."""
    keys = tensor([1, 1, 1, CACHE], "i64")
    spread = tensor([1, 1, 1, CACHE], "i64", [0, 0, 0, 0])
    return [
        "  %p0 = stride.select %position dim 0 index 0 : "
        f"{tensor([1], 'i64')} -> !stride.tensor<i64>",
        f"  %keys = stride.iota dim 3 : {keys}",
        f"  %p = stride.expand %p0 : !stride.tensor<i64> -> {spread}",
        f"  %keep = stride.cmp le, %keys, %p : {keys}, {spread} -> {keep}"]


def graph_text(batch, copies, mask_input=False):
    """`copies` decode-step attention ops over distinct caches; the mask
    an input with `mask_input`, else computed from a position input."""
    q = tensor([batch, QUERY_HEADS, 1, HEAD_DIM])
    kv = tensor([batch, KV_HEADS, CACHE, HEAD_DIM])
    keep = tensor([1, 1, 1, CACHE], "i1")
    mask = tensor([batch, QUERY_HEADS, 1, CACHE], "i1", [0, 0, 0, 1])
    args = [f'%q: {q} {{stride.name = "q"}}']
    args += ([f'%keep: {keep} {{stride.name = "keep"}}'] if mask_input else
             [f'%position: {tensor([1], "i64")} {{stride.name = "position"}}'])
    for i in range(copies):
        args += [f'%k{i}: {kv} {{stride.name = "k{i}"}}',
                 f'%v{i}: {kv} {{stride.name = "v{i}"}}']
    results = [f'{q} {{stride.name = "o{i}"}}' for i in range(copies)]
    lines = [f"func.func @attention({', '.join(args)})",
             f"    -> ({', '.join(results)}) {{"]
    if not mask_input:
        lines += mask_from_position(keep)
    lines.append(f"  %m = stride.expand %keep : {keep} -> {mask}")
    for i in range(copies):
        lines.append(f"  %o{i} = stride.attention %q, %k{i}, %v{i} mask %m "
                     f"scale {HEAD_DIM ** -0.5:.8e} : {q}, {kv}, {kv}, {mask} -> {q}")
    names = ", ".join(f"%o{i}" for i in range(copies))
    lines.append(f"  return {names} : {', '.join([q] * copies)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="stridec and stride-run-gpu")
    parser.add_argument("--batch", type=int, action="append",
                        help="sequences (default 1 and 32)")
    parser.add_argument("--position", type=int, action="append",
                        help="the step's cache position (default 1024 and 4000)")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--mask", choices=("position", "input"),
                        default="position",
                        help="compute the mask from a position input (a "
                        "decode step: valid key counts), or take the mask "
                        "itself as the input (a bias over the cache)")
    parser.add_argument("--work", default="/tmp/attention-sweep")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print("| batch | position | decode-attention | copies | ms per op | "
          "TB/s of valid cache |")
    print("|---|---|---|---|---|---|")
    for batch in args.batch or [1, 32]:
        cache = os.path.join(args.work, f"cache-{batch}.npy")
        query = os.path.join(args.work, f"q-{batch}.npy")
        os.makedirs(args.work, exist_ok=True)
        if not os.path.exists(cache):
            np.save(cache, rng.standard_normal(
                (batch, KV_HEADS, CACHE, HEAD_DIM), dtype=np.float32))
            np.save(query, rng.standard_normal(
                (batch, QUERY_HEADS, 1, HEAD_DIM), dtype=np.float32))
        for position in args.position or [1024, 4000]:
            valid_bytes = batch * KV_HEADS * (position + 1) * HEAD_DIM * 2 * 2
            copies = max(1, min(MAX_COPIES, -(-MIN_GRAPH_BYTES // valid_bytes)))
            directory = os.path.join(args.work, f"b{batch}-p{position}")
            os.makedirs(directory, exist_ok=True)
            mask_input = args.mask == "input"
            with open(os.path.join(directory, "graph.mlir"), "w") as f:
                f.write(graph_text(batch, copies, mask_input))
            if mask_input:
                keep = os.path.join(directory, "keep.npy")
                np.save(keep, (np.arange(CACHE) <= position).reshape(1, 1, 1, CACHE))
                inputs = [("q", query), ("keep", keep)]
            else:
                at = os.path.join(directory, "position.npy")
                np.save(at, np.array([position], dtype=np.int64))
                inputs = [("q", query), ("position", at)]
            for i in range(copies):
                inputs += [(f"k{i}", cache), (f"v{i}", cache)]
            for policy in POLICIES:
                ms, error = bench(args, directory,
                                  [f"--decode-attention={policy}"], copies,
                                  inputs)
                print_row([batch, position, f"{policy} ({args.mask})", copies],
                          ms, error,
                          valid_bytes)
    finish()


if __name__ == "__main__":
    main()
