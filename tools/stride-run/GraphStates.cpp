//===- GraphStates.cpp - stride-run: a graph's states across runs ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The reference mode's --state-in DIR and --state-out DIR, as the module
// mode's (StateFiles.h, python-free-docs/state.md): a graph's state
// arguments (stride.state) read from DIR/<name>.npy instead of their
// initial values, and after the run each state's new value (the result
// that writes it back, or its value unchanged) written as DIR/<name>.npy.
// A graph run with either option treats its written-back results as a
// module does: they are states, not outputs, so --output-dir, --print and
// --expect leave them out. With --simulate-ranks and --tensor-parallel,
// rank r's states are DIR/rank<r>/ (Ranks.cpp).
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "StateFiles.h"

#include "dialects/stride/IR/Graph.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace stride::run {

bool carriesStates(const Options &options) {
  return !options.stateIn.empty() || !options.stateOut.empty();
}

bool isStateOutput(const Options &options, func::FuncOp entry, size_t result) {
  return carriesStates(options) &&
         entry.getResultAttr(result, StrideDialect::kWritesAttrName);
}

Result<std::optional<HostArray>> readStateInput(const Options &options,
                                                func::FuncOp entry,
                                                unsigned argument) {
  if (options.stateIn.empty() ||
      !entry.getArgAttr(argument, StrideDialect::kStateAttrName))
    return std::optional<HostArray>();
  auto type = cast<StridedTensorType>(entry.getArgument(argument).getType());
  std::string name = argumentName(entry, argument);
  llvm::SmallString<256> path(options.stateIn);
  llvm::sys::path::append(path, name + ".npy");
  if (!llvm::sys::fs::exists(path))
    return makeError(ErrorCode::NotFound,
                     path.str().str() + ": no file for state '" + name +
                         "' (--state-in DIR takes the folder that "
                         "--state-out wrote: one file per state)");
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  Result<HostArray> array =
      readInputNpy(path.str().str(), type.getDType(), shape, name);
  if (!array)
    return makeError(array.error().code,
                     "state '" + name + "': " + array.error().message);
  return std::optional<HostArray>(std::move(*array));
}

Status writeStateOutputs(const Options &options, func::FuncOp entry,
                         const std::vector<HostArray> &inputs,
                         const std::vector<HostArray> &results) {
  if (options.stateOut.empty())
    return Status::ok();
  StateValues states;
  for (unsigned a = 0, e = entry.getNumArguments(); a < e; ++a) {
    if (!entry.getArgAttr(a, StrideDialect::kStateAttrName))
      continue;
    std::string name = argumentName(entry, a);
    const HostArray *value = &inputs[a];
    for (unsigned r = 0, n = entry.getNumResults(); r < n; ++r) {
      auto writes = entry.getResultAttrOfType<StringAttr>(
          r, StrideDialect::kWritesAttrName);
      if (writes && writes.getValue() == name)
        value = &results[r];
    }
    states.emplace_back(name, *value);
  }
  return writeStateFiles(states, options.stateOut);
}

} // namespace stride::run
