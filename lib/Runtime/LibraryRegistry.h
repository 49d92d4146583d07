//===- LibraryRegistry.h - The routines a library-call step may call ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. Each routine a module's library-call step may name
// is registered here. A routine is either built into the runtime
// (`cublaslt.matmul`, CublasLt.h; `cudnn.sdpa_forward` and
// `cudnn.sdpa_backward`, Cudnn.h; `nccl.all_reduce`, `nccl.all_gather`,
// `nccl.reduce_scatter`, NcclCollective.h) or a symbol of a shared library (the test
// routines; see stride/Runtime/LibraryRoutine.h), dlopened on first use from
// the folder named by STRIDE_LIBRARY_PATH, then the system's search path.
//
// A step goes through three stages:
//   - Executable::load prepares it (prepareLibraryCall): its descriptor is
//     checked and everything that depends only on the module is built. The
//     PreparedLibraryCall is immutable and shared by the invocations.
//   - Invocation::create instantiates it: a LibraryCallInstance holds what
//     is the invocation's own (a cuBLASLt handle, a descriptor holding the
//     invocation's buffer addresses; a cuDNN handle, execution plan and
//     workspace).
//   - Over symbolic sizes, each new shape the invocation binds gives the
//     instance the step at its values (bindShape).
//   - Each run enqueues the instance on the invocation's stream.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_LIBRARYREGISTRY_H
#define STRIDE_LIB_RUNTIME_LIBRARYREGISTRY_H

#include "CudaDriver.h"
#include "stride/Module/Module.h"
#include "stride/Runtime/Runtime.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace stride {

/// What preparing a step sees of it.
struct LibraryCallContext {
  const CudaDriver &cu;
  const LibraryCallStep &call;
  /// The size of each of the step's buffers, in the step's order.
  std::vector<int64_t> bufferBytes;
  /// "m.stridemod: step 2 of 3 (library call 'cublaslt.matmul')": starts
  /// the message of every error of preparing the step.
  std::string where;
};

/// State that a routine's library keeps for several steps: in an
/// executable's load (cuBLASLt's handle and algorithm cache), or in one
/// invocation (its cuBLASLt handle). Each library stores its own under a
/// key of its own (the address of a static object).
class LibrarySessions {
public:
  /// The session stored under `key`, or null.
  std::shared_ptr<void> find(const void *key) const {
    for (const auto &[k, session] : sessions)
      if (k == key)
        return session;
    return nullptr;
  }
  void add(const void *key, std::shared_ptr<void> session) {
    sessions.emplace_back(key, std::move(session));
  }

private:
  std::vector<std::pair<const void *, std::shared_ptr<void>>> sessions;
};

/// A library-call step in one invocation.
class LibraryCallInstance {
public:
  virtual ~LibraryCallInstance() = default;
  /// Enqueues the call on `stream` over the step's buffers' device
  /// addresses. An error's message says what failed ("cublasLtMatmul
  /// returned ..."); the caller names the step.
  virtual Status enqueue(const uint64_t *buffers, CUstream stream) = 0;
  /// With InvocationOptions::tuneLibraryCalls, before the invocation's
  /// first run: may time the routine's ways of doing the call over the same
  /// buffers (writing what the call writes, and waiting for `stream`) and
  /// keep the fastest. Default: nothing to choose.
  virtual Status tune(const uint64_t *buffers, CUstream stream) {
    return Status::ok();
  }
  /// Over symbolic sizes (a descriptor with size expressions), before the
  /// runs of each shape: `instantiated` is the step at the bound symbols'
  /// values (instantiateModule), whose problem the next runs call. Only a
  /// routine registered with `symbolicSizes` is given one.
  virtual Status bindShape(const LibraryCallStep &instantiated) {
    return Status::ok();
  }
};

/// A library-call step prepared when its executable loads; immutable.
class PreparedLibraryCall {
public:
  virtual ~PreparedLibraryCall() = default;
  /// What one invocation needs of its own to enqueue the step; state shared
  /// by the invocation's steps goes into `sessions`. An error's message says
  /// what failed; the caller names the step.
  virtual Result<std::unique_ptr<LibraryCallInstance>>
  instantiate(LibrarySessions &sessions) const = 0;
};

/// Prepares a step of a routine built into the runtime; `loadSessions`
/// lives while its executable loads.
using PrepareBuiltinFn = Result<std::unique_ptr<PreparedLibraryCall>> (*)(
    const LibraryCallContext &context, LibrarySessions &loadSessions);

struct RegisteredRoutine {
  const char *routine; // as a library-call step names it
  /// Built into the runtime: how to prepare a step; null for a routine of a
  /// shared library.
  PrepareBuiltinFn prepareBuiltin;
  const char *library; // the shared library's file name
  const char *symbol;  // a StrideLibraryRoutineFn in that library
  const char *install; // what provides the library
  /// Whether the routine takes descriptors with size expressions
  /// (LibraryCallInstance::bindShape); the others refuse them at load.
  bool symbolicSizes = false;
};

/// The registered routine named `routine`, or null.
const RegisteredRoutine *findLibraryRoutine(const std::string &routine);

/// Prepares a step of `routine`: a built-in routine checks its descriptor;
/// a library's routine is loaded (NotFound without its library,
/// Incompatible without its symbol). Every error starts with
/// `context.where`.
Result<std::unique_ptr<PreparedLibraryCall>>
prepareLibraryCall(const RegisteredRoutine &routine,
                   const LibraryCallContext &context,
                   LibrarySessions &loadSessions);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_LIBRARYREGISTRY_H
