//===- ModuleStateTest.cpp - States and mutated inputs in a module --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Format version 3's states (persistent buffers) and mutated inputs: round
// trip, the verifier's rules, --inspect, and the runtime's GPU-free state
// packing (python-free-docs/state.md).
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"
#include "stride/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace stride;

namespace {

/// A decode step's plan: a cache state updated in place by a scatter's
/// phase 1 (its input and result the state's buffer), a mutated input
/// written by a fill, an output.
ModuleDesc stepModule() {
  ModuleDesc d;
  d.producer = "stridec 0.1";
  d.target = {Backend::Cuda, "sm_90"};
  ExecutableDesc executable;
  executable.image = {CodeKind::Cubin, {0x7f, 'E', 'L', 'F', 2, 1, 1, 0}};
  executable.kernels = {{"scatter_kernel", "scatter (step.py:3:0)"}};
  d.executables.push_back(std::move(executable));
  TensorSignature cache{"k_cache", DType::F32, {2, 8}, {8, 1}, 0};
  StateDesc zeros{cache, {}};
  std::vector<uint8_t> initial;
  for (int i = 0; i < 64; ++i)
    initial.push_back(uint8_t(i));
  StateDesc init{{"v_cache", DType::F32, {2, 8}, {8, 1}, 0}, initial};
  d.states = {zeros, init};
  d.signature.entryName = "forward";
  d.signature.inputs.push_back({"pos", DType::I64, {1}, {1}, 0});
  d.signature.inputs.push_back({"x", DType::F32, {4}, {1}, 0, /*mutated=*/true});
  d.signature.outputs.push_back({"y", DType::F32, {2}, {1}, 0});
  d.buffers = {{BufferKind::State, 0, 64, false},
               {BufferKind::State, 1, 64, false},
               {BufferKind::Input, 0, 8, false},
               {BufferKind::Input, 1, 16, false},
               {BufferKind::Output, 0, 16, false}};
  DispatchStep scatter;
  scatter.grid = {1, 1, 1};
  scatter.block = {256, 1, 1};
  scatter.args = {KernelArg::buffer(0), KernelArg::buffer(2),
                  KernelArg::buffer(0), KernelArg::i32(1)};
  d.steps = {scatter, FillStep{3, 0}, CopyStep{1, 4, 16}};
  return d;
}

std::string roundTripError(const ModuleDesc &d) {
  std::vector<uint8_t> bytes = serializeModule(d);
  Result<ModuleDesc> r = parseModule(bytes.data(), bytes.size(), "m.stridemod");
  return r ? std::string("(parsed)") : r.error().message;
}

TEST(ModuleStateTest, RoundTripKeepsStatesAndMutatedInputs) {
  ModuleDesc d = stepModule();
  std::vector<uint8_t> bytes = serializeModule(d);
  Result<ModuleDesc> parsed = parseModule(bytes.data(), bytes.size(), "m");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->states, d.states);
  EXPECT_TRUE(parsed->signature.inputs[1].mutated);
  EXPECT_TRUE(*parsed == d);
  // The initial data lies in the data section, aligned as constants are.
  ModuleFileLayout layout = moduleFileLayout(d);
  ASSERT_EQ(layout.stateOffsets.size(), 2u);
  EXPECT_EQ(layout.stateOffsets[1], 0u);
  const uint8_t *init = std::search(bytes.data(), bytes.data() + bytes.size(),
                                    d.states[1].init.begin(),
                                    d.states[1].init.end());
  EXPECT_EQ(uint64_t(init - bytes.data()), layout.dataSectionOffset);
  EXPECT_EQ(layout.dataSectionOffset % kModuleDataAlignment, 0u);
}

TEST(ModuleStateTest, VerifierRules) {
  ModuleDesc d = stepModule();
  d.buffers[1].index = 0;
  EXPECT_EQ(roundTripError(d),
            "m.stridemod: inconsistent module: state 0 'k_cache' is bound to "
            "2 buffers (expected exactly 1)");
  d = stepModule();
  d.states[1].init = d.states[1].init.slice(0, 63);
  EXPECT_EQ(roundTripError(d),
            "m.stridemod: inconsistent module: state 1 'v_cache' (f32 [2, 8] "
            "strides [8, 1] offset 0) has 63 bytes of initial data, but its "
            "layout needs 64 (or none: zeros)");
  d = stepModule();
  d.states[0].tensor.strides = {0, 1};
  EXPECT_EQ(roundTripError(d),
            "m.stridemod: inconsistent module: state 0 'k_cache' has the "
            "overlapping layout [2, 8] strides [0, 1]; a tensor the plan "
            "writes must give every element its own address");
  d = stepModule();
  d.states[1].tensor.name = "k_cache";
  EXPECT_EQ(roundTripError(d), "m.stridemod: inconsistent module: state name "
                               "'k_cache' is used twice");
  d = stepModule();
  d.buffers[0].sizeBytes = 32;
  EXPECT_EQ(roundTripError(d),
            "m.stridemod: inconsistent module: buffer 0 (state) has 32 bytes, "
            "but state 'k_cache' (f32 [2, 8] strides [8, 1] offset 0) needs 64");
  // Only mutated inputs may be written.
  d = stepModule();
  d.steps[1] = FillStep{2, 0};
  EXPECT_EQ(roundTripError(d),
            "m.stridemod: inconsistent module: step 2 of 3 (fill) writes "
            "buffer 2, which is a constant or an input the graph does not "
            "mutate");
  d = stepModule();
  d.signature.outputs[0].mutated = true;
  EXPECT_EQ(roundTripError(d), "m.stridemod: inconsistent module: output 0 'y' "
                               "is marked mutated (only inputs are)");
}

TEST(ModuleStateTest, InspectShowsStatesAndMutatedInputs) {
  std::string text = describeModule(stepModule());
  EXPECT_NE(text.find("  input 1 'x': f32 [4] strides [1] offset 0, mutated: "
                      "the plan writes it in place\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("states: 2 (persistent across runs, owned by each "
                      "invocation, updated in place)\n"
                      "  state 0 'k_cache': f32 [2, 8] strides [8, 1] offset "
                      "0, initially zeros\n"
                      "  state 1 'v_cache': f32 [2, 8] strides [8, 1] offset "
                      "0, initially the module's 64 bytes at data offset 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  buffer 0: state 0 'k_cache', 64 bytes\n"),
            std::string::npos);
  EXPECT_EQ(summarizeMemory(stepModule()).stateBytes, 128);
}

TEST(ModuleStateTest, StatesArePackedAllOrNothing) {
  ModuleDesc d = stepModule();
  HostArray cache{DType::F32, {2, 8}, std::vector<uint8_t>(64, 1)};
  auto packed = packStates(d, {{"v_cache", cache}, {"k_cache", cache}});
  ASSERT_TRUE(packed) << packed.error().message;
  ASSERT_EQ(packed->size(), 2u);
  EXPECT_EQ((*packed)[0].first, 1u);
  EXPECT_EQ((*packed)[1].second, cache.data);
  HostArray wrong{DType::F32, {2, 4}, std::vector<uint8_t>(32, 1)};
  auto bad = packStates(d, {{"k_cache", cache}, {"v_cache", wrong}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "state 'v_cache' expects f32 of shape [2, 8], but was given f32 of "
            "shape [2, 4]");
  EXPECT_EQ(packStates(d, {{"w", cache}}).error().message,
            "the module has no state named 'w' (its states: 'k_cache', "
            "'v_cache')");
  EXPECT_EQ(packStates(d, {{"k_cache", cache}, {"k_cache", cache}})
                .error()
                .message,
            "state 'k_cache' is given twice");
  EXPECT_EQ(initialStateStorage(d, 0), std::vector<uint8_t>(64, 0));
  EXPECT_EQ(initialStateStorage(d, 1), d.states[1].init.toVector());
}

} // namespace
