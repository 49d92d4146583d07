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
#include "stride/Runtime/Invocation.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
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
  EXPECT_EQ(runtime.error().code, ErrorCode::Unavailable);
  EXPECT_EQ(runtime.error().message, driver.error().message);
  EXPECT_NE(runtime.error().message.find(
                "no CUDA driver found: libcuda.so.1 could not be loaded"),
            std::string::npos)
      << runtime.error().message;
}

/// A graph compiled for the runtime's device and loaded on it.
std::shared_ptr<const Executable> compileAndLoad(Runtime &runtime,
                                                 const std::string &graph,
                                                 const std::string &name) {
  CompileOptions options;
  options.cuda.arch = runtime.deviceArch();
  CompileResult r = Compiler(options).compile(graph, name);
  EXPECT_TRUE(r.success) << name;
  if (!r.success)
    return nullptr;
  Result<std::shared_ptr<const Executable>> executable = Executable::loadBytes(
      runtime, r.moduleBytes.data(), r.moduleBytes.size(), name);
  EXPECT_TRUE(executable) << executable.error().message;
  return executable ? *executable : nullptr;
}

HostArray floatArray(std::vector<int64_t> shape, const std::vector<float> &v) {
  HostArray a{DType::F32, std::move(shape), {}};
  a.data.resize(v.size() * sizeof(float));
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

TEST(EmbedTest, LoadsAndRunsOnTheGpu) {
  Result<std::unique_ptr<Runtime>> runtime = Runtime::create(0);
  if (!runtime)
    GTEST_SKIP() << runtime.error().message;
  std::shared_ptr<const Executable> executable =
      compileAndLoad(**runtime, eightGraphs()[5].second, "add");
  ASSERT_TRUE(executable);
  Result<std::unique_ptr<Invocation>> invocation =
      Invocation::create(executable);
  ASSERT_TRUE(invocation) << invocation.error().message;
  std::vector<float> xs(512), ys(512);
  for (int i = 0; i < 512; ++i)
    xs[i] = float(i), ys[i] = float(2 * i);
  Result<std::vector<HostArray>> out =
      (*invocation)->run({floatArray({16, 32}, xs), floatArray({16, 32}, ys)});
  ASSERT_TRUE(out) << out.error().message;
  const auto *z = reinterpret_cast<const float *>((*out)[0].data.data());
  for (int i = 0; i < 512; ++i)
    ASSERT_EQ(z[i], float(3 * i)) << i;
}

/// The seed backward graph's gradient by its definition: g broadcast over
/// dim 1 of 4x13x33, rows [0, 6) zero.
std::vector<float> seedBackwardReference(const std::vector<float> &g) {
  std::vector<float> grad(4 * 13 * 33);
  for (int b = 0; b < 4; ++b)
    for (int j = 0; j < 13; ++j)
      for (int k = 0; k < 33; ++k)
        grad[(b * 13 + j) * 33 + k] = j < 6 ? 0.0f : g[b * 33 + k];
  return grad;
}

/// Distinct exact values for each thread and iteration.
std::vector<float> seedGradient(int thread, int iteration) {
  std::vector<float> g(4 * 33);
  for (size_t i = 0; i < g.size(); ++i)
    g[i] = float(thread * 1000000 + iteration * 200 + int(i)) + 0.5f;
  return g;
}

/// The seed backward graph loaded on the GPU; skipped without one.
class SeedBackwardGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<Runtime>> created = Runtime::create(0);
    if (!created)
      GTEST_SKIP() << created.error().message;
    runtime = std::move(*created);
    executable = compileAndLoad(
        *runtime, readFile(example("seed_backward.mlir")), "seed_backward");
    ASSERT_TRUE(executable);
  }

  std::unique_ptr<Runtime> runtime;
  std::shared_ptr<const Executable> executable;
};

/// One Executable, two threads, an Invocation each on its own stream (one
/// launching kernel by kernel, one replaying a CUDA graph): 1,000 runs each,
/// every result exact.
TEST_F(SeedBackwardGpuTest, OneExecutableServesTwoThreadsOnTwoStreams) {
  constexpr int kRuns = 1000;
  std::atomic<int> exact[2] = {0, 0};
  std::string firstError[2];
  auto work = [&](int thread) {
    InvocationOptions options;
    options.useCudaGraph = thread == 1;
    Result<std::unique_ptr<Invocation>> invocation =
        Invocation::create(executable, options);
    if (!invocation) {
      firstError[thread] = invocation.error().message;
      return;
    }
    for (int i = 0; i < kRuns; ++i) {
      std::vector<float> g = seedGradient(thread, i);
      Result<std::vector<HostArray>> out =
          (*invocation)->run({floatArray({4, 33}, g)});
      if (!out) {
        firstError[thread] = out.error().message;
        return;
      }
      std::vector<float> grad(4 * 13 * 33);
      std::memcpy(grad.data(), (*out)[0].data.data(), grad.size() * 4);
      if (grad == seedBackwardReference(g))
        ++exact[thread];
      else if (firstError[thread].empty())
        firstError[thread] = "run " + std::to_string(i) + " differs";
    }
  };
  std::thread first(work, 0), second(work, 1);
  first.join();
  second.join();
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(firstError[t], "") << "thread " << t;
    EXPECT_EQ(exact[t].load(), kRuns) << "thread " << t;
  }
}

/// The host-side cost of one invocation of the seed backward graph through
/// runOnDevice with its CUDA graph replayed: batches of 100 calls are timed
/// on the host (the GPU keeps up, so the queue never fills), and the median
/// batch gives the microseconds per invocation.
TEST_F(SeedBackwardGpuTest, HostCostOfOneInvocation) {
  InvocationOptions options;
  options.useCudaGraph = true;
  Result<std::unique_ptr<Invocation>> invocation =
      Invocation::create(executable, options);
  ASSERT_TRUE(invocation) << invocation.error().message;
  Allocator &allocator = *runtime->defaultAllocator();
  const uint64_t gBytes = 4 * 33 * 4, gradBytes = 4 * 13 * 33 * 4;
  Result<uint64_t> g = allocator.allocate(gBytes, "g");
  Result<uint64_t> grad = allocator.allocate(gradBytes, "grad");
  ASSERT_TRUE(g && grad);
  Invocation &inv = **invocation;
  std::vector<uint64_t> inputs = {*g}, outputs = {*grad};
  constexpr int kBatch = 100, kBatches = 50;
  std::vector<double> perCallUs;
  for (int batch = 0; batch < kBatches + 1; ++batch) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) {
      Status s = inv.runOnDevice(inputs, outputs, inv.stream());
      ASSERT_TRUE(s) << s.error().message;
    }
    auto stop = std::chrono::steady_clock::now();
    ASSERT_TRUE(inv.synchronize());
    if (batch > 0) // the first batch captures the graph
      perCallUs.push_back(
          std::chrono::duration<double, std::micro>(stop - start).count() /
          kBatch);
  }
  std::sort(perCallUs.begin(), perCallUs.end());
  double median = perCallUs[perCallUs.size() / 2];
  std::printf("host-side cost of one invocation of seed_backward (4x13x33, "
              "CUDA graph replayed) on %s: %.2f us (median of %d batches of "
              "%d; min %.2f us)\n",
              runtime->describeDevice().c_str(), median, kBatches, kBatch,
              perCallUs.front());
  EXPECT_LT(median, 10.0);
  allocator.release(*g, gBytes);
  allocator.release(*grad, gradBytes);
}

TEST(EmbedTest, CorruptModuleBytesAreRefused) {
  std::vector<uint8_t> junk(64, 0xAB);
  Result<ModuleDesc> parsed = parseModule(junk.data(), junk.size(), "junk");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message.rfind("junk", 0), 0u)
      << parsed.error().message;
}

} // namespace
