//===- GraphTest.cpp - Graph conventions, dtypes, locations, names --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/Graph.h"
#include "stride/Support/Diagnostics.h"
#include "stride/Support/Strings.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace stride;

namespace {

class GraphTest : public ::testing::Test {
protected:
  GraphTest() {
    context.getOrLoadDialect<StrideDialect>();
    context.getOrLoadDialect<func::FuncDialect>();
  }
  ModuleOp parse(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    return module.get();
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(GraphTest, DTypeOfEachElementTypeAndOfTensors) {
  Builder b(&context);
  EXPECT_EQ(dtypeOfElementType(b.getF16Type()), DType::F16);
  EXPECT_EQ(dtypeOfElementType(b.getBF16Type()), DType::BF16);
  EXPECT_EQ(dtypeOfElementType(b.getF32Type()), DType::F32);
  EXPECT_EQ(dtypeOfElementType(b.getF64Type()), DType::F64);
  EXPECT_EQ(dtypeOfElementType(b.getI1Type()), DType::I1);
  EXPECT_EQ(dtypeOfElementType(b.getI8Type()), DType::I8);
  EXPECT_EQ(dtypeOfElementType(b.getI32Type()), DType::I32);
  EXPECT_EQ(dtypeOfElementType(b.getI64Type()), DType::I64);
  // No silent default: a type a stride tensor cannot hold has no dtype.
  EXPECT_EQ(dtypeOfElementType(b.getIntegerType(16)), std::nullopt);
  EXPECT_EQ(dtypeOfElementType(b.getIntegerType(32, /*isSigned=*/true)),
            std::nullopt);
  EXPECT_EQ(dtypeOfElementType(b.getIndexType()), std::nullopt);
  auto tensor = StridedTensorType::getContiguous({2, 3}, b.getBF16Type());
  EXPECT_EQ(tensor.getDType(), DType::BF16);
  EXPECT_EQ(dtypeOf(tensor), DType::BF16);
  EXPECT_EQ(dtypeOf(b.getI8Type()), DType::I8);
  EXPECT_EQ(dtypeOf(RankedTensorType::get({2}, b.getF32Type())), std::nullopt);
}

TEST_F(GraphTest, FormatLocationFindsTheFirstFileLocation) {
  Location file = FileLineColLoc::get(&context, "/some/dir/g.mlir", 7, 17);
  EXPECT_EQ(formatLocation(file), "g.mlir:7:17");
  Location other = FileLineColLoc::get(&context, "h.mlir", 1, 2);
  Location fused = FusedLoc::get(&context, {NameLoc::get(
                                                StringAttr::get(&context, "n"),
                                                file),
                                            other});
  EXPECT_EQ(formatLocation(fused), "g.mlir:7:17");
  ASSERT_TRUE(firstFileLocation(fused).has_value());
  EXPECT_EQ(firstFileLocation(fused)->getFilename().getValue(),
            "/some/dir/g.mlir");
  EXPECT_EQ(formatLocation(UnknownLoc::get(&context)), "unknown location");
  EXPECT_FALSE(firstFileLocation(UnknownLoc::get(&context)).has_value());
}

TEST_F(GraphTest, KernelNamesAreUniqueAmongTheFunctionsKernels) {
  ModuleOp m = parse(R"(
    func.func @f(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
      %k = stride.kernel "exp_kernel" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
      ^bb0(%a: !stride.tensor<4xf32>):
        %e = stride.exp %a : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
        stride.yield %e : !stride.tensor<4xf32>
      }
      return %k : !stride.tensor<4xf32>
    })");
  ASSERT_TRUE(m);
  KernelNameTable names(*findEntryFunction(m));
  EXPECT_EQ(names.insert("add_kernel"), "add_kernel");
  EXPECT_EQ(names.insert("exp_kernel"), "exp_kernel_1");
  EXPECT_EQ(names.insert("exp_kernel"), "exp_kernel_2");
  EXPECT_EQ(names.insert("add_kernel"), "add_kernel_1");
  KernelNameTable empty;
  EXPECT_EQ(empty.insert("exp_kernel"), "exp_kernel");
}

TEST_F(GraphTest, EntryFunctionAndSignatureNames) {
  ModuleOp m = parse(R"(
    func.func @f(%x: !stride.tensor<4xf32> {stride.name = "x"},
                 %y: !stride.tensor<4xf32>)
        -> (!stride.tensor<4xf32>, !stride.tensor<4xf32> {stride.name = "out"}) {
      return %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32>
    })");
  ASSERT_TRUE(m);
  FailureOr<func::FuncOp> f = findEntryFunction(m);
  ASSERT_TRUE(succeeded(f));
  EXPECT_EQ(argumentName(*f, 0), "x");
  EXPECT_EQ(argumentName(*f, 1), "arg1");
  EXPECT_EQ(resultName(*f, 0), "result0");
  EXPECT_EQ(resultName(*f, 1), "out");
}

TEST_F(GraphTest, ForEachSinkLooksThroughViews) {
  ModuleOp m = parse(R"(
    func.func @f(%x: !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>, !stride.tensor<1x4xf32>) {
      %v = stride.unsqueeze %x dim 0 : !stride.tensor<4xf32> -> !stride.tensor<1x4xf32>
      %e = stride.exp %v : !stride.tensor<1x4xf32> -> !stride.tensor<1x4xf32>
      %n = stride.neg %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
      return %n, %e : !stride.tensor<4xf32>, !stride.tensor<1x4xf32>
    })");
  ASSERT_TRUE(m);
  func::FuncOp f = *findEntryFunction(m);
  std::vector<std::string> sinks;
  forEachSink(f.getArgument(0), [&](OpOperand &use) {
    sinks.push_back(use.getOwner()->getName().getStringRef().str());
  });
  std::sort(sinks.begin(), sinks.end());
  EXPECT_EQ(sinks, (std::vector<std::string>{"stride.exp", "stride.neg"}));
}

TEST(StringsTest, QuotedEscapesQuotesBackslashesAndLineBreaks) {
  EXPECT_EQ(quoted("a \"b\" \\ c\nd"), "\"a \\\"b\\\" \\\\ c\\nd\"");
  EXPECT_EQ(escapeQuoted("plain"), "plain");
}

} // namespace
