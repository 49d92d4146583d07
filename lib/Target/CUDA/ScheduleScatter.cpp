//===- ScheduleScatter.cpp - Schedules of index scatter kernels -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The index scatter form's schedule: scatter, scatter_add and index_add as
// a copy and then one thread per update, or index_add as a segmented sum
// (positions grouped by row: a stable counting sort under --deterministic,
// else buckets of short rows and pages of the long rows' later positions),
// or, marked sorted_index, as each row's run found by binary search.
// Part of the Scheduler (Scheduler.h).
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "stride/Support/DType.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace stride::cuda {

IndexAddOp Scheduler::rowWiseIndexAdd() {
  // Sibling scatters (KernelContract.h) take the scatter scheme together.
  if (facts.scatters.size() != 1)
    return {};
  IndexScatterOpInterface root = facts.scatters.front();
  auto add = dyn_cast<IndexAddOp>(root.getOperation());
  if (!add)
    return {};
  DType dtype = *dtypeOf(kernel.getResult(0).getType());
  if (dtype == DType::I1 || dtype == DType::I8)
    return {};
  ArrayRef<int64_t> shape = facts.iterationShape;
  int64_t dim = add.getDim();
  auto srcType = cast<StridedTensorType>(add.getSrc().getType());
  int64_t rows = shape[dim], updates = srcType.getShape()[dim];
  if (rows == 0 || updates == 0 ||
      rows >= std::numeric_limits<int32_t>::max() ||
      updates >= std::numeric_limits<int32_t>::max())
    return {};
  return add;
}

bool Scheduler::useSegmentedIndexAdd() {
  IndexAddOp add = rowWiseIndexAdd();
  if (!add)
    return false;
  // Rows of at least 32 elements: the index analysis (a few int accesses
  // per index element and per row) is small next to the rows it moves.
  // Deterministic float sums take this scheme whatever the rows.
  ArrayRef<int64_t> shape = facts.iterationShape;
  int64_t rowLength = product(shape) / shape[add.getDim()];
  DType dtype = *dtypeOf(kernel.getResult(0).getType());
  return rowLength >= 32 || (options.deterministic && isFloat(dtype));
}

bool Scheduler::useSortedIndexAdd() {
  IndexAddOp add = rowWiseIndexAdd();
  // An empty row has no units to give threads: the scatter scheme, which
  // launches nothing.
  return add && add.getSortedIndex() && product(facts.iterationShape) > 0;
}

int64_t Scheduler::scheduleRowUnits(IndexAddOp op) {
  ArrayRef<int64_t> shape = facts.iterationShape;
  int64_t dim = op.getDim();
  int64_t rowLength = product(shape) / shape[dim];
  // A row's elements in units: aligned groups of 4 consecutive elements of
  // the innermost dim when vectorized (8 when the dim allows it, a group in
  // each half of the row), else one element.
  bool vector = options.vectorize && shape.back() % 4 == 0 &&
                dim + 1 < static_cast<int64_t>(shape.size());
  vectorWidth = vector ? 4 : 1;
  elementsPerThread = vector ? (shape.back() % 8 == 0 ? 8 : 4) : 1;
  return rowLength / elementsPerThread;
}

/// A block per row, whatever the rows' lengths: it finds its run of
/// positions in the sorted index by binary search (two searches of about
/// log2(updates) loads each, side by side), checks its share of the index
/// (range and order), and adds its run. A row's units take a group of
/// threads (the units rounded up to a power of two, at most 1024); a block
/// holds up to kSortedRunThreads / that many groups (`slices`, at most
/// 32), which take every `slices`-th position of the run, so that a long
/// run (an embedding's last bag, hundreds of positions) is not one
/// thread's chain of dependent loads; their partial rows are added in
/// group order. No index analysis, no scratch, no atomics: one launch,
/// deterministic.
void Scheduler::scheduleSortedIndexAdd() {
  IndexAddOp op = rowWiseIndexAdd();
  scheme = KernelScheme::SortedIndexAdd;
  deterministic = true;
  int64_t units = scheduleRowUnits(op);
  int64_t rows = facts.iterationShape[op.getDim()];
  int64_t groupThreads = std::min<int64_t>(llvm::PowerOf2Ceil(units), 1024);
  slices = std::clamp<int64_t>(kSortedRunThreads / groupThreads, 1, 32);
  threads = groupThreads * slices;
  launch(gridSize(rows, 1 << 20), threads, 1, /*phase=*/0);
}

/// The columns of counts per row of the deterministic index analysis: the
/// source positions in `slices` tiles of whole blocks, each tile counted in
/// its own column so that ranks follow source order; at most 2^22 counts
/// in all.
static int64_t rankSlices(int64_t rows, int64_t updates) {
  int64_t maxSlices = std::max<int64_t>(1, (int64_t{1} << 22) / rows);
  int64_t tileLength =
      std::max(kBlock, ceilDiv(ceilDiv(updates, maxSlices), kBlock) * kBlock);
  return ceilDiv(updates, tileLength);
}

/// The positions a row's bucket holds in the default mode: 32, fewer where
/// the buckets would pass max(2^22, 4 x updates) ints in all, at least 1.
static int64_t bucketSize(int64_t rows, int64_t updates) {
  return std::clamp<int64_t>(
      std::max<int64_t>(int64_t{1} << 22, 4 * updates) / rows, 1, 32);
}

void Scheduler::scheduleSegmentedIndexAdd() {
  IndexScatterOpInterface root = facts.scatters.front();
  auto op = cast<IndexAddOp>(root.getOperation());
  ArrayRef<int64_t> shape = facts.iterationShape;
  int64_t dim = op.getDim();
  int64_t rows = shape[dim],
          updates = cast<StridedTensorType>(op.getSrc().getType())
                        .getShape()[dim];
  int64_t rowLength = product(shape) / rows;
  scheme = KernelScheme::SegmentedIndexAdd;
  DType dtype = *dtypeOf(kernel.getResult(0).getType());
  // Integer sums do not depend on the order: only floats need the ranks
  // in source order.
  deterministic = options.deterministic && isFloat(dtype);
  // A block per row (or chunk) of whole warps, as few idle threads as may
  // be: 96 units take 96 threads, not 128.
  int64_t units = scheduleRowUnits(op);
  threads = std::clamp<int64_t>(llvm::alignTo(units, 32), 32, 1024);
  int64_t accBytes = dtype == DType::F64 || dtype == DType::I64 ? 8 : 4;
  if (deterministic)
    scheduleCountingSortIndexAdd(rows, updates, rowLength, accBytes);
  else
    scheduleBucketedIndexAdd(rows, updates, rowLength, accBytes);
}

void Scheduler::scheduleCountingSortIndexAdd(int64_t rows, int64_t updates,
                                             int64_t rowLength,
                                             int64_t accBytes) {
  slices = rankSlices(rows, updates);
  // Chunks of the row-sorted positions: about 8 blocks per multiprocessor
  // whatever the rows, 16 to 256 positions each (a chunk's positions are
  // staged in shared memory).
  tile = std::clamp<int64_t>(ceilDiv(updates, multiprocessors * 8), 16, 256);
  int64_t chunks = ceilDiv(updates, tile);
  // counts (rows x slices), totals (rows), offsets (rows + 1), ranks, the
  // sorted positions and their rows (updates each), the chunks' partial
  // sums (2 rows each).
  scratch = {4 * rows * slices, 4 * rows, 4 * (rows + 1), 4 * updates,
             4 * updates, 4 * updates, accBytes * chunks * 2 * rowLength};
  int64_t cap = multiprocessors * 8;
  launch(gridSize(slices, 1 << 20), kBlock, 1, /*phase=*/1);
  launch(gridSize(ceilDiv(rows, kBlock), cap), kBlock, 1, /*phase=*/2);
  launch(1, 1024, 1, /*phase=*/3);
  launch(gridSize(ceilDiv(updates, kBlock), cap), kBlock, 1, /*phase=*/4);
  launch(gridSize(chunks, 1 << 20), threads, 1, /*phase=*/5);
  launch(gridSize(rows, 1 << 20), threads, 1, /*phase=*/6);
}

void Scheduler::scheduleBucketedIndexAdd(int64_t rows, int64_t updates,
                                         int64_t rowLength, int64_t accBytes) {
  bucket = bucketSize(rows, updates);
  // At most this many rows have more positions than their bucket holds.
  int64_t longRows = updates / (bucket + 1);
  // Pages of a long row's positions past its bucket: about 8 blocks per
  // multiprocessor when every position is long, 16 to 256 positions each;
  // each page adds its sum to the row's partial sums, so a hot row costs
  // an atomic per page and element (a vector atomic per 4 floats on
  // sm_90).
  tile = std::clamp<int64_t>(ceilDiv(updates, multiprocessors * 8), 16, 256);
  int64_t cap = multiprocessors * 8;
  // counts (rows), buckets (rows x bucket); with long rows: the pages'
  // hash table (a key and an index per entry), the pages (two cursors,
  // each row's slot, each page's row, number and entry, its positions),
  // each slot's partial sums, and the progress counters (the page blocks
  // done, then each slot's positions added). The first four are the index
  // analysis (KernelScheduleAttr::getIndexAnalysisBuffers).
  scratch = {4 * rows, 4 * rows * bucket};
  launch(gridSize(ceilDiv(updates, kBlock), cap), kBlock, 1, /*phase=*/1);
  if (longRows == 0) {
    launch(gridSize(rows, 1 << 20), threads, 1, /*phase=*/2);
    return;
  }
  // A long row's positions past its bucket fill whole pages but its last;
  // the hash table finds a (row, page number)'s page in about one probe.
  pages = ceilDiv(updates, tile) + longRows;
  hashEntries = static_cast<int64_t>(llvm::PowerOf2Ceil(2 * pages));
  // The blocks that walk the pages, ahead of the rows' blocks.
  slices = std::min(pages, cap);
  scratch.append({12 * hashEntries, 4 * (2 + rows + pages * (3 + tile)),
                  accBytes * longRows * rowLength, 4 * (1 + longRows)});
  launch(gridSize(slices + rows, 1 << 20), threads, 1, /*phase=*/2);
}

void Scheduler::scheduleScatter() {
  if (useSortedIndexAdd())
    return scheduleSortedIndexAdd();
  if (useSegmentedIndexAdd())
    return scheduleSegmentedIndexAdd();
  scheme = KernelScheme::Scatter;
  // scatter/scatter_add iterate over the index tensor, index_add over the
  // source; sibling scatters over their one index.
  IndexScatterOpInterface op = facts.scatters.front();
  Value updates = isa<IndexAddOp>(op) ? op.getSrc() : op.getIndex();
  int64_t outN = product(facts.iterationShape),
          updateN = product(
              cast<StridedTensorType>(updates.getType()).getShape());
  if (outN > 0)
    launch(gridSize(ceilDiv(outN, kBlock), multiprocessors * 8), kBlock, 1,
           /*phase=*/0);
  if (updateN > 0 && outN > 0)
    launch(gridSize(ceilDiv(updateN, kBlock), multiprocessors * 8), kBlock, 1,
           /*phase=*/1);
}

} // namespace stride::cuda
