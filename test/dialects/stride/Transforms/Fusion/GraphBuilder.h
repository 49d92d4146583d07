//===- GraphBuilder.h - Text of one-op random graphs -------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the one-op generators (MatmulGraph.cpp, AttentionGraph.cpp,
// ConvolutionGraph.cpp) share: dims joined, a strided tensor type,
// row-major strides, and GraphBuilder, which prints a function's
// arguments, views and pointwise ops as MLIR text from its random stream.
// Needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_FUSION_GRAPHBUILDER_H
#define STRIDE_TEST_FUSION_GRAPHBUILDER_H

#include "RandomGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stride::test {

using Dims = std::vector<int64_t>;

inline std::string joinDims(const Dims &dims, const char *separator) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? separator : "") + std::to_string(dims[i]);
  return text;
}

/// A tensor type with explicit strides and offset.
inline std::string tensorType(const Dims &shape, const Dims &strides,
                              int64_t offset, const std::string &dtype) {
  return "!stride.tensor<" + joinDims(shape, "x") + "x" + dtype +
         ", strides = [" + joinDims(strides, ", ") +
         "], offset = " + std::to_string(offset) + ">";
}

inline Dims rowMajor(const Dims &shape) {
  Dims strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// `dims` reordered: the result's dim i is `dims[perm[i]]`.
inline Dims permuted(const Dims &dims, const Dims &perm) {
  Dims result;
  for (int64_t p : perm)
    result.push_back(dims[size_t(p)]);
  return result;
}

/// A value of the graph being printed: its SSA name and strided type.
struct GraphValue {
  std::string name;
  Dims shape, strides;
  int64_t offset = 0;
  std::string dtype;
};

/// The text of one function `@graph` built from a seed's random stream:
/// its arguments, then its ops in order.
class GraphBuilder {
protected:
  explicit GraphBuilder(uint64_t seed) : rng(seed) {}

  template <size_t N> int64_t pick(const int64_t (&choices)[N]) {
    return choices[rng.below(int64_t(N))];
  }
  static std::string type(const GraphValue &v) {
    return tensorType(v.shape, v.strides, v.offset, v.dtype);
  }
  /// A new row-major argument.
  GraphValue argument(const Dims &shape, const std::string &dtype);
  /// `stride.OP from ATTRIBUTES` whose result has `shape`, `strides` and
  /// `offset`, and `from`'s dtype.
  GraphValue view(const GraphValue &from, const std::string &op,
                  const std::string &attributes, Dims shape, Dims strides,
                  int64_t offset);
  /// `stride.OP` of `operands`, its result row-major of `shape` with the
  /// first operand's dtype.
  GraphValue pointwise(const std::string &op,
                       const std::vector<GraphValue> &operands,
                       const Dims &shape);
  /// The whole function, returning `results`.
  std::string function(const std::vector<GraphValue> &results) const;

  SplitMix64 rng;
  std::vector<std::string> arguments;
  std::string body;
  int values = 0;
};

} // namespace stride::test

#endif // STRIDE_TEST_FUSION_GRAPHBUILDER_H
