//===- BufferLimits.h - Limits of device buffers and the arena -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The bounds every device buffer obeys, shared by the plan dialect (which
// places buffers in the arena), the module format (which refuses a file that
// breaks them) and the runtime. Plain C++: they sit below the dialects so that
// the plan dialect need not include the module format.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_BUFFERLIMITS_H
#define STRIDE_SUPPORT_BUFFERLIMITS_H

#include <cstdint>

namespace stride {

/// No single buffer may exceed 256 TiB; a larger size is a corrupt file.
inline constexpr int64_t kMaxBufferBytes = int64_t(1) << 48;
/// Arena offsets (BufferDesc::arenaOffset, plan.alloc's `at arena`) are
/// multiples of this many bytes, as every device allocation is aligned for
/// the widest access a kernel or library makes.
inline constexpr int64_t kArenaAlignment = 256;

} // namespace stride

#endif // STRIDE_SUPPORT_BUFFERLIMITS_H
