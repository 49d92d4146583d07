//===- LegalizeLayouts.cpp - No functional op writes an overlapping layout ===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The check that makes Stride's founding bug impossible: a functional op (it
// writes a fresh buffer) whose result layout was copied from a broadcast view
// would have several logical elements share one address, and a compiler that
// believes the layout computes a fraction of the output.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "mlir/IR/Builders.h"

namespace stride {
#define GEN_PASS_DEF_LEGALIZELAYOUTS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

StridedTensorType tensorTypeOf(Value value) {
  return dyn_cast<StridedTensorType>(value.getType());
}

/// "a 'stride.expand' that broadcasts dim 1" or "a 'stride.permute' view".
std::string describeView(Operation *view) {
  std::string text = "a '" + view->getName().getStringRef().str() + "'";
  if (!isa<ExpandOp>(view))
    return text + " view";
  StridedTensorType type = tensorTypeOf(view->getResult(0));
  Dims broadcast;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.getStrides()[d] == 0 && type.getShape()[d] > 1)
      broadcast.push_back(d);
  text += broadcast.size() == 1 ? " that broadcasts dim " : " that broadcasts dims ";
  for (size_t i = 0; i < broadcast.size(); ++i)
    text += (i ? ", " : "") + std::to_string(broadcast[i]);
  return text;
}

/// The view operand whose layout the result resembles: the same strides, or
/// failing that a zero stride on the offending dim.
std::optional<unsigned> findResembledViewOperand(Operation *op,
                                                 StridedTensorType result,
                                                 int64_t dim) {
  std::optional<unsigned> weaker;
  for (OpOperand &operand : op->getOpOperands()) {
    StridedTensorType type = tensorTypeOf(operand.get());
    Operation *def = operand.get().getDefiningOp();
    if (!type || !def || !isa<ViewOpInterface>(def) ||
        type.getRank() != result.getRank())
      continue;
    if (type.getStrides() == result.getStrides())
      return operand.getOperandNumber();
    if (dim >= 0 && type.getStrides()[dim] == 0 && !weaker)
      weaker = operand.getOperandNumber();
  }
  return weaker;
}

/// The dense layout a repair gives: the first tensor operand's dim order
/// where that operand is dense and of the same rank, otherwise row-major.
Layout denseLayoutFor(Operation *op, StridedTensorType result) {
  Dims shape(result.getShape().begin(), result.getShape().end());
  for (Value operand : op->getOperands()) {
    StridedTensorType type = tensorTypeOf(operand);
    if (!type)
      continue;
    if (type.getRank() == result.getRank() &&
        isDense(type.getShape(), type.getStrides()))
      return Layout{shape, denseStridesInOrder(shape, dimOrderByStride(type.getStrides())), 0};
    break;
  }
  return Layout{shape, rowMajorStrides(shape), 0};
}

/// Says why `subject` ("result #0") of type `type` overlaps, and `why` a
/// layout that overlaps is illegal there.
void explainVerdict(InFlightDiagnostic &diag, const std::string &subject,
                    StridedTensorType type, const OverlapVerdict &verdict,
                    StringRef why) {
  using Kind = OverlapVerdict::Kind;
  int64_t dim = verdict.dim;
  switch (verdict.kind) {
  case Kind::ZeroStride:
    diag << subject << " has an overlapping layout: dim "
         << dim << " has size " << type.getShape()[dim]
         << " and stride 0, so all " << type.getShape()[dim]
         << " indices of that dim share one address";
    break;
  case Kind::Overlapping:
    diag << subject << " has an overlapping layout: logical indices "
         << formatDims(verdict.first) << " and " << formatDims(verdict.second)
         << " both map to storage address offset + " << verdict.address
         << " (shape " << formatDims(type.getShape()) << ", strides "
         << formatDims(type.getStrides()) << ")";
    break;
  case Kind::CannotProve:
    diag << "cannot prove that the layout of " << subject
         << " is non-overlapping: dim " << dim << " (size "
         << type.getShape()[dim] << ", stride " << type.getStrides()[dim]
         << ") does not step past the span of the dims with smaller strides "
            "(shape "
         << formatDims(type.getShape()) << ", strides "
         << formatDims(type.getStrides()) << ")";
    break;
  case Kind::NonOverlapping:
    break;
  }
  diag << "; " << why;
}

/// Why a functional result must not overlap.
constexpr StringLiteral kFreshBufferRule =
    "a functional op writes a fresh buffer, which needs a distinct address "
    "for every element";

std::string resultSubject(OpResult result) {
  return "result #" + std::to_string(result.getResultNumber());
}

LogicalResult reportIllegalResult(Operation *op, OpResult result,
                                  const OverlapVerdict &verdict) {
  StridedTensorType type = tensorTypeOf(result);
  InFlightDiagnostic diag = op->emitOpError();
  explainVerdict(diag, resultSubject(result), type, verdict, kFreshBufferRule);
  if (auto operand = findResembledViewOperand(op, type, verdict.dim)) {
    Operation *view = op->getOperand(*operand).getDefiningOp();
    diag.attachNote(view->getLoc())
        << "the result copies the layout of operand #" << *operand << ", "
        << describeView(view);
  }
  Layout dense = denseLayoutFor(op, type);
  diag.attachNote() << "a dense layout such as strides = "
                    << formatDims(dense.strides)
                    << " is legal; --repair-layouts (pass option "
                       "'repair') assigns one";
  return diag;
}

//===----------------------------------------------------------------------===//
// Symbolic sizes: the same rule, proven over the symbols' ranges
//===----------------------------------------------------------------------===//

/// Says why `subject` of the symbolic `type` may overlap, and `why` that is
/// illegal there.
void explainSymbolicVerdict(InFlightDiagnostic &diag, const std::string &subject,
                            StridedTensorType type,
                            const SymbolicOverlapVerdict &verdict,
                            StringRef why) {
  using Kind = SymbolicOverlapVerdict::Kind;
  SymbolicLayout layout = type.getSymbolicLayout();
  int64_t dim = verdict.dim;
  switch (verdict.kind) {
  case Kind::ZeroStride:
    diag << subject << " has an overlapping layout "
         << (verdict.where.empty() ? "for every value of its symbols"
                                   : verdict.where)
         << ": dim " << dim << " has size " << layout.shape[dim].str()
         << " and stride 0, so all indices of that dim share one address";
    break;
  case Kind::Overlapping:
    diag << subject << " has an overlapping layout when " << verdict.where
         << ": logical indices " << formatDims(verdict.witness.first)
         << " and " << formatDims(verdict.witness.second)
         << " both map to storage address offset + "
         << verdict.witness.address << " (shape " << formatSizes(layout.shape)
         << ", strides " << formatSizes(layout.strides) << ")";
    break;
  case Kind::CannotProve:
    diag << "cannot prove that the layout of " << subject
         << " is non-overlapping for every value of its symbols (shape "
         << formatSizes(layout.shape) << ", strides "
         << formatSizes(layout.strides) << ")";
    break;
  case Kind::NonOverlapping:
    break;
  }
  diag << "; " << why;
}

/// A functional result of symbolic sizes that may overlap: an error (a
/// symbolic layout is not repaired; the repair's dense strides would be
/// row-major expressions, which the pipeline cannot compile yet).
LogicalResult reportIllegalSymbolicResult(Operation *op, OpResult result,
                                          const SymbolicOverlapVerdict &verdict) {
  StridedTensorType type = tensorTypeOf(result);
  InFlightDiagnostic diag = op->emitOpError();
  explainSymbolicVerdict(diag, resultSubject(result), type, verdict,
                         kFreshBufferRule);
  std::optional<SizeExprs> dense =
      rowMajorStrides(type.getSymbolicLayout().shape);
  if (dense)
    diag.attachNote() << "the row-major strides " << formatSizes(*dense)
                      << " are legal for every value; --repair-layouts does "
                         "not repair symbolic layouts";
  return diag;
}

/// The type of a fresh row-major copy of `type`.
StridedTensorType rowMajorCopyType(StridedTensorType type) {
  if (!type.isSymbolic())
    return StridedTensorType::getContiguous(type.getShape(),
                                            type.getElementType());
  SymbolicLayout layout = type.getSymbolicLayout();
  // Overflow is impossible: the strides are products of verified sizes.
  layout.strides = *rowMajorStrides(layout.shape);
  layout.offset = SizeExpr();
  return StridedTensorType::get(type.getElementType(), layout);
}

/// Gives the views built on `value` (transitively) the layouts their
/// (possibly changed) sources now imply.
LogicalResult reinferViewsOf(Value value) {
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value source = worklist.pop_back_val();
    for (Operation *user : source.getUsers()) {
      auto view = dyn_cast<ViewOpInterface>(user);
      if (!view || view.getSource() != source)
        continue;
      StridedTensorType sourceType = tensorTypeOf(source);
      ViewResult inferred = view.inferResultLayout(sourceType.getLayout());
      if (!inferred)
        return user->emitOpError()
               << "cannot re-infer this view after its operand's layout was "
                  "repaired: "
               << inferred.error;
      Value result = user->getResult(0);
      result.setType(sourceType.withLayout(*inferred.layout));
      worklist.push_back(result);
    }
  }
  return success();
}

LogicalResult repairResult(Operation *op, OpResult result) {
  StridedTensorType type = tensorTypeOf(result);
  Layout dense = denseLayoutFor(op, type);
  op->emitRemark() << "repaired the layout of result #"
                   << result.getResultNumber() << ": strides "
                   << formatDims(type.getStrides())
                   << " overlap, using the dense strides "
                   << formatDims(dense.strides);
  result.setType(type.withLayout(dense));
  return reinferViewsOf(result);
}

/// A function result that is not a functional op's fresh buffer (a view of
/// part of a buffer, a state) is cloned into a buffer of its own. Returned
/// as they are: a reshape of a whole fresh buffer (that buffer under
/// another shape), and an argument or a view of one that the module hands
/// back as the caller's own storage (returnedInput: an aliased output, no
/// copy).
/// An in-place write (a result written back into an argument: a state, or
/// a mutated input) follows the rule of a functional result: every element
/// of the storage it writes needs an address of its own. The error is at
/// the op that computes the written value (the node that writes).
LogicalResult checkInPlaceWrites(func::FuncOp func) {
  Operation *ret = func.getBody().front().getTerminator();
  bool failed = false;
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r) {
    auto target =
        func.getResultAttrOfType<StringAttr>(r, StrideDialect::kWritesAttrName);
    if (!target)
      continue;
    for (BlockArgument arg : func.getArguments()) {
      if (argumentName(func, arg.getArgNumber()) != target.getValue())
        continue;
      StridedTensorType type = tensorTypeOf(arg);
      OverlapVerdict verdict;
      SymbolicOverlapVerdict symbolicVerdict;
      if (type.isSymbolic())
        symbolicVerdict = checkNonOverlapping(type.getSymbolicLayout(),
                                              declaredSymbols(func));
      else
        verdict = checkNonOverlapping(type.getShape(), type.getStrides());
      if (verdict.ok() && symbolicVerdict.ok())
        continue;
      Value written = ret->getOperand(r);
      Operation *writer = written.getDefiningOp();
      InFlightDiagnostic diag = writer ? writer->emitOpError()
                                       : func.emitOpError();
      diag << "writes in place into '" << target.getValue()
           << "' (result #" << r << " of the graph writes it back), but ";
      StringRef why = "an in-place write needs a distinct address for every "
                      "element of the storage it writes, or the writes of "
                      "distinct elements collide";
      std::string subject = "'" + target.getValue().str() + "'";
      if (type.isSymbolic())
        explainSymbolicVerdict(diag, subject, type, symbolicVerdict, why);
      else
        explainVerdict(diag, subject, type, verdict, why);
      diag.attachNote(arg.getLoc())
          << "'" << target.getValue() << "' is argument #"
          << arg.getArgNumber() << " of type " << type;
      failed = true;
    }
  }
  return mlir::failure(failed);
}

void materializeAliasedResults(func::FuncOp func) {
  func.walk([&](func::ReturnOp ret) {
    OpBuilder builder(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      StridedTensorType type = tensorTypeOf(operand.get());
      Operation *def = operand.get().getDefiningOp();
      if (!type || (def && writesFreshBuffers(def)) ||
          isReshapeOfFreshBuffer(operand.get()))
        continue;
      // A result written back into an argument keeps the argument's
      // layout (checked above); any other, row-major.
      bool writesBack = func.getResultAttr(operand.getOperandNumber(),
                                           StrideDialect::kWritesAttrName) !=
                        nullptr;
      if (!writesBack && returnedInput(func, operand.get()))
        continue;
      auto fresh = writesBack ? type : rowMajorCopyType(type);
      operand.set(CloneOp::create(builder, ret.getLoc(), fresh, operand.get()));
    }
  });
}

void updateFunctionType(func::FuncOp func) {
  func.walk([&](func::ReturnOp ret) {
    func.setFunctionType(FunctionType::get(func.getContext(),
                                           func.getArgumentTypes(),
                                           ret.getOperandTypes()));
  });
}

struct LegalizeLayoutsPass
    : public stride::impl::LegalizeLayoutsBase<LegalizeLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // In-place writes first: their storage cannot be repaired, and a copy
    // into it would be reported as a functional result.
    if (mlir::failed(checkInPlaceWrites(func)))
      return signalPassFailure();
    bool failed = false;
    SymbolRanges symbols = declaredSymbols(func);
    func.walk([&](Operation *op) {
      if (!writesFreshBuffers(op))
        return;
      for (OpResult result : op->getResults()) {
        StridedTensorType type = tensorTypeOf(result);
        if (!type)
          continue;
        if (type.isSymbolic()) {
          SymbolicOverlapVerdict verdict =
              checkNonOverlapping(type.getSymbolicLayout(), symbols);
          if (!verdict.ok())
            failed |= mlir::failed(
                reportIllegalSymbolicResult(op, result, verdict));
          continue;
        }
        OverlapVerdict verdict =
            checkNonOverlapping(type.getShape(), type.getStrides());
        if (verdict.ok())
          continue;
        LogicalResult handled = repair ? repairResult(op, result)
                                       : reportIllegalResult(op, result, verdict);
        failed |= mlir::failed(handled);
      }
    });
    if (failed)
      return signalPassFailure();
    materializeAliasedResults(func);
    updateFunctionType(func);
  }
};

} // namespace
