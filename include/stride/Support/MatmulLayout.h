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
// library call's descriptor. See python-free-docs/matmul.md.
//
// Plain C++ (no MLIR or LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_MATMULLAYOUT_H
#define STRIDE_SUPPORT_MATMULLAYOUT_H

#include "stride/Support/Layout.h"

#include <optional>
#include <vector>

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

/// How a library writes a product `[B..., M, N]` into `layout`, or nullopt
/// when it cannot: rows of N consecutive elements at a leading dimension
/// >= N, the batch dims collapsing into one stride of at least M * ld.
std::optional<MatmulOperandLayout> matmulResultLayout(const Layout &layout);

/// The leading dimension a product with `columns` columns of
/// `elementBytes`-byte elements is written at: `columns` rounded up to 16
/// bytes for 2-byte types (f16, bf16), whose fast library kernels need
/// 16-byte aligned rows (an H100 bf16 product with 50,257 columns took
/// 6.5 ms at ld 50,257, 0.97 ms at 50,264); `columns` otherwise (f32 ran
/// the same at both).
int64_t alignedResultLd(int64_t columns, int64_t elementBytes);

/// Rows per class below which a product is not written in row classes:
/// every class reads the whole weight again, which a class of fewer rows
/// no longer hides under its arithmetic (bf16 on an H100: about 300 flops
/// per byte read).
inline constexpr int64_t kMinRowsPerClass = 256;

/// The number of row classes (stride.matmul's `row_classes`) in which a 2-D
/// product `[rows, columns]` of `elementBytes`-byte elements is written,
/// or nullopt to write it whole. Only where it pays: 2-byte types whose
/// dense rows are not a multiple of 16 bytes (cuBLASLt's fast kernels need
/// n, the leading dimensions and every address 16-byte aligned), at least
/// 16 columns and kMinRowsPerClass rows per class, an lhs read row-major
/// and a weight read column-major (an `nn.Linear` weight `[N, K]`), both
/// at leading dimensions and offsets of 16 bytes, so every call's rows
/// start aligned. The classes are the rows `r mod R` for the smallest R
/// with `R * columns` elements a multiple of 16 bytes.
std::optional<int64_t> matmulRowClasses(int64_t rows, int64_t columns,
                                        int64_t elementBytes,
                                        const MatmulOperandLayout &lhs,
                                        int64_t lhsOffset,
                                        const MatmulOperandLayout &rhs,
                                        int64_t rhsOffset);

/// The part of a product `[M, N]` that one library call computes: `rows`
/// rows from `firstRow`, `rowStep` apart, and `columns` columns from
/// `firstColumn`.
struct MatmulPart {
  int64_t firstRow = 0, rowStep = 1, rows = 0;
  int64_t firstColumn = 0, columns = 0;

  bool operator==(const MatmulPart &) const = default;
};

/// The calls of a dense `[rows, columns]` product written in `classes` row
/// classes: for each class `j` with rows, the rows `j, j + classes, ...`
/// from the first column whose element `j * columns + c` is a multiple of
/// 16 bytes, over the largest multiple of 16 bytes of columns that fits;
/// then the columns before the latest such start and after the earliest
/// such end, each over all rows. Together they cover every element; the
/// two end parts rewrite some elements a class wrote (in order, so the
/// result is deterministic).
std::vector<MatmulPart> matmulRowClassParts(int64_t rows, int64_t columns,
                                            int64_t classes,
                                            int64_t elementBytes);

/// True when the 1-D `layout` (a matmul's bias) has consecutive elements,
/// as the library reads it.
bool isContiguousVector(const Layout &layout);

} // namespace stride

#endif // STRIDE_SUPPORT_MATMULLAYOUT_H
