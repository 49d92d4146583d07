//===- ModuleInternal.h - What the module format's files share --*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The helpers that the files of lib/Module (Module.cpp, ModuleReader.cpp,
// ModuleWriter.cpp, ModuleVerifier.cpp, ModuleDescribe.cpp, ModuleFile.cpp)
// share. Private to
// lib/Module.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_MODULE_MODULEINTERNAL_H
#define STRIDE_LIB_MODULE_MODULEINTERNAL_H

#include "stride/Module/SharedBytes.h"
#include "stride/Support/Result.h"

#include <cstdint>
#include <functional>
#include <string>

namespace stride {

/// The bytes of the file at `path`: mapped read-only into memory where the
/// file can be (a regular file), else read (a pipe). Messages start with
/// `path`. (ModuleFile.cpp.)
Result<SharedBytes> mapModuleFile(const std::string &path);

/// Writes `path` anew: `write` fills a new file beside it (returning false
/// on a failed write, with errno set), which is then renamed over `path`, so
/// that a reader that mapped the old file keeps its bytes. Messages start
/// with `path`. (ModuleFile.cpp.)
Status replaceFile(const std::string &path,
                   const std::function<bool(int fd)> &write);

/// Writes all `size` bytes to `fd`; false (errno set) on an error.
bool writeAll(int fd, const uint8_t *data, uint64_t size);

struct ModuleDesc;

/// The first problem of `desc`'s streams and events (ModuleStreams.cpp), or
/// "" when it has none.
std::string findStreamProblem(const ModuleDesc &desc);

/// The first problem of `desc`'s symbols and symbolic layouts, grids and
/// sizes (ModuleSymbols.cpp), or "" when it has none.
std::string findSymbolProblem(const ModuleDesc &desc);

namespace detail {

/// `v` in decimal, for messages.
std::string str(int64_t v);

/// A C identifier: a letter or `_`, then letters, digits and `_`.
bool isIdentifier(const std::string &s);

} // namespace detail
} // namespace stride

#endif // STRIDE_LIB_MODULE_MODULEINTERNAL_H
