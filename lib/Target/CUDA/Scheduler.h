//===- Scheduler.h - The CUDA schedule's shared state -----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the files of the stride-schedule-kernels pass share: the arch facts,
// the constants behind each scheme (python-free-docs/cuda-backend.md explains
// them, bench/NOTES.md holds the measurements), the launch helpers, and the
// Scheduler, whose methods for each kernel form are in SchedulePointwise.cpp,
// ScheduleReduction.cpp, ScheduleScatter.cpp and Schedule.cpp. Private to
// lib/Target/CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_TARGET_CUDA_SCHEDULER_H
#define STRIDE_LIB_TARGET_CUDA_SCHEDULER_H

#include "stride/Target/CUDA/Schedule.h"

#include "KernelFacts.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace stride::cuda {

/// What the schedule needs to know of an arch's usual GPU: its
/// multiprocessors, and the shared memory of one multiprocessor (the
/// largest carveout that cuda_occupancy.h's cudaOccSMemPerMultiprocessor
/// allows for the compute capability).
struct ArchFacts {
  const char *name;
  int multiprocessors;
  int64_t sharedBytesPerMultiprocessor;
};

/// `arch`'s facts; an unknown arch is taken for sm_90.
const ArchFacts &archFacts(llvm::StringRef arch);

/// Grid-stride kernels launch up to this many threads' worth of blocks per
/// multiprocessor: 16 waves of 2048 resident threads. Measured on an H100
/// (bench/NOTES.md): pointwise and row kernels with 16 waves of blocks ran
/// 4-8% faster than with one resident wave looping, as the hardware
/// balances the last blocks across multiprocessors.
constexpr int64_t kGridStrideThreadsPerMultiprocessor = 16 * 2048;
/// Threads per block of the grid-stride loops.
constexpr int64_t kBlock = 256;
/// The most chunks of a scanned row held in registers, each thread's
/// element of each (ScanPrinter::printHeldChunks).
constexpr int64_t kMaxHeldScanChunks = 8;
/// Threads of a sorted_index_add block whose rows need fewer: groups of
/// them take a row's run of positions together.
constexpr int64_t kSortedRunThreads = 128;
/// Tiles of the tiled transpose scheme: kTile x kTile elements, one block
/// of kBlock threads per tile at a time.
constexpr int64_t kTile = 64;
/// Static shared memory the staged tiles may take per block (of the 48 KiB
/// a block may declare statically; 8 blocks of 256 threads per
/// multiprocessor still fit in an H100's 228 KiB at one f32 tile).
constexpr int64_t kMaxTileBytes = 40 * 1024;

/// Pointwise kernels of up to this many functional ops are vectorized. The
/// vectorized loop evaluates each op once per lane, so NVRTC compiles it 4
/// times; a kernel of more ops is bound by arithmetic, not by memory, and
/// gains little from 4-element accesses.
constexpr int64_t kMaxVectorizedOps = 16;

/// Threads resident on one multiprocessor (every arch since sm_75 but
/// sm_75 itself, which holds 1024; the count only tunes speed).
constexpr int64_t kResidentThreadsPerMultiprocessor = 2048;
/// Shared memory the hardware keeps per resident block, of the
/// multiprocessor's (ArchFacts): a block may take the rest (227 KiB on
/// sm_90, 99 KiB on sm_120), and a row held in shared memory (row_shared)
/// launches as many blocks as fit at once.
constexpr int64_t kSharedBytesReservedPerBlock = 1024;
/// A reduction split across blocks (reduction_split) gives each block at
/// least this many reduced elements (16 per thread), so the second phase
/// combines few partial results next to the elements read.
constexpr int64_t kMinSplitElements = 4096;
/// ... and launches about this many waves of resident blocks in its first
/// phase, enough for the hardware to balance the last blocks.
constexpr int64_t kSplitWaves = 2;
/// An inner split of at most this many blocks per multiprocessor combines
/// its partials in its last block to arrive, in one launch (a decode
/// step's argmax: 7 blocks a row; a second launch cost it about 2.7 us,
/// bench/NOTES.md section 76); more blocks combine them in a second
/// launch: at 2,112 blocks (the full sums of 64 MiB) the fence and the
/// arrival at the end of every block cost more than the launch (section
/// 42, H100).
constexpr int64_t kMaxOneLaunchSplitWaves = 2;
/// Split-KV attention: threads per block below sm_90 (4 warps), the blocks
/// per multiprocessor its slices aim for, and the fewest keys a slice
/// takes (a step of every warp: 32 keys a warp, a key a lane). A lane
/// holds its key's row and its value dims of the step's keys in registers
/// (a bf16 head dim of 128: 64 and 64 registers), about 170 in all: two
/// such blocks fit a multiprocessor.
constexpr int64_t kSplitKvThreads = 128;
constexpr int64_t kSplitKvBlocksPerMultiprocessor = 2;
constexpr int64_t kMinSplitKvKeys = 128;
/// ... and the most slices (the second launch holds a weight per slice in
/// shared memory).
constexpr int64_t kMaxSplitKvSlices = 2048;
/// ... and, on sm_90 and later, where a unit's slices are one thread-block
/// cluster combining their states in distributed shared memory (one
/// launch), the most slices: the portable cluster size.
constexpr int64_t kMaxSplitKvClusterBlocks = 8;
/// ... with blocks of this many threads (8 warps), so that a block's slice
/// takes fewer warp steps.
constexpr int64_t kSplitKvClusterThreads = 256;
/// ... and the most bytes of values a lane loads before it uses any (the
/// step's keys at its value dims, in batches of a power of two keys that
/// fit): 64 registers.
constexpr int64_t kMaxSplitKvValueBytes = 256;
/// Staged decode attention (scheduleStagedAttention): threads a block (4
/// warps: a key a thread for a chunk's scores, 4 value dims of a row a
/// thread), the most blocks a unit (each takes at least a chunk of the
/// valid keys), the most keys a chunk and the chunks in flight.
/// bench/NOTES.md section 79: at bench/decode's dims (4 query heads a unit
/// of 8 key/value heads, head dims of 128, bf16) on an H200, the printed
/// kernel took 10.4 us at position 1024 and 15.2 at 4000 with these; 32
/// blocks a unit 10.7 and 16.9, 3 or 4 chunks in flight 15.9 and 16.4 at
/// 4000, 256 or 512 threads 10.5-11.0 and 15.7-16.9 (cuDNN: 12.2).
constexpr int64_t kStagedKvThreads = 128;
constexpr int64_t kStagedKvSlices = 16;
constexpr int64_t kStagedKvChunkKeys = 64;
constexpr int64_t kStagedKvBuffers = 2;
/// A block's state of a row in the staged attention's scratch: m, l and two
/// floats of padding (so that its value dims' sums start 16 bytes in, read
/// and written four at a time), then the sums.
constexpr int64_t kStagedKvStateHeader = 4;
/// The elements a value row takes in the staged kernel's shared memory:
/// padded by 8 on the tensor cores, so that ldmatrix's 8 rows of 16 bytes
/// meet no bank twice (as the key rows always are).
inline int64_t stagedValuePitch(int64_t valueDim, bool tensorCores) {
  return tensorCores ? valueDim + 8 : valueDim;
}
/// The staged decode attention's schemes: on the CUDA cores or the tensor
/// cores (StagedAttention.cpp prints both).
inline bool isStagedAttention(KernelScheme scheme) {
  return scheme == KernelScheme::StagedKvAttention ||
         scheme == KernelScheme::StagedKvMmaAttention;
}
/// Skinny products (python-free-docs/matmul.md, "Skinny products"): threads
/// per block (4 warps, a warp per kSkinnyColumnsPerWarp columns, one where
/// the product has more than kMaxSkinnyPairedRows rows: the registers of
/// its sums), and the warps the product needs on each multiprocessor
/// before K is split into slices (each at least kMinSkinnySliceBytes of a
/// weight row), which costs a second launch. 16 warps of 32 lanes, each
/// lane with 4 unrolled steps of 2 columns' 16-byte loads, keep 64 KiB in
/// flight per multiprocessor, above the about 22 KiB that streaming at an
/// H200's 4.2 TB/s with a latency of about 0.7 us asks of each of its 132
/// (not measured yet: bench/decode --compare-skinny).
constexpr int64_t kSkinnyThreads = 128;
constexpr int64_t kSkinnyColumnsPerWarp = 2;
/// At 1 row, a warp takes 1 column, or kWideSkinnyColumnsPerWarp where the
/// product has at least kWideSkinnyColumns: measured on an H200
/// (bench/decode/skinny_sweep.py, bench/NOTES.md section 50), 1 column
/// streamed the 4096-column products fastest (3.3 and 4.0 TB/s), 4 columns
/// the 14,336 and 32,000-column ones (4.0 and 4.3 TB/s), 2 neither.
constexpr int64_t kWideSkinnyColumns = 8192;
constexpr int64_t kWideSkinnyColumnsPerWarp = 4;
/// Loads of `vector_width` elements a lane issues per column and step before
/// any is used (the schedule's elements_per_thread over vector_width); 1:
/// one load per column a step, the step loop unrolled 4 times.
constexpr int64_t kSkinnyLoadsPerLane = 1;
/// At 1 row and at least kWideSkinnyColumns, each lane issues this many
/// loads per column before it uses any: measured on an H200 in a chain of
/// dependent launches (bench/decode/product_forms_probe.cu, bench/NOTES.md
/// section 84), 4 columns a warp streamed the decode step's gate/up
/// products 4% faster with 8 loads than with 1; the narrower products
/// (1 column a warp) were not faster with more.
constexpr int64_t kWideSkinnyLoadsPerLane = 8;
/// At 1 row and 1 column a warp, without a prologue, the block's 4 warps
/// share each column, warp w taking the 512-byte steps w, w + 4, ... of
/// its weight row, where each warp then has at least kMinColumnWarpSteps
/// of them: measured on an H200 in a chain of dependent launches
/// (bench/decode/product_forms_probe.cu, bench/NOTES.md section 84), the
/// decode step's down products (4,096 x 14,336) took 4 x 30.5 us against
/// 4 x 33.5 with a warp a column, its O projections 4 x 10.9 against
/// 4 x 11.4; the whole batch-1 step 4 to 6 us faster.
constexpr int64_t kSkinnyColumnWarps = 4;
constexpr int64_t kMinColumnWarpSteps = 2;
constexpr int64_t kMaxSkinnyPairedRows = 8;
constexpr int64_t kSkinnyWarpsPerMultiprocessor = 16;
constexpr int64_t kMinSkinnySliceBytes = 4096;
/// A skinny product with a prologue stages its rows: each block evaluates
/// the prologue once at every element of its slice of the rows, into
/// shared memory (at most kMaxSkinnyStageBytes, and what a block of the
/// arch may take; else K is split into more slices), then its warps read
/// them from there, a block of
/// kSkinnyStagedThreads per multiprocessor and slice, each warp looping
/// over its column groups. Measured on an H200 (a decoder's SwiGLU before
/// its 4096 x 14336 bf16 down projection, python-free-docs/matmul.md,
/// "Skinny products"): evaluated by every warp the prologue made the
/// product 2.5 times slower (0.082 ms); staged by blocks of 128, 256 and
/// 512 threads (2 a multiprocessor) it took 0.040 to 0.036 ms, by 1,024
/// threads 0.0336 ms, against 0.0301 ms for the product alone and 0.0324
/// ms for the SwiGLU's kernel and the product.
constexpr int64_t kSkinnyStagedThreads = 1024;
constexpr int64_t kMaxSkinnyStageBytes = 64 * 1024;
/// An inner reduction is not split where its outputs' blocks (a block per
/// output, bench/NOTES.md section 41) fill at least 1 / this share of the
/// GPU's resident threads: on an H100 the sum over 256 f32 rows of 65,536
/// (256 blocks of 1,024 threads, 97% of the resident threads) ran at 91%
/// of the copy floor in one launch against 81% split over two.
constexpr int64_t kMinUnsplitResidentShare = 2;
/// An outer reduction split across blocks (reduction_split with column
/// tiles) gives each block at least this many rows of its column tile.
constexpr int64_t kMinOuterSplitRows = 256;
/// ... and with column groups (4 adjacent columns per thread), at least
/// this many 4-element loads per thread where the outputs are one tile's
/// (narrow columns: few outputs, a cheap second launch), 4 times as many
/// where they are several tiles' (their second launch combines many
/// outputs' partials). On an H100 (bench/NOTES.md section 35) 16 was best
/// for 8 and 100 columns, 64 for 1,024 and 4,096.
constexpr int64_t kMinColumnGroupSteps = 16;
/// Column groups: at most a warp's lanes (32 groups of 4 columns) per tile.
constexpr int64_t kMaxColumnGroups = 32;
/// Column groups: where each output has more than this many slices, phase
/// 2 gives each output a block, which combines its partials with a tree
/// (column_combine = block); else a thread, a serial loop over them
/// (column_combine = thread), cheaper for many outputs of few slices.
constexpr int64_t kMaxSerialColumnPartials = 64;
/// A row split over a thread-block cluster, the row the kernel's only
/// input and at most this many functional ops (softmax has 5): registers
/// bounded so that a multiprocessor holds kResidentThreadsPerMultiprocessor
/// of its threads (min_blocks), i.e. 32 per thread. On an H100 softmax
/// over rows of 65,536 became 5% (f32) and 13% (bf16) faster; LayerNorm's
/// rows (weight and bias read beside the row) were no faster, and one
/// spilled (bench/NOTES.md section 37).
constexpr int64_t kMaxBoundedClusterRowOps = 6;
/// Inner reductions of rows of up to this many elements (a multiple of 4)
/// give each row one thread, which reads it 4 elements at a time: a warp
/// per 32 rows keeps 8 times more bytes in flight than a group of threads
/// per row reading one element each. Rows this short that are not read in
/// fours get a thread each too where there are enough of them to fill the
/// GPU (a max pool's windows).
constexpr int64_t kMaxThreadRow = 16;

/// Whether `arch` ("sm_" + digits, perhaps a suffix) has thread-block
/// clusters: sm_90 and later.
bool hasThreadBlockClusters(llvm::StringRef arch);

/// Whether `arch` has asynchronous copies into shared memory (cp.async):
/// sm_80 and later.
bool hasAsyncCopies(llvm::StringRef arch);

/// The most blocks of `block` threads a grid-stride kernel launches.
int64_t maxGridStrideBlocks(int multiprocessors, int64_t block);

/// A grid of at most `cap` blocks for `units` blocks' worth of work.
int64_t gridSize(int64_t units, int64_t cap);

/// Chooses one kernel's schedule (scheduleKernel); each form's choices are
/// in the file named beside it.
class Scheduler {
public:
  Scheduler(KernelOp kernel, const KernelFacts &facts,
            const CudaTargetOptions &options)
      : kernel(kernel), facts(facts), options(options),
        builder(kernel.getContext()),
        multiprocessors(
            multiprocessorsFor(options.arch, options.multiprocessorCount)) {}

  KernelScheduleAttr schedule();

private:
  void schedulePointwise();
  bool scheduleTiledTranspose();
  /// The order in which a thread-per-output reduction takes its outputs:
  /// the memory order (outermost first) of its largest input of the
  /// outputs' rank where that is not row-major, else the first result's;
  /// empty for row-major.
  llvm::SmallVector<int64_t> outputOrderOfReads();
  /// The tiled transpose stages an input of 2-byte elements whose tile
  /// rows do not all start at a multiple of 4 elements.
  bool splitsTwoByteRows();
  void scheduleReduction();
  bool scheduleSplitReduction(int64_t outputs, int64_t reduced,
                              int64_t threadsPerOutput);
  bool scheduleOuterSplit(int64_t outputs, int64_t reduced);
  bool scheduleColumnGroupSplit(int64_t outputs, int64_t reduced);
  /// Whether an outer reduction may read its columns 4 at a time: it
  /// reduces the input's leading dims, keeps the rest, the innermost dim
  /// holds whole groups of 4, and the kernel has few ops.
  bool readsColumnsInFours();
  /// Whether vector accesses are on and the first reduction's input has an
  /// innermost dim of whole groups of 4 (so every group starts at a
  /// multiple of 4 of it); the questions above and below add where the
  /// reduced dims are.
  bool inputInFours();
  /// Whether the input's innermost dim is the last reduced one and holds
  /// whole groups of 4.
  bool reducesInnermostInFours();
  /// Whether the reduction may read 4 consecutive elements per step: the
  /// groups above, and the kernel has few ops.
  bool readsInnermostInFours();
  /// The number of slices that split the range of each of `units` (outputs
  /// or column tiles) when `unitThreads` threads each leave the GPU's
  /// resident threads unfilled: about kSplitWaves waves of blocks of
  /// `block` threads, each slice at least `minSlice` elements (0: no
  /// split).
  int64_t splitCount(int64_t units, int64_t unitThreads, int64_t block,
                     int64_t reduced, int64_t minSlice);
  /// One scratch buffer of partial results per reduction.
  void partialsScratch(int64_t count);
  void scheduleRowReduction();
  /// A broadcast reduction over rows of symbolic length: re-read, the
  /// threads chosen at the largest length.
  void scheduleRowsOfSymbolicLength(const SizeExpr &rows,
                                    int64_t largestLength);
  void scheduleScatter();
  /// The index_add a row-wise scheme can take (segmented or sorted), or
  /// null.
  IndexAddOp rowWiseIndexAdd();
  bool useSegmentedIndexAdd();
  void scheduleSegmentedIndexAdd();
  /// A row's units (vector width, elements per thread), as every row-wise
  /// index_add takes them; returns the units of a row.
  int64_t scheduleRowUnits(IndexAddOp op);
  /// Whether the kernel is a row-wise index_add marked sorted_index with
  /// elements to write.
  bool useSortedIndexAdd();
  /// Its schedule: a block per row, one launch.
  void scheduleSortedIndexAdd();
  /// The launches and scratch of the deterministic segmented index_add
  /// (a stable counting sort of every position) and of the default one
  /// (buckets of short rows, pages of the long rows' later positions).
  void scheduleCountingSortIndexAdd(int64_t rows, int64_t updates,
                                    int64_t rowLength, int64_t accBytes);
  void scheduleBucketedIndexAdd(int64_t rows, int64_t updates,
                                int64_t rowLength, int64_t accBytes);
  void scheduleScan();
  void scheduleAttention();
  /// The staged decode attention's schedule (stagedDecodeTakes).
  void scheduleStagedAttention();
  /// The split-KV attention's elements per load of a key's row (a lane
  /// reads a whole row): 16 bytes' worth where the layout allows
  /// (readsVectorsOf), else the largest power of two it allows, else 1.
  int64_t splitKvKeyWidth(AttentionOp op);
  /// ... and per load of a value's row (the warp reads a row, each lane
  /// `width` consecutive dims of every 32 * `width`): the widest such that
  /// the warp's loads cover the head dim exactly and the layout allows,
  /// else 1 (lane `c` takes dims c, c + 32, ...).
  int64_t splitKvValueWidth(AttentionOp op);
  void scheduleSkinnyProduct();
  /// With a prologue: blocks of kSkinnyStagedThreads over the column
  /// groups, one per multiprocessor and slice, each with its slice of the
  /// rows in dynamic shared memory (slices added until it fits).
  void scheduleStagedSkinnyProduct(int64_t rows, int64_t depth,
                                   int64_t groups, int64_t elementBytes);
  /// The skinny product's elements per load: 16 bytes' worth where the
  /// offsets and row strides of the weight and the activations are
  /// multiples of it, else the largest power of two that is. With a
  /// prologue the activations are the kernel inputs it reads along K
  /// (innermost stride 1); an input it reads otherwise (broadcast along K)
  /// is read element by element and does not bound the width.
  int64_t skinnyVectorWidth(MatmulOp op);
  /// The output columns a warp of the skinny product takes (the option's,
  /// or kSkinnyColumnsPerWarp / kWideSkinnyColumnsPerWarp / 1 by the rows
  /// and columns).
  int64_t skinnyColumnsPerWarp(int64_t rows, int64_t columns);
  /// The 16-byte loads a lane issues per column before it uses any: the
  /// option's, else kWideSkinnyLoadsPerLane or kSkinnyLoadsPerLane.
  int64_t skinnyLoadsPerLane(int64_t rows, int64_t columns);
  /// The warps of a block that share a column group: the option's, else
  /// kSkinnyColumnWarps at 1 row, 1 column a warp and deep enough rows,
  /// else 1; always 1 with a prologue (its rows are staged per block).
  int64_t skinnyColumnWarps(int64_t rows, int64_t depth);

  /// The kernel's functional ops (views not counted): what NVRTC compiles
  /// once per element a thread computes.
  int64_t functionalOps() {
    return llvm::count_if(kernel.getBodyBlock().without_terminator(),
                          [](mlir::Operation &op) { return isFunctional(&op); });
  }

  void launch(int64_t grid, int64_t block, int64_t blockY = 1,
              int64_t phase = -1, int64_t shared = 0) {
    launches.push_back(LaunchAttr::get(builder.getContext(), grid, block,
                                       blockY, shared, phase,
                                       /*elements=*/nullptr, /*per_block=*/1));
  }
  /// Over symbolic sizes: `grid` blocks at the symbols' largest values,
  /// min(ceil(elements / perBlock), grid) at run time.
  void launchOver(const SizeExpr &elements, int64_t perBlock, int64_t grid,
                  int64_t block, int64_t blockY = 1, int64_t shared = 0) {
    launches.push_back(LaunchAttr::get(
        builder.getContext(), grid, block, blockY, shared,
        /*phase=*/-1, SizeExprAttr::get(builder.getContext(), elements),
        perBlock));
  }
  /// The launch of `grid` blocks (its size at the symbols' largest values)
  /// over `units` (rows, outputs, column tiles' outputs), `perBlock` of
  /// them a block: a static launch where `units` is a constant, else one
  /// whose grid is cut at run time to the units there are.
  void launchUnits(const SizeExpr &units, int64_t perBlock, int64_t grid,
                   int64_t block, int64_t blockY = 1, int64_t shared = 0) {
    if (units.isConstant())
      return launch(grid, block, blockY, /*phase=*/-1, shared);
    launchOver(units, perBlock, grid, block, blockY, shared);
  }
  /// A pointwise kernel over symbolic sizes: the grid-stride loop, its grid
  /// sized at run time (python-free-docs/symbolic-sizes.md).
  void scheduleSymbolicPointwise();
  /// The symbols' largest values (python-free-docs/symbolic-sizes.md: a
  /// symbolic kernel's schedule is chosen there) and `size` at them.
  SymbolValues largestSymbols() const;
  int64_t atLargest(const SizeExpr &size) const {
    return size.evaluate(largestSymbols()).value_or(INT64_MAX);
  }

  KernelOp kernel;
  const KernelFacts &facts;
  const CudaTargetOptions &options;
  mlir::Builder builder;
  int multiprocessors;
  /// The threads the whole GPU holds at once.
  int64_t residentThreads() const {
    return multiprocessors * kResidentThreadsPerMultiprocessor;
  }

  KernelScheme scheme = KernelScheme::GridStride;
  int64_t vectorWidth = 1, threads = 0, slices = 1, elementsPerThread = 0,
          clusterBlocks = 1, minBlocks = 0, tile = 0, transposeDim = -1,
          columnWarps = 1;
  llvm::SmallVector<mlir::Attribute> staged;
  llvm::SmallVector<mlir::Attribute> launches;
  llvm::SmallVector<int64_t> scratch;
  bool deterministic = false;
  ColumnCombine columnCombine = ColumnCombine::None;
  int64_t bucket = 0, pages = 0, hashEntries = 0;
  /// The kept dims in the order consecutive threads take the outputs
  /// (outermost first); empty: row-major.
  llvm::SmallVector<int64_t> outputOrder;
};

} // namespace stride::cuda

#endif // STRIDE_LIB_TARGET_CUDA_SCHEDULER_H
