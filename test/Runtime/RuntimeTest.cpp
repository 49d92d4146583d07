//===- RuntimeTest.cpp - The runtime, with and without a GPU --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The checks that need no GPU always run. The GPU tests run where a CUDA
// device is present and are skipped elsewhere; the no-driver test runs only
// where libcuda.so.1 is absent (CI).
//
//===----------------------------------------------------------------------===//

#include "Benchmark.h"
#include "stride/Runtime/Invocation.h"
#include "stride/Target/CUDA/NVRTC.h"

// Private to the runtime; the zero-copy test allocates device memory itself.
#include "../../lib/Runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstring>

using namespace stride;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

HostArray floatArray(std::vector<int64_t> shape, const std::vector<float> &values) {
  HostArray a;
  a.dtype = DType::F32;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(float));
  if (!values.empty())
    std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

std::vector<float> floats(const HostArray &a) {
  std::vector<float> v(a.data.size() / sizeof(float));
  if (!v.empty())
    std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

std::vector<float> iota(size_t n, float start = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + float(i);
  return v;
}

GraphSignature twoInputSignature() {
  GraphSignature sig;
  sig.entryName = "forward";
  sig.inputs.push_back({"x", DType::F32, {4, 13, 33}, {429, 33, 1}, 0});
  sig.inputs.push_back({"idx", DType::I64, {7}, {1}, 0});
  sig.outputs.push_back({"y", DType::F32, {4, 33}, {33, 1}, 0});
  return sig;
}

HostArray zeros(DType dtype, std::vector<int64_t> shape) {
  HostArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(size_t(a.numElements()) * dtypeSize(dtype));
  return a;
}

//===----------------------------------------------------------------------===//
// No GPU needed
//===----------------------------------------------------------------------===//

TEST(RuntimeTest, NoDriverIsReported) {
  if (void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(lib);
    GTEST_SKIP() << "this machine has a CUDA driver";
  }
  Result<std::unique_ptr<Runtime>> rt = Runtime::create(0);
  ASSERT_FALSE(rt);
  EXPECT_EQ(rt.error().code, ErrorCode::Unavailable);
  const std::string &m = rt.error().message;
  EXPECT_EQ(m.rfind("no CUDA driver found: libcuda.so.1 could not be loaded (", 0),
            0u)
      << m;
  EXPECT_TRUE(contains(m, "libcuda.so.1: cannot open shared object file")) << m;
  EXPECT_TRUE(contains(m, "); running a Stride module needs an NVIDIA GPU and "
                          "its driver"))
      << m;
}

TEST(RuntimeTest, CheckInputsAcceptsMatchingArrays) {
  Status s = checkInputs(twoInputSignature(),
                         {zeros(DType::F32, {4, 13, 33}), zeros(DType::I64, {7})});
  EXPECT_TRUE(s) << s.error().message;
}

TEST(RuntimeTest, CheckInputsCount) {
  Status s = checkInputs(twoInputSignature(), {zeros(DType::F32, {4, 13, 33})});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(s.error().message,
            "'forward' takes 2 inputs (x, idx), but 1 was given");
}

TEST(RuntimeTest, CheckInputsDtype) {
  Status s = checkInputs(twoInputSignature(),
                         {zeros(DType::F64, {4, 13, 33}), zeros(DType::I64, {7})});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "input 'x' (1 of 2) expects f32 of shape [4, 13, 33], but was given "
            "f64 of shape [4, 13, 33]");
}

TEST(RuntimeTest, CheckInputsShape) {
  Status s = checkInputs(twoInputSignature(),
                         {zeros(DType::F32, {4, 13, 33}), zeros(DType::I64, {7, 1})});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "input 'idx' (2 of 2) expects i64 of shape [7], but was given i64 "
            "of shape [7, 1]");
}

TEST(RuntimeTest, CheckInputsDataSize) {
  HostArray x = zeros(DType::F32, {4, 13, 33});
  x.data.resize(100);
  Status s = checkInputs(twoInputSignature(), {x, zeros(DType::I64, {7})});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "input 'x' (1 of 2): the array holds 100 bytes of data, but f32 of "
            "shape [4, 13, 33] needs 6864");
}

ModuleDesc moduleWithImage(const std::string &arch, CodeKind kind) {
  ModuleDesc d;
  d.target = {Backend::Cuda, arch};
  d.executables.push_back({{kind, {0x7f, 'E', 'L', 'F'}}, {}});
  return d;
}

TEST(RuntimeTest, ArchCompatibility) {
  auto check = [](const std::string &arch, CodeKind kind, int major, int minor) {
    return checkArchCompatible(moduleWithImage(arch, kind), "m.stridemod", major,
                               minor, "device 0 (GPU)");
  };
  EXPECT_TRUE(check("sm_90", CodeKind::Cubin, 9, 0));
  EXPECT_TRUE(check("sm_80", CodeKind::Cubin, 8, 6));
  EXPECT_FALSE(check("sm_86", CodeKind::Cubin, 8, 0));
  EXPECT_FALSE(check("sm_80", CodeKind::Cubin, 9, 0));
  EXPECT_TRUE(check("sm_80", CodeKind::Ptx, 9, 0));
  EXPECT_TRUE(check("sm_90", CodeKind::Ptx, 9, 0));
  EXPECT_FALSE(check("sm_100", CodeKind::Ptx, 9, 0));

  Status s = check("sm_100", CodeKind::Cubin, 9, 0);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::Incompatible);
  EXPECT_EQ(s.error().message,
            "m.stridemod: compiled to a CUBIN for sm_100, but device 0 (GPU) has "
            "compute capability 9.0 (sm_90); a CUBIN for sm_XY runs only on GPUs "
            "of compute capability X.Y or a later X.Z. Recompile the graph with "
            "`stridec --arch=sm_90`");
  s = check("sm_100", CodeKind::Ptx, 9, 0);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "m.stridemod: compiled to PTX for compute_100, but device 0 (GPU) has "
            "compute capability 9.0 (sm_90); PTX runs only on GPUs of its "
            "compute capability or newer. Recompile the graph with `stridec "
            "--arch=sm_90`");
}

TEST(RuntimeTest, PackContiguousWithOffset) {
  TensorSignature t{"x", DType::F32, {2, 3}, {3, 1}, 2};
  Result<std::vector<uint8_t>> storage =
      packToStorage(floatArray({2, 3}, iota(6, 1)), t, 8 * 4);
  ASSERT_TRUE(storage);
  std::vector<float> s(8);
  std::memcpy(s.data(), storage->data(), 32);
  EXPECT_EQ(s, (std::vector<float>{0, 0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(floats(unpackFromStorage(storage->data(), t)), iota(6, 1));
}

TEST(RuntimeTest, PackTransposedLayout) {
  // Column-major 2x3: element (i, j) at address 1 + i + 2 * j.
  TensorSignature t{"x", DType::F32, {2, 3}, {1, 2}, 1};
  Result<std::vector<uint8_t>> storage =
      packToStorage(floatArray({2, 3}, {1, 2, 3, 4, 5, 6}), t, 7 * 4);
  ASSERT_TRUE(storage);
  std::vector<float> s(7);
  std::memcpy(s.data(), storage->data(), 28);
  EXPECT_EQ(s, (std::vector<float>{0, 1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(floats(unpackFromStorage(storage->data(), t)),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(RuntimeTest, PackBroadcastLayout) {
  TensorSignature t{"b", DType::F32, {3, 2}, {0, 1}, 0};
  Result<std::vector<uint8_t>> ok =
      packToStorage(floatArray({3, 2}, {7, 8, 7, 8, 7, 8}), t, 2 * 4);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(floats(unpackFromStorage(ok->data(), t)),
            (std::vector<float>{7, 8, 7, 8, 7, 8}));
  Result<std::vector<uint8_t>> bad =
      packToStorage(floatArray({3, 2}, {7, 8, 7, 9, 7, 8}), t, 2 * 4);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "input 'b' has a broadcast layout (shape [3, 2], strides [0, 1]) "
            "that stores elements [0, 1] and [1, 1] at one address, but the "
            "given array holds different values there");
}

TEST(RuntimeTest, PackScalarAndEmpty) {
  TensorSignature scalar{"s", DType::F32, {}, {}, 1};
  Result<std::vector<uint8_t>> storage =
      packToStorage(floatArray({}, {5}), scalar, 8);
  ASSERT_TRUE(storage);
  EXPECT_EQ(floats(unpackFromStorage(storage->data(), scalar)),
            (std::vector<float>{5}));
  TensorSignature empty{"e", DType::F32, {0, 4}, {1, 0}, 0};
  Result<std::vector<uint8_t>> none = packToStorage(floatArray({0, 4}, {}), empty, 0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(unpackFromStorage(none->data(), empty).data.empty());
}

//===----------------------------------------------------------------------===//
// On a GPU
//===----------------------------------------------------------------------===//

constexpr const char *kTestKernels = R"cuda(
extern "C" __global__ void vector_add(const float *a, const float *b, float *c,
                                      long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// out[i, j] = 2 * in[i, j] for strided 2-D layouts.
extern "C" __global__ void strided_double(const float *in, float *out,
                                          long long rows, long long cols,
                                          long long inOffset, long long inS0,
                                          long long inS1, long long outOffset,
                                          long long outS0, long long outS1) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= rows * cols)
    return;
  long long i = k / cols, j = k % cols;
  out[outOffset + i * outS0 + j * outS1] = 2.0f * in[inOffset + i * inS0 + j * inS1];
}

// Writes only the first half: the rest must show the poison.
extern "C" __global__ void half_write(float *out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2)
    out[i] = 1.0f;
}

extern "C" __global__ void write_out_of_bounds(float *out) {
  *(volatile float *)(out + (1ll << 40)) = 1.0f;
}
)cuda";

class RuntimeGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::unique_ptr<Runtime>> created = Runtime::create(0);
    if (!created)
      GTEST_SKIP() << created.error().message;
    rt = std::move(*created);
  }

  /// A module of kTestKernels compiled for this GPU, with buffers and
  /// signature to be filled in by the test.
  ModuleDesc baseModule(bool ptx = false, std::string arch = "") {
    ModuleDesc d;
    d.producer = "RuntimeTest";
    d.target = {Backend::Cuda, arch.empty() ? rt->deviceArch() : arch};
    NvrtcOptions opts;
    opts.arch = d.target.arch;
    opts.emitPtx = ptx;
    opts.programName = "runtime_test.cu";
    Result<CodeImage> image = compileCudaSource(kTestKernels, opts);
    EXPECT_TRUE(image) << image.error().message;
    ExecutableDesc executable;
    if (image)
      executable.image = *image;
    for (const char *k : {"vector_add", "strided_double", "half_write",
                          "write_out_of_bounds"})
      executable.kernels.push_back({k, std::string(k) + " (RuntimeTest.cpp)"});
    d.executables.push_back(std::move(executable));
    d.signature.entryName = "forward";
    return d;
  }

  ModuleDesc vectorAddModule(int64_t n, bool ptx = false) {
    ModuleDesc d = baseModule(ptx);
    for (const char *name : {"a", "b"})
      d.signature.inputs.push_back({name, DType::F32, {n}, {1}, 0});
    d.signature.outputs.push_back({"c", DType::F32, {n}, {1}, 0});
    d.buffers = {{BufferKind::Input, 0, n * 4},
                 {BufferKind::Input, 1, n * 4},
                 {BufferKind::Output, 0, n * 4}};
    DispatchStep l;
    l.kernel = 0;
    l.grid = {uint32_t((n + 255) / 256), 1, 1};
    l.block = {256, 1, 1};
    l.args = {KernelArg::buffer(0), KernelArg::buffer(1), KernelArg::buffer(2),
              KernelArg::i64(n)};
    d.steps = {l};
    return d;
  }

  std::shared_ptr<const Executable> loadExecutable(ModuleDesc d) {
    Result<std::shared_ptr<const Executable>> m =
        Executable::load(*rt, std::move(d), "test.stridemod");
    EXPECT_TRUE(m) << m.error().message;
    return m ? *m : nullptr;
  }

  /// An invocation of `d`, loaded on the device.
  std::unique_ptr<Invocation> load(ModuleDesc d,
                                   InvocationOptions options = {}) {
    std::shared_ptr<const Executable> exe = loadExecutable(std::move(d));
    if (!exe)
      return nullptr;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe, options);
    EXPECT_TRUE(inv) << inv.error().message;
    return inv ? std::move(*inv) : nullptr;
  }

  std::unique_ptr<Runtime> rt;
};

TEST_F(RuntimeGpuTest, VectorAdd) {
  const int64_t n = 1000;
  auto m = load(vectorAddModule(n));
  ASSERT_TRUE(m);
  Result<std::vector<HostArray>> out =
      m->run({floatArray({n}, iota(n)), floatArray({n}, iota(n, 10))});
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->size(), 1u);
  std::vector<float> c = floats((*out)[0]);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], 2 * i + 10) << i;
}

TEST_F(RuntimeGpuTest, VectorAddFromPtx) {
  const int64_t n = 300;
  auto m = load(vectorAddModule(n, /*ptx=*/true));
  ASSERT_TRUE(m);
  Result<std::vector<HostArray>> out =
      m->run({floatArray({n}, iota(n)), floatArray({n}, iota(n))});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(floats((*out)[0])[299], 598);
}

TEST_F(RuntimeGpuTest, ModuleSurvivesTheFileFormat) {
  const int64_t n = 64;
  std::vector<uint8_t> bytes = serializeModule(vectorAddModule(n));
  Result<ModuleDesc> parsed = parseModule(bytes.data(), bytes.size(), "m");
  ASSERT_TRUE(parsed) << parsed.error().message;
  auto m = load(*parsed);
  ASSERT_TRUE(m);
  Result<std::vector<HostArray>> out =
      m->run({floatArray({n}, iota(n)), floatArray({n}, iota(n))});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(floats((*out)[0])[63], 126);
}

TEST_F(RuntimeGpuTest, StridedInputAndOutputLayouts) {
  const int64_t rows = 37, cols = 53;
  ModuleDesc d = baseModule();
  // Column-major input at offset 3, column-major output at offset 2.
  d.signature.inputs.push_back({"x", DType::F32, {rows, cols}, {1, rows}, 3});
  d.signature.outputs.push_back({"y", DType::F32, {rows, cols}, {1, rows}, 2});
  d.buffers = {{BufferKind::Input, 0, (3 + rows * cols) * 4},
               {BufferKind::Output, 0, (2 + rows * cols) * 4}};
  DispatchStep l;
  l.kernel = 1;
  l.grid = {uint32_t((rows * cols + 127) / 128), 1, 1};
  l.block = {128, 1, 1};
  l.args = {KernelArg::buffer(0), KernelArg::buffer(1), KernelArg::i64(rows),
            KernelArg::i64(cols),  KernelArg::i64(3),    KernelArg::i64(1),
            KernelArg::i64(rows),  KernelArg::i64(2),    KernelArg::i64(1),
            KernelArg::i64(rows)};
  d.steps = {l};
  auto m = load(d);
  ASSERT_TRUE(m);
  std::vector<float> x = iota(rows * cols);
  Result<std::vector<HostArray>> out = m->run({floatArray({rows, cols}, x)});
  ASSERT_TRUE(out) << out.error().message;
  std::vector<float> y = floats((*out)[0]);
  for (size_t k = 0; k < x.size(); ++k)
    ASSERT_EQ(y[k], 2 * x[k]) << k;
}

TEST_F(RuntimeGpuTest, PoisonedOutputsShowUnwrittenElements) {
  const int64_t n = 512;
  ModuleDesc d = baseModule();
  d.signature.outputs.push_back({"y", DType::F32, {n}, {1}, 0});
  d.buffers = {{BufferKind::Output, 0, n * 4}};
  DispatchStep l;
  l.kernel = 2;
  l.grid = {2, 1, 1};
  l.block = {256, 1, 1};
  l.args = {KernelArg::buffer(0), KernelArg::i64(n)};
  d.steps = {l};
  InvocationOptions options;
  options.allocator =
      Allocator::create(*rt, {/*limitBytes=*/0, /*poison=*/true});
  auto m = load(d, options);
  ASSERT_TRUE(m);
  Result<std::vector<HostArray>> out = m->run({});
  ASSERT_TRUE(out) << out.error().message;
  std::vector<float> y = floats((*out)[0]);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[n / 2 - 1], 1.0f);
  EXPECT_TRUE(std::isnan(y[n / 2]));
  EXPECT_TRUE(std::isnan(y[n - 1]));
}

TEST_F(RuntimeGpuTest, MemoryLimit) {
  InvocationOptions options;
  options.allocator = Allocator::create(*rt, {/*limitBytes=*/6000});
  auto m = load(vectorAddModule(1000), options); // 3 buffers of 4000 bytes
  ASSERT_TRUE(m);
  Result<std::vector<HostArray>> out =
      m->run({floatArray({1000}, iota(1000)), floatArray({1000}, iota(1000))});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::ResourceExhausted);
  const std::string &msg = out.error().message;
  EXPECT_EQ(msg.rfind("out of GPU memory: allocating 4000 bytes for buffer 1 "
                      "(input 'b') of test.stridemod would bring the "
                      "allocator's use of device 0 (",
                      0),
            0u)
      << msg;
  EXPECT_TRUE(contains(msg, ") to 8000 bytes, over its limit of 6000 bytes"))
      << msg;
}

TEST_F(RuntimeGpuTest, InputMismatchIsNamed) {
  auto m = load(vectorAddModule(10));
  ASSERT_TRUE(m);
  Result<std::vector<HostArray>> out =
      m->run({floatArray({10}, iota(10)), floatArray({9}, iota(9))});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(out.error().message,
            "test.stridemod: input 'b' (2 of 2) expects f32 of shape [10], but "
            "was given f32 of shape [9]");
}

TEST_F(RuntimeGpuTest, WrongArchIsRefused) {
  ModuleDesc d = vectorAddModule(8);
  std::string other = rt->computeCapabilityMajor() == 9 ? "sm_100" : "sm_90";
  NvrtcOptions opts;
  opts.arch = other;
  Result<CodeImage> image = compileCudaSource(kTestKernels, opts);
  ASSERT_TRUE(image) << image.error().message;
  d.target.arch = other;
  d.executables[0].image = *image;
  Result<std::shared_ptr<const Executable>> m =
      Executable::load(*rt, d, "test.stridemod");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, ErrorCode::Incompatible);
  EXPECT_TRUE(contains(m.error().message,
                       "Recompile the graph with `stridec --arch=" +
                           rt->deviceArch() + "`"))
      << m.error().message;
}

TEST_F(RuntimeGpuTest, Benchmark) {
  const int64_t n = 1 << 20;
  std::shared_ptr<const Executable> exe = loadExecutable(vectorAddModule(n));
  ASSERT_TRUE(exe);
  std::vector<HostArray> inputs = {floatArray({n}, iota(n)),
                                   floatArray({n}, iota(n))};
  for (bool graph : {false, true}) {
    InvocationOptions options;
    options.useCudaGraph = graph;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe, options);
    ASSERT_TRUE(inv) << inv.error().message;
    Result<BenchResult> b = benchmarkInvocation(**inv, inputs, 3, 20);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_GT(b->medianMs, 0);
    EXPECT_LE(b->minMs, b->medianMs);
    // A benchmark leaves the invocation runnable.
    Result<std::vector<HostArray>> out = (*inv)->run(inputs);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(floats((*out)[0])[n - 1], 2.0f * float(n - 1));
  }
  Result<double> bw = measureCopyBandwidth(*rt->defaultAllocator(), 64 << 20);
  ASSERT_TRUE(bw) << bw.error().message;
  EXPECT_GT(*bw, 1e11); // any datacenter GPU copies > 100 GB/s
}

class RuntimeGpuGraphTest : public RuntimeGpuTest,
                            public ::testing::WithParamInterface<bool> {};

TEST_P(RuntimeGpuGraphTest, RunOnDevice) {
  const int64_t n = 4096;
  InvocationOptions options;
  options.useCudaGraph = GetParam();
  auto m = load(vectorAddModule(n), options);
  ASSERT_TRUE(m);
  const CudaDriver &cu = **loadCudaDriver();
  CUdeviceptr a = 0, b = 0, c = 0;
  ASSERT_EQ(cu.cuMemAlloc(&a, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cu.cuMemAlloc(&b, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cu.cuMemAlloc(&c, n * 4), CUDA_SUCCESS);
  std::vector<float> host = iota(n);
  ASSERT_EQ(cu.cuMemcpyHtoDAsync(a, host.data(), n * 4, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu.cuMemcpyHtoDAsync(b, host.data(), n * 4, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu.cuCtxSynchronize(), CUDA_SUCCESS);
  Status s = m->runOnDevice({a, b}, {c}, nullptr);
  ASSERT_TRUE(s) << s.error().message;
  std::vector<float> result(n);
  ASSERT_EQ(cu.cuMemcpyDtoHAsync(result.data(), c, n * 4, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu.cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(result[n - 1], 2.0f * float(n - 1));
  // Other pointers: with a CUDA graph, it is captured again over them.
  s = m->runOnDevice({c, a}, {b}, nullptr);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(cu.cuMemcpyDtoHAsync(result.data(), b, n * 4, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cu.cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(result[n - 1], 3.0f * float(n - 1));
  Status wrong = m->runOnDevice({a}, {c}, nullptr);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(wrong.error().message, "runOnDevice got 1 input and 1 "
                                              "output pointers"));
  cu.cuMemFree(a);
  cu.cuMemFree(b);
  cu.cuMemFree(c);
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutCudaGraph, RuntimeGpuGraphTest,
                         ::testing::Bool());

/// A fault leaves the CUDA context unusable, so it runs in a fresh process.
void runFaultingKernel() {
  Result<std::unique_ptr<Runtime>> rt = Runtime::create(0);
  if (!rt)
    std::exit(2);
  ModuleDesc d;
  d.producer = "RuntimeTest";
  d.target = {Backend::Cuda, (*rt)->deviceArch()};
  NvrtcOptions opts;
  opts.arch = d.target.arch;
  Result<CodeImage> image = compileCudaSource(kTestKernels, opts);
  if (!image)
    std::exit(3);
  d.executables = {{*image, {{"vector_add", ""}, {"write_out_of_bounds", ""}}}};
  d.signature.entryName = "forward";
  d.signature.outputs.push_back({"y", DType::F32, {4}, {1}, 0});
  d.buffers = {{BufferKind::Output, 0, 16}};
  DispatchStep fine{0, 0, {1, 1, 1}, {1, 1, 1}, 0,
                    {KernelArg::buffer(0), KernelArg::buffer(0),
                     KernelArg::buffer(0), KernelArg::i64(0)}};
  DispatchStep bad{0, 1, {1, 1, 1}, {1, 1, 1}, 0, {KernelArg::buffer(0)}};
  d.steps = {fine, bad, fine};
  Result<std::shared_ptr<const Executable>> m =
      Executable::load(**rt, d, "fault.stridemod");
  if (!m)
    std::exit(4);
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*m);
  if (!inv)
    std::exit(5);
  Result<std::vector<HostArray>> out = (*inv)->run({});
  std::fprintf(stderr, "%s: %s\n",
               out ? "no error" : errorCodeName(out.error().code),
               out ? "" : out.error().message.c_str());
  std::exit(0);
}

TEST_F(RuntimeGpuTest, KernelFaultNamesTheKernel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      runFaultingKernel(), ::testing::ExitedWithCode(0),
      "device fault: fault.stridemod: step 2 of 3 \\(kernel "
      "'write_out_of_bounds'\\) failed: CUDA_ERROR_ILLEGAL_ADDRESS: an "
      "illegal memory access was encountered");
}

} // namespace
