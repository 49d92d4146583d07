//===- SymbolicViews.cpp - The views' layouts over symbolic sizes --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ViewOpInterface::inferSymbolicResultLayout of each view: the rules of
// stride/Support/SymbolicLayout.h, as inferResultLayout (StrideOps.cpp)
// applies Layout.h's.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideOps.h"

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
  return inferSlice(source, getDim(), getStart(), getEnd(), getStep(), table);
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
