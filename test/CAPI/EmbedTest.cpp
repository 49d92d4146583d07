//===- EmbedTest.cpp - The C++ embedding API, through libstride.so --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Linked against the shared library an embedder gets (libstride.so), so it
// also checks that the library exports what the public headers declare.
// Needs no GPU: NVRTC compiles without one.
//
//===----------------------------------------------------------------------===//

#include "stride/Compiler/Compiler.h"
#include "stride/Module/Module.h"
#include "stride/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

using namespace stride;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string example(const std::string &name) {
  return std::string(STRIDE_SOURCE_DIR) + "/examples/" + name;
}

/// Captures everything written to file descriptors 1 and 2 (not only
/// std::cout/cerr: MLIR and NVRTC would write through llvm::errs() or C
/// stdio) while it lives.
class CaptureStdio {
public:
  CaptureStdio() {
    std::fflush(stdout);
    std::fflush(stderr);
    file = std::tmpfile();
    for (int fd : {1, 2}) {
      saved[fd - 1] = dup(fd);
      dup2(fileno(file), fd);
    }
  }
  /// Restores fds 1 and 2 and returns what was written.
  std::string finish() {
    std::fflush(stdout);
    std::fflush(stderr);
    for (int fd : {1, 2}) {
      dup2(saved[fd - 1], fd);
      close(saved[fd - 1]);
    }
    std::string text;
    std::rewind(file);
    for (int c; (c = std::fgetc(file)) != EOF;)
      text += static_cast<char>(c);
    std::fclose(file);
    return text;
  }

private:
  std::FILE *file = nullptr;
  int saved[2] = {-1, -1};
};

constexpr const char *kMalformed = R"(func.func @bad(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x9xf32> {
  %y = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x9xf32>
  return %y : !stride.tensor<4x9xf32>
}
)";

TEST(EmbedTest, MalformedGraphGivesDiagnosticsAsDataAndPrintsNothing) {
  Compiler compiler;
  CaptureStdio capture;
  CompileResult r = compiler.compile(kMalformed, "bad.mlir");
  std::string printed = capture.finish();
  EXPECT_EQ(printed, "");
  EXPECT_FALSE(r.success);
  EXPECT_TRUE(r.moduleBytes.empty());
  ASSERT_FALSE(r.diagnostics.empty());
  const Diagnostic &d = r.diagnostics[0];
  EXPECT_EQ(d.severity, Diagnostic::Severity::Error);
  EXPECT_EQ(d.file, "bad.mlir");
  EXPECT_EQ(d.line, 2u);
  EXPECT_EQ(d.column, 8u);
  EXPECT_NE(d.message.find("'stride.exp' op"), std::string::npos) << d.message;
}

TEST(EmbedTest, SyntaxErrorIsLocated) {
  CompileResult r = Compiler().compile("func.func @f( {\n", "syntax.mlir");
  ASSERT_FALSE(r.success);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].file, "syntax.mlir");
  EXPECT_EQ(r.diagnostics[0].line, 1u);
  EXPECT_NE(r.diagnostics[0].column, 0u);
}

TEST(EmbedTest, IllegalLayoutErrorCarriesNotes) {
  CaptureStdio capture;
  CompileResult r = Compiler().compileFile(example("seed_backward_fx.mlir"));
  EXPECT_EQ(capture.finish(), "");
  ASSERT_FALSE(r.success);
  ASSERT_FALSE(r.diagnostics.empty());
  const Diagnostic &d = r.diagnostics[0];
  EXPECT_NE(d.message.find("overlapping layout"), std::string::npos)
      << d.message;
  EXPECT_NE(d.file.find("seed_backward_fx.mlir"), std::string::npos);
  EXPECT_NE(d.line, 0u);
  ASSERT_FALSE(d.notes.empty());
  EXPECT_EQ(d.notes[0].severity, Diagnostic::Severity::Note);
}

TEST(EmbedTest, RepairLayoutsOptionCompilesTheIllegalGraph) {
  CompileOptions options;
  options.pipeline.repairLayouts = true;
  options.emit = EmitKind::Mlir;
  CompileResult r = Compiler(options).compileFile(example("seed_backward_fx.mlir"));
  EXPECT_TRUE(r.success);
  EXPECT_NE(r.text.find("stride.kernel"), std::string::npos);
}

TEST(EmbedTest, BadOptionsAndMissingFilesAreDiagnostics) {
  CompileOptions options;
  options.cuda.arch = "sm_9x";
  CompileResult r = Compiler(options).compile(kMalformed, "bad.mlir");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].message.find("invalid GPU architecture 'sm_9x'"),
            std::string::npos);

  r = Compiler().compileFile("/nonexistent/graph.mlir");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].file, "/nonexistent/graph.mlir");
  EXPECT_NE(r.diagnostics[0].message.find("cannot read the graph file"),
            std::string::npos);
}

/// Eight graphs: the examples that compile, and two small ones.
std::vector<std::pair<std::string, std::string>> eightGraphs() {
  std::vector<std::pair<std::string, std::string>> graphs;
  for (const char *name : {"seed_forward.mlir", "seed_backward.mlir",
                           "softmax.mlir", "bias_gelu_residual.mlir",
                           "embedding_grad.mlir"})
    graphs.emplace_back(name, readFile(example(name)));
  graphs.emplace_back("add.mlir", R"(
func.func @add(%x: !stride.tensor<16x32xf32>, %y: !stride.tensor<16x32xf32>) -> !stride.tensor<16x32xf32> {
  %z = stride.add %x, %y : !stride.tensor<16x32xf32>, !stride.tensor<16x32xf32> -> !stride.tensor<16x32xf32>
  return %z : !stride.tensor<16x32xf32>
})");
  graphs.emplace_back("rowsum.mlir", R"(
func.func @rowsum(%x: !stride.tensor<8x128xf32>) -> !stride.tensor<8xf32> {
  %e = stride.exp %x : !stride.tensor<8x128xf32> -> !stride.tensor<8x128xf32>
  %s = stride.sum %e dims [1] : !stride.tensor<8x128xf32> -> !stride.tensor<8xf32>
  return %s : !stride.tensor<8xf32>
})");
  graphs.emplace_back("ones.mlir", R"(
func.func @ones() -> !stride.tensor<4x8xf32> {
  %one = stride.full 1.0 : !stride.tensor<4x8xf32>
  return %one : !stride.tensor<4x8xf32>
})");
  return graphs;
}

TEST(EmbedTest, ConcurrentCompilesMatchSequentialOnes) {
  const Compiler compiler;
  std::vector<std::pair<std::string, std::string>> graphs = eightGraphs();
  ASSERT_EQ(graphs.size(), 8u);

  std::vector<CompileResult> sequential;
  for (const auto &[name, text] : graphs) {
    sequential.push_back(compiler.compile(text, name));
    ASSERT_TRUE(sequential.back().success)
        << name << ": " << (sequential.back().diagnostics.empty()
                                ? std::string()
                                : sequential.back().diagnostics[0].format());
  }

  // Four threads share one Compiler and take graphs from a common counter.
  std::vector<CompileResult> concurrent(graphs.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < graphs.size();)
        concurrent[i] = compiler.compile(graphs[i].second, graphs[i].first);
    });
  for (std::thread &t : threads)
    t.join();

  for (size_t i = 0; i < graphs.size(); ++i) {
    SCOPED_TRACE(graphs[i].first);
    ASSERT_TRUE(concurrent[i].success);
    EXPECT_FALSE(concurrent[i].moduleBytes.empty());
    EXPECT_EQ(concurrent[i].moduleBytes, sequential[i].moduleBytes);
  }
}

TEST(EmbedTest, CompiledModuleBytesParseToTheSignature) {
  CompileResult r = Compiler().compileFile(example("softmax.mlir"));
  ASSERT_TRUE(r.success);
  Result<ModuleDesc> parsed =
      parseModule(r.moduleBytes.data(), r.moduleBytes.size(), "softmax");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, r.module);
  const GraphSignature &sig = parsed->signature;
  EXPECT_EQ(sig.entryName, "softmax");
  ASSERT_EQ(sig.inputs.size(), 1u);
  EXPECT_EQ(describeTensor(sig.inputs[0]),
            "f32 [64, 512] strides [512, 1] offset 0");
  ASSERT_EQ(sig.outputs.size(), 1u);
}

bool hasCudaDriver() {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}

TEST(EmbedTest, RuntimeWithoutDriverIsAnErrorValue) {
  if (hasCudaDriver())
    GTEST_SKIP() << "a CUDA driver is present";
  CaptureStdio capture;
  Status driver = Runtime::checkDriver();
  Result<std::unique_ptr<Runtime>> runtime = Runtime::create(0);
  EXPECT_EQ(capture.finish(), "");
  ASSERT_FALSE(driver);
  ASSERT_FALSE(runtime);
  EXPECT_EQ(runtime.error().message, driver.error().message);
  EXPECT_NE(runtime.error().message.find(
                "no CUDA driver found: libcuda.so.1 could not be loaded"),
            std::string::npos)
      << runtime.error().message;
}

TEST(EmbedTest, LoadsAndRunsOnTheGpu) {
  Result<std::unique_ptr<Runtime>> runtime = Runtime::create(0);
  if (!runtime)
    GTEST_SKIP() << runtime.error().message;
  CompileOptions options;
  options.cuda.arch = (*runtime)->deviceArch();
  CompileResult r = Compiler(options).compile(eightGraphs()[5].second, "add");
  ASSERT_TRUE(r.success);
  Result<std::unique_ptr<LoadedModule>> module = LoadedModule::loadBytes(
      **runtime, r.moduleBytes.data(), r.moduleBytes.size(), "add");
  ASSERT_TRUE(module) << module.error().message;
  HostArray x{DType::F32, {16, 32}, {}}, y = x;
  std::vector<float> xs(512), ys(512);
  for (int i = 0; i < 512; ++i)
    xs[i] = float(i), ys[i] = float(2 * i);
  x.data.assign(reinterpret_cast<uint8_t *>(xs.data()),
                reinterpret_cast<uint8_t *>(xs.data() + 512));
  y.data.assign(reinterpret_cast<uint8_t *>(ys.data()),
                reinterpret_cast<uint8_t *>(ys.data() + 512));
  Result<std::vector<HostArray>> out = (*module)->run({x, y});
  ASSERT_TRUE(out) << out.error().message;
  const auto *z = reinterpret_cast<const float *>((*out)[0].data.data());
  for (int i = 0; i < 512; ++i)
    ASSERT_EQ(z[i], float(3 * i)) << i;
}

TEST(EmbedTest, CorruptModuleBytesAreRefused) {
  std::vector<uint8_t> junk(64, 0xAB);
  Result<ModuleDesc> parsed = parseModule(junk.data(), junk.size(), "junk");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message.rfind("junk", 0), 0u)
      << parsed.error().message;
}

} // namespace
