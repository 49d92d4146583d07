//===- FuseDifferentialTest.cpp - Fused vs unfused on the interpreter -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// 1000 random graphs, each run unfused and fused on the reference
// interpreter with the same inputs (and 250 fused with tight cost-model
// bounds, so that kernels are split); the outputs must be bit-identical (a NaN
// equals any NaN). A failure prints the seed, the graph, the fused graph and
// the first differing element. Built only where the interpreter is
// (CMake target StrideInterpreter).
//
//===----------------------------------------------------------------------===//

#include "FusionTestUtil.h"
#include "RandomGraph.h"

#include "stride/Interpreter/Interpreter.h"
#include "stride/Support/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

using namespace mlir;
using namespace stride;
using namespace stride::test;

namespace {

constexpr uint64_t kGraphs = 1000;

template <typename T> void put(HostArray &array, int64_t i, T value) {
  std::memcpy(array.data.data() + i * sizeof(T), &value, sizeof(T));
}

/// Inputs for `graph`, from the seed: floats k/8 in [-2, 2] (exact in every
/// float type), indices uniform in [0, bound).
std::vector<HostArray> makeInputs(const RandomGraph &graph) {
  SplitMix64 rng(graph.seed ^ 0x5eedf00dULL);
  std::vector<HostArray> inputs;
  for (const GraphInput &input : graph.inputs) {
    HostArray array;
    array.dtype = input.dtype;
    array.shape = input.shape;
    int64_t n = array.numElements();
    array.data.resize(n * dtypeSize(input.dtype));
    for (int64_t i = 0; i < n; ++i) {
      if (input.indexBound > 0)
        put<int64_t>(array, i, rng.below(input.indexBound));
      else
        put<float>(array, i, static_cast<float>(rng.range(-16, 16)) / 8.0f);
    }
    inputs.push_back(std::move(array));
  }
  return inputs;
}

template <typename T> bool isNan(const HostArray &a, int64_t i) {
  T value;
  std::memcpy(&value, a.data.data() + i * sizeof(T), sizeof(T));
  return std::isnan(value);
}

template <typename T> std::string element(const HostArray &a, int64_t i) {
  T value;
  std::memcpy(&value, a.data.data() + i * sizeof(T), sizeof(T));
  std::ostringstream os;
  os.precision(9);
  os << +value;
  return os.str();
}

std::string describeElement(const HostArray &a, int64_t i) {
  switch (a.dtype) {
  case DType::F32: return element<float>(a, i);
  case DType::F64: return element<double>(a, i);
  case DType::I64: return element<int64_t>(a, i);
  case DType::I32: return element<int32_t>(a, i);
  case DType::I8: return element<int8_t>(a, i);
  case DType::I1: return element<uint8_t>(a, i);
  default: return "?";
  }
}

/// "" when `a` and `b` are bit-identical (NaN == NaN), else what differs.
std::string compare(const HostArray &a, const HostArray &b) {
  if (a.dtype != b.dtype || a.shape != b.shape)
    return "dtype or shape differs";
  size_t size = dtypeSize(a.dtype);
  for (int64_t i = 0, n = a.numElements(); i < n; ++i) {
    if (std::memcmp(a.data.data() + i * size, b.data.data() + i * size,
                    size) == 0)
      continue;
    if (a.dtype == DType::F32 && isNan<float>(a, i) && isNan<float>(b, i))
      continue;
    if (a.dtype == DType::F64 && isNan<double>(a, i) && isNan<double>(b, i))
      continue;
    return "element " + std::to_string(i) + ": unfused " +
           describeElement(a, i) + ", fused " + describeElement(b, i);
  }
  return "";
}

/// Fuses the first `graphs` random graphs (of `graphOptions`) with `options`
/// and checks each against the unfused graph on the interpreter.
void checkFusedEqualsUnfused(uint64_t graphs, const FuseOptions &options,
                             const RandomGraphOptions &graphOptions = {}) {
  FusionHarness harness;
  for (uint64_t seed = 0; seed < graphs; ++seed) {
    RandomGraph graph = generateRandomGraph(seed, graphOptions);
    OwningOpRef<ModuleOp> unfused = harness.parse(graph.text);
    ASSERT_TRUE(unfused) << "seed " << seed << ":\n"
                         << harness.diagnostics() << graph.text;
    OwningOpRef<ModuleOp> fused = harness.parse(graph.text);
    ASSERT_TRUE(succeeded(harness.fuse(*fused, options)))
        << "seed " << seed << ": fusion failed:\n"
        << harness.diagnostics() << graph.text;

    std::vector<HostArray> inputs = makeInputs(graph);
    auto expected =
        interpret(*unfused->getOps<func::FuncOp>().begin(), inputs);
    ASSERT_TRUE(expected) << "seed " << seed
                          << ": the unfused graph fails on the interpreter: "
                          << expected.error().message << "\n"
                          << graph.text;
    auto actual = interpret(*fused->getOps<func::FuncOp>().begin(), inputs);
    ASSERT_TRUE(actual) << "seed " << seed
                        << ": the fused graph fails on the interpreter: "
                        << actual.error().message << "\n"
                        << graph.text << "\nfused:\n"
                        << printOp(*fused);
    ASSERT_EQ(expected->size(), actual->size()) << "seed " << seed;
    for (size_t r = 0; r < expected->size(); ++r) {
      std::string difference = compare((*expected)[r], (*actual)[r]);
      ASSERT_TRUE(difference.empty())
          << "seed " << seed << ": result #" << r << " differs, "
          << difference << "\n"
          << graph.text << "\nfused:\n"
          << printOp(*fused);
    }
  }
}

TEST(FuseDifferential, FusedEqualsUnfusedOnTheInterpreter) {
  checkFusedEqualsUnfused(kGraphs, FuseOptions());
}

// Tight bounds split most kernels (every cut is a value materialized between
// two kernels): the split graphs compute the same.
TEST(FuseDifferential, BoundedFusionEqualsUnfused) {
  FuseOptions options;
  options.maxKernelOps = 2;
  options.maxKernelRegisters = 40;
  checkFusedEqualsUnfused(kGraphs / 4, options);
}

// Matrix products are kernel boundaries: the kernels around them compute
// the same as the unfused graph.
TEST(FuseDifferential, FusionAroundMatmulEqualsUnfused) {
  RandomGraphOptions graphOptions;
  graphOptions.matmulOps = true;
  checkFusedEqualsUnfused(kGraphs / 2, FuseOptions(), graphOptions);
}

} // namespace
