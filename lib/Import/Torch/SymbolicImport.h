//===- SymbolicImport.h - An archive's symbolic sizes -----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// torch.export's symbolic sizes (a SymInt `s31` in tensor_values, its range
// in range_constraints) as the dialect's symbols
// (python-free-docs/symbolic-sizes.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_IMPORT_TORCH_SYMBOLICIMPORT_H
#define STRIDE_LIB_IMPORT_TORCH_SYMBOLICIMPORT_H

#include "dialects/stride/IR/StrideDialect.h"
#include "stride/Import/Torch/Schema.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace stride::torch {

/// The function's `stride.symbols`: each symbol of range_constraints with
/// its range; null for a program without symbols. An error at `loc` for a
/// range without a maximum, or one the dialect refuses (min > max, ...).
mlir::FailureOr<mlir::ArrayAttr> symbolsOf(const ExportedProgram &program,
                                           mlir::MLIRContext *context,
                                           mlir::Location loc);

/// The type of value `name` whose metadata names symbols: each expression
/// read (an error for one Stride cannot read, or a symbol that
/// range_constraints does not bound).
mlir::FailureOr<StridedTensorType>
symbolicTypeOf(const std::string &name, const TensorMeta &meta,
               mlir::Type elementType, const ExportedProgram &program,
               mlir::Location loc);

/// Whether a node of `target` is imported when its tensors have symbolic
/// sizes: its builder reads only the file's types (views, unary pointwise
/// ops), never a static size.
bool importsSymbolicSizes(llvm::StringRef target);

} // namespace stride::torch

#endif // STRIDE_LIB_IMPORT_TORCH_SYMBOLICIMPORT_H
