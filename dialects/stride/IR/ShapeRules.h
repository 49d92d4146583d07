//===- ShapeRules.h - Shape checks the op verifiers share -------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The checks of sizes and element types that the verifiers of
// StrideOps.cpp and StrideAttentionOps.cpp share. Sizes are compared as
// expressions (SizeExpr: constants where static), so one rule holds for
// static and symbolic sizes alike (python-free-docs/symbolic-sizes.md):
// two polynomials that differ are not equal for every value of the
// symbols, and an inequality holds where the bounds over the function's
// symbol ranges prove it.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_SHAPERULES_H
#define STRIDE_DIALECT_SHAPERULES_H

#include "dialects/stride/IR/StrideDialect.h"
#include "stride/Support/SymbolicLayout.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace stride {

/// The sizes of `value`'s type as expressions (constants where static).
SizeExprs sizesOf(mlir::Value value);

/// Whether `a <= b` for every value of the symbols in the ranges of `op`'s
/// function (the bounds of `b - a`, or `b` a monomial `a` times a factor
/// of at least 1, for a size `a`); a plain comparison for constants.
bool provenAtMost(mlir::Operation *op, const SizeExpr &a, const SizeExpr &b);

/// `value` has the sizes `expected` (equal expressions); otherwise an
/// error on `op` naming both, and `because`.
mlir::LogicalResult verifyShapeIs(mlir::Operation *op, llvm::StringRef what,
                                  mlir::Value value, const SizeExprs &expected,
                                  llvm::StringRef because);
mlir::LogicalResult verifyShapeIs(mlir::Operation *op, llvm::StringRef what,
                                  mlir::Value value,
                                  llvm::ArrayRef<int64_t> expected,
                                  llvm::StringRef because);

/// An error on `op` with a note at the definition of `value`.
mlir::InFlightDiagnostic errorWithNoteAt(mlir::Operation *op,
                                         mlir::Value value,
                                         llvm::StringRef valueName);

/// Each of `values` (named; null ones skipped) has the element type of
/// `reference`; otherwise an error, ending in `rule`, with a note at the
/// first that has not.
mlir::LogicalResult verifyElementTypesMatch(
    mlir::Operation *op, llvm::StringRef referenceName, mlir::Value reference,
    llvm::ArrayRef<std::pair<llvm::StringRef, mlir::Value>> values,
    llvm::StringRef rule);

} // namespace stride

#endif // STRIDE_DIALECT_SHAPERULES_H
