//===- LibraryRegistry.cpp - The routines a library-call step may call ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The registry holds only the test routines for now: cuBLASLt's matmul
// (issue 14) is registered when its descriptor can be checked at load.
// Libraries stay loaded for the life of the process (dlopen counts
// references, so loading one again is cheap and returns the same handle).
//
//===----------------------------------------------------------------------===//

#include "LibraryRegistry.h"

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
    {"test.record", kTestRoutinesLibrary, "stride_test_record",
     kTestRoutinesInstall},
    // A symbol the test library does not define: the missing-symbol path.
    {"test.absent", kTestRoutinesLibrary, "stride_test_absent",
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

} // namespace

const RegisteredRoutine *findLibraryRoutine(const std::string &routine) {
  for (const RegisteredRoutine &r : kRoutines)
    if (routine == r.routine)
      return &r;
  return nullptr;
}

Result<StrideLibraryRoutineFn>
resolveLibraryRoutine(const RegisteredRoutine &routine,
                      const std::string &where) {
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
  return reinterpret_cast<StrideLibraryRoutineFn>(symbol);
}

} // namespace stride
