//===- stride-opt.cpp - The stride dialect and passes, for tests ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt for Stride: registers the dialects and passes and hands over to
// MlirOptMain. No logic lives here.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "stride/StrideDialect.h"
#include "stride/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<stride::StrideDialect, mlir::func::FuncDialect>();
  stride::registerStridePasses();
  stride::registerStridePipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Stride optimizer driver: the stride dialect and every "
                  "Stride pass, for tests\n",
      registry));
}
