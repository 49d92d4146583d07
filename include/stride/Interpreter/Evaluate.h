//===- Evaluate.h - Values known at compile time ----------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A value computed from constants only is computed here, with the reference
// interpreter, at compile time: the attention masks that FoldMasks.h folds
// and the ops that stride-fold-constants replaces by stride.constant. The
// values are the interpreter's: each op computed in float64 and rounded once
// to its result type (python-free-docs/interpreter.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_INTERPRETER_EVALUATE_H
#define STRIDE_INTERPRETER_EVALUATE_H

#include "stride/Support/Npy.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace stride {

/// The values of `value` (dense, row-major) computed by the interpreter, if
/// no op it is computed from reads a function argument or holds a region,
/// and the interpreter computes them without an error (an index out of
/// range, an integer division by zero: left for run time to report).
std::optional<HostArray> evaluateWithoutInputs(mlir::Value value);

/// `values` as a builtin dense elements attribute of element type
/// `elementType` (which must be `values.dtype`'s): a splat where every
/// element is equal.
mlir::DenseElementsAttr elementsOf(const HostArray &values,
                                   mlir::Type elementType);

} // namespace stride

#endif // STRIDE_INTERPRETER_EVALUATE_H
