//===- ModuleSchema.h - The FlatBuffers schema in use -----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The header flatc generates from StrideModule.fbs, and what the reader
// (ModuleReader.cpp) and the writer (ModuleWriter.cpp) assume of it and of
// the host. Private to lib/Module.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_MODULE_MODULESCHEMA_H
#define STRIDE_LIB_MODULE_MODULESCHEMA_H

#include "stride/Module/Module.h"

#include "StrideModule_generated.h"

#include <bit>

namespace stride {

static_assert(std::endian::native == std::endian::little,
              "module immediates are stored as little-endian bit patterns");

// The schema's ElementType mirrors DType value for value.
static_assert(static_cast<int>(fb::ElementType::MAX) ==
                  static_cast<int>(DType::I64),
              "StrideModule.fbs ElementType is out of sync with DType");

} // namespace stride

#endif // STRIDE_LIB_MODULE_MODULESCHEMA_H
