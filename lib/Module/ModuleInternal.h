//===- ModuleInternal.h - What the module format's files share --*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The helpers that the files of lib/Module (Module.cpp, ModuleReader.cpp,
// ModuleWriter.cpp, ModuleVerifier.cpp, ModuleDescribe.cpp) share. Private to
// lib/Module.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_MODULE_MODULEINTERNAL_H
#define STRIDE_LIB_MODULE_MODULEINTERNAL_H

#include <cstdint>
#include <string>

namespace stride::detail {

/// `v` in decimal, for messages.
std::string str(int64_t v);

} // namespace stride::detail

#endif // STRIDE_LIB_MODULE_MODULEINTERNAL_H
