//===- Runtime.cpp - A CUDA device and its memory ---------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every CUDA call goes through the dlopen'ed driver (CudaDriver.h). Each
// public entry point makes the device's primary context current first, so
// the runtime's objects can be used from any thread.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

#include <mutex>

namespace stride {

//===----------------------------------------------------------------------===//
// Opening a device
//===----------------------------------------------------------------------===//

Runtime::Impl::~Impl() {
  if (!context)
    return;
  cu.cuCtxSetCurrent(context);
  cu.cuDevicePrimaryCtxRelease(device);
}

namespace {

Status initializeCuda(const CudaDriver &cu) {
  CUresult r = cu.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE)
    return makeError(ErrorCode::Unavailable,
                     "no CUDA device found (cuInit: " + cu.errorText(r) +
                         "); running a Stride module needs an NVIDIA GPU");
  if (r != CUDA_SUCCESS)
    return makeError(cudaErrorCode(r),
                     "the CUDA driver could not be initialized (cuInit: " +
                         cu.errorText(r) + ")");
  return Status::ok();
}

Status checkOrdinal(const CudaDriver &cu, int ordinal) {
  int count = 0;
  if (CUresult r = cu.cuDeviceGetCount(&count))
    return makeError(cudaErrorCode(r),
                     "cuDeviceGetCount failed: " + cu.errorText(r));
  if (count == 0)
    return makeError(ErrorCode::Unavailable,
                     "no CUDA device found (the driver reports 0 devices)");
  if (ordinal < 0 || ordinal >= count)
    return makeError(ErrorCode::NotFound,
                     "CUDA device " + str(ordinal) +
                         " does not exist: this machine has " + str(count) +
                         (count == 1
                              ? " device (0)"
                              : " devices (0 to " + str(count - 1) + ")"));
  return Status::ok();
}

Status readDeviceProperties(Runtime::Impl &rt) {
  if (CUresult r = rt.cu.cuDeviceGet(&rt.device, rt.ordinal))
    return rt.cudaError("cuDeviceGet", r);
  char name[256] = {};
  if (CUresult r = rt.cu.cuDeviceGetName(name, sizeof(name) - 1, rt.device))
    return rt.cudaError("cuDeviceGetName", r);
  rt.name = name;
  Result<int> major = rt.deviceAttribute(
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability");
  Result<int> minor = rt.deviceAttribute(
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability");
  Result<int> shared = rt.deviceAttribute(
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared memory per block");
  if (!major || !minor || !shared)
    return !major ? major.error() : !minor ? minor.error() : shared.error();
  rt.ccMajor = *major;
  rt.ccMinor = *minor;
  rt.maxSharedOptin = *shared;
  return Status::ok();
}

Status openDevice(Runtime::Impl &rt, int ordinal) {
  if (Status s = checkOrdinal(rt.cu, ordinal); !s)
    return s;
  rt.ordinal = ordinal;
  if (Status s = readDeviceProperties(rt); !s)
    return s;
  if (CUresult r = rt.cu.cuDevicePrimaryCtxRetain(&rt.context, rt.device))
    return rt.cudaError("cuDevicePrimaryCtxRetain on " + rt.describeDevice(),
                        r);
  return rt.makeCurrent();
}

} // namespace

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

Runtime::Runtime(std::unique_ptr<Impl> impl) : pimpl(std::move(impl)) {}
Runtime::~Runtime() = default;

Result<std::unique_ptr<Runtime>> Runtime::create(int deviceOrdinal) {
  Result<const CudaDriver *> driver = loadCudaDriver();
  if (!driver)
    return driver.error();
  if (Status s = initializeCuda(**driver); !s)
    return s.error();
  auto impl = std::make_unique<Impl>(**driver);
  if (Status s = openDevice(*impl, deviceOrdinal); !s)
    return s.error();
  std::unique_ptr<Runtime> runtime(new Runtime(std::move(impl)));
  runtime->pimpl->defaultAllocator = Allocator::create(*runtime);
  return runtime;
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
const std::shared_ptr<Allocator> &Runtime::defaultAllocator() const {
  return pimpl->defaultAllocator;
}

uint64_t Runtime::deviceBytesInUse() const { return pimpl->bytesInUse.load(); }

uint64_t Runtime::peakDeviceBytes() const { return pimpl->peakBytes.load(); }

void Runtime::resetPeakDeviceBytes() {
  pimpl->peakBytes.store(pimpl->bytesInUse.load());
}

namespace {

/// Makes the device's context current and enqueues `copy` (a driver call
/// that copies `bytes` bytes `direction`).
template <typename Copy>
Status enqueueCopy(const Runtime::Impl &rt, uint64_t bytes,
                   const char *direction, Copy copy) {
  if (Status s = rt.makeCurrent(); !s)
    return s;
  return rt.check(copy(), "copying " + str(int64_t(bytes)) + " bytes " +
                              direction);
}

} // namespace

Status Runtime::copyToDevice(uint64_t destination, const void *source,
                             uint64_t bytes, void *stream) const {
  return enqueueCopy(*pimpl, bytes, "from the host to the device", [&] {
    return pimpl->cu.cuMemcpyHtoDAsync(destination, source, bytes,
                                       static_cast<CUstream>(stream));
  });
}

Status Runtime::copyToHost(void *destination, uint64_t source, uint64_t bytes,
                           void *stream) const {
  return enqueueCopy(*pimpl, bytes, "from the device to the host", [&] {
    return pimpl->cu.cuMemcpyDtoHAsync(destination, source, bytes,
                                       static_cast<CUstream>(stream));
  });
}

Status Runtime::copyOnDevice(uint64_t destination, uint64_t source,
                             uint64_t bytes, void *stream) const {
  return enqueueCopy(*pimpl, bytes, "on the device", [&] {
    return pimpl->cu.cuMemcpyDtoDAsync(destination, source, bytes,
                                       static_cast<CUstream>(stream));
  });
}

Status Runtime::synchronize(void *stream) const {
  if (Status s = pimpl->makeCurrent(); !s)
    return s;
  return pimpl->check(
      pimpl->cu.cuStreamSynchronize(static_cast<CUstream>(stream)),
      "synchronizing the stream");
}

//===----------------------------------------------------------------------===//
// Allocator
//===----------------------------------------------------------------------===//

struct Allocator::Impl {
  const Runtime::Impl &rt;
  AllocatorOptions options;
  mutable std::mutex mutex;
  /// Bytes allocated and not released, for the limit.
  uint64_t inUse = 0;

  Impl(const Runtime::Impl &rt, AllocatorOptions options)
      : rt(rt), options(options) {}

  Error outOfMemory(uint64_t bytes, const std::string &what,
                    const std::string &reason) const {
    return makeError(ErrorCode::ResourceExhausted,
                     "out of GPU memory: allocating " + str(bytes) +
                         " bytes for " + what + " " + reason);
  }

  Status checkLimit(uint64_t bytes, const std::string &what) const {
    uint64_t limit = options.limitBytes;
    if (!limit || inUse + bytes <= limit)
      return Status::ok();
    return outOfMemory(bytes, what,
                       "would bring the allocator's use of " +
                           rt.describeDevice() + " to " + str(inUse + bytes) +
                           " bytes, over its limit of " + str(limit) +
                           " bytes (AllocatorOptions::limitBytes, stride-run's "
                           "--gpu-memory-limit)");
  }

  Result<CUdeviceptr> allocateFromDriver(uint64_t bytes,
                                         const std::string &what) const {
    const CudaDriver &cu = rt.cu;
    CUdeviceptr ptr = 0;
    CUresult r = cu.cuMemAlloc(&ptr, bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      size_t freeBytes = 0, totalBytes = 0;
      cu.cuMemGetInfo(&freeBytes, &totalBytes);
      return outOfMemory(bytes, what,
                         "failed: " + rt.describeDevice() + " has " +
                             str(freeBytes) + " of its " + str(totalBytes) +
                             " bytes free");
    }
    if (r != CUDA_SUCCESS)
      return rt.cudaError("cuMemAlloc of " + str(bytes) + " bytes for " + what,
                          r);
    return ptr;
  }

  /// Fills new memory with 0xFF bytes on the legacy default stream and waits,
  /// so that work on any stream sees it.
  Status poison(CUdeviceptr ptr, uint64_t bytes,
                const std::string &what) const {
    if (CUresult r = rt.cu.cuMemsetD8Async(ptr, 0xFF, bytes, nullptr))
      return rt.cudaError("poisoning " + what, r);
    return rt.check(rt.cu.cuStreamSynchronize(nullptr), "poisoning " + what);
  }
};

Allocator::Allocator(std::unique_ptr<Impl> impl) : pimpl(std::move(impl)) {}
Allocator::~Allocator() = default;

std::shared_ptr<Allocator> Allocator::create(Runtime &runtime,
                                             AllocatorOptions options) {
  return std::shared_ptr<Allocator>(
      new Allocator(std::make_unique<Impl>(runtime.impl(), options)));
}

Result<uint64_t> Allocator::allocate(uint64_t bytes, const std::string &what) {
  Impl &a = *pimpl;
  if (bytes == 0)
    return uint64_t(0);
  if (Status s = a.rt.makeCurrent(); !s)
    return s.error();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (Status s = a.checkLimit(bytes, what); !s)
    return s.error();
  Result<CUdeviceptr> ptr = a.allocateFromDriver(bytes, what);
  if (!ptr)
    return ptr.error();
  if (a.options.poison)
    if (Status s = a.poison(*ptr, bytes, what); !s) {
      a.rt.cu.cuMemFree(*ptr);
      return s.error();
    }
  a.inUse += bytes;
  a.rt.countAllocation(bytes);
  return uint64_t(*ptr);
}

void Allocator::release(uint64_t address, uint64_t bytes) {
  Impl &a = *pimpl;
  if (!address)
    return;
  a.rt.makeCurrent();
  a.rt.cu.cuMemFree(CUdeviceptr(address));
  std::lock_guard<std::mutex> lock(a.mutex);
  a.inUse -= bytes;
  a.rt.countRelease(bytes);
}

uint64_t Allocator::bytesInUse() const {
  std::lock_guard<std::mutex> lock(pimpl->mutex);
  return pimpl->inUse;
}

const AllocatorOptions &Allocator::options() const { return pimpl->options; }

} // namespace stride
