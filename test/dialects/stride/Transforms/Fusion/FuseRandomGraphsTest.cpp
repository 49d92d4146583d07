//===- FuseRandomGraphsTest.cpp - stride-fuse on 1000 random graphs -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every random graph parses and verifies, passes legalization and fusion,
// verifies again, and comes out with every functional op inside a kernel
// that satisfies the kernel contract. The generator is deterministic and
// covers the ops it promises. A failure prints the seed and the graph.
//
//===----------------------------------------------------------------------===//

#include "FusionTestUtil.h"
#include "RandomGraph.h"

#include "dialects/stride/Analysis/KernelContract.h"

#include <gtest/gtest.h>

#include <map>

using namespace mlir;
using namespace stride;
using namespace stride::test;

namespace {

constexpr uint64_t kGraphs = 1000;

TEST(RandomGraphs, GeneratorIsDeterministic) {
  for (uint64_t seed = 0; seed < 50; ++seed)
    EXPECT_EQ(generateRandomGraph(seed).text, generateRandomGraph(seed).text)
        << "seed " << seed;
  EXPECT_NE(generateRandomGraph(1).text, generateRandomGraph(2).text);
}

TEST(RandomGraphs, GeneratorCoversTheOps) {
  std::map<std::string, int> seen;
  const char *ops[] = {
      "stride.expand ",        "stride.permute ",      "stride.slice ",
      "stride.select ",        "stride.unsqueeze ",    "stride.squeeze ",
      "stride.view ",          "stride.as_strided ",   "stride.add ",
      "stride.exp ",           "stride.cmp ",          "stride.where ",
      "stride.cast ",          "stride.slice_scatter", "stride.select_scatter",
      "stride.sum ",           "stride.max ",          "stride.mean ",
      "keepdim",               "stride.index_select",  "stride.gather",
      "stride.index_add",      "stride.scatter_add",   "stride.full ",
      "strides = [0",          "step 2",               "step 3",
      "stride.erf ",           "stride.any ",          "stride.cat ",
      "stride.cumsum "};
  for (uint64_t seed = 0; seed < kGraphs; ++seed) {
    std::string text = generateRandomGraph(seed).text;
    for (const char *op : ops)
      if (text.find(op) != std::string::npos)
        ++seen[op];
  }
  for (const char *op : ops)
    EXPECT_GE(seen[op], 10) << "'" << op << "' appears in only " << seen[op]
                            << " of " << kGraphs << " graphs";
}

TEST(RandomGraphs, WideGraphsHaveLongDimsAndStaySmall) {
  RandomGraphOptions options;
  options.wide = true;
  int bf16 = 0, longRows = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomGraph graph = generateRandomGraph(seed, options);
    EXPECT_EQ(graph.text, generateRandomGraph(seed, options).text);
    EXPECT_NE(graph.text, generateRandomGraph(seed).text);
    int64_t longest = 0;
    for (const GraphInput &input : graph.inputs) {
      int64_t elements = 1;
      for (int64_t d : input.shape) {
        elements *= d;
        longest = std::max(longest, d);
      }
      // A new shape takes at most kMaxWideElements; a cat joins up to 3.
      EXPECT_LE(elements, 3 * kMaxWideElements) << "seed " << seed;
    }
    EXPECT_GE(longest, 8) << "seed " << seed;
    longRows += longest > 32768;
    bf16 += graph.text.find("xbf16") != std::string::npos;
  }
  // Rows a cluster or shared memory takes, and bf16 graphs, in numbers.
  EXPECT_GE(longRows, 20);
  EXPECT_GE(bf16, 40);
}

TEST(RandomGraphs, GeneratorCoversMatmul) {
  RandomGraphOptions options;
  options.matmulOps = true;
  std::map<std::string, int> seen;
  const char *forms[] = {"stride.matmul ", " bias ", "epilogue relu",
                         "epilogue gelu_tanh", "x4xf32, strides = [0, ",
                         "stride.gelu_tanh "};
  for (uint64_t seed = 0; seed < kGraphs; ++seed) {
    std::string text = generateRandomGraph(seed, options).text;
    for (const char *form : forms)
      if (text.find(form) != std::string::npos)
        ++seen[form];
  }
  for (const char *form : forms)
    EXPECT_GE(seen[form], 10) << "'" << form << "' appears in only "
                              << seen[form] << " of " << kGraphs << " graphs";
}

/// Checks the graphs of `generate` for seeds 0 to 299: each is the same
/// text twice, parses, verifies and fuses, and each of `forms` appears in
/// at least 10 of them.
void expectGraphsCoverForms(std::string (*generate)(uint64_t),
                            llvm::ArrayRef<const char *> forms) {
  constexpr uint64_t kGraphs = 300;
  FusionHarness harness;
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < kGraphs; ++seed) {
    std::string text = generate(seed);
    EXPECT_EQ(text, generate(seed)) << "seed " << seed;
    OwningOpRef<ModuleOp> module = harness.parse(text);
    ASSERT_TRUE(module) << "seed " << seed << ": the graph does not parse or "
                        << "verify:\n"
                        << harness.diagnostics() << text;
    ASSERT_TRUE(succeeded(harness.fuse(*module)))
        << "seed " << seed << ": fusion failed:\n"
        << harness.diagnostics() << text;
    for (const char *form : forms)
      if (text.find(form) != std::string::npos)
        ++seen[form];
  }
  for (const char *form : forms)
    EXPECT_GE(seen[form], 10) << "'" << form << "' appears in only "
                              << seen[form] << " of " << kGraphs << " graphs";
}

/// The one-matmul graphs of the GPU check (stride-gen --matmul) cover every
/// dtype, operand layout and epilogue.
TEST(RandomGraphs, MatmulGraphsParseAndCoverTheLayouts) {
  expectGraphsCoverForms(generateMatmulGraph,
                         {"xf32,", "xf16,", "xbf16,", "xf64,",
                          "stride.permute ", "step 2 :", "start 2 end",
                          "stride.expand ", " bias ", "epilogue relu",
                          "epilogue gelu_tanh", "<1x", " addend ",
                          "stride.add ", "stride.relu "});
}

/// The attention graphs of the emulator's campaign (stride-gen --attention)
/// cover every dtype, operand layout, mask and flag.
TEST(RandomGraphs, AttentionGraphsParseAndCoverTheForms) {
  expectGraphsCoverForms(generateAttentionGraph,
                         {"xf32,", "xf16,", "xbf16,", "stride.permute ",
                          "xi1,", "strides = [0, 0, ", " causal",
                          "stride.attention_backward", "%lse", "x20xf",
                          "x128xf", "<1x"});
}

/// The convolution graphs of the emulator's campaign (stride-gen
/// --convolution) cover every dtype, layout and epilogue, grouped,
/// transposed, strided and dilated ones.
TEST(RandomGraphs, ConvolutionGraphsParseAndCoverTheForms) {
  expectGraphsCoverForms(generateConvolutionGraph,
                         {"xf32,", "xf16,", "xbf16,", "xf64,",
                          "stride.permute ", " bias ", " transposed",
                          "output_padding", "dilation [2", "stride [2",
                          "stride.mul ", "stride.relu ", "padding [0]",
                          "groups 2 "});
}

/// What fusing random graphs formed: kernels per form, kernels, the
/// functional ops in them, and the library calls left between them.
struct FusionCounts {
  std::map<std::string, int> forms;
  int kernels = 0, fusedOps = 0, libraryCalls = 0;
};

/// Fuses `graphs` random graphs of `options` and checks that every
/// functional op ends up in a kernel that keeps the contract.
void fuseRandomGraphs(uint64_t graphs, const RandomGraphOptions &options,
                      FusionCounts &counts) {
  FusionHarness harness;
  std::map<std::string, int> &forms = counts.forms;
  int &kernels = counts.kernels, &fusedOps = counts.fusedOps;
  for (uint64_t seed = 0; seed < graphs; ++seed) {
    RandomGraph graph = generateRandomGraph(seed, options);
    OwningOpRef<ModuleOp> module = harness.parse(graph.text);
    ASSERT_TRUE(module) << "seed " << seed << ": the graph does not parse or "
                        << "verify:\n"
                        << harness.diagnostics() << graph.text;
    ASSERT_TRUE(succeeded(harness.fuse(*module)))
        << "seed " << seed << ": fusion failed:\n"
        << harness.diagnostics() << graph.text;
    ASSERT_TRUE(succeeded(verify(*module)))
        << "seed " << seed << ": the fused graph does not verify:\n"
        << harness.diagnostics() << graph.text;
    func::FuncOp func = *module->getOps<func::FuncOp>().begin();
    for (Operation &op : func.getBody().front()) {
      counts.libraryCalls += isLibraryCall(&op);
      ASSERT_FALSE(isFunctional(&op))
          << "seed " << seed << ": '" << op.getName().getStringRef().str()
          << "' was left outside a kernel:\n"
          << graph.text << "\nfused:\n"
          << printOp(*module);
      auto kernel = dyn_cast<KernelOp>(op);
      if (!kernel)
        continue;
      FailureOr<KernelClass> kind = verifyKernel(kernel);
      ASSERT_TRUE(succeeded(kind))
          << "seed " << seed << ": kernel '" << kernel.getSymName().str()
          << "' breaks the contract:\n"
          << harness.diagnostics()
          << graph.text << "\nfused:\n"
          << printOp(*module);
      ++forms[stringifyKernelForm(kind->form).str()];
      ++kernels;
      for (Operation &inner : kernel.getBodyBlock())
        fusedOps += isFunctional(&inner);
    }
  }
}

TEST(RandomGraphs, FuseIntoContractKernels) {
  FusionCounts counts;
  fuseRandomGraphs(kGraphs, RandomGraphOptions(), counts);
  if (HasFatalFailure())
    return;
  std::map<std::string, int> &forms = counts.forms;
  int kernels = counts.kernels, fusedOps = counts.fusedOps;
  std::printf("%llu graphs: %d kernels (%d functional ops in them)",
              static_cast<unsigned long long>(kGraphs), kernels, fusedOps);
  for (auto &[form, count] : forms)
    std::printf(", %d %s", count, form.c_str());
  std::printf("\n");
  // Every form of the contract is exercised.
  EXPECT_GT(forms["pointwise"], 0);
  EXPECT_GT(forms["reduction"], 0);
  EXPECT_GT(forms["index-scatter"], 0);
  EXPECT_GT(forms["broadcast-reduction"], 0);
  EXPECT_GT(forms["scan"], 0);
  EXPECT_GT(fusedOps, kernels); // something fused at all
}

// Matrix products stay between kernels (a kernel boundary), and the kernels
// around them keep the contract.
TEST(RandomGraphs, FuseAroundMatmul) {
  RandomGraphOptions options;
  options.matmulOps = true;
  FusionCounts counts;
  fuseRandomGraphs(kGraphs, options, counts);
  if (HasFatalFailure())
    return;
  std::printf("%llu graphs with matmul: %d kernels, %d matmuls between them\n",
              static_cast<unsigned long long>(kGraphs), counts.kernels,
              counts.libraryCalls);
  EXPECT_GT(counts.libraryCalls, 100);
  EXPECT_GT(counts.fusedOps, counts.kernels);
}

} // namespace

// The embedding API's fusion options (MLIR-free, PipelineOptions.h) start
// at stride-fuse's own defaults (Passes.td).
TEST(FusionOptions, DefaultsAreThePassDefaults) {
  stride::FuseOptions pass;
  stride::FusionOptions pipeline;
  stride::FuseOptions converted = stride::toFuseOptions(pipeline);
  EXPECT_EQ(converted.broadcastEpilogues, pass.broadcastEpilogues);
  EXPECT_EQ(converted.recomputeCasts, pass.recomputeCasts);
  EXPECT_EQ(converted.rowInputOutputs, pass.rowInputOutputs);
  EXPECT_EQ(converted.siblingScatters, pass.siblingScatters);
  EXPECT_EQ(converted.maxKernelOps, pass.maxKernelOps);
  EXPECT_EQ(converted.maxKernelRegisters, pass.maxKernelRegisters);
}
