//===- CublasLt.cpp - cuBLASLt, loaded at run time ------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace stride {

namespace {

constexpr const char *kLibrary = "libcublasLt.so.13";
constexpr const char *kInstall =
    "the cuBLAS library of CUDA 13 (the CUDA toolkit, or the package "
    "libcublas-13-0 or nvidia-cublas), or set STRIDE_CUBLASLT to the path "
    "of its libcublasLt.so.13";

/// The files to try, in order: STRIDE_CUBLASLT alone when it is set.
std::vector<std::string> candidatePaths() {
  if (const char *path = std::getenv("STRIDE_CUBLASLT"); path && *path)
    return {path};
  return {kLibrary, std::string("/usr/local/cuda/lib64/") + kLibrary,
          std::string("/usr/local/cuda/targets/x86_64-linux/lib/") + kLibrary};
}

/// dlopens the first candidate that loads; null with `failures` listing
/// why each did not.
void *openCublasLt(std::string &path, std::string &failures) {
  for (const std::string &candidate : candidatePaths()) {
    if (void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      path = candidate;
      return handle;
    }
    const char *text = dlerror();
    failures += (failures.empty() ? "" : "; ") +
                std::string(text ? text : candidate + ": not found");
  }
  return nullptr;
}

/// Binds every entry point of `handle`; the name of the first one missing
/// in `missing`.
bool bindCublasLt(void *handle, CublasLt &lt, std::string &missing) {
#define STRIDE_BIND_CUBLASLT_FN(fn)                                            \
  lt.fn = reinterpret_cast<decltype(lt.fn)>(dlsym(handle, #fn));              \
  if (!lt.fn) {                                                                \
    missing = #fn;                                                             \
    return false;                                                              \
  }
  STRIDE_CUBLASLT_FUNCTIONS(STRIDE_BIND_CUBLASLT_FN)
#undef STRIDE_BIND_CUBLASLT_FN
  return true;
}

} // namespace

std::string CublasLt::failure(const char *function,
                              cublasStatus_t status) const {
  const char *name = cublasLtGetStatusName ? cublasLtGetStatusName(status)
                                           : nullptr;
  return std::string(function) + " returned " +
         (name ? std::string(name)
               : "cuBLAS status " + std::to_string(int(status)));
}

ErrorCode cublasErrorCode(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_ALLOC_FAILED: return ErrorCode::ResourceExhausted;
  case CUBLAS_STATUS_NOT_SUPPORTED:
  case CUBLAS_STATUS_ARCH_MISMATCH: return ErrorCode::Incompatible;
  case CUBLAS_STATUS_EXECUTION_FAILED: return ErrorCode::DeviceFault;
  default: return ErrorCode::Internal;
  }
}

Result<const CublasLt *> loadCublasLt(const std::string &where) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CublasLt>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::string path, failures;
  void *handle = openCublasLt(path, failures);
  if (!handle)
    return makeError(ErrorCode::NotFound,
                     where + " needs cuBLASLt (" + kLibrary +
                         "), which could not be loaded (" + failures +
                         "); install " + kInstall);
  std::unique_ptr<CublasLt> &lt = loaded[path];
  if (lt)
    return lt.get();
  auto bound = std::make_unique<CublasLt>();
  bound->path = path;
  std::string missing;
  if (!bindCublasLt(handle, *bound, missing))
    return makeError(ErrorCode::Incompatible,
                     where + " needs symbol '" + missing + "' of " + path +
                         ", which the loaded library does not define (it is "
                         "not the cuBLASLt of CUDA 13); install " +
                         kInstall);
  lt = std::move(bound);
  return lt.get();
}

} // namespace stride
