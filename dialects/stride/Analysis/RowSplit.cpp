//===- RowSplit.cpp - How a broadcast-reduction row meets threads ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/RowSplit.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <optional>

namespace stride {

/// The split of a row over one warp or one block.
static RowSplit splitOverBlock(int64_t rowLength, int64_t kernelOps) {
  constexpr int64_t kWarp = 32, kMaxThreads = 1024;
  auto perThread = [&](int64_t threads) {
    return static_cast<int64_t>(llvm::divideCeil(rowLength, threads));
  };
  int64_t threads =
      rowLength <= kMaxThreads
          ? kWarp
          : std::min<int64_t>(kMaxThreads, llvm::PowerOf2Ceil(llvm::divideCeil(
                                               rowLength, kWarp)));
  while (threads < kMaxThreads &&
         perThread(threads) * std::max<int64_t>(kernelOps, 1) >
             kMaxUnrolledRowOps)
    threads *= 2;
  int64_t elements = perThread(threads);
  return {threads, elements, elements <= kMaxRowElementsPerThread};
}

/// The split of a row over the fewest blocks of a cluster whose threads
/// hold it in registers, if at most kMaxRowClusterBlocks do.
static std::optional<RowSplit> splitOverCluster(int64_t rowLength,
                                                int64_t kernelOps) {
  int64_t held = std::clamp<int64_t>(
      kMaxUnrolledRowOps / std::max<int64_t>(kernelOps, 1), 1,
      kRowClusterElementsPerThread);
  for (int64_t threads : {kRowClusterThreads, 2 * kRowClusterThreads}) {
    int64_t blocks = std::max<int64_t>(
        2, llvm::divideCeil(rowLength, threads * held));
    if (blocks > kMaxRowClusterBlocks)
      continue;
    int64_t elements = llvm::divideCeil(rowLength, blocks * threads);
    return RowSplit{threads, elements, /*inRegisters=*/true, blocks};
  }
  return std::nullopt;
}

/// The split of a row over one block holding the values its later phases
/// read back in shared memory, where they fit.
static std::optional<RowSplit> splitOverShared(int64_t rowLength,
                                               int64_t heldElementBytes) {
  int64_t bytes = rowLength * heldElementBytes;
  if (heldElementBytes <= 0 ||
      heldElementBytes > kMaxRowSharedElementBytes ||
      bytes > kMaxRowSharedBytes)
    return std::nullopt;
  RowSplit split{kRowSharedThreads,
                 static_cast<int64_t>(
                     llvm::divideCeil(rowLength, kRowSharedThreads)),
                 /*inRegisters=*/false};
  split.sharedBytes = bytes;
  return split;
}

RowSplit splitRow(int64_t rowLength, int64_t kernelOps, bool clusters,
                  int64_t kernelInputs, int64_t heldElementBytes) {
  RowSplit block = splitOverBlock(rowLength, kernelOps);
  int64_t held = kernelInputs > 1 ? kMaxRowElementsPerBlock / 2
                                  : kMaxRowElementsPerBlock;
  bool blockHolds =
      block.inRegisters && block.threads * block.elementsPerThread <= held;
  if (blockHolds || !clusters)
    return block;
  if (std::optional<RowSplit> shared =
          splitOverShared(rowLength, heldElementBytes))
    return *shared;
  return splitOverCluster(rowLength, kernelOps).value_or(block);
}

// A thread's elements as groups of 4 consecutive ones (a load each, 16
// bytes of f32, 8 of bf16) where the row holds whole groups and every
// thread gets one; the loop over them stays unrolled as far (at most 3 more
// elements per thread). A row of 4 to 16 groups, a power of two, takes that
// many lanes, each lane's load a row's group, where a warp per row of 64 f32
// read 2 elements a lane with two 128-byte loads (bench/NOTES.md section
// 37). Rows split over a cluster keep an element per step: in groups (16
// elements a thread) LayerNorm's took 45-52 registers, 2 blocks per
// multiprocessor, and ran 11-28% slower on an H100, softmax's 1% faster in
// bf16 and 5% slower in f32 (sections 34 and 37).
RowSplit groupRowInFours(RowSplit split, int64_t rowLength) {
  bool held = split.inRegisters || split.sharedBytes > 0;
  if (!held || split.clusterBlocks > 1 || rowLength % 4 != 0)
    return split;
  int64_t groups = rowLength / 4;
  if (split.threads == 32 && groups >= kMinRowLanes && groups < 32 &&
      llvm::isPowerOf2_64(groups))
    split.threads = groups;
  if (groups >= split.threads) {
    split.vectorWidth = 4;
    split.elementsPerThread =
        4 * static_cast<int64_t>(llvm::divideCeil(groups, split.threads));
  }
  return split;
}

} // namespace stride
