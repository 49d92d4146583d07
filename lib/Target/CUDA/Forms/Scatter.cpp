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
  Value input = scatter.getInput(), index = scatter.getIndex(),
        src = scatter.getSrc();
  int64_t dim = scatter.getDim();
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  auto srcType = cast<StridedTensorType>(src.getType());
  auto indexType = cast<StridedTensorType>(index.getType());
  bool accumulate = scatter.isAccumulating();
  // scatter/scatter_add iterate over the index tensor, index_add over the
  // source.
  bool isIndexAdd = scatter.isSliceIndex();
  SmallVector<int64_t> updateShape(isIndexAdd ? srcType.getShape()
                                              : indexType.getShape());
  int64_t outN = product(iterationShape), updateN = product(updateShape);
  std::string where = formatLocation(op->getLoc());

  body.line("// {} at {} along dim {}: phase 0 copies the input ({} elements, "
            "{}),",
            opName(op), where, dim, outN, shapeText(iterationShape));
  body.line("// phase 1 {} the {} ({} elements, {})",
            accumulate ? "accumulates atomically" : "writes",
            isIndexAdd ? "source" : "index", updateN, shapeText(updateShape));

  body.open("if (phase == 0)");
  if (outN > 0) {
    Coords c = openGridStrideLoop(body, iterationShape, outN);
    pushScope();
    FailureOr<std::string> v = eval(input, c, body);
    if (failed(v))
      return failure();
    body.line("stride_st(&out0[{}], {});", address(outType, c), *v);
    popScope();
    body.close();
  }
  body.close("} else {");
  ++body.indent;
  if (updateN > 0 && outN > 0) {
    Coords c = openGridStrideLoop(body, updateShape, updateN);
    pushScope();
    FailureOr<std::string> i =
        isIndexAdd
            ? evalIndex(op, index, {c[dim]}, outType.getShape()[dim], body,
                        true)
            : evalIndex(op, index, c, outType.getShape()[dim], body, true);
    if (failed(i))
      return failure();
    FailureOr<std::string> v = eval(src, c, body);
    if (failed(v))
      return failure();
    Coords outCoords(c.begin(), c.end());
    outCoords[dim] = *i;
    if (accumulate)
      body.line("stride_atomic_add(&out0[{}], {});",
                address(outType, outCoords), *v);
    else
      body.line("stride_st(&out0[{}], {});", address(outType, outCoords), *v);
    popScope();
    body.close();
  } else if (updateN > 0) {
    body.line("// the output has no elements: nothing to scatter");
  }
  body.close();
  return success();
}

} // namespace stride
