//===- GraphFuzzer.cpp - libFuzzer target: graph text -> pipeline ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any text must be parsed, verified and compiled, or refused with a
// diagnostic: never a crash, a hang, or an out-of-bounds access.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "stride/StrideDialect.h"
#include "stride/Transforms/Passes.h"

using namespace mlir;

static MLIRContext &fuzzContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registry.insert<stride::StrideDialect, func::FuncDialect>();
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    // Diagnostics are the expected outcome for most inputs: swallow them.
    ctx->getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
    return ctx;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = fuzzContext();
  // MLIR's lexer relies on the null terminator that files read through
  // llvm::MemoryBuffer always have; the fuzzer's bytes have none.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &context, "fuzz.mlir");
  if (!module || failed(verify(*module)))
    return 0;
  for (bool repair : {false, true}) {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm(&context);
    stride::PipelineOptions options;
    options.repairLayouts = repair;
    stride::buildStridePipeline(pm, options);
    (void)pm.run(*copy);
  }
  return 0;
}
