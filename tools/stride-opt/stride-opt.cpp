//===- stride-opt.cpp - The stride dialect and passes, for tests ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt for Stride: registers the dialects and passes and hands over to
// MlirOptMain, after the nesting check every Stride tool makes before parsing
// a graph file (stride/Import/GraphParser.h; standard input is not checked).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "stride/Import/GraphParser.h"
#include "dialects/plan/Transforms/Passes.h"
#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/Transforms/Passes.h"
#include "stride/Target/CUDA/Schedule.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<stride::StrideDialect, stride::plan::PlanDialect,
                  mlir::func::FuncDialect>();
  stride::registerStridePasses();
  stride::registerStridePipeline();
  stride::registerStrideCUDAPasses();
  stride::plan::registerPlanPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "Stride optimizer driver: the stride dialect and every Stride pass, for "
      "tests\n",
      registry);
  if (inputFilename != "-") {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> file =
        mlir::openInputFile(inputFilename, &error);
    if (!file) {
      llvm::errs() << error << "\n";
      return 1;
    }
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    if (mlir::failed(stride::checkGraphNesting(sourceMgr, &context)))
      return 1;
  }
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, inputFilename, outputFilename, registry));
}
