"""Times ResNet-50's stem in PyTorch on the GPU, layout by layout, to choose
how Stride runs it (bench/NOTES.md section 66): the 7 x 7 convolution over
3 channels (stride 2, padding 3) of a [64, 3, 224, 224] bf16 batch, then
the bias, ReLU and 3 x 3 max pool (stride 2, padding 1) of its
[64, 64, 112, 112] result.

  python3 conv_stem.py [--batch 64]

Prints ms per call (CUDA events, median of 50 after warm-up) of:
- the convolution with the input and weight row-major (NCHW), channels-last
  (NHWC), and channels-last with the channels padded with zeros to 4 and 8
  (the padded weight's extra channels are zeros: the same result), each with
  cudnn.benchmark off (PyTorch's default) and on;
- the input's copy into channels-last (with and without the padding);
- bias + ReLU + max pool over each layout, eager and torch.compile.
"""
import argparse

import torch
import torch.nn.functional as F

import bench_models as bm


def time_ms(fn):
    return bm.median_ms(fn, warmup=5, iterations=50)


def padded_channels_last(t, channels):
    """t [N, C, H, W] as [N, channels, H, W] channels-last, zeros beyond C."""
    out = torch.zeros(t.shape[0], *t.shape[2:], channels, dtype=t.dtype, device=t.device)
    out = out.permute(0, 3, 1, 2)  # [N, C, H, W] view of NHWC storage
    out[:, :t.shape[1]] = t
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=64)
    args = p.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.batch, 3, 224, 224, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(64, 3, 7, 7, device="cuda", dtype=torch.bfloat16) * 0.1
    b = torch.randn(64, device="cuda", dtype=torch.bfloat16)
    reference = F.conv2d(x.float(), w.float(), stride=2, padding=3)
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}; ms per call")
    variants = {"nchw": (x, w),
                "nhwc": (x.contiguous(memory_format=torch.channels_last),
                         w.contiguous(memory_format=torch.channels_last))}
    for channels in (4, 8):
        variants[f"nhwc_pad{channels}"] = (padded_channels_last(x, channels),
                                           padded_channels_last(w, channels))
    outputs = {}
    for benchmark in (False, True):
        torch.backends.cudnn.benchmark = benchmark
        for name, (xi, wi) in variants.items():
            ms = time_ms(lambda: F.conv2d(xi, wi, stride=2, padding=3))
            y = F.conv2d(xi, wi, stride=2, padding=3)
            outputs[name] = y
            err = ((y.float() - reference).abs().max() / reference.abs().max()).item()
            print(f"conv {name:10s} cudnn.benchmark={int(benchmark)}: {ms:.4f}  "
                  f"(error {err:.1e}, result strides {y.stride()})")
    torch.backends.cudnn.benchmark = False
    print(f"copy into nhwc: {time_ms(lambda: x.contiguous(memory_format=torch.channels_last)):.4f}")
    print(f"copy into nhwc padded to 8: {time_ms(lambda: padded_channels_last(x, 8)):.4f}")

    def stem_tail(y):
        return F.max_pool2d(F.relu(y + b.view(1, -1, 1, 1)), 3, 2, 1)

    compiled = torch.compile(stem_tail)
    for name in ("nchw", "nhwc"):
        y = outputs[name]
        print(f"bias+relu+maxpool {name}: eager {time_ms(lambda: stem_tail(y)):.4f}, "
              f"torch.compile {time_ms(lambda: compiled(y)):.4f}")


if __name__ == "__main__":
    main()
