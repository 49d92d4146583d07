//===- DynamicLibrary.cpp - Vendor libraries opened at run time -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/DynamicLibrary.h"

#include <dlfcn.h>

#include <cstdlib>

namespace stride {

std::vector<std::string> cudaLibraryCandidates(const char *environmentVariable,
                                               const char *soname) {
  if (const char *path = std::getenv(environmentVariable); path && *path)
    return {path};
  return {soname, std::string("/usr/local/cuda/lib64/") + soname,
          std::string("/usr/local/cuda/targets/x86_64-linux/lib/") + soname};
}

std::optional<OpenedLibrary>
openFirstLibrary(const std::vector<std::string> &candidates,
                 std::string &failures) {
  for (const std::string &candidate : candidates) {
    if (void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
      return OpenedLibrary{handle, candidate};
    const char *text = dlerror();
    failures += (failures.empty() ? "" : "; ") +
                std::string(text ? text : candidate + ": not found");
  }
  return std::nullopt;
}

} // namespace stride
