#!/usr/bin/env python3
"""Checks the core ATen ops of make-core-op-archives.py against PyTorch, on
a machine with torch (2.11) and a GPU: exports tiny models that use them
with the export helper (python/stride/export.py: torch.export and Stride's
decomposition table, or a training capture for the backward ops), compiles
each graph with stridec, and runs it with stride-run on the GPU and on the
reference interpreter against PyTorch's outputs (--expect).

  scatter_reduce  scatter_reduce (sum, mean, amax, amin, prod; include_self
                  either way; duplicate indices), masked_scatter
  pool            avg_pool3d, max_pool3d (indices), adaptive_avg_pool2d
                  (7 -> 3), adaptive_avg_pool3d
  pool_backward   a training capture whose backward holds
                  avg_pool2d_backward (ceil_mode, count_include_pad=False),
                  _adaptive_avg_pool2d_backward and
                  max_pool2d_with_indices_backward
  distance        cdist (p 2, 1, inf, 0, 3; 20 and 23 rows: PyTorch takes
                  the Euclidean distance through a matrix product past 25,
                  which rounds differently from Stride's direct sum), pdist
  grid_sample     grid_sample (bilinear and nearest; zeros and border;
                  align_corners either way)
  embedding_bag   embedding_bag in mode max (an empty bag) and padding_idx
                  in modes max, sum and mean

atan2.out, native_dropout in inference and the SymInt ops do not reach a
torch.export graph of static shapes (export functionalizes out= forms and
drops dropout in eval mode); the CPU tests cover them
(test/Import/Torch/core-ops.test).

usage: python3 test/Import/Torch/Inputs/gpu-export-new-ops.py [OUT]
         (OUT default /tmp/stride-new-ops; stridec and stride-run from
          $STRIDE_BIN, default build/bin; --reference-only: no GPU run)
Prints one line per output (stride-run's match/MISMATCH) and exits 1 when
any differs.
"""

import json
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from stride import export  # noqa: E402

BIN = os.environ.get("STRIDE_BIN", os.path.join(ROOT, "build", "bin"))


class ScatterReduce(torch.nn.Module):
    def forward(self, x, index, src, base, mask, source):
        outs = [x.scatter_reduce(0, index, src, reduce, include_self=include)
                for reduce, include in (("sum", True), ("mean", False), ("amax", True),
                                        ("amin", False), ("prod", True), ("amax", False))]
        return (*outs, base.masked_scatter(mask, source))


def scatter_reduce_inputs():
    g = torch.Generator().manual_seed(0)
    index = torch.randint(0, 5, (6, 8), generator=g)
    return (torch.randn(5, 8, generator=g), index, torch.randn(6, 9, generator=g),
            torch.randn(2, 3, 4, generator=g), torch.rand(3, 4, generator=g) < 0.5,
            torch.randn(30, generator=g))


class Pool(torch.nn.Module):
    def forward(self, x, y):
        mx, idx = F.max_pool3d(x, (2, 3, 2), (1, 2, 2), (0, 1, 1), (2, 1, 1),
                               return_indices=True)
        return (F.avg_pool3d(x, (2, 2, 3), (2, 1, 2), (1, 0, 1)), mx, idx,
                F.adaptive_avg_pool2d(y, (3, 4)), F.adaptive_avg_pool3d(x, (3, 2, 4)))


class PoolBackward(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(1, 3, 1, 1))

    def forward(self, x):
        x = x * self.scale
        return (F.avg_pool2d(x, (3, 2), 2, 1, ceil_mode=True, count_include_pad=False),
                F.adaptive_avg_pool2d(x, (3, 4)), F.max_pool2d(x, 2, 2))


class Distance(torch.nn.Module):
    def forward(self, x1, x2, rows):
        outs = [torch.cdist(x1, x2, p=p) for p in (2.0, 1.0, float("inf"), 0.0, 3.0)]
        return (*outs, F.pdist(rows), F.pdist(rows, p=1.5))


class GridSample(torch.nn.Module):
    def forward(self, image, grid):
        return tuple(F.grid_sample(image, grid, mode=mode, padding_mode=padding,
                                   align_corners=align)
                     for mode, padding, align in (("bilinear", "zeros", False),
                                                  ("nearest", "border", True),
                                                  ("bilinear", "border", True)))


class EmbeddingBag(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(10, 4))

    def forward(self, indices, offsets):
        return (F.embedding_bag(indices, self.weight, offsets, mode="max"),
                *(F.embedding_bag(indices, self.weight, offsets, mode=mode, padding_idx=1)
                  for mode in ("max", "sum", "mean")))


def cases():
    g = torch.Generator().manual_seed(1)
    yield "scatter_reduce", "export", ScatterReduce(), scatter_reduce_inputs()
    yield "pool", "export", Pool(), (torch.randn(2, 3, 4, 5, 6, generator=g),
                                     torch.randn(2, 3, 7, 5, generator=g))
    yield "pool_backward", "train", PoolBackward(), (torch.randn(2, 3, 7, 6, generator=g),)
    yield "distance", "export", Distance(), (torch.randn(2, 20, 4, generator=g),
                                             torch.randn(2, 23, 4, generator=g),
                                             torch.randn(6, 3, generator=g))
    yield "grid_sample", "export", GridSample(), (torch.randn(2, 3, 6, 7, generator=g),
                                                  torch.rand(2, 4, 5, 2, generator=g) * 2.4 - 1.2)
    torch.manual_seed(0)
    yield "embedding_bag", "export", EmbeddingBag().eval(), (
        torch.tensor([4, 1, 1, 3, 3, 9, 0, 2]), torch.tensor([0, 2, 2, 5, 6]))


def compiled(command):
    """Runs stridec; on failure prints its message and says so (the other
    graphs are still checked)."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        print(f"stridec failed: {result.stderr.strip()}")
    return result.returncode == 0


def run_graph(directory, archive, graph, gpu):
    """stridec, then stride-run (module on the GPU, graph on the reference)."""
    stem = archive[:-len(".pt2")]
    inputs = []
    for name, described in zip(graph["input_names"], graph["inputs"]):
        inputs += ["--input", f"{name}={os.path.join(directory, described['file'])}"]
    expect = ["--expect", os.path.join(directory, f"{stem}_expected")]
    path = os.path.join(directory, archive)
    runs = []
    if gpu:
        module = os.path.join(directory, stem + ".stridemod")
        if not compiled([os.path.join(BIN, "stridec"), path, "-o", module]):
            return False
        runs.append([os.path.join(BIN, "stride-run"), module] + inputs + expect)
    mlir = os.path.join(directory, stem + ".mlir")
    if not compiled([os.path.join(BIN, "stridec"), path, "--emit=graph", "-o", mlir]):
        return False
    runs.append([os.path.join(BIN, "stride-run"), mlir, "--reference"] + inputs + expect)
    ok = True
    for command in runs:
        result = subprocess.run(command, capture_output=True, text=True)
        print(f"{os.path.basename(directory)}/{archive} ({'reference' if '--reference' in command else 'gpu'}):")
        print(result.stdout + result.stderr)
        ok = ok and result.returncode == 0 and "MISMATCH" not in result.stdout
    return ok


def main(argv):
    gpu = "--reference-only" not in argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    out = args[0] if args else "/tmp/stride-new-ops"
    ok = True
    for name, mode, model, inputs in cases():
        directory = os.path.join(out, name)
        if mode == "export":
            export.export_model(model, inputs, directory)
        else:
            inputs = tuple(t.requires_grad_() for t in inputs)
            export.capture_training(model, inputs, directory)
        with open(os.path.join(directory, "ops.txt")) as f:
            print(f.read())
        with open(os.path.join(directory, "export.json")) as f:
            graphs = json.load(f)["graphs"]
        for archive, graph in graphs.items():
            ok = run_graph(directory, archive, graph, gpu) and ok
    print("all match" if ok else "some outputs differ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
