//===- FuzzContext.h - The MLIRContext of a libFuzzer target ----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One context per fuzzer process, made on the first input: `Dialects`
// loaded, no threads (libFuzzer runs one input at a time), and diagnostics
// swallowed, since a diagnostic is the expected outcome for most inputs.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_FUZZ_FUZZCONTEXT_H
#define STRIDE_TEST_FUZZ_FUZZCONTEXT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

template <typename... Dialects> mlir::MLIRContext &fuzzContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registry.insert<Dialects...>();
    auto *ctx = new mlir::MLIRContext(registry,
                                      mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
    return ctx;
  }();
  return *context;
}

#endif // STRIDE_TEST_FUZZ_FUZZCONTEXT_H
