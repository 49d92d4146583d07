//===- FakeRuntime.h - Tests of the runtime over the CUDA test double -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What FakeCudaTest.cpp and FakeCublasLtTest.cpp share: a fixture whose
// Runtime runs over the fake libcuda.so.1 (FakeCuda.cpp; the tests are
// skipped where the real driver was loaded), and a scoped environment
// variable to steer the test doubles.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_RUNTIME_FAKERUNTIME_H
#define STRIDE_TEST_RUNTIME_FAKERUNTIME_H

#include "stride/Runtime/Invocation.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace stride::test {

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The CUDA test double's function `name` (a test hook, or a driver entry
/// point), null (and a failed expectation) where the loaded driver has none.
template <typename Function> Function *fakeFunction(const char *name) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto function = driver ? reinterpret_cast<Function *>(dlsym(driver, name)) : nullptr;
  EXPECT_TRUE(function) << "the CUDA test double has no " << name;
  return function;
}

/// Sets one of the doubles' environment variables for the test's lifetime.
/// The double's count of `name` (stride_fake_cuda_graph_instantiations,
/// stride_fake_cuda_graph_updates).
inline int fakeCount(const char *name) {
  auto count = fakeFunction<int()>(name);
  return count ? count() : -1;
}

class FakeSetting {
public:
  FakeSetting(const char *name, const char *value) : name(name) {
    setenv(name, value, 1);
  }
  ~FakeSetting() { unsetenv(name); }
  FakeSetting(const FakeSetting &) = delete;
  FakeSetting &operator=(const FakeSetting &) = delete;

private:
  const char *name;
};

/// A Runtime over the fake driver.
class FakeRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<Runtime>> created = Runtime::create(0);
    if (!created)
      GTEST_SKIP() << created.error().message;
    if (created->get()->deviceName() != "Stride fake GPU")
      GTEST_SKIP() << "the real CUDA driver was loaded, not the test double";
    rt = std::move(*created);
  }

  std::unique_ptr<Runtime> rt;
};

} // namespace stride::test

#endif // STRIDE_TEST_RUNTIME_FAKERUNTIME_H
