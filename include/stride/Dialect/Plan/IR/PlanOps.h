//===- PlanOps.h - The plan dialect: host programs --------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_PLAN_PLANOPS_H
#define STRIDE_DIALECT_PLAN_PLANOPS_H

#include "stride/Dialect/Stride/IR/StrideOps.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "stride/Dialect/Plan/IR/PlanDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "stride/Dialect/Plan/IR/PlanTypes.h.inc"

#define GET_OP_CLASSES
#include "stride/Dialect/Plan/IR/PlanOps.h.inc"

#endif // STRIDE_DIALECT_PLAN_PLANOPS_H
