//===- Scatter.cpp - Index scatter kernels --------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (c), scheme scatter: scatter, scatter_add and index_add, or sibling
// scatters (KernelContract.h), in two launches of one function: phase 0
// copies each input to its output, phase 1 adds or writes each update with
// atomics, reading the siblings' one index once per update.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult ScatterPrinter::printBody(Code &body) {
  // Interface handles, copied: their methods are not const.
  SmallVector<IndexScatterOpInterface> scatters(facts.scatters);
  IndexScatterOpInterface first = scatters.front();
  auto srcType = cast<StridedTensorType>(first.getSrc().getType());
  auto indexType = cast<StridedTensorType>(first.getIndex().getType());
  // scatter/scatter_add iterate over the index tensor, index_add over the
  // source; sibling scatters share their index (KernelContract.h).
  SmallVector<int64_t> updateShape(first.isSliceIndex()
                                       ? srcType.getShape()
                                       : indexType.getShape());
  int64_t outN = product(iterationShape), updateN = product(updateShape);

  auto accumulating = [](IndexScatterOpInterface scatter) {
    return scatter.isAccumulating();
  };
  bool adds = llvm::any_of(scatters, accumulating),
       writes = !llvm::all_of(scatters, accumulating);
  for (auto [i, scatter] : llvm::enumerate(scatters))
    body.line("// out{}: {} at {} along dim {}", i,
              opName(scatter.getOperation()),
              formatLocation(scatter->getLoc()), scatter.getDim());
  body.line("// phase 0 copies the input{} ({} elements, {}),",
            scatters.size() > 1 ? "s" : "", outN, shapeText(iterationShape));
  body.line("// phase 1 {}{}{} the {} ({} elements, {})",
            writes ? "writes" : "", writes && adds ? " or " : "",
            adds ? "accumulates atomically" : "",
            first.isSliceIndex() ? "source" : "index", updateN,
            shapeText(updateShape));

  body.open("if (phase == 0)");
  if (outN > 0 && failed(printCopies(body, outN)))
    return failure();
  body.close("} else {");
  ++body.indent;
  if (updateN > 0 && outN > 0) {
    if (failed(printUpdates(body, updateShape)))
      return failure();
  } else if (updateN > 0) {
    body.line("// the output has no elements: nothing to scatter");
  }
  body.close();
  return success();
}

LogicalResult ScatterPrinter::printCopies(Code &body, int64_t n) {
  Coords c = openGridStrideLoop(body, iterationShape, n);
  pushScope();
  for (unsigned i = 0, e = facts.scatters.size(); i < e; ++i) {
    IndexScatterOpInterface scatter = facts.scatters[i];
    auto outType = cast<StridedTensorType>(kernel.getResult(i).getType());
    FailureOr<std::string> v = eval(scatter.getInput(), c, body);
    if (failed(v))
      return failure();
    body.line("stride_st(&out{}[{}], {});", i, address(outType, c), *v);
  }
  popScope();
  body.close();
  return success();
}

LogicalResult ScatterPrinter::printUpdates(Code &body,
                                           ArrayRef<int64_t> updateShape) {
  IndexScatterOpInterface first = facts.scatters.front();
  int64_t dim = first.getDim();
  Coords c = openGridStrideLoop(body, updateShape, product(updateShape));
  pushScope();
  // index_add's index is read at the coordinate along dim, a scatter's at
  // the update's own coordinates; once for all siblings, whose index is
  // one expression.
  Coords indexCoords =
      first.isSliceIndex() ? Coords{c[dim]} : Coords(c.begin(), c.end());
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  FailureOr<std::string> i =
      evalIndex(first, first.getIndex(), indexCoords,
                SizeExpr::constant(outType.getShape()[dim]), body, true);
  if (failed(i))
    return failure();
  Coords outCoords(c.begin(), c.end());
  outCoords[dim] = *i;
  for (unsigned k = 0, e = facts.scatters.size(); k < e; ++k) {
    IndexScatterOpInterface scatter = facts.scatters[k];
    FailureOr<std::string> v = eval(scatter.getSrc(), c, body);
    if (failed(v))
      return failure();
    body.line("{}(&out{}[{}], {});",
              scatter.isAccumulating() ? "stride_atomic_add" : "stride_st", k,
              address(cast<StridedTensorType>(kernel.getResult(k).getType()),
                      outCoords),
              *v);
  }
  popScope();
  body.close();
  return success();
}

} // namespace stride
