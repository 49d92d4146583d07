//===- CudnnConvolutionGpuTest.cpp - cudnn.convolution on a GPU -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cudnn.convolution` routine through the real cuDNN, on modules of one
// library-call step (ConvolutionTestSupport.h), on random inputs, against
// the direct sum in double precision: ResNet-like 3x3 and 7x7 stride-2
// convolutions in f32 (TF32 off: 1e-4) and channels-last bf16 and f16 with
// the bias in the graph, and with the bias, a residual and the relu (2e-2),
// a depthwise one, 1-D and 3-D ones, and the
// data and weight gradients. Each case prints PASS or FAIL. Skipped where
// there is no CUDA device (scripts/gpu-check.sh runs it).
//
//===----------------------------------------------------------------------===//

#include "ConvolutionTestSupport.h"

#include "GpuTestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace stride;
using namespace stride::test;

namespace {

/// [N, C, H, W] with kernel K x K, `groups`, stride, padding: x, w and y
/// dense row-major (NCHW).
Conv conv2d(DType t, int64_t n, int64_t c, int64_t hw, int64_t k,
            int64_t kernel, int64_t stride, int64_t pad, int64_t groups = 1) {
  Conv v;
  v.dtype = t;
  int64_t out = (hw + 2 * pad - kernel) / stride + 1;
  v.x = {n, c, hw, hw};
  v.w = {k, c / groups, kernel, kernel};
  v.y = {n, k, out, out};
  v.stride = {stride, stride};
  v.pad = {pad, pad};
  v.dilation = {1, 1};
  v.xs = Conv::dense(v.x), v.ws = Conv::dense(v.w), v.ys = Conv::dense(v.y);
  return v;
}

/// The same convolution with every tensor channels-last and the bias.
Conv channelsLast(Conv v) {
  auto nhwc = [](const std::vector<int64_t> &d) {
    return std::vector<int64_t>{d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
  };
  v.xs = nhwc(v.x), v.ws = nhwc(v.w), v.ys = nhwc(v.y);
  v.bias = true;
  return v;
}

/// ResNet's block as one call: channels-last with the bias, a residual
/// and the relu in cuDNN's graph.
Conv withEpilogue(Conv v) {
  v.residual = v.relu = true;
  return v;
}

std::vector<std::pair<std::string, Conv>> cases() {
  std::vector<std::pair<std::string, Conv>> all = {
      {"f32 3x3", conv2d(DType::F32, 2, 16, 14, 32, 3, 1, 1)},
      {"f32 7x7 stride 2", conv2d(DType::F32, 2, 3, 32, 16, 7, 2, 3)},
      {"bf16 nhwc 3x3 bias", channelsLast(conv2d(DType::BF16, 2, 16, 14, 32, 3, 1, 1))},
      {"f16 nhwc 1x1 bias", channelsLast(conv2d(DType::F16, 2, 32, 14, 64, 1, 1, 0))},
      {"bf16 nhwc 3x3 bias residual relu",
       withEpilogue(channelsLast(conv2d(DType::BF16, 2, 64, 14, 64, 3, 1, 1)))},
      {"f16 nhwc 1x1 bias residual relu",
       withEpilogue(channelsLast(conv2d(DType::F16, 2, 64, 14, 256, 1, 1, 0)))},
      {"f32 depthwise", conv2d(DType::F32, 2, 16, 14, 16, 3, 1, 1, 16)},
  };
  all.push_back({"f32 1-D", conv1d()});
  all.push_back({"f32 3-D", conv3d()});
  for (const char *kind : {"dgrad", "wgrad"})
    for (DType t : {DType::F32, DType::BF16}) {
      Conv g = conv2d(t, 2, 16, 14, 32, 3, 2, 1);
      g.kind = kind;
      all.push_back({std::string(dtypeName(t)) + " " + kind, g});
    }
  return all;
}

class CudnnConvolutionGpuTest : public GpuRuntimeTest {
protected:

  /// Runs `c` and prints PASS or FAIL; false on a failure.
  bool check(const std::string &name, const Conv &c) {
    std::string diff;
    Result<std::shared_ptr<const Executable>> exe = Executable::load(
        *rt, module(c, rt->deviceArch()), "convolution.stridemod");
    if (!exe) {
      diff = exe.error().message;
    } else if (Result<std::unique_ptr<Invocation>> inv =
                   Invocation::create(*exe);
               !inv) {
      diff = inv.error().message;
    } else {
      diff = compareConvolution(**inv, c, c.dtype == DType::F32 ? 1e-4 : 2e-2);
    }
    std::printf("%s convolution %s%s%s\n", diff.empty() ? "PASS" : "FAIL",
                name.c_str(), diff.empty() ? "" : ": ", diff.c_str());
    std::fflush(stdout);
    return diff.empty();
  }

};

TEST_F(CudnnConvolutionGpuTest, EveryCaseMatchesTheReference) {
  int failed = 0;
  for (const auto &[name, c] : cases())
    failed += !check(name, c);
  EXPECT_EQ(failed, 0);
}

} // namespace
