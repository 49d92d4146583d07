//===- CudaDriver.h - The CUDA driver API, loaded at run time -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. Stride never links libcuda: the tools must start,
// and say clearly what is missing, on machines without an NVIDIA driver. The
// runtime dlopens libcuda.so.1 and binds the entry points it uses.
//
// <cuda.h> #defines many API names to versioned symbols (cuMemAlloc ->
// cuMemAlloc_v2, cuGraphInstantiate -> cuGraphInstantiateWithFlags). Each
// member below is declared as `decltype(&::name) name` and bound by the
// macro-expanded spelling of `name`, so the prototype and the symbol always
// come from the same header declaration; callers write `cu.cuMemAlloc(...)`
// and get the _v2 ABI, exactly as code linked against libcuda would.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_CUDADRIVER_H
#define STRIDE_LIB_RUNTIME_CUDADRIVER_H

#include "stride/Support/Result.h"

#include <cuda.h>

#include <string>

namespace stride {

// clang-format off
#define STRIDE_CUDA_DRIVER_FUNCTIONS(X)                                        \
  X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion)        \
  X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetAttribute)                   \
  X(cuDeviceGetName) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)  \
  X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize)                    \
  X(cuCtxGetLimit) X(cuCtxSetLimit)                                            \
  X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction)               \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute)                                  \
  X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo)                                   \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)               \
  X(cuMemsetD8Async)                                                           \
  X(cuLaunchKernel) X(cuLaunchKernelEx)                                       \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery)  \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)    \
  X(cuEventElapsedTime)                                                        \
  X(cuStreamBeginCapture) X(cuStreamEndCapture)                                \
  X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphExecDestroy)                 \
  X(cuGraphExecUpdate) X(cuGraphDestroy)
// clang-format on

/// The bound driver entry points.
struct CudaDriver {
#define STRIDE_DECLARE_CUDA_FN(fn) decltype(&::fn) fn = nullptr;
  STRIDE_CUDA_DRIVER_FUNCTIONS(STRIDE_DECLARE_CUDA_FN)
#undef STRIDE_DECLARE_CUDA_FN

  /// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".
  std::string errorText(CUresult r) const;
};

/// Loads libcuda.so.1 and binds every entry point, once per process (the
/// library stays loaded: unloading a driver with live contexts is unsafe).
/// Does not call cuInit.
Result<const CudaDriver *> loadCudaDriver();

/// Whether `r` leaves the CUDA context unusable (a fault inside a kernel).
bool isStickyCudaError(CUresult r);

/// The ErrorCode of a failed driver call: DeviceFault for a sticky error,
/// ResourceExhausted for out of memory, Incompatible for code the device or
/// driver cannot load, Unavailable for no device, Internal otherwise.
ErrorCode cudaErrorCode(CUresult r);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_CUDADRIVER_H
