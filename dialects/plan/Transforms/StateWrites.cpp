//===- StateWrites.cpp - Writes into states and mutated inputs ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "StateWrites.h"

#include "dialects/stride/IR/Graph.h"

using namespace mlir;

namespace stride::plan {

SmallVector<ArgumentWrite> argumentWrites(func::FuncOp entry) {
  SmallVector<ArgumentWrite> writes;
  for (unsigned r = 0, e = entry.getNumResults(); r < e; ++r) {
    auto name =
        entry.getResultAttrOfType<StringAttr>(r, StrideDialect::kWritesAttrName);
    if (!name)
      continue;
    for (unsigned a = 0, n = entry.getNumArguments(); a < n; ++a)
      if (argumentName(entry, a) == name.getValue())
        writes.push_back({r, a});
  }
  return writes;
}

namespace {

/// The root of `value` through views.
Value viewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewOpInterface>())
    value = view.getSource();
  return value;
}

/// The index scatter that yields result `result` of `kernel` from body
/// argument `input` (read by nothing else), with the result's type; null
/// otherwise.
BlockArgument scatteredInput(KernelOp kernel, unsigned result) {
  auto schedule = kernel->getAttrOfType<KernelScheduleAttr>(
      KernelScheduleAttr::kAttrName);
  if (!schedule || schedule.getScheme() != KernelScheme::Scatter)
    return {};
  Operation *yield = kernel.getBody().front().getTerminator();
  auto scatter =
      yield->getOperand(result).getDefiningOp<IndexScatterOpInterface>();
  if (!scatter)
    return {};
  auto input = dyn_cast<BlockArgument>(
      cast<IndexedOpInterface>(scatter.getOperation()).getInput());
  if (!input || !input.hasOneUse() ||
      input.getType() != kernel->getResult(result).getType())
    return {};
  return input;
}

/// Whether `kernel` can write its result `result` in place into `argument`:
/// the kernel reads the argument only as the input of the index scatter
/// that yields the result (phase 1 then writes the new positions into the
/// argument's storage), or not at all (it writes every element of the
/// result, computed from other values: a decoder's `cumulative_length`
/// state advanced from the step's `cache_position`); and nothing after the
/// kernel reads the argument's old value.
/// `scatter` says which of the two.
bool writesInPlace(KernelOp kernel, unsigned result, BlockArgument argument,
                   bool &scatter) {
  BlockArgument input = scatteredInput(kernel, result);
  std::optional<unsigned> scatteredOperand;
  if (input && kernel->getOperand(input.getArgNumber()) == argument)
    scatteredOperand = input.getArgNumber();
  scatter = scatteredOperand.has_value();
  for (OpOperand &operand : kernel->getOpOperands())
    if (operand.getOperandNumber() != scatteredOperand &&
        viewRoot(operand.get()) == argument)
      return false;
  bool laterRead = false;
  forEachSink(argument, [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (user != kernel && !isa<func::ReturnOp>(user) &&
        !user->isBeforeInBlock(kernel))
      laterRead = true;
  });
  return !laterRead;
}

} // namespace

SmallVector<InPlaceWrite> inPlaceWrites(func::FuncOp entry) {
  SmallVector<InPlaceWrite> found;
  Operation *ret = entry.getBody().front().getTerminator();
  for (ArgumentWrite write : argumentWrites(entry)) {
    Value value = ret->getOperand(write.result);
    auto kernel = value.getDefiningOp<KernelOp>();
    BlockArgument argument = entry.getArgument(write.argument);
    if (!kernel || value.getType() != argument.getType())
      continue;
    unsigned result = cast<OpResult>(value).getResultNumber();
    // A result written back to several arguments is written in place into
    // the first; the others get a copy of it.
    bool claimed = llvm::any_of(found, [&](const InPlaceWrite &earlier) {
      return earlier.kernel == kernel && earlier.result == result;
    });
    bool scatter = false;
    if (!claimed && writesInPlace(kernel, result, argument, scatter))
      found.push_back({kernel, result, write.argument, scatter});
  }
  // Phase 0 copies the inputs of all of a kernel's sibling scatters: its
  // results are written in place all together, or none of them.
  llvm::DenseMap<Operation *, unsigned> scatterWrites;
  for (const InPlaceWrite &write : found)
    scatterWrites[write.kernel] += write.scatter;
  llvm::erase_if(found, [&](const InPlaceWrite &write) {
    return write.scatter &&
           scatterWrites[write.kernel] != write.kernel->getNumResults();
  });
  return found;
}

KernelScheduleAttr rebuildSchedule(KernelScheduleAttr schedule,
                                   ArrayRef<Attribute> launches,
                                   IndexAnalysis analysis) {
  return KernelScheduleAttr::get(
      schedule.getContext(), schedule.getScheme(), schedule.getIndexBits(),
      schedule.getVectorWidth(), schedule.getThreads(), schedule.getSlices(),
      schedule.getElementsPerThread(), schedule.getClusterBlocks(),
      schedule.getMinBlocks(), schedule.getTile(), schedule.getTransposeDim(),
      schedule.getStaged(), ArrayAttr::get(schedule.getContext(), launches),
      schedule.getScratch(), schedule.getDeterministic(),
      schedule.getColumnCombine(), schedule.getBucket(), schedule.getPages(),
      schedule.getHashEntries(), analysis, schedule.getOutputOrder(),
      schedule.getColumnWarps());
}

void dropInputCopy(KernelOp kernel) {
  auto schedule = kernel->getAttrOfType<KernelScheduleAttr>(
      KernelScheduleAttr::kAttrName);
  SmallVector<Attribute> launches;
  for (LaunchAttr launch : schedule.getLaunches().getAsRange<LaunchAttr>())
    if (launch.getPhase() != 0)
      launches.push_back(launch);
  kernel->setAttr(KernelScheduleAttr::kAttrName,
                  rebuildSchedule(schedule, launches,
                                  schedule.getIndexAnalysis()));
}

} // namespace stride::plan
