//===- MatmulLayout.h - How a library reads a matrix product's operand ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one home of the rule that decides whether a BLAS-style library
// (cuBLASLt) can read an operand of stride.matmul in place: a matrix of
// `[B..., R, C]` whose rows or columns are contiguous, at a leading
// dimension, with the batch dims collapsing into one batch stride (0 for a
// broadcast batch). The stride-matmul-layout pass records the answer on the
// op (or copies the operand into a dense temporary when there is none), the
// op's verifier checks a recorded answer, and the plan turns it into the
// library call's descriptor. See docs/matmul.md.
//
// Plain C++ (no MLIR or LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_MATMULLAYOUT_H
#define STRIDE_SUPPORT_MATMULLAYOUT_H

#include "stride/Support/Layout.h"

#include <optional>

namespace stride {

/// An operand `[B..., R, C]` as a library reads it in place.
struct MatmulOperandLayout {
  /// False: row-major, element (r, c) at r * ld + c. True: column-major,
  /// element (r, c) at r + c * ld.
  bool transposed = false;
  /// The leading dimension in elements: at least C (row-major) or R
  /// (column-major), and at least 1.
  int64_t ld = 1;
  /// Elements between consecutive matrices of the collapsed batch; 0 for a
  /// broadcast batch (and when there is one matrix).
  int64_t batchStride = 0;

  bool operator==(const MatmulOperandLayout &) const = default;
};

/// How a library reads `layout` (rank >= 2) in place, or nullopt when it
/// cannot: neither the rows nor the columns are contiguous (e.g. both
/// strides != 1, or a broadcast row), or the batch dims do not collapse
/// into one stride. Row-major is preferred where both readings fit.
std::optional<MatmulOperandLayout> matmulOperandLayout(const Layout &layout);

/// True when the 1-D `layout` (a matmul's bias) has consecutive elements,
/// as the library reads it.
bool isContiguousVector(const Layout &layout);

} // namespace stride

#endif // STRIDE_SUPPORT_MATMULLAYOUT_H
