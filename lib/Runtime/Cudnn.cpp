//===- Cudnn.cpp - cuDNN 9, loaded at run time ----------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"

#include "RuntimeImpl.h"
#include "stride/Support/DynamicLibrary.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

namespace stride {

namespace {

constexpr const char *kLibrary = "libcudnn.so.9";
constexpr const char *kInstall =
    "cuDNN 9 for CUDA 13 (the package libcudnn9-cuda-13 or nvidia-cudnn-cu13), "
    "or set STRIDE_CUDNN to the path of its libcudnn.so.9";

/// Binds every entry point of `handle`; the name of the first one missing
/// in `missing`.
bool bindCudnn(void *handle, Cudnn &dnn, std::string &missing) {
#define STRIDE_BIND_CUDNN_FN(fn)                                               \
  dnn.fn = reinterpret_cast<decltype(dnn.fn)>(dlsym(handle, #fn));            \
  if (!dnn.fn) {                                                               \
    missing = #fn;                                                             \
    return false;                                                              \
  }
  STRIDE_CUDNN_FUNCTIONS(STRIDE_BIND_CUDNN_FN)
#undef STRIDE_BIND_CUDNN_FN
  return true;
}

} // namespace

std::string Cudnn::failure(const std::string &what,
                           cudnnStatus_t status) const {
  const char *name = cudnnGetErrorString ? cudnnGetErrorString(status) : nullptr;
  std::string text = what + " returned " +
                     (name ? std::string(name)
                           : "cuDNN status " + std::to_string(int(status)));
  if (cudnnGetLastErrorString) {
    char last[512] = {};
    cudnnGetLastErrorString(last, sizeof(last));
    if (last[0])
      text += std::string(": ") + last;
  }
  return text;
}

std::string Cudnn::versionText() const {
  int64_t v = version();
  return str(v / 10000) + "." + str(v / 100 % 100) + "." + str(v % 100);
}

ErrorCode cudnnErrorCode(cudnnStatus_t status) {
  switch (int(status)) {
  case CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED: return ErrorCode::NotFound;
  case CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH: return ErrorCode::Incompatible;
  case CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED:
  case CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED:
    return ErrorCode::ResourceExhausted;
  default: break;
  }
  switch (CUDNN_STATUS_CATEGORY(int(status))) {
  case CUDNN_STATUS_NOT_SUPPORTED: return ErrorCode::Incompatible;
  case CUDNN_STATUS_EXECUTION_FAILED: return ErrorCode::DeviceFault;
  default: return ErrorCode::Internal;
  }
}

Result<const Cudnn *> loadCudnn(const std::string &where) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Cudnn>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::string failures;
  std::optional<OpenedLibrary> library = openFirstLibrary(
      cudaLibraryCandidates("STRIDE_CUDNN", kLibrary), failures);
  if (!library)
    return makeError(ErrorCode::NotFound,
                     where + " needs cuDNN (" + kLibrary +
                         "), which could not be loaded (" + failures +
                         "); install " + kInstall);
  std::unique_ptr<Cudnn> &dnn = loaded[library->path];
  if (dnn)
    return dnn.get();
  auto bound = std::make_unique<Cudnn>();
  bound->path = library->path;
  std::string missing;
  if (!bindCudnn(library->handle, *bound, missing))
    return makeError(ErrorCode::Incompatible,
                     where + " needs symbol '" + missing + "' of " +
                         library->path +
                         ", which the loaded library does not define (it is "
                         "not cuDNN 9); install " +
                         kInstall);
  dnn = std::move(bound);
  return dnn.get();
}

} // namespace stride
