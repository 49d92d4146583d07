//===- SeedGradientTest.cpp - The seed graph, checked on the interpreter --===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Stride's founding bug (pytorch issue 180164): the gradient of
//   y = slice_scatter(x, src, dim=1, start=a, end=b).sum(dim=1)
// with respect to x is g broadcast over dim 1 with rows [a, b) zeroed. The
// graph of examples/seed_backward.mlir is generated for five shapes in f64,
// run on the reference interpreter with random g, and every element is
// compared exactly with that formula. The forward graph is checked against a
// direct loop.
//
//===----------------------------------------------------------------------===//

#include "stride/Interpreter/Interpreter.h"
#include "dialects/stride/IR/StrideDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

using namespace mlir;

namespace {

struct SeedCase {
  int64_t B, N, H, start, end;
};

const SeedCase kCases[] = {
    {4, 13, 33, 0, 6}, {2, 8, 16, 0, 4}, {1, 6, 100, 0, 3},
    {3, 20, 7, 5, 12}, {7, 63, 33, 0, 31},
};

std::string dims(std::initializer_list<int64_t> d) {
  std::string s;
  for (int64_t v : d)
    s += std::to_string(v) + "x";
  return s;
}

/// examples/seed_backward.mlir for one shape, in f64.
std::string backwardGraph(const SeedCase &c) {
  std::string g = "!stride.tensor<" + dims({c.B, c.H}) + "f64>";
  std::string u = "!stride.tensor<" + dims({c.B, 1, c.H}) + "f64, strides = [" +
                  std::to_string(c.H) + ", " + std::to_string(c.H) +
                  ", 1], offset = 0>";
  std::string e = "!stride.tensor<" + dims({c.B, c.N, c.H}) +
                  "f64, strides = [" + std::to_string(c.H) + ", 0, 1], offset = 0>";
  std::string z = "!stride.tensor<" + dims({c.B, c.end - c.start, c.H}) + "f64>";
  std::string r = "!stride.tensor<" + dims({c.B, c.N, c.H}) + "f64>";
  return "func.func @seed_backward(%g: " + g + ") -> " + r + " {\n" +
         "  %u = stride.unsqueeze %g dim 1 : " + g + " -> " + u + "\n" +
         "  %e = stride.expand %u : " + u + " -> " + e + "\n" +
         "  %zeros = stride.full 0.0 : " + z + "\n" +
         "  %grad = stride.slice_scatter %e, %zeros dim 1 start " +
         std::to_string(c.start) + " end " + std::to_string(c.end) +
         " step 1 : " + e + ", " + z + " -> " + r + "\n" +
         "  return %grad : " + r + "\n}\n";
}

/// examples/seed_forward.mlir for one shape, in f64.
std::string forwardGraph(const SeedCase &c) {
  std::string x = "!stride.tensor<" + dims({c.B, c.N, c.H}) + "f64>";
  std::string s = "!stride.tensor<" + dims({c.B, c.end - c.start, c.H}) + "f64>";
  std::string y = "!stride.tensor<" + dims({c.B, c.H}) + "f64>";
  return "func.func @seed_forward(%x: " + x + ", %src: " + s + ") -> " + y +
         " {\n" + "  %scattered = stride.slice_scatter %x, %src dim 1 start " +
         std::to_string(c.start) + " end " + std::to_string(c.end) +
         " step 1 : " + x + ", " + s + " -> " + x + "\n" +
         "  %sum = stride.sum %scattered dims [1] : " + x + " -> " + y + "\n" +
         "  return %sum : " + y + "\n}\n";
}

stride::HostArray randomF64(std::vector<int64_t> shape, std::mt19937_64 &rng) {
  stride::HostArray a;
  a.dtype = stride::DType::F64;
  a.shape = std::move(shape);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  int64_t n = a.numElements();
  a.data.resize(n * 8);
  for (int64_t i = 0; i < n; ++i) {
    double v = dist(rng);
    std::memcpy(a.data.data() + i * 8, &v, 8);
  }
  return a;
}

double at(const stride::HostArray &a, int64_t i) {
  double v;
  std::memcpy(&v, a.data.data() + i * 8, 8);
  return v;
}

class SeedTest : public ::testing::TestWithParam<SeedCase> {
protected:
  SeedTest() {
    context.getOrLoadDialect<stride::StrideDialect>();
    context.getOrLoadDialect<func::FuncDialect>();
  }
  func::FuncOp parse(const std::string &text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    if (!module)
      return nullptr;
    return *module->getOps<func::FuncOp>().begin();
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_P(SeedTest, BackwardMatchesAnalyticGradient) {
  const SeedCase c = GetParam();
  func::FuncOp f = parse(backwardGraph(c));
  ASSERT_TRUE(f);
  std::mt19937_64 rng(c.B * 1000 + c.N * 10 + c.H);
  stride::HostArray g = randomF64({c.B, c.H}, rng);
  auto results = stride::interpret(f, {g});
  ASSERT_TRUE(results) << results.error().message;
  ASSERT_EQ(results->size(), 1u);
  const stride::HostArray &grad = (*results)[0];
  ASSERT_EQ(grad.shape, (std::vector<int64_t>{c.B, c.N, c.H}));
  int64_t mismatches = 0;
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t h = 0; h < c.H; ++h) {
        double expected = (n >= c.start && n < c.end) ? 0.0 : at(g, b * c.H + h);
        double got = at(grad, (b * c.N + n) * c.H + h);
        if (got != expected && ++mismatches <= 5)
          ADD_FAILURE() << "grad[" << b << ", " << n << ", " << h << "] = " << got
                        << ", expected " << expected;
      }
  EXPECT_EQ(mismatches, 0);
}

TEST_P(SeedTest, ForwardMatchesDirectLoop) {
  const SeedCase c = GetParam();
  func::FuncOp f = parse(forwardGraph(c));
  ASSERT_TRUE(f);
  std::mt19937_64 rng(c.B * 7 + c.N * 3 + c.H);
  int64_t rows = c.end - c.start;
  stride::HostArray x = randomF64({c.B, c.N, c.H}, rng);
  stride::HostArray src = randomF64({c.B, rows, c.H}, rng);
  auto results = stride::interpret(f, {x, src});
  ASSERT_TRUE(results) << results.error().message;
  const stride::HostArray &y = (*results)[0];
  ASSERT_EQ(y.shape, (std::vector<int64_t>{c.B, c.H}));
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.H; ++h) {
      // The interpreter sums in f64 in index order, as this loop does.
      double sum = 0.0;
      for (int64_t n = 0; n < c.N; ++n)
        sum += (n >= c.start && n < c.end)
                   ? at(src, (b * rows + (n - c.start)) * c.H + h)
                   : at(x, (b * c.N + n) * c.H + h);
      ASSERT_EQ(at(y, b * c.H + h), sum) << "y[" << b << ", " << h << "]";
    }
}

TEST(SeedInputs, MismatchedInputNamesTheArgument) {
  MLIRContext context;
  context.getOrLoadDialect<stride::StrideDialect>();
  context.getOrLoadDialect<func::FuncDialect>();
  auto module = parseSourceString<ModuleOp>(backwardGraph(kCases[0]), &context);
  ASSERT_TRUE(module);
  auto f = *module->getOps<func::FuncOp>().begin();
  std::mt19937_64 rng(1);
  auto results = stride::interpret(f, {randomF64({4, 34}, rng)});
  ASSERT_FALSE(results);
  EXPECT_EQ(results.error().message,
            "input 'arg0' expects f64 of shape [4, 33], but was given f64 of "
            "shape [4, 34]");
  auto none = stride::interpret(f, {});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("takes 1 inputs, but 0 were given"),
            std::string::npos);
}

std::string caseName(const ::testing::TestParamInfo<SeedCase> &info) {
  const SeedCase &c = info.param;
  return std::to_string(c.B) + "x" + std::to_string(c.N) + "x" +
         std::to_string(c.H) + "_" + std::to_string(c.start) + "_" +
         std::to_string(c.end);
}

INSTANTIATE_TEST_SUITE_P(FiveShapes, SeedTest, ::testing::ValuesIn(kCases),
                         caseName);

} // namespace
