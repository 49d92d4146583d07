//===- CudnnGpuTest.cpp - cudnn.sdpa_* steps on a GPU ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cudnn.sdpa_forward` and `cudnn.sdpa_backward` routines through the
// real cuDNN, on modules of one library-call step (SdpaTestSupport.h), on
// random bf16 and f16 inputs, against the host reference in double
// precision: GPT-2-like shapes (b=2, 12 heads, d=64, 128 and 200 tokens),
// grouped-query attention (8 query heads over 2, d=128), causal or not, a
// bias broadcast as [1, 1, s_q, s_kv] or as a padding mask [b, 1, 1, s_kv]
// (also given with the query rows at stride 0, as PyTorch gives it),
// s_q != s_kv, dense [b, h, s, d] and PyTorch's [b, s, h, d] layouts, one
// case captured into a CUDA graph, and a few with their plans tuned
// (InvocationOptions::tuneLibraryCalls). Each case prints PASS or FAIL;
// tolerances (relative to the larger of the element and the tensor's
// largest): bf16 2e-2, f16 1e-2, stats 1e-3. Skipped where there is no CUDA
// device (scripts/gpu-check.sh runs it; cuDNN is found as the runtime finds
// it: STRIDE_CUDNN, then the loader's paths).
//
//===----------------------------------------------------------------------===//

#include "SdpaTestSupport.h"

#include "GpuTestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace stride;
using namespace stride::test;

namespace {

Attention shape(DType t, int64_t b, int64_t hq, int64_t hkv, int64_t sq,
                int64_t skv, int64_t d) {
  Attention a;
  a.dtype = t;
  a.b = b;
  a.hq = hq;
  a.hkv = hkv;
  a.sq = sq;
  a.skv = skv;
  a.dqk = a.dv = d;
  return a;
}

/// Every case: each shape in bf16 and f16, causal or not, with each bias.
std::vector<Attention> cases() {
  std::vector<Attention> all;
  for (DType t : {DType::BF16, DType::F16}) {
    std::vector<Attention> shapes = {
        shape(t, 2, 12, 12, 128, 128, 64), // GPT-2 small, 128 tokens
        shape(t, 2, 12, 12, 200, 200, 64), // not a multiple of 64
        shape(t, 2, 8, 2, 128, 128, 128),  // grouped-query attention
        shape(t, 1, 8, 2, 64, 200, 128),   // s_q != s_kv
        shape(t, 2, 4, 4, 200, 136, 64),   // s_q > s_kv
    };
    for (const Attention &s : shapes)
      for (bool causal : {false, true})
        for (BiasKind bias :
             {BiasKind::None, BiasKind::Full, BiasKind::Padding,
              BiasKind::PaddingRows}) {
          Attention a = s;
          a.causal = causal;
          a.bias = bias;
          all.push_back(a);
        }
    Attention torchLayout = shapes[0];
    torchLayout.tokensMajor = true;
    torchLayout.causal = true;
    all.push_back(torchLayout);
  }
  return all;
}

double tolerance(const Attention &a) {
  return a.dtype == DType::BF16 ? 2e-2 : 1e-2;
}

class CudnnGpuTest : public GpuRuntimeTest {
protected:

  /// Runs `a` in one direction: "" or what failed. With `tune`, the first
  /// run times cuDNN's plans and keeps the fastest
  /// (InvocationOptions::tuneLibraryCalls).
  std::string run(const Attention &a, bool backward, bool graph = false,
                  bool tune = false) {
    ModuleDesc d = backward ? backwardModule(a, rt->deviceArch())
                            : forwardModule(a, rt->deviceArch());
    Result<std::shared_ptr<const Executable>> exe =
        Executable::load(*rt, std::move(d), "attention.stridemod");
    if (!exe)
      return exe.error().message;
    InvocationOptions options;
    options.useCudaGraph = graph;
    options.tuneLibraryCalls = tune;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe, options);
    if (!inv)
      return inv.error().message;
    std::string diff;
    // Two runs when captured (the second replays the graph) or tuned (the
    // second runs the plan kept, without timing).
    for (uint32_t seed : graph || tune ? std::vector<uint32_t>{3, 17}
                                       : std::vector<uint32_t>{3}) {
      AttentionInputs in = attentionInputs(a, seed);
      diff = backward ? checkBackward(**inv, a, in, tolerance(a))
                      : checkForward(**inv, a, in, tolerance(a));
      if (!diff.empty())
        break;
    }
    return diff;
  }

  /// Runs `a` and prints PASS or FAIL; false on a failure.
  bool check(const Attention &a, bool backward, bool graph = false,
             bool tune = false) {
    std::string diff = run(a, backward, graph, tune);
    std::string name = std::string(backward ? "backward " : "forward ") +
                       a.name() + (graph ? " graph" : "") +
                       (tune ? " tuned" : "");
    std::printf("%s %s%s%s\n", diff.empty() ? "PASS" : "FAIL", name.c_str(),
                diff.empty() ? "" : ": ", diff.c_str());
    std::fflush(stdout);
    return diff.empty();
  }

};

TEST_F(CudnnGpuTest, Forward) {
  int failed = 0;
  for (const Attention &a : cases())
    failed += !check(a, /*backward=*/false);
  EXPECT_EQ(failed, 0);
}

TEST_F(CudnnGpuTest, Backward) {
  int failed = 0;
  for (const Attention &a : cases())
    failed += !check(a, /*backward=*/true);
  EXPECT_EQ(failed, 0);
}

TEST_F(CudnnGpuTest, CapturedIntoACudaGraph) {
  Attention a = shape(DType::BF16, 2, 12, 12, 200, 200, 64);
  a.causal = true;
  a.bias = BiasKind::Padding;
  EXPECT_TRUE(check(a, false, /*graph=*/true));
  EXPECT_TRUE(check(a, true, /*graph=*/true));
}

// The plan that tuning keeps computes the attention too (whichever it is;
// bf16 and f16, causal with a padding mask, grouped-query, s_q != s_kv,
// and under a CUDA graph).
TEST_F(CudnnGpuTest, Tuned) {
  int failed = 0;
  for (DType t : {DType::BF16, DType::F16})
    for (Attention a : {shape(t, 2, 12, 12, 200, 200, 64),
                        shape(t, 2, 8, 2, 128, 128, 128),
                        shape(t, 1, 8, 2, 64, 200, 128)}) {
      a.causal = true;
      a.bias = BiasKind::Padding;
      for (bool backward : {false, true})
        failed += !check(a, backward, /*graph=*/false, /*tune=*/true);
    }
  Attention graphed = shape(DType::BF16, 2, 12, 12, 128, 128, 64);
  failed += !check(graphed, /*backward=*/false, /*graph=*/true, /*tune=*/true);
  EXPECT_EQ(failed, 0);
}

TEST_F(CudnnGpuTest, StatsAreOptional) {
  Attention a = shape(DType::BF16, 2, 12, 12, 128, 128, 64);
  a.stats = false;
  EXPECT_TRUE(check(a, false));
}

} // namespace
