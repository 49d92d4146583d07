//===- Reduction.cpp - Reduction kernels ----------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (b), schemes reduction_inner and reduction_outer: one or more
// reductions of the same input and dims, with a pointwise prologue and
// epilogue. Inner reductions give each output element a group of threads
// striding along the reduced elements; outer reductions give adjacent
// threads adjacent output elements, each looping over a slice of the
// reduced elements.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult ReductionPrinter::printBody(Code &body) {
  ReductionInfo &first = reductions.front();
  ArrayRef<int64_t> inShape =
      cast<StridedTensorType>(first.input.getType()).getShape();
  SmallVector<int64_t> reducedShape;
  for (int64_t d : first.dims)
    reducedShape.push_back(inShape[d]);
  int64_t l = product(reducedShape);

  // A symbolic reduced length is at least 1 (stride-check-symbolic-sizes).
  if (!facts.isSymbolic() && failed(checkReducesElements(l)))
    return failure();

  if (facts.isSymbolic()) {
    // The outputs' count and the reduced length are the size parameters'
    // expressions (the schedule never split).
    SizeExprs inSizes = cast<StridedTensorType>(first.input.getType())
                            .getSymbolicLayout()
                            .shape;
    SizeExprs reducedSizes;
    for (int64_t d : first.dims)
      reducedSizes.push_back(inSizes[d]);
    body.line("// reduction of {} over dims [{}]: {} outputs ({}) x {} "
              "reduced elements, sizes from the size parameters",
              formatSizes(inSizes), dimsText(first.dims),
              facts.rowCount().str(), formatSizes(facts.symbolicShape),
              facts.rowLength().str());
    for (ReductionInfo &r : reductions)
      body.line("// {} at {}", opName(r.op), formatLocation(r.op->getLoc()));
    return printOutputs(body, facts.rowCount(), reducedSizes);
  }
  int64_t m = product(iterationShape);
  body.line("// reduction of {} over dims [{}]: {} outputs ({}) x {} reduced "
            "elements = {} elements read",
            shapeText(inShape), dimsText(first.dims), m,
            shapeText(iterationShape), l, m * l);
  for (ReductionInfo &r : reductions)
    body.line("// {} at {}", opName(r.op), formatLocation(r.op->getLoc()));
  if (m == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }

  if (schedule.getScheme() == KernelScheme::ReductionSplit)
    return printSplit(body, m, reducedShape);
  return printOutputs(body, SizeExpr::constant(m), constantSizes(reducedShape));
}

LogicalResult ReductionPrinter::printOutputs(Code &body, const SizeExpr &m,
                                             ArrayRef<SizeExpr> reducedShape) {
  SizeExpr l = productOf(reducedShape);
  Threads t = threadsOf();
  declareAccumulators(body, t);
  OutputLoop loop = openOutputLoop(body, t, m);
  initAccumulators(body);
  Coords outCoords = delinearizeOutput(body, loop.output);
  if (failed(printAccumulation(body, t, loop.lane, outCoords, reducedShape)))
    return failure();
  std::string leader = printCombine(body, t, loop.lane);
  if (failed(printResults(body,
                          leader.empty() ? "active" : "active && " + leader,
                          outCoords, l)))
    return failure();
  body.close(); // the loop over outputs
  return success();
}

Coords ReductionPrinter::delinearizeOutput(Code &body,
                                           const std::string &linear) {
  SizeExprs sizes = facts.iterationSizes();
  DenseI64ArrayAttr order = schedule.getOutputOrder();
  if (!order)
    return delinearize(body, linear, sizes);
  body.line("// consecutive threads take the outputs in the schedule's "
            "output_order (dims {}), as their reads are laid out",
            dimsText(order.asArrayRef()));
  SizeExprs inOrder;
  for (int64_t d : order.asArrayRef())
    inOrder.push_back(sizes[d]);
  Coords ordered = delinearize(body, linear, inOrder);
  Coords coords(sizes.size());
  for (auto [position, d] : llvm::enumerate(order.asArrayRef()))
    coords[d] = ordered[position];
  return coords;
}

void ReductionPrinter::initAccumulators(Code &body) {
  for (ReductionInfo &r : reductions)
    body.line("{} {} = {};", accumulatorType(r.kind, r.dtype), r.acc,
              identityOf(r.kind, r.dtype));
}

LogicalResult ReductionPrinter::printResults(Code &body,
                                             const std::string &condition,
                                             ArrayRef<std::string> outCoords,
                                             const SizeExpr &reducedElements) {
  if (!condition.empty())
    body.open(fmt::format("if ({})", condition));
  pushScope();
  for (ReductionInfo &info : reductions) {
    std::string v = fresh("v");
    body.line("const {} {} = {}; // {} at {}", computeType(info.dtype), v,
              finalValue(info, reducedElements), opName(info.op),
              formatLocation(info.op->getLoc()));
    std::string key = memoKey(info.op->getResult(0), outCoords);
    remember(key, v);
    reductionKeys[info.op->getResult(0)] = key;
  }
  if (failed(storeYields(body, outCoords)))
    return failure();
  popScope();
  if (!condition.empty())
    body.close();
  return success();
}

Coords ReductionPrinter::inputCoords(ArrayRef<std::string> outCoords,
                                     ArrayRef<std::string> reduced) {
  const ReductionInfo &first = reductions.front();
  int64_t rank = cast<StridedTensorType>(first.input.getType()).getRank();
  Coords inCoords;
  size_t nextKept = 0, nextReduced = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(first.dims, d)) {
      inCoords.push_back(reduced[nextReduced++]);
      if (first.keepdim)
        ++nextKept;
    } else {
      inCoords.push_back(outCoords[nextKept++]);
    }
  }
  return inCoords;
}

ReductionPrinter::Threads ReductionPrinter::threadsOf() {
  Threads t;
  t.inner = schedule.getScheme() == KernelScheme::ReductionInner;
  t.perOutput = schedule.getThreads();
  t.slices = schedule.getSlices();
  LaunchAttr launch = launchAt(0);
  t.block = launch.getBlock() * launch.getBlockY();
  t.blockReduce = t.inner && t.perOutput > 32;
  return t;
}

void ReductionPrinter::declareAccumulators(Code &body, const Threads &t) {
  int64_t warpsPerBlock = t.block / 32;
  for (auto [i, r] : llvm::enumerate(reductions)) {
    r.acc = "acc" + std::to_string(i);
    const char *at = accumulatorType(r.kind, r.dtype);
    if (t.blockReduce)
      body.line("__shared__ {} shared{}[{}];", at, i, warpsPerBlock);
    else if (!t.inner && t.slices > 1)
      body.line("__shared__ {} shared{}[{}][32];", at, i, t.slices);
  }
}

ReductionPrinter::OutputLoop
ReductionPrinter::openOutputLoop(Code &body, const Threads &t,
                                 const SizeExpr &outputs) {
  std::string m = sizeText(outputs);
  // The column tiles of 32 outputs: a constant, or the expression's.
  std::optional<int64_t> count = outputs.getConstant();
  std::string tiles = count ? std::to_string(ceilDiv(*count, 32))
                            : fmt::format("({} + 31) / 32", m);
  OutputLoop loop;
  loop.output = fresh("o");
  const std::string &o = loop.output;
  if (t.inner && t.perOutput > 32) {
    body.line("// one output element per block of {} threads", t.perOutput);
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, o, m));
    body.line("const bool active = true;");
    loop.lane = "(" + idx + ")threadIdx.x";
  } else if (t.inner) {
    int64_t groups = t.block / t.perOutput; // outputs per block pass
    body.line("// one output element per {} thread{} ({} per block)",
              t.perOutput, t.perOutput == 1 ? "" : "s", groups);
    std::string base = fresh("base");
    body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * {2}; {1} < {3}; "
                          "{1} += ({0})gridDim.x * {2})",
                          idx, base, groups, m));
    body.line("const {} {} = {} + ({})threadIdx.x / {};", idx, o, base, idx,
              t.perOutput);
    body.line("const bool active = {} < {};", o, m);
    loop.lane = t.perOutput == 1
                    ? "0"
                    : fmt::format("(({})threadIdx.x % {})", idx, t.perOutput);
  } else {
    body.line("// adjacent threads take adjacent output elements; {} "
              "thread{} per output split the reduced range",
              t.slices, t.slices == 1 ? "" : "s");
    std::string tile = fresh("tile");
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, tile, tiles));
    body.line("const {} {} = {} * 32 + ({})threadIdx.x;", idx, o, tile, idx);
    body.line("const bool active = {} < {};", o, m);
    loop.lane = t.slices == 1 ? "0" : "(" + idx + ")threadIdx.y";
  }
  return loop;
}

LogicalResult ReductionPrinter::printAccumulation(
    Code &body, const Threads &t, const std::string &lane,
    ArrayRef<std::string> outCoords, ArrayRef<SizeExpr> reducedShape) {
  // With vector width 4, 4 consecutive elements per step.
  int64_t vector = schedule.getVectorWidth();
  body.open("if (active)");
  std::string r = fresh("r");
  unrollVectorizedLoop(body);
  body.open(fmt::format(
      "for ({0} {1} = {2}; {1} < {3}; {1} += {4})", idx, r,
      vector == 1 || lane == "0" ? lane : fmt::format("{} * {}", lane, vector),
      sizeText(productOf(reducedShape)),
      (t.inner ? t.perOutput : t.slices) * vector));
  if (failed(accumulateElements(body, outCoords,
                                delinearize(body, r, reducedShape))))
    return failure();
  body.close();
  body.close();
  return success();
}

std::string ReductionPrinter::printCombine(Code &body, const Threads &t,
                                           const std::string &lane) {
  auto shuffle = [&](int width) {
    body.open(fmt::format("for (int offset = {}; offset > 0; offset /= 2)",
                          width / 2));
    for (ReductionInfo &info : reductions)
      body.line("{} = {};", info.acc,
                combineOf(info.kind, info.acc,
                          fmt::format("__shfl_xor_sync(0xffffffffu, {}, "
                                      "offset, {})",
                                      info.acc, width)));
    body.close();
  };
  if (t.inner && t.perOutput > 1 && t.perOutput <= 32) {
    shuffle(static_cast<int>(t.perOutput));
    return lane + " == 0";
  }
  if (t.blockReduce) {
    shuffle(32);
    body.open("if (threadIdx.x % 32 == 0)");
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("shared{}[threadIdx.x / 32] = {};", i, info.acc);
    body.close();
    body.line("__syncthreads();");
    body.open("if (threadIdx.x < 32)");
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("{} = threadIdx.x < {} ? shared{}[threadIdx.x] : {};", info.acc,
                t.block / 32, i, identityOf(info.kind, info.dtype));
    shuffle(32);
    body.close();
    body.line("__syncthreads();");
    return "threadIdx.x == 0";
  }
  if (!t.inner && t.slices > 1) {
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("shared{}[threadIdx.y][threadIdx.x] = {};", i, info.acc);
    body.line("__syncthreads();");
    body.open("if (threadIdx.y == 0)");
    body.open(fmt::format("for (int k = 1; k < {}; ++k)", t.slices));
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("{} = {};", info.acc,
                combineOf(info.kind, info.acc,
                          fmt::format("shared{}[k][threadIdx.x]", i)));
    body.close();
    body.close();
    body.line("__syncthreads();");
    return "threadIdx.y == 0";
  }
  return "";
}

} // namespace stride
