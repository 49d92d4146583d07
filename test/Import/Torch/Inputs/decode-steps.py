#!/usr/bin/env python3
"""Splits a decode fixture (stride_export.py decode: prompt.npy,
expected_tokens.npy [B, N], expected_logits.npy [N, B, V]) into the inputs
and expected outputs of its first STEPS steps, for stride-run --expect:

  OUT/step0/input_ids.npy, cache_position.npy   the prompt, 0..P-1
  OUT/stepK/input_ids.npy, cache_position.npy   token K-1, position P+K-1
  OUT/stepK/expected/logits.npy, next_token.npy, next_position.npy

usage: decode-steps.py FIXTURE OUT STEPS. Python's standard library only.
"""

import ast
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pt2_writer import F32, I64, Tensor, write_npy  # noqa: E402


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode())
    fmt = {"<f4": "f", "<i8": "q"}[header["descr"]]
    body = data[10 + length:]
    values = struct.unpack("<%d%s" % (len(body) // struct.calcsize(fmt), fmt), body)
    return list(header["shape"]), list(values)


def main(fixture, out, steps):
    (batch, prompt_len), prompt = read_npy(os.path.join(fixture, "prompt.npy"))
    (_, new_tokens), tokens = read_npy(os.path.join(fixture, "expected_tokens.npy"))
    (_, _, vocab), logits = read_npy(os.path.join(fixture, "expected_logits.npy"))
    for step in range(steps):
        folder = os.path.join(out, f"step{step}")
        os.makedirs(os.path.join(folder, "expected"), exist_ok=True)
        if step == 0:
            ids = Tensor([batch, prompt_len], prompt, I64)
            positions = list(range(prompt_len))
        else:
            ids = Tensor([batch, 1], [tokens[b * new_tokens + step - 1]
                                      for b in range(batch)], I64)
            positions = [prompt_len + step - 1]
        write_npy(os.path.join(folder, "input_ids.npy"), ids)
        write_npy(os.path.join(folder, "cache_position.npy"),
                  Tensor([len(positions)], positions, I64))
        row = logits[step * batch * vocab:(step + 1) * batch * vocab]
        expected = os.path.join(folder, "expected")
        write_npy(os.path.join(expected, "logits.npy"), Tensor([batch, vocab], row, F32))
        write_npy(os.path.join(expected, "next_token.npy"),
                  Tensor([batch, 1], [tokens[b * new_tokens + step]
                                      for b in range(batch)], I64))
        write_npy(os.path.join(expected, "next_position.npy"),
                  Tensor([1], [positions[-1] + 1], I64))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
