//===- CublasLt.cpp - cuBLASLt, loaded at run time ------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"

#include "stride/Support/DynamicLibrary.h"

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
  std::string failures;
  std::optional<OpenedLibrary> library =
      openFirstLibrary(cudaLibraryCandidates("STRIDE_CUBLASLT", kLibrary), failures);
  if (!library)
    return makeError(ErrorCode::NotFound,
                     where + " needs cuBLASLt (" + kLibrary +
                         "), which could not be loaded (" + failures +
                         "); install " + kInstall);
  std::unique_ptr<CublasLt> &lt = loaded[library->path];
  if (lt)
    return lt.get();
  auto bound = std::make_unique<CublasLt>();
  bound->path = library->path;
  std::string missing;
  if (!bindCublasLt(library->handle, *bound, missing))
    return makeError(ErrorCode::Incompatible,
                     where + " needs symbol '" + missing + "' of " + library->path +
                         ", which the loaded library does not define (it is "
                         "not the cuBLASLt of CUDA 13); install " +
                         kInstall);
  lt = std::move(bound);
  return lt.get();
}

} // namespace stride
