//===- DynamicLibrary.h - Vendor libraries opened at run time ---*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Stride links no vendor library: NVRTC, the CUDA driver and cuBLASLt are
// opened with dlopen when first needed, so every tool starts on a machine
// without them and says which one is missing. These helpers find the file.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_DYNAMICLIBRARY_H
#define STRIDE_SUPPORT_DYNAMICLIBRARY_H

#include <optional>
#include <string>
#include <vector>

namespace stride {

/// A library opened with dlopen (never closed: it lives as long as the
/// process).
struct OpenedLibrary {
  void *handle = nullptr;
  /// The candidate that loaded.
  std::string path;
};

/// Where to look for a library of the CUDA toolkit: the path in
/// `environmentVariable` alone when it is set, else `soname` on the
/// loader's usual paths, then under /usr/local/cuda.
std::vector<std::string> cudaLibraryCandidates(const char *environmentVariable,
                                               const char *soname);

/// The file that openFirstLibrary(candidates) would load, found with stat
/// calls and a read of /etc/ld.so.cache only (nothing is opened with dlopen,
/// so this is cheap and works without the library being loadable), as its
/// canonical path. A candidate with a '/' is a path; a bare soname is
/// searched as the loader searches: $LD_LIBRARY_PATH, then the entries of
/// /etc/ld.so.cache, then the system directories. It is an approximation of
/// the loader (the caller's RUNPATH and glibc-hwcaps subdirectories are not
/// searched, and a file that exists but would not load is still chosen);
/// nullopt when no candidate exists.
std::optional<std::string>
findLibraryFile(const std::vector<std::string> &candidates);

/// dlopens the first of `candidates` that loads (RTLD_NOW | RTLD_LOCAL).
/// When none does, returns nullopt with `failures` listing why each did not.
std::optional<OpenedLibrary>
openFirstLibrary(const std::vector<std::string> &candidates,
                 std::string &failures);

} // namespace stride

#endif // STRIDE_SUPPORT_DYNAMICLIBRARY_H
