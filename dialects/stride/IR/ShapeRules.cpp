//===- ShapeRules.cpp - Shape checks the op verifiers share ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/ShapeRules.h"
#include "dialects/stride/IR/SymbolicSizes.h"

using namespace mlir;

namespace stride {

static StridedTensorType tensorType(Value value) {
  return cast<StridedTensorType>(value.getType());
}

SizeExprs sizesOf(Value value) {
  return tensorType(value).getSymbolicLayout().shape;
}

bool provenAtMost(Operation *op, const SizeExpr &a, const SizeExpr &b) {
  std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
  if (ca && cb)
    return *ca <= *cb;
  SymbolRanges symbols = enclosingSymbols(op);
  std::optional<SizeExpr> difference = b.minus(a);
  std::optional<SizeInterval> bounds =
      difference ? difference->bounds(symbols) : std::nullopt;
  if (bounds && bounds->lo >= 0)
    return true;
  // Where interval arithmetic is too loose (seq <= seq*seq over seq in
  // [1, 80]): `b` is `a`, a size, times a factor of at least 1.
  std::optional<SizeExpr> factor = a.dividedInto(b);
  std::optional<SizeInterval> factorBounds =
      factor ? factor->bounds(symbols) : std::nullopt;
  return factorBounds && factorBounds->lo >= 1;
}

LogicalResult verifyShapeIs(Operation *op, StringRef what, Value value,
                            const SizeExprs &expected, StringRef because) {
  SizeExprs actual = sizesOf(value);
  if (actual == expected)
    return success();
  return op->emitOpError() << what << " has shape " << formatSizes(actual)
                           << ", expected " << formatSizes(expected) << " ("
                           << because << ")";
}

LogicalResult verifyShapeIs(Operation *op, StringRef what, Value value,
                            ArrayRef<int64_t> expected, StringRef because) {
  SizeExprs sizes;
  for (int64_t size : expected)
    sizes.push_back(SizeExpr::constant(size));
  return verifyShapeIs(op, what, value, sizes, because);
}

InFlightDiagnostic errorWithNoteAt(Operation *op, Value value,
                                   StringRef valueName) {
  InFlightDiagnostic diag = op->emitOpError();
  diag.attachNote(value.getLoc()) << valueName << " is defined here";
  return diag;
}

LogicalResult
verifyElementTypesMatch(Operation *op, StringRef referenceName, Value reference,
                        ArrayRef<std::pair<StringRef, Value>> values,
                        StringRef rule) {
  Type element = tensorType(reference).getElementType();
  for (auto [name, value] : values) {
    if (!value || tensorType(value).getElementType() == element)
      continue;
    return errorWithNoteAt(op, value, name)
           << name << " has element type " << tensorType(value).getElementType()
           << " but " << referenceName << " has " << element << "; " << rule;
  }
  return success();
}

} // namespace stride
