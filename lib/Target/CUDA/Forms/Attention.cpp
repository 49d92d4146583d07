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
// and one of `slices` slices of the keys. The rows' queries go to shared
// memory first. A warp step takes 32 keys, a key a lane: the lane reads
// its key's whole row (`vector_width` elements per load, 16 bytes where
// the layout allows) and scores it for every row alone, against the
// queries broadcast from shared memory, with no exchange between lanes (a
// key no row attends is not read: the unwritten positions of a static KV
// cache). Each row's online softmax step (FlashAttention's state: the
// running maximum `m`, the sum `l` of exp(score - m) and the weighted sum
// `acc` of the values) takes the step's maximum across the warp by
// shuffles; the keys' weights go to shared memory, and the lanes turn to
// the values: each lane takes `tile` consecutive dims of every 32 * `tile`
// of the value rows of the step's keys that some row attends,
// `elements_per_thread` keys' loads in flight before any is used, and
// adds them weighted into its dims of `acc`. The masks of a step are
// evaluated one step ahead, so that a step waits on one memory latency
// for its keys, not on its masks and then its keys. The block's warps
// merge their states through shared memory; with one slice that is the
// result. With several on sm_90, the unit's slices are one thread-block
// cluster (`cluster_blocks`): each block leaves its state in its shared
// memory and the cluster's blocks combine them through distributed shared
// memory, each its share of the outputs; with a kv_length the cluster's
// blocks split the valid keys at run time. Below sm_90 each slice's state
// goes to scratch and a second launch combines them, a block per row of a
// unit (and zeroes the scratch, as every kernel leaves it). A row no key
// attends has `l = 0` and the result 0, the op's semantics.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"
#include "../Scheduler.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

namespace {
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
  valueWidth = schedule.getTile();
  valueBatch = schedule.getElementsPerThread();
  keyVectors = ceilDiv(headDim, width);
  valueVectors = ceilDiv(valueDim, 32 * valueWidth);
  units = batch * kvHeads * queryRows;
  chunk = slices > 1 ? sliceLength(keys, slices, kSplitKvStepKeys) : keys;
  element = storageType(op.getKey().getType().getDType());
  if (cuda::isStagedAttention(schedule.getScheme()))
    return printStaged(body);
  body.line("// attention at {}: {} units (batch x key/value heads x query "
            "rows) of {} query heads each, {} keys in {} slices of {}, a "
            "block of {} warps per unit and slice; a key a lane, key loads "
            "of {} elements, value loads of {} elements, {} keys' values "
            "in flight",
            formatLocation(op.getLoc()), units, rows, keys, slices, chunk,
            warps, width, valueWidth, valueBatch);
  if (product(iterationShape) == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }
  body.line("const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;");
  cluster = schedule.getClusterBlocks() > 1;
  if (failed(printCombinePhase(
          body, cluster ? 1 : slices,
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

std::string AttentionPrinter::valueDimOf(const std::string &t) const {
  return fmt::format("(lane + 32 * {}) * {}", t, valueWidth);
}

void AttentionPrinter::openLaneElements(Code &body, int64_t vectors,
                                        int64_t elements) {
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", vectors));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int e = 0; e < {}; ++e)", elements));
}

std::string AttentionPrinter::vectorType(int64_t elements) const {
  return fmt::format("stride_vecn<{}, {}>", element, elements);
}

LogicalResult AttentionPrinter::printSlice(Code &body) {
  if (slices > 1)
    body.line("const {0} unit = blockIdx.x / {1}, slice = blockIdx.x % {1};",
              idx, slices);
  else
    body.line("const {} unit = blockIdx.x, slice = 0;", idx);
  declareUnit(body, "unit");
  if (failed(printKeyRange(body)) || failed(printQueries(body)))
    return failure();
  // The online softmax states: m the same in every lane of the warp, l the
  // lane's keys' part, acc the lane's value dims.
  body.line("STRIDE_SHARED(float, keyWeightOf, {}); // [warp][row][key of the "
            "step]",
            warps * rows * 32);
  body.line("float m[{0}], l[{0}], acc[{0}][{1}];", rows,
            valueVectors * valueWidth);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("m[r] = {}; l[r] = 0.0f;", kAttentionMinusInf);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)",
                        valueVectors * valueWidth));
  body.line("acc[r][i] = 0.0f;");
  body.close();
  body.close();

  // Each warp step: the lanes' key rows (their masks evaluated one step
  // ahead), the next step's masks in flight with them, the scores, the
  // softmax steps, then the values of the keys some row attends.
  body.line("bool attends[{0}], anyRow; float bias[{0}];", rows);
  std::string firstStep = fmt::format("keyBegin + warp * {}", kSplitKvStepKeys);
  if (failed(printStepMasks(body, firstStep, "")))
    return failure();
  body.open(fmt::format("for ({0} j0 = {1}; j0 < keyEnd; j0 += {2})", idx,
                        firstStep, warps * kSplitKvStepKeys));
  body.line("const unsigned read = __ballot_sync({}, anyRow); // the step's "
            "keys some row attends",
            kAttentionFullWarp);
  printKeyLoads(body);
  body.line("bool attendsNext[{0}], anyRowNext; float biasNext[{0}];", rows);
  if (failed(printStepMasks(body, fmt::format("j0 + {}", warps * kSplitKvStepKeys),
                            "Next")))
    return failure();
  printScores(body);
  printSoftmaxSteps(body);
  body.line("__syncwarp();");
  printWeightedValues(body);
  body.line("__syncwarp();");
  body.line("anyRow = anyRowNext;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("attends[r] = attendsNext[r]; bias[r] = biasNext[r];");
  body.close();
  body.close();
  // The lanes' sums of weights into the warp's.
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("#pragma unroll");
  body.open("for (int offset = 16; offset > 0; offset >>= 1)");
  body.line("l[r] += __shfl_xor_sync({}, l[r], offset);", kAttentionFullWarp);
  body.close();
  body.close();
  return printCombineWarps(body);
}

LogicalResult AttentionPrinter::printQueries(Code &body) {
  // The rows' queries, zero past the head dim, in shared memory: every
  // lane reads them all (one address a load: a broadcast).
  int64_t padded = keyVectors * width;
  body.line("STRIDE_SHARED(float, queryOf, {}); // [row][dim]",
            rows * padded);
  body.open(fmt::format("for (int o = threadIdx.x; o < {}; o += blockDim.x)",
                        rows * padded));
  body.line("const int r = o / {0}; const {1} d = o % {0};", padded, idx);
  body.line("float at = 0.0f;");
  body.open(fmt::format("if (d < {})", headDim));
  pushScope();
  FailureOr<std::string> loaded =
      eval(op.getQuery(), {"b", queryHead(), "qi", "d"}, body);
  popScope();
  if (failed(loaded))
    return failure();
  body.line("at = {};", *loaded);
  body.close();
  body.line("queryOf[r * {} + d] = at;", padded);
  body.close();
  body.line("__syncthreads();");
  return success();
}

LogicalResult AttentionPrinter::printKeyRange(Code &body) {
  Value length = op.getKvLength();
  if (!length) {
    body.line("const {0} keyBegin = slice * {1};", idx, chunk);
    body.line("const {0} keyEnd = keyBegin + {1} < {2} ? keyBegin + {1} : {2};",
              idx, chunk, keys);
    return success();
  }
  // Keys at or past the batch's valid count are never read.
  pushScope();
  FailureOr<std::string> valid = eval(length, {"b"}, body);
  popScope();
  if (failed(valid))
    return failure();
  body.line("const {0} validKeys = {1} < 0 ? 0 : {1} < {2} ? {1} : {2};", idx,
            *valid, keys);
  if (cluster) {
    // The cluster's blocks split the valid keys, whole warp steps each,
    // at run time: at every position all of them take part.
    body.line("const {0} sliceKeys = (validKeys + {1} - 1) / {1} * {2}; // "
              "whole warp steps",
              idx, slices * kSplitKvStepKeys, kSplitKvStepKeys);
    body.line("const {0} keyBegin = slice * sliceKeys;", idx);
    body.line("const {0} keyEnd = keyBegin + sliceKeys < validKeys ? keyBegin "
              "+ sliceKeys : validKeys;",
              idx);
    return success();
  }
  // A slice past the count ends where it begins (an empty partial result).
  body.line("const {0} keyBegin = slice * {1};", idx, chunk);
  body.line("const {0} sliceEnd = keyBegin + {1} < {2} ? keyBegin + {1} : {2};",
            idx, chunk, keys);
  body.line("const {0} keyEnd = validKeys < keyBegin ? keyBegin : "
            "validKeys < sliceEnd ? validKeys : sliceEnd;",
            idx);
  return success();
}

LogicalResult AttentionPrinter::printStepMasks(Code &body,
                                               const std::string &stepBegin,
                                               const std::string &suffix) {
  body.open("");
  body.line("const {} j = {} + lane;", idx, stepBegin);
  if (failed(printMasks(body, suffix)))
    return failure();
  body.close();
  return success();
}

LogicalResult AttentionPrinter::printMasks(Code &body,
                                          const std::string &suffix) {
  // Which rows attend the lane's key j: a key no row attends is never
  // read. Into attends<suffix>, anyRow<suffix> and bias<suffix>.
  std::string attends = "attends" + suffix, anyRow = "anyRow" + suffix,
              bias = "bias" + suffix;
  body.line("{} = false;", anyRow);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("{0}[r] = j < keyEnd{2}; {1}[r] = 0.0f;", attends, bias,
            op.getCausal() ? " && j <= qi" : "");
  if (Value mask = op.getMask()) {
    bool boolean = cast<StridedTensorType>(mask.getType())
                       .getElementType()
                       .isInteger(1);
    body.open(fmt::format("if ({}[r])", attends));
    pushScope();
    FailureOr<std::string> at =
        eval(mask, {"b", queryHead(), "qi", "j"}, body);
    popScope();
    if (failed(at))
      return failure();
    if (boolean)
      body.line("{}[r] = {} != 0;", attends, *at);
    else
      body.line("{0}[r] = {1}; {2}[r] = {0}[r] != {3};", bias, *at, attends,
                kAttentionMinusInf);
    body.close();
  }
  body.line("{0} = {0} || {1}[r];", anyRow, attends);
  body.close();
  return success();
}

void AttentionPrinter::printKeyLoads(Code &body) {
  // The lane's key's whole row, one aligned load per vector; zeros where no
  // row attends the key (never read).
  unsigned arg = *rootArgument(op.getKey());
  std::string at =
      fmt::format("&in{}[{}]", arg,
                  address(op.getKey().getType(), {"b", "g", "j", "c"}));
  body.line("{} key[{}];", vectorType(width), keyVectors);
  body.open("");
  body.line("const {} j = j0 + lane;", idx);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", keyVectors));
  body.line("const {} c = t * {};", idx, width);
  body.open("if (anyRow)");
  body.line("key[t] = *reinterpret_cast<const {} *>({});", vectorType(width),
            at);
  body.close();
  body.open("else");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int e = 0; e < {}; ++e)", width));
  body.line("stride_st(&key[t].v[e], 0.0f);");
  body.close();
  body.close();
  body.close();
  body.close();
}

void AttentionPrinter::printScores(Code &body) {
  // Each row's score of the lane's key, the lane's alone; -inf where the
  // row does not attend the key.
  body.line("float x[{}];", rows);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float score = 0.0f;");
  openLaneElements(body, keyVectors, width);
  body.line("score += queryOf[r * {} + t * {} + e] * stride_ld(&key[t].v[e]);",
            keyVectors * width, width);
  body.close();
  body.close();
  body.line("x[r] = attends[r] ? score * {} + bias[r] : {};",
            floatLiteral(op.getScale().convertToDouble(), DType::F32),
            kAttentionMinusInf);
  body.close();
}

void AttentionPrinter::printSoftmaxSteps(Code &body) {
  // One online softmax step per row over the warp's keys of the step: the
  // step's maximum across the warp, the state rescaled where it rises,
  // then the lane's key's weight, into weightOf for the values. A score of
  // -inf (a key the row does not attend, or the bias hides) weighs 0; NaN
  // propagates through the maximum.
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float top = x[r];");
  body.line("#pragma unroll");
  body.open("for (int offset = 16; offset > 0; offset >>= 1)");
  body.line("top = stride_maximum(top, __shfl_xor_sync({}, top, offset));",
            kAttentionFullWarp);
  body.close();
  body.line("float weight = 0.0f;");
  body.line("// Some key of the step for this row?");
  body.open(fmt::format("if (top != {})", kAttentionMinusInf));
  body.line("const float mNew = stride_maximum(m[r], top);");
  body.open("if (mNew != m[r])");
  body.line("const float rescale = stride_exp(m[r] - mNew);");
  body.line("l[r] *= rescale;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)",
                        valueVectors * valueWidth));
  body.line("acc[r][i] *= rescale;");
  body.close();
  body.line("m[r] = mNew;");
  body.close();
  body.line("if (x[r] != {}) weight = stride_exp(x[r] - mNew);",
            kAttentionMinusInf);
  body.line("l[r] += weight;");
  body.close();
  body.line("keyWeightOf[(warp * {} + r) * 32 + lane] = weight;", rows);
  body.close();
}

void AttentionPrinter::printWeightedValues(Code &body) {
  // The lane's value dims of the step's keys some row attends, valueBatch
  // keys' loads before any is used, each added with each row's weight (a
  // weight of 0, a key the row does not attend, adds nothing, whatever the
  // value).
  unsigned arg = *rootArgument(op.getValue());
  std::string at =
      fmt::format("&in{}[{}]", arg,
                  address(op.getValue().getType(), {"b", "g", "j", "c"}));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int k0 = 0; k0 < 32; k0 += {})", valueBatch));
  body.line("{} value[{}][{}];", vectorType(valueWidth), valueBatch,
            valueVectors);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int k = 0; k < {}; ++k)", valueBatch));
  body.line("if (!((read >> (k0 + k)) & 1u)) continue;");
  body.line("const {} j = j0 + k0 + k;", idx);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", valueVectors));
  body.line("const {} c = {};", idx, valueDimOf("t"));
  body.open(fmt::format("if (c < {})", valueDim));
  body.line("value[k][t] = *reinterpret_cast<const {} *>({});",
            vectorType(valueWidth), at);
  body.close();
  body.close();
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int k = 0; k < {}; ++k)", valueBatch));
  body.line("if (!((read >> (k0 + k)) & 1u)) continue;");
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("const float w = keyWeightOf[(warp * {} + r) * 32 + k0 + k];",
            rows);
  body.line("if (w == 0.0f) continue;");
  openLaneElements(body, valueVectors, valueWidth);
  body.open(fmt::format("if ({} + e < {})", valueDimOf("t"), valueDim));
  body.line("acc[r][t * {} + e] += w * stride_ld(&value[k][t].v[e]);",
            valueWidth);
  body.close();
  body.close();
  body.close();
  body.close();
  body.close();
  body.close();
}

void AttentionPrinter::printCombineLoop(Code &body, const std::string &count,
                                        const std::string &stateAt) {
  // One state's m, l and acc[e] at `stateAt` (an expression of `w`):
  // combined over `count` states into M, L and A.
  body.line("float M = {};", kAttentionMinusInf);
  body.open(fmt::format("for (int w = 0; w < {}; ++w)", count));
  body.line("M = stride_maximum(M, {}[0]);", stateAt);
  body.close();
  body.line("float L = 0.0f, A = 0.0f;");
  body.open(fmt::format("for (int w = 0; w < {}; ++w)", count));
  body.line("const float *s = {};", stateAt);
  body.line("if (s[0] == {}) continue; // no key attended there",
            kAttentionMinusInf);
  body.line("const float c = stride_exp(s[0] - M);");
  body.line("L += s[1] * c; A += s[2 + e] * c;");
  body.close();
}

LogicalResult AttentionPrinter::printCombineWarps(Code &body) {
  int64_t stateFloats = valueDim + 2;
  // Each warp's state: lane 0 its m and l, every lane its value dims.
  body.line("STRIDE_SHARED(float, stateOf, {}); // [warp][row]: m, l, acc[{}]",
            warps * rows * stateFloats, valueDim);
  if (cluster)
    body.line("STRIDE_SHARED(float, sliceState, {}); // [row]: m, l, acc[{}], "
              "the block's slice's, read by the cluster",
              rows * stateFloats, valueDim);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int r = 0; r < {}; ++r)", rows));
  body.line("float *own = stateOf + (warp * {} + r) * {};", rows, stateFloats);
  body.line("if (lane == 0) {{ own[0] = m[r]; own[1] = l[r]; }}");
  openLaneElements(body, valueVectors, valueWidth);
  body.line("const {} c = {} + e;", idx, valueDimOf("t"));
  body.line("if (c < {}) own[2 + c] = acc[r][t * {} + e];", valueDim,
            valueWidth);
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
  } else if (cluster) {
    body.line("float *part = sliceState + r * {};", stateFloats);
    body.line("if (e == 0) {{ part[0] = M; part[1] = L; }}");
    body.line("part[2 + e] = A;");
  } else {
    body.line("float *part = partials + ((unit * {} + r) * {} + slice) * {};",
              rows, slices, stateFloats);
    body.line("if (e == 0) {{ part[0] = M; part[1] = L; }}");
    body.line("// A slice no key of which is attended (M = -inf) leaves its "
              "sums at zero, as the scratch is.");
    body.line("if (M != {}) part[2 + e] = A;", kAttentionMinusInf);
  }
  body.close();
  if (cluster)
    return printCombineCluster(body);
  return success();
}

LogicalResult AttentionPrinter::printCombineCluster(Code &body) {
  // The unit's slices are the cluster's blocks (rank = slice): once every
  // block's state is in its sliceState, each block combines its share of
  // the unit's (row, value dim) outputs from every slice's state, read
  // through distributed shared memory; a slice no key of which was
  // attended (m = -inf) weighs 0. The last barrier keeps every block's
  // state until the cluster has read it.
  int64_t stateFloats = valueDim + 2;
  body.line("stride_cluster_sync();");
  body.open(fmt::format("for (int o = threadIdx.x + slice * blockDim.x; o < "
                        "{}; o += blockDim.x * {})",
                        rows * valueDim, slices));
  body.line("const int r = o / {0}, e = o % {0};", valueDim);
  body.line("const float *state = sliceState + r * {};", stateFloats);
  body.line("float M = {};", kAttentionMinusInf);
  body.open(fmt::format("for (unsigned s = 0; s < {}u; ++s)", slices));
  body.line("M = stride_maximum(M, stride_cluster_read(&state[0], s));");
  body.close();
  body.line("float L = 0.0f, A = 0.0f;");
  body.open(fmt::format("for (unsigned s = 0; s < {}u; ++s)", slices));
  body.line("const float m = stride_cluster_read(&state[0], s);");
  body.line("if (m == {}) continue; // no key attended there",
            kAttentionMinusInf);
  body.line("const float c = stride_exp(m - M);");
  body.line("L += stride_cluster_read(&state[1], s) * c; A += "
            "stride_cluster_read(&state[2 + e], s) * c;");
  body.close();
  if (failed(storeResult(body)))
    return failure();
  body.close();
  body.line("stride_cluster_sync(); // no block leaves while another reads "
            "its state");
  return success();
}

void AttentionPrinter::printBlockReduction(Code &body, const std::string &x,
                                           const std::string &combine,
                                           const std::string &warpValues) {
  // `x` of every thread combined (`combine` of two floats), held by every
  // thread after: a warp's by shuffles, the warps' through shared memory.
  printWarpReduction(body, x, combine);
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
  body.line("float mOf[{0}], lOf[{0}], M = {1};", perThread,
            kAttentionMinusInf);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int k = 0; k < {}; ++k)", perThread));
  body.line("const int s = threadIdx.x + k * {};", threads);
  body.line("mOf[k] = s < {0} ? state[s * {1}] : {2}; lOf[k] = s < {0} ? "
            "state[s * {1} + 1] : 0.0f;",
            slices, stateFloats, kAttentionMinusInf);
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
            kAttentionMinusInf);
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
