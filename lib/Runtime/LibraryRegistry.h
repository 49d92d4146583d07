//===- LibraryRegistry.h - The routines a library-call step may call ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. Each routine a module's library-call step may name
// is registered here with the shared library that provides it, the symbol
// to call (see stride/Runtime/LibraryRoutine.h) and what to install when the
// library is missing. Executable::load resolves each step's routine through
// resolveLibraryRoutine, which dlopens the library on first use (a folder
// named by STRIDE_LIBRARY_PATH is searched first, then the system's).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_LIBRARYREGISTRY_H
#define STRIDE_LIB_RUNTIME_LIBRARYREGISTRY_H

#include "stride/Runtime/LibraryRoutine.h"
#include "stride/Runtime/Runtime.h"

#include <string>

namespace stride {

struct RegisteredRoutine {
  const char *routine; // as a library-call step names it
  const char *library; // the shared library's file name
  const char *symbol;  // a StrideLibraryRoutineFn in that library
  const char *install; // what provides the library
};

/// The registered routine named `routine`, or null.
const RegisteredRoutine *findLibraryRoutine(const std::string &routine);

/// Loads the routine's library and symbol. `where` ("m.stridemod: step 2 of
/// 3 (library call 'test.record')") starts the message of a NotFound (no
/// library) or Incompatible (no symbol) error.
Result<StrideLibraryRoutineFn>
resolveLibraryRoutine(const RegisteredRoutine &routine,
                      const std::string &where);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_LIBRARYREGISTRY_H
