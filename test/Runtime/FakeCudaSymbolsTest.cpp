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
// the bound shape, and keeps a captured CUDA graph per shape.
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

class FakeCudaSymbolsTest : public FakeRuntimeTest {
protected:
  std::unique_ptr<Invocation> invocation(bool graph) {
    Result<std::shared_ptr<const Executable>> exe =
        Executable::load(*rt, symbolicModule(), "sym.stridemod");
    EXPECT_TRUE(exe) << exe.error().message;
    InvocationOptions options;
    options.useCudaGraph = graph;
    Result<std::unique_ptr<Invocation>> inv =
        Invocation::create(*exe, options);
    EXPECT_TRUE(inv) << inv.error().message;
    return inv ? std::move(*inv) : nullptr;
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

} // namespace
