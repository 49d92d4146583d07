//===- GraphText.h - Text of random graphs' types -----------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The pieces of MLIR text the one-op generators (MatmulGraph.cpp,
// AttentionGraph.cpp) print: dims joined, a strided tensor type, row-major
// strides. Needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_FUSION_GRAPHTEXT_H
#define STRIDE_TEST_FUSION_GRAPHTEXT_H

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

} // namespace stride::test

#endif // STRIDE_TEST_FUSION_GRAPHTEXT_H
