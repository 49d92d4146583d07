//===- GpuTestSupport.h - The fixture of the real-GPU tests ----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For the tests that need a real GPU and its libraries (CublasLtGpuTest,
// CudnnGpuTest, CudnnConvolutionGpuTest; scripts/gpu-check.sh runs them):
// a runtime on device 0, or the test skipped with the reason (no driver,
// no device, or the CUDA driver test double loaded instead of libcuda).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_RUNTIME_GPUTESTSUPPORT_H
#define STRIDE_TEST_RUNTIME_GPUTESTSUPPORT_H

#include "stride/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <memory>

namespace stride::test {

class GpuRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<Runtime>> created = Runtime::create(0);
    if (!created)
      GTEST_SKIP() << created.error().message;
    if (created->get()->deviceName() == "Stride fake GPU")
      GTEST_SKIP() << "the CUDA driver test double was loaded";
    rt = std::move(*created);
  }

  std::unique_ptr<Runtime> rt;
};

} // namespace stride::test

#endif // STRIDE_TEST_RUNTIME_GPUTESTSUPPORT_H
