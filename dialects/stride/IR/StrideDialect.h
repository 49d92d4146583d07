//===- StrideDialect.h - The stride dialect and its types -------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_STRIDEDIALECT_H
#define STRIDE_DIALECT_STRIDEDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "stride/Support/DType.h"
#include "stride/Support/Layout.h"
#include "stride/Support/SymbolicLayout.h"

#include <optional>

#include "dialects/stride/IR/StrideDialect.h.inc"

namespace stride {
/// A symbolic size expression (StrideAttrs.td); the tensor type holds them.
class SizeExprAttr;
} // namespace stride

#define GET_TYPEDEF_CLASSES
#include "dialects/stride/IR/StrideTypes.h.inc"

namespace stride {
/// The DType of an element type a stride tensor may hold (f16, bf16, f32,
/// f64 and the signless i1, i8, i32, i64); nullopt for any other type.
std::optional<DType> dtypeOfElementType(mlir::Type type);

/// The DType of a stride tensor's elements, or of an element type; nullopt
/// for any other type.
std::optional<DType> dtypeOf(mlir::Type type);
} // namespace stride

#endif // STRIDE_DIALECT_STRIDEDIALECT_H
