//===- EmitterContractTest.cpp - emitCuda checks the kernel contract ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// emitCuda is a library entry of its own: a function that did not come
// through the pipeline (and its stride-verify-kernels) still has every kernel
// checked against the kernel contract, with the contract's located error.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/Emitter.h"
#include "stride/Target/CUDA/Schedule.h"
#include "dialects/plan/Transforms/Passes.h"

#include "dialects/stride/IR/StrideDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace stride;

namespace {

/// Emits the graph `text` after outlining its kernels into the executable;
/// with `schedule`, after stride-schedule-kernels too (emitCuda itself
/// checks the contract first, schedule or not).
FailureOr<CudaSource> emit(MLIRContext &context, const char *text,
                           std::string &diagnostics, bool schedule) {
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": " << diag << "\n";
    for (Diagnostic &note : diag.getNotes())
      os << note.getLocation() << ": note: " << note << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context));
  if (!module)
    return failure();
  PassManager pm(&context);
  if (schedule)
    pm.addNestedPass<func::FuncOp>(createScheduleKernels());
  pm.addPass(plan::createOutlineExecutable());
  if (failed(pm.run(*module)))
    return failure();
  return emitCuda(*module, CudaTargetOptions());
}

TEST(EmitterContract, KernelBreakingTheContractIsRefusedAtTheOp) {
  MLIRContext context;
  context.loadDialect<StrideDialect, func::FuncDialect>();
  std::string diagnostics;
  FailureOr<CudaSource> source = emit(context, R"mlir(
func.func @f(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<f32> {
  %r = stride.kernel "two_stage" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<f32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    %m = stride.max %s dims [0] : !stride.tensor<4xf32> -> !stride.tensor<f32>
    stride.yield %m : !stride.tensor<f32>
  }
  return %r : !stride.tensor<f32>
}
)mlir", diagnostics, /*schedule=*/false);
  EXPECT_TRUE(failed(source));
  EXPECT_NE(diagnostics.find("loc(\"-\":6:10): 'stride.max' op breaks the "
                             "contract of kernel \"two_stage\": reduces other "
                             "rows than another reduction of its kernel"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("loc(\"-\":5:10): note: the other reduction "
                             "('stride.sum') is here"),
            std::string::npos)
      << diagnostics;
}

TEST(EmitterContract, KernelKeepingTheContractIsEmitted) {
  MLIRContext context;
  context.loadDialect<StrideDialect, func::FuncDialect>();
  std::string diagnostics;
  FailureOr<CudaSource> source = emit(context, R"mlir(
func.func @f(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4xf32> {
  %r = stride.kernel "row_sum" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    stride.yield %s : !stride.tensor<4xf32>
  }
  return %r : !stride.tensor<4xf32>
}
)mlir", diagnostics, /*schedule=*/true);
  ASSERT_TRUE(succeeded(source)) << diagnostics;
  ASSERT_EQ(source->units.size(), 1u);
  EXPECT_NE(source->units[0].source.find("__global__"), std::string::npos);
  EXPECT_NE(source->units[0].source.find("row_sum"), std::string::npos);
  EXPECT_EQ(diagnostics, "");
}

/// A skinny product whose hand-written schedule has 2 of its block's 4
/// warps share a column group: the printer takes 1 or the whole block
/// (one group a block, so that the block's barrier is reached by all).
TEST(EmitterContract, SkinnyColumnWarpsOtherThanTheBlockAreRefused) {
  MLIRContext context;
  context.loadDialect<StrideDialect, func::FuncDialect>();
  std::string diagnostics;
  FailureOr<CudaSource> source = emit(context, R"mlir(
func.func @f(%x: !stride.tensor<1x512xbf16>, %t: !stride.tensor<512x8xbf16, strides = [1, 512], offset = 0>) -> !stride.tensor<1x8xbf16> {
  %r = stride.kernel "matmul_0" ins(%x, %t : !stride.tensor<1x512xbf16>, !stride.tensor<512x8xbf16, strides = [1, 512], offset = 0>) attributes {stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 4, block = 128>], column_warps = 2>} -> (!stride.tensor<1x8xbf16>) {
  ^bb0(%a: !stride.tensor<1x512xbf16>, %b: !stride.tensor<512x8xbf16, strides = [1, 512], offset = 0>):
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x512xbf16>, !stride.tensor<512x8xbf16, strides = [1, 512], offset = 0> -> !stride.tensor<1x8xbf16>
    stride.yield %p : !stride.tensor<1x8xbf16>
  }
  return %r : !stride.tensor<1x8xbf16>
}
)mlir",
                                      diagnostics, /*schedule=*/false);
  EXPECT_TRUE(failed(source));
  EXPECT_NE(diagnostics.find("loc(\"-\":5:10): "), std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("the skinny product's schedule has column_warps "
                             "= 2: expected 1, or the block's 4 warps without "
                             "a prologue"),
            std::string::npos)
      << diagnostics;
}

} // namespace
