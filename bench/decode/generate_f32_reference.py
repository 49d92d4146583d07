"""User-side PyTorch (GPU machine): the f32 reference of a bf16 decode export.

For a directory made by `stride_export.py decode llama --dtype bfloat16
--seed S ...` (the same --size and --seed given here), rebuilds the model,
and runs the prompt followed by transformers' greedy tokens
(expected_tokens.npy) through one teacher-forced forward pass, in f32 (the
bf16 weights widened: the same weights) and in bf16 on the GPU. Writes
DIR/f32_logits.npy ([N, B, V] f32, the logits that chose each token), which
`stride-generate --expect-logits DIR/f32_logits.npy --rtol 1` compares with
Stride's, and prints PyTorch's errors against it with stride-generate's
measure (|d| / max(|expected|, mean |expected|), the largest): the CPU bf16
generate's logits (expected_logits.npy) and the GPU bf16 forward's.

usage: python3 generate_f32_reference.py BUNDLE DIR SEED [KEY=N ...]
"""
import copy
import os
import sys

import numpy as np
import torch


def relative_error(got, expected):
    """stride-generate's --expect-logits measure, per step (the largest):
    tools/stride-run/Compare.cpp's, not stride.export.relative_error's
    max |d| / max |expected|, so that PyTorch's figures stand beside the
    ones stride-generate prints for Stride."""
    scale = np.maximum(np.abs(expected), np.abs(expected).mean())
    return float((np.abs(got - expected) / scale).max())


def teacher_forced_logits(model, prompt, tokens):
    """Logits [N, B, V] that chose each of `tokens` [B, N] after `prompt`."""
    sequence = torch.cat([prompt, tokens[:, :-1]], dim=1).cuda()
    with torch.no_grad():
        logits = model.cuda()(sequence).logits.float()
    first = prompt.shape[1] - 1
    return logits[:, first:first + tokens.shape[1]].transpose(0, 1).cpu().numpy()


def main(argv):
    bundle, directory, seed, sizes = argv[1], argv[2], int(argv[3]), argv[4:]
    sys.path.insert(0, bundle)
    import stride_export

    torch.manual_seed(seed)
    model = stride_export.load_causal_lm("llama", "bfloat16", sizes).eval()
    prompt = torch.from_numpy(np.load(os.path.join(directory, "prompt.npy")))
    tokens = torch.from_numpy(np.load(os.path.join(directory, "expected_tokens.npy")))
    cpu_bf16 = np.load(os.path.join(directory, "expected_logits.npy"))
    f32 = teacher_forced_logits(copy.deepcopy(model).float(), prompt, tokens)
    gpu_bf16 = teacher_forced_logits(model, prompt, tokens)
    np.save(os.path.join(directory, "f32_logits.npy"), f32.astype(np.float32))
    cpu = [relative_error(cpu_bf16[s], f32[s]) for s in range(len(f32))]
    gpu = [relative_error(gpu_bf16[s], f32[s]) for s in range(len(f32))]
    print(f"error against f32 over {len(f32)} steps, largest (median): "
          f"transformers' bf16 generate (CPU) {max(cpu):.4f} ({np.median(cpu):.4f}), "
          f"PyTorch bf16 forward (GPU) {max(gpu):.4f} ({np.median(gpu):.4f})")


if __name__ == "__main__":
    main(sys.argv)
