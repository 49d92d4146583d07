//===- ModuleCorpusTest.cpp - The module fuzzer's committed corpus --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The module fuzzer (test/Fuzz/ModuleFuzzer.cpp, scripts/fuzz.sh) starts from
// the files in test/Fuzz/corpus/stride-module-fuzzer/. Those written here
// must be modules of the current format, or every mutation of them would
// stop at the version check: this test fails when a committed file differs
// from what this build writes, and rewrites them all when run with
// STRIDE_WRITE_FUZZ_CORPUS=1:
//
//   STRIDE_WRITE_FUZZ_CORPUS=1 build/unittests/StrideModuleCorpusTests
//
// Files of the corpus not named here (findings of the fuzzer) are left as
// they are.
//
//===----------------------------------------------------------------------===//

#include "ModuleTestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

using namespace stride;

using namespace stride::test;

namespace {

std::vector<KernelDesc> kernels() {
  return {{"k0", "add (g.mlir:1:1)"}, {"k1", "sum (g.mlir:2:1)"}};
}

/// Two constants and a state with an initial value: three entries of the
/// data section; the dispatch keeps half of the first constant in L2.
ModuleDesc constants() {
  ModuleDesc d = moduleWithKernels(CodeKind::Cubin, kernels());
  d.constants.push_back({DType::F32, {4, 8}, {8, 1}, countingBytes(128, 1, 7)});
  d.constants.push_back({DType::BF16, {3}, {1}, countingBytes(6, 1, 7)});
  d.states.push_back({{"cache", DType::I32, {2, 4}, {4, 1}, 0}, countingBytes(32, 1, 7)});
  d.signature.inputs.push_back({"x", DType::F32, {4, 8}, {8, 1}, 0});
  d.signature.outputs.push_back({"y", DType::F32, {4, 8}, {8, 1}, 0});
  d.buffers = {{BufferKind::Input, 0, 128, false},
               {BufferKind::Constant, 0, 128, false},
               {BufferKind::Constant, 1, 6, false},
               {BufferKind::State, 0, 32, false},
               {BufferKind::Output, 0, 128, false}};
  d.steps = {smallDispatch(0, {KernelArg::buffer(0), KernelArg::buffer(1),
                          KernelArg::buffer(2), KernelArg::buffer(3),
                          KernelArg::buffer(4)})};
  DispatchStep &dispatch = std::get<DispatchStep>(d.steps[0]);
  dispatch.l2ResidentBuffer = 1;
  dispatch.l2ResidentBytes = 64;
  return d;
}

/// Every step and argument kind, an arena and a zeroed temporary; no data.
ModuleDesc everyStep() {
  ModuleDesc d = moduleWithKernels(CodeKind::Cubin, kernels());
  d.signature.inputs.push_back({"x", DType::F16, {4, 1, 8}, {0, 8, 1}, 2});
  d.signature.outputs.push_back({"y", DType::F32, {4, 8}, {8, 1}, 0});
  d.buffers = {{BufferKind::Input, 0, 20, false},
               {BufferKind::Output, 0, 128, false, 256},
               {BufferKind::Temp, -1, 256, false, 0},
               {BufferKind::Temp, -1, 64, true}};
  DispatchStep first =
      smallDispatch(0, {KernelArg::buffer(0), KernelArg::buffer(2),
                   KernelArg::i32(-3), KernelArg::i64(int64_t(1) << 40),
                   KernelArg::f32(0.5f), KernelArg::f64(-0.25)});
  DispatchStep second = smallDispatch(1, {KernelArg::buffer(2), KernelArg::buffer(1),
                                     KernelArg::buffer(3)});
  second.dependentLaunch = true;
  LibraryCallStep call{"test.record",
                       {2, 1},
                       {{"n", {4, 8}, ""}, {"mode", {}, "fast"}}};
  d.steps = {first, second, call, FillStep{3, 0}, CopyStep{2, 1, 128}};
  d.temporariesBeforeReuse = 3;
  d.temporaryBytesBeforeReuse = 1024;
  return d;
}

/// PTX, a mutated input, a zero-initialized state, absent outputs.
ModuleDesc statesAndAbsentOutputs() {
  ModuleDesc d = moduleWithKernels(CodeKind::Ptx, kernels());
  d.deterministic = true;
  d.states.push_back({{"zeros", DType::F64, {2}, {1}, 0}, {}});
  d.signature.inputs.push_back({"x", DType::I64, {3}, {1}, 0, true});
  d.signature.outputs.push_back({"y", DType::I8, {3}, {1}, 0});
  d.signature.absentOutputs = {0, 2};
  d.buffers = {{BufferKind::Input, 0, 24, false},
               {BufferKind::State, 0, 16, false},
               {BufferKind::Output, 0, 3, false}};
  d.steps = {smallDispatch(0, {KernelArg::buffer(0), KernelArg::buffer(1),
                          KernelArg::buffer(2)}),
             FillStep{0, 7}};
  return d;
}

/// Outputs that alias an input (format version 5): the input itself, a
/// transposed view and a broadcast (stride 0) view, beside one of its own.
ModuleDesc aliasedOutputs() {
  ModuleDesc d = moduleWithKernels(CodeKind::Cubin, kernels());
  d.signature.inputs.push_back({"w", DType::BF16, {4, 8}, {8, 1}, 0});
  d.signature.outputs.push_back({"y", DType::BF16, {4, 8}, {8, 1}, 0});
  d.signature.outputs.push_back({"w_out", DType::BF16, {4, 8}, {8, 1}, 0});
  d.signature.outputs.push_back({"w_t", DType::BF16, {8, 3}, {1, 8}, 8});
  d.signature.outputs.push_back({"w_wide", DType::BF16, {2, 4, 8}, {0, 8, 1}, 0});
  for (size_t o = 1; o < 4; ++o)
    d.signature.outputs[o].aliasOfInput = 0;
  d.buffers = {{BufferKind::Input, 0, 64, false},
               {BufferKind::Output, 0, 64, false, 0}};
  d.steps = {smallDispatch(0, {KernelArg::buffer(0), KernelArg::buffer(1)})};
  return d;
}

struct Entry {
  const char *file;
  ModuleDesc module;
};

std::vector<Entry> corpus() {
  return {{"constants.module", constants()},
          {"every-step.module", everyStep()},
          {"states-and-absent-outputs.module", statesAndAbsentOutputs()},
          {"aliased-outputs.module", aliasedOutputs()},
          {"collective-stream.module", streamedModule()},
          {"symbolic-sizes.module", symbolicModule()},
          {"symbolic-call.module", symbolicCallModule()},
          {"step-guards.module", guardedModule()},
          {"value-bindings.module", valueGuardedModule()}};
}

std::string corpusDir() {
  return std::string(STRIDE_SOURCE_DIR) +
         "/test/Fuzz/corpus/stride-module-fuzzer/";
}

TEST(ModuleCorpusTest, EntriesAreConsistentModules) {
  for (const Entry &e : corpus()) {
    Status ok = verifyModule(e.module, e.file);
    EXPECT_TRUE(ok) << ok.error().message;
  }
}

TEST(ModuleCorpusTest, CommittedCorpusIsCurrent) {
  bool write = std::getenv("STRIDE_WRITE_FUZZ_CORPUS") != nullptr;
  for (const Entry &e : corpus()) {
    std::string path = corpusDir() + e.file;
    if (write) {
      Status w = writeModuleFile(path, e.module);
      ASSERT_TRUE(w) << w.error().message;
    }
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> committed{std::istreambuf_iterator<char>(in),
                                   std::istreambuf_iterator<char>()};
    EXPECT_TRUE(committed == serializeModule(e.module))
        << path << " is not what this build writes; rerun with "
        << "STRIDE_WRITE_FUZZ_CORPUS=1 and commit it";
  }
}

} // namespace
