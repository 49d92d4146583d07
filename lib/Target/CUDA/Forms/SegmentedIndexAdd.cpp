//===- SegmentedIndexAdd.cpp - The segmented index_add --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (c), scheme segmented_index_add: index_add along a dim as a counting
// sort of the source positions by row, then a segmented reduction over
// equal chunks of the sorted positions (see printBody).
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

/// index_add along `dim`: out[c] = input[c] + the sum of source[c with
/// c[dim] = k] over the k whose index is c[dim]. Six launches of one
/// function, with int scratch: counts (rows x slices), each row's total,
/// offsets (rows + 1), each position's rank, the row-sorted positions and
/// their rows, and the chunks' partial sums.
///   phase 1  each position's rank among its row's positions (source order
///            within a block; with slices > 1 each tile of positions counts
///            in its own column, so ranks follow source order throughout);
///            out-of-range indices are reported here and skipped
///   phase 2  each row's columns become exclusive prefixes, and its total
///   phase 3  one block: offsets, the exclusive scan of the totals
///   phase 4  each position placed at offsets[row] + prefix + rank
///   phase 5  a block per chunk of `tile` sorted positions sums each run of
///            one row, in sorted order: a row whose positions all lie in
///            the chunk is stored (input first), else the run's sum is the
///            chunk's first or last partial
///   phase 6  a block per row: a row without positions gets the input, a
///            row over several chunks the input plus its partials in chunk
///            order; then it zeroes what the run wrote of the row: its
///            counts, total, offset, sorted positions and partial sums
/// Counts must be zero before phase 1: the scratch buffers are the plan's
/// temporaries, which start zeroed (docs/module-format.md, "Buffer"), and
/// the phases that read the scratch last leave it zeroed for the next run
/// (phase 4 the ranks, phase 6 the rest). The cost of a row
/// does not depend on how many positions it has: a row of every position
/// is one chunk's work per chunk plus one read of each partial.
LogicalResult SegmentedIndexAddPrinter::printBody(Code &body) {
  op = cast<IndexAddOp>(facts.scatterRoot);
  dim = op.getDim();
  rows = iterationShape[dim];
  updates = cast<StridedTensorType>(op.getSrc().getType()).getShape()[dim];
  rowShape.assign(iterationShape.begin(), iterationShape.end());
  rowShape.erase(rowShape.begin() + dim);
  rowLength = product(rowShape);
  vector = schedule.getVectorWidth() == 4;
  width = vector ? 4 : 1;
  perUnit = schedule.getElementsPerThread();
  groups = static_cast<int>(perUnit / width);
  slices = schedule.getSlices();
  chunk = schedule.getTile();
  ct = computeType(*dtypeOf(kernel.getResult(0).getType()));
  int64_t block = launchAt(0).getBlock();
  tileLength = schedule.getDeterministic()
                   ? ceilDiv(ceilDiv(updates, slices), block) * block
                   : block;

  body.line("// index_add at {} along dim {}, sorted by row: the {} source "
            "positions counted per row ({} column{}), placed in row order,",
            formatLocation(op->getLoc()), dim, updates, slices,
            slices == 1 ? "" : "s");
  body.line("// then summed in chunks of {} sorted positions into the {} "
            "rows of {} elements ({})",
            chunk, rows, rowLength, shapeText(iterationShape));
  body.line("// scratch0: counts; scratch1: totals; scratch2: offsets; "
            "scratch3: ranks; scratch4: sorted positions; scratch5: their "
            "rows; scratch6: partial sums");
  body.line("{0} *__restrict__ partials = reinterpret_cast<{0} *>(scratch6);",
            ct);
  body.open("if (phase == 1)");
  if (failed(printRanks(body)))
    return failure();
  body.close("} else if (phase == 2) {");
  ++body.indent;
  printRowTotals(body);
  body.close("} else if (phase == 3) {");
  ++body.indent;
  body.line("stride_exclusive_scan_block(scratch1, scratch2, {});", rows);
  body.close("} else if (phase == 4) {");
  ++body.indent;
  if (failed(printPlacement(body)))
    return failure();
  body.close("} else if (phase == 5) {");
  ++body.indent;
  if (failed(printChunks(body)))
    return failure();
  body.close("} else {");
  ++body.indent;
  if (failed(printRowResults(body)))
    return failure();
  body.close();
  return success();
}

FailureOr<std::string>
SegmentedIndexAddPrinter::printRowOf(Code &body, const std::string &k,
                                     const std::string &guard) {
  std::string row = fresh("row");
  body.line("int {} = -1;", row);
  // evalIndex skips a bad index with `continue`: out of the do-while.
  body.open(fmt::format("if ({}) do", guard));
  pushScope();
  FailureOr<std::string> i = evalIndex(op, op.getIndex(), {k}, rows, body, true);
  popScope();
  if (failed(i))
    return failure();
  body.line("{} = (int){};", row, *i);
  body.close("} while (0);");
  return row;
}

std::string SegmentedIndexAddPrinter::column(const std::string &k) {
  return schedule.getDeterministic() ? fmt::format("(int)({} / {})", k, tileLength)
                                     : "0";
}

LogicalResult SegmentedIndexAddPrinter::printRanks(Code &body) {
  int64_t tiles = ceilDiv(updates, tileLength);
  body.line("// ranks: tiles of {} positions, a block's positions at a time",
            tileLength);
  std::string tile = fresh("tile"), end = fresh("end"), first = fresh("first"),
              k = fresh("k");
  body.open(fmt::format("for (long long {0} = blockIdx.x; {0} < {1}; {0} += "
                        "gridDim.x)",
                        tile, tiles));
  body.line("const long long {} = {} * {} + {} < {} ? {} * {} + {} : {};", end,
            tile, tileLength, tileLength, updates, tile, tileLength,
            tileLength, updates);
  body.open(fmt::format("for (long long {0} = {1} * {2}; {0} < {3}; {0} += "
                        "blockDim.x)",
                        first, tile, tileLength, end));
  body.line("const {} {} = ({})({} + threadIdx.x);", idx, k, idx, first);
  FailureOr<std::string> row =
      printRowOf(body, k, fmt::format("{} < {}", k, end));
  if (failed(row))
    return failure();
  body.line("const int rank = stride_rank_in_block({}, scratch0, {}, {});",
            *row, slices, schedule.getDeterministic() ? "(int)" + tile : "0");
  body.line("if ({} >= 0) scratch3[{}] = rank;", *row, k);
  body.close();
  body.close();
  return success();
}

void SegmentedIndexAddPrinter::printRowTotals(Code &body) {
  body.line("// each row's columns of counts become exclusive prefixes");
  std::string row = fresh("row");
  body.open(fmt::format("for (long long {0} = blockIdx.x * blockDim.x + "
                        "threadIdx.x; {0} < {1}; {0} += blockDim.x * "
                        "gridDim.x)",
                        row, rows));
  body.line("int *columns = scratch0 + {} * {};", row, slices);
  body.line("int running = 0;");
  body.open(fmt::format("for (int s = 0; s < {}; ++s)", slices));
  body.line("const int count = columns[s];");
  body.line("columns[s] = running;");
  body.line("running += count;");
  body.close();
  body.line("scratch1[{}] = running;", row);
  body.close();
}

LogicalResult SegmentedIndexAddPrinter::printPlacement(Code &body) {
  body.line("// each position at its row's offset, plus its tile's prefix "
            "and its rank");
  Coords k = openGridStrideLoop(body, {updates}, updates);
  pushScope();
  FailureOr<std::string> i = evalIndex(op, op.getIndex(), k, rows, body, true);
  if (failed(i))
    return failure();
  body.line("const int at = scratch2[{0}] + scratch0[(long long){0} * {1} + "
            "{2}] + scratch3[{3}];",
            *i, slices, column(k[0]), k[0]);
  body.line("scratch3[{}] = 0;", k[0]);
  body.line("scratch4[at] = (int){};", k[0]);
  body.line("scratch5[at] = (int){};", *i);
  popScope();
  body.close();
  return success();
}

void SegmentedIndexAddPrinter::openUnitLoop(Code &body) {
  std::string u = fresh("unit");
  body.open(fmt::format("for ({0} {1} = threadIdx.x; {1} < {2}; {1} += "
                        "blockDim.x)",
                        idx, u, rowLength / perUnit));
  unitLinear = fresh("linear");
  body.line("const {} {} = {} * {};", idx, unitLinear, u, perUnit);
  Coords coords = delinearize(body, unitLinear, rowShape);
  coords.insert(coords.begin() + dim, "");
  groupLanes.clear();
  for (int g = 0; g < groups; ++g) {
    groupLanes.emplace_back(width, coords);
    for (int w = (g == 0 ? 1 : 0); w < width; ++w) {
      std::string c = fresh("i");
      body.line("const {} {} = {} + {};", idx, c, coords.back(), 4 * g + w);
      groupLanes[g][w].back() = c;
    }
  }
}

LogicalResult SegmentedIndexAddPrinter::forEachLane(
    Code &body, Value value, const std::string &atRow,
    function_ref<void(int, int, const std::string &)> use) {
  for (int g = 0; g < groups; ++g) {
    lanes.assign(groupLanes[g].begin(), groupLanes[g].end());
    for (Coords &lane : lanes)
      lane[dim] = atRow;
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
}

void SegmentedIndexAddPrinter::forEachAccumulator(
    function_ref<void(int, int, const std::string &)> use) {
  for (int g = 0; g < groups; ++g)
    for (int w = 0; w < width; ++w)
      use(g, w, acc[g][w]);
}

std::string SegmentedIndexAddPrinter::partial(const std::string &at, int g,
                                              int w) {
  return fmt::format("partials[{} + {} + {}]", at, unitLinear, 4 * g + w);
}

LogicalResult SegmentedIndexAddPrinter::addInput(Code &body,
                                                 const std::string &row) {
  pushScope();
  LogicalResult status = forEachLane(
      body, op.getInput(), row, [&](int g, int w, const std::string &v) {
        body.line("{0} = stride_add({0}, {1});", acc[g][w], v);
      });
  popScope();
  return status;
}

void SegmentedIndexAddPrinter::storeRow(Code &body, const std::string &row) {
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  for (int g = 0; g < groups; ++g) {
    lanes.assign(groupLanes[g].begin(), groupLanes[g].end());
    for (Coords &lane : lanes)
      lane[dim] = row;
    if (vector)
      storeLanes(body, 0, acc[g]);
    else
      body.line("stride_st(&out0[{}], {});", address(outType, lanes[0]),
                acc[g][0]);
  }
}

void SegmentedIndexAddPrinter::declareAccumulators(Code &body) {
  acc.assign(groups, {});
  for (int g = 0; g < groups; ++g)
    for (int w = 0; w < width; ++w) {
      acc[g].push_back(fresh("acc"));
      body.line("{} {} = 0;", ct, acc[g].back());
    }
}

LogicalResult SegmentedIndexAddPrinter::printChunks(Code &body) {
  body.line("// a block per chunk of {} sorted positions; its threads take "
            "units of {} element{} of the rows",
            chunk, perUnit, perUnit == 1 ? "" : "s");
  body.line("const int total = scratch2[{}];", rows);
  body.line("// the chunk's positions, rows and row ranges, read once by the "
            "block");
  body.line("__shared__ int runPosition[{0}], runRow[{0}], runBegin[{0}], "
            "runEnd[{0}];",
            chunk);
  body.open(fmt::format("for (long long c = blockIdx.x; c * {} < total; c += "
                        "gridDim.x)",
                        chunk));
  body.line("const int begin = (int)(c * {0}), end = begin + {0} < total ? "
            "begin + {0} : total;",
            chunk);
  body.line("__syncthreads(); // the last chunk's runs are summed");
  body.open("for (int j = threadIdx.x; begin + j < end; j += blockDim.x)");
  body.line("const int row = scratch5[begin + j];");
  body.line("runPosition[j] = scratch4[begin + j];");
  body.line("runRow[j] = row;");
  body.line("runBegin[j] = scratch2[row];");
  body.line("runEnd[j] = runBegin[j] + scratch1[row];");
  body.close();
  body.line("__syncthreads();");
  openUnitLoop(body);
  body.open("for (int i = begin; i < end;)");
  body.line("const int row = runRow[i - begin];");
  body.line("const int rowBegin = runBegin[i - begin], rowEnd = "
            "runEnd[i - begin];");
  body.line("const int stop = rowEnd < end ? rowEnd : end;");
  body.line("const bool whole = rowBegin >= begin && rowEnd <= end;");
  declareAccumulators(body);
  body.open("if (whole)");
  if (failed(addInput(body, "row")))
    return failure();
  body.close();
  // Unrolled: the loads of several positions are in flight at once; the
  // additions keep their order.
  body.line("#pragma unroll 4");
  body.open("for (; i < stop; ++i)");
  body.line("const {} k = runPosition[i - begin];", idx);
  pushScope();
  LogicalResult added = forEachLane(
      body, op.getSrc(), "k", [&](int g, int w, const std::string &v) {
        body.line("{0} = stride_add({0}, {1});", acc[g][w], v);
      });
  popScope();
  if (failed(added))
    return failure();
  body.close();
  body.open("if (whole)");
  storeRow(body, "row");
  body.close("} else {");
  ++body.indent;
  body.line("// the chunk's first (0) or last (1) partial sum");
  body.line("const long long at = (c * 2 + (rowBegin < begin ? 0 : 1)) * {};",
            rowLength);
  forEachAccumulator([&](int g, int w, const std::string &a) {
    body.line("{} = {};", partial("at", g, w), a);
  });
  body.close();
  body.close(); // the runs
  body.close(); // the units
  body.close(); // the chunks
  return success();
}

void SegmentedIndexAddPrinter::addPartials(Code &body) {
  forEachAccumulator([&](int g, int w, const std::string &a) {
    std::string at = partial("at", g, w);
    body.line("{0} = stride_add({0}, {1});", a, at);
    body.line("{} = 0;", at);
  });
}

LogicalResult SegmentedIndexAddPrinter::printRowResults(Code &body) {
  body.line("// a block per row: the rows without positions and the rows "
            "over several chunks");
  body.open(fmt::format("for (long long row = blockIdx.x; row < {}; row += "
                        "gridDim.x)",
                        rows));
  body.line("const int rowBegin = scratch2[row], rowEnd = rowBegin + "
            "scratch1[row];");
  body.line("const int first = rowBegin / {0}, last = (rowEnd - 1) / {0};",
            chunk);
  body.open("if (rowEnd == rowBegin || first != last)");
  openUnitLoop(body);
  declareAccumulators(body);
  if (failed(addInput(body, "row")))
    return failure();
  body.open("if (rowEnd > rowBegin)");
  body.line("const long long at = (first * 2LL + 1) * {};", rowLength);
  addPartials(body);
  body.line("#pragma unroll 8");
  body.open("for (long long c = first + 1; c <= last; ++c)");
  body.line("const long long at = c * 2 * {};", rowLength);
  addPartials(body);
  body.close();
  body.close();
  storeRow(body, "row");
  body.close(); // the units
  body.close();
  body.line("// the next run starts from zeroed scratch");
  body.line("__syncthreads(); // every thread has read the row's total and "
            "offset");
  body.open("for (int i = rowBegin + threadIdx.x; i < rowEnd; i += "
            "blockDim.x)");
  body.line("scratch4[i] = 0;");
  body.line("scratch5[i] = 0;");
  body.close();
  if (slices > 1)
    body.line("for (int s = threadIdx.x; s < {0}; s += blockDim.x) "
              "scratch0[row * {0} + s] = 0;",
              slices);
  body.open("if (threadIdx.x == 0)");
  body.line("scratch1[row] = 0;");
  body.line("scratch2[row] = 0;");
  body.line("if (row == 0) scratch2[{}] = 0; // phase 6 never reads it", rows);
  body.close();
  body.close(); // the rows
  return success();
}

} // namespace stride
