//===- RowSplit.cpp - How a broadcast-reduction row meets threads ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Dialect/Stride/Analysis/RowSplit.h"

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

RowSplit splitRow(int64_t rowLength, int64_t kernelOps, bool clusters,
                  int64_t kernelInputs) {
  RowSplit block = splitOverBlock(rowLength, kernelOps);
  int64_t held = kernelInputs > 1 ? kMaxRowElementsPerBlock / 2
                                  : kMaxRowElementsPerBlock;
  bool blockHolds =
      block.inRegisters && block.threads * block.elementsPerThread <= held;
  if (blockHolds || !clusters)
    return block;
  return splitOverCluster(rowLength, kernelOps).value_or(block);
}

} // namespace stride
