//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

#include <cstring>

namespace stride {

namespace {

#define STRIDE_STRINGIFY(x) #x
/// The macro-expanded spelling: STRIDE_SYMBOL(cuMemAlloc) is "cuMemAlloc_v2".
#define STRIDE_SYMBOL(x) STRIDE_STRINGIFY(x)

constexpr const char *kDriverLibrary = "libcuda.so.1";

std::string cudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/// Entry points whose newest version appeared in a recent driver, with an
/// older symbol of the same prototype to fall back to.
const char *olderSymbolWithSamePrototype(const char *symbol) {
  if (std::strcmp(symbol, "cuEventElapsedTime_v2") == 0)
    return "cuEventElapsedTime";
  return nullptr;
}

class DriverBinder {
public:
  explicit DriverBinder(void *library) : library(library) {}

  template <typename Fn> void bind(const char *symbol, Fn &slot) {
    void *address = dlsym(library, symbol);
    if (!address)
      if (const char *older = olderSymbolWithSamePrototype(symbol))
        address = dlsym(library, older);
    if (!address && missing.empty())
      missing = symbol;
    slot = reinterpret_cast<Fn>(address);
  }

  /// The first symbol that could not be bound, or empty.
  std::string missing;

private:
  void *library;
};

Result<CudaDriver> bindDriver() {
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's lookups.
  void *library = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    return makeError(
        ErrorCode::Unavailable,
        std::string("no CUDA driver found: ") + kDriverLibrary +
            " could not be loaded (" + (reason ? reason : "unknown reason") +
            "); running a Stride module needs an NVIDIA GPU and its "
            "driver");
  }
  CudaDriver driver;
  DriverBinder binder(library);
#define STRIDE_BIND_CUDA_FN(fn) binder.bind(STRIDE_SYMBOL(fn), driver.fn);
  STRIDE_CUDA_DRIVER_FUNCTIONS(STRIDE_BIND_CUDA_FN)
#undef STRIDE_BIND_CUDA_FN
  if (!binder.missing.empty()) {
    int version = 0;
    std::string driverVersion = "unknown CUDA version";
    if (driver.cuDriverGetVersion &&
        driver.cuDriverGetVersion(&version) == CUDA_SUCCESS)
      driverVersion = "CUDA " + cudaVersionText(version);
    return makeError(
        ErrorCode::Unavailable,
        "the CUDA driver is too old: " + std::string(kDriverLibrary) + " (" +
            driverVersion + ") has no entry point " + binder.missing +
            ", which this runtime (built against CUDA " +
            cudaVersionText(CUDA_VERSION) +
            " headers) needs; update the NVIDIA driver");
  }
  return driver;
}

} // namespace

std::string CudaDriver::errorText(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(static_cast<int>(r));
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text)
    return name;
  return std::string(name) + ": " + text;
}

Result<const CudaDriver *> loadCudaDriver() {
  static const Result<CudaDriver> driver = bindDriver();
  if (!driver)
    return driver.error();
  return &*driver;
}

bool isStickyCudaError(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return true;
  default:
    return false;
  }
}

ErrorCode cudaErrorCode(CUresult r) {
  if (isStickyCudaError(r))
    return ErrorCode::DeviceFault;
  switch (r) {
  case CUDA_ERROR_OUT_OF_MEMORY: return ErrorCode::ResourceExhausted;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_DEVICE_UNAVAILABLE: return ErrorCode::Unavailable;
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_NOT_FOUND: return ErrorCode::NotFound;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND: return ErrorCode::Incompatible;
  default: return ErrorCode::Internal;
  }
}

} // namespace stride
