//===- stride-gpu-smoke.cpp - End-to-end check of NVRTC + module + runtime ===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A standalone program for a GPU machine: it builds modules in memory (CUDA
// C++ compiled with NVRTC for the GPU it finds), sends them through the
// module file format, runs them with the runtime and checks the results.
// Prints one line per check and PASS or FAIL; exits 0 only on PASS.
//
//   stride-gpu-smoke [--device=N] [--elements=N]
//
// No MLIR and no compiler front end are involved, so a failure here is in
// NVRTC, the module format, the runtime or the machine.
//
//===----------------------------------------------------------------------===//

#include "Benchmark.h"
#include "stride/Module/Module.h"
#include "stride/Runtime/Invocation.h"
#include "stride/Target/CUDA/NVRTC.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace stride;

namespace {

constexpr const char *kKernels = R"cuda(
// vector_add: c = a + b
extern "C" __global__ void vector_add(const float *__restrict__ a,
                                      const float *__restrict__ b,
                                      float *__restrict__ c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// transpose_scale over storage: ys[j + i * cols] = s * xs[i + j * rows],
// i.e. y = s * x^T for x column-major (rows x cols) and y column-major.
extern "C" __global__ void transpose_scale(const float *xs, float *ys,
                                           long long rows, long long cols,
                                           float s) {
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < rows * cols)
    ys[k] = s * xs[k / cols + (k % cols) * rows];
}

extern "C" __global__ void write_out_of_bounds(float *out) {
  *(volatile float *)(out + (1ll << 40)) = 1.0f;
}
)cuda";

struct Options {
  int device = 0;
  int64_t elements = 1 << 20;
};

bool parseArgs(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--device=", 0) == 0)
      options.device = std::atoi(arg.c_str() + 9);
    else if (arg.rfind("--elements=", 0) == 0)
      options.elements = std::atoll(arg.c_str() + 11);
    else
      return false;
  }
  return options.elements > 0;
}

int failures = 0;

void report(const std::string &check, const Status &status) {
  if (status) {
    std::printf("  ok    %s\n", check.c_str());
  } else {
    std::printf("  FAIL  %s: %s\n", check.c_str(), status.error().message.c_str());
    ++failures;
  }
  std::fflush(stdout);
}

HostArray floatArray(std::vector<int64_t> shape, const std::vector<float> &v) {
  HostArray a;
  a.dtype = DType::F32;
  a.shape = std::move(shape);
  a.data.resize(v.size() * sizeof(float));
  if (!v.empty())
    std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

const float *floatsOf(const HostArray &a) {
  return reinterpret_cast<const float *>(a.data.data());
}

ModuleDesc baseModule(const CodeImage &image, const std::string &arch) {
  ModuleDesc d;
  d.producer = "stride-gpu-smoke";
  d.target = {Backend::Cuda, arch};
  d.executables = {{image,
                    {{"vector_add", "c = a + b"},
                     {"transpose_scale", "y = s * transpose(x)"},
                     {"write_out_of_bounds", "a deliberate fault"}}}};
  d.signature.entryName = "smoke";
  return d;
}

uint32_t blocksFor(int64_t n, uint32_t block) {
  return static_cast<uint32_t>((n + block - 1) / block);
}

ModuleDesc vectorAddModule(const CodeImage &image, const std::string &arch,
                           int64_t n) {
  ModuleDesc d = baseModule(image, arch);
  d.signature.inputs = {{"a", DType::F32, {n}, {1}, 0},
                        {"b", DType::F32, {n}, {1}, 0}};
  d.signature.outputs = {{"c", DType::F32, {n}, {1}, 0}};
  d.buffers = {{BufferKind::Input, 0, n * 4},
               {BufferKind::Input, 1, n * 4},
               {BufferKind::Output, 0, n * 4}};
  d.steps = {DispatchStep{0, 0, {blocksFor(n, 256), 1, 1}, {256, 1, 1}, 0,
                          {KernelArg::buffer(0), KernelArg::buffer(1),
                           KernelArg::buffer(2), KernelArg::i64(n)}}};
  return d;
}

/// Sends the module through the file format, as stridec and stride-run do.
Result<ModuleDesc> throughFileFormat(const ModuleDesc &d) {
  if (Status s = verifyModule(d, "smoke.stridemod"); !s)
    return s.error();
  std::vector<uint8_t> bytes = serializeModule(d);
  return parseModule(bytes.data(), bytes.size(), "smoke.stridemod");
}

Result<std::shared_ptr<const Executable>> loadViaFile(Runtime &rt,
                                                      const ModuleDesc &d) {
  Result<ModuleDesc> parsed = throughFileFormat(d);
  if (!parsed)
    return parsed.error();
  return Executable::load(rt, *parsed, "smoke.stridemod");
}

/// One run of the module, loaded through the file format.
Result<std::vector<HostArray>>
runViaFile(Runtime &rt, const ModuleDesc &d,
           const std::vector<HostArray> &inputs) {
  Result<std::shared_ptr<const Executable>> executable = loadViaFile(rt, d);
  if (!executable)
    return executable.error();
  Result<std::unique_ptr<Invocation>> invocation =
      Invocation::create(*executable);
  if (!invocation)
    return invocation.error();
  return (*invocation)->run(inputs);
}

Status
checkVectorAdd(Runtime &rt, const CodeImage &image, int64_t n,
               std::vector<HostArray> *inputsOut = nullptr,
               std::shared_ptr<const Executable> *executableOut = nullptr) {
  Result<std::shared_ptr<const Executable>> m =
      loadViaFile(rt, vectorAddModule(image, rt.deviceArch(), n));
  if (!m)
    return m.error();
  // Integers below 2^24 add exactly in float.
  std::vector<float> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = float(i % 4000000);
    b[i] = float(2 * (i % 4000000) + 1);
  }
  std::vector<HostArray> inputs = {floatArray({n}, a), floatArray({n}, b)};
  Result<std::unique_ptr<Invocation>> invocation = Invocation::create(*m);
  if (!invocation)
    return invocation.error();
  Result<std::vector<HostArray>> out = (*invocation)->run(inputs);
  if (!out)
    return out.error();
  const float *c = floatsOf((*out)[0]);
  for (int64_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i])
      return makeError(ErrorCode::Internal, "c[" + std::to_string(i) +
                                                "] = " + std::to_string(c[i]) +
                                                ", expected " +
                                                std::to_string(a[i] + b[i]));
  if (inputsOut)
    *inputsOut = std::move(inputs);
  if (executableOut)
    *executableOut = *m;
  return Status::ok();
}

/// y = 2 * x^T with x and y both column-major on the device, so both layout
/// paths of the runtime are exercised: host arrays stay dense and C-ordered,
/// device storage follows the signature's strides.
Status checkStridedLayouts(Runtime &rt, const CodeImage &image) {
  const int64_t rows = 123, cols = 77;
  ModuleDesc d = baseModule(image, rt.deviceArch());
  d.signature.inputs = {{"x", DType::F32, {rows, cols}, {1, rows}, 0}};
  d.signature.outputs = {{"y", DType::F32, {cols, rows}, {1, cols}, 0}};
  d.buffers = {{BufferKind::Input, 0, rows * cols * 4},
               {BufferKind::Output, 0, rows * cols * 4}};
  d.steps = {DispatchStep{
      0,
      1,
       {blocksFor(rows * cols, 128), 1, 1},
       {128, 1, 1},
       0,
       {KernelArg::buffer(0), KernelArg::buffer(1), KernelArg::i64(rows),
        KernelArg::i64(cols), KernelArg::f32(2.0f)}}};
  std::vector<float> x(rows * cols);
  for (size_t k = 0; k < x.size(); ++k)
    x[k] = float(k);
  Result<std::vector<HostArray>> out =
      runViaFile(rt, d, {floatArray({rows, cols}, x)});
  if (!out)
    return out.error();
  // Against the definition: y[j, i] (dense, C order) == 2 * x[i, j].
  const float *y = floatsOf((*out)[0]);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (y[j * rows + i] != 2 * x[i * cols + j])
        return makeError(ErrorCode::Internal,
                         "y[" + std::to_string(j) + ", " + std::to_string(i) +
                             "] = " + std::to_string(y[j * rows + i]) +
                             ", expected " +
                             std::to_string(2 * x[i * cols + j]));
  return Status::ok();
}

Status checkBenchmark(Runtime &rt, const std::shared_ptr<const Executable> &m,
                      const std::vector<HostArray> &inputs, int64_t n) {
  for (bool graph : {false, true}) {
    InvocationOptions options;
    options.useCudaGraph = graph;
    Result<BenchResult> b = benchmarkExecutable(m, inputs, 10, 100, options);
    if (!b)
      return b.error();
    double bytes = 3.0 * double(n) * 4;
    std::printf("        vector_add of %lld floats, %s: median %.4f ms, min "
                "%.4f ms (%.0f GB/s)\n",
                static_cast<long long>(n), graph ? "CUDA graph" : "launches",
                b->medianMs, b->minMs, bytes / (b->medianMs * 1e-3) / 1e9);
  }
  Result<double> bw =
      measureCopyBandwidth(*rt.defaultAllocator(), size_t(1) << 30);
  if (!bw)
    return bw.error();
  std::printf("        device-to-device copy of 1 GiB: %.0f GB/s (read + write)\n",
              *bw / 1e9);
  return Status::ok();
}

/// Must come last: the fault makes the CUDA context unusable.
Status checkFaultIsAttributed(Runtime &rt, const CodeImage &image) {
  ModuleDesc d = baseModule(image, rt.deviceArch());
  d.signature.outputs = {{"y", DType::F32, {4}, {1}, 0}};
  d.buffers = {{BufferKind::Output, 0, 16}};
  d.steps = {DispatchStep{0, 2, {1, 1, 1}, {1, 1, 1}, 0, {KernelArg::buffer(0)}}};
  Result<std::vector<HostArray>> out = runViaFile(rt, d, {});
  std::string expected = "smoke.stridemod: step 1 of 1 (kernel "
                         "'write_out_of_bounds') failed: "
                         "CUDA_ERROR_ILLEGAL_ADDRESS";
  if (out)
    return makeError(ErrorCode::Internal,
                     "the out-of-bounds write was not reported");
  if (out.error().message.rfind(expected, 0) != 0)
    return makeError(ErrorCode::Internal,
                     "unexpected message: " + out.error().message);
  std::printf("        reported: %s\n", out.error().message.c_str());
  return Status::ok();
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseArgs(argc, argv, options)) {
    std::fprintf(stderr, "usage: stride-gpu-smoke [--device=N] [--elements=N]\n");
    return 2;
  }
  std::printf("stride-gpu-smoke: %s, module format version %u\n",
              nvrtcVersionString().c_str(), kModuleFormatVersion);
  Result<std::unique_ptr<Runtime>> rt = Runtime::create(options.device);
  if (!rt) {
    std::printf("  FAIL  runtime: %s\nFAIL\n", rt.error().message.c_str());
    return 1;
  }
  Runtime &runtime = **rt;
  std::printf("  ok    runtime: %s\n", runtime.describeDevice().c_str());

  NvrtcOptions nvrtc;
  nvrtc.arch = runtime.deviceArch();
  if (Result<int> arch = checkNvrtcArch(nvrtc.arch); !arch) {
    std::printf("  FAIL  arch: %s\nFAIL\n", arch.error().message.c_str());
    return 1;
  }
  nvrtc.programName = "stride_gpu_smoke.cu";
  Result<CodeImage> cubin = compileCudaSource(kKernels, nvrtc);
  report("NVRTC CUBIN for " + nvrtc.arch,
         cubin ? Status::ok() : Status(cubin.error()));
  nvrtc.emitPtx = true;
  Result<CodeImage> ptx = compileCudaSource(kKernels, nvrtc);
  report("NVRTC PTX for compute_" + nvrtc.arch.substr(3),
         ptx ? Status::ok() : Status(ptx.error()));
  if (!cubin || !ptx) {
    std::printf("FAIL\n");
    return 1;
  }

  std::vector<HostArray> inputs;
  std::shared_ptr<const Executable> vectorAdd;
  report("vector_add (CUBIN) of " + std::to_string(options.elements) + " floats",
         checkVectorAdd(runtime, *cubin, options.elements, &inputs, &vectorAdd));
  report("vector_add (PTX) of " + std::to_string(options.elements) + " floats",
         checkVectorAdd(runtime, *ptx, options.elements));
  report("strided input and output layouts", checkStridedLayouts(runtime, *cubin));
  if (vectorAdd)
    report("benchmark and copy bandwidth",
           checkBenchmark(runtime, vectorAdd, inputs, options.elements));
  vectorAdd.reset();
  report("a kernel fault names the kernel", checkFaultIsAttributed(runtime, *cubin));

  std::printf(failures ? "FAIL\n" : "PASS\n");
  return failures ? 1 : 0;
}
