//===- StagedAttention.cpp - Staged decode attention kernels --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (f), scheme staged_kv_attention (stridec --decode-attention=staged;
// bench/NOTES.md sections 78 and 79 measure it against cuDNN): a decode
// step's attention over a static KV cache (a kv_length, f16 or bf16,
// stagedDecodeTakes). A unit is one query row `qi` of one key/value head
// `g` of one batch `b`, with the `G = Hq / Hkv` query heads that read that
// head (its rows). Up to `slices` (16) blocks per unit share the unit's
// valid keys, counted at run time: an equal share each, but at least a
// chunk of keys (a block's loops cost as much for fewer, and every busy
// block adds a state to the combine), so a short cache busies fewer
// blocks and the combine reads at most `slices` states. A block walks its
// keys in chunks of at most `tile`: it copies each chunk's key and value
// rows into its dynamic shared memory with 16-byte asynchronous copies
// (`elements_per_thread` chunks in flight, zeros past the chunk's keys),
// scores a key a thread against the rows' queries (read as float4),
// takes each row's online softmax step a warp a row (FlashAttention's
// running maximum `m`, sum `l` and weighted values, rescaled where the
// maximum rises), and adds the chunk's weighted values four dims of a row
// a thread (where the block has at least twice as many threads as groups
// of four dims, `keyParts` threads share a group's keys, their sums added
// after the last chunk). Bounds checks are printed only where the rows or
// value groups do not divide evenly among the threads. With one busy
// block the result is its state; otherwise each block's state (a header of
// kStagedKvStateHeader floats, then its values) goes to scratch and the
// unit's last block to arrive (an arrival counter per unit) combines
// them, in slice order, four value dims a thread with 16-byte L2 loads
// (kStagedCombineBatch in flight), and sets the scratch back to zeros.
// One launch, a dependent one like every generated kernel's. Scheme
// staged_kv_mma_attention computes the chunk's scores and weighted values
// on the tensor cores instead (printQueryFragments, printChunkScoresMma,
// printChunkValuesMma: mma.m16n8k16 fed by ldmatrix, the rows as A).
//
//===----------------------------------------------------------------------===//

#include "Forms.h"
#include "../Scheduler.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

namespace {
/// The slices' sums (four floats each) a thread of the combine loads
/// before it uses any: a unit's 16 states in one round (8 and 16 measured
/// alike in the probe, bench/NOTES.md section 78).
constexpr int64_t kStagedCombineBatch = 16;

using cuda::kStagedKvStateHeader;
} // namespace

LogicalResult AttentionPrinter::printStaged(Code &body) {
  chunkKeys = schedule.getTile();
  buffers = schedule.getElementsPerThread();
  keyPitch = headDim + 8;
  threads = warps * 32;
  valueGroups = rows * valueDim / 4;
  tensorCores = schedule.getScheme() == KernelScheme::StagedKvMmaAttention;
  keyParts =
      !tensorCores && threads >= 2 * valueGroups && threads % valueGroups == 0
          ? threads / valueGroups
          : 1;
  valuePitch = cuda::stagedValuePitch(valueDim, tensorCores);
  valueTiles = valueDim / warps / 8;
  body.line("// attention at {}: {} units (batch x key/value heads x query "
            "rows) of {} query heads each, {} keys; {} blocks a unit share "
            "its valid keys, each in chunks of at most {} keys copied "
            "through shared memory ({} in flight), an online softmax across "
            "them; the last of a unit's blocks to arrive combines their "
            "states",
            formatLocation(op.getLoc()), units, rows, keys, slices, chunkKeys,
            buffers);
  if (product(iterationShape) == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }
  body.line("const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;");
  body.line("const {0} unit = blockIdx.x / {1}, slice = blockIdx.x % {1};", idx,
            slices);
  declareUnit(body, "unit");
  if (failed(printStagedKeyRange(body)))
    return failure();
  printChunkCopies(body);
  if (failed(printQueries(body)))
    return failure();
  body.line("STRIDE_SHARED(float, scoreOf, {}); // [row][key of the chunk]: "
            "score, then weight",
            rows * chunkKeys);
  body.line("STRIDE_SHARED(float, rowMax, {0}); STRIDE_SHARED(float, rowSum, "
            "{0}); STRIDE_SHARED(float, rowScale, {0});",
            rows);
  body.open(fmt::format("if (threadIdx.x < {})", rows));
  body.line("rowMax[threadIdx.x] = {}; rowSum[threadIdx.x] = 0.0f;",
            kAttentionMinusInf);
  body.close();
  body.line("float acc[{}][4] = {{}}; // the thread's groups of 4 value dims",
            ceilDiv(valueGroups, threads));
  if (tensorCores)
    printQueryFragments(body);
  body.open(fmt::format("for ({} c = 0; c < chunks; ++c)", idx));
  printChunkWait(body);
  if (tensorCores)
    printChunkScoresMma(body);
  else
    printChunkScores(body);
  printChunkSoftmax(body);
  if (tensorCores)
    printChunkValuesMma(body);
  else
    printChunkValues(body);
  body.line("__syncthreads(); // every thread is done with the chunk's buffer");
  body.line("if (c + {0} < chunks) copyChunk(c + {0});", buffers);
  body.close();
  if (tensorCores)
    printMmaSums(body);
  printKeyPartsSum(body);
  return printStagedResult(body);
}

LogicalResult AttentionPrinter::printStagedKeyRange(Code &body) {
  pushScope();
  FailureOr<std::string> valid = eval(op.getKvLength(), {"b"}, body);
  popScope();
  if (failed(valid))
    return failure();
  body.line("const {0} validKeys = {1} < 0 ? 0 : {1} < {2} ? {1} : {2};", idx,
            *valid, keys);
  // An equal share of the valid keys a block, at least a chunk's worth (a
  // block's loops take as long for fewer keys, and every block more costs
  // the combine a state); the blocks past them return.
  body.line("const {0} per = validKeys > {1} ? (validKeys + {2} - 1) / {2} : "
            "{3};",
            idx, slices * chunkKeys, slices, chunkKeys);
  body.line("const {} busy = (validKeys + per - 1) / per; // 0 without "
            "valid keys",
            idx);
  body.line("if (slice >= (busy > 0 ? busy : 1)) return;");
  body.line("const {} keyBegin = slice * per;", idx);
  body.line("const {} keyEnd = keyBegin + per < validKeys ? keyBegin + per : "
            "validKeys;",
            idx);
  body.line("const {0} chunks = keyEnd - keyBegin > {1} ? (keyEnd - keyBegin "
            "+ {1} - 1) / {1} : 1;",
            idx, chunkKeys);
  body.line("const {} chunkKeys = (keyEnd - keyBegin + chunks - 1) / chunks;",
            idx);
  return success();
}

void AttentionPrinter::printChunkCopies(Code &body) {
  // Chunk c's key and value rows into buffer c % buffers: 16 bytes a copy,
  // zeros past the chunk's keys (whose rows are not read).
  body.line("STRIDE_DYNAMIC_SHARED(stagedTiles);");
  body.line("{0} *keyTiles = reinterpret_cast<{0} *>(stagedTiles); // "
            "[buffer][key][{1}]",
            element, keyPitch);
  body.line("{} *valueTiles = keyTiles + {}; // [buffer][key][{}]", element,
            buffers * chunkKeys * keyPitch, valuePitch);
  body.open(fmt::format("auto copyChunk = [&]({} c)", idx));
  body.line("const {} first = keyBegin + c * chunkKeys;", idx);
  body.line("const {} n = keyEnd - first < chunkKeys ? keyEnd - first : "
            "chunkKeys;",
            idx);
  printRowCopies(body, op.getKey(), headDim, keyPitch, "keyTiles");
  printRowCopies(body, op.getValue(), valueDim, valuePitch, "valueTiles");
  body.line("stride_copy_async_commit();");
  body.close("};");
  body.open(
      fmt::format("for ({0} c = 0; c < {1} && c < chunks; ++c)", idx, buffers));
  body.line("copyChunk(c);");
  body.close();
}

void AttentionPrinter::printRowCopies(Code &body, Value rowsOf, int64_t length,
                                      int64_t pitch, const std::string &tiles) {
  unsigned arg = *rootArgument(rowsOf);
  std::string at = fmt::format(
      "&in{}[{}]", arg,
      address(cast<StridedTensorType>(rowsOf.getType()), {"b", "g", "j", "d"}));
  int64_t vectors = length / 8;
  body.open(fmt::format("for (int o = threadIdx.x; o < {}; o += {})",
                        chunkKeys * vectors, threads));
  body.line("const int k = o / {0}; const {1} d = o % {0} * 8;", vectors, idx);
  body.line("const {} j = first + (k < n ? k : 0); // not read past n", idx);
  body.line("stride_copy_async16({} + ((c % {}) * {} + k) * {} + d, {}, k < "
            "n ? 16u : 0u);",
            tiles, buffers, chunkKeys, pitch, at);
  body.close();
}

void AttentionPrinter::printChunkWait(Code &body) {
  // Chunk c's copies done; the later chunks' may still be in flight.
  body.line("const {0} later = chunks - 1 - c < {1} ? chunks - 1 - c : {1};",
            idx, buffers - 1);
  body.line("switch (later) {{");
  for (int64_t n = 0; n < buffers; ++n)
    body.line("case {0}: stride_copy_async_wait<{0}>(); break;", n);
  body.raw("}");
  body.line("__syncthreads();");
  body.line("const {} n = keyEnd - keyBegin - c * chunkKeys < chunkKeys ? "
            "keyEnd - keyBegin - c * chunkKeys : chunkKeys;",
            idx);
  body.line("const {0} *keyTile = keyTiles + (c % {1}) * {2};", element,
            buffers, chunkKeys * keyPitch);
  body.line("const {0} *valueTile = valueTiles + (c % {1}) * {2};", element,
            buffers, chunkKeys * valuePitch);
}

void AttentionPrinter::printChunkScores(Code &body) {
  // A key a thread (threadIdx.x % tile) and every threads / tile-th row;
  // -inf past the chunk's keys.
  int64_t rowGroups = threads / chunkKeys;
  int64_t rowsPerThread = ceilDiv(rows, rowGroups);
  body.open("");
  body.line("const int k = threadIdx.x % {}, r0 = threadIdx.x / {};", chunkKeys,
            chunkKeys);
  body.line("float s[{}] = {{}};", rowsPerThread);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int d = 0; d < {}; d += 8)", headDim));
  body.line("const stride_vecn<{0}, 8> key = *reinterpret_cast<const "
            "stride_vecn<{0}, 8> *>(keyTile + k * {1} + d);",
            element, keyPitch);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", rowsPerThread));
  body.line("const int r = r0 + i * {};", rowGroups);
  bool rowsFillGroups = rows % rowGroups == 0;
  if (!rowsFillGroups)
    body.line("if (r >= {}) break;", rows);
  body.line("#pragma unroll");
  // The queries four at a time (one shared-memory read for four products),
  // summed in dim order.
  body.open("for (int e = 0; e < 8; e += 4)");
  body.line("const stride_vecn<float, 4> q = *reinterpret_cast<const "
            "stride_vecn<float, 4> *>(&queryOf[r * {} + d + e]);",
            headDim);
  body.line("#pragma unroll");
  body.line("for (int x = 0; x < 4; ++x) s[i] += q.v[x] * "
            "stride_ld(&key.v[e + x]);");
  body.close();
  body.close();
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", rowsPerThread));
  body.line("const int r = r0 + i * {};", rowGroups);
  body.line("{}scoreOf[r * {} + k] = k < n ? s[i] * {} : {};",
            rowsFillGroups ? "" : fmt::format("if (r < {}) ", rows), chunkKeys,
            floatLiteral(op.getScale().convertToDouble(), DType::F32),
            kAttentionMinusInf);
  body.close();
  body.close();
  body.line("__syncthreads();");
}

void AttentionPrinter::printChunkSoftmax(Code &body) {
  // A warp a row: the chunk's maximum with the running one, the keys'
  // weights in place of their scores, the running sum rescaled where the
  // maximum rose. A score of -inf weighs 0; NaN propagates.
  body.open(fmt::format("for (int r = warp; r < {}; r += {})", rows, warps));
  printWarpMaximum(
      body, "rowMax[r]",
      fmt::format("for (int k = lane; k < {}; k += 32)", chunkKeys),
      fmt::format("scoreOf[r * {} + k]", chunkKeys));
  body.open(fmt::format("for (int k = lane; k < {}; k += 32)", chunkKeys));
  body.line("float &x = scoreOf[r * {} + k];", chunkKeys);
  body.line("x = x == {} ? 0.0f : stride_exp(x - top);", kAttentionMinusInf);
  body.line("sum += x;");
  body.close();
  printWarpReduction(body, "sum", "stride_add");
  body.open("if (lane == 0)");
  body.line("const float rescale = rowMax[r] == {} ? 0.0f : "
            "stride_exp(rowMax[r] - top);",
            kAttentionMinusInf);
  body.line("rowScale[r] = rescale; rowSum[r] = rowSum[r] * rescale + sum; "
            "rowMax[r] = top;");
  body.close();
  body.close();
  body.line("__syncthreads();");
}

void AttentionPrinter::printWarpReduction(Code &body, const std::string &x,
                                          const std::string &combine) {
  body.line("#pragma unroll");
  body.open("for (int offset = 16; offset > 0; offset >>= 1)");
  body.line("{0} = {1}({0}, __shfl_xor_sync({2}, {0}, offset));", x, combine,
            kAttentionFullWarp);
  body.close();
}

void AttentionPrinter::printWarpMaximum(Code &body, const std::string &initial,
                                        const std::string &loop,
                                        const std::string &value) {
  // `top`: the maximum of `initial` and `value` over the lane's iterations
  // of `loop`, then over the warp; `sum` starts at 0 for the weights.
  body.line("float top = {};", initial);
  body.open(loop);
  body.line("top = stride_maximum(top, {});", value);
  body.close();
  printWarpReduction(body, "top", "stride_maximum");
  body.line("float sum = 0.0f;");
}

void AttentionPrinter::openValueGroups(Code &body) {
  // The thread's groups of 4 value dims: (r, d0) of group `p`.
  body.line("#pragma unroll");
  body.open(fmt::format("for (int p = 0; p < {}; ++p)",
                        ceilDiv(valueGroups, threads)));
  body.line("const int o = threadIdx.x + p * {};", threads);
  // No check where the groups fill the rounds (a branch the compiler keeps
  // costs a chunk's loops their scheduling).
  if (valueGroups % threads != 0)
    body.line("if (o >= {}) break;", valueGroups);
  body.line("const int r = o / {0}; const {1} d0 = o % {0} * 4;", valueDim / 4,
            idx);
}

void AttentionPrinter::printChunkValues(Code &body) {
  // The chunk's values at the thread's dims, weighted (the rows past the
  // chunk's keys are zeros of weight 0), into the rescaled sums. With
  // several key parts a thread has one group, `o`, and part `part` of the
  // chunk's keys (more warps at work on a chunk; the parts' sums are added
  // once, after the chunks).
  if (keyParts > 1) {
    body.open("");
    body.line("constexpr int p = 0;");
    body.line("const int o = threadIdx.x % {0}, part = threadIdx.x / {0};",
              valueGroups);
    body.line("const int r = o / {0}; const {1} d0 = o % {0} * 4;",
              valueDim / 4, idx);
  } else {
    openValueGroups(body);
  }
  body.line("const float rescale = rowScale[r];");
  body.line("#pragma unroll");
  body.line("for (int e = 0; e < 4; ++e) acc[p][e] *= rescale;");
  body.line("#pragma unroll {}", std::max<int64_t>(1, 16 / keyParts));
  body.open(keyParts > 1
                ? fmt::format("for (int k = part; k < {}; k += {})", chunkKeys,
                              keyParts)
                : fmt::format("for (int k = 0; k < {}; ++k)", chunkKeys));
  body.line("const float w = scoreOf[r * {} + k];", chunkKeys);
  body.line("const stride_vecn<{0}, 4> value = *reinterpret_cast<const "
            "stride_vecn<{0}, 4> *>(valueTile + k * {1} + d0);",
            element, valuePitch);
  body.line("#pragma unroll");
  body.line("for (int e = 0; e < 4; ++e) acc[p][e] += w * "
            "stride_ld(&value.v[e]);");
  body.close();
  body.close();
}

void AttentionPrinter::printQueryFragments(Code &body) {
  // Register i of k step ks: row lane / 4 (+ 8 for odd i), dims ks * 16 +
  // lane % 4 * 2 (+ 8 for i >= 2), two a register (Prelude.h).
  int64_t pitch = keyVectors * width;
  body.line("// the chunks on the tensor cores (mma.m16n8k16): the rows' "
            "queries as A, the rows past {} zero",
            rows);
  body.line("unsigned qa[{}][4];", headDim / 16);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int ks = 0; ks < {}; ++ks)", headDim / 16));
  body.line("#pragma unroll");
  body.open("for (int i = 0; i < 4; ++i)");
  body.line("const int r = lane / 4 + i % 2 * 8, d = ks * 16 + i / 2 * 8 + "
            "lane % 4 * 2;");
  body.line("qa[ks][i] = r < {0} ? stride_pack2(queryOf[r * {1} + d], "
            "queryOf[r * {1} + d + 1], {2}{{}}) : 0u;",
            rows, pitch, element);
  body.close();
  body.close();
  body.line("float tc[{}][4] = {{}}; // the warp's tiles of 8 value dims: "
            "rows lane / 4 and lane / 4 + 8",
            valueTiles);
}

void AttentionPrinter::printChunkScoresMma(Code &body) {
  // Warp w's 16 keys, [16w, 16w + 16): one ldmatrix a k step (lanes 0-7
  // rows of keys 0-7 at dims 0-7, 8-15 the same keys at dims 8-15, 16-31
  // keys 8-15), registers 0-1 B of the first tile of 8 keys, 2-3 of the
  // second.
  int64_t warpKeys = chunkKeys / warps;
  body.open("");
  body.line("float cs[{}][4] = {{}};", warpKeys / 8);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int ks = 0; ks < {}; ++ks)", headDim / 16));
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; t += 2)", warpKeys / 8));
  body.line("unsigned bk[4];");
  body.line("stride_ldmatrix_x4(bk, keyTile + (warp * {} + t * 8 + lane % 8 + "
            "lane / 16 * 8) * {} + ks * 16 + lane / 8 % 2 * 8);",
            warpKeys, keyPitch);
  body.line("stride_mma16816(cs[t], qa[ks], {{bk[0], bk[1]}}, {}{{}});",
            element);
  body.line("stride_mma16816(cs[t + 1], qa[ks], {{bk[2], bk[3]}}, {}{{}});",
            element);
  body.close();
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", warpKeys / 8));
  body.line("#pragma unroll");
  body.open("for (int i = 0; i < 4; ++i)");
  body.line("const int r = lane / 4 + i / 2 * 8, k = warp * {} + t * 8 + "
            "lane % 4 * 2 + i % 2;",
            warpKeys);
  body.line("if (r < {}) scoreOf[r * {} + k] = k < n ? cs[t][i] * {} : {};",
            rows, chunkKeys,
            floatLiteral(op.getScale().convertToDouble(), DType::F32),
            kAttentionMinusInf);
  body.close();
  body.close();
  body.close();
  body.line("__syncthreads();");
}

void AttentionPrinter::printChunkValuesMma(Code &body) {
  // A: the rows' weights of 16 keys a k step, rounded to the element type
  // (as FlashAttention's P); B: those keys' value rows at warp w's dims
  // [w * valueTiles * 8, ...), two tiles an ldmatrix (transposed: lanes
  // 0-7 keys 0-7, 8-15 keys 8-15, 16-31 the same keys 8 dims on).
  int64_t warpDims = valueTiles * 8;
  body.open("");
  body.line("const float rescale0 = lane / 4 < {0} ? rowScale[lane / 4] : "
            "0.0f, rescale1 = lane / 4 + 8 < {0} ? rowScale[lane / 4 + 8] : "
            "0.0f;",
            rows);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", valueTiles));
  body.line("tc[t][0] *= rescale0; tc[t][1] *= rescale0; tc[t][2] *= "
            "rescale1; tc[t][3] *= rescale1;");
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int ks = 0; ks < {}; ++ks)", chunkKeys / 16));
  body.line("unsigned pa[4];");
  body.line("#pragma unroll");
  body.open("for (int i = 0; i < 4; ++i)");
  body.line("const int r = lane / 4 + i % 2 * 8, k = ks * 16 + i / 2 * 8 + "
            "lane % 4 * 2;");
  body.line("pa[i] = r < {0} ? stride_pack2(scoreOf[r * {1} + k], scoreOf[r "
            "* {1} + k + 1], {2}{{}}) : 0u;",
            rows, chunkKeys, element);
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; t += 2)", valueTiles));
  body.line("unsigned bv[4];");
  body.line("stride_ldmatrix_x4_trans(bv, valueTile + (ks * 16 + lane % 8 + "
            "lane / 8 % 2 * 8) * {} + warp * {} + t * 8 + lane / 16 * 8);",
            valuePitch, warpDims);
  body.line("stride_mma16816(tc[t], pa, {{bv[0], bv[1]}}, {}{{}});", element);
  body.line("stride_mma16816(tc[t + 1], pa, {{bv[2], bv[3]}}, {}{{}});",
            element);
  body.close();
  body.close();
  body.close();
}

void AttentionPrinter::printMmaSums(Code &body) {
  int64_t warpDims = valueTiles * 8;
  body.line("STRIDE_SHARED(float, valueSumOf, {}); // [row][value dim]",
            rows * valueDim);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int t = 0; t < {}; ++t)", valueTiles));
  body.line("#pragma unroll");
  body.open("for (int i = 0; i < 4; ++i)");
  body.line("const int r = lane / 4 + i / 2 * 8, d = warp * {} + t * 8 + "
            "lane % 4 * 2 + i % 2;",
            warpDims);
  body.line("if (r < {}) valueSumOf[r * {} + d] = tc[t][i];", rows, valueDim);
  body.close();
  body.close();
  body.line("__syncthreads();");
  openValueGroups(body);
  body.line("#pragma unroll");
  body.line("for (int e = 0; e < 4; ++e) acc[p][e] = valueSumOf[r * {} + d0 "
            "+ e];",
            valueDim);
  body.close();
}

void AttentionPrinter::printKeyPartsSum(Code &body) {
  if (keyParts == 1)
    return;
  // Parts 1.. leave their sums in shared memory; part 0's threads (the
  // first valueGroups, which openValueGroups's loops take) add them.
  body.line("STRIDE_SHARED(float, partSums, {}); // [part - 1][group][4]",
            (keyParts - 1) * valueGroups * 4);
  body.open(fmt::format("if (threadIdx.x >= {})", valueGroups));
  body.line("#pragma unroll");
  body.line("for (int e = 0; e < 4; ++e) partSums[(threadIdx.x - {}) * 4 + e] "
            "= acc[0][e];",
            valueGroups);
  body.close();
  body.line("__syncthreads();");
  body.open(fmt::format("if (threadIdx.x < {})", valueGroups));
  body.open(fmt::format("for (int part = 1; part < {}; ++part)", keyParts));
  body.line("#pragma unroll");
  body.line("for (int e = 0; e < 4; ++e) acc[0][e] += partSums[((part - 1) * "
            "{} + threadIdx.x) * 4 + e];",
            valueGroups);
  body.close();
  body.close();
}

LogicalResult AttentionPrinter::printStagedResult(Code &body) {
  int64_t stateFloats = kStagedKvStateHeader + valueDim;
  // One busy block: its state is the result (0 without valid keys).
  body.open("if (busy <= 1)");
  openValueGroups(body);
  body.open("for (int i = 0; i < 4; ++i)");
  body.line("const {} e = d0 + i;", idx);
  body.line("const float L = rowSum[r], A = busy == 1 ? acc[p][i] : 0.0f;");
  if (failed(storeResult(body)))
    return failure();
  body.close();
  body.close();
  body.line("return;");
  body.close();
  // The block's state, [unit][slice][row]: m, l, padding, the sums.
  body.line("float *__restrict__ partials = reinterpret_cast<float "
            "*>(scratch0);");
  body.line("unsigned *__restrict__ arrivals = reinterpret_cast<unsigned "
            "*>(scratch1);");
  openValueGroups(body);
  body.line("float *state = partials + ((unit * {} + slice) * {} + r) * {};",
            slices, rows, stateFloats);
  body.line("if (d0 == 0) {{ state[0] = rowMax[r]; state[1] = rowSum[r]; }}");
  body.line("*reinterpret_cast<stride_vecn<float, 4> *>(state + {} + d0) = "
            "{{{{acc[p][0], acc[p][1], acc[p][2], acc[p][3]}}}};",
            kStagedKvStateHeader);
  body.close();
  body.line("__shared__ bool lastArrived;");
  body.line("__threadfence(); // the state before the arrival");
  body.line("__syncthreads();");
  body.line("if (threadIdx.x == 0) lastArrived = atomicAdd(&arrivals[unit], "
            "1u) == unsigned(busy - 1);");
  body.line("__syncthreads();");
  body.line("if (!lastArrived) return;");
  body.line("__threadfence(); // the other blocks' states after their "
            "arrivals");
  body.line("if (threadIdx.x == 0) arrivals[unit] = 0;");
  return printStagedCombine(body);
}

LogicalResult AttentionPrinter::printStagedCombine(Code &body) {
  // A warp a row: the slices' maximum, then each slice's weight (0 for a
  // slice without a key, m = -inf) and the weighted sum of their sums;
  // then the thread's groups of 4 value dims (as in the chunks), the
  // slices' sums read four floats at a time, kStagedCombineBatch slices'
  // loads in flight, added in slice order. Every state read goes back to 0.
  int64_t stateFloats = kStagedKvStateHeader + valueDim;
  int64_t batch = std::min<int64_t>(slices, kStagedCombineBatch);
  std::string stateOf =
      fmt::format("(partials + ((unit * {} + s) * {} + r) * {})", slices, rows,
                  stateFloats);
  body.line("STRIDE_SHARED(float, sliceWeight, {}); // [row][slice]",
            rows * slices);
  body.open(fmt::format("for (int r = warp; r < {}; r += {})", rows, warps));
  printWarpMaximum(body, kAttentionMinusInf,
                   fmt::format("for ({} s = lane; s < busy; s += 32)", idx),
                   fmt::format("__ldcg({})", stateOf));
  body.open(fmt::format("for ({} s = lane; s < busy; s += 32)", idx));
  body.line("float *state = {};", stateOf);
  body.line("const float m = __ldcg(state);");
  body.line("const float w = m == {} ? 0.0f : stride_exp(m - top);",
            kAttentionMinusInf);
  body.line("sliceWeight[r * {} + s] = w;", slices);
  body.line("if (w != 0.0f) sum += w * __ldcg(state + 1);");
  body.line("state[0] = 0.0f; state[1] = 0.0f; // scratch back to zeros");
  body.close();
  printWarpReduction(body, "sum", "stride_add");
  body.line("if (lane == 0) rowSum[r] = sum;");
  body.close();
  body.line("__syncthreads();");
  openValueGroups(body);
  body.line("float sums[4] = {{}};");
  body.open(fmt::format("for ({0} s0 = 0; s0 < busy; s0 += {1})", idx, batch));
  body.line("stride_vecn<float, 4> part[{}];", batch);
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", batch));
  body.line("const {} s = s0 + i;", idx);
  body.line("part[i] = s < busy ? stride_ldcg4({} + {} + d0) : "
            "stride_vecn<float, 4>{{}};",
            stateOf, kStagedKvStateHeader);
  body.close();
  body.line("#pragma unroll");
  body.open(fmt::format("for (int i = 0; i < {}; ++i)", batch));
  body.line("const {} s = s0 + i;", idx);
  body.line("if (s >= busy) break;");
  body.line("const float w = sliceWeight[r * {} + s];", slices);
  body.line("// a weight of 0 adds nothing, whatever the sums");
  body.line("#pragma unroll");
  body.line("for (int x = 0; x < 4; ++x) if (w != 0.0f) sums[x] += "
            "part[i].v[x] * w;");
  body.line("*reinterpret_cast<stride_vecn<float, 4> *>({} + {} + d0) = "
            "stride_vecn<float, 4>{{}};",
            stateOf, kStagedKvStateHeader);
  body.close();
  body.close();
  body.open("for (int i = 0; i < 4; ++i)");
  body.line("const {} e = d0 + i;", idx);
  body.line("const float L = rowSum[r], A = sums[i];");
  if (failed(storeResult(body)))
    return failure();
  body.close();
  body.close();
  return success();
}

} // namespace stride
