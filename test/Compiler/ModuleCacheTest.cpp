//===- ModuleCacheTest.cpp - Whole modules cached, and evicted ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Compiler/ModuleCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

using namespace stride;

namespace {

class ModuleCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("module-cache", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string entry(const std::string &key) {
    return moduleCacheEntry(dir, key);
  }
  /// Gives `path` a modification time `seconds` before now.
  void age(const std::string &path, int seconds) {
    int fd;
    ASSERT_FALSE(llvm::sys::fs::openFileForWrite(
        path, fd, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append));
    ASSERT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(
        fd, std::chrono::system_clock::now() - std::chrono::seconds(seconds)));
    ::close(fd);
  }

  llvm::SmallString<128> dir;
  /// A module (its file need not verify: the cache stores what it is given).
  ModuleDesc module = [] {
    ModuleDesc m;
    m.producer = "stridec 0.1.0";
    m.constants.push_back({DType::I8, {100}, {1}, std::vector<uint8_t>(100, 7)});
    return m;
  }();
  uint64_t fileBytes = serializeModule(module).size();
  /// Room for two entries, not three.
  uint64_t twoEntries = fileBytes * 5 / 2;
};

TEST_F(ModuleCacheTest, KeyFollowsInputNameAndOptions) {
  CompileOptions options;
  std::vector<uint8_t> input = {1, 2, 3};
  std::string key = moduleCacheKey(input, "a.mlir", options);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, moduleCacheKey(input, "a.mlir", options));
  EXPECT_NE(key, moduleCacheKey({1, 2, 4}, "a.mlir", options));
  EXPECT_NE(key, moduleCacheKey(input, "b.mlir", options));
  CompileOptions unfused = options;
  unfused.pipeline.fuse = false;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", unfused));
  CompileOptions unfolded = options;
  unfolded.pipeline.foldConstants = false;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", unfolded));
  CompileOptions apart = options;
  apart.pipeline.mergeSiblingProducts = false;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", apart));
  CompileOptions prologue = options;
  prologue.pipeline.skinnyPrologue = !options.pipeline.skinnyPrologue;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", prologue));
  CompileOptions epilogue = options;
  epilogue.pipeline.skinnyEpilogue = !options.pipeline.skinnyEpilogue;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", epilogue));
  CompileOptions graphOrders = options;
  graphOrders.pipeline.rowMajorPointwise = false;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", graphOrders));
  CompileOptions noEpilogues = options;
  noEpilogues.pipeline.convolutionEpilogues = false;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", noEpilogues));
  // A module of one shape from a symbolic graph: each shape its own.
  CompileOptions batch7 = options, batch8 = options;
  batch7.instantiateSymbols = {"batch=7"};
  batch8.instantiateSymbols = {"batch=8"};
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", batch7));
  EXPECT_NE(moduleCacheKey(input, "a.mlir", batch7),
            moduleCacheKey(input, "a.mlir", batch8));
  CompileOptions otherArch = options;
  otherArch.cuda.arch = "sm_80";
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", otherArch));
  // Grid sizes follow the multiprocessor count.
  CompileOptions oneMultiprocessor = options;
  oneMultiprocessor.cuda.multiprocessorCount = 1;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", oneMultiprocessor));
  CompileOptions noDependentLaunch = options;
  noDependentLaunch.cuda.dependentLaunch = false;
  EXPECT_NE(key, moduleCacheKey(input, "a.mlir", noDependentLaunch));
  // Threads change how a compile runs, not the module.
  CompileOptions threads = options;
  threads.jobs = 3;
  EXPECT_EQ(key, moduleCacheKey(input, "a.mlir", threads));
}

TEST_F(ModuleCacheTest, StoredModuleIsPlacedAndMissingOneIsNot) {
  storeCachedModule(entry("k"), module);
  llvm::SmallString<128> output(dir);
  llvm::sys::path::append(output, "out.stridemod.bin");
  EXPECT_TRUE(placeCachedModule(entry("k"), output));
  auto placed = llvm::MemoryBuffer::getFile(output);
  ASSERT_TRUE(placed);
  EXPECT_EQ((*placed)->getBufferSize(), fileBytes);
  EXPECT_FALSE(placeCachedModule(entry("missing"), output));
}

TEST_F(ModuleCacheTest, LeastRecentlyUsedEntriesAreEvicted) {
  storeCachedModule(entry("old"), module, twoEntries);
  age(entry("old"), 300);
  storeCachedModule(entry("used"), module, twoEntries);
  age(entry("used"), 200);
  // A hit makes "used" the most recent.
  llvm::SmallString<128> output(dir);
  llvm::sys::path::append(output, "out.bin");
  ASSERT_TRUE(placeCachedModule(entry("used"), output));
  storeCachedModule(entry("new"), module, twoEntries);
  EXPECT_FALSE(llvm::sys::fs::exists(entry("old")));
  EXPECT_TRUE(llvm::sys::fs::exists(entry("used")));
  EXPECT_TRUE(llvm::sys::fs::exists(entry("new")));
}

} // namespace
