//===- NvrtcCacheTest.cpp - The content-addressed NVRTC output cache ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/NvrtcCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

using namespace stride;

namespace {

constexpr const char *kKernel = R"cuda(
extern "C" __global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}
)cuda";

class NvrtcCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("stride-cache", path));
    dir = std::string(path);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// The entries (files) in the cache directory.
  std::vector<std::string> entries() {
    std::vector<std::string> found;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      found.push_back(it->path());
    return found;
  }

  Result<CodeImage> compile(const std::string &source, CacheOutcome &outcome,
                            const std::string &arch = "sm_90") {
    NvrtcOptions options;
    options.arch = arch;
    return compileCudaSourceCached(source, options, dir, &outcome);
  }

  std::string dir;
};

TEST_F(NvrtcCacheTest, SecondCompileIsAHitWithTheSameCode) {
  CacheOutcome outcome;
  Result<CodeImage> first = compile(kKernel, outcome);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  ASSERT_EQ(entries().size(), 1u);
  EXPECT_EQ(llvm::sys::path::extension(entries()[0]), ".bin");

  Result<CodeImage> second = compile(kKernel, outcome);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(outcome, CacheOutcome::Hit);
  EXPECT_EQ(second->kind, CodeKind::Cubin);
  EXPECT_EQ(second->bytes, first->bytes);
  EXPECT_EQ(entries().size(), 1u);
}

TEST_F(NvrtcCacheTest, SourceAndArchAreInTheKey) {
  CacheOutcome outcome;
  ASSERT_TRUE(compile(kKernel, outcome));
  ASSERT_TRUE(compile(std::string(kKernel) + "// another source\n", outcome));
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  ASSERT_TRUE(compile(kKernel, outcome, "sm_80"));
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_EQ(entries().size(), 3u);
}

TEST_F(NvrtcCacheTest, DamagedEntryIsRecompiledAndReplaced) {
  CacheOutcome outcome;
  Result<CodeImage> good = compile(kKernel, outcome);
  ASSERT_TRUE(good);
  std::string entry = entries().at(0);
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x5a'); // a byte of the code, past the checksum
  }
  Result<CodeImage> again = compile(kKernel, outcome);
  ASSERT_TRUE(again);
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_EQ(again->bytes, good->bytes);
  ASSERT_TRUE(compile(kKernel, outcome));
  EXPECT_EQ(outcome, CacheOutcome::Hit);
}

TEST_F(NvrtcCacheTest, UnusableDirectoryOnlyCostsTime) {
  // The cache directory's path is taken by a file: nothing can be written,
  // and the compile still succeeds.
  std::string blocked = dir + "/file";
  std::ofstream(blocked) << "not a directory";
  NvrtcOptions options;
  CacheOutcome outcome;
  Result<CodeImage> image =
      compileCudaSourceCached(kKernel, options, blocked + "/cache", &outcome);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(outcome, CacheOutcome::Miss);
  EXPECT_FALSE(image->bytes.empty());
}

TEST_F(NvrtcCacheTest, CompileErrorsAreNotCached) {
  CacheOutcome outcome;
  Result<CodeImage> bad = compile("this is not CUDA", outcome);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("NVRTC log"), std::string::npos);
  EXPECT_TRUE(entries().empty());
}

TEST(NvrtcCacheDir, FollowsXdgCacheHome) {
  std::string saved = std::getenv("XDG_CACHE_HOME") ? std::getenv("XDG_CACHE_HOME") : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(defaultNvrtcCacheDir(), "/tmp/xdg/stride/nvrtc");
  unsetenv("XDG_CACHE_HOME");
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (!home.empty())
    EXPECT_EQ(defaultNvrtcCacheDir(), home + "/.cache/stride/nvrtc");
  if (!saved.empty())
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

} // namespace
