#!/usr/bin/env python3
"""PyTorch's core ATen operator set, for the docs' coverage table. Python,
and it needs torch: run it where PyTorch is (the GPU machine), then commit
its output as python-free-docs/core-aten-ops.tsv and run
scripts/gen-docs.sh (scripts/core-aten-table.sh makes the table).

    python3 scripts/list-core-aten.py > python-free-docs/core-aten-ops.tsv

Prints a first line "# torch VERSION", then one line per overload tagged
core ("aten.add.Tensor"), sorted, with a tab and "decomposed" when the
export helper's decomposition table (stride.export.stride_decompositions)
rewrites it into other ops before Stride imports the graph, "kept"
otherwise.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from stride.export import stride_decompositions  # noqa: E402


def core_overloads():
    for qualified in torch._C._dispatch_get_all_op_names():
        namespace, _, name = qualified.partition("::")
        if namespace != "aten":
            continue
        packet_name, _, overload_name = name.partition(".")
        packet = getattr(torch.ops.aten, packet_name, None)
        overload = getattr(packet, overload_name or "default", None)
        if overload is not None and torch.Tag.core in overload.tags:
            yield f"aten.{packet_name}.{overload_name or 'default'}", overload


def main():
    table = stride_decompositions()
    print(f"# torch {torch.__version__}")
    for name, overload in sorted(core_overloads()):
        print(f"{name}\t{'decomposed' if overload in table else 'kept'}")


if __name__ == "__main__":
    main()
