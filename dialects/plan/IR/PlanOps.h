//===- PlanOps.h - The plan dialect: host programs --------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_PLAN_PLANOPS_H
#define STRIDE_DIALECTS_PLAN_PLANOPS_H

#include "dialects/stride/IR/StrideOps.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/plan/IR/PlanDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/plan/IR/PlanTypes.h.inc"

#define GET_OP_CLASSES
#include "dialects/plan/IR/PlanOps.h.inc"

#include <optional>

namespace stride::plan {

/// Bytes of a tensor's storage (its layout's extent times its element's
/// bytes), or nullopt when that overflows.
std::optional<int64_t> storageBytesOf(StridedTensorType type);

} // namespace stride::plan

#endif // STRIDE_DIALECTS_PLAN_PLANOPS_H
