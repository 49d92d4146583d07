//===- Schedule.cpp - How the CUDA backend runs each kernel --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every decision about how a kernel runs is made in the
// stride-schedule-kernels pass, from the IR alone: the scheme per kernel form,
// tiles, vector widths, index width, launches. python-free-docs/cuda-backend.md
// explains each scheme and the measurements behind the constants
// (bench/NOTES.md).
//
// This file holds the pass, the arch facts and launch helpers every form
// shares (Scheduler.h), the dispatch over kernel forms, the scan, split-KV
// attention and skinny product forms; the
// other forms are scheduled in SchedulePointwise.cpp (pointwise, tiled
// transpose), ScheduleReduction.cpp (reductions, row reductions) and
// ScheduleScatter.cpp (scatters, segmented index_add).
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "dialects/stride/Analysis/DecodeAttention.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace stride {
#define GEN_PASS_DEF_SCHEDULEKERNELS
#include "stride/Target/CUDA/Passes.h.inc"
} // namespace stride

using namespace mlir;

namespace stride {
namespace cuda {

namespace {
constexpr int64_t kKiB = 1024;
constexpr ArchFacts kArchFacts[] = {
    {"sm_75", 72, 64 * kKiB},    {"sm_80", 108, 164 * kKiB},
    {"sm_86", 84, 100 * kKiB},   {"sm_87", 16, 164 * kKiB},
    {"sm_89", 128, 100 * kKiB},  {"sm_90", 132, 228 * kKiB},
    {"sm_100", 148, 228 * kKiB}, {"sm_103", 148, 228 * kKiB},
    {"sm_110", 20, 228 * kKiB},  {"sm_120", 170, 100 * kKiB},
    {"sm_121", 48, 100 * kKiB}};
} // namespace

const ArchFacts &archFacts(StringRef arch) {
  for (const ArchFacts &facts : kArchFacts)
    if (arch == facts.name)
      return facts;
  return archFacts("sm_90");
}

/// The compute capability of `arch` ("sm_" + digits, perhaps a suffix) as
/// its number (90 for sm_90a), 0 where it is none.
static unsigned archVersion(StringRef arch) {
  unsigned version = 0;
  return arch.consume_front("sm_") && !arch.consumeInteger(10, version)
             ? version
             : 0;
}

bool hasThreadBlockClusters(StringRef arch) { return archVersion(arch) >= 90; }

bool hasAsyncCopies(StringRef arch) { return archVersion(arch) >= 80; }

int64_t maxGridStrideBlocks(int multiprocessors, int64_t block) {
  return int64_t(multiprocessors) *
         std::max<int64_t>(1, kGridStrideThreadsPerMultiprocessor / block);
}

int64_t gridSize(int64_t units, int64_t cap) {
  return std::max<int64_t>(1, std::min(units, cap));
}

SymbolValues Scheduler::largestSymbols() const {
  return largestValues(enclosingSymbols(kernel));
}

KernelScheduleAttr Scheduler::schedule() {
  switch (facts.form) {
  case KernelForm::Pointwise: schedulePointwise(); break;
  case KernelForm::Reduction: scheduleReduction(); break;
  case KernelForm::BroadcastReduction: scheduleRowReduction(); break;
  case KernelForm::IndexScatter: scheduleScatter(); break;
  case KernelForm::Scan: scheduleScan(); break;
  case KernelForm::Attention: scheduleAttention(); break;
  case KernelForm::SkinnyProduct: scheduleSkinnyProduct(); break;
  }
  MLIRContext *context = builder.getContext();
  return KernelScheduleAttr::get(
      context, scheme, needsWideIndices(kernel) ? 64 : 32, vectorWidth, threads,
      slices, elementsPerThread, clusterBlocks, minBlocks, tile, transposeDim,
      staged.empty() ? ArrayAttr() : builder.getArrayAttr(staged),
      builder.getArrayAttr(launches),
      scratch.empty() ? DenseI64ArrayAttr()
                      : builder.getDenseI64ArrayAttr(scratch),
      deterministic, columnCombine, bucket, pages, hashEntries,
      IndexAnalysis::Own,
      outputOrder.empty() ? DenseI64ArrayAttr()
                          : builder.getDenseI64ArrayAttr(outputOrder),
      columnWarps);
}

/// A scan gives each row (the elements along its dim at one position of
/// the other dims) a warp when the row fits in one, else a block of up to
/// 1024 threads, the row's length rounded up to a power of two. The threads
/// scan the row a chunk of `threads` elements at a time (one element each,
/// so a row along the innermost dim is read and written coalesced) and
/// carry each chunk's total into the next; a row of at most
/// kMaxHeldScanChunks chunks and a known length is loaded whole first
/// (`elements_per_thread` chunks). A warp row takes no block
/// barrier; 8 of them share a block. Over symbolic sizes the threads are
/// chosen for the row's largest length (the chunk loop runs to the length
/// at run time) and the grid for the largest row count, cut at run time to
/// the rows there are.
void Scheduler::scheduleScan() {
  scheme = KernelScheme::RowScan;
  SizeExprs shape = facts.iterationSizes();
  int64_t dim = CumsumOp(facts.scanRoot).getDim();
  int64_t length = atLargest(shape[dim]);
  threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(length), 32, 1024);
  if (atLargest(productOf(shape)) == 0)
    return;
  // A row of a few chunks of known length is held in registers, loaded
  // whole before it is scanned: one memory latency for the row, not one
  // per chunk (an embedding bag's cumsum over its 4,000 positions).
  int64_t chunks = ceilDiv(length, threads);
  if (shape[dim].isConstant() && chunks > 1 && chunks <= kMaxHeldScanChunks)
    elementsPerThread = chunks;
  SizeExprs rowShape(shape);
  rowShape[dim] = SizeExpr::constant(1);
  SizeExpr rows = productOf(rowShape);
  int64_t block = threads == 32 ? kBlock : threads;
  int64_t rowsPerBlock = block / threads;
  launchUnits(rows, rowsPerBlock,
              gridSize(ceilDiv(atLargest(rows), rowsPerBlock),
                       maxGridStrideBlocks(multiprocessors, block)),
              block);
}

/// Split-KV attention (python-free-docs/attention.md, "Decode attention"):
/// a block of kSplitKvThreads threads per unit (a query row of a key/value
/// head, with the query heads that read it) and slice of the keys. A warp
/// step takes 32 keys, a key a lane: the lane reads its key's whole row,
/// `vector_width` elements per load (splitKvKeyWidth), and scores it for
/// every row alone; then each lane takes `tile` consecutive value dims of
/// every 32 * `tile` (splitKvValueWidth) of the step's keys' values,
/// `elements_per_thread` keys' values loaded before any is used. The
/// slices fill the GPU, about kSplitKvBlocksPerMultiprocessor blocks per
/// multiprocessor in all, each at least kMinSplitKvKeys keys and a whole
/// number of every warp's steps. With more than one, on sm_90 and later a
/// unit's slices are one thread-block cluster (at most
/// kMaxSplitKvClusterBlocks) that combines their partial states through
/// distributed shared memory, in the one launch; below sm_90 a second
/// launch combines them from scratch.
void Scheduler::scheduleAttention() {
  // The staged scheme where the target asks for it, or for the variant
  // stride-attention-library made for it (stride.staged_kv).
  bool staged = options.stagedKvAttention ||
                facts.attentionRoot->hasAttr(StrideDialect::kStagedKvAttrName);
  if (staged && hasAsyncCopies(options.arch) &&
      stagedDecodeTakes(facts.attentionRoot))
    return scheduleStagedAttention();
  scheme = KernelScheme::SplitKvAttention;
  bool cluster = hasThreadBlockClusters(options.arch);
  threads = cluster ? kSplitKvClusterThreads : kSplitKvThreads;
  AttentionOp op = facts.attentionRoot;
  ArrayRef<int64_t> key = op.getKey().getType().getShape();
  ArrayRef<int64_t> query = op.getQuery().getType().getShape();
  int64_t valueDim = op.getValue().getType().getShape()[3];
  int64_t units = query[0] * key[1] * query[2];
  vectorWidth = splitKvKeyWidth(op);
  tile = splitKvValueWidth(op);
  int64_t valueBytesPerKey =
      ceilDiv(valueDim, 32 * tile) * tile *
      static_cast<int64_t>(dtypeSize(op.getValue().getType().getDType()));
  elementsPerThread = 32;
  while (elementsPerThread > 1 &&
         elementsPerThread * valueBytesPerKey > kMaxSplitKvValueBytes)
    elementsPerThread /= 2;
  // The slices count on that many resident blocks: the registers are
  // bounded so that they fit. A cluster's blocks are few (at most
  // kMaxSplitKvClusterBlocks a unit): one a multiprocessor.
  minBlocks = cluster ? 1 : kSplitKvBlocksPerMultiprocessor;
  if (product(facts.iterationShape) == 0)
    return;
  int64_t blockStepKeys = threads / 32 * kSplitKvStepKeys;
  slices = std::clamp<int64_t>(
      ceilDiv(kSplitKvBlocksPerMultiprocessor * multiprocessors, units), 1,
      std::clamp<int64_t>(key[2] / std::max(kMinSplitKvKeys, blockStepKeys), 1,
                          kMaxSplitKvSlices));
  if (cluster)
    slices = std::min(slices, kMaxSplitKvClusterBlocks);
  // Slices of whole steps: none left empty.
  slices = ceilDiv(key[2], sliceLength(key[2], slices, kSplitKvStepKeys));
  if (slices == 1 || cluster) {
    clusterBlocks = slices;
    launch(units * slices, threads);
    return;
  }
  launch(units * slices, threads, 1, 1);
  int64_t rows = query[1] / key[1];
  scratch.push_back(units * rows * slices * (valueDim + 2) *
                    static_cast<int64_t>(sizeof(float)));
  launch(units * rows, threads, 1, /*phase=*/2);
}

/// Whether a staged decode attention's chunks run on the tensor cores
/// (scheme staged_kv_mma_attention, mma.m16n8k16 fed by ldmatrix): the
/// unit's rows as A's 16 rows (at most 16), head dims of whole k steps of
/// 16, each warp's share of a chunk's keys and of the value dims whole
/// pairs of tiles of 8, the query of the key's element type. On an H200
/// the kernel took 9.11 / 12.96 us against 10.42 / 15.27 on the CUDA cores
/// at positions 1024 / 4000 (bench/NOTES.md section 80).
static bool stagedTakesTensorCores(AttentionOp op) {
  ArrayRef<int64_t> key = op.getKey().getType().getShape();
  ArrayRef<int64_t> query = op.getQuery().getType().getShape();
  int64_t valueDim = op.getValue().getType().getShape()[3];
  int64_t warps = kStagedKvThreads / 32;
  return query[1] / key[1] <= 16 && query[3] % 16 == 0 &&
         kStagedKvChunkKeys % (16 * warps) == 0 &&
         valueDim % (16 * warps) == 0 &&
         op.getQuery().getType().getDType() == op.getKey().getType().getDType();
}

/// Staged decode attention (python-free-docs/attention.md, "Decode
/// attention"): up to kStagedKvSlices blocks of kStagedKvThreads threads per
/// unit share its valid keys equally at run time, at least a chunk each,
/// each copying its keys' and
/// values' rows in chunks of at most kStagedKvChunkKeys through dynamic
/// shared memory (the key rows padded by 8 elements, so that 16-byte reads
/// of 8 threads' rows meet no bank twice), kStagedKvBuffers chunks in
/// flight. Scratch: each block's partial state per row (m, l, padding to
/// kStagedKvStateHeader floats, then the value dims' sums) and an arrival
/// counter per unit.
void Scheduler::scheduleStagedAttention() {
  AttentionOp op = facts.attentionRoot;
  ArrayRef<int64_t> key = op.getKey().getType().getShape();
  ArrayRef<int64_t> query = op.getQuery().getType().getShape();
  int64_t valueDim = op.getValue().getType().getShape()[3];
  int64_t units = query[0] * key[1] * query[2], rows = query[1] / key[1];
  bool tensorCores = options.stagedKvTensorCores && stagedTakesTensorCores(op);
  scheme = tensorCores ? KernelScheme::StagedKvMmaAttention
                       : KernelScheme::StagedKvAttention;
  threads = kStagedKvThreads;
  slices = kStagedKvSlices;
  tile = kStagedKvChunkKeys;
  elementsPerThread = kStagedKvBuffers;
  vectorWidth = 8; // 16 bytes of 2-byte elements a copy
  minBlocks = 1;   // __launch_bounds__ of its own block size
  if (product(facts.iterationShape) == 0)
    return;
  int64_t elementBytes = 2;
  int64_t shared = kStagedKvBuffers * kStagedKvChunkKeys *
                   (query[3] + 8 + stagedValuePitch(valueDim, tensorCores)) *
                   elementBytes;
  launch(units * slices, threads, /*blockY=*/1, /*phase=*/-1, shared);
  scratch.push_back(units * slices * rows * (kStagedKvStateHeader + valueDim) *
                    static_cast<int64_t>(sizeof(float)));
  scratch.push_back(units * static_cast<int64_t>(sizeof(unsigned)));
}

/// The widest loads of 16 bytes or less, a power of two elements, that
/// `type` allows, the head dim covered by `lanes` lanes' loads exactly.
static int64_t widestLoad(StridedTensorType type, int64_t lanes) {
  for (int64_t width = 16 / static_cast<int64_t>(dtypeSize(type.getDType()));
       width > 1; width /= 2)
    if (type.getShape()[3] % (lanes * width) == 0 &&
        readsRowVectorsOf(type, width))
      return width;
  return 1;
}

int64_t Scheduler::splitKvKeyWidth(AttentionOp op) {
  return widestLoad(op.getKey().getType(), 1);
}

int64_t Scheduler::splitKvValueWidth(AttentionOp op) {
  return widestLoad(op.getValue().getType(), 32);
}

/// The skinny product (python-free-docs/matmul.md, "Skinny products"): a
/// warp per `tile` adjacent columns (output features; with an epilogue, at
/// each column offset it reads), blocks of kSkinnyThreads, or a block per
/// column group where skinnyColumnWarps gives it all the block's warps
/// (each every kSkinnyColumnWarps-th step of the rows); where the warps number
/// at most half of kSkinnyWarpsPerMultiprocessor per multiprocessor, K is split
/// into `slices` (as many as bring them to that count, each at least
/// kMinSkinnySliceBytes of a weight row), whose partial sums a second
/// launch adds in slice order.
void Scheduler::scheduleSkinnyProduct() {
  scheme = KernelScheme::SkinnyMatmul;
  threads = kSkinnyThreads;
  MatmulOp op = facts.productRoot;
  ArrayRef<int64_t> lhs = op.getLhs().getType().getShape();
  int64_t rows = lhs[0], depth = lhs[1],
          columns = op.getResult().getType().getShape()[1];
  vectorWidth = skinnyVectorWidth(op);
  // With an epilogue, a warp takes its columns at each column offset the
  // epilogue reads, as many in all as it would take of the product's.
  const SkinnyEpilogue &epilogue = facts.productEpilogue;
  int64_t offsets =
      epilogue.empty() ? 1 : static_cast<int64_t>(epilogue.columnOffsets().size());
  int64_t outColumns = epilogue.empty() ? columns : epilogue.columns;
  tile = std::max<int64_t>(1, skinnyColumnsPerWarp(rows, columns) / offsets);
  elementsPerThread = vectorWidth * skinnyLoadsPerLane(rows, columns);
  if (rows * columns == 0)
    return;
  columnWarps = skinnyColumnWarps(rows, depth);
  int64_t groups = ceilDiv(outColumns, tile),
          groupsPerBlock = threads / 32 / columnWarps;
  int64_t elementBytes =
      static_cast<int64_t>(dtypeSize(op.getLhs().getType().getDType()));
  slices = std::clamp<int64_t>(
      kSkinnyWarpsPerMultiprocessor * multiprocessors / (groups * columnWarps),
      1, std::max<int64_t>(1, depth * elementBytes / kMinSkinnySliceBytes));
  // Slices of whole vectors: none left empty.
  slices = ceilDiv(depth, sliceLength(depth, slices, vectorWidth));
  if (!facts.productPrologue.empty())
    scheduleStagedSkinnyProduct(rows, depth, groups, elementBytes);
  else
    launch(ceilDiv(groups, groupsPerBlock) * slices, threads, 1,
           slices > 1 ? 1 : -1);
  if (slices == 1)
    return;
  scratch.push_back(slices * rows * columns *
                    static_cast<int64_t>(sizeof(float)));
  launch(ceilDiv(rows * outColumns, threads), threads, 1, /*phase=*/2);
}

void Scheduler::scheduleStagedSkinnyProduct(int64_t rows, int64_t depth,
                                            int64_t groups,
                                            int64_t elementBytes) {
  threads = kSkinnyStagedThreads;
  // Within what a block of the arch may take.
  int64_t maxStageBytes = std::min(
      kMaxSkinnyStageBytes, archFacts(options.arch).sharedBytesPerMultiprocessor -
                                kSharedBytesReservedPerBlock);
  auto stageBytes = [&] {
    return rows * sliceLength(depth, slices, vectorWidth) * elementBytes;
  };
  while (stageBytes() > maxStageBytes &&
         sliceLength(depth, slices, vectorWidth) > vectorWidth)
    ++slices;
  slices = ceilDiv(depth, sliceLength(depth, slices, vectorWidth));
  int64_t blocks =
      std::min(ceilDiv(groups, threads / 32), int64_t(multiprocessors));
  launch(blocks * slices, threads, 1, slices > 1 ? 1 : -1, stageBytes());
}

int64_t Scheduler::skinnyColumnsPerWarp(int64_t rows, int64_t columns) {
  if (rows > kMaxSkinnyPairedRows)
    return 1;
  if (options.skinnyColumnsPerWarp > 0)
    return options.skinnyColumnsPerWarp;
  if (rows > 1)
    return kSkinnyColumnsPerWarp;
  return columns >= kWideSkinnyColumns ? kWideSkinnyColumnsPerWarp : 1;
}

int64_t Scheduler::skinnyColumnWarps(int64_t rows, int64_t depth) {
  if (!facts.productPrologue.empty())
    return 1;
  if (options.skinnyColumnWarps > 0)
    return options.skinnyColumnWarps;
  bool deep =
      depth >= kSkinnyColumnWarps * kMinColumnWarpSteps * 32 * vectorWidth;
  return rows == 1 && tile == 1 && deep ? kSkinnyColumnWarps : 1;
}

int64_t Scheduler::skinnyLoadsPerLane(int64_t rows, int64_t columns) {
  if (options.skinnyLoadsPerLane > 0)
    return options.skinnyLoadsPerLane;
  return rows == 1 && columns >= kWideSkinnyColumns ? kWideSkinnyLoadsPerLane
                                                    : kSkinnyLoadsPerLane;
}

/// A layout the skinny product reads in groups of consecutive elements
/// along `dim` (the weight along its dim 0, the activations along their
/// last dim), each group starting at a multiple of the group's size.
struct GroupRead {
  StridedTensorType type;
  size_t dim;
};

/// Whether every group of `width` elements of `read` is aligned: the
/// offset and the strides of the other dims (of size > 1: the stride of a
/// dim of size 1 is never used) are multiples of it.
static bool startsGroupsAligned(const GroupRead &read, int64_t width) {
  ArrayRef<int64_t> shape = read.type.getShape(),
                    strides = read.type.getStrides();
  for (size_t d = 0; d < shape.size(); ++d)
    if (d != read.dim && shape[d] > 1 && strides[d] % width != 0)
      return false;
  return read.type.getOffset() % width == 0;
}

/// The layouts the skinny product reads in groups along K: the weight,
/// and the activations, or, with a prologue, each kernel input the
/// prologue reads with innermost stride 1.
static SmallVector<GroupRead> skinnyGroupReads(MatmulOp op,
                                               ArrayRef<Operation *> prologue) {
  SmallVector<GroupRead> reads{{op.getRhs().getType(), 0}};
  if (prologue.empty())
    reads.push_back({op.getLhs().getType(), 1});
  for (Operation *member : prologue)
    for (Value operand : member->getOperands()) {
      auto type = cast<StridedTensorType>(operand.getType());
      if (isa<BlockArgument>(viewChainBase(operand)) && type.getRank() > 0 &&
          type.getStrides().back() == 1)
        reads.push_back({type, static_cast<size_t>(type.getRank() - 1)});
    }
  return reads;
}

int64_t Scheduler::skinnyVectorWidth(MatmulOp op) {
  SmallVector<GroupRead> reads = skinnyGroupReads(op, facts.productPrologue);
  for (int64_t width = 16 / static_cast<int64_t>(dtypeSize(
                                op.getLhs().getType().getDType()));
       width > 1; width /= 2)
    if (llvm::all_of(reads, [&](const GroupRead &read) {
          return startsGroupsAligned(read, width);
        }))
      return width;
  return 1;
}

} // namespace cuda

int defaultMultiprocessors(StringRef arch) {
  return cuda::archFacts(arch).multiprocessors;
}

int multiprocessorsFor(StringRef arch, int count) {
  return count > 0 ? count : defaultMultiprocessors(arch);
}

KernelScheduleAttr getSchedule(KernelOp kernel) {
  return kernel->getAttrOfType<KernelScheduleAttr>(
      KernelScheduleAttr::kAttrName);
}

namespace {

/// Whether `value` is a constant of the module: a stride.constant, or what
/// a kernel yields straight from one (a kernel stride-place-constants
/// turns into a plan.constant, never dispatched), through views.
bool isModuleConstant(Value value) {
  while (auto view = value.getDefiningOp<ViewOpInterface>())
    value = view.getSource();
  if (value.getDefiningOp<ConstantOp>())
    return true;
  auto producer = value.getDefiningOp<KernelOp>();
  if (!producer)
    return false;
  Value yielded = producer.getBodyBlock().getTerminator()->getOperand(
      cast<OpResult>(value).getResultNumber());
  return yielded.getDefiningOp<ConstantOp>() != nullptr;
}

/// Whether every element a broadcast-reduction kernel reads of `input`
/// (one of its body's arguments), through views, is the same in every row:
/// each computing op reads it at the iteration shape with stride 0 (or
/// extent 1) along every dim the rows run over (a norm's weight or bias).
bool readAlikeInEveryRow(Value input, const KernelFacts &facts) {
  ArrayRef<int64_t> reduced = facts.reductions.front().dims;
  SmallVector<Value> pending = {input};
  while (!pending.empty()) {
    Value value = pending.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto view = dyn_cast<ViewOpInterface>(user)) {
        pending.push_back(view->getResult(0));
        continue;
      }
      auto type = cast<StridedTensorType>(value.getType());
      if (type.isSymbolic() ||
          type.getShape() != ArrayRef(facts.iterationShape))
        return false;
      for (auto [d, stride] : llvm::enumerate(type.getStrides()))
        if (!llvm::is_contained(reduced, int64_t(d)) && stride != 0 &&
            type.getShape()[d] != 1)
          return false;
    }
  }
  return true;
}

/// Records which constants of the module a kernel reads before it waits
/// for the grid ahead: a skinny product's weight, whose first lines it may
/// fetch into L2 (kReadOnlyInputsAttrName), and what a row_registers
/// kernel reads alike in every row of a module constant (a norm's weight:
/// such inputs, and the dense constants in its body, kPreloadAttrName),
/// which it loads into registers there (bench/NOTES.md section 80: 0.7 us
/// a norm on an H200).
void markReadsBeforeWait(KernelOp kernel) {
  KernelScheduleAttr schedule = getSchedule(kernel);
  std::optional<KernelFacts> facts;
  if (schedule.getScheme() == KernelScheme::RowRegisters) {
    FailureOr<KernelFacts> read = readKernelFacts(kernel, kernel.getSymName());
    if (failed(read) || read->reductions.empty() || read->isSymbolic())
      return;
    facts = std::move(*read);
    for (auto constant : kernel.getBodyBlock().getOps<ConstantOp>())
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
          dense && !dense.isSplat() &&
          readAlikeInEveryRow(constant.getResult(), *facts))
        constant->setAttr(kPreloadAttrName, UnitAttr::get(kernel.getContext()));
  } else if (schedule.getScheme() != KernelScheme::SkinnyMatmul) {
    return;
  }
  SmallVector<int64_t> constants;
  for (auto [i, input] : llvm::enumerate(kernel.getInputs()))
    if (isModuleConstant(input) &&
        (!facts ||
         readAlikeInEveryRow(kernel.getBodyBlock().getArgument(i), *facts)))
      constants.push_back(static_cast<int64_t>(i));
  if (!constants.empty())
    kernel->setAttr(kReadOnlyInputsAttrName,
                    DenseI64ArrayAttr::get(kernel.getContext(), constants));
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
    schedule.skinnyColumnsPerWarp = skinnyColumnsPerWarp;
    schedule.skinnyLoadsPerLane = skinnyLoadsPerLane;
    schedule.skinnyColumnWarps = skinnyColumnWarps;
    schedule.stagedKvAttention = stagedKvAttention;
    schedule.stagedKvTensorCores = stagedKvTensorCores;
    WalkResult result = getOperation().walk([&](KernelOp kernel) {
      FailureOr<KernelScheduleAttr> attr = scheduleKernel(kernel, schedule);
      if (failed(attr))
        return WalkResult::interrupt();
      kernel->setAttr(KernelScheduleAttr::kAttrName, *attr);
      markReadsBeforeWait(kernel);
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
  auto floatScatterAdd = llvm::find_if(
      facts->scatters, [](IndexScatterOpInterface scatter) {
        return isa<ScatterAddOp>(scatter) &&
               isFloat(*dtypeOf(scatter->getResult(0).getType()));
      });
  if (options.deterministic && floatScatterAdd != facts->scatters.end()) {
    InFlightDiagnostic diag = (*floatScatterAdd)->emitOpError()
                              << "has no deterministic form: its float "
                                 "additions run in an order that varies "
                                 "from run to run";
    diag.attachNote() << "--deterministic sums index_add in source order; "
                         "a scatter_add whose index selects whole rows is "
                         "an index_add";
    return failure();
  }
  return cuda::Scheduler(kernel, *facts, options).schedule();
}

} // namespace stride
