//===- Dot.h - Stride graphs as Graphviz DOT --------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `stridec --emit=dot` and `stride-opt --stride-print-dot`: the graph of each
// function as Graphviz DOT, one cluster per stride.kernel, edges labelled
// with the shape (and non-row-major strides) of the value they carry.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_DOT_DOT_H
#define STRIDE_TARGET_DOT_DOT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace stride {

/// Writes `module` as one Graphviz `digraph`: a cluster per function, a
/// nested cluster per `stride.kernel` holding the ops of its body, ellipses
/// for function arguments and results. A read-only function of the IR; fails
/// (with a located error) only on a function body of more than one block.
mlir::LogicalResult emitDot(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace stride

#endif // STRIDE_TARGET_DOT_DOT_H
