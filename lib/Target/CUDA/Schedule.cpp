//===- Schedule.cpp - How the CUDA backend runs each kernel --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every decision about how a kernel runs is made here, from the IR alone:
// the scheme per kernel form, tiles, vector widths, index width, launches.
// python-free-docs/cuda-backend.md explains each scheme and the measurements behind the
// constants (bench/NOTES.md).
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/Schedule.h"
#include "dialects/stride/Analysis/RowSplit.h"
#include "dialects/stride/IR/IndexMaps.h"
#include "stride/Support/DType.h"

#include "KernelFacts.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

namespace stride {
#define GEN_PASS_DEF_SCHEDULEKERNELS
#include "stride/Target/CUDA/Passes.h.inc"
} // namespace stride

using namespace mlir;

namespace stride {

namespace {
/// What the schedule needs to know of an arch's usual GPU: its
/// multiprocessors, and the shared memory of one multiprocessor (the
/// largest carveout that cuda_occupancy.h's cudaOccSMemPerMultiprocessor
/// allows for the compute capability).
struct ArchFacts {
  const char *name;
  int multiprocessors;
  int64_t sharedBytesPerMultiprocessor;
};
constexpr int64_t kKiB = 1024;
constexpr ArchFacts kArchFacts[] = {
    {"sm_75", 72, 64 * kKiB},    {"sm_80", 108, 164 * kKiB},
    {"sm_86", 84, 100 * kKiB},   {"sm_87", 16, 164 * kKiB},
    {"sm_89", 128, 100 * kKiB},  {"sm_90", 132, 228 * kKiB},
    {"sm_100", 148, 228 * kKiB}, {"sm_103", 148, 228 * kKiB},
    {"sm_110", 20, 228 * kKiB},  {"sm_120", 170, 100 * kKiB},
    {"sm_121", 48, 100 * kKiB}};

/// `arch`'s facts; an unknown arch is taken for sm_90.
const ArchFacts &archFacts(StringRef arch) {
  for (const ArchFacts &facts : kArchFacts)
    if (arch == facts.name)
      return facts;
  return archFacts("sm_90");
}
} // namespace

int defaultMultiprocessors(StringRef arch) {
  return archFacts(arch).multiprocessors;
}

KernelScheduleAttr getSchedule(KernelOp kernel) {
  return kernel->getAttrOfType<KernelScheduleAttr>(
      KernelScheduleAttr::kAttrName);
}

namespace {

/// Grid-stride kernels launch up to this many threads' worth of blocks per
/// multiprocessor: 16 waves of 2048 resident threads. Measured on an H100
/// (bench/NOTES.md): pointwise and row kernels with 16 waves of blocks ran
/// 4-8% faster than with one resident wave looping, as the hardware
/// balances the last blocks across multiprocessors.
constexpr int64_t kGridStrideThreadsPerMultiprocessor = 16 * 2048;
/// Threads per block of the grid-stride loops.
constexpr int64_t kBlock = 256;
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
/// per row reading one element each.
constexpr int64_t kMaxThreadRow = 16;

/// Whether `arch` ("sm_" + digits, perhaps a suffix) has thread-block
/// clusters: sm_90 and later.
bool hasThreadBlockClusters(StringRef arch) {
  unsigned version = 0;
  return arch.consume_front("sm_") && !arch.consumeInteger(10, version) &&
         version >= 90;
}

/// The most blocks of `block` threads a grid-stride kernel launches.
int64_t maxGridStrideBlocks(int multiprocessors, int64_t block) {
  return int64_t(multiprocessors) *
         std::max<int64_t>(1, kGridStrideThreadsPerMultiprocessor / block);
}

/// A grid of at most `cap` blocks for `units` blocks' worth of work.
int64_t gridSize(int64_t units, int64_t cap) {
  return std::max<int64_t>(1, std::min(units, cap));
}

int64_t computeBytes(DType t) {
  switch (t) {
  case DType::F64:
  case DType::I64: return 8;
  case DType::I1:
  case DType::I8: return 1;
  default: return 4;
  }
}

/// Bytes of a reduction's accumulator (CudaText.h: accumulatorType).
int64_t accumulatorBytes(DType t) {
  bool single = t == DType::F32 || t == DType::F16 || t == DType::BF16;
  return single ? 4 : 8;
}

/// The kernel inputs (with the type they are read through) that a
/// pointwise kernel reads at exactly its own coordinates, in the order the
/// printer first reaches them. Each value is visited with the map from the
/// kernel's coordinates to the coordinates it is read at (views compose
/// their index maps; a coordinate read from data, such as a gather's, is
/// the symbol s0); a read is the kernel's own when the map is the identity
/// (a dim of size 1 reads 0 either way).
class IdentityLoads {
public:
  IdentityLoads(KernelOp kernel, ArrayRef<int64_t> shape)
      : kernel(kernel), shape(shape), context(kernel.getContext()) {}

  SmallVector<std::pair<unsigned, StridedTensorType>> find(ValueRange yields) {
    AffineMap own = AffineMap::getMultiDimIdentityMap(shape.size(), context);
    for (Value v : yields)
      visit(v, own.getResults());
    return loads;
  }

private:
  using Coords = SmallVector<AffineExpr>;

  void visit(Value value, ArrayRef<AffineExpr> coords) {
    AffineMap map = simplifyInBounds(
        AffineMap::get(shape.size(), 1, coords, context), shape);
    if (!visited.insert({value.getAsOpaquePointer(), map}).second)
      return;
    if (std::optional<unsigned> arg = rootArgument(value)) {
      if (isOwn(map))
        loads.push_back({*arg, cast<StridedTensorType>(value.getType())});
      return;
    }
    Operation *op = value.getDefiningOp();
    if (auto view = dyn_cast<ViewOpInterface>(op)) {
      AffineMap step = view.getIndexMap();
      Coords source = step ? llvm::to_vector(step.replaceDimsAndSymbols(
                                                 map.getResults(), {}, shape.size(), 1)
                                                 .getResults())
                           : Coords(view.getSource().getType().getRank(), data());
      return visit(view.getSource(), source);
    }
    visitOperands(op, map.getResults());
  }

  void visitOperands(Operation *op, ArrayRef<AffineExpr> coords) {
    llvm::TypeSwitch<Operation *>(op)
        .Case<SliceScatterOp>([&](SliceScatterOp s) {
          Coords src(coords);
          src[s.getDim()] = (src[s.getDim()] - s.getStart()).floorDiv(s.getStep());
          visit(s.getSrc(), src);
          visit(s.getInput(), coords);
        })
        .Case<SelectScatterOp>([&](SelectScatterOp s) {
          Coords src(coords);
          src.erase(src.begin() + s.getDim());
          visit(s.getSrc(), src);
          visit(s.getInput(), coords);
        })
        .Case<CatOp>([&](CatOp c) {
          int64_t offset = 0;
          for (Value input : c.getInputs()) {
            Coords shifted(coords);
            shifted[c.getDim()] = shifted[c.getDim()] - offset;
            visit(input, shifted);
            offset += cast<StridedTensorType>(input.getType())
                          .getShape()[c.getDim()];
          }
        })
        .Case<GatherOp>([&](GatherOp g) {
          visit(g.getIndex(), coords);
          visit(g.getInput(), readFromData(coords, g.getDim()));
        })
        .Case<IndexSelectOp>([&](IndexSelectOp s) {
          visit(s.getIndex(), {coords[s.getDim()]});
          visit(s.getInput(), readFromData(coords, s.getDim()));
        })
        .Default([&](Operation *other) {
          for (Value operand : other->getOperands())
            visit(operand, coords);
        });
  }

  /// A coordinate read from a tensor at run time.
  AffineExpr data() const { return getAffineSymbolExpr(0, context); }

  Coords readFromData(ArrayRef<AffineExpr> coords, int64_t dim) const {
    Coords out(coords);
    out[dim] = data();
    return out;
  }

  bool isOwn(AffineMap map) const {
    if (map.getNumResults() != shape.size())
      return false;
    AffineMap own = simplifyInBounds(
        AffineMap::getMultiDimIdentityMap(shape.size(), context), shape);
    return map.getResults() == own.getResults();
  }

  std::optional<unsigned> rootArgument(Value value) {
    Value base = viewChainBase(value);
    auto arg = dyn_cast<BlockArgument>(base);
    if (!arg || arg.getOwner() != &kernel.getBodyBlock())
      return std::nullopt;
    return arg.getArgNumber();
  }

  KernelOp kernel;
  ArrayRef<int64_t> shape;
  MLIRContext *context;
  llvm::DenseSet<std::pair<const void *, AffineMap>> visited;
  SmallVector<std::pair<unsigned, StridedTensorType>> loads;
};

class Scheduler {
public:
  Scheduler(KernelOp kernel, const KernelFacts &facts,
            const CudaTargetOptions &options)
      : kernel(kernel), facts(facts), options(options),
        builder(kernel.getContext()),
        multiprocessors(options.multiprocessorCount > 0
                            ? options.multiprocessorCount
                            : defaultMultiprocessors(options.arch)) {}

  KernelScheduleAttr schedule();

private:
  void schedulePointwise();
  bool scheduleTiledTranspose();
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
  void scheduleScatter();
  bool useSegmentedIndexAdd();
  void scheduleSegmentedIndexAdd();
  /// The launches and scratch of the deterministic segmented index_add
  /// (a stable counting sort of every position) and of the default one
  /// (buckets of short rows, pages of the long rows' later positions).
  void scheduleSortedIndexAdd(int64_t rows, int64_t updates,
                              int64_t rowLength, int64_t accBytes);
  void scheduleBucketedIndexAdd(int64_t rows, int64_t updates,
                                int64_t rowLength, int64_t accBytes);
  void scheduleScan();

  /// The kernel's functional ops (views not counted): what NVRTC compiles
  /// once per element a thread computes.
  int64_t functionalOps() {
    return llvm::count_if(kernel.getBodyBlock().without_terminator(),
                          [](Operation &op) { return isFunctional(&op); });
  }

  void launch(int64_t grid, int64_t block, int64_t blockY = 1,
              int64_t phase = -1, int64_t shared = 0) {
    launches.push_back(LaunchAttr::get(builder.getContext(), grid, block,
                                       blockY, shared, phase));
  }

  KernelOp kernel;
  const KernelFacts &facts;
  const CudaTargetOptions &options;
  Builder builder;
  int multiprocessors;
  /// The threads the whole GPU holds at once.
  int64_t residentThreads() const {
    return multiprocessors * kResidentThreadsPerMultiprocessor;
  }

  KernelScheme scheme = KernelScheme::GridStride;
  int64_t vectorWidth = 1, threads = 0, slices = 1, elementsPerThread = 0,
          clusterBlocks = 1, minBlocks = 0, tile = 0, transposeDim = -1;
  SmallVector<Attribute> staged;
  SmallVector<Attribute> launches;
  SmallVector<int64_t> scratch;
  bool deterministic = false;
  ColumnCombine columnCombine = ColumnCombine::None;
  int64_t bucket = 0, pages = 0, hashEntries = 0;
};

KernelScheduleAttr Scheduler::schedule() {
  switch (facts.form) {
  case KernelForm::Pointwise: schedulePointwise(); break;
  case KernelForm::Reduction: scheduleReduction(); break;
  case KernelForm::BroadcastReduction: scheduleRowReduction(); break;
  case KernelForm::IndexScatter: scheduleScatter(); break;
  case KernelForm::Scan: scheduleScan(); break;
  }
  MLIRContext *context = builder.getContext();
  return KernelScheduleAttr::get(
      context, scheme, needsWideIndices(kernel) ? 64 : 32, vectorWidth,
      threads, slices, elementsPerThread, clusterBlocks, minBlocks, tile,
      transposeDim, staged.empty() ? ArrayAttr() : builder.getArrayAttr(staged),
      builder.getArrayAttr(launches),
      scratch.empty() ? DenseI64ArrayAttr()
                      : builder.getDenseI64ArrayAttr(scratch),
      deterministic, columnCombine, bucket, pages, hashEntries,
      IndexAnalysis::Own);
}

void Scheduler::schedulePointwise() {
  ArrayRef<int64_t> shape = facts.iterationShape;
  int64_t n = product(shape);
  if (n == 0)
    return;
  // An input read at the kernel's coordinates with a non-unit stride along
  // the innermost dim but unit stride along another (a transposed read)
  // goes through shared-memory tiles; everything else takes the grid-stride
  // loop, vectorized when the innermost dim is a multiple of 4 and the
  // kernel has few ops.
  if (scheduleTiledTranspose())
    return;
  int64_t cap = maxGridStrideBlocks(multiprocessors, kBlock);
  if (options.vectorize && !shape.empty() && shape.back() % 4 == 0 &&
      functionalOps() <= kMaxVectorizedOps) {
    scheme = KernelScheme::Vectorized;
    vectorWidth = 4;
    launch(gridSize(ceilDiv(n / 4, kBlock), cap), kBlock);
    return;
  }
  launch(gridSize(ceilDiv(n, kBlock), cap), kBlock);
}

bool Scheduler::scheduleTiledTranspose() {
  ArrayRef<int64_t> shape = facts.iterationShape;
  int64_t rank = shape.size();
  if (rank < 2 || shape.back() < 2)
    return false;
  int64_t l = rank - 1, t = -1, bytes = 0;
  SmallVector<std::pair<unsigned, StridedTensorType>> chosen;
  for (auto [arg, type] : IdentityLoads(kernel, shape).find(facts.yields)) {
    ArrayRef<int64_t> strides = type.getStrides();
    if (type.getShape() != shape)
      continue;
    // A unit-stride (coalesced) or broadcast (one address) innermost read
    // needs no staging.
    if (strides[l] == 1 || strides[l] == 0)
      continue;
    int64_t dim = -1;
    for (int64_t d = 0; d < l; ++d)
      if (shape[d] > 1 && strides[d] == 1) {
        dim = d;
        break;
      }
    if (dim < 0 || (t >= 0 && dim != t))
      continue;
    if (llvm::is_contained(chosen, std::make_pair(arg, type)))
      continue;
    int64_t tileBytes = kTile * (kTile + 1) * computeBytes(*dtypeOf(type));
    if (bytes + tileBytes > kMaxTileBytes)
      continue;
    bytes += tileBytes;
    t = dim;
    chosen.push_back({arg, type});
    // 4-element loads along t. Where the layout does not align every row
    // of the tile to 4 elements (odd sizes, odd offsets), each row's loads
    // start at its first multiple of 4 and its end elements are loaded one
    // per thread (python-free-docs/cuda-backend.md): on an H100, 8191x8193 f32 staged
    // so ran 14% faster than element by element (bench/NOTES.md, sections
    // 23 and 38).
    staged.push_back(StagedLoadAttr::get(builder.getContext(), arg, type,
                                         options.vectorize ? 4 : 1));
  }
  if (staged.empty())
    return false;
  scheme = KernelScheme::TiledTranspose;
  tile = kTile;
  transposeDim = t;
  vectorWidth = options.vectorize && shape[l] % 4 == 0 ? 4 : 1;
  SmallVector<int64_t> outer(shape);
  outer[t] = outer[l] = 1;
  int64_t tiles =
      product(outer) * ceilDiv(shape[t], kTile) * ceilDiv(shape[l], kTile);
  // One block per tile (up to 2^20 blocks): the hardware spreads the tiles,
  // so no last round of a grid-stride loop runs half empty.
  launch(gridSize(tiles, 1 << 20), kBlock);
  // Staged 2-byte elements whose rows split at their own multiples of 4
  // (odd sizes, TiledTranspose.cpp) take 40 registers, 6 blocks a
  // multiprocessor; bounded to 8 (32 registers, no spill) they ran 9-18%
  // faster on an H100, where f32 ran 4-15% slower (bench/NOTES.md section
  // 38).
  if (splitsTwoByteRows())
    minBlocks = kResidentThreadsPerMultiprocessor / kBlock;
  return true;
}

bool Scheduler::splitsTwoByteRows() {
  // As the printer's test: 4-element loads whose tile rows are not all
  // aligned split (TiledTranspose.cpp, printStaging).
  return llvm::any_of(staged, [&](Attribute attr) {
    auto load = cast<StagedLoadAttr>(attr);
    StridedTensorType type = load.getType();
    return load.getVectorWidth() == 4 && dtypeSize(*dtypeOf(type)) == 2 &&
           !tileRowsAligned(type, facts.iterationShape, transposeDim);
  });
}

void Scheduler::scheduleReduction() {
  const ReductionInfo &first = facts.reductions.front();
  ArrayRef<int64_t> inShape =
      cast<StridedTensorType>(first.input.getType()).getShape();
  int64_t m = product(facts.iterationShape), l = 1;
  for (int64_t d : first.dims)
    l *= inShape[d];
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
  if (inner ? scheduleSplitReduction(m, l, threads)
            : scheduleOuterSplit(m, l))
    return;
  int64_t groups = inner ? block / threads : 32; // outputs per block pass
  int64_t maxBlocks =
      int64_t(multiprocessors) * std::max<int64_t>(1, 2048 / block);
  if (inner)
    launch(gridSize(ceilDiv(m, groups), maxBlocks), block);
  else
    launch(gridSize(ceilDiv(m, groups), maxBlocks), 32, slices);
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
    scratch.push_back(count * accumulatorBytes(r.dtype));
}

/// An inner reduction to fewer outputs than fill the GPU with a block (or
/// group) each, e.g. a full sum: each output's reduced range is split over
/// `slices` blocks (about kSplitWaves waves of blocks in all), each block
/// reducing its slice with a tree (shuffles, then shared memory) into a
/// partial result in scratch; a second launch combines each output's
/// partials (and leaves the scratch zeroed).
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
  return options.vectorize && !inShape.empty() && inShape.back() % 4 == 0;
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
  ArrayRef<int64_t> dims = facts.reductions.front().dims;
  int64_t m = 1, l = 1;
  for (auto [d, size] : llvm::enumerate(facts.iterationShape))
    (llvm::is_contained(dims, static_cast<int64_t>(d)) ? l : m) *= size;
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
    launch(gridSize(m, multiprocessors * perMultiprocessor), threads,
           /*blockY=*/1, /*phase=*/-1, held.bytes);
    return;
  }
  int64_t block = threads > 32 ? threads : 256;
  // A cluster's blocks are consecutive in the grid, which holds whole
  // clusters.
  int64_t maxClusters =
      std::max<int64_t>(1, maxGridStrideBlocks(multiprocessors, block) /
                               clusterBlocks);
  launch(clusterBlocks * gridSize(ceilDiv(m, block / threads), maxClusters),
         block);
  if (clusterBlocks > 1 && kernel.getBodyBlock().getNumArguments() == 1 &&
      functionalOps() <= kMaxBoundedClusterRowOps)
    minBlocks = kResidentThreadsPerMultiprocessor / block;
}

bool Scheduler::useSegmentedIndexAdd() {
  auto add = dyn_cast<IndexAddOp>(facts.scatterRoot);
  if (!add)
    return false;
  DType dtype = *dtypeOf(kernel.getResult(0).getType());
  if (dtype == DType::I1 || dtype == DType::I8)
    return false;
  ArrayRef<int64_t> shape = facts.iterationShape;
  int64_t dim = add.getDim();
  auto srcType = cast<StridedTensorType>(add.getSrc().getType());
  int64_t rows = shape[dim], updates = srcType.getShape()[dim];
  if (rows == 0 || updates == 0 ||
      rows >= std::numeric_limits<int32_t>::max() ||
      updates >= std::numeric_limits<int32_t>::max())
    return false;
  // Rows of at least 32 elements: the index analysis (a few int accesses
  // per index element and per row) is small next to the rows it moves.
  // Deterministic float sums take this scheme whatever the rows.
  int64_t rowLength = product(shape) / rows;
  return rowLength >= 32 || (options.deterministic && isFloat(dtype));
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
  auto op = cast<IndexAddOp>(facts.scatterRoot);
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
  // A row's elements in units: aligned groups of 4 consecutive elements of
  // the innermost dim when vectorized (8 when the dim allows it, a group in
  // each half of the row), else one element.
  bool vector = options.vectorize && shape.back() % 4 == 0 &&
                dim + 1 < static_cast<int64_t>(shape.size());
  vectorWidth = vector ? 4 : 1;
  elementsPerThread = vector ? (shape.back() % 8 == 0 ? 8 : 4) : 1;
  // A block per row (or chunk) of whole warps, as few idle threads as may
  // be: 96 units take 96 threads, not 128.
  int64_t unitsPerRow = rowLength / elementsPerThread;
  threads = std::clamp<int64_t>(llvm::alignTo(unitsPerRow, 32), 32, 1024);
  int64_t accBytes = dtype == DType::F64 || dtype == DType::I64 ? 8 : 4;
  if (deterministic)
    scheduleSortedIndexAdd(rows, updates, rowLength, accBytes);
  else
    scheduleBucketedIndexAdd(rows, updates, rowLength, accBytes);
}

void Scheduler::scheduleSortedIndexAdd(int64_t rows, int64_t updates,
                                       int64_t rowLength, int64_t accBytes) {
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
  if (useSegmentedIndexAdd())
    return scheduleSegmentedIndexAdd();
  scheme = KernelScheme::Scatter;
  auto op = cast<IndexScatterOpInterface>(facts.scatterRoot);
  // scatter/scatter_add iterate over the index tensor, index_add over the
  // source.
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

/// A scan gives each row (the elements along its dim at one position of
/// the other dims) a warp when the row fits in one, else a block of up to
/// 1024 threads, the row's length rounded up to a power of two. The threads
/// scan the row a chunk of `threads` elements at a time (one element each,
/// so a row along the innermost dim is read and written coalesced) and
/// carry each chunk's total into the next. A warp row takes no block
/// barrier; 8 of them share a block.
void Scheduler::scheduleScan() {
  scheme = KernelScheme::RowScan;
  int64_t length = facts.iterationShape[CumsumOp(facts.scanRoot).getDim()];
  threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(length), 32, 1024);
  int64_t n = product(facts.iterationShape);
  if (n == 0)
    return;
  int64_t rows = n / length;
  int64_t block = threads == 32 ? kBlock : threads;
  launch(gridSize(ceilDiv(rows, block / threads),
                  maxGridStrideBlocks(multiprocessors, block)),
         block);
}

struct ScheduleKernelsPass
    : public impl::ScheduleKernelsBase<ScheduleKernelsPass> {
  using ScheduleKernelsBase::ScheduleKernelsBase;

  void runOnOperation() override {
    CudaTargetOptions schedule;
    schedule.arch = arch;
    schedule.multiprocessorCount = multiprocessors;
    schedule.vectorize = vectorize;
    schedule.deterministic = deterministic;
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      FailureOr<KernelScheduleAttr> attr = scheduleKernel(kernel, schedule);
      if (failed(attr))
        return WalkResult::interrupt();
      kernel->setAttr(KernelScheduleAttr::kAttrName, *attr);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

FailureOr<KernelScheduleAttr> scheduleKernel(KernelOp kernel,
                                             const CudaTargetOptions &options) {
  FailureOr<KernelFacts> facts = readKernelFacts(kernel, kernel.getSymName());
  if (failed(facts))
    return failure();
  if (options.deterministic && isa_and_nonnull<ScatterAddOp>(facts->scatterRoot) &&
      isFloat(*dtypeOf(kernel.getResult(0).getType()))) {
    InFlightDiagnostic diag = facts->scatterRoot->emitOpError()
                              << "has no deterministic form: its float "
                                 "additions run in an order that varies "
                                 "from run to run";
    diag.attachNote() << "--deterministic sums index_add in source order; "
                         "a scatter_add whose index selects whole rows is "
                         "an index_add";
    return failure();
  }
  return Scheduler(kernel, *facts, options).schedule();
}

} // namespace stride
