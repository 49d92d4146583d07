//===- SegmentedIndexAdd.cpp - The segmented index_add --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (c), scheme segmented_index_add: index_add along a dim with the
// source positions grouped by row (buckets and pages, or, deterministic, a
// counting sort), each row's sources summed without atomics on the output
// (see printBody); scheme sorted_index_add: an index that never decreases,
// each row's run of positions found by binary search (printSortedRuns).
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "stride/Target/CUDA/Schedule.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

/// index_add along `dim`: out[c] = input[c] + the sum of source[c with
/// c[dim] = k] over the k whose index is c[dim]. The schedule picks one of
/// two schemes: with `deterministic`, a stable counting sort of every
/// position (printSorted); by default, buckets for the short rows and
/// pages of the long rows' later positions (printBucketed).
LogicalResult SegmentedIndexAddPrinter::printBody(Code &body) {
  IndexScatterOpInterface root = facts.scatters.front();
  op = cast<IndexAddOp>(root.getOperation());
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
  bucket = schedule.getBucket();
  ct = computeType(*dtypeOf(kernel.getResult(0).getType()));
  if (schedule.getScheme() == KernelScheme::SortedIndexAdd)
    return printSortedRuns(body);
  int64_t block = launchAt(0).getBlock();
  tileLength = schedule.getDeterministic()
                   ? ceilDiv(ceilDiv(updates, slices), block) * block
                   : block;
  return schedule.getDeterministic() ? printSorted(body)
                                     : printBucketed(body);
}

/// Six launches of one function, with int scratch: counts (rows x slices),
/// each row's total, offsets (rows + 1), each position's rank, the
/// row-sorted positions and their rows, and the chunks' partial sums.
///   phase 1  each position's rank among its row's positions (each tile of
///            positions counts in its own column, so ranks follow source
///            order throughout); out-of-range indices are reported here and
///            skipped
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
/// temporaries, which start zeroed (python-free-docs/module-format.md, "Buffer"), and
/// the phases that read the scratch last leave it zeroed for the next run
/// (phase 4 the ranks, phase 6 the rest). The cost of a row
/// does not depend on how many positions it has: a row of every position
/// is one chunk's work per chunk plus one read of each partial.
LogicalResult SegmentedIndexAddPrinter::printSorted(Code &body) {
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
  auto ranks = [&](Code &body) {
    return printRanks(body, [&](const std::string &row, const std::string &k) {
      body.line("if ({} >= 0) scratch3[{}] = rank;", row, k);
    });
  };
  auto totals = [&](Code &body) {
    printRowTotals(body);
    return success();
  };
  auto offsets = [&](Code &body) {
    body.line("stride_exclusive_scan_block(scratch1, scratch2, {});", rows);
    return success();
  };
  auto placement = [&](Code &body) { return printPlacement(body); };
  auto chunks = [&](Code &body) { return printChunks(body); };
  auto rowResults = [&](Code &body) { return printRowResults(body); };
  return printPhases(body,
                     {ranks, totals, offsets, placement, chunks, rowResults});
}

/// Two launches, with int scratch: counts (rows) and buckets (rows x
/// `bucket`); when a row can have more positions than its bucket holds
/// (`bucket` + 1 <= updates) also the pages' hash table, the pages (two
/// cursors, each row's slot, each page's row, number, table entry and
/// `tile` positions), each slot's partial sums (rows of the accumulator
/// type) and the progress counters (the page blocks done; each slot's
/// positions added).
///   phase 1  each position's rank among its row's positions (counted with
///            one atomic per row and warp, in any order); a position of
///            rank < `bucket` goes to its row's bucket, a later one to the
///            row's page (rank - `bucket`) / `tile', which the page's first
///            position takes from a cursor and enters in the hash table,
///            and where the others find it; the row's first page takes
///            the row's slot. Out-of-range indices are reported here and
///            skipped
///   phase 2  a block per item: first the `slices` blocks that walk the
///            pages, then the rows (printItems)
/// A short row costs its positions' loads, as a list walk would, with no
/// chain of dependent loads; a long row costs its pages, whatever its
/// length; and phase 2 waits for nothing but phase 1. The page blocks
/// empty the hash table, the last of them to finish zeroes the cursors,
/// and the block that completes a slot zeroes the slot, so the scratch is
/// zeroed again when the run ends. With an `index_analysis` shared with
/// other index_adds over the same index (stride-share-index-analysis),
/// phase 1 runs in the first one only, and the counts, cursors and table
/// are zeroed by the last one only. The order of the additions follows
/// the atomics: float sums may round differently from run to run.
LogicalResult SegmentedIndexAddPrinter::printBucketed(Code &body) {
  pages = schedule.getPages();
  pageHashMask = schedule.getHashEntries() - 1;
  pageBlocks = schedule.getSlices();
  bool longRows = pages > 0;
  body.line("// index_add at {} along dim {}, bucketed: each of the {} rows "
            "of {} elements ({}) keeps its first {} source position{} (of "
            "{}) in its bucket{}",
            formatLocation(op->getLoc()), dim, rows, rowLength,
            shapeText(iterationShape), bucket, bucket == 1 ? "" : "s", updates,
            longRows ? fmt::format("; a longer row's later positions go to "
                                   "its pages of {}, each summed and added "
                                   "to the row atomically",
                                   chunk)
                     : std::string());
  body.line("// scratch0: counts; scratch1: buckets{}",
            longRows ? "; scratch2: the pages' hash table; scratch3: the "
                       "pages; scratch4: partial sums; scratch5: progress"
                     : "");
  if (longRows) {
    body.line("unsigned long long *__restrict__ pageKeys = "
              "reinterpret_cast<unsigned long long *>(scratch2);");
    body.line("int *__restrict__ pageOfKey = scratch2 + {};",
              2 * schedule.getHashEntries());
    body.line("int *__restrict__ longCursors = scratch3; // pages, slots");
    body.line("int *__restrict__ slotOfRow = scratch3 + 2;");
    body.line("int *__restrict__ pageRow = scratch3 + {};", 2 + rows);
    body.line("int *__restrict__ pageNumber = pageRow + {};", pages);
    body.line("int *__restrict__ pageEntry = pageNumber + {};", pages);
    body.line("int *__restrict__ pagePositions = pageEntry + {};", pages);
    body.line("{0} *__restrict__ partials = reinterpret_cast<{0} "
              "*>(scratch4);",
              ct);
    body.line("// [0]: the page blocks done; [1 + slot]: the slot's "
              "positions added, from 2^31 - its long positions");
    body.line("unsigned *__restrict__ progress = reinterpret_cast<unsigned "
              "*>(scratch5);");
  }
  auto ranks = [&](Code &body) {
    return printRanks(body, [&](const std::string &row, const std::string &k) {
      body.open(fmt::format("if ({} >= 0 && rank < {})", row, bucket));
      body.line("scratch1[(long long){1} * {0} + rank] = (int){2};", bucket,
                row, k);
      body.close();
      if (longRows)
        printPagePlacement(body, row, k);
    });
  };
  auto items = [&](Code &body) { return printItems(body); };
  SmallVector<function_ref<LogicalResult(Code &)>> phases = {ranks, items};
  // An index_add that reads an earlier one's index analysis has no phase 1.
  if (!ranksIndex())
    return printPhases(body, ArrayRef(phases).drop_front(), /*first=*/2);
  return printPhases(body, phases);
}

/// The sorted_index scheme: a block per row. Its run of positions is
/// [begin, end): begin the first position whose index is at least the
/// row, end the first past it, two binary searches run side by side. The
/// block also checks its share of the positions (ceil(updates / rows) of
/// them): each index in range and no larger than the next, so that the
/// whole index is checked once per run. The block's `slices` groups of
/// threads each add every `slices`-th position of the run (a long run, an
/// embedding's last bag, is not one thread's chain of loads); with more
/// than one group, their partial rows meet in shared memory and the first
/// group adds the input and them, in group order, and stores the row.
LogicalResult SegmentedIndexAddPrinter::printSortedRuns(Code &body) {
  int64_t groupCount = schedule.getSlices();
  int64_t groupThreads = schedule.getThreads() / groupCount;
  body.line("// index_add at {} along dim {}, sorted index: each of the {} "
            "rows of {} elements ({}) adds its run of the {} source positions, "
            "found by binary search, in {} group{} of {} thread{}",
            formatLocation(op->getLoc()), dim, rows, rowLength,
            shapeText(iterationShape), updates, groupCount,
            groupCount == 1 ? "" : "s", groupThreads,
            groupThreads == 1 ? "" : "s");
  std::string group = "0", lane = "threadIdx.x";
  if (groupCount > 1) {
    body.line("__shared__ {} groupSums[{}];", ct, groupCount * rowLength);
    body.line("const int group = threadIdx.x / {0}, lane = threadIdx.x % {0};",
              groupThreads);
    group = "group";
    lane = "lane";
  }
  body.open(fmt::format("for (long long row = blockIdx.x; row < {}; row += "
                        "gridDim.x)",
                        rows));
  if (failed(printRunSearch(body)) || failed(printIndexShareCheck(body)))
    return failure();
  openUnitLoop(body, lane, std::to_string(groupThreads));
  declareAccumulators(body);
  if (groupCount == 1 && failed(addInput(body, "row")))
    return failure();
  body.line("// a loop of known length: the loads of several positions are in "
            "flight at once");
  body.line("#pragma unroll 4");
  body.open(fmt::format("for (int j = begin + {}; j < end; j += {})", group,
                        groupCount));
  if (failed(addSource(body, "j")))
    return failure();
  body.close();
  if (groupCount == 1) {
    storeRow(body, "row");
    body.close(); // the units
    body.close(); // the rows
    return success();
  }
  forEachAccumulator([&](int g, int w, const std::string &a) {
    body.line("groupSums[group * {} + {} + {}] = {};", rowLength,
              groupLinear[g], w, a);
  });
  body.close(); // the units
  body.line("__syncthreads(); // every group's sums are in shared memory");
  body.open("if (group == 0)");
  openUnitLoop(body, "lane", std::to_string(groupThreads));
  declareAccumulators(body);
  if (failed(addInput(body, "row")))
    return failure();
  body.open(fmt::format("for (int g = 0; g < {}; ++g)", groupCount));
  forEachAccumulator([&](int g, int w, const std::string &a) {
    body.line("{0} = stride_add({0}, groupSums[g * {1} + {2} + {3}]);", a,
              rowLength, groupLinear[g], w);
  });
  body.close();
  storeRow(body, "row");
  body.close(); // the units
  body.close(); // group 0
  body.line("__syncthreads(); // the sums are read before the next row's");
  body.close(); // the rows
  return success();
}

LogicalResult SegmentedIndexAddPrinter::printRunSearch(Code &body) {
  body.line("// the first position whose index is >= row (begin) and > row "
            "(end)");
  body.line("int begin = 0, end = 0, beginLeft = {0}, endLeft = {0};",
            updates);
  body.open("while (beginLeft > 0 || endLeft > 0)");
  for (auto [at, left, passes] :
       {std::tuple{"begin", "beginLeft", "<"}, {"end", "endLeft", "<="}}) {
    body.open(fmt::format("if ({} > 0)", left));
    body.line("const int half = {} >> 1;", left);
    body.line("const {} probe = ({})({} + half);", idx, idx, at);
    pushScope();
    FailureOr<std::string> value = eval(op.getIndex(), {"probe"}, body);
    popScope();
    if (failed(value))
      return failure();
    body.open(fmt::format("if ((long long){} {} row)", *value, passes));
    body.line("{} += half + 1;", at);
    body.line("{} -= half + 1;", left);
    body.close("} else {");
    ++body.indent;
    body.line("{} = half;", left);
    body.close();
    body.close();
  }
  body.close();
  return success();
}

LogicalResult SegmentedIndexAddPrinter::printIndexShareCheck(Code &body) {
  int64_t share = ceilDiv(updates, rows);
  body.line("// the row's share of the index checked: in range, and never "
            "decreasing");
  body.open(fmt::format("for (long long k = row * {0} + threadIdx.x; k < "
                        "(row + 1) * {0} && k < {1}; k += blockDim.x)",
                        share, updates));
  body.line("const {} position = ({})k;", idx, idx);
  pushScope();
  FailureOr<std::string> at = evalIndex(op, op.getIndex(), {"position"},
                                        SizeExpr::constant(rows), body, false);
  popScope();
  if (failed(at))
    return failure();
  body.open(fmt::format("if (k + 1 < {})", updates));
  body.line("const {} next = ({})(k + 1);", idx, idx);
  pushScope();
  FailureOr<std::string> following = eval(op.getIndex(), {"next"}, body);
  popScope();
  if (failed(following))
    return failure();
  std::string message = fmt::format(
      "stride: index_add at {}: the index is marked sorted_index but "
      "decreases in kernel {}",
      formatLocation(op->getLoc()), name);
  body.line("if ((long long){} > (long long){}) stride_fail({});", *at,
            *following, quoted(message));
  body.close();
  body.close();
  return success();
}

bool SegmentedIndexAddPrinter::ranksIndex() {
  IndexAnalysis analysis = schedule.getIndexAnalysis();
  return analysis == IndexAnalysis::Own || analysis == IndexAnalysis::First;
}

bool SegmentedIndexAddPrinter::clearsCounts() {
  IndexAnalysis analysis = schedule.getIndexAnalysis();
  return analysis == IndexAnalysis::Own || analysis == IndexAnalysis::Last;
}

LogicalResult SegmentedIndexAddPrinter::printPhases(
    Code &body, ArrayRef<function_ref<LogicalResult(Code &)>> phases,
    int64_t first) {
  for (auto [i, phase] : llvm::enumerate(phases)) {
    if (i == 0)
      body.open(fmt::format("if (phase == {})", first));
    else if (i + 1 == phases.size())
      body.close("} else {");
    else
      body.close(fmt::format("}} else if (phase == {}) {{", first + i));
    if (i > 0)
      ++body.indent;
    if (failed(phase(body)))
      return failure();
  }
  body.close();
  return success();
}

void SegmentedIndexAddPrinter::printPagePlacement(Code &body,
                                                  const std::string &row,
                                                  const std::string &k) {
  std::string over = fresh("over"), key = fresh("key"), page = fresh("page");
  body.line("// past the bucket: the position's page, entered in the hash "
            "table by its first position");
  body.line("const int {} = {} >= 0 && rank >= {} ? rank - {} : -1;", over,
            row, bucket, bucket);
  body.line("const unsigned long long {} = (unsigned long long){} << 32 | "
            "(unsigned)({} / {});",
            key, row, over, chunk);
  body.line("int {} = -1;", page);
  body.open(fmt::format("if ({} >= 0 && {} % {} == 0)", over, over, chunk));
  body.line("{} = atomicAdd(&longCursors[0], 1);", page);
  body.line("pageRow[{}] = {};", page, row);
  body.line("pageNumber[{}] = {} / {};", page, over, chunk);
  body.line("pageEntry[{}] = stride_page_insert(pageKeys, pageOfKey, {}u, "
            "{}, {});",
            page, pageHashMask, key, page);
  body.line("if ({} == 0) slotOfRow[{}] = atomicAdd(&longCursors[1], 1);",
            over, row);
  body.close();
  body.line("__syncwarp(); // the warp's pages are entered before it looks "
            "any up");
  body.open(fmt::format("if ({} >= 0)", over));
  body.line("if ({0} < 0) {0} = stride_page_find(pageKeys, pageOfKey, {1}u, "
            "{2});",
            page, pageHashMask, key);
  body.line("pagePositions[(long long){} * {} + {} % {}] = (int){};", page,
            chunk, over, chunk, k);
  body.close();
}

/// Phase 2 of the default scheme: a block per item, the `pageBlocks`
/// blocks that walk the pages first (so that a hot row's pages start with
/// the launch), then the rows. A row of at most `bucket` positions is the
/// input plus its bucket's sources, stored. A long row's item adds the
/// input and its bucket's sources to its slot's partial sums; a page item
/// sums its positions (all of one row) and adds the sum the same way. Each
/// contribution then counts its positions in the slot's progress: a long
/// row's item 2^31 - its long positions, a page its positions, so the
/// slot reaches exactly 2^31 with its last contribution, in whatever order
/// they come, and that block stores the row (printCompletedSlot).
LogicalResult SegmentedIndexAddPrinter::printItems(Code &body) {
  body.line("// a block per {}; its threads take units of {} element{} of "
            "a row",
            pages ? "item: the blocks that walk the pages, then the rows"
                  : "row",
            perUnit, perUnit == 1 ? "" : "s");
  if (pages == 0) {
    body.open(fmt::format("for (long long row = blockIdx.x; row < {}; row "
                          "+= gridDim.x)",
                          rows));
    if (failed(printRowItem(body)))
      return failure();
    body.close();
    return success();
  }
  body.open(fmt::format("for (long long item = blockIdx.x; item < {}; item "
                        "+= gridDim.x)",
                        pageBlocks + rows));
  body.open(fmt::format("if (item < {})", pageBlocks));
  if (failed(printPageItems(body)))
    return failure();
  body.close("} else {");
  ++body.indent;
  body.line("const long long row = item - {};", pageBlocks);
  if (failed(printRowItem(body)))
    return failure();
  body.close();
  body.close(); // the items
  if (!clearsCounts())
    return success();
  body.line("// the last page block to finish zeroes the cursors for the "
            "next run");
  body.open(fmt::format("if (blockIdx.x < {})", pageBlocks));
  body.line("__syncthreads(); // every thread has read the cursor");
  body.open(fmt::format("if (threadIdx.x == 0 && atomicAdd(&progress[0], "
                        "1u) + 1u == {}u)",
                        pageBlocks));
  body.line("longCursors[0] = 0;");
  body.line("longCursors[1] = 0;");
  body.line("progress[0] = 0;");
  body.close();
  body.close();
  return success();
}

LogicalResult SegmentedIndexAddPrinter::printRowItem(Code &body) {
  body.line("const int count = scratch0[row];");
  body.line("const int *positions = scratch1 + row * {};", bucket);
  body.line("const int inBucket = count < {0} ? count : {0};", bucket);
  if (pages) {
    body.line("const bool isLong = count > {};", bucket);
    body.line("const int slot = isLong ? slotOfRow[row] : 0;");
  }
  if (failed(printContribution(body, "inBucket",
                               pages ? Sink::SlotIfLong : Sink::Output)))
    return failure();
  if (pages) {
    body.open("if (isLong)");
    printArrival(body, fmt::format("0x80000000u - (unsigned)(count - {})",
                                   bucket));
    if (clearsCounts()) {
      body.close("} else {");
      ++body.indent;
    } else {
      body.close();
    }
  }
  if (clearsCounts()) {
    body.line("__syncthreads(); // every thread has read the count");
    body.line("if (threadIdx.x == 0) scratch0[row] = 0;");
    if (pages)
      body.close();
  }
  return success();
}

LogicalResult SegmentedIndexAddPrinter::printPageItems(Code &body) {
  body.line("const int pageCount = longCursors[0];");
  body.open(fmt::format("for (long long page = item; page < pageCount; page "
                        "+= {})",
                        pageBlocks));
  body.line("const long long row = pageRow[page];");
  body.line("const int past = scratch0[row] - {} - pageNumber[page] * {};",
            bucket, chunk);
  body.line("const int inPage = past < {0} ? past : {0};", chunk);
  body.line("const int *positions = pagePositions + page * {};", chunk);
  body.line("const int slot = slotOfRow[row];");
  if (failed(printContribution(body, "inPage", Sink::Slot)))
    return failure();
  printArrival(body, "(unsigned)inPage");
  if (clearsCounts()) {
    body.line("// the table is empty again for the next run");
    body.open("if (threadIdx.x == 0)");
    body.line("pageKeys[pageEntry[page]] = 0;");
    body.line("pageOfKey[pageEntry[page]] = 0;");
    body.close();
  }
  body.close();
  return success();
}

LogicalResult SegmentedIndexAddPrinter::printContribution(
    Code &body, const std::string &count, Sink sink) {
  openUnitLoop(body);
  declareAccumulators(body);
  if (sink != Sink::Slot && failed(addInput(body, "row")))
    return failure();
  body.line("// a loop of known length: the loads of several positions are in "
            "flight at once");
  body.line("#pragma unroll 4");
  body.open(fmt::format("for (int j = 0; j < {}; ++j)", count));
  if (failed(addSource(body, "positions[j]")))
    return failure();
  body.close();
  if (sink == Sink::SlotIfLong)
    body.open("if (isLong)");
  if (sink != Sink::Output) {
    body.line("const long long at = (long long)slot * {};", rowLength);
    addToPartials(body);
  }
  if (sink == Sink::SlotIfLong) {
    body.close("} else {");
    ++body.indent;
  }
  if (sink != Sink::Slot)
    storeRow(body, "row");
  if (sink == Sink::SlotIfLong)
    body.close();
  body.close(); // the units
  return success();
}

void SegmentedIndexAddPrinter::printArrival(Code &body,
                                            const std::string &added) {
  body.line("__shared__ bool completes;");
  body.line("__threadfence();");
  body.line("__syncthreads(); // every thread has added its units");
  body.line("const unsigned added = {};", added);
  body.line("if (threadIdx.x == 0) completes = atomicAdd(&progress[1 + "
            "slot], added) + added == 0x80000000u;");
  body.line("__syncthreads();");
  body.open("if (completes)");
  printCompletedSlot(body);
  body.close();
}

void SegmentedIndexAddPrinter::printCompletedSlot(Code &body) {
  body.line("// the slot's last contribution: its partial sums hold the "
            "row, input included");
  body.line("__threadfence();");
  openUnitLoop(body);
  declareAccumulators(body);
  body.line("const long long at = (long long)slot * {};", rowLength);
  takePartials(body);
  storeRow(body, "row");
  body.close(); // the units
  body.open("if (threadIdx.x == 0)");
  body.line("progress[1 + slot] = 0;");
  if (clearsCounts())
    body.line("scratch0[row] = 0;");
  body.close();
}

void SegmentedIndexAddPrinter::addToPartials(Code &body) {
  // float groups of 4 (16-byte aligned): one vector atomic on sm_90.
  bool vectorAtomics = vector && std::string(ct) == "float";
  for (int g = 0; g < groups; ++g) {
    if (vectorAtomics) {
      body.line("stride_atomic_add4(&{}, {}, {}, {}, {});", partial("at", g, 0),
                acc[g][0], acc[g][1], acc[g][2], acc[g][3]);
      continue;
    }
    for (int w = 0; w < width; ++w)
      body.line("stride_atomic_add(&{}, {});", partial("at", g, w), acc[g][w]);
  }
}

void SegmentedIndexAddPrinter::takePartials(Code &body) {
  forEachAccumulator([&](int g, int w, const std::string &a) {
    std::string at = partial("at", g, w);
    // Through the L2, where the other blocks' atomics went.
    body.line("{} = __ldcg(&{});", a, at);
    body.line("{} = 0;", at);
  });
}

FailureOr<std::string>
SegmentedIndexAddPrinter::printRowOf(Code &body, const std::string &k,
                                     const std::string &guard) {
  std::string row = fresh("row");
  body.line("int {} = -1;", row);
  // evalIndex skips a bad index with `continue`: out of the do-while.
  body.open(fmt::format("if ({}) do", guard));
  pushScope();
  FailureOr<std::string> i = evalIndex(op, op.getIndex(), {k},
                                       SizeExpr::constant(rows), body, true);
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

LogicalResult SegmentedIndexAddPrinter::printRanks(
    Code &body,
    function_ref<void(const std::string &, const std::string &)> keepRank) {
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
  // Stable ranks need the block's positions in order; the default mode's
  // may come in any order, a warp's at a time.
  if (schedule.getDeterministic())
    body.line("const int rank = stride_rank_in_block({}, scratch0, {}, "
              "(int){});",
              *row, slices, tile);
  else
    body.line("const int rank = stride_rank_in_warp({}, scratch0);", *row);
  keepRank(*row, k);
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
  FailureOr<std::string> i = evalIndex(op, op.getIndex(), k,
                                       SizeExpr::constant(rows), body, true);
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

void SegmentedIndexAddPrinter::openChunkStaging(Code &body) {
  body.open(fmt::format("for (long long c = blockIdx.x; c * {} < total; c += "
                        "gridDim.x)",
                        chunk));
  body.line("const int begin = (int)(c * {0}), end = begin + {0} < total ? "
            "begin + {0} : total;",
            chunk);
  body.line("__syncthreads(); // the last chunk's runs are summed");
  body.open("for (int j = threadIdx.x; begin + j < end; j += blockDim.x)");
}

void SegmentedIndexAddPrinter::openUnitLoop(Code &body,
                                            const std::string &first,
                                            const std::string &step) {
  std::string u = fresh("unit");
  body.open(fmt::format("for ({0} {1} = {3}; {1} < {2}; {1} += {4})", idx, u,
                        rowLength / perUnit, first, step));
  // Group g of every unit lies in the g-th part of the row, so that each
  // of a warp's accesses covers consecutive elements.
  int64_t part = rowLength / groups;
  groupLinear.clear();
  groupLanes.clear();
  for (int g = 0; g < groups; ++g) {
    groupLinear.push_back(fresh("linear"));
    std::string first = width == 1 ? u : fmt::format("{} * {}", u, width);
    if (g > 0)
      first += fmt::format(" + {}", part * g);
    body.line("const {} {} = {};", idx, groupLinear.back(), first);
    Coords coords = delinearize(body, groupLinear.back(), rowShape);
    coords.insert(coords.begin() + dim, "");
    groupLanes.emplace_back(width, coords);
    for (int w = 1; w < width; ++w) {
      std::string c = fresh("i");
      body.line("const {} {} = {} + {};", idx, c, coords.back(), w);
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
  return fmt::format("partials[{} + {} + {}]", at, groupLinear[g], w);
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

LogicalResult SegmentedIndexAddPrinter::addSource(Code &body,
                                                  const std::string &position) {
  body.line("const {} k = {};", idx, position);
  pushScope();
  LogicalResult status = forEachLane(
      body, op.getSrc(), "k", [&](int g, int w, const std::string &v) {
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
  openChunkStaging(body);
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
  if (failed(addSource(body, "runPosition[i - begin]")))
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
