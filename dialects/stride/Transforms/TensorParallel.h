//===- TensorParallel.h - stride-tensor-parallel's parts --------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the two files of stride-tensor-parallel share: the recognition of
// the products to split by columns (TensorParallelPatterns.cpp) and the
// split itself, which propagates the split dims through the graph in
// program order (TensorParallel.cpp). python-free-docs/distributed.md.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_TENSORPARALLEL_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_TENSORPARALLEL_H

#include "dialects/stride/IR/StrideOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace stride::tp {

/// The constant a product's weight operand is a view of (through permutes
/// and views), or null: a product by a weight, not by an activation.
ConstantOp weightRoot(mlir::Value value);

/// The seeds of the split, found in `func` before anything changes.
struct Seeds {
  /// Products split by columns: their weight's output dim is split.
  llvm::DenseSet<mlir::Operation *> columns;
  /// Embedding lookups (index_select of a constant table along dim 0)
  /// split along the hidden dim, then all-gathered.
  llvm::DenseSet<mlir::Operation *> embeddings;
};

/// The column-parallel products: the query, key and value projections of
/// each attention and the gate and up projections of each MLP; the
/// embeddings. Fails, with an error at the attention, when its head
/// counts are not multiples of `parts`.
mlir::FailureOr<Seeds> findSeeds(mlir::func::FuncOp func, int64_t parts);

/// Whether `value` is returned by the function through views only (the
/// LM head's logits).
bool returnedThroughViews(mlir::Value value);

} // namespace stride::tp

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_TENSORPARALLEL_H
