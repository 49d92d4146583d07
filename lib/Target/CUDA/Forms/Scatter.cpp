//===- Scatter.cpp - Index scatter kernels --------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (c), scheme scatter: scatter, scatter_add and index_add in two
// launches of one function: phase 0 copies the input to the output, phase 1
// adds or writes each update with atomics.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult ScatterPrinter::printBody(Code &body) {
  auto scatter = cast<IndexScatterOpInterface>(facts.scatterRoot);
  Operation *op = facts.scatterRoot;
  auto srcType = cast<StridedTensorType>(scatter.getSrc().getType());
  auto indexType = cast<StridedTensorType>(scatter.getIndex().getType());
  // scatter/scatter_add iterate over the index tensor, index_add over the
  // source.
  SmallVector<int64_t> updateShape(scatter.isSliceIndex()
                                       ? srcType.getShape()
                                       : indexType.getShape());
  int64_t outN = product(iterationShape), updateN = product(updateShape);

  body.line("// {} at {} along dim {}: phase 0 copies the input ({} elements, "
            "{}),",
            opName(op), formatLocation(op->getLoc()), scatter.getDim(), outN,
            shapeText(iterationShape));
  body.line("// phase 1 {} the {} ({} elements, {})",
            scatter.isAccumulating() ? "accumulates atomically" : "writes",
            scatter.isSliceIndex() ? "source" : "index", updateN,
            shapeText(updateShape));

  body.open("if (phase == 0)");
  if (outN > 0 && failed(printCopy(body, scatter.getInput(), outN)))
    return failure();
  body.close("} else {");
  ++body.indent;
  if (updateN > 0 && outN > 0) {
    if (failed(printUpdates(body, scatter, updateShape)))
      return failure();
  } else if (updateN > 0) {
    body.line("// the output has no elements: nothing to scatter");
  }
  body.close();
  return success();
}

LogicalResult ScatterPrinter::printCopy(Code &body, Value input, int64_t n) {
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  Coords c = openGridStrideLoop(body, iterationShape, n);
  pushScope();
  FailureOr<std::string> v = eval(input, c, body);
  if (failed(v))
    return failure();
  body.line("stride_st(&out0[{}], {});", address(outType, c), *v);
  popScope();
  body.close();
  return success();
}

LogicalResult ScatterPrinter::printUpdates(Code &body,
                                           IndexScatterOpInterface scatter,
                                           ArrayRef<int64_t> updateShape) {
  Operation *op = facts.scatterRoot;
  int64_t dim = scatter.getDim();
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  Coords c = openGridStrideLoop(body, updateShape, product(updateShape));
  pushScope();
  // index_add's index is read at the coordinate along dim, a scatter's at
  // the update's own coordinates.
  Coords indexCoords =
      scatter.isSliceIndex() ? Coords{c[dim]} : Coords(c.begin(), c.end());
  FailureOr<std::string> i =
      evalIndex(op, scatter.getIndex(), indexCoords,
                SizeExpr::constant(outType.getShape()[dim]), body, true);
  if (failed(i))
    return failure();
  FailureOr<std::string> v = eval(scatter.getSrc(), c, body);
  if (failed(v))
    return failure();
  Coords outCoords(c.begin(), c.end());
  outCoords[dim] = *i;
  if (scatter.isAccumulating())
    body.line("stride_atomic_add(&out0[{}], {});", address(outType, outCoords),
              *v);
  else
    body.line("stride_st(&out0[{}], {});", address(outType, outCoords), *v);
  popScope();
  body.close();
  return success();
}

} // namespace stride
