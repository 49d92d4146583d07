//===- NvrtcCache.h - Content-addressed cache of NVRTC output -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// NVRTC takes most of a compile (a tenth of a second or more per module); the
// rest of the pipeline takes milliseconds. The cache keeps each CUBIN or PTX
// NVRTC made, under the SHA-256 of everything that determines it: the CUDA
// source, the arch and kind of output, the NVRTC options, the identity of
// the NVRTC library file (its path, size and modification time:
// nvrtcLibraryIdentity) and the CUDA headers' directory. A second compile of
// the same graph with the same options then never loads NVRTC: the key is
// computed from stat calls alone, and a hit returns the stored code.
//
// An entry is one file, `<dir>/<key>.bin`: the SHA-256 of the code, then the
// code. It is written to a temporary file and renamed into place, so readers
// never see half an entry and concurrent compilers may share a directory; an
// entry whose checksum does not match (a damaged disk, a truncated copy) is
// ignored and overwritten. Nothing is ever evicted: delete the directory to
// empty it.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_COMPILER_NVRTCCACHE_H
#define STRIDE_COMPILER_NVRTCCACHE_H

#include "stride/Target/CUDA/NVRTC.h"

#include <string>

namespace stride {

/// `$XDG_CACHE_HOME/stride/nvrtc`, else `$HOME/.cache/stride/nvrtc`; empty
/// when neither variable is set (no cache).
std::string defaultNvrtcCacheDir();

/// What happened to one lookup, for tests and `--mlir-timing`-style reports.
enum class CacheOutcome { Disabled, Hit, Miss };

/// compileCudaSource, through the cache in `cacheDir` (empty: no cache).
/// A cache that cannot be read or written is bypassed silently: the cache
/// only ever saves time, it never makes a compile fail.
Result<CodeImage> compileCudaSourceCached(const std::string &source,
                                          const NvrtcOptions &options,
                                          const std::string &cacheDir,
                                          CacheOutcome *outcome = nullptr);

} // namespace stride

#endif // STRIDE_COMPILER_NVRTCCACHE_H
