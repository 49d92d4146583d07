//===- FakeCudaSymbolsTest.cpp - A module of symbolic sizes at run time ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime's side of symbolic sizes (python-free-docs/symbolic-sizes.md,
// "At run time") through the fake libcuda: each run binds the symbols from
// the inputs' shapes, refuses a shape outside a range, returns outputs of
// the bound shape, and keeps a captured CUDA graph per shape; a symbol
// bound from an input's value chooses the steps that run, a graph per
// set of steps.
//
//===----------------------------------------------------------------------===//

#include "FakeRuntime.h"
#include "../Module/ModuleTestUtil.h"

#include "stride/Runtime/Invocation.h"

#include <cstring>

using namespace stride;
using namespace stride::test;

namespace {

/// y = f(x) over x: f32 [n], n in [1, 64]; one kernel over n elements, n
/// its last argument.
ModuleDesc symbolicModule() {
  ModuleDesc d = moduleWithKernels(CodeKind::Cubin, {{"neg", "y = -x"}});
  d.symbols = {{"n", 1, 64, 1}};
  SymbolicLayout layout{{SizeExpr::symbol("n")},
                        {SizeExpr::constant(1)},
                        SizeExpr::constant(0)};
  d.signature.entryName = "neg";
  d.signature.inputs = {{"x", DType::F32, {64}, {1}, 0}};
  d.signature.outputs = {{"y", DType::F32, {64}, {1}, 0}};
  d.signature.inputs[0].symbolic = layout;
  d.signature.outputs[0].symbolic = layout;
  d.buffers = {{BufferKind::Input, 0, 256}, {BufferKind::Output, 0, 256}};
  DispatchStep l;
  l.grid = {2, 1, 1};
  l.block = {32, 1, 1};
  l.gridElements = SizeExpr::symbol("n");
  l.gridDivisor = 32;
  l.args = {KernelArg::buffer(0), KernelArg::buffer(1), KernelArg::symbol(0)};
  d.steps = {l};
  return d;
}

HostArray floats(int64_t n) {
  HostArray a{DType::F32, {n}, {}};
  a.data.resize(size_t(n) * 4);
  return a;
}

/// An invocation of `desc` loaded as `name` on `rt`, with or without a
/// CUDA graph; null (and a failed expectation) where either step fails.
std::unique_ptr<Invocation> invocationOf(Runtime &rt, const ModuleDesc &desc,
                                         const std::string &name,
                                         bool graph) {
  Result<std::shared_ptr<const Executable>> exe =
      Executable::load(rt, desc, name);
  EXPECT_TRUE(exe) << exe.error().message;
  if (!exe)
    return nullptr;
  InvocationOptions options;
  options.useCudaGraph = graph;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe, options);
  EXPECT_TRUE(inv) << inv.error().message;
  return inv ? std::move(*inv) : nullptr;
}

class FakeCudaSymbolsTest : public FakeRuntimeTest {
protected:
  std::unique_ptr<Invocation> invocation(bool graph) {
    return invocationOf(*rt, symbolicModule(), "sym.stridemod", graph);
  }
};

TEST_F(FakeCudaSymbolsTest, RunsAtEveryShapeOfTheRange) {
  std::unique_ptr<Invocation> inv = invocation(/*graph=*/false);
  ASSERT_TRUE(inv);
  for (int64_t n : {1, 7, 64, 7}) {
    Result<std::vector<HostArray>> out = inv->run({floats(n)});
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ((*out)[0].shape, std::vector<int64_t>{n});
    EXPECT_EQ((*out)[0].data.size(), size_t(n) * 4);
  }
}

TEST_F(FakeCudaSymbolsTest, OutOfRangeShapeIsRefused) {
  std::unique_ptr<Invocation> inv = invocation(/*graph=*/false);
  ASSERT_TRUE(inv);
  Result<std::vector<HostArray>> out = inv->run({floats(65)});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(out.error().message,
            "sym.stridemod: input 'x' dim 0 is 65; symbol 'n' takes 1 to 64");
}

TEST_F(FakeCudaSymbolsTest, DeviceBuffersNeedBoundShapes) {
  std::unique_ptr<Invocation> inv = invocation(/*graph=*/false);
  ASSERT_TRUE(inv);
  Status s = inv->runOnDevice({1}, {2}, nullptr);
  ASSERT_FALSE(s);
  EXPECT_TRUE(contains(s.error().message, "no inputs bound them yet"))
      << s.error().message;
  ASSERT_TRUE(inv->bindInputShapes({{9}}));
  EXPECT_TRUE(inv->runOnDevice({1}, {2}, nullptr));
  Status refused = inv->bindInputShapes({{0}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "sym.stridemod: input 'x' dim 0 is 0; symbol 'n' takes 1 to 64");
}

TEST_F(FakeCudaSymbolsTest, CapturedGraphIsKeptPerShape) {
  // One capture per shape: 3 and 5 are captured once each, and the runs at
  // 3 and 5 after them replay the graphs kept for them.
  std::unique_ptr<Invocation> inv = invocation(/*graph=*/true);
  ASSERT_TRUE(inv);
  int instantiated = fakeCount("stride_fake_cuda_graph_instantiations");
  for (int64_t n : {3, 5, 3, 5, 5}) {
    Result<std::vector<HostArray>> out = inv->run({floats(n)});
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ((*out)[0].shape, std::vector<int64_t>{n});
  }
  EXPECT_EQ(fakeCount("stride_fake_cuda_graph_instantiations") - instantiated,
            2);
}

/// y = -x over x: f32 [16] and pos: one i64 whose value binds `pos` in
/// [0, 95] (python-free-docs/symbolic-sizes.md, "Symbols bound from a
/// value"): a fill of y, the kernel when pos is at most 47, and the kernel
/// again, a dependent launch.
ModuleDesc valueModule() {
  ModuleDesc d = moduleWithKernels(CodeKind::Cubin, {{"neg", "y = -x"}});
  d.symbols = {{"pos", 0, 95, 1}};
  d.valueBindings = {{0, 1}};
  d.signature.entryName = "neg";
  d.signature.inputs = {{"x", DType::F32, {16}, {1}, 0},
                        {"pos", DType::I64, {1}, {1}, 0}};
  d.signature.outputs = {{"y", DType::F32, {16}, {1}, 0}};
  d.buffers = {{BufferKind::Input, 0, 64},
               {BufferKind::Input, 1, 8},
               {BufferKind::Output, 0, 64}};
  DispatchStep kernel;
  kernel.grid = {1, 1, 1};
  kernel.block = {32, 1, 1};
  kernel.args = {KernelArg::buffer(0), KernelArg::buffer(2)};
  DispatchStep variant = kernel;
  variant.guard.when = {{0, 0, 47}};
  DispatchStep after = kernel;
  after.dependentLaunch = true;
  d.steps = {FillStep{2, 0}, variant, after};
  return d;
}

HostArray position(int64_t value) {
  HostArray a{DType::I64, {1}, std::vector<uint8_t>(8)};
  std::memcpy(a.data.data(), &value, 8);
  return a;
}

class FakeCudaValueSymbolTest : public FakeRuntimeTest {
protected:
  std::unique_ptr<Invocation> invocation(bool graph) {
    return invocationOf(*rt, valueModule(), "value.stridemod", graph);
  }
};

TEST_F(FakeCudaValueSymbolTest, TheUploadedValueChoosesTheSteps) {
  std::unique_ptr<Invocation> inv = invocation(/*graph=*/false);
  ASSERT_TRUE(inv);
  for (int64_t pos : {0, 47, 48, 95, 96, -1, 10}) {
    Result<std::vector<HostArray>> out = inv->run({floats(16), position(pos)});
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(inv->runsStep(1), pos >= 0 && pos <= 47) << pos;
    EXPECT_TRUE(inv->runsStep(2));
  }
}

TEST_F(FakeCudaValueSymbolTest, DeviceRunsTakeTheBoundValue) {
  // No shape to bind: device runs need no bindInputShapes. Until a value
  // is given, the variant does not run.
  std::unique_ptr<Invocation> inv = invocation(/*graph=*/false);
  ASSERT_TRUE(inv);
  // The double's device memory is the host's.
  std::vector<uint8_t> x(64), pos(8), y(64);
  auto address = [](std::vector<uint8_t> &v) {
    return reinterpret_cast<uint64_t>(v.data());
  };
  std::vector<uint64_t> inputs = {address(x), address(pos)},
                        outputs = {address(y)};
  EXPECT_FALSE(inv->runsStep(1));
  EXPECT_TRUE(inv->runOnDevice(inputs, outputs, nullptr));
  ASSERT_TRUE(inv->bindInputValue(1, 30));
  EXPECT_TRUE(inv->runsStep(1));
  EXPECT_TRUE(inv->runOnDevice(inputs, outputs, nullptr));
  ASSERT_TRUE(inv->bindInputValue(1, 50));
  EXPECT_FALSE(inv->runsStep(1));
  // An input no symbol is bound from: nothing to do.
  EXPECT_TRUE(inv->bindInputValue(0, 5));
  EXPECT_FALSE(inv->runsStep(1));
  Status refused = inv->bindInputValue(2, 5);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "value.stridemod: bindInputValue(2) past the signature's 2 "
            "inputs");
}

TEST_F(FakeCudaValueSymbolTest, ADependentLaunchFollowsOnlyADispatchThatRuns) {
  // The last kernel follows the variant where it runs, and the fill where
  // it does not: a dependent launch only in the first case, one by one and
  // in a graph (captured at 10; at 11 the kept graph replays, launching
  // nothing anew).
  for (bool graph : {false, true}) {
    std::unique_ptr<Invocation> inv = invocation(graph);
    ASSERT_TRUE(inv);
    for (auto [pos, dependent] :
         {std::pair{10, 1}, {60, 0}, {11, graph ? 0 : 1}}) {
      int before = fakeCount("stride_fake_cuda_dependent_launches");
      ASSERT_TRUE(inv->run({floats(16), position(pos)}));
      EXPECT_EQ(fakeCount("stride_fake_cuda_dependent_launches") - before,
                dependent)
          << "graph " << graph << ", pos " << pos;
    }
  }
}

TEST_F(FakeCudaValueSymbolTest, CapturedGraphIsKeptPerSetOfSteps) {
  // Positions that run the same steps share a graph: two captures for
  // five positions.
  std::unique_ptr<Invocation> inv = invocation(/*graph=*/true);
  ASSERT_TRUE(inv);
  int instantiated = fakeCount("stride_fake_cuda_graph_instantiations");
  for (int64_t pos : {3, 40, 60, 90, 5})
    ASSERT_TRUE(inv->run({floats(16), position(pos)}));
  EXPECT_EQ(fakeCount("stride_fake_cuda_graph_instantiations") - instantiated,
            2);
}

} // namespace
