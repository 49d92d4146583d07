//===- SymbolicViews.cpp - The views' layouts over symbolic sizes --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ViewOpInterface::inferSymbolicResultLayout of each view: the rules of
// stride/Support/SymbolicLayout.h, as inferResultLayout (StrideOps.cpp)
// applies Layout.h's; and stride.slice's bounds that are size expressions.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideOps.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace stride;

SymbolicViewResult
ExpandOp::inferSymbolicResultLayout(const SymbolicLayout &source,
                                    const SymbolRanges &) {
  return inferExpand(source, getResult().getType().getSymbolicLayout().shape);
}

SymbolicViewResult
UnsqueezeOp::inferSymbolicResultLayout(const SymbolicLayout &source,
                                       const SymbolRanges &) {
  return inferUnsqueeze(source, getDim());
}

SymbolicViewResult
SqueezeOp::inferSymbolicResultLayout(const SymbolicLayout &source,
                                     const SymbolRanges &) {
  return inferSqueeze(source, getDims());
}

SymbolicViewResult
PermuteOp::inferSymbolicResultLayout(const SymbolicLayout &source,
                                     const SymbolRanges &) {
  return inferPermute(source, getDims());
}

SymbolicViewResult
SliceOp::inferSymbolicResultLayout(const SymbolicLayout &source,
                                   const SymbolRanges &table) {
  SizeExpr start = getStartExpr(), end = getEndExpr();
  for (const SizeExpr *bound : {&start, &end})
    for (const std::string &name : bound->symbols())
      if (!table.count(name))
        return SymbolicViewResult::failure(
            "slice bound " + bound->str() + " names the symbol '" + name +
            "', which the function does not declare in stride.symbols");
  return inferSlice(source, getDim(), start, end, getStep(), table);
}

//===----------------------------------------------------------------------===//
// stride.slice's bounds
//===----------------------------------------------------------------------===//

/// The attributes of a bound: the constant as an integer, an expression of
/// symbols as ShapedType::kDynamic beside its #stride.size.
static std::pair<IntegerAttr, SizeExprAttr> boundAttrs(MLIRContext *context,
                                                       const SizeExpr &bound) {
  auto i64 = IntegerType::get(context, 64);
  if (std::optional<int64_t> value = bound.getConstant())
    return {IntegerAttr::get(i64, *value), nullptr};
  return {IntegerAttr::get(i64, ShapedType::kDynamic),
          SizeExprAttr::get(context, bound)};
}

void SliceOp::build(OpBuilder &builder, OperationState &state, Type type,
                    Value input, int64_t dim, const SizeExpr &start,
                    const SizeExpr &end, int64_t step) {
  auto [startAttr, symbolicStart] = boundAttrs(builder.getContext(), start);
  auto [endAttr, symbolicEnd] = boundAttrs(builder.getContext(), end);
  build(builder, state, type, input, builder.getI64IntegerAttr(dim),
        startAttr, endAttr, builder.getI64IntegerAttr(step), symbolicStart,
        symbolicEnd);
}

void SliceOp::setBounds(const SizeExpr &start, const SizeExpr &end) {
  auto [startAttr, symbolicStart] = boundAttrs(getContext(), start);
  auto [endAttr, symbolicEnd] = boundAttrs(getContext(), end);
  setStartAttr(startAttr);
  setEndAttr(endAttr);
  setSymbolicStartAttr(symbolicStart);
  setSymbolicEndAttr(symbolicEnd);
}

static SizeExpr boundExpr(uint64_t bound, SizeExprAttr symbolic) {
  return symbolic ? symbolic.getValue()
                  : SizeExpr::constant(static_cast<int64_t>(bound));
}

SizeExpr SliceOp::getStartExpr() {
  return boundExpr(getStart(), getSymbolicStartAttr());
}

SizeExpr SliceOp::getEndExpr() {
  return boundExpr(getEnd(), getSymbolicEndAttr());
}

/// The two halves of a bound agree: an expression of symbols beside
/// ShapedType::kDynamic (the view rule has checked its value).
static LogicalResult verifyBound(SliceOp op, StringRef name, int64_t bound,
                                 SizeExprAttr symbolic) {
  if (!symbolic)
    return success();
  if (symbolic.getValue().isConstant())
    return op.emitOpError()
           << "symbolic_" << name << " " << symbolic.getValue().str()
           << " is a constant; a constant bound is the static " << name;
  if (bound != ShapedType::kDynamic)
    return op.emitOpError() << "has both a static " << name << " " << bound
                            << " and the symbolic one "
                            << symbolic.getValue().str();
  return success();
}

LogicalResult SliceOp::verify() {
  return failure(
      failed(verifyBound(*this, "start", static_cast<int64_t>(getStart()),
                         getSymbolicStartAttr())) ||
      failed(verifyBound(*this, "end", static_cast<int64_t>(getEnd()),
                         getSymbolicEndAttr())));
}

ParseResult stride::parseSliceBound(OpAsmParser &parser, IntegerAttr &bound,
                                    SizeExprAttr &symbolic) {
  SizeExpr expr;
  if (parseSizeExpr(parser, expr))
    return failure();
  std::tie(bound, symbolic) = boundAttrs(parser.getContext(), expr);
  return success();
}

void stride::printSliceBound(OpAsmPrinter &printer, Operation *,
                             IntegerAttr bound, SizeExprAttr symbolic) {
  if (symbolic)
    printer << symbolic.getValue().str();
  else
    printer << bound.getInt();
}

SymbolicViewResult
SelectOp::inferSymbolicResultLayout(const SymbolicLayout &source,
                                    const SymbolRanges &table) {
  return inferSelect(source, getDim(), getIndex(), table);
}

SymbolicViewResult
ViewOp::inferSymbolicResultLayout(const SymbolicLayout &source,
                                  const SymbolRanges &) {
  return inferView(source, getResult().getType().getSymbolicLayout().shape);
}

SymbolicViewResult
AsStridedOp::inferSymbolicResultLayout(const SymbolicLayout &,
                                       const SymbolRanges &) {
  // Its layout is absolute in the operand's storage: the bound of the
  // addresses it reaches over a range is not built.
  return SymbolicViewResult::failure(
      "as_strided over symbolic sizes is not supported: the bound of the "
      "addresses it reaches over the symbols' ranges is not built (issue 44)");
}
