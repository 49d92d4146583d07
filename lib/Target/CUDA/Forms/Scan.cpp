//===- Scan.cpp - Scan kernels --------------------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (e), scheme row_scan: a cumsum along one dim, with its pointwise
// prologue evaluated at the cumsum's input coordinates. A row (the elements
// along the dim at one position of the other dims) is scanned by a warp or
// a block, a chunk of `threads` elements at a time: each thread evaluates
// one element, the warp scans with __shfl_up_sync, a block adds the totals
// of the warps before each thread's (through shared memory), and each
// chunk starts from the total of the chunks before it (the carry). A row
// of a few chunks (`elements_per_thread`) is loaded whole before its
// first chunk is scanned.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult ScanPrinter::printBody(Code &body) {
  CumsumOp scan = facts.scanRoot;
  int64_t dim = scan.getDim();
  // Over symbolic sizes the row count and length are size expressions,
  // printed from the kernel's size parameters.
  SizeExprs shape = facts.iterationSizes();
  SizeExpr length = shape[dim];
  SizeExprs rowShape(shape);
  rowShape[dim] = SizeExpr::constant(1);
  SizeExpr rows = productOf(rowShape);
  int64_t threads = schedule.getThreads();
  body.line("// cumsum at {} along dim {} of {}: {} rows of {} elements, {} "
            "threads per row, chunks of {} elements",
            formatLocation(scan.getLoc()), dim,
            facts.isSymbolic() ? formatSizes(shape) : shapeText(iterationShape),
            rows.str(), length.str(), threads, threads);
  if (productOf(shape).getConstant() == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }
  sum.op = scan;
  sum.kind = ReduceKind::Sum;
  sum.input = scan.getInput();
  sum.dtype = *dtypeOf(scan.getType());
  sum.dims = {dim};
  sum.keepdim = true;
  if (threads > 32)
    body.line("__shared__ {} warpTotals[{}];", accumulatorType(ReduceKind::Sum, sum.dtype),
              threads / 32);
  Coords coords = openRowLoop(body, rows, rowShape);
  carry = fresh("carry");
  body.line("{} {} = {};", accumulatorType(ReduceKind::Sum, sum.dtype), carry,
            identityOf(ReduceKind::Sum, sum.dtype));
  if (schedule.getElementsPerThread() > 1) {
    if (failed(printHeldChunks(body, coords, length)))
      return failure();
    body.close(); // the rows
    return success();
  }
  std::string base = fresh("base");
  body.open(fmt::format("for ({0} {1} = 0; {1} < {2}; {1} += {3})", idx, base,
                        sizeText(length), threads));
  coords[dim] = fresh("r");
  body.line("const {} {} = {} + {};", idx, coords[dim], base, lane);
  if (failed(printChunk(body, coords, length)))
    return failure();
  body.close(); // the chunks
  body.close(); // the rows
  return success();
}

Coords ScanPrinter::openRowLoop(Code &body, const SizeExpr &rows,
                                ArrayRef<SizeExpr> rowShape) {
  lane = fresh("lane");
  std::string row = fresh("row");
  if (schedule.getThreads() == 32) {
    body.line("const int {} = threadIdx.x % 32;", lane);
    body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * (blockDim.x / 32) "
                          "+ threadIdx.x / 32; {1} < {2}; {1} += "
                          "({0})gridDim.x * (blockDim.x / 32))",
                          idx, row, sizeText(rows)));
  } else {
    body.line("const int {} = threadIdx.x;", lane);
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, row, sizeText(rows)));
  }
  if (facts.isSymbolic())
    return delinearize(body, row, rowShape);
  SmallVector<int64_t> staticRowShape(iterationShape);
  staticRowShape[sum.dims.front()] = 1;
  return delinearize(body, row, staticRowShape);
}

/// Every chunk of the row loaded first, each thread's element of each
/// chunk held in a register (`elements_per_thread` chunks: the row's whole
/// length), so that their loads are in flight together; then each chunk is
/// scanned and stored as printChunk does.
LogicalResult ScanPrinter::printHeldChunks(Code &body, Coords coords,
                                           const SizeExpr &length) {
  int64_t chunks = schedule.getElementsPerThread();
  int64_t threads = schedule.getThreads();
  body.line("// the row's {} chunks loaded before any is scanned", chunks);
  std::vector<std::pair<Coords, std::string>> held;
  for (int64_t c = 0; c < chunks; ++c) {
    coords[sum.dims.front()] = fresh("r");
    body.line("const {} {} = {} + {};", idx, coords[sum.dims.front()],
              c * threads, lane);
    if (failed(printChunkLoad(body, coords, length)))
      return failure();
    held.emplace_back(coords, x);
  }
  for (auto &[chunkCoords, value] : held) {
    x = value;
    printChunkScan(body);
    if (failed(printChunkStore(body, chunkCoords, length)))
      return failure();
  }
  return success();
}

LogicalResult ScanPrinter::printChunkLoad(Code &body, const Coords &coords,
                                          const SizeExpr &length) {
  const std::string &r = coords[sum.dims.front()];
  const char *acc = accumulatorType(ReduceKind::Sum, sum.dtype);
  x = fresh("x");
  body.line("{} {} = {};", acc, x, identityOf(ReduceKind::Sum, sum.dtype));
  body.open(fmt::format("if ({} < {})", r, sizeText(length)));
  pushScope();
  FailureOr<std::string> in = eval(sum.input, coords, body);
  popScope();
  if (failed(in))
    return failure();
  body.line("{} = {};", x,
            isFloat(sum.dtype) ? *in : "(long long)" + paren(*in));
  body.close();
  return success();
}

LogicalResult ScanPrinter::printChunk(Code &body, Coords coords,
                                      const SizeExpr &length) {
  if (failed(printChunkLoad(body, coords, length)))
    return failure();
  printChunkScan(body);
  return printChunkStore(body, coords, length);
}

LogicalResult ScanPrinter::printChunkStore(Code &body, const Coords &coords,
                                           const SizeExpr &length) {
  const std::string &r = coords[sum.dims.front()];
  const char *acc = accumulatorType(ReduceKind::Sum, sum.dtype);

  sum.acc = fresh("s");
  body.line("const {} {} = {};", acc, sum.acc,
            combineOf(ReduceKind::Sum, carry, x));
  body.open(fmt::format("if ({} < {})", r, sizeText(length)));
  pushScope();
  std::string value = fresh("v");
  body.line("const {} {} = {}; // cumsum at {}", computeType(sum.dtype), value,
            finalValue(sum, length),
            formatLocation(sum.op->getLoc()));
  remember(memoKey(sum.op->getResult(0), coords), value);
  if (failed(storeYields(body, coords)))
    return failure();
  popScope();
  body.close();
  body.line("{} = {};", carry, combineOf(ReduceKind::Sum, carry, total));
  return success();
}

void ScanPrinter::printChunkScan(Code &body) {
  int64_t threads = schedule.getThreads();
  const char *acc = accumulatorType(ReduceKind::Sum, sum.dtype);
  std::string warpLane = threads == 32 ? lane : "(threadIdx.x % 32)";
  body.open("for (int offset = 1; offset < 32; offset <<= 1)");
  body.line("const {} y = __shfl_up_sync(0xffffffffu, {}, offset);", acc, x);
  body.line("if ({} >= offset) {} = {};", warpLane, x,
            combineOf(ReduceKind::Sum, "y", x));
  body.close();
  total = fresh("total");
  if (threads == 32) {
    body.line("const {} {} = __shfl_sync(0xffffffffu, {}, 31);", acc, total,
              x);
    return;
  }
  // The totals of the block's warps: each thread adds those of the warps
  // before its own, and all of them for the chunk's total.
  std::string identity = identityOf(ReduceKind::Sum, sum.dtype);
  std::string before = fresh("before");
  body.line("if ({} == 31) warpTotals[threadIdx.x / 32] = {};", warpLane, x);
  body.line("__syncthreads();");
  body.line("{} {} = {}, {} = {};", acc, before, identity, total, identity);
  body.open(fmt::format("for (int w = 0; w < {}; ++w)", threads / 32));
  body.line("const {} t = warpTotals[w];", acc);
  body.line("if (w < (int)(threadIdx.x / 32)) {} = {};", before,
            combineOf(ReduceKind::Sum, before, "t"));
  body.line("{} = {};", total, combineOf(ReduceKind::Sum, total, "t"));
  body.close();
  body.line("{} = {};", x, combineOf(ReduceKind::Sum, before, x));
  body.line("__syncthreads(); // warpTotals is rewritten by the next chunk");
}

} // namespace stride
