//===- StrideAttrs.h - Attributes of the stride dialect ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_STRIDEATTRS_H
#define STRIDE_DIALECT_STRIDEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "dialects/stride/IR/StrideDialect.h"

#include "dialects/stride/IR/StrideAttrEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/stride/IR/StrideAttrs.h.inc"

#endif // STRIDE_DIALECT_STRIDEATTRS_H
