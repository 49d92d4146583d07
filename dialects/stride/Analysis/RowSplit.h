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
// it before the kernel exists (python-free-docs/cuda-backend.md, python-free-docs/fusion.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_ANALYSIS_ROWSPLIT_H
#define STRIDE_DIALECTS_STRIDE_ANALYSIS_ROWSPLIT_H

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

/// A block holds at most this many elements of its row in registers when
/// its kernel reads only the row: 1,024 threads x 32, within the 64
/// registers a thread of a 1,024-thread block gets (softmax: 64 registers,
/// no spill). A kernel that reads other inputs per element too holds half:
/// LayerNorm with its weight and bias spilled at 1,024 x 32 and 1,024 x 20
/// and fits at 1,024 x 16 (bench/NOTES.md sections 15 and 26).
constexpr int64_t kMaxRowElementsPerBlock = 32768;

/// A row longer than a block holds is split over a thread-block cluster
/// (sm_90 and later) of up to this many blocks, the portable cluster size
/// that every sm_90 GPU schedules without an opt-in.
constexpr int64_t kMaxRowClusterBlocks = 8;

/// Threads per block of a row split over a cluster, and the most elements
/// each holds: about 45 registers a thread, so two blocks (of different
/// clusters) share a multiprocessor and one loads while the other combines.
constexpr int64_t kRowClusterThreads = 512;
constexpr int64_t kRowClusterElementsPerThread = 16;

/// A row longer than a block holds in registers (one the cluster form
/// would take, or longer) is held instead in one block's shared memory
/// where the values its later phases read back (the row's inputs, a math
/// function's results: rowSharedLayout in the CUDA backend) take at most
/// kMaxRowSharedElementBytes a row element in their storage types and the
/// row at most kMaxRowSharedBytes (the CUDA schedule also keeps it within
/// what a block of the arch may take): one block of
/// kRowSharedThreads threads per row, no exchange between blocks. On an
/// H100 (bench/NOTES.md sections 39 and 40) LayerNorm over bf16 rows of
/// 65,536 ran at 70% of the copy floor against 51% over a cluster; f32
/// rows of 32,768 (4 bytes an element) were 15% slower than over a
/// cluster, and 512 threads slower than 1,024.
constexpr int64_t kMaxRowSharedElementBytes = 2;
constexpr int64_t kMaxRowSharedBytes = 160 * 1024;
constexpr int64_t kRowSharedThreads = 1024;

/// The fewest lanes a row held in groups of 4 takes (a group each): rows of
/// 16 elements, 8 rows per warp.
constexpr int64_t kMinRowLanes = 4;

struct RowSplit {
  /// A row's threads in one block: 32 (a warp) or a power of two up to
  /// 1024 (a block).
  int64_t threads;
  /// The row's elements per thread, rounded up.
  int64_t elementsPerThread;
  /// Whether a thread holds its elements in registers across the phases.
  bool inRegisters;
  /// Blocks of a thread-block cluster that share a row, each `threads`
  /// threads; 1: the row is one warp's or one block's.
  int64_t clusterBlocks = 1;
  /// Consecutive elements a thread loads at once: 4 (a group) or 1.
  int64_t vectorWidth = 1;
  /// Bytes of one block's shared memory holding the values the row's later
  /// phases read back (the shared-memory form; 0: the row is held in
  /// registers or re-read).
  int64_t sharedBytes = 0;
};

/// A warp per row of up to 1,024 elements, else a block of up to 1,024
/// threads with at most kMaxRowElementsPerThread elements each; then more
/// threads while `kernelOps` (the kernel's functional ops) times the
/// elements per thread exceeds kMaxUnrolledRowOps. With `clusters` (the
/// target has thread-block clusters), a row longer than a block holds in
/// registers (kMaxRowElementsPerBlock; half of it when the kernel has more
/// than one of `kernelInputs`) is split over the fewest blocks of
/// kRowClusterThreads threads (1,024 where 512 are too few) of a cluster of
/// 2 to kMaxRowClusterBlocks blocks, each holding its share, unless
/// `heldElementBytes` (the bytes of one row element of the values the
/// kernel's later phases read back, 0 where unknown) lets one block hold
/// them in shared memory (kMaxRowSharedElementBytes, kMaxRowSharedBytes);
/// rows longer than that are re-read by one block.
RowSplit splitRow(int64_t rowLength, int64_t kernelOps, bool clusters = false,
                  int64_t kernelInputs = 1, int64_t heldElementBytes = 0);

/// `split` with a warp's or block's row held in groups of 4 consecutive
/// elements, for a row whose layout allows 4-element loads (its length a
/// multiple of 4 along the innermost dim): a row of kMinRowLanes to 16
/// groups, a power of two, takes that many lanes, a group each (2 to 8
/// rows per warp); a row with a group for every thread holds 4 x
/// ceil(groups / threads) elements a thread (also a row in shared
/// memory). A row over a cluster, re-read or with fewer groups than
/// threads keeps an element per step.
RowSplit groupRowInFours(RowSplit split, int64_t rowLength);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_ANALYSIS_ROWSPLIT_H
