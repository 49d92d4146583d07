//===- OpTable.h - The op table, shared by its groups -----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's parts: each file of builders (PointwiseOps.cpp,
// ViewOps.cpp, IndexOps.cpp, ReductionOps.cpp, MatmulOps.cpp,
// ExpansionOps.cpp, AttentionOps.cpp, ConvNetOps.cpp, EmbeddingBagOps.cpp,
// ActivationOps.cpp, SortOps.cpp, NormOps.cpp, UpsampleOps.cpp,
// CollectiveOps.cpp)
// adds its own to the table that Ops.cpp assembles, and
// the helpers that builders of several groups call. Private to
// lib/Import/Torch.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_IMPORT_TORCH_OPTABLE_H
#define STRIDE_LIB_IMPORT_TORCH_OPTABLE_H

#include "NodeImporter.h"

#include <map>
#include <string>
#include <utility>

namespace stride::torch {

/// A builder of the table (lookupOp wraps each in an OpBuilderFn).
using Fn = mlir::LogicalResult (*)(NodeImporter &);

/// The builders by target without "torch.ops." ("aten.add.Tensor").
using OpTable = std::map<std::string, Fn, std::less<>>;

void addPointwiseOps(OpTable &ops);
void addViewOps(OpTable &ops);
void addIndexOps(OpTable &ops);
void addReductionOps(OpTable &ops);
void addMatmulOps(OpTable &ops);
void addExpansionOps(OpTable &ops);
void addAttentionOps(OpTable &ops);
void addConvNetOps(OpTable &ops);
void addConvolutionOps(OpTable &ops);
void addEmbeddingBagOps(OpTable &ops);
void addActivationOps(OpTable &ops);
void addSortOps(OpTable &ops);
void addNormOps(OpTable &ops);
void addUpsampleOps(OpTable &ops);
void addCollectiveOps(OpTable &ops);

/// Whether `target` ("aten....") is a fused attention op, whose builder
/// passes over the None and SymInt outputs it has (acceptsAbsentOutputs).
bool attentionTakesAbsentOutputs(llvm::StringRef target);

//===----------------------------------------------------------------------===//
// Helpers of several groups
//===----------------------------------------------------------------------===//

/// The `alpha` of add and sub, multiplied into `other`.
mlir::FailureOr<mlir::Value> scaledByAlpha(NodeImporter &n, mlir::Value other,
                                           DType dtype);

int64_t rankOf(mlir::Value v);
llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);

/// `x` as a 1-D tensor (PyTorch's `reshape(-1)`): itself, a view, or a
/// row-major copy viewed flat where the layout allows no view.
mlir::Value flattened(NodeImporter &n, mlir::Value x);

/// PyTorch's slice bounds (None, negative, past the end) made explicit.
struct SliceBounds { int64_t dim, start, end, step; };

mlir::FailureOr<SliceBounds> sliceBounds(NodeImporter &n, mlir::Value x);

/// A select index, negative ones counted from the end.
mlir::FailureOr<std::pair<int64_t, int64_t>> selectIndex(NodeImporter &n,
                                                          mlir::Value x);

/// A per-channel parameter [C] as [C, 1, ..., 1] broadcast over `shape`
/// (channels at dim 1), in `dtype`.
mlir::FailureOr<mlir::Value> perChannel(NodeImporter &n, mlir::Value p,
                                        DType dtype,
                                        llvm::ArrayRef<int64_t> shape);

/// `y` times the per-channel `weight` plus the per-channel `bias` (either
/// may be null), as a normalization's affine part.
mlir::FailureOr<mlir::Value> affine(NodeImporter &n, mlir::Value y,
                                    mlir::Value weight, mlir::Value bias,
                                    DType dtype, llvm::ArrayRef<int64_t> shape);

/// Fails with an error unless output `i` has shape `shape` (builders that
/// compute a result's shape themselves check the file's against it).
mlir::LogicalResult expectOutputShape(NodeImporter &n, size_t i,
                                      llvm::ArrayRef<int64_t> shape);

} // namespace stride::torch

#endif // STRIDE_LIB_IMPORT_TORCH_OPTABLE_H
