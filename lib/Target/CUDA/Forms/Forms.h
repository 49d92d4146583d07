//===- Forms.h - One printer per kernel form and scheme ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The kernel printers, one file each (python-free-docs/cuda-backend.md, "Kernel
// shapes"):
//
//   Pointwise.cpp          form (a): grid_stride, vectorized
//   TiledTranspose.cpp     form (a): tiled_transpose
//   Reduction.cpp          form (b): reduction_inner, reduction_outer
//   SplitReduction.cpp     form (b): reduction_split
//   RowReduction.cpp       form (d): row_registers, row_shared, row_reread
//   Scatter.cpp            form (c): scatter (two phases, atomics)
//   SegmentedIndexAdd.cpp  form (c): segmented_index_add
//   Scan.cpp               form (e): row_scan
//   Attention.cpp          form (f): split_kv_attention
//   StagedAttention.cpp    form (f): staged_kv_attention,
//                          staged_kv_mma_attention
//   SkinnyMatmul.cpp       form (g): skinny_matmul
//
// Emitter.cpp makes the printer of each kernel's scheme. Private to
// lib/Target/CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_TARGET_CUDA_FORMS_FORMS_H
#define STRIDE_LIB_TARGET_CUDA_FORMS_FORMS_H

#include "../KernelPrinter.h"

namespace stride {

/// Form (a): grid_stride and vectorized (Pointwise.cpp).
class PointwisePrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  mlir::LogicalResult printBody(Code &body) override;
  /// The vectorized loop over the `n` elements.
  mlir::LogicalResult printVectorized(Code &body, int64_t n);
  /// The vectorized loop over `n` elements of symbolic sizes.
  mlir::LogicalResult printSymbolicVectorized(Code &body, const SizeExpr &n);
  /// Opens the grid-stride loop over `quads` groups of 4 elements; the
  /// name of the group's first linear index.
  std::string openQuadLoop(Code &body, const std::string &quads);
  /// The 4 lanes at `coords` (the first element's), evaluated and stored;
  /// closes the loop.
  mlir::LogicalResult printLanes(Code &body, const Coords &coords);
  /// The grid-stride loop over symbolic sizes, its bound and divisors the
  /// kernel's size parameters (python-free-docs/symbolic-sizes.md).
  mlir::LogicalResult printSymbolic(Code &body);
};

/// Form (a): tiled_transpose (TiledTranspose.cpp).
class TiledTransposePrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  mlir::LogicalResult printBody(Code &body) override {
    if (printIterationSpace(body) == 0)
      return mlir::success();
    return printTiles(body);
  }
  /// An input staged through shared memory: read at the kernel's own
  /// coordinates through `type`, whose stride is not 1 along the innermost
  /// dim but 1 along the schedule's transpose dim.
  struct StagedLoad {
    unsigned arg;
    StridedTensorType type;
    /// Staged with 4-element loads along the transpose dim.
    bool vector;
    /// Every row segment the tile reads starts at a multiple of 4 elements
    /// (the offset, the size along the transpose dim and every other stride
    /// are multiples of 4: tileRowsAligned); otherwise each row's 4-element
    /// loads start at its first multiple of 4 and its end elements are
    /// loaded one per thread in a pass of their own (printSplitTile).
    bool aligned;
    std::string tile;
  };
  /// One pass over a tile: the element's coordinates and its offsets in the
  /// tile along the fast and the slow dim.
  struct Pass {
    Coords coords;
    std::string fastOff, slowOff;
  };

  /// The tiles, with the inputs the schedule stages through shared memory.
  mlir::LogicalResult printTiles(Code &body);
  /// Opens one pass of `threads along the fast dim` x `rows` over the tile
  /// at (`fast0`, `slow0`), `vector` elements per thread, and the guard of
  /// the element. The caller closes both.
  Pass openPass(Code &body, int64_t vector, int64_t fastDim, int64_t slowDim,
                const std::string &fast0, const std::string &slow0);
  /// Phase A: the staged inputs into their tiles, dim t fastest.
  mlir::LogicalResult printStaging(Code &body, const std::string &t0,
                                   const std::string &l0);
  /// Phase A for one staged input with 4-element loads whose rows are not
  /// all aligned: each row segment of the tile splits at its own multiples
  /// of 4 elements (printSplitTile).
  void printSplitStaging(Code &body, const StagedLoad &s,
                         const std::string &t0, const std::string &l0);
  /// Phase B: every yielded value computed and stored, dim l fastest.
  mlir::LogicalResult printCompute(Code &body, const std::string &l0,
                                   const std::string &t0);
  /// The staging of a tile in groups of 4 along t where the rows of layout
  /// `ref` (unit stride along t) do not all start at a multiple of 4. In a
  /// tile whole along t: each row's groups that lie in the tile, from the
  /// row's first multiple of 4, one per thread (`quad`); then the 4
  /// elements at the row's ends (the `lead` before its first group, the 4 -
  /// lead after its last; none where lead is 0), one per thread
  /// (`single`). In a tile the tensor's end cuts along t: every element,
  /// one per thread (`single`). Threads' paths differ only by guards within
  /// a tile (bench/NOTES.md section 38).
  using PassFn = llvm::function_ref<void(const Pass &)>;
  void printSplitTile(Code &body, const std::string &t0, const std::string &l0,
                      StridedTensorType ref, PassFn quad, PassFn single);
  /// Within printSplitTile: row `rowOff` of the tile (along l) under its
  /// guard, which the caller closes; its coordinates at t0, and `lead` of
  /// its elements come before its first multiple of 4 in `ref`.
  struct SplitRow {
    Coords coords;
    std::string lead;
  };
  SplitRow openSplitRow(Code &body, const std::string &t0,
                        const std::string &l0, const std::string &rowOff,
                        StridedTensorType ref);

  llvm::SmallVector<StagedLoad> staged;
  /// The tile's size, the transpose dim and the innermost dim.
  int64_t tileSize = 0, t = 0, l = 0;
  /// The coordinates of the tile's other dims.
  Coords outer;
};

/// Form (b): reduction_inner and reduction_outer (Reduction.cpp),
/// reduction_split (SplitReduction.cpp).
class ReductionPrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  /// How the schedule spreads the reduced elements of one output.
  struct Threads {
    /// reduction_inner: a group of `perOutput` threads strides along each
    /// output's reduced elements (a whole block when `blockReduce`);
    /// reduction_outer: adjacent threads take adjacent outputs, and
    /// `slices` threads split each output's reduced range.
    bool inner = true, blockReduce = false;
    int64_t perOutput = 1, slices = 1, block = 0;
  };
  /// The loop over output elements: the output's linear index and the
  /// thread's lane within its output.
  struct OutputLoop {
    std::string output, lane;
  };

  mlir::LogicalResult printBody(Code &body) override;
  Threads threadsOf();
  /// Declares each accumulator at its reduction's identity.
  void initAccumulators(Code &body);
  /// The output coordinates of output `linear`, numbered in the
  /// schedule's `output_order` (row-major without one).
  Coords delinearizeOutput(Code &body, const std::string &linear);
  /// Where `condition` holds (always when empty): each reduction's value from its accumulator,
  /// the epilogue and the stores at the output element `outCoords`.
  mlir::LogicalResult printResults(Code &body, const std::string &condition,
                                   llvm::ArrayRef<std::string> outCoords,
                                   const SizeExpr &reducedElements);
  /// The input coordinates of the output element `outCoords` and the
  /// reduced coordinates `reduced`.
  Coords inputCoords(llvm::ArrayRef<std::string> outCoords,
                     llvm::ArrayRef<std::string> reduced);
  /// The accumulators' names and the shared memory that combines them.
  void declareAccumulators(Code &body, const Threads &t);
  /// Schemes reduction_inner and reduction_outer over the `m` outputs
  /// (the size parameters' expression over symbolic sizes), each reducing
  /// `reducedShape`.
  mlir::LogicalResult printOutputs(Code &body, const SizeExpr &m,
                                   llvm::ArrayRef<SizeExpr> reducedShape);
  /// Opens the loop over the `outputs` output elements.
  OutputLoop openOutputLoop(Code &body, const Threads &t,
                            const SizeExpr &outputs);
  /// This thread's share of the reduced elements into the accumulators.
  mlir::LogicalResult printAccumulation(Code &body, const Threads &t,
                                        const std::string &lane,
                                        llvm::ArrayRef<std::string> outCoords,
                                        llvm::ArrayRef<SizeExpr> reducedShape);
  /// Combines the threads of one output; returns the condition of the
  /// thread that holds the result ("" when every thread of it does).
  std::string printCombine(Code &body, const Threads &t,
                           const std::string &lane);

  // Scheme reduction_split (SplitReduction.cpp).
  /// Both phases over the `m` outputs, each reducing `reducedShape`.
  mlir::LogicalResult printSplit(Code &body, int64_t m,
                                 llvm::ArrayRef<int64_t> reducedShape);
  /// Phase 1: each block reduces one slice of `chunk` elements of one
  /// output (or of each output of a column tile) into partial results.
  /// With `lastArrives` (an inner split of one launch), the last block of
  /// each output to arrive then combines its partials
  /// (printOutputCombine).
  mlir::LogicalResult printSlices(Code &body, const Threads &t, int64_t m,
                                  llvm::ArrayRef<int64_t> reducedShape,
                                  int64_t chunk, bool lastArrives);
  /// The block of output `o` combines its `slices` partial results (at
  /// [o][slice]; `throughL2`: read past the L1, where other blocks of the
  /// launch wrote them), then its value, the epilogue and the stores.
  mlir::LogicalResult printOutputCombine(Code &body, const Threads &t,
                                         const std::string &o,
                                         int64_t reducedElements,
                                         bool throughL2);
  /// `#pragma unroll 4` before a vectorized accumulation loop.
  void unrollVectorizedLoop(Code &body);
  /// The accumulation of the reduced element at `reduced` (and, with
  /// vector width 4, the 3 after it along the innermost dim): into each
  /// reduction's accumulator, or with `perLane` into element k of its
  /// accumulator array for lane k (column groups).
  mlir::LogicalResult accumulateElements(Code &body,
                                         llvm::ArrayRef<std::string> outCoords,
                                         const Coords &reduced,
                                         bool perLane = false);
  /// Phase 1 with column groups (an outer reduction_split of vector width
  /// 4): each thread reduces 4 adjacent columns of every `threads`-th row
  /// of its tile's slice into accumulator arrays of 4.
  mlir::LogicalResult printColumnGroupSlices(Code &body, int64_t m,
                                             llvm::ArrayRef<int64_t> reducedShape,
                                             int64_t chunk);
  /// Combines partial result `index` into each accumulator and resets it
  /// (`throughL2`: its load bypasses the L1).
  void combinePartial(Code &body, const std::string &index,
                      bool throughL2 = false);
  /// Phase 2 of an inner reduction_split (and of column groups where the
  /// schedule's column_combine is `block`): a block per output combines its
  /// partial results, then its value, the epilogue and the stores.
  mlir::LogicalResult printPartialsCombine(Code &body, const Threads &t,
                                           int64_t m, int64_t reducedElements);
  /// Phase 2 of an outer reduction_split (column tiles, and column groups
  /// where column_combine is `thread`): the same, a thread per output.
  mlir::LogicalResult printColumnPartialsCombine(Code &body, int64_t m,
                                                 int64_t reducedElements);
};

/// Form (d): row_registers, row_shared and row_reread (RowReduction.cpp).
class RowReductionPrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  /// The unrolled loop over the row elements a thread holds in registers
  /// (scheme row_registers): `count` groups of `width` consecutive elements
  /// (1, or 4 with vector width 4), loop variable `index`; `header`
  /// declares each element's coordinates `lanes` (the same names in every
  /// phase) and the group's validity `valid` (empty when every group is in
  /// the row).
  struct RowLoop {
    std::string index;
    int64_t count = 0;
    int64_t width = 1;
    std::string header;
    llvm::SmallVector<Coords, 4> lanes;
    std::string valid;
    /// The group's first element's position in the row.
    std::string position;
    /// Elements a thread holds: the register arrays' length.
    int64_t elements() const { return count * width; }
    /// The register arrays' subscript of element `lane` of the group.
    std::string element(int64_t lane) const;
  };
  /// What a phase does with one element of the row: `fn(code, coords,
  /// valid)`, `valid` empty when the element is in the row.
  using ElementFn = llvm::function_ref<mlir::LogicalResult(
      Code &, llvm::ArrayRef<std::string>, llvm::StringRef)>;
  /// What the epilogue does with a group of the row's consecutive elements
  /// (`lanes` coordinates; one element outside the register loop).
  using GroupFn = llvm::function_ref<mlir::LogicalResult(
      Code &, llvm::ArrayRef<Coords>, llvm::StringRef)>;

  mlir::LogicalResult printBody(Code &body) override;
  /// The preloads (printPreloads), before the wait.
  void printBeforeWait(Code &head) override;
  /// row_registers: loads the row elements this thread holds of what the
  /// schedule marks (the inputs of kReadOnlyInputsAttrName and the body's
  /// constants of kPreloadAttrName: constants of the module read alike in
  /// every row, a norm's weight) into register arrays, in a loop of the
  /// row loop's header printed before the wait, so that the epilogue finds
  /// them there instead of loading them after the reductions.
  mlir::LogicalResult printPreloads();
  /// Opens the loop over the `rows` rows (a warp or a block each; a
  /// symbolic count is the size parameters' expression) and declares the
  /// row's kept coordinates.
  void openRowLoop(Code &body, const SizeExpr &rows);
  /// The input coordinates of reduced element `r` of the row.
  Coords elementCoords(Code &code, const std::string &r);
  /// The loop over the elements a thread holds in registers.
  RowLoop registerLoop(Code &body);
  /// One phase: `fn` on each element of the row this thread holds (in the
  /// register loop, or re-read in a loop over the row).
  mlir::LogicalResult forEachElement(Code &body, ElementFn fn);
  /// One phase over groups of consecutive elements: `fn` on each group of
  /// the register loop, or on each element re-read.
  mlir::LogicalResult forEachGroup(Code &body, GroupFn fn);
  /// Prints one phase inside `loop`, every value it declares an element of
  /// a register array declared before the loop (row_registers), or a
  /// variable of the loop's body, stored into shared memory where a later
  /// phase reads it back (row_shared).
  mlir::LogicalResult walkRowRegisters(Code &body, const RowLoop &loop,
                                       GroupFn fn);
  /// In the register loop, evaluates element `lane` of the group next (its
  /// register-array subscript and vector lane); -1: none.
  void selectLane(int64_t lane);
  /// Reduction `index` of the row: accumulated, combined across the row's
  /// threads (through shared arrays shared<index> for a block and
  /// cluster<index> for a cluster), its value held.
  mlir::LogicalResult printReduction(Code &body, const ReductionInfo &info,
                                     const std::string &index);
  /// The per-row ops (facts.rowOps) not yet printed whose row values are
  /// all computed, each once for the row, in block order.
  mlir::LogicalResult printReadyRowOps(Code &body);
  /// Stores the values yielded once per row (KernelFacts::rowResults:
  /// LayerNorm's saved mean and rstd) from the row's first thread, once
  /// the reductions and per-row ops are computed.
  void storeRowResults(Code &body);
  /// The coordinates of the row in the reductions' result shape (reduced
  /// dims dropped, or 0 with keepdim).
  Coords rowResultCoords() const;
  /// The broadcast epilogue over the row's elements, and the stores.
  mlir::LogicalResult printEpilogue(Code &body);
  /// Inside a row loop, a value is an element of the array `name`.
  std::string declareValue(Code &code, llvm::StringRef type,
                           const std::string &name,
                           const std::string &expr) override;
  std::string declareMutable(Code &code, llvm::StringRef type,
                             const std::string &name) override;
  /// row_shared: a value an earlier phase stored, read back at the row
  /// element's own coordinates in a phase up to its last reader.
  std::optional<std::string> evalHeld(mlir::Value value,
                                      llvm::ArrayRef<std::string> coords,
                                      Code &code) override;
  /// row_shared: at the end of the phase's loop body, the values it is the
  /// first to evaluate that a later phase reads, stored into their buffers.
  mlir::LogicalResult storeHeld(Code &code);
  /// row_shared: declares each held value's buffer in the block's dynamic
  /// shared memory (rowSharedLayout).
  void declareSharedRows(Code &body);
  /// Combines the blocks' `info.acc` across a thread-block cluster through
  /// each block's one-element shared array `slot`, so that every thread of
  /// the cluster holds the row's result.
  void combineAcrossCluster(Code &body, const ReductionInfo &info,
                            const std::string &slot);
  /// A row's threads: a block's (or warp's) times the cluster's blocks.
  int64_t rowThreads() const;

  /// What the kernel does before its wait: the preloads.
  Code preWait;
  /// The iteration space split into the kept dims (one row per kept
  /// element) and the reduced ones, expressions over symbolic sizes, and
  /// the row's length: `rowSize`, and its value where it is static (-1
  /// where it is symbolic: only scheme row_reread takes that).
  SizeExprs keptShape, reducedShape;
  SizeExpr rowSize;
  int64_t rowLength = 0;
  /// The thread's lane in its row, and the row's kept coordinates.
  std::string lane;
  Coords kept;
  /// Several rows per warp, rows not a multiple of the warp's: whether
  /// this lane's row exists (a bool); empty where every row does.
  std::string rowValid;
  /// Scheme row_registers: the loop over the elements a thread holds.
  std::optional<RowLoop> rowLoop;
  /// The row loop being printed (null outside), and the arrays its values
  /// were declared in.
  const RowLoop *rowArrays = nullptr;
  llvm::SmallVector<std::pair<std::string, std::string>> newArrays;
  /// In the register loop: the subscript of the element being evaluated.
  std::string rowElement;
  /// row_shared: the held values, each one's buffer (a pointer of its
  /// storage type), and the phase being printed (as rowSharedLayout counts).
  RowSharedLayout sharedLayout;
  llvm::DenseMap<mlir::Value, std::string> heldBuffers;
  unsigned phase = 0;
  bool isSharedRow() const {
    return schedule.getScheme() == KernelScheme::RowShared;
  }
};

/// Form (c): scatter (Scatter.cpp).
class ScatterPrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  mlir::LogicalResult printBody(Code &body) override;
  /// Phase 0: each scatter's input copied to its output, `n` elements.
  mlir::LogicalResult printCopies(Code &body, int64_t n);
  /// Phase 1: each update written or added at its index, into each output.
  mlir::LogicalResult printUpdates(Code &body,
                                   llvm::ArrayRef<int64_t> updateShape);
};

/// Form (c): segmented_index_add (SegmentedIndexAdd.cpp).
class SegmentedIndexAddPrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  mlir::LogicalResult printBody(Code &body) override;
  /// The deterministic scheme: a stable counting sort of every position.
  mlir::LogicalResult printSorted(Code &body);
  /// The default scheme: buckets for the short rows, pages for the long
  /// rows' later positions.
  mlir::LogicalResult printBucketed(Code &body);
  /// The sorted_index scheme: a block per row, its run of positions found
  /// by binary search (printRunSearch: `begin`, `end`), its share of the
  /// index checked (printIndexShareCheck).
  mlir::LogicalResult printSortedRuns(Code &body);
  mlir::LogicalResult printRunSearch(Code &body);
  mlir::LogicalResult printIndexShareCheck(Code &body);
  /// `if (phase == first) { ... } else if (phase == first + 1) { ... } ...
  /// else { ... }`: each of `phases` prints its body.
  mlir::LogicalResult printPhases(
      Code &body,
      llvm::ArrayRef<llvm::function_ref<mlir::LogicalResult(Code &)>> phases,
      int64_t first = 1);
  /// Whether the default scheme ranks the index itself (phase 1), and
  /// whether it zeroes the counts once read (the schedule's
  /// `index_analysis`).
  bool ranksIndex();
  bool clearsCounts();
  /// Phase 1 (both schemes): each source position's rank among its row's
  /// positions, passed (as `rank`) with the row and position names to
  /// `keepRank`, which prints what to do with it.
  mlir::LogicalResult printRanks(
      Code &body,
      llvm::function_ref<void(const std::string &, const std::string &)>
          keepRank);
  /// Default phase 1, a position past its row's bucket (`rank`, `row` and
  /// `k` in scope): its page, entered in the hash table or found there,
  /// and its place in the page.
  void printPagePlacement(Code &body, const std::string &row,
                          const std::string &k);
  /// Default phase 2: the blocks that walk the pages, then the rows, a
  /// block per item.
  mlir::LogicalResult printItems(Code &body);
  /// A row (`row`) of default phase 2: stored from its bucket, or, when
  /// long, its bucket added to its slot.
  mlir::LogicalResult printRowItem(Code &body);
  /// The pages of a page block (`item`) of default phase 2: each added to
  /// its row's slot.
  mlir::LogicalResult printPageItems(Code &body);
  /// Where a contribution's sum goes: stored as the row, added to the
  /// row's slot, or added to the slot where the row `isLong`.
  enum class Sink { Output, Slot, SlotIfLong };
  /// The unit loop over row `row`: the input (except into a slot alone)
  /// plus the sources at the first `count` of `positions`, then `sink`
  /// (the row's slot is `slot`).
  mlir::LogicalResult printContribution(Code &body, const std::string &count,
                                        Sink sink);
  /// After a contribution to slot `slot`: counts `added` positions in the
  /// slot's progress; the block that completes it stores the row.
  void printArrival(Code &body, const std::string &added);
  /// The block that completed slot `slot` of row `row` stores the row and
  /// zeroes the slot.
  void printCompletedSlot(Code &body);
  /// Phase 2: each row's columns of counts into prefixes, and its total.
  void printRowTotals(Code &body);
  /// Phase 4: each source position placed in row order.
  mlir::LogicalResult printPlacement(Code &body);
  /// Phase 5: a block per chunk of sorted positions sums each row's run.
  mlir::LogicalResult printChunks(Code &body);
  /// Phase 6: the rows without positions and those over several chunks.
  mlir::LogicalResult printRowResults(Code &body);

  /// Declares the row (-1: none or out of range) of source position `k`,
  /// read where `guard` holds, and returns its name.
  mlir::FailureOr<std::string> printRowOf(Code &body, const std::string &k,
                                          const std::string &guard);
  /// The column of counts that source position `k` is counted in.
  std::string column(const std::string &k);
  /// Opens the loop of a block's threads over the units of a row and sets
  /// `groupLanes` (the coordinate along dim left to fill in): the thread's
  /// units from `first` by `step` (by default the block's threads all).
  void openUnitLoop(Code &body, const std::string &first = "threadIdx.x",
                    const std::string &step = "blockDim.x");
  /// Opens the grid-strided loop over chunks of `chunk` of `total`
  /// positions (`begin`, `end`) and, after the barrier that ends the last
  /// chunk, the loop in which the block's threads stage position
  /// `begin + j` of the chunk in shared memory; the caller prints the
  /// staging and closes that loop.
  void openChunkStaging(Code &body);
  /// Evaluates `value` at each lane of the unit with `atRow` along dim.
  mlir::LogicalResult
  forEachLane(Code &body, mlir::Value value, const std::string &atRow,
              llvm::function_ref<void(int, int, const std::string &)> use);
  void forEachAccumulator(
      llvm::function_ref<void(int, int, const std::string &)> use);
  /// Declares the unit's accumulators, at zero.
  void declareAccumulators(Code &body);
  /// Adds the input at `row` to the accumulators.
  mlir::LogicalResult addInput(Code &body, const std::string &row);
  /// Adds the source at source position `position` to the accumulators.
  mlir::LogicalResult addSource(Code &body, const std::string &position);
  /// Stores the accumulators at `row`.
  void storeRow(Code &body, const std::string &row);
  /// Adds the unit's lanes of the partial sum at offset `at` to the
  /// accumulators and zeroes them.
  void addPartials(Code &body);
  /// Adds the accumulators to the partial sum at offset `at`, atomically.
  void addToPartials(Code &body);
  /// Sets the accumulators to the partial sum at offset `at`, which other
  /// blocks' atomics wrote, and zeroes it.
  void takePartials(Code &body);
  /// Lane (`g`, `w`) of the unit in the partial sum at offset `at`.
  std::string partial(const std::string &at, int g, int w);

  IndexAddOp op;
  int64_t dim = 0, rows = 0, updates = 0, rowLength = 0, perUnit = 1,
          slices = 1, chunk = 1, tileLength = 1, bucket = 0,
          pages = 0, pageHashMask = 0, pageBlocks = 0;
  llvm::SmallVector<int64_t> rowShape;
  bool vector = false;
  int width = 1, groups = 1;
  const char *ct = "float";
  /// The unit being printed: each group's first element's linear index in
  /// the row, each group's lanes, and the accumulators.
  llvm::SmallVector<std::string, 2> groupLinear;
  llvm::SmallVector<llvm::SmallVector<Coords, 4>, 2> groupLanes;
  llvm::SmallVector<llvm::SmallVector<std::string, 4>, 2> acc;
};

/// Form (e): row_scan (Scan.cpp).
class ScanPrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  mlir::LogicalResult printBody(Code &body) override;
  /// Opens the loop over the `rows` rows (a warp or a block each), declares
  /// the thread's lane in its row and the row's coordinates in `rowShape`
  /// (the iteration space with the scanned dim 1; that dim left to the
  /// caller). Sizes are size expressions over symbolic sizes.
  Coords openRowLoop(Code &body, const SizeExpr &rows,
                     llvm::ArrayRef<SizeExpr> rowShape);
  /// One chunk of the row: the input at element `r` (or the identity past
  /// the row's end, `length`) as `x`, scanned across the row's threads.
  mlir::LogicalResult printChunk(Code &body, Coords coords,
                                 const SizeExpr &length);
  /// printChunk in its parts: the input at `r` into a fresh `x`; `x`
  /// (scanned) plus the carry stored, and the carry advanced.
  mlir::LogicalResult printChunkLoad(Code &body, const Coords &coords,
                                     const SizeExpr &length);
  mlir::LogicalResult printChunkStore(Code &body, const Coords &coords,
                                      const SizeExpr &length);
  /// A row of `elements_per_thread` chunks, all loaded before the first is
  /// scanned.
  mlir::LogicalResult printHeldChunks(Code &body, Coords coords,
                                      const SizeExpr &length);
  /// The inclusive scan of `x` across the warp; then, for a block, across
  /// its warps: `x` holds the chunk's sum up to this thread, and `total`
  /// the chunk's sum.
  void printChunkScan(Code &body);

  ReductionInfo sum;
  std::string lane, x, total, carry;
};

/// Form (f)'s score of a key a row does not attend (stride_maximum and the
/// combines treat it as "no key yet"), and a whole warp's shuffle mask.
inline constexpr const char *kAttentionMinusInf = "(-STRIDE_INF_F)";
inline constexpr const char *kAttentionFullWarp = "0xffffffffu";

/// Form (f): split_kv_attention (Attention.cpp), staged_kv_attention and
/// staged_kv_mma_attention (StagedAttention.cpp).
class AttentionPrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  mlir::LogicalResult printBody(Code &body) override;
  /// Declares the unit's batch `b`, key/value head `g` and query row `qi`.
  void declareUnit(Code &body, const std::string &unit);
  /// The query head of row `r` of the unit, as an expression.
  std::string queryHead() const;
  /// The first of the lane's `valueWidth` value dims of its vector `t` of a
  /// value's row, as an expression.
  std::string valueDimOf(const std::string &t) const;
  /// Opens the loops over `vectors` vectors (`t`) of a key's or value's row
  /// and their `elements` elements (`e`); the caller closes both.
  void openLaneElements(Code &body, int64_t vectors, int64_t elements);
  /// The C++ type of one load of `elements` elements of a key's or value's
  /// row.
  std::string vectorType(int64_t elements) const;
  /// Phase 1 (or the only launch): the block's slice of the keys.
  mlir::LogicalResult printSlice(Code &body);
  /// The rows' queries into the block's shared memory.
  mlir::LogicalResult printQueries(Code &body);
  /// keyBegin and keyEnd: the slice's keys, ending at the batch's
  /// kv_length where it is less; with a cluster and a kv_length, the
  /// cluster's blocks split the valid keys at run time.
  mlir::LogicalResult printKeyRange(Code &body);
  /// The masks of the lane's key of the warp step starting at `stepBegin`
  /// (printMasks), into the arrays named with `suffix`.
  mlir::LogicalResult printStepMasks(Code &body, const std::string &stepBegin,
                                     const std::string &suffix);
  /// Which rows attend the lane's key `j`, into attends`suffix`,
  /// anyRow`suffix` and bias`suffix`.
  mlir::LogicalResult printMasks(Code &body, const std::string &suffix);
  /// The lane's key's row, into `key`.
  void printKeyLoads(Code &body);
  /// Each row's score of the lane's key.
  void printScores(Code &body);
  /// Each row's online softmax step over the warp's keys of the step.
  void printSoftmaxSteps(Code &body);
  /// The step's values at the lane's dims, added with the keys' weights.
  void printWeightedValues(Code &body);
  /// The loop combining `count` softmax states (m, l, acc) at `stateAt`
  /// into M, L and A for row `r` and value dim `e`.
  void printCombineLoop(Code &body, const std::string &count,
                        const std::string &stateAt);
  /// The block's warps' states: the result, or the slice's partial.
  mlir::LogicalResult printCombineWarps(Code &body);
  /// `x` combined over the block by `combine` (a function of two floats),
  /// through `warpValues` (a shared array of a float per warp).
  void printBlockReduction(Code &body, const std::string &x,
                           const std::string &combine,
                           const std::string &warpValues);
  /// With the unit's slices one cluster: their states combined through
  /// distributed shared memory, each block its share of the outputs.
  mlir::LogicalResult printCombineCluster(Code &body);
  /// Phase 2: each unit's slices' partials into the result, a block per
  /// row of a unit.
  mlir::LogicalResult printCombineSlices(Code &body);
  /// Stores A / L (0 where L is 0) at (b, the row's head, qi, e).
  mlir::LogicalResult storeResult(Code &body);
  /// `x` of every lane of the warp combined by `combine` (a function of two
  /// floats), held by every lane after.
  void printWarpReduction(Code &body, const std::string &x,
                          const std::string &combine);

  // Scheme staged_kv_attention (StagedAttention.cpp).
  /// The kernel: the block's share of the unit's valid keys in chunks,
  /// then its state, the result or combined by the unit's last block.
  mlir::LogicalResult printStaged(Code &body);
  /// validKeys, per, busy, keyBegin, keyEnd, chunks and chunkKeys: the
  /// block's share of the valid keys and its chunks; blocks past the
  /// valid keys return.
  mlir::LogicalResult printStagedKeyRange(Code &body);
  /// copyChunk(c): chunk c's key and value rows into the dynamic shared
  /// memory's buffer c % buffers; the first chunks' copies started.
  void printChunkCopies(Code &body);
  /// In copyChunk: the chunk's rows of `rowsOf` (the key or the value, of
  /// head dim `length`) into `tiles`, `pitch` elements a row.
  void printRowCopies(Code &body, mlir::Value rowsOf, int64_t length,
                      int64_t pitch, const std::string &tiles);
  /// Waits for chunk c's copies; n, keyTile and valueTile of chunk c.
  void printChunkWait(Code &body);
  /// The chunk's scores into scoreOf, a key a thread.
  void printChunkScores(Code &body);
  /// Each row's online softmax step over the chunk, a warp a row.
  void printChunkSoftmax(Code &body);
  /// `float top`: the maximum of `initial` and of `value` over the lane's
  /// iterations of `loop` (a for header), then over the warp; and `float
  /// sum = 0`.
  void printWarpMaximum(Code &body, const std::string &initial,
                        const std::string &loop, const std::string &value);
  /// Opens the loop over the thread's groups of 4 value dims (`p`: row
  /// `r`, first dim `d0`); the caller closes it.
  void openValueGroups(Code &body);
  /// The chunk's weighted values into acc: each of keyParts threads of a
  /// group of 4 value dims takes every keyParts-th key.
  void printChunkValues(Code &body);
  // Scheme staged_kv_mma_attention: the chunks on the tensor cores.
  /// `qa`: the rows' queries (from queryOf) as A fragments, a k step of 16
  /// dims each, the rows past the unit's zero; `tc`, the warp's sums.
  void printQueryFragments(Code &body);
  /// The chunk's scores into scoreOf: each warp 16 keys, two tiles of 8,
  /// their rows as B by ldmatrix, against `qa`.
  void printChunkScoresMma(Code &body);
  /// The chunk's weights (scoreOf, rounded to the element type) as A times
  /// its value rows as B (ldmatrix, transposed) into the rescaled sums
  /// `tc`: each warp valueTiles tiles of 8 value dims.
  void printChunkValuesMma(Code &body);
  /// After the chunks: the sums `tc` into acc, in the value groups' layout
  /// (openValueGroups), through shared memory.
  void printMmaSums(Code &body);
  /// After the chunks: the other key parts' sums added into the first
  /// part's threads' acc, in part order (nothing with one part).
  void printKeyPartsSum(Code &body);
  /// The result of a unit of one busy block, else the block's state and
  /// its arrival; the last to arrive goes on to printStagedCombine.
  mlir::LogicalResult printStagedResult(Code &body);
  /// The unit's busy blocks' states combined into the result.
  mlir::LogicalResult printStagedCombine(Code &body);

  AttentionOp op;
  int64_t batch = 0, kvHeads = 0, queryRows = 0, headDim = 0, keys = 0,
          valueDim = 0, rows = 0, slices = 1, warps = 0, units = 0, chunk = 0;
  /// The schedule's elements per key load (vector_width), per value load
  /// (tile) and keys' values in flight (elements_per_thread); the vectors a
  /// lane takes of a key's row and of a value's.
  int64_t width = 1, valueWidth = 1, valueBatch = 1, keyVectors = 1,
          valueVectors = 1;
  /// The unit's slices are one thread-block cluster.
  bool cluster = false;
  /// staged_kv_attention: the most keys a chunk, the chunks in flight, the
  /// elements a key row takes in shared memory, threads a block, the
  /// groups of 4 value dims of a unit's rows, and the threads that share a
  /// group's keys in a chunk (threads / valueGroups where the groups fill
  /// the block at least twice, else 1).
  int64_t chunkKeys = 0, buffers = 0, keyPitch = 0, threads = 0,
          valueGroups = 0, keyParts = 1;
  /// The elements a value row takes in shared memory (stagedValuePitch);
  /// staged_kv_mma_attention: the chunks on the tensor cores, each warp
  /// `valueTiles` tiles of 8 value dims.
  int64_t valuePitch = 0, valueTiles = 0;
  bool tensorCores = false;
  /// The key's and value's storage type.
  std::string element;
};

/// Form (g): skinny_matmul (SkinnyMatmul.cpp).
/// Combines `info.acc` across the `threads` threads of a row (a power of
/// two: one warp, or a whole block through shared array `shared`), so that
/// every thread of the row holds the row's result (RowReduction.cpp; the
/// broadcast-reduction printer's rows and a skinny product's row prologue).
void combineAcrossRow(Code &body, const ReductionInfo &info, int64_t threads,
                      const std::string &shared);

class SkinnyMatmulPrinter : public KernelPrinter {
public:
  using KernelPrinter::KernelPrinter;

private:
  mlir::LogicalResult printBody(Code &body) override;
  /// A constant weight's first lines of each of the warp's columns into
  /// L2, a line a lane.
  void printBeforeWait(Code &body) override;
  /// Phase 1 (or the only launch): the warp's columns over its slice of K.
  mlir::LogicalResult printSlice(Code &body);
  /// `count` consecutive elements of kernel input `arg`, read through
  /// `operand`'s layout from `coords`, as one aligned load.
  std::string vectorLoad(int64_t count, unsigned arg, mlir::Value operand,
                         llvm::ArrayRef<std::string> coords);
  /// One step of a lane: `stepLoads` loads of `count` elements, from `kk`
  /// 32 * `count` apart, of each column's weight row (all issued first) and
  /// of each row of the activations, into the sums.
  mlir::LogicalResult printStep(Code &body, int64_t count, int64_t stepLoads);
  /// Row `r`'s `count` activations from K element `k` as `name`: one load
  /// of A, or of the rows staged in shared memory. Returns how to read
  /// element `e` as a float.
  mlir::FailureOr<std::string> loadActivations(Code &body, int64_t count,
                                               const std::string &k,
                                               const std::string &name);
  /// The prologue at row `r`'s `count` elements from K element `k`, as
  /// vector lanes, into `float name[count]`; returns `name[e]`.
  mlir::FailureOr<std::string> evalPrologue(Code &body, int64_t count,
                                            const std::string &k,
                                            const std::string &name);
  /// A row prologue's reductions (an RMSNorm's mean): the block reduces
  /// each row over all of K, then computes the per-row ops, each value
  /// held in a register array of the rows (rowValues); the first block
  /// also stores the prologue's yielded values (the residual sum) at each
  /// element it reads.
  mlir::LogicalResult printRowReductions(Code &body);
  /// One thread's `count` elements of row `q` (its coordinates `kept`)
  /// from element `k` along the reduced dims (lanes consecutive along the
  /// innermost), into reduction `index`'s accumulator; with the first, the
  /// prologue's yielded values stored from block 0.
  mlir::LogicalResult reduceRowGroup(Code &body, size_t index, int64_t count,
                                     const std::string &k,
                                     llvm::ArrayRef<std::string> kept);
  /// Row `q`'s per-row ops whose operands are computed, at `coords` (the
  /// reductions' result coordinates of the row), into their `arrays`.
  mlir::LogicalResult
  printRowOps(Code &body, llvm::ArrayRef<std::string> coords,
              const llvm::DenseMap<mlir::Operation *, std::string> &arrays);
  /// `kBegin`, `kEnd`, `kWhole`: the slice's range of K.
  void printSliceBounds(Code &body);
  /// Phase 1 with a staged prologue (the launch's shared memory): the rows
  /// staged, then each warp's column groups in turn.
  mlir::LogicalResult printStagedSlice(Code &body);
  /// The block's threads evaluate the prologue at the slice's elements of
  /// every row into `stage`, then wait for each other.
  mlir::LogicalResult printStage(Code &body);
  /// One thread's `count` elements of the stage at `k` of row `r`.
  mlir::LogicalResult stageGroup(Code &body, int64_t count);
  /// A warp's `tile` columns from `column0` over the slice: the sums, then
  /// their stores.
  mlir::LogicalResult printColumns(Code &body);
  /// The names of a prologue's or an epilogue's ops, for the kernel's
  /// comment.
  std::string describeOps(llvm::ArrayRef<mlir::Operation *> ops);
  /// The epilogue's column offsets, for the kernel's comment.
  std::string joinOffsets();
  /// The weight column of the warp's held column `h` (column `h` % `tile`
  /// from `first`, at offset `h` / `tile`), clamped to the last column of
  /// its offset's block (a column past it is computed, never stored).
  std::string heldColumn(const std::string &first, int64_t h);
  /// The columns a warp sums: `tile` at each column offset.
  int64_t heldColumns() const {
    return tile * static_cast<int64_t>(offsets.size());
  }
  /// The variable of a warp's sum at column offset `g`: `sum`, or `sumG`
  /// with several offsets.
  std::string sumName(size_t g) const;
  /// " + offset", or nothing for 0.
  static std::string plusOffset(int64_t offset);
  /// Each row's and column's sum over the warp's lanes; a lane per (row,
  /// column) stores it (one slice) or its partial (several).
  mlir::LogicalResult printWarpSums(Code &body);
  /// Phase 2: each output's partials added in slice order.
  mlir::LogicalResult printCombineSlices(Code &body);
  /// The product's element (`r`, `c`) from its `sum`: plus the addend and
  /// the bias, after relu; declared and returned as a variable.
  mlir::FailureOr<std::string> productValue(Code &body, const std::string &sum,
                                            const std::string &r,
                                            const std::string &c);
  /// Stores the product's element (`r`, `c`) from `sums` (one, of column
  /// `c`); with an epilogue, the epilogue's element at row `r` and column
  /// `c`, `sums` held at each column offset it reads.
  mlir::LogicalResult storeResult(Code &body, llvm::ArrayRef<std::string> sums,
                                  const std::string &r, const std::string &c);
  /// Prints `group` (the warp's column group, of index type `type`) and
  /// `slice` from the block and warp.
  void printGroup(Code &body, const std::string &type);
  /// With columnWarps > 1: the block's warps add their sums into warp 0's
  /// in warp order through shared memory, and the others return.
  void printCombineColumnWarps(Code &body);

  MatmulOp op;
  int64_t rows = 0, depth = 0, columns = 0, tile = 1, width = 1, slices = 1,
          warps = 0, chunk = 0, loads = 1;
  /// The warps that share a column group: 1, or the block's (each taking
  /// every columnWarps-th step of the rows).
  int64_t columnWarps = 1;
  /// The columns a warp's `tile` columns start in: the product's, or the
  /// epilogue's per row.
  int64_t outColumns = 0;
  /// The column offsets a warp sums its `tile` columns at: 0, or each the
  /// epilogue reads (SkinnyEpilogue::columnOffsets).
  llvm::SmallVector<int64_t> offsets;
  unsigned lhsArg = 0, rhsArg = 0;
  /// The operands' storage type.
  std::string element;
  /// Whether the rows are staged in shared memory (the launch's shared
  /// bytes: a prologue evaluated once per block).
  bool staged = false;
};

} // namespace stride

#endif // STRIDE_LIB_TARGET_CUDA_FORMS_FORMS_H
