#!/usr/bin/env python3
"""The cases of bench/attention and Stride's graph of each: plain Python
(no PyTorch), so that the graphs can be written and compiled where the
compiler is and the modules carried to the GPU machine.

  graphs.py DIR [--tokens 512,1024] [--dtypes bf16,f16]
      write DIR/<case>/fwd.mlir and bwd.mlir for every case
"""
import argparse
import math
import os

# model -> (batch at 1024 tokens, query heads, key/value heads, head dim,
#           padding mask: "" none, "additive" 0 and the dtype's lowest as
#           BERT builds it, "bool" true where a key is attended, as
#           nn.MultiheadAttention's key_padding_mask and an SDPA call with a
#           boolean attn_mask give it)
MODELS = {
    "gpt2": (8, 12, 12, 64, ""),
    "llama": (4, 32, 8, 128, ""),
    "bert": (32, 12, 12, 64, "additive"),
    "bert_bool": (32, 12, 12, 64, "bool"),
}


def cases(tokens, dtypes):
    """(name, model, batch, hq, hkv, s, d, causal, dtype) for each case: the
    batch shrinks as tokens grow so that every case holds about the same
    number of query rows (batch x tokens = the model's batch at 1024)."""
    for model, (b1024, hq, hkv, d, mask) in MODELS.items():
        for s in tokens:
            b = max(1, b1024 * 1024 // s)
            for causal in ([False] if mask else [True, False]):
                for dt in dtypes:
                    name = f"{model}_{dt}_b{b}_s{s}{'_causal' if causal else ''}"
                    yield name, model, b, hq, hkv, s, d, causal, dt


def tensor_type(shape, dt):
    return f"!stride.tensor<{'x'.join(str(d) for d in shape)}x{dt}>"


def named(name, type_text):
    return f'%{name}: {type_text} {{stride.name = "{name}"}}'


def padding_mask(args, b, hq, s, dt):
    """A BERT-style padding mask [b, 1, 1, s] of element type `dt` (i1 for a
    boolean one; argument %m, appended to `args`) expanded over heads and
    rows: (the op's mask clause, its type clause, the expand)."""
    small = tensor_type([b, 1, 1, s], dt)
    full = f"!stride.tensor<{b}x{hq}x{s}x{s}x{dt}, strides = [{s}, 0, 0, 1], offset = 0>"
    args.append(named("m", small))
    return " mask %mask", f", {full}", f"  %mask = stride.expand %m : {small} -> {full}\n"


def forward_graph(b, hq, hkv, s, d, causal, dt, mask):
    q, kv, o = (tensor_type(x, dt) for x in ([b, hq, s, d], [b, hkv, s, d], [b, hq, s, d]))
    args = [named("q", q), named("k", kv), named("v", kv)]
    mask_use, mask_type, body = (padding_mask(args, b, hq, s, "i1" if mask == "bool" else dt)
                                if mask else ("", "", ""))
    scale = 1.0 / math.sqrt(d)
    return (f"func.func @attention({', '.join(args)}) -> ({o} {{stride.name = \"o\"}}) {{\n{body}"
            f"  %o = stride.attention %q, %k, %v{mask_use} scale {scale!r}"
            f"{' causal' if causal else ''} : {q}, {kv}, {kv}{mask_type} -> {o}\n"
            f"  return %o : {o}\n}}\n")


def backward_graph(b, hq, hkv, s, d, causal, dt, mask):
    q, kv = tensor_type([b, hq, s, d], dt), tensor_type([b, hkv, s, d], dt)
    lse = tensor_type([b, hq, s], "f32")
    args = [named("do", q), named("q", q), named("k", kv), named("v", kv), named("o", q),
            named("lse", lse)]
    mask_use, mask_type, body = (padding_mask(args, b, hq, s, "i1" if mask == "bool" else dt)
                                if mask else ("", "", ""))
    scale = 1.0 / math.sqrt(d)
    results = ", ".join(f'{t} {{stride.name = "{n}"}}' for n, t in (("dq", q), ("dk", kv), ("dv", kv)))
    return (f"func.func @attention_backward({', '.join(args)}) -> ({results}) {{\n{body}"
            f"  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse{mask_use}"
            f" scale {scale!r}{' causal' if causal else ''} : {q}, {q}, {kv}, {kv}, {q}, {lse}"
            f"{mask_type} -> {q}, {kv}, {kv}\n"
            f"  return %dq, %dk, %dv : {q}, {kv}, {kv}\n}}\n")



def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("--tokens", default="128,512,1024,2048,4096,8192,16384",
                   type=lambda x: [int(v) for v in x.split(",")])
    p.add_argument("--dtypes", default="bf16,f16,f32", type=lambda x: x.split(","))
    args = p.parse_args()
    for name, model, b, hq, hkv, s, d, causal, dt in cases(args.tokens, args.dtypes):
        work = os.path.join(args.dir, name)
        os.makedirs(work, exist_ok=True)
        mask = MODELS[model][4]
        for direction, make in (("fwd", forward_graph), ("bwd", backward_graph)):
            with open(os.path.join(work, f"{direction}.mlir"), "w") as f:
                f.write(make(b, hq, hkv, s, d, causal, dt, mask))


if __name__ == "__main__":
    main()
