//===- SkinnyMatmul.cpp - Skinny matrix products --------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (g), scheme skinny_matmul: a stride.matmul of few rows (a decode
// step's tokens) against a weight whose K elements are consecutive (an
// nn.Linear weight [N, K] read through a permute), C[M x N] = A[M x K] ·
// W[K x N] (python-free-docs/matmul.md, "Skinny products"). A warp takes
// `tile` adjacent columns (output features) and one of `slices` slices of
// K; with `column_warps` > 1 the block's warps share one column group,
// warp p taking the 512-byte steps p, p + column_warps, ... of the rows,
// and add their lanes' sums in warp order through shared memory before
// warp 0's shuffles (printCombineColumnWarps). Its lanes stream the columns'
// weight rows `vector_width` elements per load (16 bytes where the layouts
// allow), lane l at elements l * width, (l + 32) * width, ..., so that each
// warp load is 512 consecutive bytes; for each row of A the lane loads the same
// elements of the row (or, with a prologue, evaluates the ops that compute them
// at those elements, their inputs read a group at a time where aligned) and
// adds the products into its sums, in f32. The activations are small and read
// by every warp: they stay in the L1 and L2 caches. The elements of a
// slice past its last whole vector (K not a multiple of the width) are
// taken one per lane. Shuffles then sum each row's and column's lanes; with
// one slice, a lane per (row, column) adds the bias, applies the epilogue
// and stores; with several, each slice's sums go to scratch and a second
// launch adds them in slice order (so the result does not vary from run to
// run) before the bias and the epilogue, and zeroes the scratch again.
// With an epilogue of elementwise ops after the product (the SwiGLU after a
// decoder's merged gate and up projections), a warp takes its `tile`
// columns at each column offset the epilogue reads (columns e and e + 14336
// for the SwiGLU), and the lane of a row and column evaluates the epilogue
// from those sums and stores only its result.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult SkinnyMatmulPrinter::printBody(Code &body) {
  op = facts.productRoot;
  ArrayRef<int64_t> lhsShape = op.getLhs().getType().getShape();
  rows = lhsShape[0];
  depth = lhsShape[1];
  columns = op.getResult().getType().getShape()[1];
  const SkinnyEpilogue &epilogue = facts.productEpilogue;
  outColumns = epilogue.empty() ? columns : epilogue.columns;
  offsets = epilogue.empty() ? SmallVector<int64_t>{0}
                             : epilogue.columnOffsets();
  tile = schedule.getTile();
  width = schedule.getVectorWidth();
  slices = schedule.getSlices();
  warps = schedule.getThreads() / 32;
  columnWarps = schedule.getColumnWarps();
  loads = std::max<int64_t>(1, schedule.getElementsPerThread() / width);
  chunk = sliceLength(depth, slices, width);
  element = storageType(op.getLhs().getType().getDType());
  staged = launchAt(0).getShared() > 0;
  std::optional<unsigned> lhs = rootArgument(op.getLhs());
  std::optional<unsigned> rhs = rootArgument(op.getRhs());
  if ((!lhs && facts.productPrologue.empty()) || !rhs)
    return (error(op) << "the skinny product reads operands that are not "
                         "kernel inputs");
  if (!facts.productPrologue.empty() && !staged)
    return (error(op) << "the skinny product's prologue is evaluated once per "
                         "block into shared memory, but the schedule gives "
                         "its launch none");
  if (columnWarps != 1 && (columnWarps != warps || staged))
    return (error(op) << "the skinny product's schedule has column_warps = "
                      << columnWarps << ": expected 1, or the block's " << warps
                      << " warps without a prologue");
  lhsArg = lhs.value_or(0);
  rhsArg = *rhs;
  body.line("// skinny product at {}: {} rows x {} columns over K = {}, {} "
            "per {} columns{}, loads of {} elements ({} per column in "
            "flight), K in {} slices of {}",
            formatLocation(op.getLoc()), rows, columns, depth,
            columnWarps > 1 ? fmt::format("{} warps", columnWarps) : "a warp",
            tile,
            offsets.size() > 1 ? " at each of the epilogue's offsets" : "",
            width, loads, slices, chunk);
  if (!facts.productPrologue.empty())
    body.line("// its rows computed where they are read, by {} ops: {}",
              facts.productPrologue.size(), describeOps(facts.productPrologue));
  if (!epilogue.empty())
    body.line("// its epilogue evaluated by the lane of each row and column e "
              "< {} from the warp's sums at columns e + {}, by {} ops: {}",
              outColumns, joinOffsets(), epilogue.ops.size(),
              describeOps(epilogue.ops));
  if (rows * columns == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }
  body.line("const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;");
  if (failed(printCombinePhase(
          body, slices, "[slice][row][column]",
          [&](Code &code) { return printCombineSlices(code); })))
    return failure();
  return printSlice(body);
}

void SkinnyMatmulPrinter::printBeforeWait(Code &body) {
  auto readOnly =
      kernel->getAttrOfType<DenseI64ArrayAttr>(kReadOnlyInputsAttrName);
  if (!readOnly || staged || rows * columns == 0 ||
      !llvm::is_contained(readOnly.asArrayRef(), int64_t(rhsArg)))
    return;
  constexpr int64_t lineBytes = 128;
  int64_t lineElements =
      lineBytes / static_cast<int64_t>(dtypeSize(*dtypeOf(op.getRhs().getType())));
  body.line("// The weight is a constant of the module, which no step writes: "
            "each lane fetches a line of its warp's first {} bytes of each "
            "column into L2 before the wait.",
            32 * lineBytes);
  body.open("");
  body.line("const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;");
  printGroup(body, "idx_t");
  body.line("const idx_t k = slice * {} + lane * {};", chunk, lineElements);
  body.open(fmt::format("if (group * {} < {} && k < slice * {} + {} && k < {})",
                        tile, outColumns, chunk, chunk, depth));
  auto weight = cast<StridedTensorType>(op.getRhs().getType());
  for (int64_t h = 0; h < heldColumns(); ++h)
    body.line("stride_prefetch_l2(&in{}[{}]);", rhsArg,
              address(weight, {"k", heldColumn("group * " +
                                               std::to_string(tile), h)}));
  body.close();
  body.close();
}

LogicalResult SkinnyMatmulPrinter::printSlice(Code &body) {
  if (staged)
    return printStagedSlice(body);
  printGroup(body, idx);
  body.line("const {} column0 = group * {};", idx, tile);
  body.line("if (column0 >= {}) return; // the whole {}: past the last "
            "column",
            outColumns, columnWarps > 1 ? "block" : "warp");
  if (columnWarps > 1)
    body.line("const int piece = warp; // the block's warps share its "
              "columns, warp w taking steps w, w + {}, ...",
              columnWarps);
  printSliceBounds(body);
  return printColumns(body);
}

void SkinnyMatmulPrinter::printGroup(Code &body, const std::string &type) {
  // A block of `columnWarps` warps shares one group; else a warp a group.
  std::string groupsPerBlock =
      columnWarps > 1 ? "" : fmt::format(" * {} + warp", warps);
  if (slices > 1)
    body.line("const {0} group = ({0})(blockIdx.x / {1}){2}, "
              "slice = blockIdx.x % {1};",
              type, slices, groupsPerBlock);
  else
    body.line("const {0} group = ({0})blockIdx.x{1}, slice = 0;", type,
              groupsPerBlock);
}

void SkinnyMatmulPrinter::printSliceBounds(Code &body) {
  body.line("const {} kBegin = slice * {};", idx, chunk);
  body.line("const {0} kEnd = kBegin + {1} < {2} ? kBegin + {1} : {2};", idx,
            chunk, depth);
  body.line("const {} kWhole = kBegin + (kEnd - kBegin) / {} * {}; // the "
            "slice's whole vectors end here",
            idx, width, width);
}

LogicalResult SkinnyMatmulPrinter::printStagedSlice(Code &body) {
  body.line("const {} slice = blockIdx.x % {};", idx, slices);
  printSliceBounds(body);
  if (!reductions.empty() && failed(printRowReductions(body)))
    return failure();
  if (failed(printStage(body)))
    return failure();
  body.open(fmt::format("for ({0} group = ({0})(blockIdx.x / {1}) * {2} + "
                        "warp; group < {3}; group += ({0})(gridDim.x / {1}) "
                        "* {2})",
                        idx, slices, warps, ceilDiv(outColumns, tile)));
  body.line("const {} column0 = group * {};", idx, tile);
  if (failed(printColumns(body)))
    return failure();
  body.close();
  return success();
}

LogicalResult SkinnyMatmulPrinter::printStage(Code &body) {
  int64_t threads = schedule.getThreads();
  body.line("// The block evaluates the prologue once at each element of A's "
            "rows over its slice, into shared memory; its warps read them "
            "there.");
  body.line("STRIDE_DYNAMIC_SHARED(stageBytes); // {} bytes",
            launchAt(0).getShared());
  body.line("{0} *stage = reinterpret_cast<{0} *>(stageBytes); // [row][k - "
            "kBegin]",
            element);
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.open(fmt::format("for ({0} k = kBegin + threadIdx.x * {1}; k < kWhole; "
                        "k += {2})",
                        idx, width, threads * width));
  if (failed(stageGroup(body, width)))
    return failure();
  body.close();
  if (depth % width != 0) {
    body.open(fmt::format(
        "for ({} k = kWhole + threadIdx.x; k < kEnd; k += {})", idx, threads));
    if (failed(stageGroup(body, 1)))
      return failure();
    body.close();
  }
  body.close();
  body.line("__syncthreads();");
  return success();
}

LogicalResult SkinnyMatmulPrinter::printRowReductions(Code &body) {
  int64_t threads = schedule.getThreads();
  const ReductionInfo &first = reductions.front();
  auto input = cast<StridedTensorType>(first.input.getType());
  ArrayRef<int64_t> dims = first.dims;
  SmallVector<int64_t> keptShape, reducedShape;
  for (int64_t d = 0; d < input.getRank(); ++d)
    (llvm::is_contained(dims, d) ? reducedShape : keptShape)
        .push_back(input.getShape()[d]);
  // Lanes of a group are consecutive along the reductions' innermost dim,
  // where it is the only one they reduce.
  bool innermost = dims.size() == 1 && dims.front() == input.getRank() - 1;
  int64_t count = innermost ? width : 1;
  body.line("// The prologue's row reductions ({}): the block reduces each of "
            "the {} rows over all {} elements (every slice's), then "
            "computes the row's values once{}.",
            describeOps([&] {
              SmallVector<Operation *> ops;
              for (const ReductionInfo &info : reductions)
                ops.push_back(info.op);
              return ops;
            }()),
            rows, depth,
            facts.prologueResults.empty()
                ? ""
                : "; block 0 also stores the prologue's yielded values");
  SmallVector<std::string> arrays;
  for (auto [i, info] : llvm::enumerate(reductions)) {
    info.acc = fmt::format("rowAcc{}", i);
    body.line("STRIDE_SHARED({}, rowShared{}, {});",
              accumulatorType(info.kind, info.dtype), i, threads / 32);
    arrays.push_back(fresh("rowValue"));
    body.line("{} {}[{}]; // {} at {}, each row's", computeType(info.dtype),
              arrays.back(), rows, opName(info.op),
              formatLocation(info.op->getLoc()));
  }
  llvm::DenseMap<Operation *, std::string> opArrays;
  for (Operation *op : facts.rowOps) {
    opArrays[op] = fresh("rowValue");
    body.line("{} {}[{}]; // {} at {}, each row's",
              computeType(*dtypeOf(op->getResult(0).getType())), opArrays[op],
              rows, opName(op), formatLocation(op->getLoc()));
  }
  body.line("#pragma unroll");
  body.open(fmt::format("for (int q = 0; q < {}; ++q)", rows));
  pushScope();
  Coords kept = delinearize(body, "q", keptShape);
  Coords rowCoords;
  for (int64_t d = 0, next = 0; d < input.getRank(); ++d) {
    if (!llvm::is_contained(dims, d))
      rowCoords.push_back(kept[next++]);
    else if (first.keepdim)
      rowCoords.push_back("0");
  }
  for (auto [i, info] : llvm::enumerate(reductions)) {
    body.line("{} {} = {};", accumulatorType(info.kind, info.dtype), info.acc,
              identityOf(info.kind, info.dtype));
    int64_t whole = depth / count * count;
    body.open(fmt::format("for ({0} k = ({0})threadIdx.x * {1}; k < {2}; k += "
                          "{3})",
                          idx, count, whole, threads * count));
    if (failed(reduceRowGroup(body, i, count, "k", kept)))
      return failure();
    body.close();
    if (whole < depth) {
      body.open(fmt::format("for ({0} k = {1} + ({0})threadIdx.x; k < {2}; "
                            "k += {3})",
                            idx, whole, depth, threads));
      if (failed(reduceRowGroup(body, i, 1, "k", kept)))
        return failure();
      body.close();
    }
    combineAcrossRow(body, info, threads, fmt::format("rowShared{}", i));
    body.line("{}[q] = {};", arrays[i],
              finalValue(info, SizeExpr::constant(depth)));
    rowValues[info.op] = arrays[i];
    if (failed(printRowOps(body, rowCoords, opArrays)))
      return failure();
  }
  popScope();
  body.close();
  return success();
}

LogicalResult SkinnyMatmulPrinter::printRowOps(
    Code &body, ArrayRef<std::string> coords,
    const llvm::DenseMap<Operation *, std::string> &arrays) {
  // Each per-row op once the values it reads are computed.
  for (Operation *op : facts.rowOps) {
    if (!isReadyRowOp(op))
      continue;
    FailureOr<std::string> v = evalOp(op, coords, body);
    if (failed(v))
      return failure();
    body.line("{}[q] = {};", arrays.lookup(op), *v);
    rowValues[op] = arrays.lookup(op);
  }
  return success();
}

LogicalResult SkinnyMatmulPrinter::reduceRowGroup(Code &body, size_t index,
                                                  int64_t count,
                                                  const std::string &k,
                                                  ArrayRef<std::string> kept) {
  const ReductionInfo &info = reductions[index];
  auto input = cast<StridedTensorType>(info.input.getType());
  pushScope();
  lanes.clear();
  Coords reduced;
  if (count == 1 && info.dims.size() > 1) {
    SmallVector<int64_t> reducedShape;
    for (int64_t d : info.dims)
      reducedShape.push_back(input.getShape()[d]);
    reduced = delinearize(body, k, reducedShape);
  }
  for (int64_t e = 0; e < count; ++e) {
    Coords coords;
    for (int64_t d = 0, nextKept = 0, nextReduced = 0; d < input.getRank();
         ++d) {
      if (!llvm::is_contained(info.dims, d))
        coords.push_back(kept[nextKept++]);
      else if (!reduced.empty())
        coords.push_back(reduced[nextReduced++]);
      else
        coords.push_back(e == 0 ? k : fmt::format("{} + {}", k, e));
    }
    lanes.push_back(coords);
  }
  lanesAlongRows = true;
  // The first reduction's pass also stores the prologue's yielded values
  // (of its input's shape) from block 0, evaluated outside the guard.
  SmallVector<std::string> stores;
  LogicalResult status = success();
  for (int64_t e = 0; e < count && succeeded(status); ++e) {
    vectorLane = count > 1 ? static_cast<int>(e) : -1;
    FailureOr<std::string> v = eval(info.input, lanes[e], body);
    if (failed(v)) {
      status = failure();
      break;
    }
    body.line("{} = {};", info.acc, accumulated(info, *v, lanes[e]));
    if (index != 0)
      continue;
    for (unsigned i : facts.prologueResults) {
      FailureOr<std::string> stored = eval(yields[i], lanes[e], body);
      if (failed(stored)) {
        status = failure();
        break;
      }
      auto outType = cast<StridedTensorType>(kernel.getResult(i).getType());
      stores.push_back(fmt::format("stride_st(&out{}[{}], {});", i,
                                   address(outType, lanes[e]), *stored));
    }
  }
  vectorLane = -1;
  lanesAlongRows = false;
  lanes.clear();
  popScope();
  if (!stores.empty()) {
    body.open("if (blockIdx.x == 0)");
    for (const std::string &store : stores)
      body.line("{}", store);
    body.close();
  }
  return status;
}

LogicalResult SkinnyMatmulPrinter::stageGroup(Code &body, int64_t count) {
  FailureOr<std::string> x = evalPrologue(body, count, "k", "a");
  if (failed(x))
    return failure();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int e = 0; e < {}; ++e)", count));
  body.line("stride_st(&stage[r * {} + k - kBegin + e], {});", chunk, *x);
  body.close();
  return success();
}

LogicalResult SkinnyMatmulPrinter::printColumns(Code &body) {
  body.line("// A column past the last reads the last one's weight (its sums "
            "are not stored).");
  for (int64_t h = 0; h < heldColumns(); ++h)
    body.line("const {} w{} = {};", idx, h, heldColumn("column0", h));
  body.line("float acc[{}][{}];", rows, heldColumns());
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.open(fmt::format("for (int j = 0; j < {}; ++j)", heldColumns()));
  body.line("acc[r][j] = 0.0f;");
  body.close();
  body.close();
  std::string lanePosition =
      columnWarps > 1 ? "(piece * 32 + lane)" : std::string("lane");
  body.line("{} kk = kBegin + {} * {};", idx, lanePosition, width);
  int64_t step = columnWarps * 32 * width;
  if (loads > 1) {
    body.line("// {} loads per column issued before any is used.", loads);
    body.open(fmt::format("for (; kk + {} < kWhole; kk += {})",
                          (loads - 1) * step, loads * step));
    if (failed(printStep(body, width, loads)))
      return failure();
    body.close();
  } else {
    body.line("#pragma unroll 4");
  }
  body.open(fmt::format("for (; kk < kWhole; kk += {})", step));
  if (failed(printStep(body, width, 1)))
    return failure();
  body.close();
  if (depth % width != 0) {
    body.open(fmt::format("for (kk = kWhole + {}; kk < kEnd; kk += {})",
                          lanePosition, columnWarps * 32));
    if (failed(printStep(body, 1, 1)))
      return failure();
    body.close();
  }
  if (columnWarps > 1)
    printCombineColumnWarps(body);
  return printWarpSums(body);
}

std::string SkinnyMatmulPrinter::describeOps(ArrayRef<Operation *> ops) {
  std::string names;
  for (Operation *member : ops)
    names += (names.empty() ? "" : ", ") + opName(member);
  return names;
}

std::string SkinnyMatmulPrinter::joinOffsets() {
  std::string text;
  for (int64_t offset : offsets)
    text += (text.empty() ? "" : ", ") + std::to_string(offset);
  return text;
}

std::string SkinnyMatmulPrinter::heldColumn(const std::string &first,
                                            int64_t h) {
  int64_t j = h % tile, offset = offsets[h / tile];
  std::string column = fmt::format("({0} + {1} < {2} ? {0} + {1} : {3})",
                                   first, j, outColumns, outColumns - 1);
  return offset == 0 ? column : fmt::format("{} + {}", column, offset);
}

FailureOr<std::string>
SkinnyMatmulPrinter::loadActivations(Code &body, int64_t count,
                                     const std::string &k,
                                     const std::string &name) {
  std::string type = fmt::format("stride_vecn<{}, {}>", element, count);
  if (staged)
    body.line("const {0} {1} = *reinterpret_cast<const {0} *>(&stage[r * {2} "
              "+ {3} - kBegin]);",
              type, name, chunk, k);
  else
    body.line("const {} {} = {};", type, name,
              vectorLoad(count, lhsArg, op.getLhs(), {"r", k}));
  return fmt::format("stride_ld(&{}.v[e])", name);
}

FailureOr<std::string>
SkinnyMatmulPrinter::evalPrologue(Code &body, int64_t count,
                                  const std::string &k,
                                  const std::string &name) {
  // The prologue at the group's elements (row r, K elements k...), its
  // inputs read a group at a time where they are aligned.
  body.line("float {}[{}];", name, count);
  pushScope();
  lanes.clear();
  for (int64_t e = 0; e < count; ++e)
    lanes.push_back({"r", e == 0 ? k : fmt::format("{} + {}", k, e)});
  lanesAlongRows = true;
  LogicalResult status = success();
  for (int64_t e = 0; e < count && succeeded(status); ++e) {
    vectorLane = count > 1 ? static_cast<int>(e) : -1;
    FailureOr<std::string> v = eval(op.getLhs(), lanes[e], body);
    if (failed(v))
      status = failure();
    else
      body.line("{}[{}] = {};", name, e, *v);
  }
  vectorLane = -1;
  lanesAlongRows = false;
  lanes.clear();
  popScope();
  if (failed(status))
    return failure();
  return fmt::format("{}[e]", name);
}

std::string SkinnyMatmulPrinter::vectorLoad(int64_t count, unsigned arg,
                                            Value operand,
                                            ArrayRef<std::string> coords) {
  std::string type = fmt::format("stride_vecn<{}, {}>", element, count);
  return fmt::format(
      "*reinterpret_cast<const {} *>(&in{}[{}])", type, arg,
      address(cast<StridedTensorType>(operand.getType()), coords));
}

LogicalResult SkinnyMatmulPrinter::printStep(Code &body, int64_t count,
                                             int64_t stepLoads) {
  std::string type = fmt::format("stride_vecn<{}, {}>", element, count);
  auto at = [&](int64_t u) {
    return u == 0 ? std::string("kk")
                  : fmt::format("kk + {}", u * columnWarps * 32 * count);
  };
  auto weight = [&](int64_t j, int64_t u) {
    return stepLoads == 1 ? fmt::format("weight{}", j)
                          : fmt::format("weight{}_{}", j, u);
  };
  for (int64_t u = 0; u < stepLoads; ++u)
    for (int64_t j = 0; j < heldColumns(); ++j)
      body.line("const {} {} = {};", type, weight(j, u),
                vectorLoad(count, rhsArg, op.getRhs(),
                           {at(u), fmt::format("w{}", j)}));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  for (int64_t u = 0; u < stepLoads; ++u) {
    FailureOr<std::string> x = loadActivations(
        body, count, at(u), stepLoads == 1 ? "a" : fmt::format("a{}", u));
    if (failed(x))
      return failure();
    body.line("#pragma unroll");
    body.open(fmt::format("for (int e = 0; e < {}; ++e)", count));
    body.line("const float x = {};", *x);
    for (int64_t j = 0; j < heldColumns(); ++j)
      body.line("acc[r][{}] += x * stride_ld(&{}.v[e]);", j, weight(j, u));
    body.close();
  }
  body.close();
  return success();
}

void SkinnyMatmulPrinter::printCombineColumnWarps(Code &body) {
  body.line("// The block's warps add their lanes' sums in warp order, into "
            "warp 0's.");
  body.line("__shared__ float columnParts[{}][{}][{}][32];", columnWarps - 1,
            rows, heldColumns());
  auto eachSum = [&](const std::string &statement) {
    body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
    body.open(fmt::format("for (int j = 0; j < {}; ++j)", heldColumns()));
    body.line("{}", statement);
    body.close();
    body.close();
  };
  body.open("if (piece > 0)");
  eachSum("columnParts[piece - 1][r][j][lane] = acc[r][j];");
  body.close();
  body.line("__syncthreads();");
  body.line("if (piece > 0) return;");
  body.open(fmt::format("for (int p = 0; p < {}; ++p)", columnWarps - 1));
  eachSum("acc[r][j] += columnParts[p][r][j][lane];");
  body.close();
}

LogicalResult SkinnyMatmulPrinter::printWarpSums(Code &body) {
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int j = 0; j < {}; ++j)", tile));
  SmallVector<std::string> sums;
  for (size_t g = 0; g < offsets.size(); ++g) {
    sums.push_back(sumName(g));
    body.line("float {} = acc[r][{}j];", sums.back(),
              g == 0 ? "" : fmt::format("{} + ", g * tile));
    body.open("for (int offset = 16; offset > 0; offset >>= 1)");
    body.line("{0} += __shfl_xor_sync(0xffffffffu, {0}, offset);",
              sums.back());
    body.close();
  }
  body.line("const {} c = column0 + j;", idx);
  body.open(fmt::format("if (lane == (r * {} + j) % 32 && c < {})", tile,
                        outColumns));
  if (slices > 1) {
    for (auto [g, sum] : llvm::enumerate(sums))
      body.line("partials[(slice * {} + r) * {} + c{}] = {};", rows, columns,
                plusOffset(offsets[g]), sum);
  } else if (failed(storeResult(body, sums, "r", "c"))) {
    return failure();
  }
  body.close();
  body.close();
  body.close();
  return success();
}

LogicalResult SkinnyMatmulPrinter::printCombineSlices(Code &body) {
  int64_t outputs = rows * columns;
  Coords rc = openGridStrideLoop(body, {rows, outColumns}, rows * outColumns);
  SmallVector<std::string> sums;
  for (size_t g = 0; g < offsets.size(); ++g) {
    sums.push_back(sumName(g));
    std::string o = fresh("o");
    body.line("const {} {} = {} * {} + {}{};", idx, o, rc[0], columns, rc[1],
              plusOffset(offsets[g]));
    body.line("float {} = 0.0f;", sums.back());
    body.open(fmt::format("for (int s = 0; s < {}; ++s)", slices));
    body.line("{} += partials[s * {} + {}];", sums.back(), outputs, o);
    body.line("partials[s * {} + {}] = 0.0f; // scratch back to zeros",
              outputs, o);
    body.close();
  }
  if (failed(storeResult(body, sums, rc[0], rc[1])))
    return failure();
  body.close();
  return success();
}

FailureOr<std::string>
SkinnyMatmulPrinter::productValue(Code &body, const std::string &sum,
                                  const std::string &r, const std::string &c) {
  // The addend and the bias are added to the f32 sum and the result
  // rounded once, when it is stored (the reference's single rounding).
  std::string value = sum;
  if (Value addend = op.getAddend()) {
    FailureOr<std::string> a = eval(addend, {r, c}, body);
    if (failed(a))
      return failure();
    value = fmt::format("{} + {}", value, *a);
  }
  if (Value bias = op.getBias()) {
    FailureOr<std::string> b = eval(bias, {c}, body);
    if (failed(b))
      return failure();
    value = fmt::format("{} + {}", value, *b);
  }
  if (op.getEpilogue() == MatmulEpilogue::relu)
    value = fmt::format("stride_relu({})", value);
  // An epilogue reads the product's value as stored: rounded to its type.
  if (!facts.productEpilogue.empty())
    value = roundTo(*dtypeOf(op.getResult().getType()), value);
  std::string v = fresh("v");
  body.line("const float {} = {};", v, value);
  return v;
}

LogicalResult SkinnyMatmulPrinter::storeResult(Code &body,
                                               ArrayRef<std::string> sums,
                                               const std::string &r,
                                               const std::string &c) {
  pushScope();
  auto stored = [&]() -> LogicalResult {
    const SkinnyEpilogue &epilogue = facts.productEpilogue;
    if (epilogue.empty()) {
      FailureOr<std::string> v = productValue(body, sums.front(), r, c);
      if (failed(v))
        return failure();
      remember(memoKey(op.getResult(), {r, c}), *v);
      return storeYields(body, {r, c});
    }
    // The epilogue's element (r, c), its product reads held by the sums.
    Coords at = delinearize(body, fmt::format("{} * {} + {}", r, outColumns, c),
                            cast<StridedTensorType>(yields.front().getType())
                                .getShape());
    for (auto [g, sum] : llvm::enumerate(sums)) {
      std::string column = c + plusOffset(offsets[g]);
      FailureOr<std::string> v = productValue(body, sum, r, column);
      if (failed(v))
        return failure();
      for (const SkinnyEpilogueRead &read : epilogue.reads)
        if (read.columnOffset == offsets[g])
          remember(memoKey(read.view, at), *v);
    }
    return storeYields(body, at);
  }();
  popScope();
  return stored;
}

std::string SkinnyMatmulPrinter::sumName(size_t g) const {
  return offsets.size() == 1 ? "sum" : fmt::format("sum{}", g);
}

std::string SkinnyMatmulPrinter::plusOffset(int64_t offset) {
  return offset == 0 ? std::string() : fmt::format(" + {}", offset);
}

} // namespace stride
