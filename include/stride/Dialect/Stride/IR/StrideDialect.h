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
#include "stride/Support/Layout.h"

#include "stride/Dialect/Stride/IR/StrideDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "stride/Dialect/Stride/IR/StrideTypes.h.inc"

namespace stride {
/// True for the element types a stride tensor may hold.
bool isSupportedElementType(mlir::Type type);
} // namespace stride

#endif // STRIDE_DIALECT_STRIDEDIALECT_H
