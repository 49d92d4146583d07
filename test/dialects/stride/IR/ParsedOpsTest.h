//===- ParsedOpsTest.h - A fixture that parses stride graphs ----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The fixture of the dialect's C++ API tests: a context with the stride
// dialect and the ops of a parsed function body, in order.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_DIALECT_STRIDE_IR_PARSEDOPSTEST_H
#define STRIDE_TEST_DIALECT_STRIDE_IR_PARSEDOPSTEST_H

#include "dialects/stride/IR/StrideOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stride {

class ParsedOpsTest : public ::testing::Test {
protected:
  ParsedOpsTest() {
    context.loadDialect<StrideDialect, mlir::func::FuncDialect>();
  }

  /// The ops of the body of `func.func @f` in `text`, in order.
  std::vector<mlir::Operation *> parseOps(const std::string &text) {
    module = mlir::parseSourceString<mlir::ModuleOp>(
        text, mlir::ParserConfig(&context));
    EXPECT_TRUE(module) << text;
    std::vector<mlir::Operation *> ops;
    if (!module)
      return ops;
    for (auto func : module->getOps<mlir::func::FuncOp>())
      for (mlir::Operation &op : func.getBody().front().without_terminator())
        ops.push_back(&op);
    return ops;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace stride

#endif // STRIDE_TEST_DIALECT_STRIDE_IR_PARSEDOPSTEST_H
