//===- KernelFacts.cpp - What the CUDA backend reads off a kernel --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "KernelFacts.h"

#include "dialects/stride/IR/SymbolicSizes.h"

#include "stride/Support/Layout.h"

#include "llvm/ADT/MapVector.h"

#include <functional>
#include <set>
#include <limits>

using namespace mlir;

namespace stride {

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool tileRowsAligned(StridedTensorType type, ArrayRef<int64_t> shape,
                     int64_t t) {
  if (shape[t] % 4 != 0 || type.getOffset() % 4 != 0)
    return false;
  for (auto [d, stride] : llvm::enumerate(type.getStrides()))
    if (static_cast<int64_t>(d) != t && shape[d] != 1 && stride % 4 != 0)
      return false;
  return true;
}

InFlightDiagnostic backendError(Operation *op, StringRef kernelName) {
  return op->emitError() << "cannot emit CUDA for kernel '" << kernelName
                         << "': ";
}

namespace {

ReduceKind reduceKindOf(ReductionOpInterface op) {
  switch (op.getCombiner()) {
  case ReductionCombiner::add:
    return op.isAverage() ? ReduceKind::Mean : ReduceKind::Sum;
  case ReductionCombiner::mul:
    return ReduceKind::Prod;
  case ReductionCombiner::max:
    return ReduceKind::Max;
  case ReductionCombiner::min:
    return ReduceKind::Min;
  case ReductionCombiner::logical_or:
    return ReduceKind::Any;
  case ReductionCombiner::argmax:
    return ReduceKind::ArgMax;
  case ReductionCombiner::argmin:
    return ReduceKind::ArgMin;
  }
  llvm_unreachable("unknown reduction combiner");
}

ReductionInfo reductionInfoOf(ReductionOpInterface op) {
  ReductionInfo info;
  info.op = op;
  info.kind = reduceKindOf(op);
  info.input = op.getInput();
  info.dtype = *dtypeOf(op->getResult(0).getType());
  info.dims = op.getReducedDims();
  info.keepdim = op.getKeepdim();
  return info;
}

/// The backend computes in the element types of DType only.
LogicalResult checkElementTypes(KernelOp kernel, StringRef name) {
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    for (Type t : op.getResultTypes())
      if (!dtypeOf(t))
        return backendError(&op, name) << "unsupported result type " << t;
  return success();
}

/// argmax's and argmin's packed key (CudaText.h, accumulatorType) holds a
/// 32-bit value order and a 32-bit index: inputs of f16, bf16, f32, i8 or
/// i32, rows of fewer than 2^32 - 1 elements.
LogicalResult checkArgReduction(const ReductionInfo &info, StringRef name) {
  auto input = cast<StridedTensorType>(info.input.getType());
  DType t = input.getDType();
  if (t == DType::F64 || t == DType::I64)
    return backendError(info.op, name)
           << "'stride." << info.op->getName().stripDialect()
           << "' of " << dtypeName(t)
           << " elements is not supported: its (value, index) accumulator "
              "packs a 32-bit value order (f16, bf16, f32, i8, i32 inputs)";
  // A symbolic length at its largest value.
  int64_t length =
      input.getSymbolicLayout()
          .shape[info.dims.front()]
          .evaluate(largestValues(enclosingSymbols(info.op)))
          .value_or(INT64_MAX);
  if (length >= int64_t(0xffffffff))
    return backendError(info.op, name)
           << "'stride." << info.op->getName().stripDialect() << "' over "
           << length << " elements is not supported: its (value, index) "
              "accumulator holds indices below 2^32 - 1";
  return success();
}

} // namespace

SizeExpr productOf(ArrayRef<SizeExpr> sizes) {
  SizeExpr n = SizeExpr::constant(1);
  for (const SizeExpr &size : sizes)
    n = *n.times(size);
  return n;
}

SizeExprs constantSizes(ArrayRef<int64_t> sizes) {
  SizeExprs constants;
  for (int64_t size : sizes)
    constants.push_back(SizeExpr::constant(size));
  return constants;
}

SizeExprs KernelFacts::iterationSizes() const {
  return isSymbolic() ? symbolicShape : constantSizes(iterationShape);
}

SizeExpr KernelFacts::rowCount() const {
  SizeExprs sizes = iterationSizes();
  if (!isRowForm())
    return productOf(sizes);
  SizeExprs kept;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (!llvm::is_contained(reductions.front().dims, static_cast<int64_t>(d)))
      kept.push_back(size);
  return productOf(kept);
}

SizeExpr KernelFacts::rowLength() const {
  const ReductionInfo &first = reductions.front();
  SizeExprs shape =
      cast<StridedTensorType>(first.input.getType()).getSymbolicLayout().shape;
  SizeExprs reduced;
  for (int64_t d : first.dims)
    reduced.push_back(shape[d]);
  return productOf(reduced);
}

std::vector<std::string> kernelSizeParameters(KernelOp kernel) {
  std::set<std::string> names;
  auto add = [&](Type type) {
    auto tensor = dyn_cast<StridedTensorType>(type);
    if (tensor && tensor.isSymbolic())
      for (const std::string &name : tensor.getSymbolicLayout().symbols())
        names.insert(name);
  };
  kernel.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      add(t);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type t : block.getArgumentTypes())
          add(t);
  });
  return {names.begin(), names.end()};
}

FailureOr<KernelFacts> readKernelFacts(KernelOp kernel, StringRef name) {
  // The kernel contract, with an error at the op that breaks it (the
  // pipeline's stride-verify-kernels has checked kernels it formed; this
  // also covers a function that did not come through it).
  FailureOr<KernelClass> kind = verifyKernel(kernel);
  if (failed(kind))
    return failure();
  if (failed(checkElementTypes(kernel, name)))
    return failure();
  KernelFacts facts;
  facts.form = kind->form;
  facts.iterationShape = kind->iterationShape;
  facts.sizeParameters = kernelSizeParameters(kernel);
  facts.rowOps = kind->rowOps;
  facts.rowResults = kind->rowResults;
  facts.productPrologue = kind->prologueOps;
  facts.prologueResults = kind->prologueResults;
  facts.productEpilogue = kind->productEpilogue;
  facts.scatters = kind->scatters;
  ValueRange yields = kernel.getYield().getValues();
  facts.yields.assign(yields.begin(), yields.end());
  // The iteration space: the shape of the yields not stored once per row.
  for (auto [i, yield] : llvm::enumerate(yields))
    if (facts.isSymbolic() && !llvm::is_contained(facts.rowResults, i)) {
      facts.symbolicShape =
          cast<StridedTensorType>(yield.getType()).getSymbolicLayout().shape;
      break;
    }
  for (Operation &op : kernel.getBodyBlock().without_terminator()) {
    if (auto reduction = dyn_cast<ReductionOpInterface>(op)) {
      facts.reductions.push_back(reductionInfoOf(reduction));
      if (isArgKind(facts.reductions.back().kind) &&
          failed(checkArgReduction(facts.reductions.back(), name)))
        return failure();
    }
    else if (auto scan = dyn_cast<CumsumOp>(op))
      facts.scanRoot = scan;
    else if (auto attention = dyn_cast<AttentionOp>(op))
      facts.attentionRoot = attention;
    else if (auto product = dyn_cast<MatmulOp>(op))
      facts.productRoot = product;
  }
  return facts;
}

int64_t sliceLength(int64_t length, int64_t slices, int64_t multiple) {
  return ceilDiv(ceilDiv(length, slices), multiple) * multiple;
}

/// Largest index any extent of the kernel may reach before 32-bit index
/// arithmetic is unsafe: leaves room for a grid-stride step (at most 2^24
/// threads) past the last element.
constexpr int64_t kMaxInt32Extent =
    std::numeric_limits<int32_t>::max() - (int64_t(1) << 24);

const RowSharedLayout::Held *RowSharedLayout::find(Value value) const {
  for (const Held &held : values)
    if (held.value == value)
      return &held;
  return nullptr;
}

/// Whether a later phase reads `op`'s result back from shared memory
/// rather than computing it again from its operands: a math function or a
/// division (softmax's exp: reading it back made softmax over bf16 rows of
/// 65,536 10% faster on an H100), not an op of an instruction or two
/// (LayerNorm's x - mean: storing it made LayerNorm's 7% slower than
/// computing it again; bench/NOTES.md section 40).
static bool isReadBackByLaterPhases(Operation *op) {
  return isa<ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, ErfOp, SigmoidOp, GeluOp,
             GeluTanhOp, SinOp, CosOp, PowOp, DivOp, TanOp, AsinOp, AcosOp,
             AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp, Expm1Op,
             Log1pOp, Log2Op, Log10Op, Atan2Op, FmodOp, RemainderOp>(op);
}

/// Each value a row's phases evaluate at the row element's own
/// coordinates: the first phase that does, and the last one that reads it
/// back (the same where none does). Like the printer's memo, a phase stops
/// at a value an earlier phase evaluated, but for a cheap op, which it
/// computes again from its operands (isReadBackByLaterPhases).
static llvm::MapVector<Value, std::pair<unsigned, unsigned>>
rowValuePhases(const KernelFacts &facts) {
  llvm::MapVector<Value, std::pair<unsigned, unsigned>> phases;
  // The last phase that computed each cheap op again: once per phase.
  llvm::DenseMap<Value, unsigned> recomputedIn;
  std::function<void(Value, unsigned)> visit = [&](Value value,
                                                   unsigned phase) {
    Operation *op = value.getDefiningOp();
    bool elementwise = op && op->hasTrait<Elementwise>() &&
                       op->getNumOperands() > 0 &&
                       !llvm::is_contained(facts.rowOps, op);
    if (!isa<BlockArgument>(value) && !elementwise)
      return; // a view (other coordinates), a reduction or a per-row value
    auto [it, first] = phases.try_emplace(value, phase, phase);
    if (!first) {
      if (it->second.first == phase)
        return; // evaluated by this phase already
      if (!elementwise || isReadBackByLaterPhases(op)) {
        it->second.second = std::max(it->second.second, phase);
        return;
      }
      // A cheap op, computed again from its operands, once a phase.
      auto [last, once] = recomputedIn.try_emplace(value, phase);
      if (!once && last->second == phase)
        return;
      last->second = phase;
    }
    if (elementwise)
      for (Value operand : op->getOperands())
        visit(operand, phase);
  };
  unsigned phase = 0;
  for (const ReductionInfo &r : facts.reductions)
    visit(r.input, phase++);
  for (Value yield : facts.yields)
    visit(yield, phase);
  return phases;
}

RowSharedLayout rowSharedLayout(const KernelFacts &facts, int64_t rowLength) {
  RowSharedLayout layout;
  // Each buffer: its offset, element bytes and the last phase reading it.
  struct Buffer {
    int64_t offset = 0, elementBytes = 0;
    unsigned lastPhase = 0;
  };
  SmallVector<Buffer> buffers;
  SmallVector<unsigned> bufferOf;
  for (auto [value, range] : rowValuePhases(facts)) {
    if (range.second == range.first)
      continue;
    auto size = static_cast<int64_t>(dtypeSize(*dtypeOf(value.getType())));
    // A buffer is free for this value once its last reader is the phase
    // that stores it, and only for elements of the same size: each thread
    // then reads its own elements before it stores over them. With another
    // size a thread's store would land on other threads' elements, not yet
    // read, with no barrier between them.
    auto free = llvm::find_if(buffers, [&](const Buffer &b) {
      return b.lastPhase <= range.first && b.elementBytes == size;
    });
    if (free == buffers.end())
      free = buffers.insert(buffers.end(), Buffer{0, size, 0});
    free->lastPhase = range.second;
    bufferOf.push_back(static_cast<unsigned>(free - buffers.begin()));
    layout.values.push_back({value, range.first, range.second, 0});
  }
  for (Buffer &b : buffers) {
    b.offset = layout.bytes;
    layout.elementBytes += b.elementBytes;
    layout.bytes += ceilDiv(rowLength * b.elementBytes, 16) * 16;
  }
  for (auto [held, buffer] : llvm::zip(layout.values, bufferOf))
    held.offset = buffers[buffer].offset;
  return layout;
}

bool needsWideIndices(KernelOp kernel) {
  int64_t largest = 0;
  auto consider = [&](Type t) {
    auto tensor = dyn_cast<StridedTensorType>(t);
    if (!tensor)
      return;
    // A symbolic size may reach the range's maximum: 64-bit indices, as
    // the symbolic kernels take (their static layout holds kDynamic).
    if (tensor.isSymbolic()) {
      largest = INT64_MAX;
      return;
    }
    Layout layout = tensor.getLayout();
    largest = std::max(largest,
                       checkedNumElements(layout.shape).value_or(INT64_MAX));
    largest = std::max(largest, storageExtent(layout).value_or(INT64_MAX));
    for (int64_t d : layout.shape)
      largest = std::max(largest, d);
  };
  for (Type t : kernel.getBodyBlock().getArgumentTypes())
    consider(t);
  for (Type t : kernel.getResultTypes())
    consider(t);
  kernel.getBodyBlock().walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      consider(t);
  });
  return largest > kMaxInt32Extent;
}

} // namespace stride
