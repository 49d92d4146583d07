//===- TriggerSmallSuccessors.cpp - Early launches of small grids ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-trigger-small-successors (Passes.td): marks the kernels whose every
// dispatch is followed by a dispatch of a small grid, which they then
// launch as they start.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"

namespace stride::plan {
#define GEN_PASS_DEF_TRIGGERSMALLSUCCESSORS
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

ArrayAttr launchesOf(KernelOp kernel) {
  KernelScheduleAttr schedule = scheduleOf(kernel);
  return schedule ? schedule.getLaunches() : ArrayAttr();
}

/// The step after `op` that is not an allocation, or null.
Operation *nextStep(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!isa<AllocOp>(next))
      return next;
  return nullptr;
}

struct TriggerSmallSuccessorsPass
    : public impl::TriggerSmallSuccessorsBase<TriggerSmallSuccessorsPass> {
  using TriggerSmallSuccessorsBase::TriggerSmallSuccessorsBase;

  /// Whether `step` is the dispatch of a kernel whose launches are all of
  /// at most `maxBlocks` blocks.
  bool isSmallDispatch(Operation *step, SymbolTableCollection &symbols) {
    auto dispatch = dyn_cast_or_null<DispatchOp>(step);
    ArrayAttr launches =
        dispatch ? launchesOf(dispatch.lookupKernel(symbols)) : ArrayAttr();
    return launches && !launches.empty() &&
           llvm::all_of(launches.getAsRange<LaunchAttr>(),
                        [&](LaunchAttr launch) {
                          return !launch.getElements() &&
                                 launch.getGrid() <= maxBlocks;
                        });
  }

  void runOnOperation() override {
    SymbolTableCollection symbols;
    // Per kernel of one launch: whether every dispatch of it so far is
    // followed by a small grid.
    llvm::DenseMap<Operation *, bool> beforeSmall;
    getOperation().walk([&](DispatchOp dispatch) {
      KernelOp kernel = dispatch.lookupKernel(symbols);
      ArrayAttr launches = launchesOf(kernel);
      if (!launches || launches.size() != 1)
        return;
      bool small = isSmallDispatch(nextStep(dispatch), symbols);
      auto [entry, inserted] = beforeSmall.try_emplace(kernel, small);
      if (!inserted)
        entry->second &= small;
    });
    for (auto [kernel, small] : beforeSmall)
      if (small)
        kernel->setAttr(kTriggerDependentsAttrName,
                        UnitAttr::get(kernel->getContext()));
  }
};

} // namespace
} // namespace stride::plan
