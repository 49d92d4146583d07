//===- AttentionGradientTest.cpp - Backward vs finite differences ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The reference interpreter's stride.attention_backward against central
// finite differences of its stride.attention, in f64 on random small
// inputs: for the loss L = sum(G * attention(q, k, v)), the backward with
// grad_output G must give dL/dq, dL/dk and dL/dv element by element. Cases:
// grouped-query heads, causal with Sq < Skv and Sq > Skv, an additive mask
// with a -inf, a boolean mask with a row that sees no key (whose result is
// 0 and whose gradient is 0). The masks are [Sq, Skv] broadcast with
// stride.expand.
//
//===----------------------------------------------------------------------===//

#include "stride/Interpreter/Interpreter.h"
#include "dialects/stride/IR/StrideDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

using namespace mlir;
using stride::DType;
using stride::HostArray;

namespace {

enum class Mask { None, Additive, Boolean };

struct GradientCase {
  const char *name;
  int64_t batch, heads, kvHeads, queries, keys, headDim, valueDim;
  bool causal;
  Mask mask;
};

const GradientCase kCases[] = {
    {"GroupedQuery", 2, 4, 2, 3, 5, 4, 3, false, Mask::None},
    {"CausalMoreKeys", 1, 2, 1, 4, 6, 3, 2, true, Mask::None},
    {"CausalMoreQueries", 1, 2, 2, 5, 3, 2, 3, true, Mask::None},
    {"AdditiveMask", 1, 2, 2, 3, 4, 3, 2, false, Mask::Additive},
    {"BooleanMaskEmptyRow", 1, 4, 2, 3, 4, 2, 2, true, Mask::Boolean},
};

constexpr double kScale = 0.7;

std::string tensor(std::initializer_list<int64_t> shape,
                   const std::string &element = "f64") {
  std::string s = "!stride.tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + element + ">";
}

/// @forward(q, k, v[, mask]) -> (result, logsumexp) and
/// @backward(grad_output, q, k, v, result, logsumexp[, mask]) -> grads; a
/// mask argument is [Sq, Skv], expanded over batch and heads.
std::string graph(const GradientCase &c) {
  std::string q = tensor({c.batch, c.heads, c.queries, c.headDim});
  std::string k = tensor({c.batch, c.kvHeads, c.keys, c.headDim});
  std::string v = tensor({c.batch, c.kvHeads, c.keys, c.valueDim});
  std::string o = tensor({c.batch, c.heads, c.queries, c.valueDim});
  std::string lse = tensor({c.batch, c.heads, c.queries}, "f32");
  std::string maskElement = c.mask == Mask::Boolean ? "i1" : "f64";
  std::string maskArg, maskUse, maskType, expand;
  if (c.mask != Mask::None) {
    std::string small = tensor({c.queries, c.keys}, maskElement);
    maskType = "!stride.tensor<" + std::to_string(c.batch) + "x" +
               std::to_string(c.heads) + "x" + std::to_string(c.queries) +
               "x" + std::to_string(c.keys) + "x" + maskElement +
               ", strides = [0, 0, " + std::to_string(c.keys) +
               ", 1], offset = 0>";
    maskArg = ", %m: " + small;
    expand = "%me = stride.expand %m : " + small + " -> " + maskType + "\n";
    maskUse = " mask %me";
    maskType = ", " + maskType;
  }
  std::string attrs = " scale " + std::to_string(kScale) +
                      (c.causal ? " causal" : "");
  return "func.func @forward(%q: " + q + ", %k: " + k + ", %v: " + v +
         maskArg + ") -> (" + o + ", " + lse + ") {\n" + expand +
         "%o, %lse = stride.attention %q, %k, %v" + maskUse + attrs + " : " +
         q + ", " + k + ", " + v + maskType + " -> " + o + ", " + lse +
         "\nreturn %o, %lse : " + o + ", " + lse + "\n}\n" +
         "func.func @backward(%do: " + o + ", %q: " + q + ", %k: " + k +
         ", %v: " + v + ", %o: " + o + ", %lse: " + lse + maskArg + ") -> (" +
         q + ", " + k + ", " + v + ") {\n" + expand +
         "%dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, "
         "%lse" +
         maskUse + attrs + " : " + o + ", " + q + ", " + k + ", " + v + ", " +
         o + ", " + lse + maskType + " -> " + q + ", " + k + ", " + v +
         "\nreturn %dq, %dk, %dv : " + q + ", " + k + ", " + v + "\n}\n";
}

HostArray array(DType dtype, std::vector<int64_t> shape) {
  HostArray a{dtype, std::move(shape), {}};
  a.data.assign(a.numElements() * stride::dtypeSize(dtype), 0);
  return a;
}

double get(const HostArray &a, int64_t i) {
  return stride::hostArrayElement(a, i);
}

void set(HostArray &a, int64_t i, double x) {
  std::memcpy(a.data.data() + i * sizeof(double), &x, sizeof(double));
}

HostArray random(std::vector<int64_t> shape, std::mt19937_64 &rng) {
  HostArray a = array(DType::F64, std::move(shape));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t i = 0; i < a.numElements(); ++i)
    set(a, i, uniform(rng));
  return a;
}

/// The [Sq, Skv] mask: additive with one -inf, or boolean with row 0 seeing
/// no key (and random elsewhere, at least one key per other row).
HostArray mask(const GradientCase &c, std::mt19937_64 &rng) {
  if (c.mask == Mask::Additive) {
    HostArray m = random({c.queries, c.keys}, rng);
    set(m, 1, -std::numeric_limits<double>::infinity());
    return m;
  }
  HostArray m = array(DType::I1, {c.queries, c.keys});
  for (int64_t i = 1; i < c.queries; ++i)
    for (int64_t j = 0; j < c.keys; ++j)
      m.data[i * c.keys + j] = j == 0 || rng() % 2;
  return m;
}

class AttentionGradientTest : public testing::TestWithParam<GradientCase> {
protected:
  void SetUp() override {
    context.getOrLoadDialect<stride::StrideDialect>();
    context.getOrLoadDialect<func::FuncDialect>();
    module = parseSourceString<ModuleOp>(graph(GetParam()), &context);
    ASSERT_TRUE(module) << graph(GetParam());
    forward = module->lookupSymbol<func::FuncOp>("forward");
    backward = module->lookupSymbol<func::FuncOp>("backward");
  }

  /// forward's results on `inputs`.
  std::vector<HostArray> run(func::FuncOp f,
                             const std::vector<HostArray> &inputs) {
    auto results = stride::interpret(f, inputs);
    EXPECT_TRUE(results) << results.error().message;
    return results ? *results : std::vector<HostArray>{};
  }

  /// sum(G * result) of the forward on `inputs`.
  double loss(const std::vector<HostArray> &inputs, const HostArray &g) {
    HostArray o = run(forward, inputs)[0];
    double sum = 0.0;
    for (int64_t i = 0; i < o.numElements(); ++i)
      sum += get(g, i) * get(o, i);
    return sum;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp forward, backward;
};

TEST_P(AttentionGradientTest, BackwardIsTheForwardsGradient) {
  const GradientCase &c = GetParam();
  std::mt19937_64 rng(2024);
  std::vector<HostArray> inputs = {
      random({c.batch, c.heads, c.queries, c.headDim}, rng),
      random({c.batch, c.kvHeads, c.keys, c.headDim}, rng),
      random({c.batch, c.kvHeads, c.keys, c.valueDim}, rng)};
  if (c.mask != Mask::None)
    inputs.push_back(mask(c, rng));
  HostArray g = random({c.batch, c.heads, c.queries, c.valueDim}, rng);

  std::vector<HostArray> forwardResults = run(forward, inputs);
  ASSERT_EQ(forwardResults.size(), 2u);
  std::vector<HostArray> backwardInputs = {g, inputs[0], inputs[1], inputs[2],
                                           forwardResults[0],
                                           forwardResults[1]};
  if (c.mask != Mask::None)
    backwardInputs.push_back(inputs[3]);
  std::vector<HostArray> grads = run(backward, backwardInputs);
  ASSERT_EQ(grads.size(), 3u);

  // The logsumexp is f32, so the backward's P is exp(S - L) within about
  // |L| * 2^-24 relative; the differences themselves are good to ~1e-10.
  const double h = 1e-5, tolerance = 2e-6;
  const char *names[] = {"grad_query", "grad_key", "grad_value"};
  for (int t = 0; t < 3; ++t)
    for (int64_t e = 0; e < inputs[t].numElements(); ++e) {
      double x = get(inputs[t], e);
      set(inputs[t], e, x + h);
      double up = loss(inputs, g);
      set(inputs[t], e, x - h);
      double down = loss(inputs, g);
      set(inputs[t], e, x);
      double numeric = (up - down) / (2 * h);
      double analytic = get(grads[t], e);
      EXPECT_NEAR(analytic, numeric, tolerance * (1 + std::fabs(numeric)))
          << names[t] << " element " << e;
    }

  if (c.mask == Mask::Boolean) {
    // Row 0 sees no key: its result is 0, its logsumexp -inf, and its
    // query gets no gradient.
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t hd = 0; hd < c.heads; ++hd) {
        int64_t row = (b * c.heads + hd) * c.queries;
        EXPECT_EQ(get(forwardResults[1], row),
                  -std::numeric_limits<double>::infinity());
        for (int64_t d = 0; d < c.valueDim; ++d)
          EXPECT_EQ(get(forwardResults[0], row * c.valueDim + d), 0.0);
        for (int64_t d = 0; d < c.headDim; ++d)
          EXPECT_EQ(get(grads[0], row * c.headDim + d), 0.0);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AttentionGradientTest, testing::ValuesIn(kCases),
    [](const testing::TestParamInfo<GradientCase> &info) {
      return std::string(info.param.name);
    });

} // namespace
