//===- SegmentedIndexAdd.cpp - The segmented index_add --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (c), scheme segmented_index_add: index_add along a dim as a gather
// over each output row's list of source positions, without atomics on the
// output (see printBody).
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

/// index_add along `dim` as a gather: out[c] = input[c] + the sum of
/// source[c with c[dim] = k] over the k whose index is c[dim]. Two launches
/// of one function, with int scratch: scratch0[rows], each row's list head
/// (a source position + 1; 0 = empty), and scratch1[updates], each source
/// position's next position + 1.
///   phase 1  each source position k pushes itself onto its row's list
///            (atomicExch on the head); out-of-range indices are reported
///            here, with the message of the atomic scheme
///   phase 2  a block per row computes each of the row's output elements
///            once, from the input and the source rows on the row's list
///            (one store, no atomics on the output), then empties the
///            row's head
/// The heads must be zero before phase 1: the scratch buffers are the
/// plan's temporaries, which start zeroed (docs/module-format.md, "Buffer"),
/// and phase 2 leaves them zeroed for the next run.
/// The output is written exactly once and the source read exactly once.
/// The order of a row's additions depends on the atomics of phase 1.
LogicalResult SegmentedIndexAddPrinter::printBody(Code &body) {
  auto op = cast<IndexAddOp>(facts.scatterRoot);
  int64_t dim = op.getDim();
  int64_t rows = iterationShape[dim],
          updates = cast<StridedTensorType>(op.getSrc().getType()).getShape()[dim];
  int64_t outN = product(iterationShape);
  std::string where = formatLocation(op->getLoc());

  body.line("// index_add at {} along dim {}, segmented: each of the {} rows "
            "gets the list of the source positions (of {}) that select it,",
            where, dim, rows, updates);
  body.line("// then each output element ({} elements, {}) is computed once "
            "from the input and the source elements on its row's list",
            outN, shapeText(iterationShape));
  body.line("// scratch0: each row's list head (position + 1; 0 = empty); "
            "scratch1: the next position + 1");
  body.line("// Temporaries start zeroed (the runtime zeroes them when it "
            "allocates them); phase 2 empties every head it has read");

  body.open("if (phase == 1)");
  if (failed(printLists(body, op)))
    return failure();
  body.close("} else {");
  ++body.indent;
  if (failed(printRows(body, op)))
    return failure();
  body.close();
  return success();
}

LogicalResult SegmentedIndexAddPrinter::printLists(Code &body, IndexAddOp op) {
  int64_t rows = iterationShape[op.getDim()],
          updates =
              cast<StridedTensorType>(op.getSrc().getType()).getShape()[op.getDim()];
  Coords k = openGridStrideLoop(body, {updates}, updates);
  pushScope();
  FailureOr<std::string> i = evalIndex(op, op.getIndex(), k, rows, body, true);
  if (failed(i))
    return failure();
  body.line("scratch1[{}] = atomicExch(&scratch0[{}], (int){} + 1);", k[0], *i,
            k[0]);
  popScope();
  body.close();
  return success();
}

LogicalResult SegmentedIndexAddPrinter::printRows(Code &body, IndexAddOp op) {
  Value input = op.getInput(), src = op.getSrc();
  int64_t dim = op.getDim();
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  const char *ct = computeType(*dtypeOf(outType));
  int64_t rows = iterationShape[dim],
          updates = cast<StridedTensorType>(src.getType()).getShape()[dim];
  // A block takes a row (all elements with coordinate `row` along dim) and
  // its threads take its elements in units of the schedule's elements per
  // thread: `groups` aligned groups of 4 consecutive elements of the
  // innermost dim when vectorized, else one element. When every thread has
  // read the row's head, one of them empties it for the next run, so the
  // heads are zero again when the plan ends.
  bool vector = schedule.getVectorWidth() == 4;
  int width = vector ? 4 : 1;
  int64_t perUnit = schedule.getElementsPerThread();
  int groups = static_cast<int>(perUnit / width);
  SmallVector<int64_t> rowShape(iterationShape.begin(), iterationShape.end());
  rowShape.erase(rowShape.begin() + dim);
  int64_t unitsPerRow = product(rowShape) / perUnit;
  int64_t threads = schedule.getThreads();
  body.line("// a block of {} threads per row of {} elements; {} element{} "
            "per thread and step",
            threads, product(rowShape), perUnit, perUnit == 1 ? "" : "s");
  std::string row = fresh("row"), head = fresh("head");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, row, rows));
  body.line("const int {} = scratch0[{}];", head, row);
  std::string u = fresh("unit");
  body.open(fmt::format("for ({0} {1} = threadIdx.x; {1} < {2}; {1} += "
                        "blockDim.x)",
                        idx, u, unitsPerRow));
  std::string first = fresh("linear");
  body.line("const {} {} = {} * {};", idx, first, u, perUnit);
  Coords coords = delinearize(body, first, rowShape);
  coords.insert(coords.begin() + dim, row);
  SmallVector<SmallVector<Coords, 4>, 2> groupLanes;
  for (int g = 0; g < groups; ++g) {
    groupLanes.emplace_back(width, coords);
    for (int k = (g == 0 ? 1 : 0); k < width; ++k) {
      std::string c = fresh("i");
      body.line("const {} {} = {} + {};", idx, c, coords.back(), 4 * g + k);
      groupLanes[g][k].back() = c;
    }
  }
  // Evaluates `value` at each lane of each group, with the coordinate along
  // dim replaced by `atRow` when given, and passes each result to `use`.
  auto forEachLane = [&](Value value, std::optional<std::string> atRow,
                         function_ref<void(int, int, const std::string &)> use)
      -> LogicalResult {
    for (int g = 0; g < groups; ++g) {
      lanes.assign(groupLanes[g].begin(), groupLanes[g].end());
      if (atRow)
        for (Coords &lane : lanes)
          lane[dim] = *atRow;
      for (int w = 0; w < width; ++w) {
        vectorLane = vector ? w : -1;
        FailureOr<std::string> v = eval(value, lanes[w], body);
        vectorLane = -1;
        if (failed(v))
          return failure();
        use(g, w, *v);
      }
    }
    return success();
  };
  pushScope();
  SmallVector<SmallVector<std::string, 4>, 2> acc(groups);
  if (failed(forEachLane(input, std::nullopt,
                         [&](int g, int, const std::string &v) {
                           acc[g].push_back(fresh("acc"));
                           body.line("{} {} = {};", ct, acc[g].back(), v);
                         })))
    return failure();
  // Adds the source elements at source row `k` to the accumulators.
  auto accumulate = [&](const std::string &k) -> LogicalResult {
    pushScope();
    LogicalResult status =
        forEachLane(src, k, [&](int g, int w, const std::string &v) {
          body.line("{} = stride_add({}, {});", acc[g][w], acc[g][w], v);
        });
    popScope();
    return status;
  };
  // Walk the row's list: the source row and the next position load
  // together, so each source row is one dependent load after the last. A
  // list holds each source position at most once; the bound only matters
  // if the heads were ever corrupted, and turns a hang into a wrong result.
  std::string k = fresh("k"), next = fresh("next");
  body.open(fmt::format("for (int {0} = {1}, steps = 0; {0} != 0 && "
                        "steps < {2}; ++steps)",
                        next, head, updates));
  body.line("const {} {} = {} - 1;", idx, k, next);
  body.line("{} = scratch1[{}];", next, k);
  if (failed(accumulate(k)))
    return failure();
  body.close();
  for (int g = 0; g < groups; ++g) {
    lanes.assign(groupLanes[g].begin(), groupLanes[g].end());
    if (vector)
      storeLanes(body, 0, acc[g]);
    else
      body.line("stride_st(&out0[{}], {});", address(outType, lanes[0]),
                acc[g][0]);
  }
  popScope();
  body.close(); // the row's units
  body.line("__syncthreads(); // every thread has read the head");
  body.line("if (threadIdx.x == 0) scratch0[{}] = 0;", row);
  body.close(); // the rows
  return success();
}

} // namespace stride
