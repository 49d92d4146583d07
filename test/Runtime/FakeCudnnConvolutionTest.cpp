//===- FakeCudnnConvolutionTest.cpp - cudnn.convolution, without a GPU ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cudnn.convolution` routine over the fake CUDA driver and the fake
// cuDNN (FakeCudnn.cpp, which runs convolution graphs on the host): the
// forward (with its bias, channels-last, grouped, 1-D; with its epilogue,
// whose operations the fake records), the data and the
// weight gradient against a direct sum here; the descriptor's checks at
// load; a missing library; no engine, and only TF32 engines for an f32
// convolution that does not allow TF32, each an error naming the
// convolution.
//
//===----------------------------------------------------------------------===//

#include "FakeRuntime.h"
#include "ConvolutionTestSupport.h"

#include <dlfcn.h>

using namespace stride;
using namespace stride::test;

namespace {

constexpr const char *kWhere =
    "fake.stridemod: step 1 of 1 (library call 'cudnn.convolution')";

class FakeCudnnConvolutionTest : public FakeRuntimeTest {
protected:
  Result<std::shared_ptr<const Executable>> load(ModuleDesc d) {
    return Executable::load(*rt, std::move(d), "fake.stridemod");
  }

  /// "" when the step's result matches the reference, else what differs.
  std::string check(const Conv &c) {
    Result<std::shared_ptr<const Executable>> exe = load(module(c));
    if (!exe)
      return exe.error().message;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
    if (!inv)
      return inv.error().message;
    return compareConvolution(**inv, c, 1e-4);
  }

  Error invocationError(const Conv &c) {
    Result<std::shared_ptr<const Executable>> exe = load(module(c));
    if (!exe)
      return exe.error();
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
    EXPECT_FALSE(inv);
    return inv ? Error{ErrorCode::Internal, "created"} : inv.error();
  }

  FakeSetting library{"STRIDE_CUDNN", STRIDE_FAKE_CUDNN_DIR "/libcudnn.so.9"};
};

TEST_F(FakeCudnnConvolutionTest, ForwardMatchesTheReference) {
  Conv c = grouped();
  EXPECT_EQ(check(c), "");
  c.bias = true;
  EXPECT_EQ(check(c), "");
}

/// The fake cuDNN's names of the operations of the graph finalized last.
std::string lastGraph() {
  using LastGraphFn = const char *(*)();
  void *library = dlopen(STRIDE_FAKE_CUDNN_DIR "/libcudnn.so.9",
                         RTLD_NOW | RTLD_NOLOAD);
  auto fn = library ? reinterpret_cast<LastGraphFn>(
                          dlsym(library, "stride_fake_cudnn_last_graph"))
                    : nullptr;
  return fn ? fn() : "(no fake cuDNN loaded)";
}

TEST_F(FakeCudnnConvolutionTest, EpilogueIsInCudnnGraph) {
  // ResNet's block: bias, the skip connection's residual, the relu, one
  // graph; channels-last as the compiler gives it (in f32 here, so that
  // the direct sum checks it to 1e-4).
  Conv c = grouped();
  c.xs = {120, 1, 20, 4};
  c.ys = {54, 1, 18, 6};
  c.bias = c.residual = c.relu = true;
  EXPECT_EQ(check(c), "");
  EXPECT_EQ(lastGraph(), "conv_fprop add add relu");
  c.bias = false;
  EXPECT_EQ(check(c), "");
  EXPECT_EQ(lastGraph(), "conv_fprop add relu");
  c.residual = false;
  EXPECT_EQ(check(c), "");
  EXPECT_EQ(lastGraph(), "conv_fprop relu");
  c.relu = false;
  c.residual = true;
  EXPECT_EQ(check(c), "");
  EXPECT_EQ(lastGraph(), "conv_fprop add");
}

TEST_F(FakeCudnnConvolutionTest, ChannelsLastIsAStrideOrder) {
  Conv c = grouped();
  c.xs = {120, 1, 20, 4}; // [N, H, W, C]
  c.ys = {54, 1, 18, 6};
  EXPECT_EQ(check(c), "");
}

TEST_F(FakeCudnnConvolutionTest, OneDimensionalIsTwoDimensional) {
  EXPECT_EQ(check(conv1d()), "");
}

TEST_F(FakeCudnnConvolutionTest, ThreeDimensional) {
  EXPECT_EQ(check(conv3d()), "");
}

TEST_F(FakeCudnnConvolutionTest, GradientsMatchTheReference) {
  for (const char *kind : {"dgrad", "wgrad"}) {
    Conv c = grouped();
    c.kind = kind;
    EXPECT_EQ(check(c), "") << kind;
    EXPECT_EQ(lastGraph(), std::string("conv_") + kind);
  }
}

TEST_F(FakeCudnnConvolutionTest, WeightGradientAsTheCompilerWritesIt) {
  // stride.convolution_weight_gradient's call: x, dy and dw all
  // channels-last (stride-convolution-library's order for f16 and bf16,
  // and for an f32 input that is channels-last), grouped, strided and
  // dilated; and a 1-D one, row-major.
  Conv c = grouped();
  c.kind = "wgrad";
  c.xs = {120, 1, 20, 4};
  c.ws = {18, 1, 6, 2};
  c.ys = {54, 1, 18, 6};
  EXPECT_EQ(check(c), "");
  EXPECT_EQ(lastGraph(), "conv_wgrad");
  c = conv1d();
  c.kind = "wgrad";
  EXPECT_EQ(check(c), "");
  EXPECT_EQ(lastGraph(), "conv_wgrad");
}

TEST_F(FakeCudnnConvolutionTest, DescriptorIsCheckedWhenLoading) {
  Conv c = grouped();
  c.y[2] = 4; // the stride gives 3 rows
  c.ys = Conv::dense(c.y);
  Result<std::shared_ptr<const Executable>> exe = load(module(c));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::InvalidModule);
  EXPECT_EQ(exe.error().message,
            std::string(kWhere) +
                ": descriptor gives spatial dim 0 x size 6, kernel 3 and y "
                "size 4, which the stride, padding and dilation do not give");
  c = grouped();
  c.kind = "dgrad";
  c.bias = true;
  exe = load(module(c));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().message,
            std::string(kWhere) +
                ": descriptor adds a bias to a dgrad; only fprop takes one");
  c.bias = false;
  c.relu = true;
  exe = load(module(c));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().message,
            std::string(kWhere) + ": descriptor gives a dgrad an epilogue "
                                  "(residual or relu); only fprop takes one");
}

TEST_F(FakeCudnnConvolutionTest, MissingLibrary) {
  FakeSetting absent("STRIDE_CUDNN", "/nonexistent/libcudnn.so.9");
  Result<std::shared_ptr<const Executable>> exe = load(module(grouped()));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::NotFound);
  EXPECT_NE(exe.error().message.find("needs cuDNN (libcudnn.so.9)"),
            std::string::npos)
      << exe.error().message;
  EXPECT_NE(exe.error().message.find("install cuDNN 9"), std::string::npos)
      << exe.error().message;
}

TEST_F(FakeCudnnConvolutionTest, NoEngineNamesTheConvolution) {
  FakeSetting none("STRIDE_FAKE_CUDNN_NO_ENGINE", "1");
  Error e = invocationError(grouped());
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message,
            std::string(kWhere) +
                ": cuDNN 9.19.0 (" STRIDE_FAKE_CUDNN_DIR
                "/libcudnn.so.9) has no engine for convolution 'conv1' (f32 "
                "fprop, x [2, 4, 6, 5] strides [120, 30, 5, 1], w [6, 2, 3, 3] "
                "strides [18, 9, 3, 1], y [2, 6, 3, 3] strides [54, 9, 3, 1], "
                "stride [2, 1], padding [1, 1]/[1, 1], dilation [1, 2]) on "
                "this device (0 configurations of its heuristics tried; the "
                "heuristics gave no configuration)");
}

TEST_F(FakeCudnnConvolutionTest, NoEngineForTheEpilogueNamesIt) {
  FakeSetting none("STRIDE_FAKE_CUDNN_NO_ENGINE", "1");
  Conv c = grouped();
  c.residual = c.relu = true;
  Error e = invocationError(c);
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_NE(e.message.find("dilation [1, 2], residual, relu) on this device"),
            std::string::npos)
      << e.message;
}

TEST_F(FakeCudnnConvolutionTest, Tf32EnginesAreSkippedForFloats) {
  FakeSetting tf32("STRIDE_FAKE_CUDNN_TF32", "1");
  Error e = invocationError(grouped());
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_NE(e.message.find("2 configurations of its heuristics tried; the "
                           "engines left use TF32, which the module does not "
                           "allow (stridec --allow-tf32 does)"),
            std::string::npos)
      << e.message;
  Conv half = grouped();
  half.dtype = DType::BF16; // tensor cores are what bf16 asks for
  EXPECT_EQ(check(half).find("has no engine"), std::string::npos);
}

TEST_F(FakeCudnnConvolutionTest, StepsShareOneWorkspace) {
  // Two steps of one problem: one plan, one workspace, both run.
  ModuleDesc d = module(grouped());
  d.steps.push_back(d.steps[0]);
  Result<std::shared_ptr<const Executable>> exe = load(std::move(d));
  ASSERT_TRUE(exe) << exe.error().message;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  EXPECT_EQ(compareConvolution(**inv, grouped(), 1e-4), "");
}

TEST_F(FakeCudnnConvolutionTest, WorkspaceCannotBeAllocated) {
  FakeSetting huge("STRIDE_FAKE_CUDNN_WORKSPACE", "1099511627776"); // 1 TiB
  Error e = invocationError(grouped());
  EXPECT_EQ(e.code, ErrorCode::ResourceExhausted);
  EXPECT_EQ(e.message, std::string(kWhere) +
                           ": allocating the 1099511627776 bytes of cuDNN's "
                           "workspace: CUDA_ERROR_OUT_OF_MEMORY: out of "
                           "memory");
}

} // namespace
