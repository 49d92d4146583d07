//===- RowSplit.cpp - How a broadcast-reduction row meets threads ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Dialect/Stride/Analysis/RowSplit.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace stride {

RowSplit splitRow(int64_t rowLength, int64_t kernelOps) {
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

} // namespace stride
