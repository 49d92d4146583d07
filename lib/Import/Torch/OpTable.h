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
// CollectiveOps.cpp, ScatterReduceOps.cpp, PoolingOps.cpp,
// DistanceOps.cpp, GridSampleOps.cpp, SymIntOps.cpp)
// adds its own to the table that Ops.cpp assembles, and
// the helpers that builders of several groups call. Private to
// lib/Import/Torch.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_IMPORT_TORCH_OPTABLE_H
#define STRIDE_LIB_IMPORT_TORCH_OPTABLE_H

#include "NodeImporter.h"

#include <map>
#include <sstream>
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
void addScatterReduceOps(OpTable &ops);
void addPoolingOps(OpTable &ops);
void addDistanceOps(OpTable &ops);
void addGridSampleOps(OpTable &ops);
void addSymIntOps(OpTable &ops);

/// Whether `op` ("aten.sym_size.int", "_operator.mul") computes a SymInt
/// or SymBool (SymIntOps.cpp): its output is not a tensor.
bool isSymbolicScalarOp(llvm::StringRef op);
/// Whether `op` checks SymInts and has no outputs ("aten._assert_scalar.
/// default", "aten.sym_constrain_range_for_size.default").
bool isSymbolicCheck(llvm::StringRef op);

/// Whether `target` ("aten....") is a fused attention op, whose builder
/// passes over the None and SymInt outputs it has (acceptsAbsentOutputs).
bool attentionTakesAbsentOutputs(llvm::StringRef target);

//===----------------------------------------------------------------------===//
// Helpers of several groups
//===----------------------------------------------------------------------===//

/// The `alpha` of add and sub, multiplied into `other`.
mlir::FailureOr<mlir::Value> scaledByAlpha(NodeImporter &n, mlir::Value other,
                                           DType dtype);

/// `v` as a message shows a value from the file (0.1, -1, inf).
inline std::string decimal(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

int64_t rankOf(mlir::Value v);
llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);
/// The sizes of `v`'s type as expressions (constants where static): what
/// a builder that takes symbolic sizes reads.
SizeExprs symbolicShapeOf(mlir::Value v);

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

/// The in-place form of a functional op (copy_, index_copy_, index_put_,
/// the out= forms, as a graph that run_decompositions did not functionalize
/// records them): the node's value is the functional op's, and the name of
/// the tensor argument `written` (`self`, `out`) is bound to it, so that
/// later nodes read the new value. That tensor must be a graph input or an
/// earlier node's value, not a view of one: a write through a view
/// whose positions overlap (an expand's stride 0) is refused as such, any
/// other view as not imported.
mlir::LogicalResult
writtenInPlace(NodeImporter &n, llvm::StringRef written,
               mlir::LogicalResult (*functional)(NodeImporter &));

/// `x` padded as constant_pad_nd's `pad` says: (before, after) pairs from
/// the last dim backwards, with `value` (negative: elements removed).
mlir::FailureOr<mlir::Value> padded(NodeImporter &n, mlir::Value x,
                                    llvm::ArrayRef<int64_t> pad, double value);

/// Fails with an error unless output `i` has shape `shape` (builders that
/// compute a result's shape themselves check the file's against it).
mlir::LogicalResult expectOutputShape(NodeImporter &n, size_t i,
                                      llvm::ArrayRef<int64_t> shape);
mlir::LogicalResult expectOutputSizes(NodeImporter &n, size_t i,
                                      const SizeExprs &shape);

/// Pointwise ops of one shape built one per statement (so that the IR
/// order does not depend on the compiler's order of evaluating arguments),
/// row-major; `shape` must outlive the builder.
struct PointwiseBuilder {
  NodeImporter &n;
  llvm::ArrayRef<int64_t> shape;

  template <typename OpTy> mlir::Value op(mlir::Value a, mlir::Value b) {
    DType dtype = llvm::cast<StridedTensorType>(a.getType()).getDType();
    return OpTy::create(n.b(), n.location(), n.contiguous(shape, dtype), a, b);
  }
  template <typename OpTy> mlir::Value op(mlir::Value a) {
    return OpTy::create(n.b(), n.location(), a.getType(), a);
  }
  mlir::Value compare(CmpPredicate predicate, mlir::Value a, mlir::Value b) {
    return CmpOp::create(n.b(), n.location(), n.contiguous(shape, DType::I1),
                         predicate, a, b);
  }
  mlir::Value select(mlir::Value condition, mlir::Value a, mlir::Value b) {
    DType dtype = llvm::cast<StridedTensorType>(a.getType()).getDType();
    return WhereOp::create(n.b(), n.location(), n.contiguous(shape, dtype),
                           condition, a, b);
  }
  mlir::FailureOr<mlir::Value> constant(double value, DType dtype) {
    return n.broadcast(n.scalarTensor(value, dtype), shape);
  }
  /// (x < 0) != (y < 0), for a zero of x's dtype.
  mlir::Value signsDiffer(mlir::Value x, mlir::Value y, mlir::Value zero) {
    mlir::Value xNegative = compare(CmpPredicate::lt, x, zero);
    mlir::Value yNegative = compare(CmpPredicate::lt, y, zero);
    return op<XorOp>(xNegative, yNegative);
  }
  /// A truncated quotient lowered by one where `remainder` is not zero and
  /// its sign (or the dividend's, `signed`) differs from `other`'s: the
  /// step both floor divisions share.
  mlir::Value floorOfTruncated(mlir::Value quotient, mlir::Value remainder,
                               mlir::Value signedValue, mlir::Value other,
                               mlir::Value zero, mlir::Value one) {
    mlir::Value inexact = compare(CmpPredicate::ne, remainder, zero);
    mlir::Value differ = signsDiffer(signedValue, other, zero);
    mlir::Value adjust = op<AndOp>(inexact, differ);
    mlir::Value lowered = op<SubOp>(quotient, one);
    return select(adjust, lowered, quotient);
  }
};

} // namespace stride::torch

#endif // STRIDE_LIB_IMPORT_TORCH_OPTABLE_H
