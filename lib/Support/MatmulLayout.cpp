//===- MatmulLayout.cpp - How a library reads a matrix product's operand --===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/MatmulLayout.h"

#include <algorithm>
#include <numeric>

namespace stride {

namespace {

/// The matrix (rows, columns) with `rowStride` between rows and unit
/// columns, read row-major: its leading dimension, or nullopt.
std::optional<int64_t> rowMajorLd(int64_t rows, int64_t columns,
                                  int64_t rowStride, int64_t columnStride) {
  if (columns != 1 && columnStride != 1)
    return std::nullopt;
  int64_t least = std::max<int64_t>(columns, 1);
  if (rows == 1)
    return least;
  if (rowStride < least)
    return std::nullopt;
  return rowStride;
}

/// The batch dims `[B...]` collapsed into one stride: every non-unit dim
/// steps over the whole of the next non-unit one (stride 0 throughout for
/// a broadcast batch).
std::optional<int64_t> collapsedBatchStride(DimsRef shape, DimsRef strides) {
  std::optional<size_t> inner; // the last non-unit dim seen, walking outward
  std::optional<int64_t> innermostStride;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1)
      continue;
    if (inner && strides[d] != shape[*inner] * strides[*inner])
      return std::nullopt;
    if (!inner)
      innermostStride = strides[d];
    inner = d;
  }
  return innermostStride.value_or(0);
}

} // namespace

std::optional<MatmulOperandLayout> matmulOperandLayout(const Layout &layout) {
  size_t rank = layout.shape.size();
  if (rank < 2)
    return std::nullopt;
  int64_t rows = layout.shape[rank - 2], columns = layout.shape[rank - 1];
  int64_t rowStride = layout.strides[rank - 2],
          columnStride = layout.strides[rank - 1];
  std::optional<int64_t> batchStride = collapsedBatchStride(
      DimsRef(layout.shape).first(rank - 2),
      DimsRef(layout.strides).first(rank - 2));
  if (!batchStride)
    return std::nullopt;
  if (auto ld = rowMajorLd(rows, columns, rowStride, columnStride))
    return MatmulOperandLayout{false, *ld, *batchStride};
  // Column-major is row-major of the transpose.
  if (auto ld = rowMajorLd(columns, rows, columnStride, rowStride))
    return MatmulOperandLayout{true, *ld, *batchStride};
  return std::nullopt;
}

std::optional<MatmulOperandLayout> matmulResultLayout(const Layout &layout) {
  std::optional<MatmulOperandLayout> result = matmulOperandLayout(layout);
  size_t rank = layout.shape.size();
  if (!result || result->transposed)
    return std::nullopt;
  int64_t matrices = 1;
  for (size_t d = 0; d + 2 < rank; ++d)
    matrices *= layout.shape[d];
  if (matrices > 1 && result->batchStride < layout.shape[rank - 2] * result->ld)
    return std::nullopt;
  return result;
}

int64_t alignedResultLd(int64_t columns, int64_t elementBytes) {
  if (elementBytes != 2)
    return columns;
  constexpr int64_t kAlignedElements = 16 / 2;
  return (columns + kAlignedElements - 1) / kAlignedElements * kAlignedElements;
}

namespace {

/// Elements of `elementBytes` bytes in 16 bytes, the alignment of
/// cuBLASLt's fast kernels.
int64_t alignedElements(int64_t elementBytes) {
  return std::max<int64_t>(1, 16 / elementBytes);
}

} // namespace

std::optional<int64_t> matmulRowClasses(int64_t rows, int64_t columns,
                                        int64_t elementBytes,
                                        const MatmulOperandLayout &lhs,
                                        int64_t lhsOffset,
                                        const MatmulOperandLayout &rhs,
                                        int64_t rhsOffset) {
  if (elementBytes != 2)
    return std::nullopt;
  int64_t aligned = alignedElements(elementBytes);
  if (columns % aligned == 0 || columns < 2 * aligned)
    return std::nullopt;
  auto alignedAt = [&](const MatmulOperandLayout &layout, int64_t offset) {
    return layout.ld % aligned == 0 && offset % aligned == 0;
  };
  if (lhs.transposed || !rhs.transposed || !alignedAt(lhs, lhsOffset) ||
      !alignedAt(rhs, rhsOffset))
    return std::nullopt;
  int64_t classes = aligned / std::gcd(aligned, columns);
  if (rows < classes * kMinRowsPerClass)
    return std::nullopt;
  return classes;
}

std::vector<MatmulPart> matmulRowClassParts(int64_t rows, int64_t columns,
                                            int64_t classes,
                                            int64_t elementBytes) {
  int64_t aligned = alignedElements(elementBytes);
  std::vector<MatmulPart> parts;
  int64_t head = 0, tail = columns;
  for (int64_t j = 0; j < classes && j < rows; ++j) {
    int64_t first = (aligned - (j * columns) % aligned) % aligned;
    int64_t width = (columns - first) / aligned * aligned;
    parts.push_back({j, classes, (rows - j + classes - 1) / classes, first,
                     width});
    head = std::max(head, first);
    tail = std::min(tail, first + width);
  }
  if (head > 0)
    parts.push_back({0, 1, rows, 0, head});
  if (tail < columns)
    parts.push_back({0, 1, rows, tail, columns - tail});
  return parts;
}

bool isContiguousVector(const Layout &layout) {
  return layout.shape.size() == 1 &&
         (layout.shape[0] <= 1 || layout.strides[0] == 1);
}

} // namespace stride
