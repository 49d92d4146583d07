//===- CublasLt.h - cuBLASLt, loaded at run time --------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. The runtime never links cuBLASLt: a module without
// matrix products runs where it is absent. The library of CUDA 13,
// libcublasLt.so.13, is dlopened when a module with a `cublaslt.matmul` step
// loads: from the file STRIDE_CUBLASLT names if it is set, else from the
// system's search path, /usr/local/cuda/lib64 or
// /usr/local/cuda/targets/x86_64-linux/lib. As in CudaDriver.h, each entry
// point is declared as `decltype(&::name)`, so its prototype comes from
// <cublasLt.h> (used for its types and prototypes only).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_CUBLASLT_H
#define STRIDE_LIB_RUNTIME_CUBLASLT_H

#include "LibraryRegistry.h"

#include <cublasLt.h>

#include <string>

namespace stride {

// clang-format off
#define STRIDE_CUBLASLT_FUNCTIONS(X)                                           \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetStatusName)                \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy)                     \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy)                 \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy)         \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul)
// clang-format on

/// The bound cuBLASLt entry points.
struct CublasLt {
#define STRIDE_DECLARE_CUBLASLT_FN(fn) decltype(&::fn) fn = nullptr;
  STRIDE_CUBLASLT_FUNCTIONS(STRIDE_DECLARE_CUBLASLT_FN)
#undef STRIDE_DECLARE_CUBLASLT_FN

  /// The file it was loaded from.
  std::string path;

  /// "cublasLtMatmul returned CUBLAS_STATUS_NOT_SUPPORTED".
  std::string failure(const char *function, cublasStatus_t status) const;
};

/// Loads cuBLASLt and binds every entry point, once per file per process
/// (the library stays loaded). `where` (the step) starts the message of a
/// NotFound (no library) or Incompatible (a missing symbol) error.
Result<const CublasLt *> loadCublasLt(const std::string &where);

/// The ErrorCode of a failed cuBLASLt call: ResourceExhausted for
/// CUBLAS_STATUS_ALLOC_FAILED, Incompatible for NOT_SUPPORTED and
/// ARCH_MISMATCH, DeviceFault for EXECUTION_FAILED, Internal otherwise.
ErrorCode cublasErrorCode(cublasStatus_t status);

/// Prepares a `cublaslt.matmul` step (the registry's PrepareBuiltinFn): checks
/// its descriptor (python-free-docs/module-format.md, "cublaslt.matmul") against its
/// buffers, builds its cuBLASLt layouts and chooses its algorithm, once per
/// distinct problem of the executable.
Result<std::unique_ptr<PreparedLibraryCall>>
prepareCublasLtMatmul(const LibraryCallContext &context,
                      LibrarySessions &loadSessions);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_CUBLASLT_H
