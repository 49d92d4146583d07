//===- TiledTranspose.cpp - The tiled transpose ---------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (a), scheme tiled_transpose: a pointwise kernel with a transposed
// read. The inputs the schedule names are staged through shared-memory
// tiles read along the transpose dim; then every value is computed and
// stored along the innermost dim (python-free-docs/cuda-backend.md).
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

LogicalResult TiledTransposePrinter::printTiles(Code &body) {
  tileSize = schedule.getTile();
  t = schedule.getTransposeDim();
  l = iterationShape.size() - 1;
  for (auto [i, attr] :
       llvm::enumerate(schedule.getStaged().getAsRange<StagedLoadAttr>())) {
    StridedTensorType type = attr.getType();
    staged.push_back({attr.getArg(), type, attr.getVectorWidth() == 4,
                      tileRowsAligned(type, iterationShape, t),
                      fmt::format("smem{}", i)});
  }
  int64_t sizeT = iterationShape[t], sizeL = iterationShape[l];
  int64_t tilesT = ceilDiv(sizeT, tileSize), tilesL = ceilDiv(sizeL, tileSize);
  SmallVector<int64_t> outerShape(iterationShape);
  outerShape[t] = outerShape[l] = 1;
  int64_t tiles = product(outerShape) * tilesT * tilesL;

  body.line("// tiled transpose scheme: {} tiles of {}x{} elements of dims "
            "({}, {}); the inputs read with unit stride along dim {} but not",
            tiles, tileSize, tileSize, t, l, t);
  body.line("// along the innermost dim {} are staged through shared memory "
            "(dim {} fastest), then every value is computed and stored with "
            "dim {} fastest",
            l, t, l);
  for (const StagedLoad &s : staged) {
    std::string strides;
    for (int64_t st : s.type.getStrides())
      strides += (strides.empty() ? "" : ", ") + std::to_string(st);
    if (s.type.getOffset() != 0)
      strides += fmt::format("], offset {}", s.type.getOffset());
    else
      strides += "]";
    body.line("__shared__ {} {}[{}][{}]; // in{} read through strides [{}",
              computeType(*dtypeOf(s.type)), s.tile, tileSize, tileSize + 1,
              s.arg, strides);
  }
  std::string tile = fresh("tile");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, tile, tiles));
  std::string l0 = fresh("l0"), t0 = fresh("t0");
  body.line("const {} {} = {};", idx, l0,
            tilesL == 1
                ? std::string("0")
                : fmt::format("({} % {}) * {}", tile, tilesL, tileSize));
  body.line("const {} {} = {};", idx, t0,
            tilesT == 1 ? std::string("0")
                        : fmt::format("({} / {} % {}) * {}", tile, tilesL,
                                      tilesT, tileSize));
  outer.assign(iterationShape.size(), "0");
  if (product(outerShape) > 1) {
    std::string rest = fresh("outer");
    body.line("const {} {} = {} / {};", idx, rest, tile, tilesT * tilesL);
    outer = delinearize(body, rest, outerShape);
  }

  if (failed(printStaging(body, t0, l0)))
    return failure();
  body.line("__syncthreads();");
  if (failed(printCompute(body, l0, t0)))
    return failure();
  body.line("__syncthreads();");
  body.close();
  return success();
}

TiledTransposePrinter::Pass
TiledTransposePrinter::openPass(Code &body, int64_t vector, int64_t fastDim,
                                int64_t slowDim, const std::string &fast0,
                                const std::string &slow0) {
  int64_t across = tileSize / vector,
          rows = launchAt(0).getBlock() / across;
  Pass pass;
  std::string step = fresh("pass");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", step,
                        tileSize / rows));
  pass.fastOff = fresh("f");
  pass.slowOff = fresh("s");
  if (vector == 1)
    body.line("const int {} = threadIdx.x % {};", pass.fastOff, across);
  else
    body.line("const int {} = threadIdx.x % {} * {};", pass.fastOff, across,
              vector);
  body.line("const int {} = threadIdx.x / {} + {} * {};", pass.slowOff, across,
            step, rows);
  std::string cf = fresh("i"), cs = fresh("i");
  body.line("const {} {} = {} + {};", idx, cf, fast0, pass.fastOff);
  body.line("const {} {} = {} + {};", idx, cs, slow0, pass.slowOff);
  pass.coords = outer;
  pass.coords[fastDim] = cf;
  pass.coords[slowDim] = cs;
  std::string guard;
  int64_t fastSize = iterationShape[fastDim],
          slowSize = iterationShape[slowDim];
  if (fastSize % tileSize != 0)
    guard = fmt::format("{} < {}", cf, fastSize);
  if (slowSize % tileSize != 0)
    guard +=
        fmt::format("{}{} < {}", guard.empty() ? "" : " && ", cs, slowSize);
  if (guard.empty()) {
    body.raw("{");
    ++body.indent;
  } else {
    body.open(fmt::format("if ({})", guard));
  }
  return pass;
}

LogicalResult TiledTransposePrinter::printStaging(Code &body,
                                                  const std::string &t0,
                                                  const std::string &l0) {
  // The staged inputs, dim t fastest (coalesced for them).
  for (const StagedLoad &s : staged) {
    if (s.vector && !s.aligned) {
      printSplitStaging(body, s, t0, l0);
      continue;
    }
    DType dtype = *dtypeOf(s.type);
    Pass pass = openPass(body, s.vector ? 4 : 1, t, l, t0, l0);
    std::string addr = address(s.type, pass.coords);
    if (s.vector) {
      std::string q = fresh("quad");
      body.line("const stride_vec4<{0}> {1} = *reinterpret_cast<const "
                "stride_vec4<{0}> *>(&in{2}[{3}]);",
                storageType(dtype), q, s.arg, addr);
      for (int k = 0; k < 4; ++k)
        body.line("{}[{}][{} + {}] = stride_ld(&{}.v[{}]);", s.tile,
                  pass.slowOff, pass.fastOff, k, q, k);
    } else {
      body.line("{}[{}][{}] = stride_ld(&in{}[{}]);", s.tile, pass.slowOff,
                pass.fastOff, s.arg, addr);
    }
    body.close();
    body.close();
  }
  return success();
}

void TiledTransposePrinter::printSplitStaging(Code &body, const StagedLoad &s,
                                              const std::string &t0,
                                              const std::string &l0) {
  // A row of the tile (fixed l) is contiguous along t.
  const char *storage = storageType(*dtypeOf(s.type));
  auto quad = [&](const Pass &p) {
    std::string v = fresh("quad");
    body.line("const stride_vec4<{0}> {1} = *reinterpret_cast<const "
              "stride_vec4<{0}> *>(&in{2}[{3}]);",
              storage, v, s.arg, address(s.type, p.coords));
    for (int k = 0; k < 4; ++k)
      body.line("{}[{}][{} + {}] = stride_ld(&{}.v[{}]);", s.tile, p.slowOff,
                p.fastOff, k, v, k);
  };
  auto single = [&](const Pass &p) {
    body.line("{}[{}][{}] = stride_ld(&in{}[{}]);", s.tile, p.slowOff,
              p.fastOff, s.arg, address(s.type, p.coords));
  };
  printSplitTile(body, t0, l0, s.type, quad, single);
}

TiledTransposePrinter::SplitRow
TiledTransposePrinter::openSplitRow(Code &body, const std::string &t0,
                                    const std::string &l0,
                                    const std::string &rowOff,
                                    StridedTensorType ref) {
  SplitRow split;
  std::string cl = fresh("i");
  body.line("const {} {} = {} + {};", idx, cl, l0, rowOff);
  int64_t sizeL = iterationShape[l];
  if (sizeL % tileSize != 0) {
    body.open(fmt::format("if ({} < {})", cl, sizeL));
  } else {
    body.raw("{");
    ++body.indent;
  }
  split.coords = outer;
  split.coords[l] = cl;
  split.coords[t] = t0;
  std::string row = fresh("row");
  split.lead = fresh("lead");
  body.line("const {} {} = {};", idx, row, address(ref, split.coords));
  body.line("const int {} = (4 - static_cast<int>({} % 4)) % 4;", split.lead,
            row);
  return split;
}

void TiledTransposePrinter::printSplitTile(Code &body, const std::string &t0,
                                           const std::string &l0,
                                           StridedTensorType ref, PassFn quad,
                                           PassFn single) {
  int64_t block = launchAt(0).getBlock();
  int64_t sizeT = iterationShape[t];
  bool mayBeCut = sizeT % tileSize != 0;
  if (mayBeCut)
    body.open(fmt::format("if ({} + {} <= {})", t0, tileSize, sizeT));
  // The element at offsets (`tOff`, `lOff`) of the tile, in `row`.
  auto at = [&](const SplitRow &row, const std::string &tOff,
                const std::string &lOff) {
    Pass element;
    std::string ct = fresh("i");
    body.line("const {} {} = {} + {};", idx, ct, t0, tOff);
    element.coords = row.coords;
    element.coords[t] = ct;
    element.fastOff = tOff;
    element.slowOff = lOff;
    return element;
  };
  // Each row's groups inside the tile, one per thread.
  int64_t across = tileSize / 4, rows = block / across;
  std::string step = fresh("pass");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", step,
                        tileSize / rows));
  std::string f = fresh("f"), s = fresh("s");
  body.line("const int {} = threadIdx.x % {} * 4;", f, across);
  body.line("const int {} = threadIdx.x / {} + {} * {};", s, across, step,
            rows);
  SplitRow row = openSplitRow(body, t0, l0, s, ref);
  std::string q = fresh("q");
  body.line("const int {} = {} + {};", q, row.lead, f);
  body.open(fmt::format("if ({} + 3 < {})", q, tileSize));
  quad(at(row, q, s));
  body.close();
  body.close();
  body.close();
  // The rows' 4 end elements, one per thread: end e of a row is its
  // element e where e < lead, else one of the 4 - lead after its groups.
  std::string endStep = fresh("pass");
  int64_t ends = tileSize * 4;
  body.line("#pragma unroll");
  body.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", endStep,
                        ceilDiv(ends, block)));
  std::string end = fresh("e"), endRow = fresh("s");
  body.line("const int {} = threadIdx.x + {} * {};", end, endStep, block);
  body.line("const int {} = {} / 4;", endRow, end);
  if (ends % block != 0) {
    body.open(fmt::format("if ({} < {})", end, ends));
  } else {
    body.raw("{");
    ++body.indent;
  }
  row = openSplitRow(body, t0, l0, endRow, ref);
  std::string k = fresh("k");
  body.line("const int {0} = {1} % 4 < {2} ? {1} % 4 : {3} + {1} % 4;", k,
            end, row.lead, tileSize - 4);
  body.open(fmt::format("if ({} > 0)", row.lead));
  single(at(row, k, endRow));
  body.close();
  body.close();
  body.close();
  body.close();
  if (!mayBeCut)
    return;
  // A tile the tensor's end cuts: element by element.
  body.close("} else {");
  ++body.indent;
  single(openPass(body, 1, t, l, t0, l0));
  body.close();
  body.close();
  body.close();
}

LogicalResult TiledTransposePrinter::printCompute(Code &body,
                                                  const std::string &l0,
                                                  const std::string &t0) {
  // Every yielded value, dim l fastest; the staged inputs come from the
  // tiles.
  bool vector = schedule.getVectorWidth() == 4;
  Pass pass = openPass(body, vector ? 4 : 1, l, t, l0, t0);
  pushScope();
  auto stage = [&](ArrayRef<std::string> coords, const std::string &lOff) {
    for (const StagedLoad &s : staged) {
      std::string v = fresh("v");
      body.line("const {} {} = {}[{}][{}];", computeType(*dtypeOf(s.type)), v,
                s.tile, lOff, pass.slowOff);
      remember(fmt::format("load|{}|{}", s.arg, address(s.type, coords)), v);
    }
  };
  if (vector) {
    lanes.assign(4, pass.coords);
    for (int k = 1; k < 4; ++k) {
      std::string c = fresh("i");
      body.line("const {} {} = {} + {};", idx, c, pass.coords[l], k);
      lanes[k][l] = c;
    }
    for (int k = 0; k < 4; ++k)
      stage(lanes[k], fmt::format("{} + {}", pass.fastOff, k));
    if (failed(evalAndStoreLanes(body)))
      return failure();
  } else {
    stage(pass.coords, pass.fastOff);
    if (failed(storeYields(body, pass.coords)))
      return failure();
  }
  popScope();
  body.close();
  body.close();
  return success();
}

} // namespace stride
