//===- Runtime.cpp - Loading and running compiled Stride modules ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every CUDA call goes through the dlopen'ed driver (CudaDriver.h). Each
// public entry point makes the device's primary context current first, so a
// Runtime can be used from any thread (one at a time). Host<->device copies
// and launches go to the Runtime's own non-blocking stream, so they are
// ordered among themselves and never with unrelated work.
//
//===----------------------------------------------------------------------===//

#include "stride/Runtime/Runtime.h"

#include "CudaDriver.h"
#include "stride/Support/Layout.h"

#include <algorithm>
#include <cstring>

namespace stride {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string quoted(const std::string &s) { return "'" + s + "'"; }

} // namespace

//===----------------------------------------------------------------------===//
// Runtime::Impl: device, context, stream and the allocation accounting.
//===----------------------------------------------------------------------===//

struct Runtime::Impl {
  const CudaDriver &cu;
  RuntimeOptions options;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int maxSharedOptin = 0;
  /// Bytes currently allocated through allocate(), for the memory limit.
  uint64_t allocatedBytes = 0;

  Impl(const CudaDriver &cu, RuntimeOptions options)
      : cu(cu), options(options) {}

  ~Impl() {
    if (!context)
      return;
    cu.cuCtxSetCurrent(context);
    if (stream)
      cu.cuStreamDestroy(stream);
    cu.cuDevicePrimaryCtxRelease(device);
  }

  /// "<what> failed: CUDA_ERROR_X: text".
  Error cudaError(const std::string &what, CUresult r) const {
    return makeError(what + " failed: " + cu.errorText(r));
  }

  Status check(CUresult r, const std::string &what) const {
    if (r == CUDA_SUCCESS)
      return Status::ok();
    return cudaError(what, r);
  }

  Status makeCurrent() const {
    return check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  std::string describeDevice() const {
    return "device " + str(ordinal) + " (" + name + ")";
  }

  std::string outOfMemory(uint64_t bytes, const std::string &what,
                          const std::string &reason) const {
    return "out of GPU memory: allocating " + str(bytes) + " bytes for " +
           what + " " + reason;
  }

  /// Allocates device memory, honoring the simulated limit. Zero bytes
  /// yield the null address (kernels never dereference an empty tensor).
  Result<CUdeviceptr> allocate(uint64_t bytes, const std::string &what) {
    if (bytes == 0)
      return CUdeviceptr(0);
    uint64_t limit = options.gpuMemoryLimitBytes;
    if (limit && allocatedBytes + bytes > limit)
      return makeError(outOfMemory(
          bytes, what,
          "would bring Stride's use of " + describeDevice() + " to " +
              str(allocatedBytes + bytes) + " bytes, over the limit of " +
              str(limit) + " bytes set by --gpu-memory-limit"));
    CUdeviceptr ptr = 0;
    CUresult r = cu.cuMemAlloc(&ptr, bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      size_t freeBytes = 0, totalBytes = 0;
      cu.cuMemGetInfo(&freeBytes, &totalBytes);
      return makeError(outOfMemory(bytes, what,
                                   "failed: " + describeDevice() + " has " +
                                       str(freeBytes) + " of its " +
                                       str(totalBytes) + " bytes free"));
    }
    if (r != CUDA_SUCCESS)
      return cudaError("cuMemAlloc of " + str(bytes) + " bytes for " + what, r);
    allocatedBytes += bytes;
    return ptr;
  }

  void release(CUdeviceptr ptr, uint64_t bytes) {
    if (!ptr)
      return;
    cu.cuMemFree(ptr);
    allocatedBytes -= bytes;
  }
};

namespace {

/// Device memory owned by the runtime, freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(Runtime::Impl *rt, CUdeviceptr ptr, uint64_t bytes)
      : rt(rt), ptr(ptr), bytes(bytes) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    std::swap(rt, other.rt);
    std::swap(ptr, other.ptr);
    std::swap(bytes, other.bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (rt)
      rt->release(ptr, bytes);
  }

  static Result<DeviceBuffer> allocate(Runtime::Impl &rt, uint64_t bytes,
                                       const std::string &what) {
    Result<CUdeviceptr> ptr = rt.allocate(bytes, what);
    if (!ptr)
      return ptr.error();
    return DeviceBuffer(&rt, *ptr, bytes);
  }

  bool allocated() const { return rt != nullptr; }
  CUdeviceptr address() const { return ptr; }
  uint64_t size() const { return bytes; }

private:
  Runtime::Impl *rt = nullptr;
  CUdeviceptr ptr = 0;
  uint64_t bytes = 0;
};

/// CUDA events, destroyed with the object.
class EventPair {
public:
  explicit EventPair(const CudaDriver &cu) : cu(cu) {}
  ~EventPair() {
    if (start)
      cu.cuEventDestroy(start);
    if (stop)
      cu.cuEventDestroy(stop);
  }
  CUresult create() {
    CUresult r = cu.cuEventCreate(&start, CU_EVENT_DEFAULT);
    return r == CUDA_SUCCESS ? cu.cuEventCreate(&stop, CU_EVENT_DEFAULT) : r;
  }

  CUevent start = nullptr, stop = nullptr;

private:
  const CudaDriver &cu;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

Result<int> deviceAttribute(const Runtime::Impl &rt, CUdevice_attribute attr,
                            const char *what) {
  int value = 0;
  if (CUresult r = rt.cu.cuDeviceGetAttribute(&value, attr, rt.device))
    return rt.cudaError(std::string("cuDeviceGetAttribute(") + what + ")", r);
  return value;
}

Status initializeCuda(const CudaDriver &cu) {
  CUresult r = cu.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE)
    return makeError("no CUDA device found (cuInit: " + cu.errorText(r) +
                     "); running a Stride module needs an NVIDIA GPU");
  if (r != CUDA_SUCCESS)
    return makeError("the CUDA driver could not be initialized (cuInit: " +
                     cu.errorText(r) + ")");
  return Status::ok();
}

Status openDevice(Runtime::Impl &rt, int ordinal) {
  const CudaDriver &cu = rt.cu;
  int count = 0;
  if (CUresult r = cu.cuDeviceGetCount(&count))
    return rt.cudaError("cuDeviceGetCount", r);
  if (count == 0)
    return makeError("no CUDA device found (the driver reports 0 devices)");
  if (ordinal < 0 || ordinal >= count)
    return makeError("CUDA device " + str(ordinal) +
                     " does not exist: this machine has " + str(count) +
                     (count == 1 ? " device (0)" : " devices (0 to " +
                                                       str(count - 1) + ")"));
  rt.ordinal = ordinal;
  if (CUresult r = cu.cuDeviceGet(&rt.device, ordinal))
    return rt.cudaError("cuDeviceGet", r);
  char name[256] = {};
  if (CUresult r = cu.cuDeviceGetName(name, sizeof(name) - 1, rt.device))
    return rt.cudaError("cuDeviceGetName", r);
  rt.name = name;
  Result<int> major = deviceAttribute(
      rt, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability");
  Result<int> minor = deviceAttribute(
      rt, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability");
  Result<int> shared =
      deviceAttribute(rt, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                      "shared memory per block");
  if (!major || !minor || !shared)
    return !major ? major.error() : !minor ? minor.error() : shared.error();
  rt.ccMajor = *major;
  rt.ccMinor = *minor;
  rt.maxSharedOptin = *shared;
  if (CUresult r = cu.cuDevicePrimaryCtxRetain(&rt.context, rt.device))
    return rt.cudaError("cuDevicePrimaryCtxRetain on " + rt.describeDevice(), r);
  if (Status s = rt.makeCurrent(); !s)
    return s;
  if (CUresult r = cu.cuStreamCreate(&rt.stream, CU_STREAM_NON_BLOCKING))
    return rt.cudaError("cuStreamCreate", r);
  return Status::ok();
}

} // namespace

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

Runtime::Runtime(std::unique_ptr<Impl> impl) : pimpl(std::move(impl)) {}
Runtime::~Runtime() = default;

Result<std::unique_ptr<Runtime>> Runtime::create(int deviceOrdinal,
                                                 RuntimeOptions options) {
  Result<const CudaDriver *> driver = loadCudaDriver();
  if (!driver)
    return driver.error();
  if (Status s = initializeCuda(**driver); !s)
    return s.error();
  auto impl = std::make_unique<Impl>(**driver, options);
  if (Status s = openDevice(*impl, deviceOrdinal); !s)
    return s.error();
  return std::unique_ptr<Runtime>(new Runtime(std::move(impl)));
}

Status Runtime::checkDriver() {
  Result<const CudaDriver *> driver = loadCudaDriver();
  if (!driver)
    return driver.error();
  return Status::ok();
}

int Runtime::deviceOrdinal() const { return pimpl->ordinal; }
const std::string &Runtime::deviceName() const { return pimpl->name; }
int Runtime::computeCapabilityMajor() const { return pimpl->ccMajor; }
int Runtime::computeCapabilityMinor() const { return pimpl->ccMinor; }
std::string Runtime::deviceArch() const {
  return "sm_" + str(pimpl->ccMajor * 10 + pimpl->ccMinor);
}
std::string Runtime::describeDevice() const {
  return "device " + str(pimpl->ordinal) + " (" + pimpl->name + ", " +
         deviceArch() + ")";
}
RuntimeOptions &Runtime::options() { return pimpl->options; }
const RuntimeOptions &Runtime::options() const { return pimpl->options; }

Result<double> Runtime::measureCopyBandwidth(size_t bytes) {
  constexpr int kWarmup = 3, kIters = 20;
  Impl &rt = *pimpl;
  const CudaDriver &cu = rt.cu;
  if (bytes == 0)
    return makeError("measureCopyBandwidth needs a non-zero size");
  if (Status s = rt.makeCurrent(); !s)
    return s.error();
  Result<DeviceBuffer> src = DeviceBuffer::allocate(rt, bytes, "the copy source");
  if (!src)
    return src.error();
  Result<DeviceBuffer> dst =
      DeviceBuffer::allocate(rt, bytes, "the copy destination");
  if (!dst)
    return dst.error();
  if (CUresult r = cu.cuMemsetD8Async(src->address(), 0, bytes, rt.stream))
    return rt.cudaError("cuMemsetD8Async", r);
  EventPair events(cu);
  if (CUresult r = events.create())
    return rt.cudaError("cuEventCreate", r);
  std::vector<double> times;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    CUresult r = cu.cuEventRecord(events.start, rt.stream);
    if (!r)
      r = cu.cuMemcpyDtoDAsync(dst->address(), src->address(), bytes, rt.stream);
    if (!r)
      r = cu.cuEventRecord(events.stop, rt.stream);
    if (!r)
      r = cu.cuEventSynchronize(events.stop);
    float ms = 0;
    if (!r)
      r = cu.cuEventElapsedTime(&ms, events.start, events.stop);
    if (r)
      return rt.cudaError("the device-to-device copy of " + str(bytes) + " bytes",
                          r);
    if (i >= kWarmup)
      times.push_back(ms);
  }
  double seconds = median(times) / 1e3;
  if (seconds <= 0)
    return makeError("the device-to-device copy of " + str(bytes) +
                     " bytes was too fast to time; use a larger size");
  return 2.0 * double(bytes) / seconds;
}

//===----------------------------------------------------------------------===//
// LoadedModule::Impl
//===----------------------------------------------------------------------===//

/// One kernel parameter's value; cuLaunchKernel reads it through a pointer.
union ArgSlot {
  CUdeviceptr pointer;
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
};

struct LoadedModule::Impl {
  Runtime::Impl &rt;
  const CudaDriver &cu;
  ModuleDesc desc;
  std::string name;
  std::vector<CUmodule> modules;     // per image
  std::vector<CUfunction> functions; // per kernel
  /// Per launch: the argument values and the pointers to them.
  std::vector<std::vector<ArgSlot>> argSlots;
  std::vector<std::vector<void *>> argPointers;
  /// Per buffer: memory owned by the module (all buffers for run() and
  /// benchmark(), temporaries only for runOnDevice()).
  std::vector<DeviceBuffer> owned;
  /// Packed storage of the non-row-major inputs of the last upload.
  std::vector<std::vector<uint8_t>> staged;
  /// The plan captured over `owned`, kept for later benchmarks.
  CUgraph graph = nullptr;
  CUgraphExec graphExec = nullptr;

  Impl(Runtime::Impl &rt, ModuleDesc desc, std::string name)
      : rt(rt), cu(rt.cu), desc(std::move(desc)), name(std::move(name)) {}

  ~Impl() {
    rt.makeCurrent();
    if (graphExec)
      cu.cuGraphExecDestroy(graphExec);
    if (graph)
      cu.cuGraphDestroy(graph);
    owned.clear();
    for (CUmodule m : modules)
      if (m)
        cu.cuModuleUnload(m);
  }

  //--- Loading ---------------------------------------------------------===//

  std::string kernelName(size_t kernel) const {
    return quoted(desc.kernels[kernel].name);
  }

  std::string launchName(size_t launch) const {
    return "kernel " + kernelName(desc.launches[launch].kernelIndex) +
           " (launch " + str(launch + 1) + " of " + str(desc.launches.size()) +
           ")";
  }

  Status loadImage(size_t index) {
    const CodeImage &image = desc.images[index];
    std::vector<uint8_t> bytes = image.bytes;
    if (image.kind == CodeKind::Ptx)
      bytes.push_back(0); // cuModuleLoadData reads PTX as a C string.
    char log[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    CUmodule module = nullptr;
    CUresult r = cu.cuModuleLoadDataEx(&module, bytes.data(), 2, options, values);
    if (r == CUDA_SUCCESS) {
      modules[index] = module;
      return Status::ok();
    }
    std::string message = name + ": loading code image " + str(index) + " (" +
                          (image.kind == CodeKind::Ptx ? "PTX" : "CUBIN") +
                          " for " + desc.targetArch + ") on " +
                          rt.describeDevice() + " failed: " + cu.errorText(r);
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      message += "; the NVIDIA driver is older than the NVRTC that produced "
                 "the PTX: update the driver, or compile to a CUBIN for "
                 "this GPU with `stridec --arch=sm_" +
                 str(rt.ccMajor * 10 + rt.ccMinor) + "`";
    if (log[0])
      message += "\nJIT log:\n" + std::string(log);
    return makeError(message);
  }

  Status resolveKernel(size_t index) {
    const KernelDesc &k = desc.kernels[index];
    CUresult r = cu.cuModuleGetFunction(&functions[index],
                                        modules[k.imageIndex], k.name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      return makeError(name + ": kernel " + kernelName(index) +
                       " is not in code image " + str(k.imageIndex) +
                       " (kernels must be declared extern \"C\" __global__)");
    if (r != CUDA_SUCCESS)
      return rt.cudaError(name + ": cuModuleGetFunction(" + kernelName(index) +
                              ")",
                          r);
    return Status::ok();
  }

  Result<int> functionAttribute(size_t kernel, CUfunction_attribute attr) {
    int value = 0;
    if (CUresult r = cu.cuFuncGetAttribute(&value, attr, functions[kernel]))
      return rt.cudaError(name + ": cuFuncGetAttribute(" + kernelName(kernel) +
                              ")",
                          r);
    return value;
  }

  /// Checks each launch against what its kernel and the device allow, and
  /// opts kernels into more than 48 KiB of dynamic shared memory.
  Status prepareLaunches() {
    std::vector<uint32_t> maxShared(desc.kernels.size(), 0);
    for (size_t i = 0; i < desc.launches.size(); ++i) {
      const LaunchDesc &l = desc.launches[i];
      Result<int> maxThreads = functionAttribute(
          l.kernelIndex, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
      if (!maxThreads)
        return maxThreads.error();
      if (l.block.volume() > uint64_t(*maxThreads))
        return makeError(name + ": " + launchName(i) + " uses " +
                         str(l.block.volume()) +
                         " threads per block, but on " + rt.describeDevice() +
                         " the kernel can run at most " + str(*maxThreads) +
                         " (it needs too many registers); this is a Stride "
                         "code generation bug");
      if (l.dynamicSharedBytes > uint32_t(rt.maxSharedOptin))
        return makeError(name + ": " + launchName(i) + " needs " +
                         str(l.dynamicSharedBytes) +
                         " bytes of dynamic shared memory, but " +
                         rt.describeDevice() + " offers at most " +
                         str(rt.maxSharedOptin) + " per block");
      maxShared[l.kernelIndex] =
          std::max(maxShared[l.kernelIndex], l.dynamicSharedBytes);
    }
    for (size_t k = 0; k < desc.kernels.size(); ++k) {
      if (maxShared[k] <= 48 * 1024)
        continue;
      if (CUresult r = cu.cuFuncSetAttribute(
              functions[k], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(maxShared[k])))
        return rt.cudaError(name + ": raising the shared memory limit of " +
                                kernelName(k),
                            r);
    }
    return Status::ok();
  }

  void buildArgs() {
    for (const LaunchDesc &l : desc.launches) {
      std::vector<ArgSlot> slots(l.args.size());
      for (size_t a = 0; a < l.args.size(); ++a) {
        const KernelArg &arg = l.args[a];
        ArgSlot &slot = slots[a];
        slot.i64 = 0;
        switch (arg.kind) {
        case KernelArg::Kind::Buffer: slot.pointer = 0; break;
        case KernelArg::Kind::I32: slot.i32 = int32_t(arg.intValue); break;
        case KernelArg::Kind::I64: slot.i64 = arg.intValue; break;
        case KernelArg::Kind::F32: slot.f32 = float(arg.floatValue); break;
        case KernelArg::Kind::F64: slot.f64 = arg.floatValue; break;
        }
      }
      argSlots.push_back(std::move(slots));
    }
    // Pointers only once every slot vector has its final address.
    for (std::vector<ArgSlot> &slots : argSlots) {
      std::vector<void *> pointers;
      for (ArgSlot &slot : slots)
        pointers.push_back(&slot);
      argPointers.push_back(std::move(pointers));
    }
  }

  Status load() {
    modules.assign(desc.images.size(), nullptr);
    functions.assign(desc.kernels.size(), nullptr);
    owned.resize(desc.buffers.size());
    for (size_t i = 0; i < desc.images.size(); ++i)
      if (Status s = loadImage(i); !s)
        return s;
    for (size_t k = 0; k < desc.kernels.size(); ++k)
      if (Status s = resolveKernel(k); !s)
        return s;
    if (Status s = prepareLaunches(); !s)
      return s;
    buildArgs();
    return Status::ok();
  }

  //--- Buffers -----------------------------------------------------------===//

  std::string bufferName(size_t index) const {
    const BufferDesc &b = desc.buffers[index];
    std::string s = "buffer " + str(index);
    if (b.kind == BufferKind::Input)
      s += " (input " + quoted(desc.signature.inputs[b.signatureIndex].name) + ")";
    else if (b.kind == BufferKind::Output)
      s += " (output " + quoted(desc.signature.outputs[b.signatureIndex].name) +
           ")";
    else
      s += " (temporary)";
    return s + " of " + name;
  }

  Status ensureOwned(size_t index) {
    if (owned[index].allocated())
      return Status::ok();
    uint64_t bytes = uint64_t(desc.buffers[index].sizeBytes);
    Result<DeviceBuffer> buffer =
        DeviceBuffer::allocate(rt, bytes, bufferName(index));
    if (!buffer)
      return buffer.error();
    // Temporaries start zeroed (docs/module-format.md, "Buffer"). Once, at
    // allocation, and synchronously, so that a plan on any stream sees it.
    if (desc.buffers[index].kind == BufferKind::Temp && bytes > 0) {
      if (CUresult r = cu.cuMemsetD8Async(buffer->address(), 0, bytes,
                                          rt.stream))
        return rt.cudaError("cuMemsetD8Async", r);
      if (CUresult r = cu.cuStreamSynchronize(rt.stream))
        return rt.cudaError("cuStreamSynchronize", r);
    }
    owned[index] = std::move(*buffer);
    return Status::ok();
  }

  Status ensureOwnedBuffers(bool temporariesOnly) {
    for (size_t i = 0; i < desc.buffers.size(); ++i)
      if (!temporariesOnly || desc.buffers[i].kind == BufferKind::Temp)
        if (Status s = ensureOwned(i); !s)
          return s;
    return Status::ok();
  }

  std::vector<CUdeviceptr> ownedAddresses() const {
    std::vector<CUdeviceptr> addresses;
    for (const DeviceBuffer &b : owned)
      addresses.push_back(b.address());
    return addresses;
  }

  void bindArgs(const std::vector<CUdeviceptr> &bufferAddresses) {
    for (size_t i = 0; i < desc.launches.size(); ++i) {
      const std::vector<KernelArg> &args = desc.launches[i].args;
      for (size_t a = 0; a < args.size(); ++a)
        if (args[a].kind == KernelArg::Kind::Buffer)
          argSlots[i][a].pointer = bufferAddresses[args[a].bufferIndex];
    }
  }

  //--- Launching ---------------------------------------------------------===//

  Error kernelFailure(size_t launch, CUresult r) const {
    std::string message = name + ": " + launchName(launch) +
                          " failed: " + cu.errorText(r);
    // A device-side assertion is how the run-time checks (on unless the
    // module was compiled with --no-runtime-checks) stop on a bad index or an
    // integer division by zero: an error of the graph's data, not of Stride.
    if (r == CUDA_ERROR_ASSERT)
      message += " (a run-time check failed: an index operand out of range or "
                 "an integer division by zero; the assertion message the "
                 "driver printed names the op and its location; the CUDA "
                 "context is now unusable)";
    else if (isStickyCudaError(r))
      message += " (the fault is inside the generated kernel, a Stride code "
                 "generation bug; the CUDA context is now unusable)";
    return makeError(message);
  }

  Status poisonOutputs(const std::vector<CUdeviceptr> &addresses,
                       CUstream stream) {
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      if (b.kind != BufferKind::Output || b.sizeBytes == 0)
        continue;
      if (CUresult r = cu.cuMemsetD8Async(addresses[i], 0xFF,
                                          size_t(b.sizeBytes), stream))
        return rt.cudaError("poisoning " + bufferName(i), r);
    }
    return Status::ok();
  }

  /// Launches the plan in order on `stream`; with `syncEach`, waits for each
  /// kernel so that a fault is attributed to the right one.
  Status launchAll(CUstream stream, bool syncEach) {
    for (size_t i = 0; i < desc.launches.size(); ++i) {
      const LaunchDesc &l = desc.launches[i];
      CUresult r = cu.cuLaunchKernel(
          functions[l.kernelIndex], l.grid.x, l.grid.y, l.grid.z, l.block.x,
          l.block.y, l.block.z, l.dynamicSharedBytes, stream,
          argPointers[i].data(), nullptr);
      if (r == CUDA_SUCCESS && syncEach)
        r = cu.cuStreamSynchronize(stream);
      if (r != CUDA_SUCCESS)
        return kernelFailure(i, r);
    }
    return Status::ok();
  }

  /// Waits for `stream`; an error here is a fault of some kernel of the
  /// plan that was not synchronized individually.
  Status synchronize(CUstream stream, bool launchedEachSynced) {
    CUresult r = cu.cuStreamSynchronize(stream);
    if (r == CUDA_SUCCESS)
      return Status::ok();
    if (launchedEachSynced || desc.launches.empty())
      return rt.cudaError(name + ": synchronizing after the plan", r);
    std::string kernels;
    for (size_t i = 0; i < desc.launches.size(); ++i)
      kernels += (i ? ", " : "") + kernelName(desc.launches[i].kernelIndex);
    return makeError(name + ": one of the kernels of launches 1 to " +
                     str(desc.launches.size()) + " (" + kernels +
                     ") failed: " + cu.errorText(r) +
                     "; run with per-launch synchronization to find which");
  }

  //--- Host data ---------------------------------------------------------===//

  /// Copies the inputs into their buffers, asynchronously on the runtime's
  /// stream. A row-major input is copied straight from the caller's array,
  /// which outlives the copy (run() and benchmark() synchronize before they
  /// return); any other layout is packed into `staged` first, which lives
  /// until the next upload.
  Status uploadInputs(const std::vector<HostArray> &inputs) {
    staged.clear();
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      if (b.kind != BufferKind::Input || b.sizeBytes == 0)
        continue;
      const TensorSignature &t = desc.signature.inputs[b.signatureIndex];
      const HostArray &array = inputs[b.signatureIndex];
      CUdeviceptr destination = owned[i].address();
      const void *source = array.data.data();
      size_t bytes = array.data.size();
      if (isRowMajor(Layout{t.shape, t.strides, 0})) {
        destination += uint64_t(t.storageOffset) * dtypeSize(t.dtype);
      } else {
        Result<std::vector<uint8_t>> storage =
            packToStorage(array, t, b.sizeBytes);
        if (!storage)
          return makeError(name + ": " + storage.error().message);
        staged.push_back(std::move(*storage));
        source = staged.back().data();
        bytes = staged.back().size();
      }
      if (bytes == 0)
        continue;
      if (CUresult r = cu.cuMemcpyHtoDAsync(destination, source, bytes,
                                            rt.stream))
        return rt.cudaError("copying input " + quoted(t.name) + " to the GPU",
                            r);
    }
    return Status::ok();
  }

  Result<std::vector<HostArray>> downloadOutputs() {
    std::vector<std::vector<uint8_t>> storage(desc.signature.outputs.size());
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      if (b.kind != BufferKind::Output)
        continue;
      std::vector<uint8_t> &bytes = storage[b.signatureIndex];
      bytes.resize(size_t(b.sizeBytes));
      if (bytes.empty())
        continue;
      if (CUresult r = cu.cuMemcpyDtoHAsync(bytes.data(), owned[i].address(),
                                            bytes.size(), rt.stream))
        return rt.cudaError("copying output " +
                                quoted(desc.signature.outputs[b.signatureIndex].name) +
                                " from the GPU",
                            r);
    }
    if (CUresult r = cu.cuStreamSynchronize(rt.stream))
      return rt.cudaError(name + ": copying the outputs from the GPU", r);
    std::vector<HostArray> outputs;
    for (size_t o = 0; o < storage.size(); ++o)
      outputs.push_back(
          unpackFromStorage(storage[o].data(), desc.signature.outputs[o]));
    return outputs;
  }

  /// The common start of run() and benchmark(): check, allocate, upload,
  /// bind the module's own buffers.
  Status prepareHostRun(const std::vector<HostArray> &inputs) {
    if (Status s = checkInputs(desc.signature, inputs); !s)
      return makeError(name + ": " + s.error().message);
    if (Status s = rt.makeCurrent(); !s)
      return s;
    if (Status s = ensureOwnedBuffers(/*temporariesOnly=*/false); !s)
      return s;
    if (Status s = uploadInputs(inputs); !s)
      return s;
    bindArgs(ownedAddresses());
    return Status::ok();
  }

  //--- Benchmarking ------------------------------------------------------===//

  Status captureGraph() {
    if (graphExec)
      return Status::ok();
    if (CUresult r = cu.cuStreamBeginCapture(rt.stream,
                                             CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))
      return rt.cudaError(name + ": cuStreamBeginCapture", r);
    Status launched = launchAll(rt.stream, /*syncEach=*/false);
    // Always end the capture, or the stream stays in capture mode.
    CUresult r = cu.cuStreamEndCapture(rt.stream, &graph);
    Status captured =
        !launched ? launched
        : r != CUDA_SUCCESS
            ? Status(rt.cudaError(name + ": capturing the plan into a CUDA graph", r))
            : Status::ok();
    if (captured)
      if (CUresult r = cu.cuGraphInstantiate(&graphExec, graph, 0))
        captured = rt.cudaError(name + ": instantiating the CUDA graph", r);
    if (!captured && graph) {
      cu.cuGraphDestroy(graph);
      graph = nullptr;
    }
    return captured;
  }

  Status replay(bool useGraph) {
    if (!useGraph)
      return launchAll(rt.stream, /*syncEach=*/false);
    if (CUresult r = cu.cuGraphLaunch(graphExec, rt.stream))
      return rt.cudaError(name + ": cuGraphLaunch", r);
    return Status::ok();
  }

  /// The mean time of `replays` back-to-back replays between two events.
  /// Replays queue up while the GPU works, so the host's launch latency stays
  /// off the clock (as it does for a framework that launches asynchronously).
  Result<double> timedReplay(EventPair &events, bool useGraph, int replays) {
    if (CUresult r = cu.cuEventRecord(events.start, rt.stream))
      return rt.cudaError("cuEventRecord", r);
    for (int i = 0; i < replays; ++i)
      if (Status s = replay(useGraph); !s)
        return s.error();
    if (CUresult r = cu.cuEventRecord(events.stop, rt.stream))
      return rt.cudaError("cuEventRecord", r);
    if (CUresult r = cu.cuEventSynchronize(events.stop))
      return makeError(name + ": the plan failed during the benchmark: " +
                       cu.errorText(r));
    float ms = 0;
    if (CUresult r = cu.cuEventElapsedTime(&ms, events.start, events.stop))
      return rt.cudaError("cuEventElapsedTime", r);
    return double(ms) / replays;
  }
};

//===----------------------------------------------------------------------===//
// LoadedModule
//===----------------------------------------------------------------------===//

LoadedModule::LoadedModule(std::unique_ptr<Impl> impl) : pimpl(std::move(impl)) {}
LoadedModule::~LoadedModule() = default;

Result<std::unique_ptr<LoadedModule>>
LoadedModule::load(Runtime &runtime, ModuleDesc desc, std::string name) {
  Runtime::Impl &rt = *runtime.pimpl;
  if (Status s = verifyModule(desc, name); !s)
    return s.error();
  if (Status s = checkArchCompatible(desc, name, rt.ccMajor, rt.ccMinor,
                                     rt.describeDevice());
      !s)
    return s.error();
  if (Status s = rt.makeCurrent(); !s)
    return s.error();
  auto impl = std::make_unique<Impl>(rt, std::move(desc), std::move(name));
  if (Status s = impl->load(); !s)
    return s.error();
  return std::unique_ptr<LoadedModule>(new LoadedModule(std::move(impl)));
}

Result<std::unique_ptr<LoadedModule>>
LoadedModule::loadBytes(Runtime &runtime, const uint8_t *data, size_t size,
                        std::string name) {
  Result<ModuleDesc> desc = parseModule(data, size, name);
  if (!desc)
    return desc.error();
  return load(runtime, std::move(*desc), std::move(name));
}

Result<std::unique_ptr<LoadedModule>>
LoadedModule::loadFile(Runtime &runtime, const std::string &path) {
  Result<ModuleDesc> desc = readModuleFile(path);
  if (!desc)
    return desc.error();
  return load(runtime, std::move(*desc), path);
}

const ModuleDesc &LoadedModule::desc() const { return pimpl->desc; }
const std::string &LoadedModule::name() const { return pimpl->name; }

Result<std::vector<HostArray>>
LoadedModule::run(const std::vector<HostArray> &inputs) {
  Impl &m = *pimpl;
  if (Status s = m.prepareHostRun(inputs); !s)
    return s.error();
  if (m.rt.options.poisonOutputs)
    if (Status s = m.poisonOutputs(m.ownedAddresses(), m.rt.stream); !s)
      return s.error();
  bool syncEach = m.rt.options.syncEachLaunch;
  if (Status s = m.launchAll(m.rt.stream, syncEach); !s)
    return s.error();
  if (Status s = m.synchronize(m.rt.stream, syncEach); !s)
    return s.error();
  return m.downloadOutputs();
}

Status LoadedModule::runOnDevice(const std::vector<uint64_t> &inputs,
                                 const std::vector<uint64_t> &outputs,
                                 void *stream) {
  Impl &m = *pimpl;
  const GraphSignature &sig = m.desc.signature;
  if (inputs.size() != sig.inputs.size() || outputs.size() != sig.outputs.size())
    return makeError(m.name + ": runOnDevice got " + str(inputs.size()) +
                     " input and " + str(outputs.size()) +
                     " output pointers, but '" + sig.entryName + "' has " +
                     str(sig.inputs.size()) + " inputs and " +
                     str(sig.outputs.size()) + " outputs");
  std::vector<CUdeviceptr> addresses(m.desc.buffers.size(), 0);
  for (size_t i = 0; i < m.desc.buffers.size(); ++i) {
    const BufferDesc &b = m.desc.buffers[i];
    if (b.kind == BufferKind::Temp)
      continue;
    bool isInput = b.kind == BufferKind::Input;
    addresses[i] = isInput ? inputs[b.signatureIndex] : outputs[b.signatureIndex];
    if (addresses[i] == 0 && b.sizeBytes > 0)
      return makeError(m.name + ": runOnDevice got a null pointer for " +
                       (isInput ? "input " : "output ") +
                       quoted(isInput ? sig.inputs[b.signatureIndex].name
                                      : sig.outputs[b.signatureIndex].name));
  }
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/true); !s)
    return s;
  for (size_t i = 0; i < m.desc.buffers.size(); ++i)
    if (m.desc.buffers[i].kind == BufferKind::Temp)
      addresses[i] = m.owned[i].address();
  m.bindArgs(addresses);
  auto cuStream = static_cast<CUstream>(stream);
  if (m.rt.options.poisonOutputs)
    if (Status s = m.poisonOutputs(addresses, cuStream); !s)
      return s;
  return m.launchAll(cuStream, /*syncEach=*/false);
}

/// Each timed sample is the mean of this many back-to-back replays.
constexpr int kReplaysPerTimedSample = 10;

Result<BenchResult> LoadedModule::benchmark(const std::vector<HostArray> &inputs,
                                            int warmup, int iters,
                                            bool useCudaGraph) {
  Impl &m = *pimpl;
  if (warmup < 0 || iters < 1)
    return makeError("benchmark needs warmup >= 0 and iters >= 1, got " +
                     str(warmup) + " and " + str(iters));
  if (Status s = m.prepareHostRun(inputs); !s)
    return s.error();
  if (Status s = m.synchronize(m.rt.stream, false); !s)
    return s.error();
  if (useCudaGraph)
    if (Status s = m.captureGraph(); !s)
      return s.error();
  for (int i = 0; i < warmup; ++i)
    if (Status s = m.replay(useCudaGraph); !s)
      return s.error();
  if (Status s = m.synchronize(m.rt.stream, false); !s)
    return s.error();
  EventPair events(m.cu);
  if (CUresult r = events.create())
    return m.rt.cudaError("cuEventCreate", r);
  std::vector<double> times;
  for (int i = 0; i < iters; ++i) {
    Result<double> ms =
        m.timedReplay(events, useCudaGraph, kReplaysPerTimedSample);
    if (!ms)
      return ms.error();
    times.push_back(*ms);
  }
  BenchResult result;
  result.medianMs = median(times);
  result.minMs = *std::min_element(times.begin(), times.end());
  result.iterations = iters;
  result.usedCudaGraph = useCudaGraph;
  return result;
}

} // namespace stride
