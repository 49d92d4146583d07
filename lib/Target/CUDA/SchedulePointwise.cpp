//===- SchedulePointwise.cpp - Schedules of pointwise kernels -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The pointwise form's schedule: a grid-stride loop, vectorized where the
// innermost dim holds whole groups of 4 and the kernel has few ops, or the
// tiled transpose, which stages through shared memory the inputs read
// across their unit stride. Part of the Scheduler (Scheduler.h).
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "dialects/stride/IR/IndexMaps.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "stride/Support/DType.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace stride::cuda {

namespace {

int64_t computeBytes(DType t) {
  switch (t) {
  case DType::F64:
  case DType::I64: return 8;
  case DType::I1:
  case DType::I8: return 1;
  default: return 4;
  }
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

} // namespace

void Scheduler::scheduleSymbolicPointwise() {
  // The grid-stride loop, 64-bit indices (the schedule's default), the
  // grid of the largest sizes, cut at run time to the elements there are;
  // vectorized (4 consecutive elements of the innermost dim a thread and
  // step) where the innermost size is a static multiple of 4 and the
  // elements one term (`rows*1024`: its quarter is `rows*256`), as a
  // static kernel is. Over symbolic rows of a bf16 LLaMA layer the
  // element-by-element form took 1.5-2 times the static kernels' time on
  // an H200 (bench/NOTES.md section 60). The tiled form stays static.
  SizeExpr elements = productOf(facts.symbolicShape);
  int64_t cap = maxGridStrideBlocks(multiprocessors, kBlock);
  std::optional<int64_t> innermost =
      facts.symbolicShape.empty() ? std::nullopt
                                  : facts.symbolicShape.back().getConstant();
  std::optional<SizeExpr> quads = SizeExpr::constant(4).dividedInto(elements);
  if (options.vectorize && innermost && *innermost % 4 == 0 && quads &&
      functionalOps() <= kMaxVectorizedOps) {
    scheme = KernelScheme::Vectorized;
    vectorWidth = 4;
    launchOver(*quads, kBlock,
               gridSize(ceilDiv(std::max<int64_t>(atLargest(*quads), 1),
                                kBlock),
                        cap),
               kBlock);
    return;
  }
  int64_t largestElements = atLargest(elements);
  launchOver(elements, kBlock,
             gridSize(ceilDiv(std::max<int64_t>(largestElements, 1), kBlock),
                      cap),
             kBlock);
}

void Scheduler::schedulePointwise() {
  if (facts.isSymbolic())
    return scheduleSymbolicPointwise();
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

} // namespace stride::cuda
