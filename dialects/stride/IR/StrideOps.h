//===- StrideOps.h - Ops of the stride dialect ------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_STRIDEOPS_H
#define STRIDE_DIALECT_STRIDEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include "dialects/stride/IR/StrideAttrs.h"
#include "dialects/stride/IR/Convolution.h"
#include "dialects/stride/IR/StrideDialect.h"

namespace stride {
namespace detail {
mlir::LogicalResult verifyViewOp(mlir::Operation *op);
mlir::LogicalResult verifyElementwise(mlir::Operation *op);
/// `dims`, sorted ascending (ReductionOpInterface::getReducedDims).
llvm::SmallVector<int64_t> sortedDims(llvm::ArrayRef<int64_t> dims);
} // namespace detail

/// Pointwise ops: every tensor operand and the result have one shape.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return detail::verifyElementwise(op);
  }
};

namespace detail {
/// The check of the DeclaredSymbols trait (SymbolicSizes.cpp).
mlir::LogicalResult verifyDeclaredSymbols(mlir::Operation *op);
} // namespace detail

/// Every symbol an op's operand and result types name is declared, with its
/// range, by the enclosing function's `stride.symbols`.
template <typename ConcreteType>
class DeclaredSymbols
    : public mlir::OpTrait::TraitBase<ConcreteType, DeclaredSymbols> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return detail::verifyDeclaredSymbols(op);
  }
};

/// Functional ops compute a fresh buffer from their operands (as opposed to
/// views, which alias, and kernels, which hold functional ops).
template <typename ConcreteType>
class Functional : public mlir::OpTrait::TraitBase<ConcreteType, Functional> {};

/// `stride.kernel`: a fused region that becomes one GPU kernel.
template <typename ConcreteType>
class FusedKernel : public mlir::OpTrait::TraitBase<ConcreteType, FusedKernel> {
};

/// An op that runs as a call of a vendor library routine (`stride.matmul`):
/// its result is a fresh buffer, and it is never part of a kernel.
template <typename ConcreteType>
class LibraryCall : public mlir::OpTrait::TraitBase<ConcreteType, LibraryCall> {
};

/// True for the ops that compute a fresh buffer: every op fusion may group,
/// and no kernel.
inline bool isFunctional(mlir::Operation *op) {
  return op->hasTrait<Functional>();
}

/// True for the ops that run as a library call (a kernel boundary).
inline bool isLibraryCall(mlir::Operation *op) {
  return op->hasTrait<LibraryCall>();
}

/// True when `op`'s results are fresh buffers that no other value aliases:
/// functional ops, kernels and library calls.
inline bool writesFreshBuffers(mlir::Operation *op) {
  return isFunctional(op) || op->hasTrait<FusedKernel>() || isLibraryCall(op);
}
} // namespace stride

#include "dialects/stride/IR/StrideEnums.h.inc"

namespace stride {
/// The identity of `combiner` for elements of `elementType`
/// (ReductionOpInterface::getIdentity): a FloatAttr or an IntegerAttr.
mlir::TypedAttr reductionIdentity(ReductionCombiner combiner,
                                  mlir::Type elementType);
} // namespace stride

#include "dialects/stride/IR/StrideInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/stride/IR/StrideOps.h.inc"

namespace stride {
/// The `world_size` of a collective (all_reduce, all_gather,
/// reduce_scatter); none for any other op.
std::optional<int64_t> collectiveWorldSize(mlir::Operation *op);

/// The shape of a collective's result on one rank for an input of shape
/// `input` (StrideCollectiveOps.td; its dim must be in range).
llvm::SmallVector<int64_t> collectiveResultShape(mlir::Operation *op,
                                                 llvm::ArrayRef<int64_t> input);

struct MatmulOperandLayout;
/// `layout` (stride/Support/MatmulLayout.h) as the attribute a
/// stride.matmul records it in.
MatmulOperandAttr getMatmulOperandAttr(mlir::MLIRContext *context,
                                       const MatmulOperandLayout &layout);
} // namespace stride

#endif // STRIDE_DIALECT_STRIDEOPS_H
