//===- RandomGraph.h - Random valid stride graphs for tests -----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A generator of random, valid stride graphs (MLIR text of one function
// `@graph`) for differential tests of the fusion pass: views with zero
// strides (expand), permutes, slices with steps, selects, squeeze and
// unsqueeze, reshaping views and overlapping as_strided windows; pointwise
// unary and binary ops, cmp/where and casts; slice and select scatters;
// reductions (sum, max, min, mean over any dims, keepdim or not);
// index_select, gather, index_add and scatter_add with index inputs; full;
// on request, matmul.
// Functional results get legal layouts (row-major, permuted dense, or with
// gaps). Shapes are tiny, so a graph runs in microseconds.
//
// Deterministic: the same seed gives the same graph on every platform (the
// generator uses its own splitmix64 stream, not <random>'s distributions).
// Needs no MLIR: the layouts come from stride/Support/Layout.h.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_FUSION_RANDOMGRAPH_H
#define STRIDE_TEST_FUSION_RANDOMGRAPH_H

#include "stride/Support/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stride::test {

/// One argument of the generated function (a dense row-major array).
struct GraphInput {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// For index arguments (i64): every element must lie in [0, indexBound).
  /// 0 for data arguments.
  int64_t indexBound = 0;
};

struct RandomGraphOptions {
  /// Functional ops per graph (views come on top).
  int minOps = 3;
  int maxOps = 10;
  int maxRank = 3;
  int maxDim = 4;
  /// Generate index_select, gather, index_add and scatter_add.
  bool indexOps = true;
  /// Generate matmul (batched or not; operands of any layout the other
  /// choices give: broadcast, permuted, sliced; sometimes with a bias and
  /// an epilogue). Off by default, so that the graphs of the other tests
  /// keep their seeds.
  bool matmulOps = false;
  /// Shapes for the CUDA backend's size-dependent kernel forms (warp,
  /// block, cluster and shared-memory rows; split reductions and column
  /// groups; tiled transposes): each graph draws one long length (8 to
  /// 70,001 elements, powers of two and odd sizes) that one dim of every
  /// new shape takes, the other dims short (a medium one at times), at
  /// most kMaxWideElements elements a shape; the data f32 or, in 40% of
  /// the graphs, bf16 (with no index_add or scatter_add, whose bf16 sums
  /// depend on the atomics' order). Off by default, so that the
  /// graphs of the other tests keep their seeds.
  bool wide = false;
};

/// The most elements of a new shape of a wide graph (a cat of up to three
/// values holds more): small enough for the CPU emulator and the float64
/// interpreter to run a graph in seconds.
constexpr int64_t kMaxWideElements = 1 << 19;

struct RandomGraph {
  uint64_t seed = 0;
  /// A module with one function, `func.func @graph`.
  std::string text;
  std::vector<GraphInput> inputs;
};

/// The graph of `seed`.
RandomGraph generateRandomGraph(uint64_t seed,
                                const RandomGraphOptions &options = {});

/// A graph of one stride.matmul (any dtype, odd sizes, batched or not, with
/// transposed, sliced, batch-broadcast or non-representable operands,
/// sometimes a bias and an epilogue): `func.func @graph`, text only.
std::string generateMatmulGraph(uint64_t seed);

/// A graph of one stride.attention, at times with its backward (f32, f16 or
/// bf16; grouped-query heads; row-major or head-view operands; a boolean or
/// additive mask broadcast with stride 0; causal or not):
/// `func.func @graph`, text only.
std::string generateAttentionGraph(uint64_t seed);

/// A graph of one stride.convolution (1-D to 3-D, grouped, transposed at
/// times; any dtype; the input row-major or channels-last) and, at times,
/// a per-channel multiply and add, a residual add and a ReLU after it:
/// `func.func @graph`, text only.
std::string generateConvolutionGraph(uint64_t seed);

/// A deterministic 64-bit stream (splitmix64), also used by tests to fill
/// inputs.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, n) (n > 0).
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % uint64_t(n)); }
  /// Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  /// True with probability percent / 100.
  bool chance(int percent) { return below(100) < percent; }

private:
  uint64_t state;
};

} // namespace stride::test

#endif // STRIDE_TEST_FUSION_RANDOMGRAPH_H
