//===- ModuleDataTest.cpp - The data section of module files --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Format version 4 keeps the constants' data and the states' initial values
// in a data section after the FlatBuffer, each referred to by a 64-bit
// offset and size (python-free-docs/module-format.md, "The data section").
// Each way a range can be wrong is refused with a message naming the
// entry; a constant beyond 4 GiB in a (sparse) file is read back; a mapped
// file's constants are views of it, and rewriting the file leaves them be.
//
//===----------------------------------------------------------------------===//

#include "ModuleTestUtil.h"

#include "StrideModule_generated.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace stride;
using namespace stride::test;

namespace {

/// A module with two f32 [2, 3] constants and a state with an initial value,
/// each read by one dispatch.
ModuleDesc dataModule() {
  ModuleDesc d =
      moduleWithKernels(CodeKind::Cubin, {{"read_all", "add (m.mlir:1:1)"}});
  d.constants.push_back({DType::F32, {2, 3}, {3, 1}, countingBytes(24)});
  d.constants.push_back({DType::F32, {2, 3}, {3, 1}, countingBytes(24, 100)});
  d.states.push_back({{"cache", DType::F32, {2, 2}, {2, 1}, 0}, countingBytes(16, 7)});
  d.signature.outputs.push_back({"y", DType::F32, {2}, {1}, 0});
  d.buffers = {{BufferKind::Constant, 0, 24, false},
               {BufferKind::Constant, 1, 24, false},
               {BufferKind::State, 0, 16, false},
               {BufferKind::Output, 0, 8, false}};
  d.steps = {smallDispatch(0, {KernelArg::buffer(0), KernelArg::buffer(1),
                               KernelArg::buffer(2), KernelArg::buffer(3)})};
  return d;
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  Result<ModuleDesc> r = parseModule(bytes.data(), bytes.size(), "m.stridemod");
  return r ? std::string("(parsed)") : r.error().message;
}

/// Rewrites a data range in place (the FlatBuffer keeps its layout: a
/// struct's values do not move anything).
void setRange(std::vector<uint8_t> &bytes, const fb::DataRange *range,
              uint64_t offset, uint64_t size) {
  fb::DataRange patched(offset, size);
  std::memcpy(bytes.data() + (reinterpret_cast<const uint8_t *>(range) -
                              bytes.data()),
              &patched, sizeof(patched));
}

const fb::DataRange *constantRange(const std::vector<uint8_t> &bytes,
                                   size_t index) {
  return fb::GetSizePrefixedModule(bytes.data())->constants()->Get(index)->data();
}

/// Rewrites the root's data_section_bytes in place.
void setSectionBytes(std::vector<uint8_t> &bytes, uint64_t value) {
  auto *root = reinterpret_cast<const flatbuffers::Table *>(
      fb::GetSizePrefixedModule(bytes.data()));
  const uint8_t *field =
      root->GetAddressOf(fb::Module::VT_DATA_SECTION_BYTES);
  ASSERT_NE(field, nullptr);
  std::memcpy(bytes.data() + (field - bytes.data()), &value, sizeof(value));
}

TEST(ModuleDataTest, EntriesLieInOrderAtAlignedOffsets) {
  ModuleDesc d = dataModule();
  ModuleFileLayout layout = moduleFileLayout(d);
  EXPECT_EQ(layout.constantOffsets, (std::vector<uint64_t>{0, 4096}));
  EXPECT_EQ(layout.stateOffsets, (std::vector<uint64_t>{8192}));
  EXPECT_EQ(layout.dataSectionBytes, 8192u + 16);
  EXPECT_EQ(layout.dataSectionOffset % kModuleDataAlignment, 0u);
  std::vector<uint8_t> bytes = serializeModule(d);
  ASSERT_EQ(bytes.size(), layout.fileBytes());
  const uint8_t *section = bytes.data() + layout.dataSectionOffset;
  EXPECT_EQ(std::memcmp(section + 4096, d.constants[1].data.data(), 24), 0);
  EXPECT_EQ(std::memcmp(section + 8192, d.states[0].init.data(), 16), 0);
  Result<ModuleDesc> parsed = parseModule(bytes.data(), bytes.size(), "m");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(*parsed == d);
}

TEST(ModuleDataTest, SharedBytesAreParsedWithoutACopy) {
  ModuleDesc d = dataModule();
  SharedBytes bytes(serializeModule(d));
  Result<ModuleDesc> parsed = parseModule(bytes, "m");
  ASSERT_TRUE(parsed) << parsed.error().message;
  uint64_t section = moduleFileLayout(d).dataSectionOffset;
  EXPECT_EQ(parsed->constants[1].data.data(), bytes.data() + section + 4096);
  EXPECT_EQ(parsed->states[0].init.data(), bytes.data() + section + 8192);
}

/// The error of dataModule's file with constant `index`'s range rewritten.
std::string errorWithConstantRange(size_t index, uint64_t offset,
                                   uint64_t size) {
  std::vector<uint8_t> bytes = serializeModule(dataModule());
  setRange(bytes, constantRange(bytes, index), offset, size);
  return parseError(bytes);
}

const std::string kCorrupt = "m.stridemod: corrupt Stride module: ";

TEST(ModuleDataTest, MisalignedOffsetIsRefused) {
  EXPECT_EQ(errorWithConstantRange(1, 4096 + 64, 24),
            kCorrupt + "the data of constant 1 starts at data section offset "
                       "4160, not a multiple of 4096");
}

TEST(ModuleDataTest, RangePastTheSectionIsRefused) {
  EXPECT_EQ(errorWithConstantRange(1, 8192, 24),
            kCorrupt + "the data of constant 1 has 24 bytes from data section "
                       "offset 8192, past the end of the 8208-byte data "
                       "section");
  // Far out of the file.
  EXPECT_NE(errorWithConstantRange(1, uint64_t(1) << 40, 24)
                .find("constant 1 has 24 bytes from data section offset "
                      "1099511627776, past the end"),
            std::string::npos);
}

TEST(ModuleDataTest, RangeWrappingPast2To64IsRefused) {
  EXPECT_EQ(errorWithConstantRange(0, UINT64_MAX - 4095, 8192),
            kCorrupt + "the data of constant 0 has 8192 bytes from data "
                       "section offset 18446744073709547520: its end is past "
                       "2^64");
}

TEST(ModuleDataTest, OverlappingEntriesAreRefused) {
  EXPECT_EQ(errorWithConstantRange(1, 0, 24),
            kCorrupt + "the data of constant 1 starts at data section offset "
                       "0, inside the entry before it (which ends at 24): the "
                       "entries lie in order, constants then states, without "
                       "overlapping");
}

TEST(ModuleDataTest, StateRangeIsNamed) {
  std::vector<uint8_t> bytes = serializeModule(dataModule());
  const fb::Module *m = fb::GetSizePrefixedModule(bytes.data());
  setRange(bytes, m->states()->Get(0)->init(), 8192 + 1, 16);
  EXPECT_EQ(parseError(bytes),
            kCorrupt + "the initial value of state 0 'cache' starts at data "
                       "section offset 8193, not a multiple of 4096");
}

TEST(ModuleDataTest, SizeThatDisagreesWithTheLayoutIsRefused) {
  EXPECT_EQ(errorWithConstantRange(1, 4096, 20),
            "m.stridemod: inconsistent module: constant 1 (f32 [2, 3] strides "
            "[3, 1] offset 0) has 20 bytes of data, but its layout needs 24");
}

TEST(ModuleDataTest, SectionLargerThanTheFileIsRefused) {
  std::vector<uint8_t> bytes = serializeModule(dataModule());
  uint64_t offset = moduleFileLayout(dataModule()).dataSectionOffset;
  setSectionBytes(bytes, UINT64_MAX - 100);
  EXPECT_EQ(parseError(bytes),
            "m.stridemod: truncated Stride module: the file has " +
                std::to_string(bytes.size()) +
                " bytes, but it declares a data section of " +
                std::to_string(UINT64_MAX - 100) + " bytes from file offset " +
                std::to_string(offset));
}

TEST(ModuleDataTest, EveryCutOfTheDataSectionIsRefused) {
  std::vector<uint8_t> bytes = serializeModule(dataModule());
  uint64_t flatBuffer = moduleFileLayout(dataModule()).flatBufferBytes;
  for (uint64_t len = flatBuffer; len < bytes.size(); len += 61) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
    EXPECT_NE(parseError(cut).find("truncated Stride module"), std::string::npos)
        << "cut at " << len;
  }
}

TEST(ModuleDataTest, ConstantWithoutElementsHasNoRange) {
  ModuleDesc d = dataModule();
  d.constants[0] = {DType::F32, {0, 3}, {3, 1}, {}};
  d.buffers[0].sizeBytes = 0;
  std::vector<uint8_t> bytes = serializeModule(d);
  EXPECT_EQ(constantRange(bytes, 0), nullptr);
  EXPECT_EQ(moduleFileLayout(d).constantOffsets[1], 0u);
  Result<ModuleDesc> parsed = parseModule(bytes.data(), bytes.size(), "m");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(*parsed == d);
}

std::string tempPath(const std::string &stem) {
  return ::testing::TempDir() + "/" + stem + "_" + std::to_string(getpid()) +
         ".stridemod";
}

/// A file that was mapped keeps its bytes for the module read from it when
/// the file is written again (writeModuleFile renames a new file into
/// place, never truncates the old one).
TEST(ModuleDataTest, RewritingAMappedFileLeavesTheReaderItsBytes) {
  std::string path = tempPath("rewrite");
  ModuleDesc first = dataModule();
  ASSERT_TRUE(writeModuleFile(path, first));
  Result<ModuleDesc> mapped = readModuleFile(path);
  ASSERT_TRUE(mapped) << mapped.error().message;
  ModuleDesc second = dataModule();
  second.constants[0].data = std::vector<uint8_t>(24, 0xee);
  ASSERT_TRUE(writeModuleFile(path, second));
  EXPECT_TRUE(*mapped == first);
  Result<ModuleDesc> again = readModuleFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(*again == second);
}

/// A module whose constant 1 lies beyond 4 GiB in the file, made without
/// writing 4 GiB: the FlatBuffer and the constant's bytes are written, the
/// rest is a hole of a sparse file. readModuleFile maps it and reads the
/// constant back. Skipped where the temporary directory's file system has
/// no sparse files.
TEST(ModuleDataTest, ConstantBeyond4GiBOfASparseFileIsRead) {
  const uint64_t far = (uint64_t(1) << 32) + 8 * kModuleDataAlignment;
  ModuleDesc d = dataModule();
  d.states[0].init = {};
  std::vector<uint8_t> bytes = serializeModule(d);
  ModuleFileLayout layout = moduleFileLayout(d);
  setRange(bytes, constantRange(bytes, 1), far, 24);
  setSectionBytes(bytes, far + 24);
  std::string path = tempPath("sparse");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  uint64_t fileBytes = layout.dataSectionOffset + far + 24;
  bool sized = ::ftruncate(fd, off_t(fileBytes)) == 0;
  struct stat info;
  bool sparse = sized && ::fstat(fd, &info) == 0 &&
                uint64_t(info.st_blocks) * 512 < (uint64_t(1) << 20);
  if (!sparse) {
    ::close(fd);
    std::remove(path.c_str());
    GTEST_SKIP() << ::testing::TempDir()
                 << " holds no sparse file of " << fileBytes
                 << " bytes (ftruncate "
                 << (sized ? "allocated its blocks" : "failed") << ")";
  }
  const uint8_t *section = bytes.data() + layout.dataSectionOffset;
  ASSERT_EQ(::pwrite(fd, bytes.data(), layout.flatBufferBytes, 0),
            ssize_t(layout.flatBufferBytes));
  ASSERT_EQ(::pwrite(fd, section, 24, off_t(layout.dataSectionOffset)), 24);
  ASSERT_EQ(::pwrite(fd, section + 4096, 24,
                     off_t(layout.dataSectionOffset + far)),
            24);
  ::close(fd);
  Result<ModuleDesc> r = readModuleFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->constants[0] == d.constants[0]);
  EXPECT_TRUE(r->constants[1] == d.constants[1]);
  std::string text = describeModule(*r);
  EXPECT_NE(text.find("constants: 2 (48 bytes)"), std::string::npos) << text;
}

} // namespace
