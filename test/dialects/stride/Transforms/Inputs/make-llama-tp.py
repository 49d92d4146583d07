#!/usr/bin/env python3
"""Writes llama-tp.mlir beside this script: a small LLaMA-style decoder
(embedding, one layer with RMSNorm, RoPE, grouped-query attention and a
SwiGLU MLP, a final norm and the LM head) as stride-tensor-parallel meets
one after attention recognition, with random weights as stride.constants:
4 query heads and 2 key/value heads of dim 2 (hidden 8), MLP 16, vocabulary
12, 4 tokens. Python's standard library only; run it again after changing
it and commit the file.
"""

import os
import random

H, HQ, HKV, D, I, V, S = 8, 4, 2, 2, 16, 12, 4
rng = random.Random(43)
lines = []


def t(shape, dtype="f32", strides=None):
    dims = "x".join(str(s) for s in shape)
    text = f"{dims}x{dtype}" if shape else dtype
    if strides is not None:
        text += ", strides = [" + ", ".join(str(s) for s in strides) + "], offset = 0"
    return f"!stride.tensor<{text}>"


def emit(line):
    lines.append("  " + line)


def constant(name, shape, scale=1.0):
    n = 1
    for s in shape:
        n *= s
    vals = [round(rng.uniform(-scale, scale), 3) for _ in range(n)]

    def nest(vs, shape):
        if len(shape) == 1:
            return "[" + ", ".join(repr(v) for v in vs) + "]"
        step = len(vs) // shape[0]
        return "[" + ", ".join(nest(vs[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"
    tensor = "tensor<" + "x".join(str(s) for s in shape) + "xf32>"
    emit(f"%{name} = stride.constant dense<{nest(vals, shape)}> : {tensor} : {t(shape)}")


def linear(name, x, rows, n, k):
    """x [rows, k] @ W^T with W [n, k]: the weight permuted, as export writes it."""
    constant(name + "_w", [n, k], 0.5)
    emit(f"%{name}_wt = stride.permute %{name}_w dims [1, 0] : {t([n, k])} -> {t([k, n], strides=[1, k])}")
    emit(f"%{name} = stride.matmul %{x}, %{name}_wt : {t([rows, k])}, {t([k, n], strides=[1, k])} -> {t([rows, n])}")


def rmsnorm(name, x):
    emit(f"%{name}_sq = stride.mul %{x}, %{x} : {t([S, H])}, {t([S, H])} -> {t([S, H])}")
    emit(f"%{name}_ms = stride.mean %{name}_sq dims [1] keepdim : {t([S, H])} -> {t([S, 1])}")
    emit(f"%{name}_eps = stride.full 1.000000e-05 : {t([])}")
    emit(f"%{name}_epse = stride.expand %{name}_eps : {t([])} -> {t([S, 1], strides=[0, 0])}")
    emit(f"%{name}_v = stride.add %{name}_ms, %{name}_epse : {t([S, 1])}, {t([S, 1], strides=[0, 0])} -> {t([S, 1])}")
    emit(f"%{name}_r = stride.rsqrt %{name}_v : {t([S, 1])} -> {t([S, 1])}")
    emit(f"%{name}_re = stride.expand %{name}_r : {t([S, 1])} -> {t([S, H], strides=[1, 0])}")
    emit(f"%{name}_n = stride.mul %{x}, %{name}_re : {t([S, H])}, {t([S, H], strides=[1, 0])} -> {t([S, H])}")
    constant(name + "_g", [H])
    emit(f"%{name}_ge = stride.expand %{name}_g : {t([H])} -> {t([S, H], strides=[0, 1])}")
    emit(f"%{name} = stride.mul %{name}_n, %{name}_ge : {t([S, H])}, {t([S, H], strides=[0, 1])} -> {t([S, H])}")


def heads(name, flat, n):
    """[S, n*D] -> [1, n, S, D] (a view and a permute)."""
    emit(f"%{name}_4 = stride.view %{flat} : {t([S, n * D])} -> {t([1, S, n, D])}")
    emit(f"%{name} = stride.permute %{name}_4 dims [0, 2, 1, 3] : {t([1, S, n, D])} -> {t([1, n, S, D], strides=[S * n * D, D, n * D, 1])}")
    return t([1, n, S, D], strides=[S * n * D, D, n * D, 1])


def rope(name, x, n, xtype):
    full = t([1, n, S, D])
    for trig in ("cos", "sin"):
        emit(f"%{name}_{trig} = stride.expand %{trig}4 : {t([1, 1, S, D])} -> {t([1, n, S, D], strides=[0, 0, D, 1])}")
    half = t([1, n, S, 1], strides=[S * n * D, D, n * D, 1])
    emit(f"%{name}_x1 = stride.slice %{x} dim 3 start 0 end 1 step 1 : {xtype} -> {half}")
    emit(f"%{name}_x2 = stride.slice %{x} dim 3 start 1 end 2 step 1 : {xtype} -> {t([1, n, S, 1], strides=[S * n * D, D, n * D, 1]).replace('offset = 0', 'offset = 1')}")
    emit(f"%{name}_nx2 = stride.neg %{name}_x2 : {t([1, n, S, 1], strides=[S * n * D, D, n * D, 1]).replace('offset = 0', 'offset = 1')} -> {t([1, n, S, 1])}")
    emit(f"%{name}_rot = stride.cat %{name}_nx2, %{name}_x1 dim 3 : {t([1, n, S, 1])}, {half} -> {full}")
    emit(f"%{name}_c = stride.mul %{x}, %{name}_cos : {xtype}, {t([1, n, S, D], strides=[0, 0, D, 1])} -> {full}")
    emit(f"%{name}_s = stride.mul %{name}_rot, %{name}_sin : {full}, {t([1, n, S, D], strides=[0, 0, D, 1])} -> {full}")
    emit(f"%{name} = stride.add %{name}_c, %{name}_s : {full}, {full} -> {full}")


def main():
    emit(f"%emb = stride.constant dense<0.0> : tensor<1xf32> : {t([1])}")  # placeholder removed below
    lines.pop()
    constant("embed", [V, H])
    emit(f"%x0 = stride.index_select %embed, %tokens dim 0 : {t([V, H])}, {t([S], 'i64')} -> {t([S, H])}")
    for trig in ("cos", "sin"):
        constant(trig, [S, D])
        emit(f"%{trig}4 = stride.view %{trig} : {t([S, D])} -> {t([1, 1, S, D])}")
    rmsnorm("n1", "x0")
    linear("q", "n1", S, HQ * D, H)
    linear("k", "n1", S, HKV * D, H)
    linear("v", "n1", S, HKV * D, H)
    qt = heads("qh", "q", HQ)
    kt = heads("kh", "k", HKV)
    vt = heads("vh", "v", HKV)
    rope("qr", "qh", HQ, qt)
    rope("kr", "kh", HKV, kt)
    emit(f"%att = stride.attention %qr, %kr, %vh scale 0.70710678118654757 causal : {t([1, HQ, S, D])}, {t([1, HKV, S, D])}, {vt} -> {t([1, HQ, S, D])}")
    emit(f"%att_t = stride.permute %att dims [0, 2, 1, 3] : {t([1, HQ, S, D])} -> {t([1, S, HQ, D], strides=[S * HQ * D, D, S * D, 1])}")
    emit(f"%att_c = stride.clone %att_t : {t([1, S, HQ, D], strides=[S * HQ * D, D, S * D, 1])} -> {t([1, S, HQ, D])}")
    emit(f"%att_f = stride.view %att_c : {t([1, S, HQ, D])} -> {t([S, HQ * D])}")
    linear("o", "att_f", S, H, HQ * D)
    emit(f"%x1 = stride.add %x0, %o : {t([S, H])}, {t([S, H])} -> {t([S, H])}")
    rmsnorm("n2", "x1")
    linear("gate", "n2", S, I, H)
    linear("up", "n2", S, I, H)
    emit(f"%sg = stride.sigmoid %gate : {t([S, I])} -> {t([S, I])}")
    emit(f"%silu = stride.mul %gate, %sg : {t([S, I])}, {t([S, I])} -> {t([S, I])}")
    emit(f"%h = stride.mul %silu, %up : {t([S, I])}, {t([S, I])} -> {t([S, I])}")
    linear("down", "h", S, H, I)
    emit(f"%x2 = stride.add %x1, %down : {t([S, H])}, {t([S, H])} -> {t([S, H])}")
    rmsnorm("n3", "x2")
    linear("lm", "n3", S, V, H)
    emit(f"return %lm, %x2 : {t([S, V])}, {t([S, H])}")
    head = ("// A small LLaMA-style decoder for stride-tensor-parallel's tests, written\n"
            "// by make-llama-tp.py (random weights; run it again after changing it).\n"
            f"func.func @forward(%tokens: {t([S], 'i64')} {{stride.name = \"tokens\"}})\n"
            f"    -> ({t([S, V])} {{stride.name = \"logits\"}}, {t([S, H])} {{stride.name = \"hidden\"}}) {{\n")
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "llama-tp.mlir")
    with open(out, "w") as f:
        f.write(head + "\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main()
