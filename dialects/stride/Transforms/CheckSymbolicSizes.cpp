//===- CheckSymbolicSizes.cpp - Refuse symbolic sizes past their stages ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-check-symbolic-sizes (Passes.td): the first pass of the pipeline.
// The backend builds pointwise ops, views (but as_strided of computed
// values), gathers and reductions over symbolic sizes (kernels that take
// sizes as arguments, plans sized at run time), and products over symbolic
// rows (cuBLASLt calls whose descriptors are size expressions), and
// attention over symbolic batch and token counts (a cuDNN call whose graph
// the runtime builds per shape); anything
// else over them stops here with one located error naming the op and what
// is not built
// (python-free-docs/symbolic-sizes.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "dialects/stride/Transforms/Passes.h"
#include "dialects/stride/Transforms/SymbolicProducts.h"
#include "stride/Support/MatmulLayout.h"

namespace stride {
#define GEN_PASS_DEF_CHECKSYMBOLICSIZES
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// "'batch' (1 to 1024)", with "multiples of 8" where that applies.
std::string describeSymbol(const std::string &name,
                           const SymbolRanges &table) {
  auto it = table.find(name);
  if (it == table.end())
    return "'" + name + "' (undeclared)";
  const SizeSymbol &symbol = it->second;
  std::string text = "'" + name + "' (" + std::to_string(symbol.min) +
                     " to " + std::to_string(symbol.max);
  if (symbol.multipleOf != 1)
    text += ", multiples of " + std::to_string(symbol.multipleOf);
  return text + ")";
}

bool isSymbolicType(Type type) {
  auto tensor = dyn_cast<StridedTensorType>(type);
  return tensor && tensor.isSymbolic();
}

bool touchesSymbolicSizes(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isSymbolicType) ||
         llvm::any_of(op->getResultTypes(), isSymbolicType);
}

/// A view chain that starts at an argument or a constant (a weight's bias
/// broadcast over symbolic rows): a kernel reads it at the address its own
/// type gives, which the emitter prints over the size parameters, and a
/// product reads the constant itself as its bias.
bool isViewOfArgument(ViewOpInterface view) {
  Value source = view.getSource();
  while (auto inner = source.getDefiningOp<ViewOpInterface>())
    source = inner.getSource();
  return isa<BlockArgument>(source) || source.getDefiningOp<ConstantOp>();
}

bool hasSymbolicLayout(Value value, ArrayRef<int64_t> dims) {
  SymbolicLayout layout =
      cast<StridedTensorType>(value.getType()).getSymbolicLayout();
  for (int64_t d : dims)
    if (!layout.shape[d].isConstant())
      return true;
  return false;
}

bool hasSymbolicStrides(Value value) {
  SymbolicLayout layout =
      cast<StridedTensorType>(value.getType()).getSymbolicLayout();
  return !layout.offset.isConstant() ||
         llvm::any_of(layout.strides,
                      [](const SizeExpr &s) { return !s.isConstant(); });
}

} // namespace

/// With static strides the library reads each operand in place at one
/// leading dimension and batch stride for the whole range, and only the
/// call's n, batch and D's stride change with the shape.
std::optional<std::string> stride::missingForSymbolicProduct(MatmulOp matmul) {
  int64_t rank = matmul.getResult().getType().getRank();
  SmallVector<int64_t> innerBatch;
  for (int64_t d = 1; d + 2 < rank; ++d)
    innerBatch.push_back(d);
  Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
  if (hasSymbolicLayout(lhs, {rank - 1}) ||
      hasSymbolicLayout(rhs, {rank - 2, rank - 1}))
    return std::string("products over a symbolic contraction or column "
                       "count (cuBLASLt is called over symbolic rows and a "
                       "symbolic leading batch dim only)");
  if (hasSymbolicLayout(matmul.getResult(), innerBatch))
    return std::string("products over a symbolic batch dim other than the "
                       "first");
  Value bias = matmul.getBias();
  if (hasSymbolicStrides(lhs) || hasSymbolicStrides(rhs) ||
      hasSymbolicStrides(matmul.getResult()) ||
      (bias && hasSymbolicStrides(bias)))
    return std::string("products whose operands or result have symbolic "
                       "strides or offsets (cuBLASLt reads them at one "
                       "leading dimension and batch stride for the whole "
                       "range)");
  auto at = [&](Value v) {
    return layoutAtLargest(cast<StridedTensorType>(v.getType()), matmul);
  };
  std::optional<Layout> lhsAt = at(lhs), rhsAt = at(rhs),
                        resultAt = at(matmul.getResult());
  if (!lhsAt || !rhsAt || !resultAt || !matmulOperandLayout(*lhsAt) ||
      !matmulOperandLayout(*rhsAt) || !matmulResultLayout(*resultAt) ||
      (bias && (!at(bias) || !isContiguousVector(*at(bias)))))
    return std::string("products whose operands cuBLASLt cannot read in "
                       "place or whose result it cannot write (the copy "
                       "stride-matmul-layout makes is over static sizes)");
  return std::nullopt;
}

namespace {

/// Why the backend does not build `op` over symbolic sizes, for the
/// message: nullopt when it builds it; "" for an op of a kind it builds
/// none of.
std::optional<std::string> missingFor(Operation *op) {
  // Pointwise ops, the leaves a kernel computes from the coordinates
  // (full, iota), gathers, whose index bounds the verifiers proved over the
  // ranges, reductions (rows of a symbolic count or length),
  // concatenations (their boundaries sums of sizes) and scans (rows of a
  // symbolic count or length) take the size parameters.
  if (op->hasTrait<OpTrait::IsTerminator>() || op->hasTrait<Elementwise>() ||
      isa<FullOp, IotaOp, IndexSelectOp, GatherOp, ReductionOpInterface,
          CatOp, CumsumOp>(op))
    return std::nullopt;
  // An outer product becomes a broadcast multiply (stride-outer-products).
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return isPlainOuterProduct(matmul) ? std::nullopt
                                       : missingForSymbolicProduct(matmul);
  // Attention over a symbolic batch and token counts is one cuDNN call
  // whose graph the runtime builds per shape; the heads' count (the
  // verifiers) and the head dims stay static. The fallback refuses what
  // cuDNN does not take (stride-decompose-attention).
  auto attentionOperands = [](auto attention) {
    return SmallVector<Value>{attention.getQuery(), attention.getKey(),
                              attention.getValue()};
  };
  SmallVector<Value> attention;
  if (auto forward = dyn_cast<AttentionOp>(op))
    attention = attentionOperands(forward);
  if (auto backward = dyn_cast<AttentionBackwardOp>(op))
    attention = attentionOperands(backward);
  if (!attention.empty()) {
    if (llvm::any_of(attention, [](Value v) {
          return !cast<StridedTensorType>(v.getType())
                      .getSymbolicLayout()
                      .shape[3]
                      .isConstant();
        }))
      return std::string("attention over a symbolic head dim (cuDNN's "
                         "graph per shape takes symbolic batch and token "
                         "counts)");
    return std::nullopt;
  }
  // A kernel maps coordinates through a view of a computed value: an
  // index map that names no size (expand, permute, squeeze, unsqueeze,
  // slice, select: a reduction's result broadcast back over its rows), or
  // a reshape's split over the size parameters (KernelPrinter); but
  // `as_strided`, whose map reads its source's static layout.
  if (auto view = dyn_cast<ViewOpInterface>(op)) {
    if (!isa<AsStridedOp>(op) || isViewOfArgument(view))
      return std::nullopt;
    return std::string("as_strided views of computed values (their index "
                       "maps read the source's static layout)");
  }
  return std::string();
}

struct CheckSymbolicSizesPass
    : public stride::impl::CheckSymbolicSizesBase<CheckSymbolicSizesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::optional<SymbolicValue> found = firstSymbolicValue(func);
    if (!found)
      return;
    SymbolRanges table = declaredSymbols(func);
    if (failed(checkSymbols(func, table)) || failed(checkStates(func, table)))
      return signalPassFailure();
    WalkResult walk = func.walk([&](Operation *op) {
      if (!touchesSymbolicSizes(op))
        return WalkResult::advance();
      std::optional<std::string> missing = missingFor(op);
      if (!missing)
        return WalkResult::advance();
      std::optional<SymbolicValue> value = symbolicValueOf(op);
      InFlightDiagnostic error =
          op->emitError()
          << "'" << op->getName() << "' over the symbolic size "
          << describeSymbol(value ? value->symbol : "?", table)
          << " is not built yet: Stride compiles symbolic sizes for "
             "pointwise ops, views, gathers, concatenations, reductions, "
             "scans, products over symbolic rows and attention over "
             "symbolic batch and token counts";
      if (missing->empty())
        error << " only (issue 44)";
      else
        error << ", not yet for " << *missing << " (issue 44)";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }

  /// The first symbol a type of `op` names.
  static std::optional<SymbolicValue> symbolicValueOf(Operation *op) {
    for (Value v : llvm::concat<Value>(op->getResults(), op->getOperands()))
      if (auto t = dyn_cast<StridedTensorType>(v.getType());
          t && t.isSymbolic())
        return SymbolicValue{v, *t.getSymbolicLayout().symbols().begin()};
    return std::nullopt;
  }

  /// A size of 0 (an empty tensor) is not built: the plan's storage
  /// expressions hold for sizes of at least 1.
  static LogicalResult checkSymbols(func::FuncOp func,
                                    const SymbolRanges &table) {
    for (const auto &[name, symbol] : table)
      if (symbol.smallest() == 0)
        return func.emitError()
               << "symbol " << describeSymbol(name, table)
               << " may be 0; Stride compiles symbolic sizes of at least 1 "
                  "(empty tensors over a range are not built yet, issue 44)";
    return success();
  }

  /// States keep static sizes: a run's state persists across runs of
  /// every shape.
  static LogicalResult checkStates(func::FuncOp func,
                                   const SymbolRanges &table) {
    for (BlockArgument arg : func.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), StrideDialect::kStateAttrName) &&
          isSymbolicType(arg.getType()))
        return emitError(arg.getLoc())
               << "state '" << argumentName(func, arg.getArgNumber())
               << "' has symbolic sizes; states have static sizes";
    return success();
  }
};

} // namespace
