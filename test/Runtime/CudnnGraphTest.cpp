//===- CudnnGraphTest.cpp - The attention graphs against the real cuDNN ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The operation graphs of `cudnn.sdpa_forward` and `cudnn.sdpa_backward`
// built with the real libcudnn.so.9 (STRIDE_CUDNN, or the loader's paths),
// which needs no GPU to check them: every tensor and operation descriptor
// is created, set and finalized as cuDNN's backend checks it, then the
// operation graph. (Whether an engine fuses the graph, and what it
// computes, needs a GPU: CudnnGpuTest.cpp.) Skipped where cuDNN 9 is absent.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"
#include "ConvolutionTestSupport.h"

#include <gtest/gtest.h>

using namespace stride;
using namespace stride::test;

namespace {

class CudnnGraphTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<const Cudnn *> dnn = loadCudnn("cuDNN");
    if (!dnn)
      GTEST_SKIP() << dnn.error().message;
  }

  /// Builds the graph of `a`'s step in one direction: "" or the error.
  std::string build(const Attention &a, bool backward) {
    ModuleDesc d = backward ? backwardModule(a, "sm_90") : forwardModule(a, "sm_90");
    const auto &step = std::get<LibraryCallStep>(d.steps[0]);
    CudaDriver unused;
    LibraryCallContext context{unused, step, {}, a.name()};
    for (uint32_t b : step.buffers)
      context.bufferBytes.push_back(d.buffers[b].sizeBytes);
    Status s = buildCudnnSdpaGraph(context, backward);
    return s ? "" : s.error().message;
  }

  /// Builds the graph of the convolution step `c`: "" or the error.
  std::string build(const Conv &c) {
    ModuleDesc d = module(c);
    const auto &step = std::get<LibraryCallStep>(d.steps[0]);
    CudaDriver unused;
    LibraryCallContext context{unused, step, {}, "convolution"};
    for (uint32_t b : step.buffers)
      context.bufferBytes.push_back(d.buffers[b].sizeBytes);
    Status s = buildCudnnConvolutionGraph(context);
    return s ? "" : s.error().message;
  }
};

TEST_F(CudnnGraphTest, EveryDescriptorFinalizes) {
  for (DType t : {DType::BF16, DType::F16})
    for (bool causal : {false, true})
      for (BiasKind bias : {BiasKind::None, BiasKind::Full, BiasKind::Padding,
              BiasKind::PaddingRows})
        for (int64_t hkv : {12, 4}) {
          Attention a;
          a.dtype = t;
          a.b = 2;
          a.hq = 12;
          a.hkv = hkv;
          a.sq = 200;
          a.skv = 136;
          a.dqk = a.dv = 64;
          a.causal = causal;
          a.bias = bias;
          a.tokensMajor = hkv == 4;
          for (bool backward : {false, true})
            EXPECT_EQ(build(a, backward), "")
                << (backward ? "backward " : "forward ") << a.name();
        }
}

/// The convolution graphs: each kind, grouped, channels-last with the bias
/// in the graph (and with a residual and the relu after it), 1-D (as 2-D)
/// and 3-D.
TEST_F(CudnnGraphTest, EveryConvolutionDescriptorFinalizes) {
  for (const char *kind : {"fprop", "dgrad", "wgrad"})
    for (DType t : {DType::F32, DType::BF16}) {
      Conv c = grouped();
      c.kind = kind;
      c.dtype = t;
      EXPECT_EQ(build(c), "") << kind << " " << dtypeName(t);
    }
  Conv nhwc = grouped();
  nhwc.dtype = DType::F16;
  nhwc.bias = true;
  nhwc.xs = {120, 1, 20, 4};
  nhwc.ys = {54, 1, 18, 6};
  EXPECT_EQ(build(nhwc), "");
  nhwc.residual = nhwc.relu = true;
  EXPECT_EQ(build(nhwc), "") << "bias, residual, relu";
  nhwc.bias = false;
  EXPECT_EQ(build(nhwc), "") << "residual, relu";
  EXPECT_EQ(build(conv1d()), "");
  EXPECT_EQ(build(conv3d()), "");
}

} // namespace
