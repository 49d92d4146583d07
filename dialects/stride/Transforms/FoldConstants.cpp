//===- FoldConstants.cpp - Ops of constants computed at compile time ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-fold-constants (Passes.td): each functional op that reads only
// constants (through views) is computed by the reference interpreter
// (stride/Interpreter/Evaluate.h) and becomes a stride.constant of its
// result type, where the module does not grow by more than a bound.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "stride/Interpreter/Evaluate.h"
#include "stride/Support/Layout.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace stride {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The op whose buffer `value` reads: its defining op, through any chain
/// of views; null for a function argument.
Operation *bufferSource(Value value) {
  Operation *op = value.getDefiningOp();
  while (auto view = dyn_cast_if_present<ViewOpInterface>(op))
    op = view.getSource().getDefiningOp();
  return op;
}

/// The ops whose values are known without running the graph.
bool isConstantSource(Operation *op) {
  return isa_and_present<ConstantOp, FullOp, IotaOp>(op);
}

/// Bytes of `type`'s elements, one per logical element.
int64_t denseBytes(StridedTensorType type) {
  return type.getNumElements() * int64_t(dtypeSize(type.getDType()));
}

/// Bytes the module stores for `constant` (one element for a splat).
int64_t storedBytes(ConstantOp constant) {
  StridedTensorType type = constant.getResult().getType();
  if (constant.getValue().isSplat())
    return int64_t(dtypeSize(type.getDType()));
  return denseBytes(type);
}

/// Whether every read of `value`, through views, is by `reader`.
bool onlyReadBy(Value value, Operation *reader) {
  for (Operation *user : value.getUsers()) {
    if (user == reader)
      continue;
    if (!isa<ViewOpInterface>(user) || !onlyReadBy(user->getResult(0), reader))
      return false;
  }
  return true;
}

/// Whether `op` is a candidate: a functional op of the function's body,
/// without memory effects or regions, that computes something (a constant
/// source is already as small as it gets) of static sizes from constant
/// sources only.
bool readsOnlyConstants(Operation *op) {
  if (!isFunctional(op) || isConstantSource(op) || op->getNumRegions() != 0 ||
      op->getNumResults() != 1 || !isMemoryEffectFree(op) ||
      !isa<func::FuncOp>(op->getParentOp()))
    return false;
  // A value over symbolic sizes (constants broadcast over symbolic rows)
  // has no static elements to store.
  if (auto type = dyn_cast<StridedTensorType>(op->getResult(0).getType());
      type && type.isSymbolic())
    return false;
  return llvm::all_of(op->getOperands(), [](Value operand) {
    return isConstantSource(bufferSource(operand));
  });
}

/// The constant that `op`, a concatenation, holds verbatim as its first
/// piece, read through views that keep its dense layout, where other ops
/// read it too: after the fold they read that piece of the folded
/// constant (a slice), and the constant itself goes (a weight padded with
/// zero rows for the library that an embedding also reads: GPT-2's tied
/// LM head over symbolic tokens). Null otherwise.
ConstantOp sharedFirstPiece(Operation *op) {
  auto cat = dyn_cast<CatOp>(op);
  if (!cat)
    return {};
  Value first = cat.getInputs().front();
  auto constant = dyn_cast_if_present<ConstantOp>(bufferSource(first));
  if (!constant || constant.getValue().isSplat() ||
      onlyReadBy(constant.getResult(), op))
    return {};
  StridedTensorType type = constant.getResult().getType();
  Layout dense = StridedTensorType::getContiguous(type.getShape(),
                                                  type.getElementType())
                     .getLayout();
  ViewResult piece =
      inferSlice(cast<StridedTensorType>(cat.getType()).getLayout(),
                 cat.getDim(), 0, type.getShape()[cat.getDim()], 1);
  bool verbatim = type.getLayout() == dense &&
                  cast<StridedTensorType>(first.getType()).getLayout() == dense &&
                  piece.layout && *piece.layout == dense;
  return verbatim ? constant : ConstantOp();
}

/// How many bytes folding `op` adds to the module: its result's, less
/// those of the constants only it reads or that it holds as its first
/// piece (sharedFirstPiece).
int64_t growthOf(Operation *op) {
  int64_t growth = denseBytes(cast<StridedTensorType>(op->getResult(0).getType()));
  llvm::SmallPtrSet<Operation *, 4> counted;
  for (Value operand : op->getOperands()) {
    auto constant = dyn_cast<ConstantOp>(bufferSource(operand));
    if (constant && counted.insert(constant).second &&
        onlyReadBy(constant.getResult(), op))
      growth -= storedBytes(constant);
  }
  if (ConstantOp shared = sharedFirstPiece(op))
    growth -= storedBytes(shared);
  return growth;
}

/// The other readers of `shared`, the first piece of concatenation
/// `folded` along `dim`, read that piece of it.
void readFirstPiece(ConstantOp shared, Value folded, int64_t dim) {
  OpBuilder builder(folded.getContext());
  builder.setInsertionPointAfterValue(folded);
  StridedTensorType type = shared.getResult().getType();
  Value piece = SliceOp::create(builder, shared.getLoc(), type, folded, dim,
                                /*start=*/0, /*end=*/type.getShape()[dim],
                                /*step=*/1);
  shared.getResult().replaceAllUsesWith(piece);
}

/// Erases `ops` and the ops they read that nothing else reads any more.
/// Each op is erased once: an op read twice by one reader (`mul %c, %c`)
/// is in the set once, and only an op without uses is erased, so no op
/// left in the set has been erased.
void eraseDeadSources(llvm::SetVector<Operation *> ops) {
  while (!ops.empty()) {
    Operation *op = ops.pop_back_val();
    if (!op->use_empty() || !isMemoryEffectFree(op) ||
        op->hasTrait<OpTrait::IsTerminator>())
      continue;
    for (Value operand : op->getOperands())
      if (Operation *source = operand.getDefiningOp())
        ops.insert(source);
    op->erase();
  }
}

/// Replaces `op` by the constant of its values, and adds the ops it read
/// to `sources` (erased at the end of the pass where nothing reads them
/// any more: erasing them now would free ops the pass still visits);
/// false where the interpreter does not compute the values.
bool foldOp(Operation *op, llvm::SetVector<Operation *> &sources) {
  Value result = op->getResult(0);
  std::optional<HostArray> values = evaluateWithoutInputs(result);
  if (!values)
    return false;
  auto type = cast<StridedTensorType>(result.getType());
  DenseElementsAttr elements = elementsOf(*values, type.getElementType());
  ConstantOp shared = sharedFirstPiece(op);
  OpBuilder builder(op);
  Value constant = ConstantOp::create(builder, op->getLoc(), type, elements);
  result.replaceAllUsesWith(constant);
  if (shared) {
    // Before the constant's readers, which may precede the fold.
    constant.getDefiningOp()->moveBefore(shared);
    readFirstPiece(shared, constant, cast<CatOp>(op).getDim());
    sources.insert(shared);
  }
  for (Value operand : op->getOperands())
    if (Operation *source = operand.getDefiningOp())
      sources.insert(source);
  op->erase();
  return true;
}

struct FoldConstantsPass
    : stride::impl::FoldConstantsBase<FoldConstantsPass> {
  using FoldConstantsBase::FoldConstantsBase;

  void runOnOperation() override {
    // Program order: a chain's later ops see the earlier ones folded.
    SmallVector<Operation *> candidates;
    for (Operation &op : getOperation().getBody().getOps())
      candidates.push_back(&op);
    llvm::SetVector<Operation *> sources;
    for (Operation *op : candidates)
      if (!op->use_empty() && readsOnlyConstants(op) &&
          growthOf(op) <= maxGrowthBytes)
        foldOp(op, sources);
    eraseDeadSources(std::move(sources));
  }
};

} // namespace
