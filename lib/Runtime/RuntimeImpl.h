//===- RuntimeImpl.h - The runtime's objects, inside lib/Runtime ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime: the state behind Runtime and Executable that
// Runtime.cpp, Executable.cpp and Invocation.cpp share. Everything here is
// written while the object is created and only read afterwards, so any
// number of threads may read it (the Allocator's accounting has its own
// lock).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_RUNTIMEIMPL_H
#define STRIDE_LIB_RUNTIME_RUNTIMEIMPL_H

#include "CudaDriver.h"
#include "LibraryRegistry.h"
#include "stride/Runtime/Executable.h"

#include <atomic>
#include <string>
#include <vector>

namespace stride {

class CollectiveGroup;

inline std::string str(int64_t v) { return std::to_string(v); }
inline std::string quoted(const std::string &s) { return "'" + s + "'"; }

struct Runtime::Impl {
  const CudaDriver &cu;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int maxSharedOptin = 0;
  std::shared_ptr<Allocator> defaultAllocator;
  /// Device bytes the runtime's allocators hold now, and the most they held
  /// at once (Runtime::peakDeviceBytes).
  mutable std::atomic<uint64_t> bytesInUse{0};
  mutable std::atomic<uint64_t> peakBytes{0};

  explicit Impl(const CudaDriver &cu) : cu(cu) {}

  void countAllocation(uint64_t bytes) const {
    uint64_t now = bytesInUse.fetch_add(bytes) + bytes;
    uint64_t peak = peakBytes.load();
    while (now > peak && !peakBytes.compare_exchange_weak(peak, now)) {
    }
  }
  void countRelease(uint64_t bytes) const { bytesInUse.fetch_sub(bytes); }
  ~Impl();

  /// "<what> failed: CUDA_ERROR_X: text", with the code of `r`.
  Error cudaError(const std::string &what, CUresult r) const {
    return makeError(cudaErrorCode(r), what + " failed: " + cu.errorText(r));
  }

  Status check(CUresult r, const std::string &what) const {
    if (r == CUDA_SUCCESS)
      return Status::ok();
    return cudaError(what, r);
  }

  /// Makes the device's context current on the calling thread; every entry
  /// point calls it first, so any thread may use the runtime's objects.
  Status makeCurrent() const {
    return check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  /// The device's `attribute`; an error names it as `what`.
  Result<int> deviceAttribute(CUdevice_attribute attribute, const char *what) const {
    int value = 0;
    if (CUresult r = cu.cuDeviceGetAttribute(&value, attribute, device))
      return cudaError(std::string("cuDeviceGetAttribute(") + what + ")", r);
    return value;
  }

  /// "device 0 (NVIDIA H100 80GB HBM3)".
  std::string describeDevice() const {
    return "device " + str(ordinal) + " (" + name + ")";
  }
};

/// One kernel parameter's value; cuLaunchKernel reads it through a pointer.
union ArgSlot {
  CUdeviceptr pointer;
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
};

/// The L2 windows of an executable's launches (L2Windows.h).
struct L2WindowPlan {
  /// Per step: the access-policy window a dispatch's launches carry
  /// (num_bytes 0: none).
  std::vector<CUaccessPolicyWindow> perStep;
  /// The bytes of constants the windows cover, each constant's once; 0
  /// where none applies.
  uint64_t bytes = 0;
};

struct Executable::Impl {
  Runtime &runtime;
  const Runtime::Impl &rt;
  const CudaDriver &cu;
  ModuleDesc desc;
  std::string name;
  std::vector<CUmodule> modules;                  // per executable
  std::vector<std::vector<CUfunction>> functions; // per executable, kernel
  /// Per step: a dispatch's argument values, buffer pointers still 0 (each
  /// invocation copies them and fills in its buffers' addresses); empty for
  /// other steps.
  std::vector<std::vector<ArgSlot>> argTemplates;
  /// Per step: a library call, prepared through the registry
  /// (LibraryRegistry.h) when the executable loads; null for other steps.
  std::vector<std::unique_ptr<PreparedLibraryCall>> libraryCalls;
  /// The group the collective steps run in (NcclCollective.h), joined by
  /// the first one's preparation; null without collectives. Every wait for
  /// the plan's stream is bounded by its timeout.
  std::shared_ptr<CollectiveGroup> collectiveGroup;
  /// Per buffer: the device copy of a Constant buffer, uploaded once when
  /// the executable loads and shared by its invocations; 0 for the others.
  /// From the runtime's default allocator, held until the executable goes.
  std::vector<CUdeviceptr> constantAddresses;
  std::shared_ptr<Allocator> constantAllocator;
  /// The L2 windows its launches carry (L2Windows.h).
  L2WindowPlan l2Windows;

  Impl(Runtime &runtime, ModuleDesc desc, std::string name)
      : runtime(runtime), rt(runtime.impl()), cu(rt.cu), desc(std::move(desc)),
        name(std::move(name)) {}
  ~Impl();

  /// "'fused_0'".
  std::string kernelName(const DispatchStep &d) const {
    return quoted(desc.executables[d.executable].kernels[d.kernel].name);
  }
  /// "step 2 of 5 (kernel 'fused_0')", "step 3 of 5 (copy)".
  std::string stepName(size_t step) const;
  /// "buffer 2 (temporary) of m.stridemod".
  std::string bufferName(size_t index) const;
};

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_RUNTIMEIMPL_H
