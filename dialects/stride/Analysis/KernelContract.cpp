//===- KernelContract.cpp - What a stride.kernel may hold -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/Analysis/Violation.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/IndexMaps.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "stride/Support/Layout.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

using namespace mlir;
using namespace stride;

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

bool stride::isMaskScatterOp(Operation *op) {
  return isa<SliceScatterOp, SelectScatterOp>(op);
}

bool stride::isScanOp(Operation *op) { return isa<CumsumOp>(op); }

bool stride::isPointwiseLikeOp(Operation *op) {
  return isFunctional(op) && !isa<ReductionOpInterface>(op) &&
         !isa<IndexScatterOpInterface>(op) && !isScanOp(op);
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


bool stride::isBroadcastBackOf(Value value, ReductionOpInterface reduction) {
  return isBroadcastBackOf(value, reduction->getResult(0), reduction);
}

bool stride::isBroadcastBackOf(Value value, Value rowValue,
                               ReductionOpInterface reduction) {
  ArrayRef<int64_t> resultShape = shapeOf(reduction->getResult(0));
  ArrayRef<int64_t> inputShape = shapeOf(reduction.getInput());
  if (viewChainBase(value) != rowValue || shapeOf(rowValue) != resultShape ||
      shapeOf(value) != inputShape)
    return false;
  // `value` at input coordinates c must read the row value at the
  // reduction's result coordinates of c: the kept dims of c, with the
  // reduced ones at 0 under keepdim and dropped without.
  AffineMap map = indexMapToBase(value);
  if (!map)
    return false;
  SmallVector<int64_t> reduced = reduction.getReducedDims();
  SmallVector<AffineExpr> expected;
  for (int64_t d = 0, e = inputShape.size(); d < e; ++d) {
    bool isReduced = llvm::is_contained(reduced, d);
    if (!isReduced)
      expected.push_back(getAffineDimExpr(d, value.getContext()));
    else if (reduction.getKeepdim())
      expected.push_back(getAffineConstantExpr(0, value.getContext()));
  }
  AffineMap rowRead = simplifyInBounds(
      AffineMap::get(inputShape.size(), 0, expected, value.getContext()),
      inputShape);
  return map == rowRead;
}

/// Whether a reduction of the group reads `use` as its whole input, over
/// the value's own shape: in form (d) the kernel iterates over that shape.
static bool isRowInput(OpOperand &use) {
  auto reduction = dyn_cast<ReductionOpInterface>(use.getOwner());
  return reduction && use.get() == reduction.getInput() &&
         shapeOf(reduction.getInput()) == shapeOf(use.get());
}

static bool inFrame(Operation *op, InGroupFn inGroup,
                    llvm::DenseMap<Operation *, bool> &memo,
                    bool rowInputs) {
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
    } else if (rowInputs && inGroup(user) && isRowInput(use)) {
      continue;
    } else if (inGroup(user)) {
      ok = isIdentityOperand(use) && user->getNumResults() == 1 &&
           shapeOf(user->getResult(0)) == shapeOf(result) &&
           inFrame(user, inGroup, memo, rowInputs);
    }
    if (!ok)
      break;
  }
  memo[op] = ok;
  return ok;
}

bool stride::isInOutputFrame(Operation *op, InGroupFn inGroup) {
  llvm::DenseMap<Operation *, bool> memo;
  return inFrame(op, inGroup, memo, /*rowInputs=*/false);
}

bool stride::isInRowFrame(Operation *op, InGroupFn inGroup) {
  llvm::DenseMap<Operation *, bool> memo;
  return inFrame(op, inGroup, memo, /*rowInputs=*/true);
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

bool stride::isPerRowOp(Operation *op, ReductionOpInterface rows) {
  ArrayRef<int64_t> resultShape = shapeOf(rows->getResult(0));
  return op->hasTrait<Elementwise>() && op->getNumResults() == 1 &&
         resultShape != shapeOf(rows.getInput()) &&
         shapeOf(op->getResult(0)) == resultShape;
}

bool stride::reducesSameRows(Operation *a, Operation *b) {
  auto first = dyn_cast<ReductionOpInterface>(a);
  auto second = dyn_cast<ReductionOpInterface>(b);
  return first && second &&
         shapeOf(first.getInput()) == shapeOf(second.getInput()) &&
         first.getReducedDims() == second.getReducedDims();
}

bool stride::areSiblingScatters(IndexScatterOpInterface a,
                                IndexScatterOpInterface b) {
  auto resultA = cast<StridedTensorType>(a->getResult(0).getType());
  auto resultB = cast<StridedTensorType>(b->getResult(0).getType());
  Value indexA = a.getIndex(), indexB = b.getIndex();
  if (a.isSliceIndex() || b.isSliceIndex() || a.getDim() != b.getDim() ||
      resultA.isSymbolic() || resultB.isSymbolic() ||
      resultA.getShape() != resultB.getShape() ||
      indexA.getType() != indexB.getType())
    return false;
  AffineMap mapA = indexMapToBase(indexA);
  return viewChainBase(indexA) == viewChainBase(indexB) && mapA &&
         mapA == indexMapToBase(indexB);
}

LogicalResult stride::checkEpilogue(ReductionOpInterface reduction,
                                    InGroupFn inGroup, bool broadcast,
                                    ContractReporter report) {
  llvm::SetVector<Operation *> deps = dependentsOf(reduction, inGroup);
  ArrayRef<int64_t> expected = broadcast ? shapeOf(reduction.getInput())
                                         : shapeOf(reduction->getResult(0));
  // In a broadcast epilogue, a later reduction of the same rows may read
  // the reduction (softmax's `sum` of `exp(x - max)`); its own result is
  // then read broadcast back, like the first one's. So are per-row ops
  // (LayerNorm's `rsqrt(var + eps)`), computed once per row.
  auto isRowReduction = [&](Operation *op) {
    return broadcast && reducesSameRows(op, reduction);
  };
  auto isRowOp = [&](Operation *op) {
    return broadcast && isPerRowOp(op, reduction);
  };
  StringRef epilogue = broadcast ? "broadcast epilogue" : "epilogue";
  for (Operation *dep : deps) {
    if (isRowReduction(dep))
      continue;
    if (!dep->hasTrait<Elementwise>())
      return Violation(report, dep)
             << "reads the reduction's result but is not an elementwise op; "
                "only elementwise ops may follow a reduction in its kernel"
             << Violation::Note(reduction, "the reduction");
    bool rowOp = isRowOp(dep);
    if (!rowOp && shapeOf(dep->getResult(0)) != expected)
      return Violation(report, dep)
             << "has shape " << formatDims(shapeOf(dep->getResult(0)))
             << ", but the reduction's " << epilogue << " has shape "
             << formatDims(expected)
             << (broadcast ? " (the reduction's input shape; or its result "
                             "shape, for a value computed once per row)"
                           : " (the reduction's result shape)")
             << Violation::Note(reduction, "the reduction");
    for (OpOperand &operand : dep->getOpOperands()) {
      SmallVector<Operation *> chain;
      Value base = viewChainBase(operand.get(), &chain);
      Operation *def = base.getDefiningOp();
      if (!def || (def != reduction && !deps.contains(def)))
        continue; // does not depend on the reduction
      bool rowValue = def == reduction || isRowReduction(def) || isRowOp(def);
      if (rowOp) {
        if (!rowValue || !chain.empty())
          return Violation(report, dep)
                 << "computes one value per row, so it may read the row's "
                    "reductions and other per-row values only directly, "
                    "not values computed per element or views"
                 << Violation::Note(reduction, "the reduction");
        continue;
      }
      if (rowValue && broadcast) {
        if (!isBroadcastBackOf(operand.get(), base, reduction))
          return Violation(report, dep)
                 << "reads the reduction's result through views that do not "
                    "broadcast it back over the reduced dims (element c must "
                    "read the result at c with the reduced dims dropped)"
                 << Violation::Note(def, "the reduction");
        continue;
      }
      if (!chain.empty())
        return Violation(report, dep)
               << "reads a value computed from the reduction through a view; "
                  "an epilogue reads such values directly, at its own "
                  "coordinates"
               << Violation::Note(chain.front(), "the view")
               << Violation::Note(reduction, "the reduction");
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
  case KernelForm::Scan: return "scan";
  case KernelForm::Attention: return "attention";
  case KernelForm::SkinnyProduct: return "skinny-product";
  }
  return "?";
}

namespace {
/// One classification of one kernel: its body, its yields, and where a
/// broken rule goes.
class KernelClassifier {
public:
  KernelClassifier(KernelOp kernel, ContractReporter report)
      : kernel(kernel), body(kernel.getBodyBlock()), yield(kernel.getYield()),
        yields(yield.getValues()), report(report) {}

  FailureOr<KernelClass> classify();

private:
  bool inGroup(Operation *op) {
    return op->getBlock() == &body && !isa<YieldOp>(op);
  }
  LogicalResult collectFamilies();
  LogicalResult checkYields();
  FailureOr<KernelClass> classifyScatter();
  FailureOr<KernelClass> classifyScan();
  FailureOr<KernelClass> classifyOwnKernelOp();
  LogicalResult checkProductNeighbours(MatmulOp product);
  LogicalResult checkSoleYield(Operation *root);
  LogicalResult checkScatterYields();
  FailureOr<KernelClass> classifyReduction();
  FailureOr<KernelClass> classifyRowReductions();
  LogicalResult checkRowEpilogue(ReductionOpInterface reduction);
  FailureOr<KernelClass> classifyForm();
  LogicalResult checkRowResults();
  LogicalResult checkPrologueYields();
  /// The yielded values of the iteration shape that depend on the
  /// kernel's reductions (form (d) has one; the others, such as a residual
  /// sum the reductions read, are computed before them).
  SmallVector<Value> frameEpilogueYields() {
    llvm::SetVector<Operation *> dependents;
    for (ReductionOpInterface r : result.reductions)
      dependents.set_union(
          dependentsOf(r, [&](Operation *op) { return inGroup(op); }));
    SmallVector<Value> values;
    for (auto [i, v] : llvm::enumerate(yields))
      if (!llvm::is_contained(rowYields, i) &&
          dependents.contains(v.getDefiningOp()))
        values.push_back(v);
    return values;
  }
  /// The yielded value of the iteration shape that depends on the
  /// reductions, of form (d) (one).
  Value frameYield() {
    SmallVector<Value> values = frameEpilogueYields();
    if (!values.empty())
      return values.front();
    for (auto [i, v] : llvm::enumerate(yields))
      if (!llvm::is_contained(rowYields, i))
        return v;
    return Value();
  }
  /// Form (d): `result` becomes a broadcast-reduction kernel, with its
  /// per-row ops.
  FailureOr<KernelClass> broadcastReduction();

  KernelOp kernel;
  Block &body;
  YieldOp yield;
  ValueRange yields;
  ContractReporter report;
  KernelClass result;
  /// Whether every yielded value is computed by a functional op of the
  /// kernel (not a view or an argument, which only form (a) may yield).
  bool allComputed = true;
  /// The positions of the yielded values whose shape is not the iteration
  /// shape (checkRowResults).
  SmallVector<unsigned> rowYields;
  /// The positions of the yielded values of the iteration shape that a
  /// reduction of the kernel reads as its input (checkPrologueYields).
  SmallVector<unsigned> prologueYields;
  SmallVector<IndexScatterOpInterface> scatters;
  SmallVector<Operation *> scans;
  /// Attention ops and products marked for the skinny product kernel:
  /// ops that each need a kernel of their own (forms (f) and (g)).
  SmallVector<Operation *> ownKernelOps;
};
} // namespace

LogicalResult KernelClassifier::collectFamilies() {
  for (Operation &op : body.without_terminator()) {
    if (isa<AttentionOp>(op) ||
        (isa<MatmulOp>(op) &&
         op.hasAttr(StrideDialect::kSkinnyProductAttrName))) {
      ownKernelOps.push_back(&op);
      continue;
    }
    if (!isFunctional(&op) && !isa<ViewOpInterface>(op))
      return Violation(report, &op)
             << "is neither a view nor a functional op; a kernel holds only "
                "those";
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      result.reductions.push_back(reduction);
    if (auto scatter = dyn_cast<IndexScatterOpInterface>(op))
      scatters.push_back(scatter);
    if (isScanOp(&op))
      scans.push_back(&op);
  }
  return success();
}

/// The elements of a value's shape (saturating: only compared); over
/// symbolic sizes at the symbols' largest values, where a kernel's row
/// values ([rows, 1]) have fewer elements than its rows ([rows, 768]).
static int64_t elementsOf(Value value) {
  auto type = cast<StridedTensorType>(value.getType());
  if (!type.isSymbolic())
    return checkedNumElements(type.getShape()).value_or(INT64_MAX);
  std::optional<Layout> largest = type.getSymbolicLayout().evaluate(
      largestValues(enclosingSymbols(value.getParentRegion()->getParentOp())));
  return largest ? checkedNumElements(largest->shape).value_or(INT64_MAX)
                 : INT64_MAX;
}

LogicalResult KernelClassifier::checkYields() {
  if (yields.empty())
    return Violation(report, kernel)
           << "yields no value; a kernel writes at least one buffer";
  // The iteration shape is the largest yielded shape; a yielded value of
  // another shape is computed once per row of a broadcast reduction (form
  // (d) only: checkRowResults).
  Value widest = *llvm::max_element(yields, [](Value a, Value b) {
    return elementsOf(a) < elementsOf(b);
  });
  ArrayRef<int64_t> shape = shapeOf(widest);
  result.iterationShape.assign(shape.begin(), shape.end());
  for (auto [i, v] : llvm::enumerate(yields))
    if (shapeOf(v) != shape)
      rowYields.push_back(i);
  // Every yielded functional value is computed over the output iteration
  // space; views and arguments are plain copies (form (a) only).
  // Forms (f) and (g) check their yields themselves
  // (classifyOwnKernelOp): a skinny product's kernel may also yield values
  // its prologue computes at each element of its rows.
  if (!ownKernelOps.empty())
    return success();
  for (auto [i, v] : llvm::enumerate(yields)) {
    if (llvm::is_contained(rowYields, i))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !isFunctional(def)) {
      allComputed = false;
      continue;
    }
    auto member = [&](Operation *op) { return inGroup(op); };
    if (isInOutputFrame(def, member))
      continue;
    if (!isInRowFrame(def, member))
      return Violation(report, def)
             << "is yielded, but is also read inside the kernel at other "
                "coordinates or through a reduction; a yielded value is "
                "computed once per output element, at that element";
    prologueYields.push_back(i);
  }
  return success();
}

/// A yielded value that a reduction reads as its input (a residual sum
/// that an RMSNorm normalizes) is computed at each element of the rows,
/// which only a broadcast-reduction kernel iterates over.
LogicalResult KernelClassifier::checkPrologueYields() {
  if (prologueYields.empty() ||
      result.form == KernelForm::BroadcastReduction)
    return success();
  return Violation(report, yields[prologueYields.front()].getDefiningOp())
         << "is yielded, but is also read inside the kernel at other "
            "coordinates or through a reduction; a yielded value is "
            "computed once per output element, at that element (only a "
            "broadcast-reduction kernel yields a value its reductions read)";
}

FailureOr<KernelClass> KernelClassifier::classify() {
  if (failed(collectFamilies()) || failed(checkYields()))
    return failure();
  if (failed(classifyForm()) || failed(checkRowResults()) ||
      failed(checkPrologueYields()))
    return failure();
  return result;
}

/// Values yielded beside the iteration shape's are one value per row of a
/// broadcast reduction: one of the row's reductions or a per-row op.
LogicalResult KernelClassifier::checkRowResults() {
  if (rowYields.empty() || result.form == KernelForm::SkinnyProduct)
    return success();
  Value other = yields[rowYields.front()];
  if (result.form != KernelForm::BroadcastReduction)
    return Violation(report, yield)
           << "yields values of different shapes ("
           << formatDims(result.iterationShape) << " and "
           << formatDims(shapeOf(other))
           << "); a kernel iterates over one shape, and only a "
              "broadcast-reduction kernel also yields values computed once "
              "per row";
  for (unsigned i : rowYields) {
    Operation *def = yields[i].getDefiningOp();
    bool rowReduction =
        def && llvm::is_contained(result.reductions, def);
    if (!rowReduction && !llvm::is_contained(result.rowOps, def))
      return Violation(report, yield)
             << "yields value #" << i << " of shape "
             << formatDims(shapeOf(yields[i]))
             << ", which is neither the iteration shape "
             << formatDims(result.iterationShape)
             << " nor one of the row's reductions or per-row ops (a value "
                "computed once per row)"
             << Violation::Note(result.root, "the first reduction");
    result.rowResults.push_back(i);
  }
  return success();
}

FailureOr<KernelClass> KernelClassifier::classifyForm() {
  if (!ownKernelOps.empty())
    return classifyOwnKernelOp();
  if (!scans.empty())
    return classifyScan();
  if (!scatters.empty())
    return classifyScatter();
  if (result.reductions.empty()) {
    result.form = KernelForm::Pointwise;
    result.root = yields.front().getDefiningOp();
    return result;
  }
  if (result.reductions.size() > 1)
    return classifyRowReductions();
  return classifyReduction();
}

/// Forms (c) and (e): `root` is the only yielded value, and nothing else in
/// the kernel reads it.
LogicalResult KernelClassifier::checkSoleYield(Operation *root) {
  if (yields.size() == 1 && yields.front() == root->getResult(0) &&
      root->getResult(0).hasOneUse())
    return success();
  return Violation(report, root)
         << "must be the kernel's only yielded value, read by nothing else "
            "in the kernel";
}

FailureOr<KernelClass> KernelClassifier::classifyScatter() {
  IndexScatterOpInterface root = scatters.front();
  for (IndexScatterOpInterface sibling : llvm::drop_begin(scatters))
    if (!areSiblingScatters(root, sibling))
      return Violation(report, sibling)
             << "is a second index scatter in the kernel, but no sibling of "
                "the first; only scatters and scatter_adds along one dim, "
                "into results of one shape, with one index expression share "
                "a kernel"
             << Violation::Note(root, "the first index scatter");
  if (!result.reductions.empty())
    return Violation(report, root)
           << "shares its kernel with a reduction; an index scatter and a "
              "reduction need kernels of their own"
           << Violation::Note(result.reductions.front(), "the reduction");
  if (failed(checkScatterYields()))
    return failure();
  result.form = KernelForm::IndexScatter;
  result.root = result.scatters.front();
  return result;
}

/// Form (c) yields its scatters and nothing else, each once, read by
/// nothing else in the kernel; KernelClass::scatters lists them in yield
/// order.
LogicalResult KernelClassifier::checkScatterYields() {
  if (scatters.size() == 1 && failed(checkSoleYield(scatters.front())))
    return failure();
  for (IndexScatterOpInterface scatter : scatters)
    if (Value result = scatter->getResult(0);
        !result.hasOneUse() || !isa<YieldOp>(*result.user_begin()))
      return Violation(report, scatter)
             << "must be yielded by the kernel once, and read by nothing "
                "else in it (an index scatter beside sibling scatters)";
  for (Value value : yields) {
    auto scatter = value.getDefiningOp<IndexScatterOpInterface>();
    if (!scatter || !llvm::is_contained(scatters, scatter))
      return Violation(report, yield)
             << "yields a value that is no index scatter of the kernel; a "
                "kernel of sibling scatters yields only them";
    result.scatters.push_back(scatter);
  }
  return success();
}

/// Form (e): one scan, the only yielded value, read by nothing else in the
/// kernel; everything else is its prologue.
FailureOr<KernelClass> KernelClassifier::classifyScan() {
  Operation *scan = scans.front();
  if (scans.size() > 1)
    return Violation(report, scans[1])
           << "is a second scan in the kernel; a kernel holds at most one"
           << Violation::Note(scan, "the first scan");
  if (!result.reductions.empty())
    return Violation(report, scan)
           << "shares its kernel with a reduction; a scan needs a kernel of "
              "its own"
           << Violation::Note(result.reductions.front(), "the reduction");
  if (!scatters.empty())
    return Violation(report, scan)
           << "shares its kernel with an index scatter; a scan needs a "
              "kernel of its own"
           << Violation::Note(scatters.front(), "the index scatter");
  if (failed(checkSoleYield(scan)))
    return failure();
  result.form = KernelForm::Scan;
  result.root = scan;
  return result;
}

/// Forms (f) and (g): one attention op (marked for the split-KV kernel) or
/// one product marked for the skinny product kernel, the only yielded
/// value; the rest of the kernel are views of its operands, and for the
/// product the prologue that computes its lhs and the epilogue that reads
/// its result, which then yields instead (checkProductNeighbours).
FailureOr<KernelClass> KernelClassifier::classifyOwnKernelOp() {
  Operation *root = ownKernelOps.front();
  bool attention = isa<AttentionOp>(root);
  StringRef what = attention ? "an attention op" : "a skinny product";
  if (ownKernelOps.size() > 1)
    return Violation(report, ownKernelOps[1])
           << "needs a kernel of its own, but shares one with another op "
              "that does"
           << Violation::Note(root, "the first such op");
  if (auto product = dyn_cast<MatmulOp>(root)) {
    if (failed(checkProductNeighbours(product)))
      return failure();
  } else {
    for (Operation &op : body.without_terminator())
      if (&op != root && !isa<ViewOpInterface>(op))
        return Violation(report, &op)
               << "shares its kernel with " << what << "; such a kernel "
               << "holds only the op and views of its operands"
               << Violation::Note(root, "the op");
  }
  if (auto forward = dyn_cast<AttentionOp>(root); forward && forward.getLogsumexp())
    return Violation(report, root)
           << "has a logsumexp result; the attention kernel computes the "
              "result only";
  if (auto product = dyn_cast<MatmulOp>(root);
      product && failed(checkSkinnyProduct(product, kMaxSkinnyProductRows,
                                           report)))
    return failure();
  if (attention && failed(checkSoleYield(root)))
    return failure();
  result.form = attention ? KernelForm::Attention : KernelForm::SkinnyProduct;
  result.root = root;
  return result;
}

/// Form (g)'s prologue and epilogue: the functional ops beside the product
/// compute its lhs (form (a)'s ops, read through views) or read its result
/// (checkSkinnyEpilogue); its weight and bias are kernel inputs read
/// through views.
LogicalResult KernelClassifier::checkProductNeighbours(MatmulOp product) {
  for (Value operand :
       {product.getRhs(), product.getBias(), product.getAddend()}) {
    if (!operand)
      continue;
    if (Operation *def = viewChainBase(operand).getDefiningOp())
      return Violation(report, def)
             << "computes the skinny product's "
             << (operand == product.getRhs()    ? "weight"
                 : operand == product.getBias() ? "bias"
                                                : "addend")
             << "; only its lhs (the rows) may be computed in its kernel"
             << Violation::Note(product, "the product");
  }
  // The ops the lhs depends on, through views.
  llvm::SetVector<Operation *> prologue;
  SmallVector<Value> work{product.getLhs()};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || (!isa<ViewOpInterface>(def) && !prologue.insert(def)))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  llvm::SetVector<Operation *> readers =
      dependentsOf(product, [&](Operation *op) { return inGroup(op); });
  SmallVector<Operation *> epilogue;
  for (Operation &op : body.without_terminator()) {
    if (&op == product.getOperation() || isa<ViewOpInterface>(op))
      continue;
    if (readers.contains(&op)) {
      epilogue.push_back(&op);
      continue;
    }
    if (!prologue.contains(&op))
      return Violation(report, &op)
             << "shares its kernel with a skinny product but neither "
                "computes part of its lhs nor reads its result; such a "
                "kernel holds the product, views, the pointwise ops that "
                "compute its lhs and the elementwise ops that read its "
                "result"
             << Violation::Note(product, "the product");
    if (!isPointwiseLikeOp(&op) && !isa<ReductionOpInterface>(op))
      return Violation(report, &op)
             << "computes the skinny product's lhs but is neither a "
                "pointwise op nor a reduction of its rows; a skinny "
                "product's prologue holds form (a)'s ops, views and row "
                "reductions"
             << Violation::Note(product, "the product");
    result.prologueOps.push_back(&op);
  }
  if (failed(checkSkinnyRowPrologue(product, result.prologueOps, yields,
                                    report, result)))
    return failure();
  // The value the product's side of the kernel yields: the product's
  // result, or the epilogue's.
  SmallVector<Value> productYields;
  for (auto [i, value] : llvm::enumerate(yields))
    if (!llvm::is_contained(result.prologueResults, i))
      productYields.push_back(value);
  if (epilogue.empty()) {
    if (productYields.size() != 1 ||
        productYields.front() != product.getResult() ||
        !product.getResult().hasOneUse())
      return Violation(report, product)
             << "must be yielded once, beside its prologue's values only, "
                "and read by nothing else in the kernel";
    result.iterationShape.assign(shapeOf(product.getResult()).begin(),
                                 shapeOf(product.getResult()).end());
    return success();
  }
  if (productYields.size() != 1)
    return Violation(report, product)
           << "is read by ops of its kernel, which yields "
           << productYields.size()
           << " values beside its prologue's; a skinny product with an "
              "epilogue yields only the epilogue's result";
  result.iterationShape.assign(shapeOf(productYields.front()).begin(),
                               shapeOf(productYields.front()).end());
  return checkSkinnyEpilogue(product, epilogue, productYields.front(), report,
                             result.productEpilogue);
}

FailureOr<KernelClass> KernelClassifier::classifyReduction() {
  ReductionOpInterface reduction = result.reductions.front();
  result.root = reduction;
  if (!allComputed)
    return Violation(report, yield)
           << "yields a view or a kernel argument next to a reduction; a "
              "reduction kernel yields only values it computes"
           << Violation::Note(reduction, "the reduction");

  auto member = [&](Operation *op) { return inGroup(op); };
  ArrayRef<int64_t> shape = result.iterationShape;
  ArrayRef<int64_t> resultShape = shapeOf(reduction->getResult(0));
  ArrayRef<int64_t> inputShape = shapeOf(reduction.getInput());
  if (shape == resultShape) {
    // With reduced dims of size 1 the input shape is the result shape too,
    // and an epilogue that is not form (b)'s may still be form (d)'s.
    bool mayBroadcast = shape == inputShape;
    if (succeeded(checkEpilogue(reduction, member, /*broadcast=*/false,
                                mayBroadcast ? nullptr : report))) {
      llvm::SetVector<Operation *> deps = dependentsOf(reduction, member);
      bool reachesYield = llvm::any_of(yields, [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def == reduction || deps.contains(def);
      });
      if (!reachesYield)
        return Violation(report, reduction)
               << "is not yielded and no yielded value depends on it";
      result.form = KernelForm::Reduction;
      return result;
    }
    if (!mayBroadcast)
      return failure();
  }
  if (shape != inputShape)
    return Violation(report, yield)
           << "yields shape " << formatDims(shape)
           << ", which is neither the reduction's result shape "
           << formatDims(resultShape) << " nor its input shape "
           << formatDims(inputShape)
           << Violation::Note(reduction, "the reduction");
  if (failed(checkRowEpilogue(reduction)))
    return failure();
  return broadcastReduction();
}

FailureOr<KernelClass> KernelClassifier::broadcastReduction() {
  result.form = KernelForm::BroadcastReduction;
  ReductionOpInterface rows = result.reductions.front();
  llvm::SetVector<Operation *> dependents;
  for (ReductionOpInterface r : result.reductions)
    dependents.set_union(
        dependentsOf(r, [&](Operation *op) { return inGroup(op); }));
  for (Operation &op : body.without_terminator())
    if (dependents.contains(&op) && isPerRowOp(&op, rows))
      result.rowOps.push_back(&op);
  return result;
}

/// Form (d)'s rules for one of the row's reductions: one yielded value, of
/// the input shape (checked by the callers), and a broadcast epilogue.
LogicalResult KernelClassifier::checkRowEpilogue(
    ReductionOpInterface reduction) {
  // None: the callers report a reduction that no yielded value reads.
  size_t epilogueYields = frameEpilogueYields().size();
  if (epilogueYields > 1)
    return Violation(report, yield)
           << "yields " << epilogueYields
           << " values of the iteration shape that depend on its "
              "reductions; a broadcast-reduction kernel yields one such "
              "value of the reductions' input shape (and values computed "
              "once per row, and values its reductions read)"
           << Violation::Note(reduction, "the reduction");
  return checkEpilogue(reduction, [&](Operation *op) { return inGroup(op); },
                       /*broadcast=*/true, report);
}

/// Several reductions, all of the same rows. Form (b) with one accumulator
/// each: every yielded value has the reductions' result shape, and each
/// reduction's dependents are a pointwise epilogue of that shape. Form (d):
/// each one's dependents are a broadcast epilogue (later reductions of the
/// same rows included), and the one yielded value, of the rows' shape,
/// depends on them.
FailureOr<KernelClass> KernelClassifier::classifyRowReductions() {
  ReductionOpInterface first = result.reductions.front();
  result.root = first;
  for (ReductionOpInterface r : result.reductions)
    if (!reducesSameRows(r, first))
      return Violation(report, r)
             << "reduces other rows than another reduction of its kernel; "
                "only reductions of one input shape over the same dims "
                "share a kernel"
             << Violation::Note(first, "the other reduction");
  auto member = [&](Operation *op) { return inGroup(op); };
  ArrayRef<int64_t> resultShape = shapeOf(first->getResult(0));
  ArrayRef<int64_t> inputShape = shapeOf(first.getInput());
  bool sameResultShapes =
      llvm::all_of(result.reductions, [&](ReductionOpInterface r) {
        return shapeOf(r->getResult(0)) == resultShape;
      });
  if (sameResultShapes &&
      ArrayRef<int64_t>(result.iterationShape) == resultShape) {
    // With reduced dims of size 1 the input shape is the result shape too,
    // and epilogues that are not form (b)'s may still be form (d)'s.
    bool mayBroadcast = resultShape == inputShape;
    if (!allComputed && !mayBroadcast)
      return Violation(report, yield)
             << "yields a view or a kernel argument next to reductions; a "
                "reduction kernel yields only values it computes"
             << Violation::Note(first, "the first reduction");
    bool pointwiseEpilogues =
        allComputed && llvm::all_of(result.reductions,
                                    [&](ReductionOpInterface r) {
                                      return succeeded(checkEpilogue(
                                          r, member, /*broadcast=*/false,
                                          mayBroadcast ? nullptr : report));
                                    });
    if (pointwiseEpilogues) {
      result.form = KernelForm::Reduction;
      return result;
    }
    if (!mayBroadcast)
      return failure();
  }
  if (ArrayRef<int64_t>(result.iterationShape) != inputShape)
    return Violation(report, yield)
           << "yields shape " << formatDims(result.iterationShape)
           << "; a kernel of several reductions yields values of their "
              "result shape "
           << formatDims(resultShape) << " or one value of their input shape "
           << formatDims(inputShape)
           << Violation::Note(first, "the first reduction");
  Operation *yielded = frameYield().getDefiningOp();
  bool dependsOnOne = false;
  for (ReductionOpInterface r : result.reductions) {
    if (failed(checkRowEpilogue(r)))
      return failure();
    dependsOnOne |= dependentsOf(r, member).contains(yielded);
  }
  if (!dependsOnOne)
    return Violation(report, yield)
           << "yields a value that depends on none of the kernel's "
              "reductions"
           << Violation::Note(first, "the first reduction");
  return broadcastReduction();
}

FailureOr<KernelClass> stride::classifyKernel(KernelOp kernel,
                                              ContractReporter report) {
  return KernelClassifier(kernel, report).classify();
}

FailureOr<KernelClass> stride::verifyKernel(KernelOp kernel) {
  auto report = [&](Operation *brokenAt) {
    InFlightDiagnostic diag = brokenAt->emitOpError();
    if (brokenAt == kernel.getOperation()) {
      diag << "\"" << kernel.getSymName() << "\" breaks the kernel contract: ";
    } else {
      diag << "breaks the contract of kernel \"" << kernel.getSymName()
           << "\": ";
      diag.attachNote(kernel.getLoc()) << "the kernel";
    }
    return diag;
  };
  return classifyKernel(kernel, report);
}
