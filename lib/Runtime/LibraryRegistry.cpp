//===- LibraryRegistry.cpp - The routines a library-call step may call ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The registry: cuBLASLt's matmul, cuDNN's attention and NCCL's
// collectives, built in (CublasLt.cpp, CudnnSdpa.cpp, NcclCollective.cpp),
// and the test
// routines of libstride-test-routines.so.1. Libraries stay loaded for the
// life of the process (dlopen counts references, so loading one again is
// cheap and returns the same handle).
//
//===----------------------------------------------------------------------===//

#include "LibraryRegistry.h"

#include "CublasLt.h"
#include "Cudnn.h"
#include "NcclCollective.h"
#include "stride/Runtime/LibraryRoutine.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace stride {

namespace {

constexpr const char *kTestRoutinesLibrary = "libstride-test-routines.so.1";
constexpr const char *kTestRoutinesInstall =
    "Stride's test routine library, built in test/Runtime (set "
    "STRIDE_LIBRARY_PATH to its folder)";

constexpr RegisteredRoutine kRoutines[] = {
    {"cublaslt.matmul", prepareCublasLtMatmul, nullptr, nullptr, nullptr,
     /*symbolicSizes=*/true},
    {"cudnn.convolution", prepareCudnnConvolution, nullptr, nullptr, nullptr},
    {"cudnn.sdpa_forward", prepareCudnnSdpaForward, nullptr, nullptr, nullptr,
     /*symbolicSizes=*/true},
    {"cudnn.sdpa_backward", prepareCudnnSdpaBackward, nullptr, nullptr,
     nullptr, /*symbolicSizes=*/true},
    {"nccl.all_reduce", prepareNcclCollective, nullptr, nullptr, nullptr},
    {"nccl.all_gather", prepareNcclCollective, nullptr, nullptr, nullptr},
    {"nccl.reduce_scatter", prepareNcclCollective, nullptr, nullptr, nullptr},
    {"test.record", nullptr, kTestRoutinesLibrary, "stride_test_record",
     kTestRoutinesInstall},
    // A symbol the test library does not define: the missing-symbol path.
    {"test.absent", nullptr, kTestRoutinesLibrary, "stride_test_absent",
     kTestRoutinesInstall},
};

/// dlopens `library` from STRIDE_LIBRARY_PATH if it is there, else from the
/// system's search path; null with `failure` set if neither has it.
void *openLibrary(const std::string &library, std::string &failure) {
  if (const char *folder = std::getenv("STRIDE_LIBRARY_PATH"); folder && *folder)
    if (void *handle = dlopen((std::string(folder) + "/" + library).c_str(),
                              RTLD_NOW | RTLD_LOCAL))
      return handle;
  if (void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL))
    return handle;
  const char *text = dlerror();
  failure = text ? text : "not found";
  return nullptr;
}

/// A library routine's call: its symbol, called with the step's descriptor
/// in the routine's C form (pointing into the executable's ModuleDesc).
class LibrarySymbolCall final : public PreparedLibraryCall,
                                public LibraryCallInstance {
public:
  LibrarySymbolCall(const CudaDriver &cu, StrideLibraryRoutineFn routine,
                    const LibraryCallStep &call)
      : cu(cu), routine(routine), numBuffers(call.buffers.size()) {
    for (const DescriptorField &f : call.descriptor)
      fields.push_back(
          {f.name.c_str(), f.ints.data(), f.ints.size(), f.text.c_str()});
  }

  /// The call keeps no state, so every invocation shares this object.
  Result<std::unique_ptr<LibraryCallInstance>>
  instantiate(LibrarySessions &) const override {
    return std::unique_ptr<LibraryCallInstance>(
        new LibrarySymbolCall(*this));
  }

  Status enqueue(const uint64_t *buffers, CUstream stream) override {
    StrideLibraryCall call{fields.data(), fields.size(), buffers, numBuffers,
                           stream};
    auto r = static_cast<CUresult>(routine(&call));
    if (r == CUDA_SUCCESS)
      return Status::ok();
    return makeError(cudaErrorCode(r), cu.errorText(r));
  }

private:
  const CudaDriver &cu;
  StrideLibraryRoutineFn routine;
  size_t numBuffers;
  std::vector<StrideDescriptorField> fields;
};

Result<std::unique_ptr<PreparedLibraryCall>>
prepareLibrarySymbol(const RegisteredRoutine &routine,
                     const LibraryCallContext &context) {
  const std::string &where = context.where;
  std::string failure;
  void *handle = openLibrary(routine.library, failure);
  if (!handle)
    return makeError(ErrorCode::NotFound,
                     where + " needs " + routine.library +
                         ", which could not be loaded (" + failure +
                         "); install " + routine.install);
  void *symbol = dlsym(handle, routine.symbol);
  if (!symbol)
    return makeError(ErrorCode::Incompatible,
                     where + " needs symbol '" + routine.symbol + "' of " +
                         routine.library +
                         ", which the loaded library does not define (it is "
                         "not the version Stride needs); install " +
                         routine.install);
  return std::unique_ptr<PreparedLibraryCall>(new LibrarySymbolCall(
      context.cu, reinterpret_cast<StrideLibraryRoutineFn>(symbol),
      context.call));
}

} // namespace

const RegisteredRoutine *findLibraryRoutine(const std::string &routine) {
  for (const RegisteredRoutine &r : kRoutines)
    if (routine == r.routine)
      return &r;
  return nullptr;
}

Result<std::unique_ptr<PreparedLibraryCall>>
prepareLibraryCall(const RegisteredRoutine &routine,
                   const LibraryCallContext &context,
                   LibrarySessions &loadSessions) {
  for (const DescriptorField &f : context.call.descriptor)
    if (!f.symbolicInts.empty() && !routine.symbolicSizes)
      return makeError(ErrorCode::Incompatible,
                       context.where + ": descriptor field '" + f.name +
                           "' is a size expression, but routine '" +
                           routine.routine +
                           "' is not called over symbolic sizes (only "
                           "cublaslt.matmul, cudnn.sdpa_forward and "
                           "cudnn.sdpa_backward are)");
  if (routine.prepareBuiltin)
    return routine.prepareBuiltin(context, loadSessions);
  return prepareLibrarySymbol(routine, context);
}

} // namespace stride
