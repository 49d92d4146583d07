//===- SplitReduction.cpp - Reductions split across blocks ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (b), scheme reduction_split: a reduction to few outputs over many
// elements (a full sum), two launches of one function. Phase 1 splits each
// output's reduced range into `slices` slices, one block of `threads`
// threads each; the block's threads stride over the slice (4 consecutive
// elements per step when the schedule's vector width is 4) and combine
// their accumulators with a tree, shuffles then shared memory, into one
// partial result per slice in scratch. Phase 2 gives each output a block
// that combines its partials the same way, resets them to zero (scratch
// starts zeroed and each run leaves it so) and computes the epilogue.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult ReductionPrinter::printSplit(Code &body, int64_t m,
                                           ArrayRef<int64_t> reducedShape) {
  int64_t l = product(reducedShape), slices = schedule.getSlices();
  int64_t chunk = llvm::alignTo(ceilDiv(l, slices), schedule.getVectorWidth());
  Threads t;
  t.blockReduce = true;
  t.perOutput = t.block = schedule.getThreads();
  body.line("// each output's {} reduced elements in {} slices of {}, a block "
            "of {} threads each: phase 1 reduces each slice into its partial "
            "result, phase 2 combines each output's partials",
            l, slices, chunk, t.block);
  declareAccumulators(body, t);
  for (auto [i, r] : llvm::enumerate(reductions))
    body.line("{0} *__restrict__ partials{1} = reinterpret_cast<{0} *>"
              "(scratch{1});",
              accumulatorType(r.dtype), i);
  body.open("if (phase == 1)");
  if (failed(printSlices(body, t, m, reducedShape, chunk)))
    return failure();
  body.close();
  body.open("else");
  if (failed(printPartialsCombine(body, t, m, l)))
    return failure();
  body.close();
  return success();
}

LogicalResult ReductionPrinter::printSlices(Code &body, const Threads &t,
                                            int64_t m,
                                            ArrayRef<int64_t> reducedShape,
                                            int64_t chunk) {
  int64_t l = product(reducedShape), slices = schedule.getSlices(),
          vector = schedule.getVectorWidth();
  std::string unit = fresh("slice"), o = fresh("o"), begin = fresh("begin"),
              end = fresh("end"), r = fresh("r");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, unit, m * slices));
  body.line("const {} {} = {} / {};", idx, o, unit, slices);
  body.line("const {} {} = {} % {} * {};", idx, begin, unit, slices, chunk);
  body.line("const {0} {1} = {2} < {3} - {4} ? {2} + {4} : {3};", idx, end,
            begin, l, chunk);
  initAccumulators(body);
  Coords outCoords = delinearize(body, o, iterationShape);
  body.open(fmt::format("for ({0} {1} = {2} + ({0})threadIdx.x * {3}; {1} < "
                        "{4}; {1} += {5})",
                        idx, r, begin, vector, end, t.block * vector));
  if (failed(accumulateElements(body, outCoords,
                                delinearize(body, r, reducedShape))))
    return failure();
  body.close();
  std::string leader = printCombine(body, t, "");
  body.open(fmt::format("if ({})", leader));
  for (auto [i, info] : llvm::enumerate(reductions))
    body.line("partials{}[{}] = {};", i, unit, info.acc);
  body.close();
  body.close();
  return success();
}

LogicalResult
ReductionPrinter::accumulateElements(Code &body, ArrayRef<std::string> outCoords,
                                     const Coords &reduced) {
  Coords first = inputCoords(outCoords, reduced);
  int64_t vector = schedule.getVectorWidth();
  // With 4 elements per step the last reduced dim is the input's innermost
  // (the schedule checks it): lane k is k elements further along it.
  lanes.assign(vector, first);
  for (int64_t k = 1; k < vector; ++k) {
    std::string c = fresh("i");
    body.line("const {} {} = {} + {};", idx, c, first.back(), k);
    lanes[k].back() = c;
  }
  pushScope();
  for (ReductionInfo &info : reductions) {
    for (int64_t k = 0; k < vector; ++k) {
      vectorLane = vector > 1 ? static_cast<int>(k) : -1;
      FailureOr<std::string> v = eval(info.input, lanes[k], body);
      vectorLane = -1;
      if (failed(v))
        return failure();
      body.line("{} = {};", info.acc, accumulated(info, *v));
    }
  }
  popScope();
  lanes.clear();
  return success();
}

LogicalResult ReductionPrinter::printPartialsCombine(Code &body,
                                                     const Threads &t,
                                                     int64_t m,
                                                     int64_t reducedElements) {
  int64_t slices = schedule.getSlices();
  std::string o = fresh("o"), k = fresh("k");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, o, m));
  initAccumulators(body);
  body.open(fmt::format("for ({0} {1} = ({0})threadIdx.x; {1} < {2}; {1} += "
                        "{3})",
                        idx, k, slices, t.block));
  for (auto [i, info] : llvm::enumerate(reductions)) {
    std::string at = fmt::format("partials{}[{} * {} + {}]", i, o, slices, k);
    body.line("{} = {};", info.acc, combineOf(info.kind, info.acc, at));
    body.line("{} = 0;", at);
  }
  body.close();
  std::string leader = printCombine(body, t, "");
  Coords outCoords = delinearize(body, o, iterationShape);
  if (failed(printResults(body, leader, outCoords, reducedElements)))
    return failure();
  body.close();
  return success();
}

} // namespace stride
