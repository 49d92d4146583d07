//===- SplitReduction.cpp - Reductions split across blocks ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (b), scheme reduction_split: reductions whose outputs alone cannot
// fill the GPU, in one launch. Each output's reduced range is cut into
// `slices` slices, a block each (a unit of the blocks' grid-strided loop),
// which writes one partial result per output and slice to scratch, fences
// it and counts its arrival in the output's counter (one per column tile
// for an outer reduction), the threadFenceReduction pattern of the CUDA
// samples. The block that sees `slices` - 1 arrivals before it is the last:
// it combines the partials in slice order (the same bytes whichever block
// came last), resets them and the counter to zero (scratch starts zeroed
// and each run leaves it so) and computes the epilogue. No block waits for
// another.
//
// An inner reduction to few outputs (e.g. a full sum; no `tile`): a block
// of `threads` threads per slice of one output, striding over it (4
// consecutive elements per step when the vector width is 4), combined with
// a tree (shuffles, then shared memory); the last block combines the
// output's partials with the same tree. An outer reduction (e.g. a bias
// gradient; `tile` = 32): a block per slice of a column tile, 32 adjacent
// outputs x `threads` threads splitting the slice's rows (coalesced
// reads), combined through shared memory; the tile's last block combines
// its outputs' partials, a thread per output.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

/// The condition of the threads that hold a result: active ones, and the
/// combine's `leader` where there is one.
static std::string activeAnd(const std::string &leader) {
  return leader.empty() ? "active" : "active && " + leader;
}

LogicalResult ReductionPrinter::printSplit(Code &body, int64_t m,
                                           ArrayRef<int64_t> reducedShape) {
  // Column tiles (`tile` adjacent outputs per block) for an outer reduction.
  bool outer = schedule.getTile() > 0;
  int64_t l = product(reducedShape), slices = schedule.getSlices();
  int64_t chunk = llvm::alignTo(ceilDiv(l, slices), schedule.getVectorWidth());
  Threads t;
  t.inner = !outer;
  t.blockReduce = !outer;
  if (outer) {
    t.slices = schedule.getThreads();
    t.block = schedule.getTile() * t.slices;
    body.line("// {} outputs in tiles of {}, each output's {} reduced elements "
              "in {} slices of {}, a block of {} x {} threads each: each "
              "block reduces its slice into a partial result per output; "
              "the tile's last block to arrive combines its outputs' "
              "partials",
              m, schedule.getTile(), l, slices, chunk, schedule.getTile(),
              t.slices);
  } else {
    t.perOutput = t.block = schedule.getThreads();
    body.line("// each output's {} reduced elements in {} slices of {}, a "
              "block of {} threads each: each block reduces its slice into "
              "a partial result; the output's last block to arrive combines "
              "its partials",
              l, slices, chunk, t.block);
  }
  declareAccumulators(body, t);
  for (auto [i, r] : llvm::enumerate(reductions))
    body.line("{0} *__restrict__ partials{1} = reinterpret_cast<{0} *>"
              "(scratch{1});",
              accumulatorType(r.dtype), i);
  body.line("// the slices done so far, per {}",
            outer ? "column tile" : "output");
  body.line("int *__restrict__ arrivals = scratch{};", reductions.size());
  body.line("__shared__ bool lastSlice;");
  FailureOr<SliceUnit> unit = printSlices(body, t, m, reducedShape, chunk);
  if (failed(unit))
    return failure();
  body.open("if (lastSlice)");
  body.line("__threadfence(); // the other slices' partials, fenced before "
            "they arrived");
  if (failed(outer ? printColumnPartialsCombine(body, t, m, *unit, l)
                   : printPartialsCombine(body, t, *unit, l)))
    return failure();
  body.line("if ({}) arrivals[{}] = 0;", countingThread(t), unit->counter);
  body.close();
  body.close(); // the units
  return success();
}

FailureOr<ReductionPrinter::SliceUnit>
ReductionPrinter::printSlices(Code &body, const Threads &t, int64_t m,
                              ArrayRef<int64_t> reducedShape, int64_t chunk) {
  int64_t l = product(reducedShape), slices = schedule.getSlices(),
          vector = schedule.getVectorWidth(), tile = schedule.getTile();
  // Unit u is slice u % slices of output u / slices (reduction_split) or
  // of column tile u / slices (an outer reduction).
  int64_t units = (t.inner ? m : ceilDiv(m, tile)) * slices;
  SliceUnit u;
  u.unit = fresh("slice");
  u.output = fresh("o");
  std::string begin = fresh("begin"), end = fresh("end"), r = fresh("r");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, u.unit, units));
  if (t.inner) {
    body.line("const {} {} = {} / {};", idx, u.output, u.unit, slices);
    body.line("const bool active = true;");
    u.counter = u.output;
  } else {
    body.line("const {0} {1} = {2} / {3} * {4} + ({0})threadIdx.x;", idx,
              u.output, u.unit, slices, tile);
    body.line("const bool active = {} < {};", u.output, m);
    u.counter = fmt::format("{} / {}", u.unit, slices);
  }
  body.line("const {} {} = {} % {} * {};", idx, begin, u.unit, slices, chunk);
  body.line("const {0} {1} = {2} < {3} - {4} ? {2} + {4} : {3};", idx, end,
            begin, l, chunk);
  initAccumulators(body);
  u.outCoords = delinearize(body, u.output, iterationShape);
  std::string lane = fmt::format("({}){}", idx,
                                 t.inner ? "threadIdx.x" : "threadIdx.y");
  if (vector > 1)
    lane += fmt::format(" * {}", vector);
  body.open("if (active)");
  unrollVectorizedLoop(body);
  body.open(fmt::format("for ({0} {1} = {2} + {3}; {1} < {4}; {1} += {5})",
                        idx, r, begin, lane, end,
                        (t.inner ? t.block : t.slices) * vector));
  if (failed(accumulateElements(body, u.outCoords,
                                delinearize(body, r, reducedShape))))
    return failure();
  body.close();
  body.close();
  printArrival(body, t, printCombine(body, t, ""), u, m);
  return u;
}

void ReductionPrinter::printArrival(Code &body, const Threads &t,
                                    const std::string &leader,
                                    const SliceUnit &u, int64_t m) {
  int64_t slices = schedule.getSlices();
  std::string at = t.inner ? u.unit
                           : fmt::format("{} % {} * {} + {}", u.unit, slices,
                                         m, u.output);
  std::string arrive =
      fmt::format("lastSlice = atomicAdd(&arrivals[{}], 1) == {};", u.counter,
                  slices - 1);
  body.open(fmt::format("if ({})", activeAnd(leader)));
  for (auto [i, info] : llvm::enumerate(reductions))
    body.line("partials{}[{}] = {};", i, at, info.acc);
  body.line("__threadfence(); // the partial is visible before it arrives");
  // An inner slice has one partial, written by the thread that counts it.
  if (t.inner)
    body.line("{}", arrive);
  body.close();
  if (!t.inner) {
    body.line("__syncthreads(); // every output's partial is fenced");
    body.line("if ({}) {}", countingThread(t), arrive);
  }
  body.line("__syncthreads(); // every thread reads the block's lastSlice");
}

std::string ReductionPrinter::countingThread(const Threads &t) {
  return t.inner ? "threadIdx.x == 0" : "threadIdx.x == 0 && threadIdx.y == 0";
}

void ReductionPrinter::unrollVectorizedLoop(Code &body) {
  // Vectorized kernels have few ops: unrolled, several loads are in flight
  // at once instead of one per iteration.
  if (schedule.getVectorWidth() > 1)
    body.line("#pragma unroll 4");
}

LogicalResult ReductionPrinter::accumulateElements(
    Code &body, ArrayRef<std::string> outCoords, const Coords &reduced) {
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

void ReductionPrinter::combinePartial(Code &body, const std::string &index) {
  for (auto [i, info] : llvm::enumerate(reductions)) {
    std::string at = fmt::format("partials{}[{}]", i, index);
    // Through the L2: this SM's L1 may hold a stale copy of another
    // block's partial.
    body.line("{} = {};", info.acc,
              combineOf(info.kind, info.acc, fmt::format("__ldcg(&{})", at)));
    body.line("{} = 0;", at);
  }
}

void ReductionPrinter::resetAccumulators(Code &body) {
  for (ReductionInfo &r : reductions)
    body.line("{} = {};", r.acc, identityOf(r.kind, r.dtype));
}

LogicalResult ReductionPrinter::printPartialsCombine(Code &body,
                                                     const Threads &t,
                                                     const SliceUnit &u,
                                                     int64_t reducedElements) {
  int64_t slices = schedule.getSlices();
  std::string k = fresh("k");
  resetAccumulators(body);
  body.open(fmt::format("for ({0} {1} = ({0})threadIdx.x; {1} < {2}; {1} += "
                        "{3})",
                        idx, k, slices, t.block));
  combinePartial(body, fmt::format("{} * {} + {}", u.output, slices, k));
  body.close();
  std::string leader = printCombine(body, t, "");
  return printResults(body, leader, u.outCoords, reducedElements);
}

LogicalResult ReductionPrinter::printColumnPartialsCombine(
    Code &body, const Threads &t, int64_t m, const SliceUnit &u,
    int64_t reducedElements) {
  int64_t slices = schedule.getSlices();
  std::string k = fresh("k");
  body.line("// a thread per output of the tile, its slices in order");
  body.open("if (active && threadIdx.y == 0)");
  resetAccumulators(body);
  body.open(fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1})", idx, k,
                        slices));
  combinePartial(body, fmt::format("{} * {} + {}", k, m, u.output));
  body.close();
  if (failed(printResults(body, "", u.outCoords, reducedElements)))
    return failure();
  body.close();
  return success();
}

} // namespace stride
