//===- ModuleCache.h - Modules cached by what they are made from -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A cache of whole module files, beside NVRTC's (NvrtcCache.h). A module is
// a function of the graph file's bytes and name, the compile options that
// reach it, the compiler itself and the NVRTC (with its CUDA headers) that
// compiled its kernels; the key hashes all of them, so a hit hands back the
// earlier module without importing, lowering, compiling or planning. For a
// model archive of hundreds of MB of weights that work is seconds, and the
// hit is hashing the archive and linking one file
// (python-free-docs/compile-time.md, "The cache").
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_COMPILER_MODULECACHE_H
#define STRIDE_COMPILER_MODULECACHE_H

#include "stride/Compiler/Compiler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace stride {

/// The key, as hex, of compiling the graph file `input` (its bytes), named
/// `inputName` as given (the kernels' descriptions carry the file name),
/// into a module (EmitKind::Module) with `options`. Covers every option
/// that changes the module's bytes, the identity of the binary holding the
/// compiler (its path, size and modification time) and NVRTC's identity
/// (nvrtcLibraryIdentity) with the CUDA headers' directory; not the
/// options that only change how the compile runs (threads, timing).
std::string moduleCacheKey(llvm::ArrayRef<uint8_t> input,
                           llvm::StringRef inputName,
                           const CompileOptions &options);

/// The path of the entry for `key` in the cache directory `dir`.
std::string moduleCacheEntry(llvm::StringRef dir, llvm::StringRef key);

/// Puts the module of `entry` at `output`, atomically replacing what is
/// there: a hard link where both are on one file system (stridec never
/// writes a module file in place, so the entry and the output stay equal),
/// else a copy. False when there is no entry or it cannot be placed.
bool placeCachedModule(llvm::StringRef entry, llvm::StringRef output);

/// The most bytes of modules the cache keeps in its directory; storing
/// more removes the least recently used entries first (a model's module
/// holds its weights: hundreds of MB each).
inline constexpr uint64_t kModuleCacheMaxBytes = uint64_t(8) << 30;

/// Stores `module`'s file as `entry` (streamed beside it and renamed into
/// place, so a reader never sees half of it), then removes the least
/// recently used module entries of its directory while they hold more than
/// `maxBytes` (a hit counts as a use); failures are silent, as a cache is
/// only an optimization.
void storeCachedModule(llvm::StringRef entry, const ModuleDesc &module,
                       uint64_t maxBytes = kModuleCacheMaxBytes);

/// compileFile(path, options) through the cache in options.nvrtcCacheDir,
/// for embedders (the C API's stride_compiler_compile_file): a hit reads
/// the entry back and returns it as a successful result without compiling;
/// a compile that succeeded with no diagnostics is stored. As stridec, a
/// compile with warnings or remarks is not stored, so that every compile
/// of it reports them. Without a cache directory, for an output other than
/// a module, with callbacks (which a hit would not call), or for an input
/// that cannot be read, it is compileFile.
CompileResult compileFileCached(const std::string &path,
                                const CompileOptions &options);

} // namespace stride

#endif // STRIDE_COMPILER_MODULECACHE_H
