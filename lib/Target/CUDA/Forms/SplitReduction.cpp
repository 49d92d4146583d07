//===- SplitReduction.cpp - Reductions split across blocks ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (b), scheme reduction_split: reductions whose outputs alone cannot
// fill the GPU, two launches of one function, or one for an inner split of
// few blocks (kMaxOneLaunchSplitWaves).
// Phase 1 cuts each output's reduced range into `slices` slices, a block
// each, and writes one partial result per output and slice to scratch;
// phase 2 combines each output's partials, resets them to zero (scratch
// starts zeroed and each run leaves it so) and computes the epilogue. With
// one launch (an inner split of few blocks): after writing its partial result
// each block counts itself in its output's arrival counter (the last
// scratch buffer), and the block that arrives last runs phase 2 for that
// output and resets the counter (python-free-docs/cuda-backend.md,
// "Kernel shapes", Reductions, *Split*).
//
// An inner reduction to few outputs (e.g. a full sum; no `tile`): a block
// of `threads` threads per slice of one output, striding over it (4
// consecutive elements per step when the vector width is 4), combined with
// a tree (shuffles, then shared memory); phase 2 a block per output, the
// same tree. An outer reduction (e.g. a bias gradient; `tile` = 32): a
// block per slice of a column tile, 32 adjacent outputs x `threads`
// threads splitting the slice's rows (coalesced reads), combined through
// shared memory; phase 2 a thread per output. An outer reduction over the
// input's leading dims whose rows hold whole groups of 4 (vector width 4):
// column groups, a thread per 4 adjacent columns of a tile of `tile`
// columns reading them with one 4-element load per row, `threads` rows per
// block step, the threads of one column group combined with shuffles and
// shared memory (combineColumnGroups); phase 2 as the schedule's
// `column_combine` says: that of an inner split, a block per output, where
// few columns have many slices, else that of the column tiles, a thread
// per output.
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
  // Column tiles (`tile` adjacent outputs per block) for an outer reduction;
  // with vector width 4, column groups.
  bool outer = schedule.getTile() > 0;
  bool columnGroups = outer && schedule.getVectorWidth() == 4;
  int64_t l = product(reducedShape), slices = schedule.getSlices();
  // Phase 2 a block per output for an inner split and for column groups of
  // many slices (the schedule's column_combine), else a thread per output.
  bool blockPerOutput =
      !outer || schedule.getColumnCombine() == ColumnCombine::Block;
  // An inner slice starts at a multiple of the vector width; column groups
  // slice rows, which need no alignment.
  int64_t chunk = llvm::alignTo(ceilDiv(l, slices),
                                columnGroups ? 1 : schedule.getVectorWidth());
  // Phase 2 a block per output reduces as an inner split's (a tree over
  // the output's partials, at [output][slice]).
  Threads t;
  t.inner = t.blockReduce = blockPerOutput;
  if (columnGroups) {
    t.perOutput = t.block = launchAt(1).getBlock();
    body.line("// {} outputs in tiles of {}, each output's {} reduced elements "
              "in {} slices of {}, a block of {} rows x {} threads of 4 "
              "adjacent columns each: phase 1 reduces each slice into a "
              "partial result per output, phase 2 combines each output's "
              "partials with {}",
              m, schedule.getTile(), l, slices, chunk, schedule.getThreads(),
              schedule.getTile() / 4,
              blockPerOutput ? fmt::format("a block of {} threads", t.block)
                             : std::string("a thread"));
  } else if (outer) {
    t.slices = schedule.getThreads();
    t.block = schedule.getTile() * t.slices;
    body.line("// {} outputs in tiles of {}, each output's {} reduced elements "
              "in {} slices of {}, a block of {} x {} threads each: phase 1 "
              "reduces each slice into a partial result per output, phase 2 "
              "combines each output's partials",
              m, schedule.getTile(), l, slices, chunk, schedule.getTile(),
              t.slices);
  } else {
    t.perOutput = t.block = schedule.getThreads();
    body.line("// each output's {} reduced elements in {} slices of {}, a "
              "block of {} threads each: each block reduces its slice into "
              "its partial result, {}",
              l, slices, chunk, t.block,
              schedule.getLaunches().size() == 1
                  ? "and the last of an output's blocks to arrive combines "
                    "the output's partials"
                  : "phase 2 combines each output's partials");
  }
  declareAccumulators(body, t);
  for (auto [i, r] : llvm::enumerate(reductions))
    body.line("{0} *__restrict__ partials{1} = reinterpret_cast<{0} *>"
              "(scratch{1});",
              accumulatorType(r.kind, r.dtype), i);
  if (schedule.getLaunches().size() == 1) {
    if (outer)
      return error(kernel) << "an outer reduction_split has two launches";
    body.line("unsigned *__restrict__ arrivals = reinterpret_cast<unsigned "
              "*>(scratch{});",
              reductions.size());
    return printSlices(body, t, m, reducedShape, chunk, /*lastArrives=*/true);
  }
  body.open("if (phase == 1)");
  if (failed(columnGroups
                 ? printColumnGroupSlices(body, m, reducedShape, chunk)
                 : printSlices(body, t, m, reducedShape, chunk,
                               /*lastArrives=*/false)))
    return failure();
  body.close();
  body.open("else");
  if (failed(blockPerOutput ? printPartialsCombine(body, t, m, l)
                            : printColumnPartialsCombine(body, m, l)))
    return failure();
  body.close();
  return success();
}

namespace {
/// The slice `unit` % `slices` of `l` reduced elements, `chunk` each:
/// declares its first element `begin` and its end `end`.
void printSliceRange(Code &body, llvm::StringRef idx, const std::string &unit,
                     const std::string &begin, const std::string &end,
                     int64_t slices, int64_t chunk, int64_t l) {
  body.line("const {} {} = {} % {} * {};", idx, begin, unit, slices, chunk);
  body.line("const {0} {1} = {2} < {3} - {4} ? {2} + {4} : {3};", idx, end,
            begin, l, chunk);
}

/// Where slice `unit` % `slices` of output `output` (of `m`) keeps its
/// partial result: at [output][slice] where phase 2 gives each output a
/// block, else at [slice][output].
std::string partialIndex(bool outputMajor, const std::string &output,
                         const std::string &unit, int64_t slices, int64_t m) {
  return outputMajor ? fmt::format("({}) * {} + {} % {}", output, slices, unit,
                                   slices)
                     : fmt::format("{} % {} * {} + {}", unit, slices, m,
                                   output);
}
} // namespace

LogicalResult ReductionPrinter::printSlices(Code &body, const Threads &t,
                                            int64_t m,
                                            ArrayRef<int64_t> reducedShape,
                                            int64_t chunk, bool lastArrives) {
  int64_t l = product(reducedShape), slices = schedule.getSlices(),
          vector = schedule.getVectorWidth(), tile = schedule.getTile();
  // Unit u is slice u % slices of output u / slices (reduction_split) or
  // of column tile u / slices (an outer reduction).
  int64_t units = (t.inner ? m : ceilDiv(m, tile)) * slices;
  std::string unit = fresh("slice"), o = fresh("o"), begin = fresh("begin"),
              end = fresh("end"), r = fresh("r");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, unit, units));
  if (t.inner) {
    body.line("const {} {} = {} / {};", idx, o, unit, slices);
    body.line("const bool active = true;");
  } else {
    body.line("const {0} {1} = {2} / {3} * {4} + ({0})threadIdx.x;", idx, o,
              unit, slices, tile);
    body.line("const bool active = {} < {};", o, m);
  }
  printSliceRange(body, idx, unit, begin, end, slices, chunk, l);
  initAccumulators(body);
  Coords outCoords = delinearize(body, o, iterationShape);
  std::string lane = fmt::format("({}){}", idx,
                                 t.inner ? "threadIdx.x" : "threadIdx.y");
  if (vector > 1)
    lane += fmt::format(" * {}", vector);
  body.open("if (active)");
  unrollVectorizedLoop(body);
  body.open(fmt::format("for ({0} {1} = {2} + {3}; {1} < {4}; {1} += {5})",
                        idx, r, begin, lane, end,
                        (t.inner ? t.block : t.slices) * vector));
  if (failed(accumulateElements(body, outCoords,
                                delinearize(body, r, reducedShape))))
    return failure();
  body.close();
  body.close();
  std::string leader = printCombine(body, t, "");
  body.open(fmt::format("if (active && {})", leader));
  // An inner split's unit is output-major already: unit = o * slices + slice.
  std::string at =
      t.inner ? unit : partialIndex(/*outputMajor=*/false, o, unit, slices, m);
  for (auto [i, info] : llvm::enumerate(reductions))
    body.line("partials{}[{}] = {};", i, at, info.acc);
  body.close();
  if (lastArrives) {
    body.line("__shared__ bool lastArrived;");
    body.line("__threadfence(); // the partial result before the arrival");
    body.line("__syncthreads();");
    body.line("if (threadIdx.x == 0) lastArrived = atomicAdd(&arrivals[{}], "
              "1u) == {}u;",
              o, slices - 1);
    body.line("__syncthreads();");
    body.open("if (lastArrived)");
    body.line("__threadfence(); // the other blocks' partial results after "
              "their arrivals");
    if (failed(printOutputCombine(body, t, o, l, /*throughL2=*/true)))
      return failure();
    body.line("if (threadIdx.x == 0) arrivals[{}] = 0;", o);
    body.close();
  }
  body.close();
  return success();
}

namespace {
/// The column groups' layout: thread x of a block owns columns
/// 4 * (x % groups) + 0..3 of its tile and rows x / groups + k * rows of
/// its slice. Where groups divide a warp, the warp's lanes of one column
/// group first combine with shuffles; `shared` entries per column then
/// hold a partial result each (a warp's, or a row of threads').
struct ColumnGroupLayout {
  int64_t groups, rows, lanesShuffled, shared;
  ColumnGroupLayout(int64_t tile, int64_t rows)
      : groups(tile / 4), rows(rows),
        lanesShuffled(32 % groups == 0 ? 32 / groups : 1),
        shared(ceilDiv(rows, lanesShuffled)) {}
};

/// Combines the accumulator arrays of the threads that own the same
/// columns into those of the tile's first row of threads.
void combineColumnGroups(Code &body, ArrayRef<ReductionInfo> reductions,
                         const ColumnGroupLayout &g) {
  auto combineLanes = [&](llvm::function_ref<std::string(size_t, int64_t)>
                              other) {
    for (auto [i, info] : llvm::enumerate(reductions))
      for (int64_t k = 0; k < 4; ++k) {
        std::string acc = fmt::format("{}[{}]", info.acc, k);
        body.line("{} = {};", acc, combineOf(info.kind, acc, other(i, k)));
      }
  };
  if (g.lanesShuffled > 1) {
    // Lanes a multiple of `groups` apart in a warp own the same columns.
    body.line("#pragma unroll");
    body.open(fmt::format("for (int offset = 16; offset >= {}; offset /= 2)",
                          g.groups));
    combineLanes([&](size_t i, int64_t k) {
      return fmt::format("__shfl_xor_sync(0xffffffffu, acc{}[{}], offset)", i,
                         k);
    });
    body.close();
  }
  // One entry per warp (after the shuffles) or per row of threads, then
  // the tile's first row of threads adds the entries in order.
  int64_t perEntry = g.groups * g.lanesShuffled;
  if (g.lanesShuffled > 1)
    body.open(fmt::format("if (threadIdx.x % {} < {})", perEntry, g.groups));
  for (auto [i, info] : llvm::enumerate(reductions))
    for (int64_t k = 0; k < 4; ++k)
      body.line("groups{}[threadIdx.x / {}][threadIdx.x % {} * 4 + {}] = "
                "{}[{}];",
                i, perEntry, g.groups, k, info.acc, k);
  if (g.lanesShuffled > 1)
    body.close();
  body.line("__syncthreads();");
  body.open(fmt::format("if (threadIdx.x < {})", g.groups));
  body.open(fmt::format("for (int e = 1; e < {}; ++e)", g.shared));
  combineLanes([&](size_t i, int64_t k) {
    return fmt::format("groups{}[e][threadIdx.x * 4 + {}]", i, k);
  });
  body.close();
  body.close();
  body.line("__syncthreads();");
}
} // namespace

LogicalResult ReductionPrinter::printColumnGroupSlices(
    Code &body, int64_t m, ArrayRef<int64_t> reducedShape, int64_t chunk) {
  int64_t l = product(reducedShape), slices = schedule.getSlices(),
          tile = schedule.getTile();
  ColumnGroupLayout g(tile, schedule.getThreads());
  for (auto [i, r] : llvm::enumerate(reductions)) {
    r.acc = "acc" + std::to_string(i);
    body.line("__shared__ {} groups{}[{}][{}];",
              accumulatorType(r.kind, r.dtype), i,
              g.shared, tile);
  }
  std::string unit = fresh("slice"), o = fresh("o"), begin = fresh("begin"),
              end = fresh("end"), r = fresh("r");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, unit, ceilDiv(m, tile) * slices));
  body.line("const {0} {1} = {2} / {3} * {4} + ({0})threadIdx.x % {5} * 4;",
            idx, o, unit, slices, tile, g.groups);
  body.line("const bool active = {} < {};", o, m);
  printSliceRange(body, idx, unit, begin, end, slices, chunk, l);
  for (ReductionInfo &info : reductions) {
    std::string id = identityOf(info.kind, info.dtype);
    body.line("{} {}[4] = {{{}, {}, {}, {}}};",
              accumulatorType(info.kind, info.dtype),
              info.acc, id, id, id, id);
  }
  Coords outCoords = delinearize(body, o, iterationShape);
  body.open("if (active)");
  unrollVectorizedLoop(body);
  body.open(fmt::format("for ({0} {1} = {2} + ({0})threadIdx.x / {3}; {1} < "
                        "{4}; {1} += {5})",
                        idx, r, begin, g.groups, end, g.rows));
  if (failed(accumulateElements(body, outCoords,
                                delinearize(body, r, reducedShape),
                                /*perLane=*/true)))
    return failure();
  body.close();
  body.close();
  combineColumnGroups(body, reductions, g);
  body.open(fmt::format("if (active && threadIdx.x < {})", g.groups));
  bool outputMajor = schedule.getColumnCombine() == ColumnCombine::Block;
  for (auto [i, info] : llvm::enumerate(reductions))
    for (int64_t k = 0; k < 4; ++k)
      body.line("partials{}[{}] = {}[{}];", i,
                partialIndex(outputMajor, fmt::format("{} + {}", o, k), unit,
                             slices, m),
                info.acc, k);
  body.close();
  body.close();
  return success();
}

void ReductionPrinter::unrollVectorizedLoop(Code &body) {
  // Vectorized kernels have few ops: unrolled, several loads are in flight
  // at once instead of one per iteration.
  if (schedule.getVectorWidth() > 1)
    body.line("#pragma unroll 4");
}

LogicalResult ReductionPrinter::accumulateElements(
    Code &body, ArrayRef<std::string> outCoords, const Coords &reduced,
    bool perLane) {
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
      ReductionInfo into = info;
      if (perLane)
        into.acc = fmt::format("{}[{}]", info.acc, k);
      body.line("{} = {};", into.acc, accumulated(into, *v, lanes[k]));
    }
  }
  popScope();
  lanes.clear();
  return success();
}

void ReductionPrinter::combinePartial(Code &body, const std::string &index,
                                      bool throughL2) {
  for (auto [i, info] : llvm::enumerate(reductions)) {
    std::string at = fmt::format("partials{}[{}]", i, index);
    std::string read = throughL2 ? fmt::format("__ldcg(&{})", at) : at;
    body.line("{} = {};", info.acc, combineOf(info.kind, info.acc, read));
    body.line("{} = 0;", at);
  }
}

LogicalResult ReductionPrinter::printPartialsCombine(Code &body,
                                                     const Threads &t,
                                                     int64_t m,
                                                     int64_t reducedElements) {
  std::string o = fresh("o");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, o, m));
  if (failed(printOutputCombine(body, t, o, reducedElements,
                                /*throughL2=*/false)))
    return failure();
  body.close();
  return success();
}

LogicalResult ReductionPrinter::printOutputCombine(Code &body,
                                                   const Threads &t,
                                                   const std::string &o,
                                                   int64_t reducedElements,
                                                   bool throughL2) {
  int64_t slices = schedule.getSlices();
  std::string k = fresh("k");
  initAccumulators(body);
  body.open(fmt::format("for ({0} {1} = ({0})threadIdx.x; {1} < {2}; {1} += "
                        "{3})",
                        idx, k, slices, t.block));
  combinePartial(body, fmt::format("{} * {} + {}", o, slices, k), throughL2);
  body.close();
  std::string leader = printCombine(body, t, "");
  Coords outCoords = delinearize(body, o, iterationShape);
  return printResults(body, leader, outCoords,
                      SizeExpr::constant(reducedElements));
}

LogicalResult ReductionPrinter::printColumnPartialsCombine(
    Code &body, int64_t m, int64_t reducedElements) {
  int64_t slices = schedule.getSlices();
  std::string o = fresh("o"), k = fresh("k");
  body.line("// a thread per output, adjacent threads on adjacent outputs");
  body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * blockDim.x + "
                        "threadIdx.x; {1} < {2}; {1} += ({0})gridDim.x * "
                        "blockDim.x)",
                        idx, o, m));
  initAccumulators(body);
  body.open(fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1})", idx, k,
                        slices));
  combinePartial(body, fmt::format("{} * {} + {}", k, m, o));
  body.close();
  Coords outCoords = delinearize(body, o, iterationShape);
  if (failed(printResults(body, "", outCoords,
                          SizeExpr::constant(reducedElements))))
    return failure();
  body.close();
  return success();
}

} // namespace stride
