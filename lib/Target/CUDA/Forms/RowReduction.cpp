//===- RowReduction.cpp - Broadcast-reduction kernels ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (d), schemes row_registers and row_reread: one row (the reduced
// elements of one result element) per warp, block or thread-block cluster;
// each reduction of the row in program order, combined across the row's
// threads so that every thread holds it, then the broadcast epilogue over
// the row. In registers, each phase is one unrolled loop over the elements
// a thread holds, and the values a phase computes are register arrays the
// later phases read.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

int64_t RowReductionPrinter::rowThreads() const {
  return schedule.getThreads() * schedule.getClusterBlocks();
}

void RowReductionPrinter::combineAcrossRow(Code &body,
                                           const ReductionInfo &info,
                                           int64_t threads,
                                           const std::string &shared) {
  // A butterfly leaves the combined value in every lane of the warp.
  auto butterfly = [&] {
    body.open("for (int offset = 16; offset > 0; offset /= 2)");
    body.line("{} = {};", info.acc,
              combineOf(info.kind, info.acc,
                        fmt::format("__shfl_xor_sync(0xffffffffu, {}, offset)",
                                    info.acc)));
    body.close();
  };
  butterfly();
  if (threads <= 32)
    return;
  // The warps' results through shared memory; every thread combines them
  // in the same order, so all hold the same value.
  body.line("if (threadIdx.x % 32 == 0) {}[threadIdx.x / 32] = {};", shared,
            info.acc);
  body.line("__syncthreads();");
  body.line("{} = {}[0];", info.acc, shared);
  body.open(fmt::format("for (int w = 1; w < {}; ++w)", threads / 32));
  body.line("{} = {};", info.acc,
            combineOf(info.kind, info.acc, shared + "[w]"));
  body.close();
  body.line("__syncthreads(); // {} is reused by the next reduction or row",
            shared);
}

void RowReductionPrinter::combineAcrossCluster(Code &body,
                                               const ReductionInfo &info,
                                               const std::string &slot) {
  // Each block's value through its slot, read by every thread from every
  // block of the cluster in rank order, so all hold the same value. The
  // slot is rewritten only for the next row, after the row's last cluster
  // barrier (openRowLoop).
  body.line("if (threadIdx.x == 0) {}[0] = {};", slot, info.acc);
  body.line("stride_cluster_sync();");
  body.line("{} = stride_cluster_read({}, 0u);", info.acc, slot);
  body.open(fmt::format("for (unsigned b = 1; b < {}u; ++b)",
                        schedule.getClusterBlocks()));
  body.line("{} = {};", info.acc,
            combineOf(info.kind, info.acc,
                      fmt::format("stride_cluster_read({}, b)", slot)));
  body.close();
}

LogicalResult RowReductionPrinter::walkRowRegisters(Code &body,
                                                    const RowLoop &loop,
                                                    ElementFn fn) {
  // The loop is printed first, then the arrays it declared above it.
  Code code;
  code.indent = body.indent;
  code.line("#pragma unroll");
  code.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", loop.index,
                        loop.count));
  code.text += loop.header;
  rowArrays = &loop;
  newArrays.clear();
  LogicalResult status = fn(code, loop.coords, loop.valid);
  rowArrays = nullptr;
  code.close();
  for (auto [type, name] : newArrays)
    body.line("{} {}[{}];", type, name, loop.count);
  body.text += code.text;
  return status;
}

std::string RowReductionPrinter::declareValue(Code &code, StringRef type,
                                              const std::string &name,
                                              const std::string &expr) {
  if (!rowArrays)
    return KernelPrinter::declareValue(code, type, name, expr);
  newArrays.push_back({type.str(), name});
  std::string element = name + "[" + rowArrays->index + "]";
  code.line("{} = {};", element, expr);
  return element;
}

std::string RowReductionPrinter::declareMutable(Code &code, StringRef type,
                                                const std::string &name) {
  if (!rowArrays)
    return KernelPrinter::declareMutable(code, type, name);
  newArrays.push_back({type.str(), name});
  return name + "[" + rowArrays->index + "]";
}

LogicalResult RowReductionPrinter::printBody(Code &body) {
  ArrayRef<int64_t> dims = reductions.front().dims;
  for (int64_t d = 0; d < static_cast<int64_t>(iterationShape.size()); ++d)
    (llvm::is_contained(dims, d) ? reducedShape : keptShape)
        .push_back(iterationShape[d]);
  int64_t m = product(keptShape);
  rowLength = product(reducedShape);
  if (failed(checkReducesElements(rowLength)))
    return failure();

  body.line("// broadcast reduction over dims [{}] of {}: {} rows of {} "
            "elements; each row's reductions, then the epilogue over the row",
            dimsText(dims), shapeText(iterationShape), m, rowLength);
  for (ReductionInfo &r : reductions)
    body.line("// {} at {}", opName(r.op), formatLocation(r.op->getLoc()));
  if (m * rowLength == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }

  // A block's partial results of each reduction, one per warp, and with a
  // cluster, the block's for the other blocks.
  for (auto [i, r] : llvm::enumerate(reductions)) {
    r.acc = "acc" + std::to_string(i);
    if (schedule.getThreads() > 32)
      body.line("STRIDE_SHARED({}, shared{}, {});", accumulatorType(r.dtype),
                i, schedule.getThreads() / 32);
    if (schedule.getClusterBlocks() > 1)
      body.line("STRIDE_SHARED({}, cluster{}, 1);", accumulatorType(r.dtype),
                i);
  }
  openRowLoop(body, m);
  pushScope();
  if (schedule.getScheme() == KernelScheme::RowRegisters)
    rowLoop = registerLoop(body);
  for (auto [i, info] : llvm::enumerate(reductions))
    if (failed(printReduction(body, info, std::to_string(i))) ||
        failed(printReadyRowOps(body)))
      return failure();
  LogicalResult stored = printEpilogue(body);
  popScope();
  if (schedule.getClusterBlocks() > 1)
    body.line("stride_cluster_sync(); // no block rewrites its slots or "
              "leaves while another reads them");
  body.close(); // the loop over rows
  rowValues.clear();
  return stored;
}

void RowReductionPrinter::openRowLoop(Code &body, int64_t rows) {
  // A warp, a block or a cluster of blocks per row; the elements each thread
  // holds are kept in registers across the phases (each input element is
  // loaded once) or re-read in each phase.
  int64_t threads = schedule.getThreads();
  int64_t perThread = schedule.getElementsPerThread();
  int64_t blocks = schedule.getClusterBlocks();
  bool inRegisters = schedule.getScheme() == KernelScheme::RowRegisters;
  std::string row = fresh("row");
  if (blocks > 1) {
    // The cluster's blocks are consecutive in the grid; block rank b of
    // the cluster holds the row's threads b * threads on.
    body.line("// one row per cluster of {} blocks of {} threads, {} "
              "elements per thread{}",
              blocks, threads, perThread,
              inRegisters ? ", kept in registers" : "");
    body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x / {2}; {1} < {3}; "
                          "{1} += ({0})gridDim.x / {2})",
                          idx, row, blocks, rows));
    lane = fmt::format("(({0})blockIdx.x % {1} * {2} + ({0})threadIdx.x)",
                       idx, blocks, threads);
  } else if (threads == 32) {
    int64_t rowsPerBlock = launchAt(0).getBlock() / threads;
    body.line("// one row per warp ({} rows per block), {} element{} per "
              "lane{}",
              rowsPerBlock, perThread, perThread == 1 ? "" : "s",
              inRegisters ? ", kept in registers" : "");
    body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * {2} + "
                          "threadIdx.x / 32; {1} < {3}; {1} += "
                          "({0})gridDim.x * {2})",
                          idx, row, rowsPerBlock, rows));
    lane = "((" + idx + ")threadIdx.x % 32)";
  } else {
    body.line("// one row per block of {} threads, {} elements per thread{}",
              threads, perThread, inRegisters ? ", kept in registers" : "");
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, row, rows));
    lane = "((" + idx + ")threadIdx.x)";
  }
  kept = delinearize(body, row, keptShape);
}

Coords RowReductionPrinter::elementCoords(Code &code, const std::string &r) {
  ArrayRef<int64_t> dims = reductions.front().dims;
  Coords reduced = delinearize(code, r, reducedShape);
  Coords coords;
  size_t nextKept = 0, nextReduced = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(iterationShape.size()); ++d)
    coords.push_back(llvm::is_contained(dims, d) ? reduced[nextReduced++]
                                                 : kept[nextKept++]);
  return coords;
}

RowReductionPrinter::RowLoop RowReductionPrinter::registerLoop(Code &body) {
  // Element k of this thread is reduced element lane + k * threads, clamped
  // to the row (a clamped element is evaluated, which is safe, and neither
  // reduced nor stored). Each phase walks the elements with the same
  // unrolled loop, whose header names the element's coordinates identically
  // each time, so a value computed in one phase is an element of a register
  // array the later phases read.
  int64_t threads = rowThreads();
  RowLoop loop;
  loop.index = fresh("k");
  loop.count = schedule.getElementsPerThread();
  Code header;
  header.indent = body.indent + 1;
  std::string position = fmt::format("{} + {} * {}", lane, loop.index, threads);
  std::string r = fresh("r");
  int64_t full = rowLength / threads; // elements every thread has in every row
  if (full >= loop.count) {
    header.line("const {} {} = {};", idx, r, position);
  } else {
    loop.valid = fresh("ok");
    if (full > 0)
      header.line("const bool {} = {} < {} || {} < {};", loop.valid,
                  loop.index, full, position, rowLength);
    else
      header.line("const bool {} = {} < {};", loop.valid, position, rowLength);
    header.line("const {} {} = {} ? {} : {};", idx, r, loop.valid, position,
                rowLength - 1);
  }
  loop.coords = elementCoords(header, r);
  loop.header = std::move(header.text);
  return loop;
}

LogicalResult RowReductionPrinter::forEachElement(Code &body,
                                                  ElementFn fn) {
  if (rowLoop)
    return walkRowRegisters(body, *rowLoop, fn);
  std::string r = fresh("r");
  body.open(fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4})", idx, r,
                        lane, rowLength, rowThreads()));
  pushScope();
  LogicalResult status = fn(body, elementCoords(body, r), "");
  popScope();
  body.close();
  return status;
}

LogicalResult RowReductionPrinter::printReduction(Code &body,
                                                  const ReductionInfo &info,
                                                  const std::string &index) {
  body.line("{} {} = {};", accumulatorType(info.dtype), info.acc,
            identityOf(info.kind, info.dtype));
  LogicalResult status = forEachElement(
      body,
      [&](Code &code, ArrayRef<std::string> coords,
          StringRef ok) -> LogicalResult {
        FailureOr<std::string> v = eval(info.input, coords, code);
        if (failed(v))
          return failure();
        std::string combined = accumulated(info, *v);
        if (ok.empty())
          code.line("{} = {};", info.acc, combined);
        else
          code.line("{} = {} ? {} : {};", info.acc, ok, combined, info.acc);
        return success();
      });
  if (failed(status))
    return failure();
  combineAcrossRow(body, info, schedule.getThreads(), "shared" + index);
  if (schedule.getClusterBlocks() > 1)
    combineAcrossCluster(body, info, "cluster" + index);
  std::string v = fresh("v");
  body.line("const {} {} = {}; // {} at {}", computeType(info.dtype), v,
            finalValue(info, rowLength), opName(info.op),
            formatLocation(info.op->getLoc()));
  rowValues[info.op] = v;
  return success();
}

Coords RowReductionPrinter::rowResultCoords() const {
  const ReductionInfo &rows = reductions.front();
  Coords coords;
  size_t nextKept = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(iterationShape.size()); ++d) {
    if (!llvm::is_contained(rows.dims, d))
      coords.push_back(kept[nextKept++]);
    else if (rows.keepdim)
      coords.push_back("0");
  }
  return coords;
}

LogicalResult RowReductionPrinter::printReadyRowOps(Code &body) {
  auto computed = [&](Value operand) {
    Value base = viewChainBase(operand);
    return !isRowValue(base) || rowValues.contains(base.getDefiningOp());
  };
  Coords coords = rowResultCoords();
  for (Operation *op : facts.rowOps) {
    if (rowValues.contains(op) || !llvm::all_of(op->getOperands(), computed))
      continue;
    FailureOr<std::string> v = evalOp(op, coords, body);
    if (failed(v))
      return failure();
    rowValues[op] = *v;
  }
  return success();
}

LogicalResult RowReductionPrinter::printEpilogue(Code &body) {
  return forEachElement(body, [&](Code &code, ArrayRef<std::string> coords,
                                  StringRef ok) -> LogicalResult {
    if (ok.empty())
      return storeYields(code, coords);
    // Evaluated outside the guard, so later elements may reuse it.
    for (Value value : yields)
      if (failed(eval(value, coords, code)))
        return failure();
    code.open(fmt::format("if ({})", ok));
    LogicalResult status = storeYields(code, coords);
    code.close();
    return status;
  });
}

} // namespace stride
