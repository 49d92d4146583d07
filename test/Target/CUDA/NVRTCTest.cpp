//===- NVRTCTest.cpp - Compiling CUDA C++ with NVRTC (no GPU needed) ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/NVRTC.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace stride;

namespace {

// Shaped like the emitter's output: fp16/bf16 headers, extern "C" kernels.
constexpr const char *kHalfKernel = R"cuda(
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// add_f16: graph.mlir:3:5
extern "C" __global__ void add_f16(const __half *__restrict__ a,
                                   const __half *__restrict__ b,
                                   __half *__restrict__ out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __hadd(a[i], b[i]);
}

extern "C" __global__ void scale_bf16(__nv_bfloat16 *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}
)cuda";

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(NVRTCTest, VersionString) {
  EXPECT_EQ(nvrtcVersionString().rfind("NVRTC ", 0), 0u);
}

TEST(NVRTCTest, SupportsHopper) {
  std::vector<std::string> archs = nvrtcSupportedArchs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), "sm_90"), archs.end());
}

TEST(NVRTCTest, FindsCudaHeaders) {
  EXPECT_FALSE(defaultCudaIncludeDir().empty());
}

TEST(NVRTCTest, HalfKernelToCubin) {
  NvrtcOptions opts;
  opts.arch = "sm_90";
  opts.programName = "add_f16.cu";
  Result<CodeImage> image = compileCudaSource(kHalfKernel, opts);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->kind, CodeKind::Cubin);
  ASSERT_GT(image->bytes.size(), 4u);
  EXPECT_EQ(std::memcmp(image->bytes.data(), "\x7f" "ELF", 4), 0);
}

TEST(NVRTCTest, HalfKernelToPtx) {
  NvrtcOptions opts;
  opts.arch = "sm_90";
  opts.emitPtx = true;
  Result<CodeImage> image = compileCudaSource(kHalfKernel, opts);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->kind, CodeKind::Ptx);
  std::string ptx(image->bytes.begin(), image->bytes.end());
  EXPECT_TRUE(contains(ptx, ".target sm_90")) << ptx.substr(0, 400);
  EXPECT_TRUE(contains(ptx, ".entry add_f16"));
  EXPECT_TRUE(contains(ptx, ".entry scale_bf16"));
  // Stored without the C string terminator (the module format's rule).
  EXPECT_EQ(ptx.find('\0'), std::string::npos);
}

TEST(NVRTCTest, ExtraOptionsArePassed) {
  NvrtcOptions opts;
  opts.emitPtx = true;
  opts.extraOptions = {"-DSTRIDE_SCALE=3"};
  Result<CodeImage> image = compileCudaSource(
      "extern \"C\" __global__ void k(int *p) { *p = STRIDE_SCALE; }", opts);
  ASSERT_TRUE(image) << image.error().message;
}

TEST(NVRTCTest, SyntaxErrorIsReportedAsStrideBugWithLog) {
  NvrtcOptions opts;
  opts.programName = "fused_broken_0.cu";
  Result<CodeImage> image = compileCudaSource(
      "extern \"C\" __global__ void k(float *p) { p[0] = undefined_name + ; }",
      opts);
  ASSERT_FALSE(image);
  const std::string &m = image.error().message;
  EXPECT_TRUE(contains(m, "internal compiler error")) << m;
  EXPECT_TRUE(contains(m, "program 'fused_broken_0.cu'")) << m;
  EXPECT_TRUE(contains(m, "This is a bug in Stride")) << m;
  EXPECT_TRUE(contains(m, "NVRTC log:\nfused_broken_0.cu(1)")) << m;
  EXPECT_TRUE(contains(m, "undefined_name")) << m;
}

TEST(NVRTCTest, MalformedArchIsRefused) {
  NvrtcOptions opts;
  opts.arch = "sm_9x";
  Result<CodeImage> image = compileCudaSource("", opts);
  ASSERT_FALSE(image);
  const std::string &m = image.error().message;
  EXPECT_EQ(m.rfind("invalid GPU architecture 'sm_9x': expected sm_ followed by "
                    "the compute capability's digits (e.g. sm_90 for an H100); "
                    "NVRTC ",
                    0),
            0u)
      << m;
  EXPECT_TRUE(contains(m, " supports ")) << m;
  EXPECT_TRUE(contains(m, "sm_90")) << m;
}

TEST(NVRTCTest, UnsupportedArchIsRefused) {
  Result<int> arch = checkNvrtcArch("sm_20");
  ASSERT_FALSE(arch);
  EXPECT_TRUE(contains(arch.error().message,
                       "GPU architecture 'sm_20' is not supported by NVRTC "))
      << arch.error().message;
  Result<int> h100 = checkNvrtcArch("sm_90");
  ASSERT_TRUE(h100) << h100.error().message;
  EXPECT_EQ(*h100, 90);
}

TEST(NVRTCTest, UncheckedUnsupportedArchGetsTheArchMessage) {
  NvrtcOptions opts;
  opts.arch = "sm_20";
  Result<CodeImage> image = compileCudaSource(kHalfKernel, opts);
  ASSERT_FALSE(image);
  EXPECT_EQ(image.error().message, checkNvrtcArch("sm_20").error().message);
}

} // namespace
