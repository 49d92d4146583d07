//===- Reduce.h - Reducing a graph that shows a problem ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The library behind stride-reduce (python-free-docs/debugging.md): Stride's reduction
// patterns, offered to MLIR's reducer through the stride dialect's
// DialectReductionPatternInterface, and the search that applies them to
// ever smaller sets of ops, keeping a candidate only while MLIR's Tester
// (an external script, exit status 1: "interesting") says it still shows
// the problem.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_REDUCE_REDUCE_H
#define STRIDE_REDUCE_REDUCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Reducer/Tester.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

namespace stride {

/// Attaches the stride dialect's DialectReductionPatternInterface:
///  - "unfuse": a stride.kernel becomes its ops again;
///  - "cut": an op that is not a view is replaced by fresh graph inputs of
///    its result types, and the values it read (computed by ops) become
///    graph outputs, so what led up to it stays observable.
/// The search also drops outputs and shrinks shapes (ShrinkShapes.h),
/// which are not patterns: they change the function, not one op.
void registerStrideReductionInterface(mlir::DialectRegistry &registry);

/// The size of a graph as the reducer measures it.
struct GraphSize {
  /// Every op in the graph function, kernel bodies included, terminators
  /// not.
  unsigned ops = 0;
  /// Inputs plus outputs.
  unsigned interface = 0;
  /// The elements of every value: the inputs and every op's results (views
  /// and kernel bodies included), so smaller shapes make a smaller graph.
  uint64_t elements = 0;
  /// Fewer ops first, then fewer inputs and outputs, then fewer elements.
  bool operator<(const GraphSize &other) const {
    return std::tie(ops, interface, elements) <
           std::tie(other.ops, other.interface, other.elements);
  }
};

GraphSize measureGraph(mlir::ModuleOp module);

struct ReduceStats {
  GraphSize before, after;
  /// How many candidates the tester ran on.
  unsigned tests = 0;
};

/// Reduces `module` in place while `tester` finds it interesting; an error
/// (on the module) when the original is not interesting. Deterministic:
/// the same module and a deterministic tester give the same result.
mlir::FailureOr<ReduceStats> reduceGraph(mlir::ModuleOp module,
                                         const mlir::Tester &tester,
                                         llvm::raw_ostream *progress);

} // namespace stride

#endif // STRIDE_REDUCE_REDUCE_H
