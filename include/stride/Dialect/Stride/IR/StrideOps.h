//===- StrideOps.h - Ops of the stride dialect ------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_STRIDEOPS_H
#define STRIDE_DIALECT_STRIDEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "stride/Dialect/Stride/IR/StrideDialect.h"

namespace stride {
namespace detail {
mlir::LogicalResult verifyViewOp(mlir::Operation *op);
mlir::LogicalResult verifyElementwise(mlir::Operation *op);
} // namespace detail

/// Pointwise ops: every tensor operand and the result have one shape.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return detail::verifyElementwise(op);
  }
};

/// Functional ops write a fresh buffer (as opposed to views, which alias).
template <typename ConcreteType>
class Functional : public mlir::OpTrait::TraitBase<ConcreteType, Functional> {};

/// True for ops that produce a fresh buffer.
inline bool isFunctional(mlir::Operation *op) {
  return op->hasTrait<Functional>();
}
} // namespace stride

#include "stride/Dialect/Stride/IR/StrideEnums.h.inc"
#include "stride/Dialect/Stride/IR/StrideInterfaces.h.inc"

#define GET_OP_CLASSES
#include "stride/Dialect/Stride/IR/StrideOps.h.inc"

#endif // STRIDE_DIALECT_STRIDEOPS_H
