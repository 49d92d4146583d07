//===- Cudnn.h - cuDNN 9, loaded at run time ------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. As with cuBLASLt (CublasLt.h), the runtime never
// links cuDNN: libcudnn.so.9 is dlopened when a module with a `cudnn.*`
// step loads, from the file STRIDE_CUDNN names if it is set, else from the
// system's search path, /usr/local/cuda/lib64 or
// /usr/local/cuda/targets/x86_64-linux/lib. Only the backend (graph) API is
// used, each entry point declared as `decltype(&::name)` so its prototype
// comes from <cudnn_graph.h>. cuDNN's frontend (the C++ header library) is
// not used: CudnnGraph.h builds the backend's descriptors itself.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_CUDNN_H
#define STRIDE_LIB_RUNTIME_CUDNN_H

#include "LibraryRegistry.h"

#include <cudnn_graph.h>

#include <string>

namespace stride {

// clang-format off
#define STRIDE_CUDNN_FUNCTIONS(X)                                              \
  X(cudnnGetVersion) X(cudnnGetErrorString) X(cudnnGetLastErrorString)        \
  X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream)                             \
  X(cudnnBackendCreateDescriptor) X(cudnnBackendDestroyDescriptor)             \
  X(cudnnBackendSetAttribute) X(cudnnBackendGetAttribute)                      \
  X(cudnnBackendFinalize) X(cudnnBackendExecute)
// clang-format on

/// The bound cuDNN entry points.
struct Cudnn {
#define STRIDE_DECLARE_CUDNN_FN(fn) decltype(&::fn) fn = nullptr;
  STRIDE_CUDNN_FUNCTIONS(STRIDE_DECLARE_CUDNN_FN)
#undef STRIDE_DECLARE_CUDNN_FN

  /// The file it was loaded from.
  std::string path;

  /// "cudnnBackendFinalize (the operation graph) returned
  /// CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN: <cuDNN's last error>".
  std::string failure(const std::string &what, cudnnStatus_t status) const;
  /// Forgets cuDNN's last error message (which outlives the call that set
  /// it), so that failure() reports only what follows.
  void clearLastError() const {
    char ignored[512];
    cudnnGetLastErrorString(ignored, sizeof(ignored));
  }
  /// cudnnGetVersion(): 91900 for 9.19.0.
  int64_t version() const { return int64_t(cudnnGetVersion()); }
  /// "9.19.0".
  std::string versionText() const;
};

/// Loads cuDNN and binds every entry point, once per file per process (the
/// library stays loaded). `where` (the step) starts the message of a
/// NotFound (no library) or Incompatible (a missing symbol) error.
Result<const Cudnn *> loadCudnn(const std::string &where);

/// The ErrorCode of a failed cuDNN call: Incompatible for the NOT_SUPPORTED
/// statuses and a sub-library of another version, NotFound for a
/// sub-library that could not be loaded, ResourceExhausted for a failed
/// allocation, DeviceFault for the EXECUTION_FAILED statuses, Internal
/// otherwise (a bad parameter is a Stride bug).
ErrorCode cudnnErrorCode(cudnnStatus_t status);

/// Prepares a `cudnn.sdpa_forward` / `cudnn.sdpa_backward` step (the
/// registry's PrepareBuiltinFn): checks its descriptor
/// (python-free-docs/attention.md) against its buffers and loads cuDNN.
/// Each invocation builds the step's cuDNN graph and execution plan.
Result<std::unique_ptr<PreparedLibraryCall>>
prepareCudnnSdpaForward(const LibraryCallContext &context,
                        LibrarySessions &loadSessions);
Result<std::unique_ptr<PreparedLibraryCall>>
prepareCudnnSdpaBackward(const LibraryCallContext &context,
                         LibrarySessions &loadSessions);

/// Prepares a `cudnn.convolution` step (python-free-docs/convolution.md,
/// "The cuDNN step"): checks its descriptor against its buffers and loads
/// cuDNN. Each invocation builds the step's graph and plan (shared by the
/// steps of one problem).
Result<std::unique_ptr<PreparedLibraryCall>>
prepareCudnnConvolution(const LibraryCallContext &context,
                        LibrarySessions &loadSessions);

/// Builds the operation graph of a `cudnn.convolution` step with no handle
/// and no plan, as buildCudnnSdpaGraph does.
Status buildCudnnConvolutionGraph(const LibraryCallContext &context);

/// Builds the operation graph of a `cudnn.sdpa_*` step (`backward` or not)
/// as an invocation does, but with no handle and no plan: every tensor and
/// operation descriptor is created, set and finalized, then the graph. For
/// tests of the graphs against a real cuDNN on a machine without a GPU.
Status buildCudnnSdpaGraph(const LibraryCallContext &context, bool backward);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_CUDNN_H
