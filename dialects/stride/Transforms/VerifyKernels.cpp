//===- VerifyKernels.cpp - The kernel contract on every kernel ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Checks every stride.kernel against the kernel contract
// (dialects/stride/Analysis/KernelContract.h), whoever formed it: the
// fusion pass, the outline pass, an importer or a person.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/Transforms/Passes.h"

namespace stride {
#define GEN_PASS_DEF_VERIFYKERNELS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

struct VerifyKernelsPass
    : public stride::impl::VerifyKernelsBase<VerifyKernelsPass> {
  void runOnOperation() override {
    bool broken = false;
    // Every kernel is checked, so that one run reports every broken kernel.
    getOperation().walk([&](KernelOp kernel) {
      broken |= failed(verifyKernel(kernel));
    });
    if (broken)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
