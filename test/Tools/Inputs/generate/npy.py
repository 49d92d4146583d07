"""Writes a small .npy file without NumPy, for stride-generate's tests.

    npy.py OUT.npy DTYPE SHAPE VALUE...

DTYPE is i8 (int64) or f4 (float32); SHAPE is comma-separated (2,3); the
values are given in C order (K*V stands for K values V), or one value
repeated to fill the shape.
"""
import math
import struct
import sys

out, dtype, shape_text, *values = sys.argv[1:]
shape = [int(d) for d in shape_text.split(",")]
count = math.prod(shape)
values = [v for text in values
          for v in ([text.split("*")[1]] * int(text.split("*")[0])
                    if "*" in text else [text])]
if len(values) == 1:
    values = values * count
assert len(values) == count, f"{len(values)} values for shape {shape}"
fmt = {"i8": "q", "f4": "f"}[dtype]
convert = int if dtype == "i8" else float
dims = "".join(f"{d}, " for d in shape) if len(shape) != 1 else f"{shape[0]},"
header = f"{{'descr': '<{dtype}', 'fortran_order': False, 'shape': ({dims}), }}"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode())
    f.write(struct.pack(f"<{count}{fmt}", *[convert(v) for v in values]))
