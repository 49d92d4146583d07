//===- Pipeline.cpp - The passes that make the host plan ------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

namespace stride::plan {

void buildHostPlanPipeline(
    mlir::OpPassManager &pm, const OutlineExecutableOptions &outline,
    bool overlapCollectives,
    std::optional<GroupLaunchesOptions> groupLaunches,
    bool triggerSmallSuccessors, int64_t l2ResidentBytes) {
  pm.addPass(createOutlineExecutable(outline));
  pm.addPass(createPlaceConstants());
  pm.addPass(createShareIndexAnalysis());
  if (groupLaunches)
    pm.addPass(createGroupLaunches(*groupLaunches));
  if (triggerSmallSuccessors)
    pm.addPass(createTriggerSmallSuccessors());
  if (l2ResidentBytes > 0)
    pm.addPass(createKeepWeightsInL2(KeepWeightsInL2Options{l2ResidentBytes}));
  ReuseBuffersOptions reuse;
  reuse.collectiveLifetimes = overlapCollectives;
  pm.addNestedPass<mlir::func::FuncOp>(createReuseBuffers(reuse));
  if (overlapCollectives)
    pm.addNestedPass<mlir::func::FuncOp>(createOverlapCollectives());
}

} // namespace stride::plan
