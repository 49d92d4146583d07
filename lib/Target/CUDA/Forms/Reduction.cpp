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
  auto inType = cast<StridedTensorType>(first.input.getType());
  ArrayRef<int64_t> inShape = inType.getShape();
  ArrayRef<int64_t> dims = first.dims;
  SmallVector<int64_t> reducedShape;
  for (int64_t d : dims)
    reducedShape.push_back(inShape[d]);
  int64_t m = product(iterationShape), l = product(reducedShape);

  if (failed(checkReducesElements(l)))
    return failure();

  // Inner reductions give each output element a group of threads striding
  // along the reduced elements; outer reductions give adjacent threads
  // adjacent output elements, each looping over the reduced elements.
  bool inner = schedule.getScheme() == KernelScheme::ReductionInner;

  body.line("// reduction of {} over dims [{}]: {} outputs ({}) x {} reduced "
            "elements = {} elements read",
            shapeText(inShape),
            joinCoords(llvm::to_vector(llvm::map_range(
                dims, [](int64_t d) { return std::to_string(d); }))),
            m, shapeText(iterationShape), l, m * l);
  for (ReductionInfo &r : reductions)
    body.line("// {} at {}", opName(r.op), formatLocation(r.op->getLoc()));
  if (m == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }

  // Threads per output (T) and, for outer reductions, the slices of the
  // reduced range (Y).
  int64_t threads = schedule.getThreads(), slices = schedule.getSlices();
  LaunchAttr launch = launchAt(0);
  int64_t block = launch.getBlock() * launch.getBlockY();
  int64_t groups = inner ? block / threads : 32; // outputs per block pass

  // Accumulators and shared memory.
  int warpsPerBlock = static_cast<int>(block / 32);
  bool blockReduce = inner && threads > 32;
  for (auto [i, r] : llvm::enumerate(reductions)) {
    r.acc = "acc" + std::to_string(i);
    const char *at = accumulatorType(r.dtype);
    if (blockReduce)
      body.line("__shared__ {} shared{}[{}];", at, i, warpsPerBlock);
    else if (!inner && slices > 1)
      body.line("__shared__ {} shared{}[{}][32];", at, i, slices);
  }

  std::string o = fresh("o");
  std::string lane;
  if (inner) {
    if (threads > 32) {
      body.line("// one output element per block of {} threads", threads);
      body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                            "gridDim.x)",
                            idx, o, m));
      body.line("const bool active = true;");
      lane = "(" + idx + ")threadIdx.x";
    } else {
      body.line("// one output element per {} thread{} ({} per block)", threads,
                threads == 1 ? "" : "s", groups);
      std::string base = fresh("base");
      body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * {2}; {1} < {3}; "
                            "{1} += ({0})gridDim.x * {2})",
                            idx, base, groups, m));
      body.line("const {} {} = {} + ({})threadIdx.x / {};", idx, o, base, idx,
                threads);
      body.line("const bool active = {} < {};", o, m);
      lane = threads == 1 ? "0"
                          : fmt::format("(({})threadIdx.x % {})", idx, threads);
    }
  } else {
    body.line("// adjacent threads take adjacent output elements; {} "
              "thread{} per output split the reduced range",
              slices, slices == 1 ? "" : "s");
    std::string tile = fresh("tile");
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, tile, ceilDiv(m, 32)));
    body.line("const {} {} = {} * 32 + ({})threadIdx.x;", idx, o, tile, idx);
    body.line("const bool active = {} < {};", o, m);
    lane = slices == 1 ? "0" : "(" + idx + ")threadIdx.y";
  }
  int64_t stride = inner ? threads : slices;

  for (ReductionInfo &r : reductions)
    body.line("{} {} = {};", accumulatorType(r.dtype), r.acc,
              identityOf(r.kind, r.dtype));
  Coords outCoords = delinearize(body, o, iterationShape);

  // The reduction loop: input coordinates from the output's and the
  // reduced ones.
  body.open("if (active)");
  std::string r = fresh("r");
  body.open(fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4})", idx, r,
                        lane, l, stride));
  Coords reduced = delinearize(body, r, reducedShape);
  Coords inCoords;
  size_t nextKept = 0, nextReduced = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(inShape.size()); ++d) {
    if (llvm::is_contained(dims, d)) {
      inCoords.push_back(reduced[nextReduced++]);
      if (first.keepdim)
        ++nextKept;
    } else {
      inCoords.push_back(outCoords[nextKept++]);
    }
  }
  pushScope();
  for (ReductionInfo &info : reductions) {
    FailureOr<std::string> v = eval(info.input, inCoords, body);
    if (failed(v))
      return failure();
    std::string asAcc = isFloat(info.dtype) ? *v : "(long long)" + paren(*v);
    body.line("{} = {};", info.acc, combineOf(info.kind, info.acc, asAcc));
  }
  popScope();
  body.close();
  body.close();

  // Combine the partial results of the threads of one output.
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
  std::string leader;
  if (inner && threads > 1 && threads <= 32) {
    shuffle(static_cast<int>(threads));
    leader = lane + " == 0";
  } else if (blockReduce) {
    shuffle(32);
    body.open("if (threadIdx.x % 32 == 0)");
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("shared{}[threadIdx.x / 32] = {};", i, info.acc);
    body.close();
    body.line("__syncthreads();");
    body.open("if (threadIdx.x < 32)");
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("{} = threadIdx.x < {} ? shared{}[threadIdx.x] : {};", info.acc,
                warpsPerBlock, i, identityOf(info.kind, info.dtype));
    shuffle(32);
    body.close();
    body.line("__syncthreads();");
    leader = "threadIdx.x == 0";
  } else if (!inner && slices > 1) {
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("shared{}[threadIdx.y][threadIdx.x] = {};", i, info.acc);
    body.line("__syncthreads();");
    body.open("if (threadIdx.y == 0)");
    body.open(fmt::format("for (int k = 1; k < {}; ++k)", slices));
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("{} = {};", info.acc,
                combineOf(info.kind, info.acc,
                          fmt::format("shared{}[k][threadIdx.x]", i)));
    body.close();
    body.close();
    body.line("__syncthreads();");
    leader = "threadIdx.y == 0";
  }

  body.open(leader.empty() ? "if (active)"
                           : fmt::format("if (active && {})", leader));
  pushScope();
  for (ReductionInfo &info : reductions) {
    std::string v = fresh("v");
    body.line("const {} {} = {}; // {} at {}", computeType(info.dtype), v,
              finalValue(info, l), opName(info.op),
              formatLocation(info.op->getLoc()));
    std::string key = memoKey(info.op->getResult(0), outCoords);
    remember(key, v);
    reductionKeys[info.op->getResult(0)] = key;
  }
  if (failed(storeYields(body, outCoords)))
    return failure();
  popScope();
  body.close();
  body.close(); // the loop over outputs
  return success();
}

} // namespace stride
