//===- Pipeline.cpp - The passes that make the host plan ------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

namespace stride::plan {

void buildHostPlanPipeline(mlir::OpPassManager &pm,
                           const OutlineExecutableOptions &outline) {
  pm.addPass(createOutlineExecutable(outline));
  pm.addPass(createPlaceConstants());
  pm.addPass(createShareIndexAnalysis());
  pm.addNestedPass<mlir::func::FuncOp>(createReuseBuffers());
}

} // namespace stride::plan
