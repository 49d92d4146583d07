//===- TensorParallel.cpp - stride-tensor-parallel ------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Splits a graph for `world-size` ranks and keeps rank `rank`'s program
// (Passes.td, python-free-docs/distributed.md). The seeds
// (TensorParallelPatterns.cpp) are split first; then, in program order,
// every op with a split operand is split along the dim the split reaches
// (views map it, element-wise ops, cat and reductions keep it, attention
// splits heads), a product whose lhs is split along its contracted dim
// becomes row-parallel with an all-reduce, and a split value the function
// returns is all-gathered. A state argument (a KV cache) written by an index
// scatter with a value split along another dim than the scatter's is split
// along that dim too: the rank holds only its heads' cache, and writes back
// its block. Each rank's part of a dim of size S is the block
// [rank * S / N, (rank + 1) * S / N).
//
//===----------------------------------------------------------------------===//

#include "TensorParallel.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

namespace stride {
#define GEN_PASS_DEF_TENSORPARALLEL
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;
using namespace stride::tp;

namespace {

StridedTensorType typeOf(Value v) {
  return cast<StridedTensorType>(v.getType());
}

/// The rank's block of `elements` along `dim` (a splat stays a splat), or
/// null where they are not a dense array of whole bytes.
DenseElementsAttr denseBlock(Attribute elements, int64_t dim, int64_t parts,
                             int64_t rank) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(elements);
  if (!dense)
    return nullptr;
  auto type = cast<RankedTensorType>(dense.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= parts;
  auto partType = RankedTensorType::get(shape, type.getElementType());
  if (dense.isSplat())
    return dense.resizeSplat(partType);
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return nullptr;
  int64_t outer = 1, inner = bits / 8;
  for (int64_t d = 0; d < dim; ++d)
    outer *= type.getShape()[d];
  for (int64_t d = dim + 1; d < type.getRank(); ++d)
    inner *= type.getShape()[d];
  int64_t row = type.getShape()[dim] * inner, block = shape[dim] * inner;
  ArrayRef<char> raw = dense.getRawData();
  std::vector<char> part;
  part.reserve(outer * block);
  for (int64_t o = 0; o < outer; ++o) {
    const char *from = raw.data() + o * row + rank * block;
    part.insert(part.end(), from, from + block);
  }
  return DenseElementsAttr::getFromRawBuffer(partType, part);
}

class Splitter {
public:
  Splitter(func::FuncOp func, int64_t parts, int64_t rank)
      : func(func), parts(parts), rank(rank), b(func.getContext()) {}

  LogicalResult run();

private:
  func::FuncOp func;
  int64_t parts, rank;
  OpBuilder b;
  Seeds seeds;
  /// The dim each split value is split along (absent: every rank holds all
  /// of it).
  llvm::DenseMap<Value, int64_t> split;
  /// The product each split value's split comes from (for notes).
  llvm::DenseMap<Value, Operation *> origin;
  /// The LM heads: products whose split logits are all-gathered where the
  /// function returns them, or where an op needs the whole vocabulary.
  llvm::DenseSet<Operation *> lmHeads;
  /// The all-gather of each split value gathered so far (one per value).
  llvm::DenseMap<Value, Value> gathered;

  std::optional<int64_t> splitDim(Value v) const {
    auto it = split.find(v);
    return it == split.end() ? std::nullopt : std::optional(it->second);
  }
  /// `t` with `dim` divided by the world size. A dense layout keeps its
  /// dim order (an attention result laid out heads-inside-tokens stays so,
  /// and the view that merges its heads still needs no copy); any other
  /// becomes row-major.
  StridedTensorType dividedType(StridedTensorType t, int64_t dim) const {
    Layout layout = t.getLayout();
    layout.shape[dim] /= parts;
    layout.offset = 0;
    layout.strides =
        isDense(t.getShape(), t.getLayout().strides)
            ? denseStridesInOrder(layout.shape,
                                  dimOrderByStride(t.getLayout().strides))
            : rowMajorStrides(layout.shape);
    return StridedTensorType::get(t.getElementType(), layout);
  }
  void markSplit(Value v, int64_t dim, Operation *from) {
    split[v] = dim;
    origin[v] = from;
  }
  InFlightDiagnostic refuse(Operation *op, Value splitValue);

  LogicalResult checkDivisible(Operation *op, Value v, int64_t dim);
  Value partOf(Value v, int64_t dim);
  Value weightPart(Value v, int64_t dim);
  Value slicePart(Value v, int64_t dim);
  void replaceUsesAfter(Value v, Value with, Operation *except);

  LogicalResult splitOp(Operation *op);
  LogicalResult splitColumns(MatmulOp matmul);
  LogicalResult splitEmbedding(IndexSelectOp lookup);
  LogicalResult splitMatmul(MatmulOp matmul);
  LogicalResult splitView(ViewOpInterface view, int64_t dim);
  LogicalResult splitLike(Operation *op, int64_t dim, ValueRange operands);
  LogicalResult splitReduction(ReductionOpInterface op, int64_t dim);
  LogicalResult splitAttention(AttentionOp attention);
  LogicalResult splitIndexScatter(IndexScatterOpInterface scatter, int64_t dim);
  LogicalResult splitState(Operation *scatter, BlockArgument state, int64_t dim,
                           Value from);
  Value gatherBefore(Operation *op, Value v);
  LogicalResult checkWriteBack(func::ReturnOp ret, unsigned result,
                               BlockArgument state);
  LogicalResult gatherReturned(func::ReturnOp ret);
  void updateFunctionType();
};

InFlightDiagnostic Splitter::refuse(Operation *op, Value splitValue) {
  InFlightDiagnostic diag = op->emitOpError();
  if (Operation *from = origin.lookup(splitValue))
    diag.attachNote(from->getLoc())
        << "the split comes from this product, split across " << parts
        << " ranks";
  return diag;
}

LogicalResult Splitter::checkDivisible(Operation *op, Value v, int64_t dim) {
  int64_t size = typeOf(v).getShape()[dim];
  if (size % parts == 0)
    return success();
  return op->emitOpError() << "cannot split dim " << dim << " of size " << size
                           << " across " << parts
                           << " ranks: the tensor-parallel world size must "
                              "divide it";
}

/// Rank `rank`'s block of `v` along `dim`: a smaller expand of a
/// broadcast (of the block of what it expands where that dim is not
/// broadcast: a bias), the block of a weight, or a slice.
Value Splitter::partOf(Value v, int64_t dim) {
  if (auto expand = v.getDefiningOp<ExpandOp>()) {
    Value input = expand.getInput();
    int64_t at = dim - (typeOf(v).getRank() - typeOf(input).getRank());
    if (at >= 0 && typeOf(input).getShape()[at] != 1)
      input = partOf(input, at);
    SmallVector<int64_t> shape(typeOf(v).getShape());
    shape[dim] /= parts;
    ViewResult layout = inferExpand(typeOf(input).getLayout(), shape);
    return ExpandOp::create(
        b, expand.getLoc(),
        StridedTensorType::get(typeOf(input).getElementType(), *layout.layout),
        input);
  }
  if (weightRoot(v))
    return weightPart(v, dim);
  return slicePart(v, dim);
}

Value Splitter::slicePart(Value v, int64_t dim) {
  int64_t block = typeOf(v).getShape()[dim] / parts;
  ViewResult layout = inferSlice(typeOf(v).getLayout(), dim, rank * block,
                                 (rank + 1) * block, 1);
  return SliceOp::create(
      b, v.getLoc(),
      StridedTensorType::get(typeOf(v).getElementType(), *layout.layout), v,
      dim, rank * block, (rank + 1) * block, 1);
}

/// The block of a weight: the constant's block, with the permutes and
/// views between it and `v` rebuilt on it.
Value Splitter::weightPart(Value v, int64_t dim) {
  Operation *def = v.getDefiningOp();
  if (auto constant = dyn_cast<ConstantOp>(def)) {
    DenseElementsAttr part = denseBlock(constant.getValue(), dim, parts, rank);
    if (!part)
      return slicePart(v, dim);
    return ConstantOp::create(b, constant.getLoc(), dividedType(typeOf(v), dim),
                              part);
  }
  if (auto permute = dyn_cast<PermuteOp>(def)) {
    Value input = weightPart(permute.getInput(), permute.getDims()[dim]);
    ViewResult layout =
        inferPermute(typeOf(input).getLayout(), permute.getDims());
    return PermuteOp::create(
        b, permute.getLoc(),
        StridedTensorType::get(typeOf(v).getElementType(), *layout.layout),
        input, permute.getDims());
  }
  return slicePart(v, dim);
}

/// Uses of `v` other than `except` read `with` instead.
void Splitter::replaceUsesAfter(Value v, Value with, Operation *except) {
  v.replaceUsesWithIf(with,
                      [&](OpOperand &use) { return use.getOwner() != except; });
}

LogicalResult Splitter::splitColumns(MatmulOp matmul) {
  int64_t last = typeOf(matmul.getResult()).getRank() - 1;
  if (splitDim(matmul.getLhs()))
    return refuse(matmul, matmul.getLhs())
           << "is a column-parallel projection whose input is split";
  if (failed(checkDivisible(matmul, matmul.getResult(), last)))
    return failure();
  b.setInsertionPoint(matmul);
  Value weight = partOf(matmul.getRhs(), last);
  matmul.getRhsMutable().assign(weight);
  matmul.getResult().setType(dividedType(typeOf(matmul.getResult()), last));
  markSplit(matmul.getResult(), last, matmul);
  return success();
}

LogicalResult Splitter::splitEmbedding(IndexSelectOp lookup) {
  b.setInsertionPoint(lookup);
  Value table = partOf(lookup.getInput(), 1);
  lookup.getInputMutable().assign(table);
  Value rows = lookup.getResult();
  StridedTensorType full = typeOf(rows);
  rows.setType(dividedType(full, 1));
  b.setInsertionPointAfter(lookup);
  auto gather = AllGatherOp::create(b, lookup.getLoc(), full, rows, 1, parts);
  replaceUsesAfter(rows, gather.getResult(), gather);
  return success();
}

/// A product with a split operand: row-parallel (lhs split along the
/// contracted dim: each rank's partial product, then an all-reduce), or
/// split rows or batches.
LogicalResult Splitter::splitMatmul(MatmulOp matmul) {
  std::optional<int64_t> lhs = splitDim(matmul.getLhs());
  std::optional<int64_t> rhs = splitDim(matmul.getRhs());
  int64_t rank = typeOf(matmul.getResult()).getRank();
  b.setInsertionPoint(matmul);
  if (matmul.getBias() || matmul.getAddend())
    return refuse(matmul, lhs ? matmul.getLhs() : matmul.getRhs())
           << "has a bias or an addend: split products are formed before "
              "fusion adds one";
  if (lhs == rank - 1 && (!rhs || rhs == rank - 2)) {
    if (!rhs)
      matmul.getRhsMutable().assign(partOf(matmul.getRhs(), rank - 2));
    Value partial = matmul.getResult();
    b.setInsertionPointAfter(matmul);
    auto reduce = AllReduceOp::create(b, matmul.getLoc(), typeOf(partial),
                                      partial, CollectiveReduction::sum, parts);
    replaceUsesAfter(partial, reduce.getResult(), reduce);
    return success();
  }
  if (lhs && *lhs < rank - 1 && (!rhs || rhs == lhs)) {
    if (!rhs && *lhs < rank - 2)
      matmul.getRhsMutable().assign(partOf(matmul.getRhs(), *lhs));
    matmul.getResult().setType(dividedType(typeOf(matmul.getResult()), *lhs));
    markSplit(matmul.getResult(), *lhs, origin.lookup(matmul.getLhs()));
    return success();
  }
  if (!lhs && rhs == rank - 1) {
    matmul.getResult().setType(dividedType(typeOf(matmul.getResult()), *rhs));
    markSplit(matmul.getResult(), *rhs, origin.lookup(matmul.getRhs()));
    return success();
  }
  Value at = lhs ? matmul.getLhs() : matmul.getRhs();
  return refuse(matmul, at)
         << "cannot split a product whose lhs is split "
            "along dim "
         << (lhs ? std::to_string(*lhs) : "none") << " and rhs along dim "
         << (rhs ? std::to_string(*rhs) : "none");
}

/// The dim of a view's result that a split along `dim` of its operand (of
/// the rank's size already) becomes, or none where the split does not
/// survive the view.
std::optional<int64_t> viewDim(ViewOpInterface view, int64_t dim,
                               int64_t parts) {
  SmallVector<int64_t> in(view.getSource().getType().getShape());
  in[dim] *= parts;
  ArrayRef<int64_t> out =
      cast<StridedTensorType>(view->getResult(0).getType()).getShape();
  Operation *op = view.getOperation();
  if (auto permute = dyn_cast<PermuteOp>(op))
    return llvm::find(permute.getDims(), dim) - permute.getDims().begin();
  if (isa<ExpandOp>(op))
    return dim + (out.size() - in.size());
  if (auto unsqueeze = dyn_cast<UnsqueezeOp>(op))
    return dim < static_cast<int64_t>(unsqueeze.getDim()) ? dim : dim + 1;
  if (auto squeeze = dyn_cast<SqueezeOp>(op))
    return dim - llvm::count_if(squeeze.getDims(),
                                [&](int64_t d) { return d < dim; });
  if (auto slice = dyn_cast<SliceOp>(op))
    return static_cast<int64_t>(slice.getDim()) == dim ? std::nullopt
                                                       : std::optional(dim);
  if (auto select = dyn_cast<SelectOp>(op)) {
    const auto selected = static_cast<int64_t>(select.getDim());
    if (selected == dim)
      return std::nullopt;
    return dim > selected ? dim - 1 : dim;
  }
  if (!isa<ViewOp>(op))
    return std::nullopt;
  // A reshape: the result dim with the same elements outside it, whose
  // blocks of rows hold the ranks' blocks whole.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= in[d];
  for (size_t d = dim + 1; d < in.size(); ++d)
    inner *= in[d];
  int64_t block = in[dim] / parts * inner;
  int64_t before = 1;
  for (size_t j = 0; j < out.size(); ++j) {
    int64_t after = 1;
    for (size_t d = j + 1; d < out.size(); ++d)
      after *= out[d];
    if (before == outer && out[j] % parts == 0 && out[j] > 1 &&
        block % after == 0 && out[j] / parts * after == block)
      return j;
    before *= out[j];
  }
  return std::nullopt;
}

LogicalResult Splitter::splitView(ViewOpInterface view, int64_t dim) {
  Value result = view->getResult(0);
  std::optional<int64_t> to = viewDim(view, dim, parts);
  if (!to)
    return refuse(view, view.getSource())
           << "cannot keep the split of its operand's dim " << dim
           << " (each rank holds a block of it)";
  // The result type's shape first (views that take it from the type), then
  // the layout the view gives the split operand.
  StridedTensorType divided = dividedType(typeOf(result), *to);
  result.setType(divided);
  ViewResult layout =
      view.inferResultLayout(view.getSource().getType().getLayout());
  if (!layout)
    return refuse(view, view.getSource())
           << "cannot view the split operand: " << layout.error;
  result.setType(
      StridedTensorType::get(divided.getElementType(), *layout.layout));
  markSplit(result, *to, origin.lookup(view.getSource()));
  return success();
}

/// Element-wise ops and cat: every operand split along `dim` (the others
/// are cut to the rank's block), the result too.
LogicalResult Splitter::splitLike(Operation *op, int64_t dim,
                                  ValueRange operands) {
  Value from;
  for (Value operand : operands)
    if (splitDim(operand))
      from = operand;
  for (OpOperand &use : op->getOpOperands()) {
    std::optional<int64_t> at = splitDim(use.get());
    if (at && *at != dim)
      return refuse(op, use.get())
             << "has operands split along dims " << dim << " and " << *at;
    if (at)
      continue;
    b.setInsertionPoint(op);
    use.set(partOf(use.get(), dim));
  }
  Value result = op->getResult(0);
  result.setType(dividedType(typeOf(result), dim));
  markSplit(result, dim, origin.lookup(from));
  return success();
}

LogicalResult Splitter::splitReduction(ReductionOpInterface op, int64_t dim) {
  SmallVector<int64_t> reduced = op.getReducedDims();
  // The next token's argmax over the LM head's vocabulary reads the
  // logits the function returns gathered anyway.
  if (llvm::is_contained(reduced, dim) &&
      lmHeads.contains(origin.lookup(op.getInput()))) {
    op->setOperand(0, gatherBefore(op, op.getInput()));
    return success();
  }
  if (llvm::is_contained(reduced, dim))
    return refuse(op, op.getInput())
           << "reduces dim " << dim
           << ", which is split across the ranks (each holds a block)";
  Value result = op->getResult(0);
  bool keeps = typeOf(result).getRank() == op.getInput().getType().getRank();
  int64_t to =
      keeps ? dim
            : dim - llvm::count_if(reduced, [&](int64_t d) { return d < dim; });
  result.setType(dividedType(typeOf(result), to));
  markSplit(result, to, origin.lookup(op.getInput()));
  return success();
}

LogicalResult Splitter::splitAttention(AttentionOp attention) {
  for (Value operand :
       {attention.getQuery(), attention.getKey(), attention.getValue()})
    if (splitDim(operand) != 1)
      return refuse(attention, operand)
             << "needs its query, key and value split along the heads (dim "
                "1); the split projections reach only some of them";
  if (Value mask = attention.getMask(); mask && !splitDim(mask)) {
    b.setInsertionPoint(attention);
    attention.getMaskMutable().assign(partOf(mask, 1));
  }
  for (Value result : attention->getResults()) {
    result.setType(dividedType(typeOf(result), 1));
    markSplit(result, 1, origin.lookup(attention.getQuery()));
  }
  return success();
}

/// The state argument `v` is, or null.
BlockArgument stateArgument(func::FuncOp func, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &func.getBody().front() ||
      !func.getArgAttr(arg.getArgNumber(), StrideDialect::kStateAttrName))
    return {};
  return arg;
}

/// A write into a state (the value of a KV cache after this step's
/// position is written) split along `dim`, which is not the dim it writes
/// along: the state is split along `dim` too, its index cut to the rank's
/// block, and the rank writes only its block.
LogicalResult Splitter::splitIndexScatter(IndexScatterOpInterface scatter,
                                          int64_t dim) {
  Operation *op = scatter.getOperation();
  auto indexed = cast<IndexedOpInterface>(op);
  Value input = indexed.getInput(), src = scatter.getSrc();
  Value index = indexed.getIndex();
  Value from = splitDim(src) ? src : input;
  if (splitDim(index))
    return refuse(op, index) << "has a split index: only the tensor it "
                                "writes into and the value it writes can be "
                                "split";
  if (dim == indexed.getDim())
    return refuse(op, from) << "writes along dim " << dim
                            << ", which is split across the ranks (each "
                               "holds a block)";
  std::optional<int64_t> inputDim = splitDim(input), srcDim = splitDim(src);
  if (inputDim && srcDim && *inputDim != *srcDim)
    return refuse(op, src) << "has operands split along dims " << *inputDim
                           << " and " << *srcDim;
  if (!srcDim)
    return refuse(op, input)
           << "writes a value that is not split into a tensor split along dim "
           << dim
           << ": a split state is written from values split the same "
              "way (the key or value projection's heads)";
  int64_t size = typeOf(op->getResult(0)).getShape()[dim];
  if (!inputDim && typeOf(src).getShape()[dim] * parts != size)
    return refuse(op, src) << "writes a value split along dim " << dim
                           << " into a tensor of another size along it ("
                           << size
                           << "): each rank would write another "
                              "part of it";
  if (!scatter.isSliceIndex() &&
      typeOf(index).getShape()[dim] * (inputDim ? parts : 1) != size)
    return refuse(op, from)
           << "writes only part of dim " << dim << " (its index has size "
           << typeOf(index).getShape()[dim]
           << " there): the ranks' blocks need the whole dim";
  if (!inputDim) {
    BlockArgument state = stateArgument(func, input);
    if (!state)
      return refuse(op, src)
             << "writes a value split along dim " << dim
             << " into a tensor that is not a state: only a state argument "
                "(a KV cache) is split by what is written into it";
    if (failed(splitState(op, state, dim, src)))
      return failure();
  }
  if (!scatter.isSliceIndex()) {
    b.setInsertionPoint(op);
    indexed.getIndexMutable().assign(partOf(index, dim));
  }
  Value result = op->getResult(0);
  result.setType(dividedType(typeOf(result), dim));
  markSplit(result, dim, origin.lookup(from));
  return success();
}

/// The state argument `state` becomes the rank's block along `dim`: its
/// type and its initial value (sliced at compile time).
LogicalResult Splitter::splitState(Operation *scatter, BlockArgument state,
                                   int64_t dim, Value from) {
  unsigned index = state.getArgNumber();
  std::string name = argumentName(func, index);
  for (Operation *user : state.getUsers()) {
    if (user == scatter || !user->isBeforeInBlock(scatter))
      continue;
    InFlightDiagnostic diag =
        refuse(scatter, from)
        << "writes a value split along dim " << dim << " into state '" << name
        << "', which an earlier op reads whole: the state cannot be split";
    diag.attachNote(user->getLoc()) << "state '" << name << "' is read here";
    return diag;
  }
  if (failed(checkDivisible(scatter, state, dim)))
    return failure();
  Attribute initial = func.getArgAttr(index, StrideDialect::kStateAttrName);
  DenseElementsAttr block = denseBlock(initial, dim, parts, rank);
  if (!block)
    return refuse(scatter, from)
           << "writes into state '" << name
           << "', whose initial value is not a dense array of whole bytes "
              "that the pass can cut into the ranks' blocks";
  func.setArgAttr(index, StrideDialect::kStateAttrName, block);
  state.setType(dividedType(typeOf(state), dim));
  markSplit(state, dim, origin.lookup(from));
  return success();
}

/// The all-gather of the split value `v`, made before `op` the first time
/// it is asked for (every later use reads the same one).
Value Splitter::gatherBefore(Operation *op, Value v) {
  if (Value done = gathered.lookup(v))
    return done;
  int64_t dim = *splitDim(v);
  StridedTensorType part = typeOf(v);
  SmallVector<int64_t> shape(part.getShape());
  shape[dim] *= parts;
  auto full = StridedTensorType::getContiguous(shape, part.getElementType());
  b.setInsertionPoint(op);
  auto gather = AllGatherOp::create(b, op->getLoc(), full, v, dim, parts);
  gathered[v] = gather.getResult();
  return gather.getResult();
}

/// Result `result`, which writes `state` back, is split as the state is:
/// the rank writes back its block.
LogicalResult Splitter::checkWriteBack(func::ReturnOp ret, unsigned result,
                                       BlockArgument state) {
  Value value = ret.getOperand(result);
  std::optional<int64_t> valueDim = splitDim(value), stateDim = splitDim(state);
  if (valueDim == stateDim)
    return success();
  auto describe = [](std::optional<int64_t> dim) {
    return dim ? "split along dim " + std::to_string(*dim)
               : std::string("whole");
  };
  std::string name = argumentName(func, state.getArgNumber());
  return refuse(ret, valueDim ? value : Value(state))
         << "writes back state '" << name << "' (result #" << result
         << ") with a value that is " << describe(valueDim)
         << ", but the state is " << describe(stateDim)
         << ": a state is split only where what writes it is split the same "
            "way";
}

/// The function returns the unsplit values: split ones are gathered; a
/// state written back stays the rank's block.
LogicalResult Splitter::gatherReturned(func::ReturnOp ret) {
  for (OpOperand &use : ret->getOpOperands()) {
    unsigned result = use.getOperandNumber();
    if (auto writes = func.getResultAttrOfType<StringAttr>(
            result, StrideDialect::kWritesAttrName)) {
      BlockArgument state;
      for (BlockArgument arg : func.getArguments())
        if (argumentName(func, arg.getArgNumber()) == writes.getValue())
          state = arg;
      if (state && stateArgument(func, state)) {
        if (failed(checkWriteBack(ret, result, state)))
          return failure();
        continue;
      }
    }
    if (splitDim(use.get()))
      use.set(gatherBefore(ret, use.get()));
  }
  return success();
}

/// The function's type after its state arguments and written-back
/// results became the rank's blocks.
void Splitter::updateFunctionType() {
  Operation *ret = func.getBody().front().getTerminator();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getBody().getArgumentTypes(),
                                         ret->getOperandTypes()));
}

LogicalResult Splitter::splitOp(Operation *op) {
  if (seeds.columns.contains(op))
    return splitColumns(cast<MatmulOp>(op));
  if (seeds.embeddings.contains(op))
    return splitEmbedding(cast<IndexSelectOp>(op));
  if (collectiveWorldSize(op))
    return op->emitOpError() << "is a collective: stride-tensor-parallel "
                                "splits graphs that are not split yet";
  // The return gathers split values and checks the states written back
  // (a split state written back whole is refused there).
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return gatherReturned(ret);
  Value splitOperand;
  for (Value operand : op->getOperands())
    if (splitDim(operand))
      splitOperand = operand;
  auto matmul = dyn_cast<MatmulOp>(op);
  if (!splitOperand) {
    // The LM head: a product by a weight whose logits are returned.
    if (matmul && weightRoot(matmul.getRhs()) &&
        returnedThroughViews(matmul.getResult())) {
      lmHeads.insert(matmul);
      return splitColumns(matmul);
    }
    return success();
  }
  int64_t dim = *splitDim(splitOperand);
  if (auto view = dyn_cast<ViewOpInterface>(op))
    return splitView(view, dim);
  if (matmul)
    return splitMatmul(matmul);
  if (auto attention = dyn_cast<AttentionOp>(op))
    return splitAttention(attention);
  if (auto reduction = dyn_cast<ReductionOpInterface>(op))
    return splitReduction(reduction, dim);
  if (auto scatter = dyn_cast<IndexScatterOpInterface>(op))
    return splitIndexScatter(scatter, dim);
  if (op->hasTrait<Elementwise>())
    return splitLike(op, dim, op->getOperands());
  if (auto cat = dyn_cast<CatOp>(op)) {
    if (static_cast<int64_t>(cat.getDim()) == dim)
      return refuse(op, splitOperand)
             << "concatenates along dim " << dim
             << ", which is split across the ranks (a fused QKV "
                "projection's parts, or a KV cache split another way)";
    return splitLike(op, dim, cat.getInputs());
  }
  return refuse(op, splitOperand)
         << "cannot be split: its operand is split along dim " << dim
         << " across " << parts << " ranks";
}

LogicalResult Splitter::run() {
  FailureOr<Seeds> found = findSeeds(func, parts);
  if (failed(found))
    return failure();
  seeds = std::move(*found);
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(splitOp(op)))
      return failure();
  updateFunctionType();
  // The unsplit weights and the views of them that nothing reads now.
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isa<ConstantOp, ViewOpInterface>(op))
      op->erase();
  return success();
}

struct TensorParallelPass
    : public stride::impl::TensorParallelBase<TensorParallelPass> {
  using TensorParallelBase::TensorParallelBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (worldSize < 1 || rank < 0 || rank >= worldSize) {
      func.emitError() << "stride-tensor-parallel: rank "
                       << static_cast<int64_t>(rank) << " is not in [0, "
                       << static_cast<int64_t>(worldSize)
                       << "), the ranks of the world size";
      return signalPassFailure();
    }
    if (worldSize == 1 || func.isExternal())
      return;
    if (failed(Splitter(func, worldSize, rank).run()))
      signalPassFailure();
  }
};

} // namespace
