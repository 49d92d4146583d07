//===- RowSplit.h - How a broadcast-reduction row meets threads -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one home of how a broadcast-reduction kernel (form (d)) spreads each
// row over threads: the CUDA schedule (stride-schedule-kernels) records it
// on the kernel, and the fusion pass's cost model estimates registers with
// it before the kernel exists (docs/cuda-backend.md, docs/fusion.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_STRIDE_ANALYSIS_ROWSPLIT_H
#define STRIDE_DIALECT_STRIDE_ANALYSIS_ROWSPLIT_H

#include <cstdint>

namespace stride {

/// A thread holds up to this many elements of its row in registers across
/// the phases; longer shares are re-read in each phase.
constexpr int64_t kMaxRowElementsPerThread = 32;

/// The printed row loops are unrolled over the elements a thread holds, so
/// NVRTC compiles each op once per element: a row is spread over more
/// threads until a kernel's ops times its elements per thread is at most
/// this (softmax over rows of 1,024: 5 ops x 32 elements stays a warp per
/// row).
constexpr int64_t kMaxUnrolledRowOps = 192;

struct RowSplit {
  /// Threads per row: 32 (a warp) or a power of two up to 1024 (a block).
  int64_t threads;
  /// The row's elements per thread, rounded up.
  int64_t elementsPerThread;
  /// Whether a thread holds its elements in registers across the phases.
  bool inRegisters;
};

/// A warp per row of up to 1,024 elements, else a block of up to 1,024
/// threads with at most kMaxRowElementsPerThread elements each; then more
/// threads while `kernelOps` (the kernel's functional ops) times the
/// elements per thread exceeds kMaxUnrolledRowOps.
RowSplit splitRow(int64_t rowLength, int64_t kernelOps);

} // namespace stride

#endif // STRIDE_DIALECT_STRIDE_ANALYSIS_ROWSPLIT_H
