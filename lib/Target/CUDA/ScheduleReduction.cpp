//===- ScheduleReduction.cpp - Schedules of reduction kernels -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The reduction forms' schedules: inner and outer reductions (a group of
// threads per output, or adjacent outputs per thread), their split across
// blocks when the outputs cannot fill the GPU (column groups for outer ones),
// and row reductions (broadcast reductions), a row held in registers, shared
// memory or a cluster, or re-read. Part of the Scheduler (Scheduler.h).
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "dialects/stride/Analysis/RowSplit.h"
#include "stride/Support/DType.h"
#include "stride/Support/Layout.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

namespace stride::cuda {

namespace {

/// Bytes of a reduction's accumulator (CudaText.h: accumulatorType).
int64_t accumulatorBytes(ReduceKind kind, DType t) {
  bool single = !isArgKind(kind) &&
                (t == DType::F32 || t == DType::F16 || t == DType::BF16);
  return single ? 4 : 8;
}

} // namespace

void Scheduler::scheduleReduction() {
  const ReductionInfo &first = facts.reductions.front();
  ArrayRef<int64_t> inShape =
      cast<StridedTensorType>(first.input.getType()).getShape();
  // Over symbolic sizes the outputs' count and the reduced length are
  // expressions and the form is chosen at their largest values; no split,
  // whose scratch and slices follow them, and no 4-element groups along a
  // symbolic length (inputInFours).
  SizeExpr outputs = facts.rowCount(), length = facts.rowLength();
  int64_t m = atLargest(outputs), l = atLargest(length);
  // Inner reductions (the innermost dim of size > 1 is reduced) give each
  // output element a group of threads striding along it; outer reductions
  // give adjacent threads adjacent output elements, each looping over the
  // reduced elements (coalesced when the innermost kept dim is contiguous).
  int64_t innermost = -1;
  for (int64_t d = static_cast<int64_t>(inShape.size()) - 1; d >= 0; --d)
    if (inShape[d] != 1) {
      innermost = d;
      break;
    }
  bool inner =
      m == 1 || innermost < 0 || llvm::is_contained(first.dims, innermost);
  scheme = inner ? KernelScheme::ReductionInner : KernelScheme::ReductionOuter;
  // Threads per output (inner) or slices of the reduced range (outer).
  threads = 1;
  int64_t block = 256;
  if (inner) {
    if (l >= 4096 || (m < multiprocessors * 4 && l > 256)) {
      threads = l >= 16384 ? 1024 : 256;
      // A block per row, each thread reading its share in groups of 4
      // where the row holds whole groups: 82% -> 91% of the copy floor
      // for the sum over 512 bf16 rows of 65,536 on an H100 (bench/NOTES.md
      // section 41).
      if (readsInnermostInFours())
        vectorWidth = 4;
    } else if (l <= kMaxThreadRow && readsInnermostInFours()) {
      // Rows of a few elements: a thread per row, 4 elements per load.
      vectorWidth = 4;
    } else if (l <= kMaxThreadRow && m >= residentThreads()) {
      // Rows of a few elements, not in fours (a max pool's 3 x 3 windows),
      // enough of them to fill the GPU a thread a row: a group of lanes
      // per row would leave most lanes idle (9 of 16) and shuffle.
    } else {
      // A warp (or fewer lanes) per row. Where the row holds whole groups
      // of 4, 4 elements per load (the loop is unrolled by 4, so a lane's
      // loads are in flight together): a load per lane of 4-byte elements,
      // about 4 of narrower ones (8-byte loads and less), so that a bf16
      // row of 100 takes 8 lanes and a warp reads 4 rows at once
      // (bench/NOTES.md section 30 measured both ways).
      int64_t loads = l;
      if (readsInnermostInFours()) {
        vectorWidth = 4;
        bool narrow = dtypeSize(*dtypeOf(facts.reductions.front()
                                              .input.getType())) < 4;
        loads = ceilDiv(l / 4, narrow ? 4 : 1);
      }
      threads = std::min<int64_t>(
          32, std::max<int64_t>(1, llvm::PowerOf2Ceil(loads)));
    }
    block = std::max<int64_t>(threads, 256);
  } else {
    if (l >= 16)
      slices = m < 32 * multiprocessors ? 32 : 8;
    block = 32 * slices;
  }
  if (m == 0)
    return;
  if (outputs.isConstant() && length.isConstant() &&
      (inner ? scheduleSplitReduction(m, l, threads)
             : scheduleOuterSplit(m, l)))
    return;
  // A thread per output takes the outputs in the order its reads are laid
  // out: over a channels-last image (a max pool's), consecutive threads
  // then read neighbouring channels instead of elements a channel count
  // apart (0.70 ms for ResNet-50's max pool on an H200, bench/NOTES.md
  // section 65).
  if (inner && threads == 1)
    outputOrder = outputOrderOfReads();
  int64_t groups = inner ? block / threads : 32; // outputs per block pass
  int64_t maxBlocks =
      int64_t(multiprocessors) * std::max<int64_t>(1, 2048 / block);
  if (inner)
    launchUnits(outputs, groups, gridSize(ceilDiv(m, groups), maxBlocks),
                block);
  else
    launchUnits(outputs, groups, gridSize(ceilDiv(m, groups), maxBlocks), 32,
                slices);
}

int64_t Scheduler::splitCount(int64_t units, int64_t unitThreads,
                              int64_t block, int64_t reduced,
                              int64_t minSlice) {
  if (units * unitThreads >= residentThreads())
    return 0;
  int64_t split =
      std::min(ceilDiv(kSplitWaves * residentThreads() / block, units),
               reduced / minSlice);
  return split < 2 ? 0 : split;
}

void Scheduler::partialsScratch(int64_t count) {
  for (const ReductionInfo &r : facts.reductions)
    scratch.push_back(count * accumulatorBytes(r.kind, r.dtype));
}

/// An inner reduction to fewer outputs than fill the GPU with a block (or
/// group) each, e.g. a full sum: each output's reduced range is split over
/// `slices` blocks (about kSplitWaves waves of blocks in all), each block
/// reducing its slice with a tree (shuffles, then shared memory) into a
/// partial result in scratch, whose partials are combined in slice order
/// (leaving the scratch zeroed) by a second launch or, where the blocks
/// number at most kMaxOneLaunchSplitWaves waves of a block per
/// multiprocessor, by the last of an output's blocks to arrive (an arrival
/// counter per output, in the last scratch buffer), in one launch.
bool Scheduler::scheduleSplitReduction(int64_t outputs, int64_t reduced,
                                       int64_t threadsPerOutput) {
  // Outputs whose blocks fill half the GPU's resident threads are read in
  // one launch (kMinUnsplitResidentShare).
  if (outputs * threadsPerOutput * kMinUnsplitResidentShare >=
      residentThreads())
    return false;
  int64_t split = splitCount(outputs, threadsPerOutput, kBlock, reduced,
                             kMinSplitElements);
  if (split == 0)
    return false;
  scheme = KernelScheme::ReductionSplit;
  threads = kBlock;
  slices = split;
  // 4 consecutive elements per step when the input's innermost dim is the
  // last reduced one and holds whole groups of 4 (each slice then starts
  // at a multiple of 4 of it).
  if (readsInnermostInFours())
    vectorWidth = 4;
  partialsScratch(outputs * split);
  if (outputs * split <= kMaxOneLaunchSplitWaves * multiprocessors) {
    scratch.push_back(outputs * static_cast<int64_t>(sizeof(uint32_t)));
    launch(gridSize(outputs * split, 1 << 20), kBlock);
    return true;
  }
  launch(gridSize(outputs * split, 1 << 20), kBlock, 1, /*phase=*/1);
  launch(gridSize(outputs, maxGridStrideBlocks(multiprocessors, kBlock)),
         kBlock, 1, /*phase=*/2);
  return true;
}

/// An outer reduction whose column tiles (32 adjacent outputs, `slices`
/// threads each) cannot fill the GPU, e.g. a bias gradient (the sum over
/// dim 0 of 65536 x 1024 is 32 tiles): each tile's rows are also split over
/// blocks, about kSplitWaves waves of them, each block reducing a slice of
/// rows into a partial result per output in scratch; a second launch, a
/// thread per output, combines them.
bool Scheduler::scheduleOuterSplit(int64_t outputs, int64_t reduced) {
  if (readsColumnsInFours() && scheduleColumnGroupSplit(outputs, reduced))
    return true;
  int64_t perOutput = slices, block = 32 * perOutput;
  int64_t split = splitCount(ceilDiv(outputs, 32), block, block, reduced,
                             kMinOuterSplitRows);
  if (split == 0)
    return false;
  scheme = KernelScheme::ReductionSplit;
  threads = perOutput;
  slices = split;
  tile = 32;
  partialsScratch(outputs * split);
  launch(gridSize(ceilDiv(outputs, 32) * split, 1 << 20), 32, perOutput,
         /*phase=*/1);
  launch(gridSize(ceilDiv(outputs, kBlock),
                  maxGridStrideBlocks(multiprocessors, kBlock)),
         kBlock, 1, /*phase=*/2);
  return true;
}

/// The split above with column groups, where readsColumnsInFours: each
/// thread owns 4 adjacent columns and reads them with one 4-element load
/// per row, so a warp's load covers 512 bytes of f32 (256 of bf16) instead
/// of 128 (64). A tile is `tile` = 4 x min(C / 4, 32) adjacent columns (C:
/// the kept elements per row; the last tile may be partial); a block of
/// `threads` x tile / 4 threads (about kBlock) covers `threads` rows of the
/// tile per step, the tile / 4 lanes of a row side by side in memory: C = 8
/// gives 2 lanes per row and 128 rows per step, C = 100 25 lanes and 10
/// rows (250 threads), C = 4096 tiles of 128 columns, 8 rows. The threads
/// of one column group combine with shuffles where tile / 4 divides 32,
/// then through shared memory, in a fixed order; the second launch gives
/// each output a block or, with few slices, a thread (python-free-docs/cuda-backend.md).
bool Scheduler::scheduleColumnGroupSplit(int64_t outputs, int64_t reduced) {
  int64_t groups = std::min(outputs / 4, kMaxColumnGroups);
  int64_t rows = kBlock / groups, block = rows * groups;
  int64_t tiles = ceilDiv(outputs, 4 * groups);
  int64_t steps = tiles == 1 ? kMinColumnGroupSteps : 4 * kMinColumnGroupSteps;
  int64_t split = splitCount(tiles, block, block, reduced, rows * steps);
  if (split == 0)
    return false;
  scheme = KernelScheme::ReductionSplit;
  vectorWidth = 4;
  threads = rows;
  slices = split;
  tile = 4 * groups;
  partialsScratch(outputs * split);
  launch(gridSize(tiles * split, 1 << 20), block, 1, /*phase=*/1);
  // Phase 2 (column_combine): a block per output where outputs have many
  // slices (8 columns have 1024 each, too many for a thread's serial
  // loop), else a thread.
  columnCombine = split > kMaxSerialColumnPartials ? ColumnCombine::Block
                                                   : ColumnCombine::Thread;
  int64_t phase2Units = columnCombine == ColumnCombine::Block
                            ? outputs
                            : ceilDiv(outputs, kBlock);
  launch(gridSize(phase2Units, maxGridStrideBlocks(multiprocessors, kBlock)),
         kBlock, 1, /*phase=*/2);
  return true;
}

bool Scheduler::inputInFours() {
  ArrayRef<int64_t> inShape =
      cast<StridedTensorType>(facts.reductions.front().input.getType())
          .getShape();
  // A symbolic innermost size (kDynamic) is no multiple of 4.
  return options.vectorize && !inShape.empty() &&
         !ShapedType::isDynamic(inShape.back()) && inShape.back() % 4 == 0;
}

bool Scheduler::readsColumnsInFours() {
  const ReductionInfo &first = facts.reductions.front();
  int64_t rank =
      cast<StridedTensorType>(first.input.getType()).getShape().size();
  if (!inputInFours() || functionalOps() > kMaxVectorizedOps ||
      static_cast<int64_t>(first.dims.size()) >= rank)
    return false;
  // The reduced dims lead, so the kept elements of a row are the
  // innermost ones and a group of 4 never crosses a reduced coordinate.
  for (auto [i, d] : llvm::enumerate(first.dims))
    if (d != static_cast<int64_t>(i))
      return false;
  return true;
}

bool Scheduler::reducesInnermostInFours() {
  const ReductionInfo &first = facts.reductions.front();
  int64_t rank =
      cast<StridedTensorType>(first.input.getType()).getShape().size();
  return inputInFours() && first.dims.back() == rank - 1;
}

bool Scheduler::readsInnermostInFours() {
  return reducesInnermostInFours() && functionalOps() <= kMaxVectorizedOps;
}

void Scheduler::scheduleRowReduction() {
  // Over a symbolic row count with rows of static length the row's form is
  // the static one; the grid is sized at the largest count and cut at run
  // time. A row of symbolic length is re-read.
  SizeExpr rows = facts.rowCount(), length = facts.rowLength();
  if (!length.isConstant())
    return scheduleRowsOfSymbolicLength(rows, atLargest(length));
  int64_t m = atLargest(rows), l = *length.getConstant();
  // A warp per row up to 1024 elements (no block barriers), else a block of
  // up to 1024 threads, and more threads for a kernel of many ops; on
  // sm_90 and later a row longer than a block holds, a cluster of blocks
  // (RowSplit.h; a kernel that reads other inputs beside the row holds
  // less). The held elements are kept in registers across the
  // phases (each input element is loaded once); longer rows are re-read in
  // each phase, mostly from L1/L2.
  // A row longer than a block holds in registers whose values read by more
  // than one phase fit one block's shared memory is held there by one
  // block instead (row_shared), within RowSplit's 160 KiB and what a block
  // of the arch may take (99 KiB on sm_120).
  RowSharedLayout held = rowSharedLayout(facts, l);
  int64_t sharedPerMultiprocessor =
      archFacts(options.arch).sharedBytesPerMultiprocessor;
  bool sharedFits =
      held.bytes <= sharedPerMultiprocessor - kSharedBytesReservedPerBlock;
  RowSplit split = splitRow(l, functionalOps(),
                            hasThreadBlockClusters(options.arch),
                            kernel.getBodyBlock().getNumArguments(),
                            sharedFits ? held.elementBytes : 0);
  // Held in registers or shared memory by a warp or a block, a row whose
  // layout allows it is read in groups of 4 (RowSplit.h, groupRowInFours;
  // the fusion pass's register estimate assumes the same).
  if (reducesInnermostInFours())
    split = groupRowInFours(split, l);
  threads = split.threads;
  elementsPerThread = split.elementsPerThread;
  vectorWidth = split.vectorWidth;
  clusterBlocks = split.clusterBlocks;
  scheme = split.sharedBytes > 0 ? KernelScheme::RowShared
           : split.inRegisters   ? KernelScheme::RowRegisters
                                 : KernelScheme::RowReread;
  if (m * l == 0)
    return;
  if (scheme == KernelScheme::RowShared) {
    int64_t perMultiprocessor = std::clamp<int64_t>(
        sharedPerMultiprocessor / (held.bytes + kSharedBytesReservedPerBlock),
        1, kResidentThreadsPerMultiprocessor / threads);
    launchUnits(rows, 1, gridSize(m, multiprocessors * perMultiprocessor),
                threads, /*blockY=*/1, held.bytes);
    return;
  }
  int64_t block = threads > 32 ? threads : 256;
  // A cluster's blocks are consecutive in the grid, which holds whole
  // clusters.
  int64_t maxClusters =
      std::max<int64_t>(1, maxGridStrideBlocks(multiprocessors, block) /
                               clusterBlocks);
  // Over symbolic sizes a cluster's rows count its blocks (a row each), so
  // that the grid at run time is whole clusters.
  launchUnits(*rows.times(SizeExpr::constant(clusterBlocks)), block / threads,
              clusterBlocks *
                  gridSize(ceilDiv(m, block / threads), maxClusters),
              block);
  if (clusterBlocks > 1 && kernel.getBodyBlock().getNumArguments() == 1 &&
      functionalOps() <= kMaxBoundedClusterRowOps)
    minBlocks = kResidentThreadsPerMultiprocessor / block;
}

void Scheduler::scheduleRowsOfSymbolicLength(const SizeExpr &rows,
                                             int64_t largestLength) {
  // The row form of a static length holds its elements in register
  // arrays, groups of 4 and a clamped last group sized by that length; a
  // symbolic one takes the re-read form, a warp or a block striding over
  // the row in each phase, about 32 elements a thread at the largest
  // length (RowSplit.h's register bound).
  scheme = KernelScheme::RowReread;
  threads = std::clamp<int64_t>(
      llvm::PowerOf2Ceil(ceilDiv(largestLength, 32)), 32, 1024);
  elementsPerThread = ceilDiv(largestLength, threads);
  int64_t block = threads > 32 ? threads : kBlock;
  launchUnits(rows, block / threads,
              gridSize(ceilDiv(atLargest(rows), block / threads),
                       maxGridStrideBlocks(multiprocessors, block)),
              block);
}

namespace {

/// `type`'s dims in memory order (outermost first), dims of size 1 first
/// (in dim order: their strides say nothing); empty where that is
/// row-major.
SmallVector<int64_t> memoryOrder(StridedTensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  Dims byStride = dimOrderByStride(type.getStrides());
  SmallVector<int64_t> order(byStride.begin(), byStride.end());
  auto sized = std::stable_partition(order.begin(), order.end(),
                                     [&](int64_t d) { return shape[d] == 1; });
  std::sort(order.begin(), sized);
  if (std::is_sorted(sized, order.end()))
    return {};
  return order;
}

} // namespace

SmallVector<int64_t> Scheduler::outputOrderOfReads() {
  if (facts.isSymbolic())
    return {};
  int64_t rank = facts.iterationShape.size();
  // The largest input of the outputs' rank, whose dims are taken to be the
  // outputs' (a max pool's image), else the first result.
  StridedTensorType largest;
  for (Value input : kernel->getOperands()) {
    auto type = dyn_cast<StridedTensorType>(input.getType());
    if (type && type.getRank() == rank &&
        (!largest || type.getNumElements() > largest.getNumElements()))
      largest = type;
  }
  if (largest)
    if (SmallVector<int64_t> order = memoryOrder(largest); !order.empty())
      return order;
  if (kernel->getNumResults() == 0)
    return {};
  auto result = dyn_cast<StridedTensorType>(kernel->getResult(0).getType());
  if (!result || result.getShape() != ArrayRef<int64_t>(facts.iterationShape))
    return {};
  return memoryOrder(result);
}

} // namespace stride::cuda
