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
// and one of `slices` slices of the keys. A key's row (and its value's)
// is read by `tile` lanes, `vector_width` elements per load (16 bytes
// where the layouts allow: a bf16 row of 128 is 16 lanes, so a warp reads
// two keys per load instruction), each lane its vectors `sub`, `sub +
// tile`, ... of the row. A warp step takes `32 / tile` keys per load and
// `elements_per_thread` loads per lane: every load of the keys some row
// attends (a key no row attends is skipped before its key and value are
// read: the unwritten positions of a static KV cache), all in flight
// together with the loads of the next step's masks (each step's masks are
// evaluated one step ahead, so that a step waits on one memory latency,
// not on its masks and then its keys), then the scores (the lanes' partial dot products summed
// over the key's lanes by shuffles) and one online softmax step per row
// for the lane's keys of the step (FlashAttention's state: the running
// maximum `m`, the sum `l` of exp(score - m) and the weighted sum `acc` of
// the values, the lane's dims). The warp's lane groups (keys apart) then
// merge their states by shuffles, the block's warps through shared memory;
// with one slice that is the result, with several each slice's state goes
// to scratch and a second launch combines them, a block per row of a unit
// (and zeroes the scratch, as every kernel leaves it). A row no key attends has `l = 0`
// and the result 0, the op's semantics.
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
constexpr const char *kFullWarp = "0xffffffffu";
/// The slices' sums a thread of the combine loads before it uses any.
constexpr int64_t kCombineBatch = 32;
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
  width = schedule.getVectorWidth();
  lanesPerKey = schedule.getTile();
  keysPerLane = schedule.getElementsPerThread();
  keyVectors = ceilDiv(ceilDiv(headDim, width), lanesPerKey);
  valueVectors = ceilDiv(ceilDiv(valueDim, width), lanesPerKey);
  stepKeys = 32 / lanesPerKey * keysPerLane;
  units = batch * kvHeads * queryRows;
  chunk = slices > 1 ? sliceLength(keys, slices, stepKeys) : keys;
  element = storageType(op.getKey().getType().getDType());
  body.line("// attention at {}: {} units (batch x key/value heads x query "
            "rows) of {} query heads each, {} keys in {} slices of {}, a "
            "block of {} warps per unit and slice; {} lanes per key row, "
            "loads of {} elements, {} keys per warp step",
            formatLocation(op.getLoc()), units, rows, keys, slices, chunk,
            warps, lanesPerKey, width, stepKeys);
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

std::string AttentionPrinter::laneDim(const std::string &t) const {
  return fmt::format("(sub + {} * {}) * {}", lanesPerKey, t, width);
}

void AttentionPrinter::openLaneElements(Code &body, int64_t vectors) {
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", vectors));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int e = 0; e < {}; ++e)", width));
}

std::string AttentionPrinter::vectorType() const {
  return fmt::format("stride_vecn<{}, {}>", element, width);
}

LogicalResult AttentionPrinter::printSlice(Code &body) {
  if (slices > 1)
    body.line("const {0} unit = blockIdx.x / {1}, slice = blockIdx.x % {1};",
              idx, slices);
  else
    body.line("const {} unit = blockIdx.x, slice = 0;", idx);
  declareUnit(body, "unit");
  body.line("const {0} keyBegin = slice * {1};", idx, chunk);
  if (failed(printKeyEnd(body)))
    return failure();
  body.line("// The lane's group of {} lanes reads one key's row, the lane "
            "its vectors sub, sub + {}, ... of it.",
            lanesPerKey, lanesPerKey);
  body.line("const int group = lane / {0}, sub = lane % {0};", lanesPerKey);
  // The rows' queries at the lane's dims; the online softmax states.
  body.line("float query[{}][{}], m[{}], l[{}], acc[{}][{}];", rows,
            keyVectors * width, rows, rows, rows, valueVectors * width);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("m[r] = {}; l[r] = 0.0f;", kMinusInf);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", valueVectors * width));
  body.line("acc[r][i] = 0.0f;");
  body.close();
  if (failed(printQuery(body)))
    return failure();
  body.close();

  // Each warp step: every load of the keys some row attends (their masks
  // evaluated one step ahead), the next step's masks in flight with them,
  // then the scores and the softmax steps. A step's loads wait on no load
  // of its own: one memory latency a step, not two.
  body.line("bool attends[{0}][{1}], anyRow[{0}]; float bias[{0}][{1}];",
            keysPerLane, rows);
  std::string firstStep = fmt::format("keyBegin + warp * {}", stepKeys);
  if (failed(printStepMasks(body, firstStep, "")))
    return failure();
  body.open(fmt::format("for ({0} j0 = {1}; j0 < keyEnd; j0 += {2})", idx,
                        firstStep, warps * stepKeys));
  body.line("{0} key[{1}][{2}], value[{1}][{3}];", vectorType(), keysPerLane,
            keyVectors, valueVectors);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", keysPerLane));
  body.line("const {} j = {};", idx, stepKey("j0"));
  printVectorLoads(body, "key", op.getKey(), keyVectors, headDim);
  printVectorLoads(body, "value", op.getValue(), valueVectors, valueDim);
  body.close();
  body.line("bool attendsNext[{0}][{1}], anyRowNext[{0}]; float "
            "biasNext[{0}][{1}];",
            keysPerLane, rows);
  if (failed(printStepMasks(body, fmt::format("j0 + {}", warps * stepKeys),
                            "Next")))
    return failure();
  printScores(body);
  printSoftmaxSteps(body);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", keysPerLane));
  body.line("anyRow[u] = anyRowNext[u];");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("attends[u][r] = attendsNext[u][r]; bias[u][r] = biasNext[u][r];");
  body.close();
  body.close();
  body.close();
  printMergeGroups(body);
  return printCombineWarps(body);
}

LogicalResult AttentionPrinter::printKeyEnd(Code &body) {
  body.line("const {0} sliceEnd = keyBegin + {1} < {2} ? keyBegin + {1} : {2};",
            idx, chunk, keys);
  Value length = op.getKvLength();
  if (!length) {
    body.line("const {} keyEnd = sliceEnd;", idx);
    return success();
  }
  // Keys at or past the batch's valid count are never read: a slice
  // past it ends where it begins (an empty partial result).
  pushScope();
  FailureOr<std::string> valid = eval(length, {"b"}, body);
  popScope();
  if (failed(valid))
    return failure();
  body.line("const {0} validKeys = {1};", idx, *valid);
  body.line("const {0} keyEnd = validKeys < keyBegin ? keyBegin : "
            "validKeys < sliceEnd ? validKeys : sliceEnd;",
            idx);
  return success();
}

std::string AttentionPrinter::stepKey(const std::string &stepBegin) const {
  return fmt::format("{} + u * {} + group", stepBegin, 32 / lanesPerKey);
}

LogicalResult AttentionPrinter::printStepMasks(Code &body,
                                               const std::string &stepBegin,
                                               const std::string &suffix) {
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", keysPerLane));
  body.line("const {} j = {};", idx, stepKey(stepBegin));
  if (failed(printMasks(body, suffix)))
    return failure();
  body.close();
  return success();
}

LogicalResult AttentionPrinter::printQuery(Code &body) {
  openLaneElements(body, keyVectors);
  body.line("const {} d = {} + e;", idx, laneDim("t"));
  body.line("float &at = query[r][t * {} + e];", width);
  body.line("at = 0.0f;");
  body.open(fmt::format("if (d < {})", headDim));
  pushScope();
  FailureOr<std::string> loaded =
      eval(op.getQuery(), {"b", queryHead(), "qi", "d"}, body);
  popScope();
  if (failed(loaded))
    return failure();
  body.line("at = {};", *loaded);
  body.close();
  body.close();
  body.close();
  return success();
}

LogicalResult AttentionPrinter::printMasks(Code &body,
                                          const std::string &suffix) {
  // Which rows attend key j (the same for every lane of the key's group):
  // a key no row attends is never read. Into attends<suffix>,
  // anyRow<suffix> and bias<suffix>.
  std::string attends = "attends" + suffix, anyRow = "anyRow" + suffix,
              bias = "bias" + suffix;
  body.line("{}[u] = false;", anyRow);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("{0}[u][r] = j < keyEnd{2}; {1}[u][r] = 0.0f;", attends, bias,
            op.getCausal() ? " && j <= qi" : "");
  if (Value mask = op.getMask()) {
    bool boolean = cast<StridedTensorType>(mask.getType())
                       .getElementType()
                       .isInteger(1);
    body.open(fmt::format("if ({}[u][r])", attends));
    pushScope();
    FailureOr<std::string> at =
        eval(mask, {"b", queryHead(), "qi", "j"}, body);
    popScope();
    if (failed(at))
      return failure();
    if (boolean)
      body.line("{}[u][r] = {} != 0;", attends, *at);
    else
      body.line("{0}[u][r] = {1}; {2}[u][r] = {0}[u][r] != {3};", bias, *at,
                attends, kMinusInf);
    body.close();
  }
  body.line("{0}[u] = {0}[u] || {1}[u][r];", anyRow, attends);
  body.close();
  return success();
}

void AttentionPrinter::printVectorLoads(Code &body, const std::string &target,
                                        Value row, int64_t vectors,
                                        int64_t extent) {
  // The lane's vectors of key j's row of `row` (the key or the value), one
  // aligned load each; zeros past the row's end and where no row attends
  // the key (never read).
  unsigned arg = *rootArgument(row);
  std::string at = fmt::format(
      "&in{}[{}]", arg,
      address(cast<StridedTensorType>(row.getType()), {"b", "g", "j", "c"}));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", vectors));
  body.line("const {} c = {};", idx, laneDim("t"));
  body.open(fmt::format("if (anyRow[u] && c < {})", extent));
  body.line("{}[u][t] = *reinterpret_cast<const {} *>({});", target,
            vectorType(), at);
  body.close();
  body.open("else");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int e = 0; e < {}; ++e)", width));
  body.line("stride_st(&{}[u][t].v[e], 0.0f);", target);
  body.close();
  body.close();
  body.close();
}

void AttentionPrinter::printScores(Code &body) {
  // Every lane takes part (the shuffles): each row's score of each of the
  // lane's keys, the lanes' products summed over the key's group; -inf
  // where the row does not attend the key.
  body.line("float x[{}][{}];", keysPerLane, rows);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", keysPerLane));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float score = 0.0f;");
  openLaneElements(body, keyVectors);
  body.line("score += query[r][t * {} + e] * stride_ld(&key[u][t].v[e]);",
            width);
  body.close();
  body.close();
  body.open(fmt::format("for (int offset = {}; offset > 0; offset >>= 1)",
                        lanesPerKey / 2));
  body.line("score += __shfl_xor_sync({}, score, offset);", kFullWarp);
  body.close();
  body.line("x[u][r] = attends[u][r] ? score * {} + bias[u][r] : {};",
            floatLiteral(op.getScale().convertToDouble(), DType::F32),
            kMinusInf);
  body.close();
  body.close();
}

void AttentionPrinter::printSoftmaxSteps(Code &body) {
  // One online softmax step per row over the lane's keys of the warp step:
  // the state rescaled once to the new maximum, then each key's weight. A
  // score of -inf (a key the row does not attend, or the bias hides) weighs
  // 0 and its value is not read; NaN propagates through the maximum.
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float top = {};", kMinusInf);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", keysPerLane));
  body.line("top = stride_maximum(top, x[u][r]);");
  body.close();
  body.line("if (top == {}) continue; // no key of the step for this row",
            kMinusInf);
  body.line("const float mNew = stride_maximum(m[r], top);");
  body.line("const float rescale = stride_exp(m[r] - mNew);");
  body.line("l[r] *= rescale;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", valueVectors * width));
  body.line("acc[r][i] *= rescale;");
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int u = 0; u < {}; ++u)", keysPerLane));
  body.line("if (x[u][r] == {}) continue;", kMinusInf);
  body.line("const float weight = stride_exp(x[u][r] - mNew);");
  body.line("l[r] += weight;");
  openLaneElements(body, valueVectors);
  body.line("acc[r][t * {} + e] += weight * stride_ld(&value[u][t].v[e]);",
            width);
  body.close();
  body.close();
  body.close();
  body.line("m[r] = mNew;");
  body.close();
}

void AttentionPrinter::printMergeGroups(Code &body) {
  if (lanesPerKey == 32)
    return;
  // The warp's lane groups took different keys: their states merge by
  // shuffles (a state with no key, m = -inf, weighs 0), so that every
  // group, group 0 among them, holds the warp's.
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int offset = {}; offset < 32; offset <<= 1)",
                        lanesPerKey));
  body.line("const float mOther = __shfl_xor_sync({0}, m[r], offset), "
            "lOther = __shfl_xor_sync({0}, l[r], offset);",
            kFullWarp);
  body.line("const float mNew = stride_maximum(m[r], mOther);");
  body.line("const float own = m[r] == {0} ? 0.0f : stride_exp(m[r] - mNew), "
            "other = mOther == {0} ? 0.0f : stride_exp(mOther - mNew);",
            kMinusInf);
  body.line("l[r] = l[r] * own + lOther * other;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", valueVectors * width));
  body.line("acc[r][i] = acc[r][i] * own + "
            "__shfl_xor_sync({}, acc[r][i], offset) * other;",
            kFullWarp);
  body.close();
  body.line("m[r] = mNew;");
  body.close();
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
  // Group 0's lanes write the warp's state.
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float *own = stateOf + (warp * {} + r) * {};", rows, stateFloats);
  body.line("if (lane == 0) {{ own[0] = m[r]; own[1] = l[r]; }}");
  openLaneElements(body, valueVectors);
  body.line("const int c = {} + e;", laneDim("t"));
  body.line("if (group == 0 && c < {}) own[2 + c] = acc[r][t * {} + e];",
            valueDim, width);
  body.close();
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
    body.line("// A slice no key of which is attended (M = -inf) leaves its "
              "sums at zero, as the scratch is.");
    body.line("if (M != {}) part[2 + e] = A;", kMinusInf);
  }
  body.close();
  return success();
}

void AttentionPrinter::printBlockReduction(Code &body, const std::string &x,
                                           const std::string &combine,
                                           const std::string &warpValues) {
  // `x` of every thread combined (`combine` of two floats), held by every
  // thread after: a warp's by shuffles, the warps' through shared memory.
  body.open("for (int offset = 16; offset > 0; offset >>= 1)");
  body.line("{0} = {1}({0}, __shfl_xor_sync({2}, {0}, offset));", x, combine,
            kFullWarp);
  body.close();
  body.line("if (lane == 0) {}[warp] = {};", warpValues, x);
  body.line("__syncthreads();");
  body.line("{} = {}[0];", x, warpValues);
  body.open(fmt::format("for (int w = 1; w < {}; ++w)", warps));
  body.line("{0} = {1}({0}, {2}[w]);", x, combine, warpValues);
  body.close();
}

LogicalResult AttentionPrinter::printCombineSlices(Code &body) {
  // A block per row of a unit. Each thread loads the maxima and sums of
  // weights of its slices together (one latency), the block takes the
  // maximum and then the sum of weights; then each value dim (a thread)
  // loads its sums of kCombineBatch slices at a time, every load of a
  // batch before any use (a slice no key of which was attended weighs 0
  // and its sums are the scratch's zeros). Every partial read goes back to
  // 0, as the scratch is left.
  int64_t stateFloats = valueDim + 2;
  int64_t threads = warps * 32;
  int64_t perThread = ceilDiv(slices, threads);
  int64_t batch = std::min<int64_t>(slices, kCombineBatch);
  body.line("const {0} unit = blockIdx.x / {1}; const int r = blockIdx.x % "
            "{1};",
            idx, rows);
  declareUnit(body, "unit");
  body.line("float *state = partials + (unit * {} + r) * {}; // [slice]: m, "
            "l, acc[{}]",
            rows, slices * stateFloats, valueDim);
  body.line("__shared__ float weightOf[{}], warpMax[{}], warpSum[{}];", slices,
            warps, warps);
  body.line("float mOf[{0}], lOf[{0}], M = {1};", perThread, kMinusInf);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int k = 0; k < {}; ++k)", perThread));
  body.line("const int s = threadIdx.x + k * {};", threads);
  body.line("mOf[k] = s < {0} ? state[s * {1}] : {2}; lOf[k] = s < {0} ? "
            "state[s * {1} + 1] : 0.0f;",
            slices, stateFloats, kMinusInf);
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int k = 0; k < {}; ++k)", perThread));
  body.line("M = stride_maximum(M, mOf[k]);");
  body.close();
  printBlockReduction(body, "M", "stride_maximum", "warpMax");
  body.line("float L = 0.0f;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int k = 0; k < {}; ++k)", perThread));
  body.line("const int s = threadIdx.x + k * {};", threads);
  body.line("if (s >= {}) break;", slices);
  body.line("const float c = mOf[k] == {} ? 0.0f : stride_exp(mOf[k] - M);",
            kMinusInf);
  body.line("weightOf[s] = c;");
  body.line("if (c != 0.0f) L += lOf[k] * c;");
  body.line("state[s * {0}] = 0.0f; state[s * {0} + 1] = 0.0f; // scratch "
            "back to zeros",
            stateFloats);
  body.close();
  printBlockReduction(body, "L", "stride_add", "warpSum");
  body.open(fmt::format("for (int e = threadIdx.x; e < {}; e += blockDim.x)",
                        valueDim));
  body.line("float A = 0.0f;");
  body.open(fmt::format("for (int s0 = 0; s0 < {0}; s0 += {1})", slices,
                        batch));
  body.line("float part[{}];", batch);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", batch));
  body.line("part[i] = s0 + i < {0} ? state[(s0 + i) * {1} + 2 + e] : 0.0f;",
            slices, stateFloats);
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", batch));
  body.line("if (s0 + i >= {}) break;", slices);
  body.line("const float w = weightOf[s0 + i];");
  body.line("if (w != 0.0f) A += part[i] * w; // a weight of 0 adds nothing, "
            "whatever the sums");
  body.line("state[(s0 + i) * {} + 2 + e] = 0.0f;", stateFloats);
  body.close();
  body.close();
  if (failed(storeResult(body)))
    return failure();
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
