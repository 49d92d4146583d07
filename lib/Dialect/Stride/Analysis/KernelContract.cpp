//===- KernelContract.cpp - What a stride.kernel may hold -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Dialect/Stride/Analysis/KernelContract.h"
#include "stride/Dialect/Stride/IR/Graph.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace stride;

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

bool stride::isMaskScatterOp(Operation *op) {
  return isa<SliceScatterOp, SelectScatterOp>(op);
}

bool stride::isPointwiseLikeOp(Operation *op) {
  return isFunctional(op) && !isa<ReductionOpInterface>(op) &&
         !isa<IndexScatterOpInterface>(op);
}

bool stride::isReplicableLeafOp(Operation *op) {
  return isa<FullOp, IotaOp>(op);
}

bool stride::isIdentityOperand(OpOperand &operand) {
  Operation *owner = operand.getOwner();
  if (owner->hasTrait<Elementwise>())
    return true;
  if (auto scatter = dyn_cast<SliceScatterOp>(owner))
    return &operand == &scatter.getInputMutable();
  if (auto scatter = dyn_cast<SelectScatterOp>(owner))
    return &operand == &scatter.getInputMutable();
  if (auto gather = dyn_cast<GatherOp>(owner))
    return &operand == &gather.getIndexMutable();
  return false;
}

Value stride::viewChainBase(Value value, SmallVectorImpl<Operation *> *chain) {
  if (chain)
    chain->clear();
  while (auto view = value.getDefiningOp<ViewOpInterface>()) {
    if (chain)
      chain->push_back(view);
    value = view.getSource();
  }
  if (chain)
    std::reverse(chain->begin(), chain->end());
  return value;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<StridedTensorType>(value.getType()).getShape();
}

static std::string describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "' at " << op->getLoc();
  return text;
}

bool stride::isBroadcastBackOf(Value value, ReductionOpInterface reduction) {
  SmallVector<Operation *> chain;
  if (viewChainBase(value, &chain) != reduction->getResult(0))
    return false;
  // Compose the views' coordinate maps by running them on a dense row-major
  // stand-in for the reduction's result: the final layout is then the map
  // from `value`'s coordinates to the result's linear index.
  ArrayRef<int64_t> resultShape = shapeOf(reduction->getResult(0));
  ArrayRef<int64_t> inputShape = shapeOf(reduction.getInput());
  Dims resultDims(resultShape.begin(), resultShape.end());
  Layout layout{resultDims, rowMajorStrides(resultDims), 0};
  for (Operation *view : chain) {
    if (isa<AsStridedOp>(view))
      return false; // absolute layouts say nothing about coordinates
    ViewResult next = cast<ViewOpInterface>(view).inferResultLayout(layout);
    if (!next)
      return false;
    layout = *next.layout;
  }
  if (layout.shape != Dims(inputShape.begin(), inputShape.end()) ||
      layout.offset != 0)
    return false;
  SmallVector<int64_t> reduced = reduction.getReducedDims();
  bool keep = reduction.getKeepdim();
  Dims resultStrides = rowMajorStrides(resultDims);
  int64_t kept = 0;
  for (int64_t d = 0, e = inputShape.size(); d < e; ++d) {
    bool isReduced = llvm::is_contained(reduced, d);
    int64_t expected = 0;
    if (keep)
      expected = isReduced ? 0 : resultStrides[d];
    else if (!isReduced)
      expected = resultStrides[kept++];
    if (inputShape[d] > 1 && layout.strides[d] != expected)
      return false;
  }
  return true;
}

static bool inFrame(Operation *op, InGroupFn inGroup,
                    llvm::DenseMap<Operation *, bool> &memo) {
  auto it = memo.find(op);
  if (it != memo.end())
    return it->second;
  bool ok = true;
  Value result = op->getResult(0);
  for (OpOperand &use : result.getUses()) {
    Operation *user = use.getOwner();
    if (isa<ViewOpInterface>(user)) {
      // Read by the group at mapped coordinates?
      forEachSink(user->getResult(0), [&](OpOperand &sink) {
        if (inGroup(sink.getOwner()))
          ok = false;
      });
    } else if (inGroup(user)) {
      ok = isIdentityOperand(use) && user->getNumResults() == 1 &&
           shapeOf(user->getResult(0)) == shapeOf(result) &&
           inFrame(user, inGroup, memo);
    }
    if (!ok)
      break;
  }
  memo[op] = ok;
  return ok;
}

bool stride::isInOutputFrame(Operation *op, InGroupFn inGroup) {
  llvm::DenseMap<Operation *, bool> memo;
  return inFrame(op, inGroup, memo);
}

/// The ops of the group that depend on `root`, through views.
static llvm::SetVector<Operation *> dependentsOf(Operation *root,
                                                  InGroupFn inGroup) {
  llvm::SetVector<Operation *> deps;
  SmallVector<Operation *> work{root};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value result : op->getResults())
      forEachSink(result, [&](OpOperand &sink) {
        Operation *user = sink.getOwner();
        if (inGroup(user) && deps.insert(user))
          work.push_back(user);
      });
  }
  return deps;
}

bool stride::reducesSameRows(Operation *a, Operation *b) {
  auto first = dyn_cast<ReductionOpInterface>(a);
  auto second = dyn_cast<ReductionOpInterface>(b);
  return first && second &&
         shapeOf(first.getInput()) == shapeOf(second.getInput()) &&
         first.getReducedDims() == second.getReducedDims();
}

LogicalResult stride::checkEpilogue(ReductionOpInterface reduction,
                                    InGroupFn inGroup,
                                    bool broadcast, std::string *why) {
  auto fail = [&](const std::string &message) {
    if (why)
      *why = message;
    return failure();
  };
  llvm::SetVector<Operation *> deps = dependentsOf(reduction, inGroup);
  ArrayRef<int64_t> expected = broadcast ? shapeOf(reduction.getInput())
                                         : shapeOf(reduction->getResult(0));
  // In a broadcast epilogue, a later reduction of the same rows may read
  // the reduction (softmax's `sum` of `exp(x - max)`); its own result is
  // then read broadcast back, like the first one's.
  auto isRowReduction = [&](Operation *op) {
    return broadcast && reducesSameRows(op, reduction);
  };
  for (Operation *dep : deps) {
    if (isRowReduction(dep))
      continue;
    if (!dep->hasTrait<Elementwise>())
      return fail(describe(dep) + " reads the reduction's result but is not "
                                  "an elementwise op");
    if (shapeOf(dep->getResult(0)) != expected)
      return fail(describe(dep) + " has shape " +
                  formatDims(shapeOf(dep->getResult(0))) +
                  ", not the epilogue's " + formatDims(expected));
    for (OpOperand &operand : dep->getOpOperands()) {
      SmallVector<Operation *> chain;
      Value base = viewChainBase(operand.get(), &chain);
      Operation *def = base.getDefiningOp();
      if (!def || (def != reduction && !deps.contains(def)))
        continue; // does not depend on the reduction
      if (broadcast && (def == reduction || isRowReduction(def))) {
        if (!isBroadcastBackOf(operand.get(), cast<ReductionOpInterface>(def)))
          return fail(describe(dep) + " reads the reduction's result through "
                                      "views that do not broadcast it back "
                                      "over the reduced dims");
        continue;
      }
      if (!chain.empty())
        return fail(describe(dep) + " reads a value computed from the "
                                    "reduction through a view");
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

StringRef stride::stringifyKernelForm(KernelForm form) {
  switch (form) {
  case KernelForm::Pointwise: return "pointwise";
  case KernelForm::Reduction: return "reduction";
  case KernelForm::IndexScatter: return "index-scatter";
  case KernelForm::BroadcastReduction: return "broadcast-reduction";
  }
  return "?";
}

/// Form (d) with several reductions: all reduce the same rows, each one's
/// dependents are a broadcast epilogue (later reductions of the same rows
/// included), and the one yielded value, of the rows' shape, depends on
/// them.
static FailureOr<KernelClass>
classifyRowReductions(ArrayRef<ReductionOpInterface> reductions,
                      ValueRange yields,
                      InGroupFn inGroup, KernelClass result, std::string *why) {
  auto fail = [&](const std::string &message) -> FailureOr<KernelClass> {
    if (why)
      *why = message;
    return failure();
  };
  ReductionOpInterface first = reductions.front();
  for (ReductionOpInterface r : reductions)
    if (!reducesSameRows(r, first))
      return fail("the kernel holds reductions of different rows (" +
                  describe(first) + " and " + describe(r) +
                  "): only reductions of one input shape over the same dims "
                  "share a kernel");
  // Form (b) with several accumulators: every yielded value has the
  // reductions' result shape and each reduction's dependents are a
  // pointwise epilogue of that shape.
  ArrayRef<int64_t> resultShape = shapeOf(first->getResult(0));
  if (llvm::all_of(yields,
                   [&](Value v) { return shapeOf(v) == resultShape; }) &&
      llvm::all_of(reductions, [&](ReductionOpInterface r) {
        return shapeOf(r->getResult(0)) == resultShape &&
               succeeded(checkEpilogue(r, inGroup, /*broadcast=*/false));
      })) {
    result.form = KernelForm::Reduction;
    result.root = first;
    return result;
  }
  if (yields.size() != 1 ||
      shapeOf(yields.front()) != shapeOf(first.getInput()))
    return fail("a kernel of several reductions yields either values of "
                "their result shape (each read by a pointwise epilogue of "
                "that shape) or one value of their input shape");
  Operation *yielded = yields.front().getDefiningOp();
  bool dependsOnOne = false;
  for (ReductionOpInterface r : reductions) {
    std::string epilogueWhy;
    if (failed(checkEpilogue(r, inGroup, /*broadcast=*/true, &epilogueWhy)))
      return fail(epilogueWhy);
    dependsOnOne |= dependentsOf(r, inGroup).contains(yielded);
  }
  if (!dependsOnOne)
    return fail("the yielded value does not depend on the reductions");
  result.form = KernelForm::BroadcastReduction;
  result.root = first;
  return result;
}

FailureOr<KernelClass> stride::classifyKernel(KernelOp kernel,
                                              std::string *why) {
  auto fail = [&](const std::string &message) -> FailureOr<KernelClass> {
    if (why)
      *why = message;
    return failure();
  };
  Block &body = kernel.getBodyBlock();
  auto inGroup = [&](Operation *op) {
    return op->getBlock() == &body && !isa<YieldOp>(op);
  };
  ValueRange yields = kernel.getYield().getValues();
  if (yields.empty())
    return fail("the kernel yields nothing");

  SmallVector<ReductionOpInterface> reductions;
  SmallVector<IndexScatterOpInterface> scatters;
  for (Operation &op : body.without_terminator()) {
    if (!isFunctional(&op) && !isa<ViewOpInterface>(op))
      return fail(describe(&op) + " is neither a view nor a functional op");
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      reductions.push_back(reduction);
    if (auto scatter = dyn_cast<IndexScatterOpInterface>(op))
      scatters.push_back(scatter);
  }

  KernelClass result;
  ArrayRef<int64_t> shape = shapeOf(yields.front());
  result.iterationShape.assign(shape.begin(), shape.end());
  for (Value v : yields)
    if (shapeOf(v) != shape)
      return fail("the yielded values differ in shape (" + formatDims(shape) +
                  " and " + formatDims(shapeOf(v)) + ")");

  // Every yielded functional value is computed over the output iteration
  // space; views and arguments are plain copies (form (a) only).
  bool allComputed = true;
  for (Value v : yields) {
    Operation *def = v.getDefiningOp();
    if (!def || !isFunctional(def)) {
      allComputed = false;
      continue;
    }
    if (!isInOutputFrame(def, inGroup))
      return fail("the yielded value of " + describe(def) +
                  " is also read inside the kernel at other coordinates, or "
                  "through a reduction");
  }

  if (!scatters.empty()) {
    IndexScatterOpInterface scatter = scatters.front();
    if (scatters.size() > 1)
      return fail("the kernel holds more than one index scatter");
    if (!reductions.empty())
      return fail("the kernel holds an index scatter and a reduction");
    if (yields.size() != 1 || yields.front() != scatter->getResult(0) ||
        !scatter->getResult(0).hasOneUse())
      return fail(describe(scatter) + " must be the kernel's only yielded "
                                      "value, read by nothing else");
    result.form = KernelForm::IndexScatter;
    result.root = scatter;
    return result;
  }

  if (reductions.empty()) {
    result.form = KernelForm::Pointwise;
    result.root = yields.front().getDefiningOp();
    return result;
  }
  ReductionOpInterface reduction = reductions.front();
  if (reductions.size() > 1)
    return classifyRowReductions(reductions, yields, inGroup, result, why);
  result.root = reduction;
  if (!allComputed)
    return fail("a reduction kernel yields a view or an argument");

  llvm::SetVector<Operation *> deps = dependentsOf(reduction, inGroup);
  std::string epilogueWhy;
  if (shape == shapeOf(reduction->getResult(0)) &&
      succeeded(checkEpilogue(reduction, inGroup, false, &epilogueWhy))) {
    bool reachesYield = llvm::any_of(yields, [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def == reduction || deps.contains(def);
    });
    if (!reachesYield)
      return fail("no yielded value depends on the reduction");
    result.form = KernelForm::Reduction;
    return result;
  }
  if (shape == shapeOf(reduction.getInput())) {
    if (yields.size() != 1)
      return fail("a broadcast-reduction kernel yields one value");
    if (!deps.contains(yields.front().getDefiningOp()))
      return fail("the yielded value does not depend on the reduction");
    if (failed(checkEpilogue(reduction, inGroup, true, &epilogueWhy)))
      return fail(epilogueWhy);
    result.form = KernelForm::BroadcastReduction;
    return result;
  }
  if (!epilogueWhy.empty())
    return fail(epilogueWhy);
  return fail("the yielded shape " + formatDims(shape) +
              " is neither the reduction's result shape " +
              formatDims(shapeOf(reduction->getResult(0))) +
              " nor its input shape " +
              formatDims(shapeOf(reduction.getInput())));
}
