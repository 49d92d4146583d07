//===- InterpreterTest.cpp - What the reference interpreter refuses -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Interpreter/Interpreter.h"
#include "dialects/stride/IR/StrideDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

// An argument whose element type is none of Stride's dtypes is refused by
// name, never read as some default dtype.
TEST(InterpreterTest, ArgumentOfAnUnsupportedTypeIsRefused) {
  MLIRContext context;
  context.getOrLoadDialect<stride::StrideDialect>();
  context.getOrLoadDialect<func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      R"(func.func @f(%x: tensor<4xi16> {stride.name = "x"}) {
           return
         })",
      &context);
  ASSERT_TRUE(module);
  auto f = *module->getOps<func::FuncOp>().begin();
  stride::HostArray in{stride::DType::I32, {4}, std::vector<uint8_t>(16)};
  auto results = stride::interpret(f, {in});
  ASSERT_FALSE(results);
  EXPECT_EQ(results.error().message,
            "input 'x' of @f has the unsupported type tensor<4xi16>");
}

} // namespace
