//===- CheckSymbolicSizes.cpp - Refuse symbolic sizes past their stages ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-check-symbolic-sizes (Passes.td): the first pass of the pipeline.
// A graph with symbolic sizes is verified and its layouts can be checked
// (stride-opt --stride-legalize-layouts), but the passes after this one
// assume static shapes, so a function with a symbolic value stops here with
// one located error (python-free-docs/symbolic-sizes.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "dialects/stride/Transforms/Passes.h"

namespace stride {
#define GEN_PASS_DEF_CHECKSYMBOLICSIZES
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// "'batch' (1 to 1024)", with "multiples of 8" where that applies.
std::string describeSymbol(const std::string &name,
                           const SymbolRanges &table) {
  auto it = table.find(name);
  if (it == table.end())
    return "'" + name + "' (undeclared)";
  const SizeSymbol &symbol = it->second;
  std::string text = "'" + name + "' (" + std::to_string(symbol.min) +
                     " to " + std::to_string(symbol.max);
  if (symbol.multipleOf != 1)
    text += ", multiples of " + std::to_string(symbol.multipleOf);
  return text + ")";
}

/// The value's name for the message: an argument's graph name, or the op
/// that computes it.
std::string describeValue(func::FuncOp func, Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return "value '" + argumentName(func, argument.getArgNumber()) + "'";
  OpResult result = cast<OpResult>(value);
  return "result #" + std::to_string(result.getResultNumber()) + " of '" +
         result.getOwner()->getName().getStringRef().str() + "'";
}

struct CheckSymbolicSizesPass
    : public stride::impl::CheckSymbolicSizesBase<CheckSymbolicSizesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::optional<SymbolicValue> found = firstSymbolicValue(func);
    if (!found)
      return;
    Location loc = found->value.getLoc();
    emitError(loc) << describeValue(func, found->value)
                   << " has the symbolic size "
                   << describeSymbol(found->symbol, declaredSymbols(func))
                   << "; Stride compiles symbolic sizes up to verification "
                      "and layout legalization only: kernels with sizes as "
                      "arguments are not built yet (issue 44)";
    signalPassFailure();
  }
};

} // namespace
