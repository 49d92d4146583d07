//===- Graph.h - Walking and naming in a stride graph ----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Conventions of a graph module that passes, backends and tools share: which
// function is the graph, how a value's uses are found through views, and
// how kernels get unique names.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_IR_GRAPH_H
#define STRIDE_DIALECTS_STRIDE_IR_GRAPH_H

#include "dialects/stride/IR/StrideOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace stride {

/// The graph's entry: the module's only func.func, or an error (at the
/// module when it has none, at the second one, with a note at the first,
/// when it has several).
mlir::FailureOr<mlir::func::FuncOp> findEntryFunction(mlir::ModuleOp module);

/// The name of input `index` of the graph `func`: its `stride.name`
/// attribute (StrideDialect::kNameAttrName) when present, otherwise "argN".
std::string argumentName(mlir::func::FuncOp func, unsigned index);

/// The name of output `index` of the graph `func`: its `stride.name`
/// attribute when present, otherwise "resultN".
std::string resultName(mlir::func::FuncOp func, unsigned index);

/// Calls `fn` on every use of `value`, looking through views: the uses by
/// non-view ops of `value` or of a view chain built on it.
void forEachSink(mlir::Value value,
                 llvm::function_ref<void(mlir::OpOperand &)> fn);

/// True when `value` is a whole fresh buffer under another shape: a chain
/// of views leads to it from the result of an op that writes fresh buffers
/// (writesFreshBuffers), and both ends are row-major with offset 0 and have
/// as many elements, so the view's element i is the buffer's element i.
/// Returning such a value returns the buffer itself: no copy is needed
/// (stride-legalize-layouts, stride-outline-executable). False for the
/// fresh result itself (no view), a view of part of a buffer or in another
/// order, and anything rooted at a graph input. Over symbolic sizes, both
/// ends row-major and as many elements for every value of the symbols
/// (a language model's logits viewed from [batch*tokens, vocab] to
/// [batch, tokens, vocab]).
bool isReshapeOfFreshBuffer(mlir::Value value);

/// The graph input that `value` returns as it is: the number of the
/// argument of `func` that `value` is, or that a chain of views leads to
/// it from, when the module can hand that argument's storage back to the
/// caller instead of copying it (an aliased output,
/// python-free-docs/module-format.md): the argument is no state (whose
/// storage the next run rewrites) and no result writes it back (the plan
/// would write the storage the output shows). nullopt otherwise.
std::optional<unsigned> returnedInput(mlir::func::FuncOp func,
                                      mlir::Value value);

/// Unique names among one function's kernels: the passes that form kernels
/// name them through one table (seeded with the kernels already there), and
/// the CUDA emitter makes its C identifiers unique through another.
class KernelNameTable {
public:
  KernelNameTable() = default;
  /// Holds the names of the stride.kernel ops already in `func`.
  explicit KernelNameTable(mlir::func::FuncOp func);

  /// `base` when no name in the table is `base`, otherwise the first free
  /// one of `base_1`, `base_2`, ...; the name returned is now in the table.
  /// The search for a base starts where the last one stopped, so a graph of
  /// many like kernels names each in constant time.
  std::string insert(llvm::StringRef base);

private:
  llvm::StringSet<> names;
  /// Per base, the last suffix given.
  llvm::StringMap<unsigned> nextSuffix;
};

/// A variant of `op` (python-free-docs/symbolic-sizes.md, "Variants
/// selected at run time"): a stride.kernel before `op` named after `base`
/// (unique in `names`), guarded `when`, whose inputs are `op`'s operands
/// and whose body is a clone of `op` over arguments of `argumentTypes`
/// with results of `resultTypes` (`op`'s own types where empty), returned
/// in `clone` for the caller to mark.
KernelOp variantKernelOf(mlir::Operation *op, llvm::StringRef base,
                         mlir::ArrayAttr when, KernelNameTable &names,
                         mlir::TypeRange argumentTypes,
                         mlir::TypeRange resultTypes, mlir::Operation *&clone);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_IR_GRAPH_H
