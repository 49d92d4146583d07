//===- FusionTestUtil.h - Parsing and fusing graphs in unit tests -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_FUSION_FUSIONTESTUTIL_H
#define STRIDE_TEST_FUSION_FUSIONTESTUTIL_H

#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace stride::test {

/// A context with the stride and func dialects that collects diagnostics.
class FusionHarness {
public:
  FusionHarness()
      : handler(&context, [this](mlir::Diagnostic &diag) {
          llvm::raw_string_ostream os(collected);
          os << diag.getLocation() << ": " << diag << "\n";
          for (mlir::Diagnostic &note : diag.getNotes())
            os << "  note: " << note << "\n";
          return mlir::success();
        }) {
    context.loadDialect<StrideDialect, mlir::func::FuncDialect>();
  }

  /// Parses and verifies `text`; null on failure (see diagnostics()).
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text) {
    collected.clear();
    return mlir::parseSourceString<mlir::ModuleOp>(
        text, mlir::ParserConfig(&context));
  }

  /// Legalization, then stride-fuse with `options`.
  mlir::LogicalResult fuse(mlir::ModuleOp module,
                           const FuseOptions &options = {}) {
    mlir::PassManager pm(&context);
    pm.addNestedPass<mlir::func::FuncOp>(createLegalizeLayouts());
    pm.addNestedPass<mlir::func::FuncOp>(createFuse(options));
    return pm.run(module);
  }

  const std::string &diagnostics() const { return collected; }
  mlir::MLIRContext &getContext() { return context; }

private:
  mlir::MLIRContext context;
  std::string collected;
  mlir::ScopedDiagnosticHandler handler;
};

inline std::string printOp(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

} // namespace stride::test

#endif // STRIDE_TEST_FUSION_FUSIONTESTUTIL_H
