//===- Pointwise.cpp - Pointwise kernels ----------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (a), schemes grid_stride and vectorized: a grid-stride loop over the
// logical elements; vectorized, each thread computes 4 consecutive elements
// of the innermost dim per step, and aligned operands move as one 4-element
// access.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult PointwisePrinter::printBody(Code &body) {
  if (facts.isSymbolic())
    return printSymbolic(body);
  int64_t n = printIterationSpace(body);
  if (n == 0)
    return success();
  if (schedule.getScheme() == KernelScheme::Vectorized)
    return printVectorized(body, n);
  Coords coords = openGridStrideLoop(body, iterationShape, n);
  pushScope();
  if (failed(storeYields(body, coords)))
    return failure();
  popScope();
  body.close();
  return success();
}

LogicalResult PointwisePrinter::printSymbolic(Code &body) {
  SizeExpr n = SizeExpr::constant(1);
  for (const SizeExpr &size : facts.symbolicShape)
    n = *n.times(size);
  body.line("// iteration space: {} elements ({}), sizes from the size "
            "parameters",
            n.str(), formatSizes(facts.symbolicShape));
  if (schedule.getScheme() == KernelScheme::Vectorized)
    return printSymbolicVectorized(body, n);
  std::string i = fresh("linear");
  body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * blockDim.x + "
                        "threadIdx.x; {1} < {2}; {1} += ({0})gridDim.x * "
                        "blockDim.x)",
                        idx, i, sizeText(n)));
  Coords coords = delinearize(body, i, facts.symbolicShape);
  pushScope();
  if (failed(storeYields(body, coords)))
    return failure();
  popScope();
  body.close();
  return success();
}

LogicalResult PointwisePrinter::printSymbolicVectorized(Code &body,
                                                        const SizeExpr &n) {
  // The scheduler chose it where a quarter of `n` is one term.
  SizeExpr quads = *SizeExpr::constant(4).dividedInto(n);
  std::string first = openQuadLoop(body, sizeText(quads));
  return printLanes(body, delinearize(body, first, facts.symbolicShape));
}

LogicalResult PointwisePrinter::printVectorized(Code &body, int64_t n) {
  std::string first = openQuadLoop(body, std::to_string(n / 4));
  return printLanes(body, delinearize(body, first, iterationShape));
}

std::string PointwisePrinter::openQuadLoop(Code &body,
                                           const std::string &quads) {
  body.line("// 4 consecutive elements of the innermost dim per thread and "
            "step; aligned operands move as one 4-element access");
  std::string q = fresh("quad");
  body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * blockDim.x + "
                        "threadIdx.x; {1} < {2}; {1} += ({0})gridDim.x * "
                        "blockDim.x)",
                        idx, q, quads));
  std::string first = fresh("linear");
  body.line("const {} {} = {} * 4;", idx, first, q);
  return first;
}

LogicalResult PointwisePrinter::printLanes(Code &body, const Coords &coords) {
  // Lane k: the coordinates of the first element, the innermost plus k.
  lanes.assign(4, coords);
  for (int k = 1; k < 4; ++k) {
    std::string c = fresh("i");
    body.line("const {} {} = {} + {};", idx, c, coords.back(), k);
    lanes[k].back() = c;
  }
  if (failed(evalAndStoreLanes(body)))
    return failure();
  body.close();
  return success();
}

} // namespace stride
