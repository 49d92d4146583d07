//===- PrintDot.cpp - stride-opt --stride-print-dot -----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A pass wrapper around stride::emitDot, so lit tests and stride-opt users
// can print the DOT of a module at any point of a pipeline.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Dot.h"
#include "dialects/stride/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace stride {
#define GEN_PASS_DEF_PRINTDOT
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;

namespace {

struct PrintDotPass : public stride::impl::PrintDotBase<PrintDotPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(outputFile, &error);
    if (!file) {
      getOperation().emitError() << "cannot write the DOT output: " << error;
      return signalPassFailure();
    }
    if (failed(stride::emitDot(getOperation(), file->os())))
      return signalPassFailure();
    file->os().flush();
    file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
