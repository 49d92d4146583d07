//===- Attention.cpp - Split-KV attention kernels -------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (f), scheme split_kv_attention: a stride.attention with few query
// rows (a decode step) against many keys. A unit is one query row `i` of
// one key/value head `g` of one batch `b`, with the `G = Hq / Hkv` query
// heads that read that key/value head (its rows); each block takes a unit
// and one of `slices` slices of the keys. Its warps take the slice's keys
// 4 consecutive keys at a time: for each key, each row's mask decides
// whether it attends; a key no row attends is skipped before its key and
// value are read (the unwritten positions of a static KV cache). The lanes
// read the other keys' and values' head dims (lane, lane + 32, ...), all
// 4 keys' loads in flight together; each row's score is a warp sum,
// and each row keeps the online softmax state of FlashAttention: the
// running maximum `m`, the sum `l` of exp(score - m) and the weighted sum
// `acc` of the values (the lanes' dims). The block combines its warps'
// states through shared memory; with one slice that is the result, with
// several each slice's state goes to scratch and a second launch combines
// them per row (and zeroes the scratch, as every kernel leaves it). A row
// no key attends has `l = 0` and the result 0, the op's semantics.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

namespace {
/// The score of a key a row does not attend: stride_maximum and the
/// combines below treat it as "no key yet".
constexpr const char *kMinusInf = "(-STRIDE_INF_F)";
/// Keys a warp takes at a time: their loads are in flight together (one
/// key at a time waited for each key's and value's load in turn: 0.038 ms
/// for a batch-1 step at 1024 of 4096 positions on an H200).
constexpr int64_t kKeysPerStep = 4;
} // namespace

LogicalResult AttentionPrinter::printBody(Code &body) {
  op = facts.attentionRoot;
  ArrayRef<int64_t> q = op.getQuery().getType().getShape();
  ArrayRef<int64_t> k = op.getKey().getType().getShape();
  batch = q[0];
  kvHeads = k[1];
  queryRows = q[2];
  headDim = q[3];
  keys = k[2];
  valueDim = op.getValue().getType().getShape()[3];
  rows = q[1] / kvHeads;
  slices = schedule.getSlices();
  warps = schedule.getThreads() / 32;
  units = batch * kvHeads * queryRows;
  chunk = slices > 1 ? ceilDiv(keys, slices) : keys;
  body.line("// attention at {}: {} units (batch x key/value heads x query "
            "rows) of {} query heads each, {} keys in {} slices of {}, a "
            "block of {} warps per unit and slice",
            formatLocation(op.getLoc()), units, rows, keys, slices, chunk,
            warps);
  if (product(iterationShape) == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }
  body.line("const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;");
  body.line("__shared__ float stateOf[{}]; // [warp][row]: m, l, acc[{}]",
            warps * rows * (valueDim + 2), valueDim);
  if (failed(printCombinePhase(
          body, slices,
          fmt::format("[unit][row][slice]: m, l, acc[{}]", valueDim),
          [&](Code &code) { return printCombineSlices(code); })))
    return failure();
  return printSlice(body);
}

void AttentionPrinter::declareUnit(Code &body, const std::string &unit) {
  body.line("const {0} b = {1} / {2}, g = ({1} / {3}) % {4}, qi = {1} % {3};",
            idx, unit, kvHeads * queryRows, queryRows, kvHeads);
}

std::string AttentionPrinter::queryHead() const {
  return fmt::format("(g * {} + r)", rows);
}

LogicalResult AttentionPrinter::printSlice(Code &body) {
  if (slices > 1)
    body.line("const {0} unit = blockIdx.x / {1}, slice = blockIdx.x % {1};",
              idx, slices);
  else
    body.line("const {} unit = blockIdx.x, slice = 0;", idx);
  declareUnit(body, "unit");
  body.line("const {0} keyBegin = slice * {1};", idx, chunk);
  body.line("const {0} keyEnd = keyBegin + {1} < {2} ? keyBegin + {1} : {2};",
            idx, chunk, keys);
  int64_t dimSteps = ceilDiv(headDim, 32), valueSteps = ceilDiv(valueDim, 32);
  // The rows' queries, each lane its dims; the online softmax states.
  body.line("float query[{}][{}], m[{}], l[{}], acc[{}][{}];", rows, dimSteps,
            rows, rows, rows, valueSteps);
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("m[r] = {}; l[r] = 0.0f;", kMinusInf);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", valueSteps));
  body.line("acc[r][t] = 0.0f;");
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", dimSteps));
  body.line("const {} d = lane + 32 * t;", idx);
  body.line("query[r][t] = 0.0f;");
  if (failed(printLoad(body, "d", headDim, "query[r][t]", op.getQuery(),
                       {"b", queryHead(), "qi", "d"})))
    return failure();
  body.close();
  body.close();

  // Each warp takes kKeysPerStep consecutive keys at a time: their masks
  // and loads first, all in flight together, then their softmax steps.
  body.open(fmt::format("for ({0} j0 = keyBegin + warp * {1}; j0 < keyEnd; "
                        "j0 += {2})",
                        idx, kKeysPerStep, warps * kKeysPerStep));
  body.line("bool attends[{0}][{1}], anyRow[{0}]; float bias[{0}][{1}];",
            kKeysPerStep, rows);
  body.line("float key[{}][{}], value[{}][{}];", kKeysPerStep, dimSteps,
            kKeysPerStep, valueSteps);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", kKeysPerStep));
  if (failed(printKeyLoads(body, dimSteps, valueSteps)))
    return failure();
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", kKeysPerStep));
  printKeySteps(body, dimSteps, valueSteps);
  body.close();
  body.close();
  return printCombineWarps(body);
}

LogicalResult AttentionPrinter::printLoad(Code &body, const std::string &dim,
                                          int64_t extent,
                                          const std::string &target,
                                          Value value, Coords coords) {
  body.open(fmt::format("if ({} < {})", dim, extent));
  pushScope();
  FailureOr<std::string> loaded = eval(value, coords, body);
  popScope();
  if (failed(loaded))
    return failure();
  body.line("{} = {};", target, *loaded);
  body.close();
  return success();
}

LogicalResult AttentionPrinter::printKeyLoads(Code &body, int64_t dimSteps,
                                              int64_t valueSteps) {
  // Which rows attend key j (the same for every lane of the warp), then
  // the key's and value's dims of the lane, for a key some row attends
  // only: a key no row attends is never read.
  body.line("const {} j = j0 + u;", idx);
  body.line("anyRow[u] = false;");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("attends[u][r] = j < keyEnd{}; bias[u][r] = 0.0f;",
            op.getCausal() ? " && j <= qi" : "");
  if (Value mask = op.getMask()) {
    bool boolean = cast<StridedTensorType>(mask.getType())
                       .getElementType()
                       .isInteger(1);
    body.open("if (attends[u][r])");
    pushScope();
    FailureOr<std::string> at =
        eval(mask, {"b", queryHead(), "qi", "j"}, body);
    popScope();
    if (failed(at))
      return failure();
    if (boolean)
      body.line("attends[u][r] = {} != 0;", *at);
    else
      body.line("bias[u][r] = {0}; attends[u][r] = bias[u][r] != {1};", *at,
                kMinusInf);
    body.close();
  }
  body.line("anyRow[u] = anyRow[u] || attends[u][r];");
  body.close();
  if (failed(printRowLoads(body, dimSteps, headDim, "key", op.getKey())))
    return failure();
  return printRowLoads(body, valueSteps, valueDim, "value", op.getValue());
}

LogicalResult AttentionPrinter::printRowLoads(Code &body, int64_t steps,
                                              int64_t extent,
                                              const std::string &target,
                                              Value row) {
  // The lane's dims lane, lane + 32, ... of key j's row of `row` (zeros
  // where no row attends the key: never read).
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", steps));
  body.line("const {} c = lane + 32 * t;", idx);
  body.line("{}[u][t] = 0.0f;", target);
  body.open("if (anyRow[u])");
  if (failed(printLoad(body, "c", extent, target + "[u][t]", row,
                       {"b", "g", "j", "c"})))
    return failure();
  body.close();
  body.close();
  return success();
}

void AttentionPrinter::printKeySteps(Code &body, int64_t dimSteps,
                                     int64_t valueSteps) {
  // Each row's score of key u (the lanes' dims, then a warp sum) and its
  // online softmax step; a score of -inf (a key the bias hides) weighs 0,
  // like a masked one.
  body.line("if (!anyRow[u]) continue;");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float score = 0.0f;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", dimSteps));
  body.line("score += query[r][t] * key[u][t];");
  body.close();
  body.open("for (int offset = 16; offset > 0; offset >>= 1)");
  body.line("score += __shfl_xor_sync(0xffffffffu, score, offset);");
  body.close();
  body.line("const float x = score * {} + bias[u][r];",
            floatLiteral(op.getScale().convertToDouble(), DType::F32));
  body.line("if (!attends[u][r] || x == {}) continue;", kMinusInf);
  body.line("const float mNew = stride_maximum(m[r], x);");
  body.line("const float rescale = stride_exp(m[r] - mNew), "
            "weight = stride_exp(x - mNew);");
  body.line("l[r] = l[r] * rescale + weight;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", valueSteps));
  body.line("acc[r][t] = acc[r][t] * rescale + weight * value[u][t];");
  body.close();
  body.line("m[r] = mNew;");
  body.close();
}

void AttentionPrinter::printCombineLoop(Code &body, const std::string &count,
                                        const std::string &stateAt) {
  // One state's m, l and acc[e] at `stateAt` (an expression of `w`):
  // combined over `count` states into M, L and A.
  body.line("float M = {};", kMinusInf);
  body.open(fmt::format("for (int w = 0; w < {}; ++w)", count));
  body.line("M = stride_maximum(M, {}[0]);", stateAt);
  body.close();
  body.line("float L = 0.0f, A = 0.0f;");
  body.open(fmt::format("for (int w = 0; w < {}; ++w)", count));
  body.line("const float *s = {};", stateAt);
  body.line("if (s[0] == {}) continue; // no key attended there", kMinusInf);
  body.line("const float c = stride_exp(s[0] - M);");
  body.line("L += s[1] * c; A += s[2 + e] * c;");
  body.close();
}

LogicalResult AttentionPrinter::printCombineWarps(Code &body) {
  int64_t stateFloats = valueDim + 2;
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float *own = stateOf + (warp * {} + r) * {};", rows, stateFloats);
  body.line("if (lane == 0) {{ own[0] = m[r]; own[1] = l[r]; }}");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", ceilDiv(valueDim, 32)));
  body.line("if (lane + 32 * t < {}) own[2 + lane + 32 * t] = acc[r][t];",
            valueDim);
  body.close();
  body.close();
  body.line("__syncthreads();");
  body.open(fmt::format("for (int o = threadIdx.x; o < {}; o += blockDim.x)",
                        rows * valueDim));
  body.line("const int r = o / {0}, e = o % {0};", valueDim);
  printCombineLoop(body, std::to_string(warps),
                   fmt::format("(stateOf + (w * {} + r) * {})", rows,
                               stateFloats));
  if (slices == 1) {
    if (failed(storeResult(body)))
      return failure();
  } else {
    body.line("float *part = partials + ((unit * {} + r) * {} + slice) * {};",
              rows, slices, stateFloats);
    body.line("if (e == 0) {{ part[0] = M; part[1] = L; }}");
    body.line("part[2 + e] = A;");
  }
  body.close();
  return success();
}

LogicalResult AttentionPrinter::printCombineSlices(Code &body) {
  int64_t stateFloats = valueDim + 2;
  body.line("const {} unit = blockIdx.x;", idx);
  declareUnit(body, "unit");
  body.open(fmt::format("for (int o = threadIdx.x; o < {}; o += blockDim.x)",
                        rows * valueDim));
  body.line("const int r = o / {0}, e = o % {0};", valueDim);
  printCombineLoop(body, std::to_string(slices),
                   fmt::format("(partials + ((unit * {} + r) * {} + w) * {})",
                               rows, slices, stateFloats));
  if (failed(storeResult(body)))
    return failure();
  body.close();
  body.line("__syncthreads(); // every partial is read: scratch back to zeros");
  body.open(fmt::format("for (int o = threadIdx.x; o < {}; o += blockDim.x)",
                        rows * slices * stateFloats));
  body.line("partials[unit * {} + o] = 0.0f;", rows * slices * stateFloats);
  body.close();
  return success();
}

LogicalResult AttentionPrinter::storeResult(Code &body) {
  // A row no key attended (L = 0) is 0; NaN propagates.
  Coords coords{"b", queryHead(), "qi", "e"};
  pushScope();
  std::string v = fresh("v");
  body.line("const float {} = L == 0.0f ? 0.0f : A / L;", v);
  remember(memoKey(op.getResult(), coords), v);
  LogicalResult stored = storeYields(body, coords);
  popScope();
  return stored;
}

} // namespace stride
