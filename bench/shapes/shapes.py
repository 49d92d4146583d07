#!/usr/bin/env python3
"""PyTorch side of the shapes sweep (bench/shapes/README.md), run on the GPU
machine by bench/compare.sh in place of torch_bench.py, whose inputs,
timing and error functions it uses. The graphs are those of sweep.txt and
issue 17's table (torch_bench.ISSUE_GRAPHS); each is timed with
torch.compile (static shapes) and compared, with Stride's output, against
an f64 eager reference. One table: % of the copy floor side by side, the
relative error of each, and whether Stride meets the issue's target (at
least as fast as torch.compile, and >= 90% of the floor when the graph
moves at least 64 MiB).

  shapes.py inputs DIR            write DIR/<graph>/argN.npy
  shapes.py report DIR RESULTS    time torch.compile, compare, print the table

SHAPES_COMPILE=REGEX (environment) times torch.compile only on the graphs
whose names match REGEX (every graph by default; compiling all 51 takes
minutes of GPU time): the others print "not run" in torch.compile's
columns, and their verdict judges the floor alone ("floor only: yes/no").
"""
import json
import os
import re

import torch
import torch._dynamo

import torch_bench as tb

MIB = 1 << 20
TOLERANCE = {"f32": 1e-5, "bf16": 1e-2}


def graph_names():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "sweep.txt")) as f:
        sweep = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    return sweep + [name for name in tb.ISSUE_GRAPHS if name not in sweep]


def cmd_inputs(directory):
    for name in graph_names():
        tb.save_inputs(directory, name, tb.inputs_of(tb.shaped_graph(name)[0]))


def compiled_row(name, fn, args, ref):
    """torch.compile's (ms, relative error), compiled afresh for these shapes;
    (None, None) where SHAPES_COMPILE leaves the graph out."""
    if not re.search(os.environ.get("SHAPES_COMPILE", ""), name):
        return None, None
    torch._dynamo.reset()
    compiled = torch.compile(fn, dynamic=False)
    out = compiled(*args)
    return tb.time_ms(lambda: compiled(*args)), tb.rel_err(out, ref)


def cell(entry, floor_ms, tolerance):
    ms, err = entry
    if ms is None:
        return "n/a | n/a | not run"
    ok = "" if err is not None and err <= tolerance else " (too far)"
    return f"{ms:.4f} | {100 * floor_ms / ms:.0f}% | {err:.1e}{ok}"


def verdict(row):
    stride_ms, compile_ms = row["stride"][0], row["compile"][0]
    if stride_ms is None:
        return "NOT RUN"
    floor_ok = row["bytes"] < 64 * MIB or row["floor_ms"] / stride_ms >= 0.9
    if compile_ms is None:
        return "floor only: " + ("yes" if floor_ok else "no")
    return "yes" if floor_ok and stride_ms <= compile_ms else "no"


def cmd_report(directory, results_path):
    with open(results_path) as f:
        stride_results = json.load(f)
    bw = tb.copy_bandwidth()
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"copy bandwidth {bw / 1e12:.2f} TB/s (read + write)")
    print("| graph | MiB moved | floor ms | Stride ms | % floor | rel err "
          "| torch.compile ms | % floor | rel err | Stride / torch.compile | target met |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    met = 0
    names = graph_names()
    for name in names:
        spec, fn, nbytes = tb.shaped_graph(name)
        tolerance = TOLERANCE[name.rsplit("_", 2)[1]]
        args = tb.inputs_of(spec)
        ref = fn(*[a.double() for a in args])
        row = {"bytes": nbytes, "floor_ms": nbytes / bw * 1e3}
        row["stride"] = tb.stride_row(stride_results, name, ref)
        row["compile"] = compiled_row(name, fn, args, ref)
        ratio = (f"{row['stride'][0] / row['compile'][0]:.2f}"
                 if row["stride"][0] and row["compile"][0] else "n/a")
        ok = verdict(row)
        met += ok == "yes"
        print(f"| {name} | {nbytes / MIB:.1f} | {row['floor_ms']:.4f} | "
              f"{cell(row['stride'], row['floor_ms'], tolerance)} | "
              f"{cell(row['compile'], row['floor_ms'], tolerance)} | {ratio} | {ok} |", flush=True)
        del args, ref
        torch.cuda.empty_cache()
    print(f"target met by {met} of {len(names)} graphs")


if __name__ == "__main__":
    tb.main(cmd_inputs, cmd_report, __doc__)
