//===- CudnnSdpa.cpp - The cuDNN attention routines ------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `cudnn.sdpa_forward` and `cudnn.sdpa_backward`: scaled dot-product
// attention as cuDNN's fused flash-attention engines compute it. The
// compiler decides everything (python-free-docs/attention.md); these
// routines check the step's descriptor when the executable loads, then, in
// each invocation, build the cuDNN operation graph that cuDNN's frontend
// builds for the same attention (matmul, pointwise, reduction and reshape
// operations that the backend recognizes and fuses), choose an execution
// plan (the heuristics' first that finalizes) and allocate the workspace
// it needs. A run is one cudnnBackendExecute on the invocation's stream.
// With InvocationOptions::tuneLibraryCalls, the invocation's first run
// first times every plan the heuristics' configurations finalize as, over
// its own buffers, and keeps the fastest for the invocation's steps of
// that problem (tune).
//
// Over symbolic sizes (a descriptor with size expressions) the load checks
// the problem at the symbols' largest values, which the buffers are sized
// for, and builds nothing; each shape an invocation binds (bindShape)
// takes the problem at its values, whose graph and plan are built once
// per distinct problem and kept for the step's last kSdpaShapes problems,
// least recently used evicted, and shared with the invocation's other
// steps of the same problem (python-free-docs/attention.md, "Over
// symbolic sizes"). Tuning times the problem of the shape the invocation
// first ran; the other shapes take the heuristics' first plan.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"
#include "CudnnGraph.h"
#include "CudnnSession.h"
#include "DescriptorReader.h"
#include "LibraryTiming.h"
#include "RuntimeImpl.h"
#include "ShapeGraphs.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <list>
#include <map>

namespace stride {

namespace {

//--- The descriptor ----------------------------------------------------===//

struct DTypeEntry {
  const char *name;
  cudnnDataType_t type;
};
constexpr DTypeEntry kDTypes[] = {{"bf16", CUDNN_DATA_BFLOAT16},
                                  {"f16", CUDNN_DATA_HALF}};

enum class Direction { Forward, Backward };

// The uid of each tensor of the graphs in the variant pack.
enum Uid : int64_t {
  kQ = 1, kK, kV, kO, kStats, kBias, kDO, kDQ, kDK, kDV,
  // Passed by value.
  kScale, kNegativeInfinity, kOne,
  // In the routine's workspace (backward).
  kDQAccumulator, kSoftmaxSum
};

/// A 4-D tensor of the step: what messages call it, its uid in the graph,
/// its layout (in elements) and element size.
struct Operand {
  const char *name;
  Uid uid;
  Dims dims, strides;
  int64_t elementBytes;
  /// Where element 0 is in the buffer, in elements (field `offsets`).
  int64_t offset = 0;
};

/// Dimensions 2 and 3 swapped: the transposed view of the same elements.
Dims swapLast(Dims d) {
  std::swap(d[2], d[3]);
  return d;
}

/// A `cudnn.sdpa_*` descriptor, read and checked.
struct SdpaProblem {
  Direction direction = Direction::Forward;
  const DTypeEntry *dtype = nullptr;
  int64_t b = 0, hq = 0, hkv = 0, sq = 0, skv = 0, dqk = 0, dv = 0;
  float scale = 0;
  bool causal = false, stats = false, bias = false;
  Dims qStrides{}, kStrides{}, vStrides{}, oStrides{};
  Dims doStrides{}, dqStrides{}, dkStrides{}, dvStrides{};
  Dims biasDims{}, biasStrides{};
  /// Each operand's element offset in its buffer, in buffer order (the
  /// optional field `offsets`; zeros without it).
  std::vector<int64_t> offsets;

  bool backward() const { return direction == Direction::Backward; }
  Dims qDims() const { return {b, hq, sq, dqk}; }
  Dims kDims() const { return {b, hkv, skv, dqk}; }
  Dims vDims() const { return {b, hkv, skv, dv}; }
  Dims oDims() const { return {b, hq, sq, dv}; }
  Dims scoreDims() const { return {b, hq, sq, skv}; }
  Dims rowDims() const { return {b, hq, sq, 1}; }

  /// The step's buffers, in order.
  std::vector<Operand> operands() const {
    int64_t e = 2; // bf16 and f16
    Operand q{"q", kQ, qDims(), qStrides, e}, k{"k", kK, kDims(), kStrides, e},
        v{"v", kV, vDims(), vStrides, e}, o{"o", kO, oDims(), oStrides, e};
    Operand statsOperand{"stats", kStats, rowDims(), denseStrides(rowDims()),
                         4};
    Operand biasOperand{"bias", kBias, biasDims, biasStrides, e};
    std::vector<Operand> all = {q, k, v};
    if (!backward()) {
      if (bias)
        all.push_back(biasOperand);
      all.push_back(o);
      if (stats)
        all.push_back(statsOperand);
      return withOffsets(std::move(all));
    }
    all.push_back(o);
    all.push_back({"do", kDO, oDims(), doStrides, e});
    all.push_back(statsOperand);
    if (bias)
      all.push_back(biasOperand);
    all.push_back({"dq", kDQ, qDims(), dqStrides, e});
    all.push_back({"dk", kDK, kDims(), dkStrides, e});
    all.push_back({"dv", kDV, vDims(), dvStrides, e});
    return withOffsets(std::move(all));
  }

  std::vector<Operand> withOffsets(std::vector<Operand> all) const {
    for (size_t i = 0; i < all.size() && i < offsets.size(); ++i)
      all[i].offset = offsets[i];
    return all;
  }

  /// "bf16 forward, b=2 h_q=12 h_kv=12 s_q=128 s_kv=128 d_qk=64 d_v=64,
  /// causal, bias [1, 1, 128, 128], stats".
  std::string describe() const {
    return std::string(dtype->name) +
           (backward() ? " backward" : " forward") + ", b=" + str(b) +
           " h_q=" + str(hq) + " h_kv=" + str(hkv) + " s_q=" + str(sq) +
           " s_kv=" + str(skv) + " d_qk=" + str(dqk) + " d_v=" + str(dv) +
           (causal ? ", causal" : "") +
           (bias ? ", bias " + listDims(biasDims) : "") +
           (stats && !backward() ? ", stats" : "");
  }

  /// What cuDNN's graph and plan depend on: everything but the offsets
  /// (applied to the addresses at each run). Steps of equal keys share
  /// one plan (a model's layers).
  std::string planKey() const {
    std::string key = "sdpa " + describe() + " scale " + str(std::bit_cast<uint32_t>(scale));
    for (const Operand &o : operands())
      key.append(" ").append(o.name).append(listDims(o.dims)).append(
          listDims(o.strides));
    return key;
  }
};

/// The fields of a direction's descriptor.
std::vector<std::string> fieldsOf(Direction d) {
  std::vector<std::string> fields = {
      "dtype",     "dims",   "q_strides", "k_strides", "v_strides",
      "o_strides", "scale",  "causal",    "bias",      "bias_dims",
      "bias_strides", "offsets"};
  if (d == Direction::Forward)
    fields.push_back("stats");
  else
    for (const char *f : {"do_strides", "dq_strides", "dk_strides",
                          "dv_strides"})
      fields.push_back(f);
  return fields;
}

constexpr const char *kStridesAre =
    "batch, head, token and head_dim strides in elements";

Dims strides(DescriptorReader &r, const char *name) {
  std::vector<int64_t> v = r.integers(name, 4, kStridesAre);
  return {v[0], v[1], v[2], v[3]};
}

/// A field that must be 0 or 1.
bool flag(DescriptorReader &r, const char *name) {
  int64_t v = r.integer(name);
  if (v != 0 && v != 1)
    r.fail("field " + quoted(name) + " is " + str(v) + "; it must be 0 or 1");
  return v == 1;
}

void readFields(DescriptorReader &r, SdpaProblem &p) {
  p.dtype = r.choice("dtype", kDTypes);
  std::vector<int64_t> dims =
      r.integers("dims", 7, "b, h_q, h_kv, s_q, s_kv, d_qk, d_v");
  p.b = dims[0], p.hq = dims[1], p.hkv = dims[2], p.sq = dims[3];
  p.skv = dims[4], p.dqk = dims[5], p.dv = dims[6];
  p.qStrides = strides(r, "q_strides");
  p.kStrides = strides(r, "k_strides");
  p.vStrides = strides(r, "v_strides");
  p.oStrides = strides(r, "o_strides");
  if (p.backward()) {
    p.doStrides = strides(r, "do_strides");
    p.dqStrides = strides(r, "dq_strides");
    p.dkStrides = strides(r, "dk_strides");
    p.dvStrides = strides(r, "dv_strides");
  }
  int64_t bits = r.integer("scale");
  double scale = std::bit_cast<double>(bits);
  if (!std::isfinite(scale) ||
      std::fabs(scale) > double(std::numeric_limits<float>::max()))
    r.fail("field 'scale' holds the bits of " + std::to_string(scale) +
           ", which is not a finite float");
  p.scale = float(scale);
  p.causal = flag(r, "causal");
  if (!p.backward())
    p.stats = flag(r, "stats");
  p.bias = flag(r, "bias");
  if (p.bias) {
    std::vector<int64_t> d = r.integers(
        "bias_dims", 4, "b or 1, h_q or 1, s_q or 1, s_kv or 1");
    p.biasDims = {d[0], d[1], d[2], d[3]};
    p.biasStrides = strides(r, "bias_strides");
  } else {
    for (const char *name : {"bias_dims", "bias_strides"})
      if (r.has(name))
        r.fail("has field " + quoted(name) + ", but field 'bias' is 0");
  }
  if (r.has("offsets"))
    p.offsets = r.integers("offsets", p.operands().size(),
                           "each buffer's element offset, in buffer order");
  r.refuseUnknownFields();
}

/// Each value within its range.
void checkRanges(DescriptorReader &r, const SdpaProblem &p) {
  const char *names[] = {"b", "h_q", "h_kv", "s_q", "s_kv", "d_qk", "d_v"};
  int64_t values[] = {p.b, p.hq, p.hkv, p.sq, p.skv, p.dqk, p.dv};
  for (size_t i = 0; i < 7; ++i)
    if (values[i] < 1)
      r.fail("field 'dims' gives " + std::string(names[i]) + " = " +
             str(values[i]) + "; each of b, h_q, h_kv, s_q, s_kv, d_qk, d_v "
             "must be at least 1");
  if (p.hkv >= 1 && p.hq % p.hkv != 0)
    r.fail("field 'dims' gives h_q = " + str(p.hq) + " and h_kv = " +
           str(p.hkv) + "; h_q must be a multiple of h_kv (grouped-query "
           "attention)");
  if (p.bias) {
    Dims full = p.scoreDims();
    for (size_t i = 0; i < 4; ++i)
      if (p.biasDims[i] != 1 && p.biasDims[i] != full[i]) {
        r.fail("field 'bias_dims' is " + listDims(p.biasDims) +
               "; each must be 1 (broadcast) or the scores' [b, h_q, s_q, "
               "s_kv] = " + listDims(full));
        break;
      }
  }
}

std::optional<int64_t> reachBytes(const Operand &o) {
  return tensorReachBytes(o.dims, o.strides, o.offset, o.elementBytes);
}

/// Each operand's strides and extent in its buffer.
void checkBuffers(DescriptorReader &r, const SdpaProblem &p,
                  const std::vector<int64_t> &bufferBytes) {
  std::vector<Operand> operands = p.operands();
  if (bufferBytes.size() != operands.size()) {
    std::string names;
    for (const Operand &o : operands)
      names += std::string(names.empty() ? "" : ", ") + o.name;
    r.fail("with bias " + str(p.bias) +
           (p.backward() ? "" : " and stats " + str(p.stats)) + " takes " +
           str(int64_t(operands.size())) + " buffers (" + names +
           "), but the step has " + str(int64_t(bufferBytes.size())));
    return;
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand &o = operands[i];
    std::string field = quoted(std::string(o.name) + "_strides");
    if (o.offset < 0 || o.offset * o.elementBytes % 16 != 0) {
      r.fail("field 'offsets' gives " + std::string(o.name) + " the offset " +
             str(o.offset) + "; each must be at least 0 and a multiple of "
             "16 bytes, as cuDNN reads aligned addresses");
      continue;
    }
    if (o.uid == kStats)
      ; // dense floats: its strides are not a field
    else if (o.strides[0] < 0 || o.strides[1] < 0 || o.strides[2] < 0) {
      r.fail("field " + field + " is " + listDims(o.strides) +
             "; strides must not be negative");
      continue;
    } else if (o.strides[3] != 1) {
      r.fail("field " + field + " is " + listDims(o.strides) +
             "; its last stride (" +
             (o.uid == kBias ? "s_kv's" : "head_dim's") +
             ") must be 1, as cuDNN reads it contiguously");
      continue;
    }
    std::optional<int64_t> reach = reachBytes(o);
    if (!reach)
      r.fail("gives " + std::string(o.name) + " dims " + listDims(o.dims) +
             " and strides " + listDims(o.strides) +
             " whose extent overflows 64-bit integers");
    else if (*reach > bufferBytes[i])
      r.fail("gives " + std::string(o.name) + " dims " + listDims(o.dims) +
             " and strides " + listDims(o.strides) + ", which reach byte " +
             str(*reach) + " of its buffer (buffer " + str(int64_t(i)) +
             " of the step), which has " + str(bufferBytes[i]) + " bytes");
  }
}

Result<SdpaProblem> readProblem(const LibraryCallContext &context,
                                Direction direction) {
  DescriptorReader r(context, fieldsOf(direction));
  SdpaProblem p;
  p.direction = direction;
  readFields(r, p);
  if (!r.firstError())
    checkRanges(r, p);
  if (!r.firstError())
    checkBuffers(r, p, context.bufferBytes);
  if (r.firstError())
    return *r.firstError();
  return p;
}

/// Versions of cuDNN whose attention backward Stride cannot use; the
/// caller puts where the step is before the message. Without
/// `shapeKnown` (a step over symbolic sizes when it loads), the rule on
/// s_kv is left to each bound shape.
Status checkVersion(const Cudnn &dnn, const SdpaProblem &p,
                    bool shapeKnown = true) {
  if (!p.backward())
    return Status::ok();
  std::string which = "cuDNN " + dnn.versionText() + " (" + dnn.path + ")";
  int64_t version = dnn.version();
  if (version == 91000 || version == 91001)
    return makeError(ErrorCode::Incompatible,
                     which + " has a known bug in the backward "
                     "of flash attention; install cuDNN 9.10.2 or newer");
  if (shapeKnown && version < 91501 && p.skv % 128 != 0)
    return makeError(ErrorCode::Incompatible,
                     which + " needs a workaround (a padding "
                     "mask) for the backward of flash attention when s_kv "
                     "is not a multiple of 128 (here " + str(p.skv) +
                     "), which Stride does not apply; install cuDNN 9.15.1 "
                     "or newer");
  return Status::ok();
}

//--- The graphs ----------------------------------------------------------===//

/// The backend's graph of one step, built as cuDNN's frontend builds its
/// composite SDPA nodes: every intermediate a float, but the probabilities
/// fed to a matmul, which have the inputs' type.
class SdpaGraph {
public:
  /// `version`: cuDNN's, which the graph may depend on.
  SdpaGraph(const Cudnn &dnn, const SdpaProblem &p, int64_t version)
      : g(dnn), p(p), version(version) {}

  CudnnGraph &build() {
    p.backward() ? buildBackward() : buildForward();
    return g;
  }
  /// The scalars the built graph takes by value (CudnnGraph::scalars).
  const std::vector<std::pair<int64_t, float>> &scalars() const {
    return g.scalars();
  }

private:
  const GraphTensor *input(const Operand &o) {
    Dims dims = o.dims, strides = o.strides;
    if (o.uid == kBias && p.backward())
      broadcastQueryRows(dims, strides);
    return g.tensor(o.uid, o.uid == kStats ? CUDNN_DATA_FLOAT : p.dtype->type,
                    dims, strides);
  }
  /// A backward bias broadcast over the query rows as cuDNN's backward
  /// reads it right: the rows at full size with stride 0, as PyTorch gives
  /// it. With a rows' dim of 1, cuDNN 9.19's backward computed a wrong dQ
  /// (and dK) on an H200 (StrideCudnnGpuTests, bench/NOTES.md section 65).
  void broadcastQueryRows(Dims &dims, Dims &strides) const {
    constexpr size_t kRows = 2;
    if (dims[kRows] == 1 && p.sq > 1) {
      dims[kRows] = p.sq;
      strides[kRows] = 0;
    }
  }
  const GraphTensor *operand(Uid uid) {
    for (const Operand &o : p.operands())
      if (o.uid == uid)
        return input(o);
    return nullptr;
  }
  /// K (or V) as the matmuls read it: [b, h_kv, d, s_kv].
  const GraphTensor *transposedOperand(Uid uid) {
    for (const Operand &o : p.operands())
      if (o.uid == uid)
        return g.tensor(o.uid, p.dtype->type, swapLast(o.dims),
                        swapLast(o.strides));
    return nullptr;
  }
  const GraphTensor *floats(const Dims &dims) {
    return g.intermediate(CUDNN_DATA_FLOAT, dims);
  }

  /// S = scale * Q K^T (+ bias), causally masked: [b, h_q, s_q, s_kv].
  const GraphTensor *scores(const GraphTensor *q, const GraphTensor *kT,
                            const GraphTensor *scale) {
    Dims d = p.scoreDims();
    const GraphTensor *s = g.matmul(q, kT, floats(d));
    s = g.pointwise(CUDNN_POINTWISE_MUL, s, scale, floats(d));
    if (p.bias)
      s = g.pointwise(CUDNN_POINTWISE_ADD, s, operand(kBias), floats(d));
    if (!p.causal)
      return s;
    // Top-left aligned: query i sees keys j <= i.
    const GraphTensor *row = g.index(s, 2), *column = g.index(s, 3);
    const GraphTensor *keep =
        g.pointwise(CUDNN_POINTWISE_CMP_GE, row, column,
                    g.intermediate(CUDNN_DATA_BOOLEAN, d), CUDNN_DATA_BOOLEAN);
    return g.select(s, g.scalar(kNegativeInfinity, negativeInfinity()), keep,
                    floats(d));
  }

  /// What the masked scores become: -inf, or the lowest float for cuDNN
  /// before 9.10 (as the frontend chooses).
  float negativeInfinity() const {
    return version >= 91000 ? -std::numeric_limits<float>::infinity()
                            : std::numeric_limits<float>::lowest();
  }

  void buildForward() {
    const GraphTensor *scale = g.scalar(kScale, p.scale);
    const GraphTensor *s =
        scores(operand(kQ), transposedOperand(kK), scale);
    Dims d = p.scoreDims(), rows = p.rowDims();
    const GraphTensor *max =
        g.reduction(CUDNN_REDUCE_TENSOR_MAX, s, floats(rows));
    const GraphTensor *shifted =
        g.pointwise(CUDNN_POINTWISE_SUB, s, max, floats(d));
    const GraphTensor *e =
        g.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, floats(d));
    const GraphTensor *sum =
        g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, floats(rows));
    // logsumexp = max + log(sum), natural log. Always written: cuDNN 9.19
    // on an H200 has no engine for the forward without it (measured); a
    // step that asks for none gets it in the workspace.
    const GraphTensor *log =
        g.pointwise(CUDNN_POINTWISE_LOG, sum, nullptr, floats(rows));
    g.pointwise(CUDNN_POINTWISE_ADD, max, log,
                p.stats ? operand(kStats)
                        : g.tensor(kStats, CUDNN_DATA_FLOAT, rows,
                                   denseStrides(rows)));
    const GraphTensor *probabilities = g.pointwise(
        CUDNN_POINTWISE_DIV, e, sum, g.intermediate(p.dtype->type, d));
    g.matmul(probabilities, operand(kV), operand(kO));
  }

  /// A^T B for one of dK, dV: `aT` is [b, h_q, s_kv, s_q]; with fewer
  /// heads than Q, the product per query head summed over each group.
  void headGradient(const GraphTensor *aT, const GraphTensor *b,
                    const GraphTensor *out) {
    if (p.hq == p.hkv) {
      g.matmul(aT, b, out);
      return;
    }
    Dims full = {p.b, p.hq, p.skv, out->dims[3]};
    const GraphTensor *perHead =
        g.matmul(aT, b, g.intermediate(p.dtype->type, full));
    g.reduction(CUDNN_REDUCE_TENSOR_ADD, perHead, out);
  }

  /// [b, h_q, s_q, s_kv] viewed as [b, h_q, s_kv, s_q] in the inputs' type.
  const GraphTensor *transposedScores(const GraphTensor *x) {
    Dims t = swapLast(p.scoreDims());
    Dims strides = swapLast(denseStrides(p.scoreDims()));
    return g.reshape(x, g.intermediate(p.dtype->type, t, strides));
  }

  void buildBackward() {
    Dims d = p.scoreDims(), rows = p.rowDims();
    const GraphTensor *q = operand(kQ), *kT = transposedOperand(kK),
                      *vT = transposedOperand(kV), *dO = operand(kDO);
    const GraphTensor *scale = g.scalar(kScale, p.scale);
    // D = rowsum(dO * O), kept in the workspace.
    const GraphTensor *dOO =
        g.pointwise(CUDNN_POINTWISE_MUL, dO, operand(kO), floats(p.oDims()));
    const GraphTensor *rowSum =
        g.reduction(CUDNN_REDUCE_TENSOR_ADD, dOO, floats(rows));
    const GraphTensor *softmaxSum = g.pointwise(
        CUDNN_POINTWISE_MUL, rowSum, g.scalar(kOne, 1),
        g.tensor(kSoftmaxSum, CUDNN_DATA_FLOAT, rows, denseStrides(rows)));
    // P = exp(S - stats); dV = P^T dO.
    const GraphTensor *s = scores(q, kT, scale);
    const GraphTensor *shifted =
        g.pointwise(CUDNN_POINTWISE_SUB, s, operand(kStats), floats(d));
    const GraphTensor *e =
        g.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, floats(d));
    headGradient(transposedScores(e), dO, operand(kDV));
    // dS = scale * P * (dO V^T - D); dK = dS^T Q.
    const GraphTensor *dP = g.matmul(dO, vT, floats(d));
    const GraphTensor *dS =
        g.pointwise(CUDNN_POINTWISE_SUB, dP, softmaxSum, floats(d));
    dS = g.pointwise(CUDNN_POINTWISE_MUL, dS, e, floats(d));
    dS = g.pointwise(CUDNN_POINTWISE_MUL, dS, scale, floats(d));
    headGradient(transposedScores(dS), q, operand(kDK));
    // dQ = dS K, accumulated in floats in the workspace.
    const GraphTensor *k = g.reshape(
        kT, g.intermediate(CUDNN_DATA_FLOAT, p.kDims(), p.kStrides));
    const GraphTensor *accumulator = g.tensor(
        kDQAccumulator, CUDNN_DATA_FLOAT, p.qDims(), denseStrides(p.qDims()));
    g.matmul(dS, k, accumulator);
    g.pointwise(CUDNN_POINTWISE_IDENTITY, accumulator, nullptr, operand(kDQ));
  }

  CudnnGraph g;
  const SdpaProblem &p;
  const int64_t version;
};

//--- The step ------------------------------------------------------------===//

/// The cuDNN objects of a step that depend only on its problem: the graph
/// (which also holds the by-value scalars the variant pack points at), the
/// finalized operation graph and the execution plan. Members are destroyed
/// in reverse order: the plan before the graph it was made from.
struct SdpaPlan {
  SdpaPlan(const Cudnn &dnn, const SdpaProblem &p, int64_t version)
      : problem(p), graph(dnn, problem, version), key(p.planKey()) {}
  const SdpaProblem problem;
  SdpaGraph graph;
  const std::string key;
  BackendDescriptor opGraph;
  /// The heuristics' first configuration that finalizes; once `tuned`
  /// (SdpaInstance::tune, before the invocation's first run), the fastest.
  ExecutionPlan plan;
  bool tuned = false;
};

/// Where a step's workspace holds what, 256-byte aligned: the plan's own
/// workspace first, then (backward) dQ's float accumulator and D, the
/// rows' sums of dO * O, or (a forward without stats) the statistics no
/// buffer of the step holds (buildForward).
struct WorkspaceLayout {
  /// The plan's own workspace that the layout leaves room for.
  int64_t planBytes = 0;
  int64_t accumulator = 0, accumulatorBytes = 0, rows = 0, total = 0;

  WorkspaceLayout(const SdpaProblem &p, int64_t planBytes)
      : planBytes(planBytes), accumulator(alignUp(planBytes)),
        rows(accumulator), total(planBytes) {
    int64_t rowBytes = p.b * p.hq * p.sq * 4;
    if (p.backward()) {
      accumulatorBytes = p.b * p.hq * p.sq * p.dqk * 4;
      rows = accumulator + alignUp(accumulatorBytes);
      total = rows + rowBytes;
    } else if (!p.stats) {
      total = rows + rowBytes;
    }
  }
};

/// What cudnnBackendExecute is given besides the plan: each tensor's uid
/// and address (the step's buffers, filled per run; the scalars by value;
/// the workspace's tensors), and the workspace.
struct VariantPack {
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
  void *workspace = nullptr;
  /// dQ's accumulator, zeroed before each run for cuDNN before 9.6.
  CUdeviceptr accumulator = 0;
  int64_t accumulatorBytes = 0;
};

/// Problems a step over symbolic sizes keeps planned: the current shape's
/// and those of the shapes whose CUDA graphs the invocation keeps
/// (kShapeGraphs), so that no kept graph runs a destroyed plan.
constexpr size_t kSdpaShapes = kShapeGraphs + 1;

/// A `cudnn.sdpa_*` step, ready for any invocation.
class PreparedSdpa final : public PreparedLibraryCall {
public:
  PreparedSdpa(const Cudnn &dnn, const CudaDriver &cu, SdpaProblem p,
               std::vector<int64_t> bufferBytes, bool symbolic)
      : dnn(dnn), cu(cu), p(std::move(p)), version(dnn.version()),
        bufferBytes(std::move(bufferBytes)), symbolic(symbolic) {}

  Result<std::unique_ptr<LibraryCallInstance>>
  instantiate(LibrarySessions &sessions) const override;

  const Cudnn &dnn;
  const CudaDriver &cu;
  /// The problem as the module states it (at the symbols' largest values).
  const SdpaProblem p;
  /// cuDNN's version when the step was prepared.
  const int64_t version;
  const std::vector<int64_t> bufferBytes;
  /// Whether the descriptor has size expressions: planned per bound shape.
  const bool symbolic;
};

/// A `cudnn.sdpa_*` step in one invocation: its graph, execution plan and
/// workspace (WorkspaceLayout).
class SdpaInstance final : public LibraryCallInstance {
public:
  SdpaInstance(const PreparedSdpa &step, std::shared_ptr<CudnnSession> session)
      : step(step), session(std::move(session)) {}

  /// A static step is planned now; one over symbolic sizes at each shape
  /// the invocation binds.
  Status create() { return step.symbolic ? Status::ok() : use(step.p); }

  /// The problem at the bound symbols' values, checked against the step's
  /// buffers (sized at the largest values) and cuDNN's version.
  Status bindShape(const LibraryCallStep &instantiated) override {
    Result<SdpaProblem> next = readProblem(
        LibraryCallContext{step.cu, instantiated, step.bufferBytes,
                           "the step"},
        step.p.direction);
    if (!next)
      return next.error();
    if (Status s = checkVersion(step.dnn, *next); !s)
      return s;
    return use(*next);
  }

  Status enqueue(const uint64_t *buffers, CUstream stream) override {
    if (!shared) // the invocation binds a shape before any run
      return makeError(ErrorCode::Internal, "no shape bound to the call");
    // Each step of a tuned plan's problem lays its workspace out again
    // (tune); a step that did not would hand cuDNN too little.
    if (shared->plan.workspaceBytes > layoutPlanBytes)
      return makeError(ErrorCode::Internal,
                       "the execution plan needs " +
                           str(shared->plan.workspaceBytes) +
                           " bytes of workspace, the step holds room for " +
                           str(layoutPlanBytes));
    return execute(shared->plan, pack, buffers, stream);
  }

  /// Times every configuration of cuDNN's heuristics that finalizes as an
  /// execution plan for the bound problem (buildExecutionPlans;
  /// timeLibraryCalls: kTuningTimedCalls runs each, after one untimed)
  /// over the step's buffers and keeps the fastest in the plan that the
  /// invocation's steps of the problem share, unless one of them tuned it
  /// before; then lays the step's workspace out for the plan kept. Each
  /// run writes what the step writes, and the workspace.
  Status tune(const uint64_t *buffers, CUstream stream) override {
    if (!shared)
      return makeError(ErrorCode::Internal, "no shape bound to the call");
    if (!shared->tuned)
      if (Status s = keepFastestPlan(buffers, stream); !s)
        return s;
    return use(shared->problem);
  }

private:
  static void *device(uint64_t address) {
    return reinterpret_cast<void *>(address);
  }

  /// Enqueues `plan` on `stream` over the step's `buffers` and `with`'s
  /// other tensors and workspace.
  Status execute(const ExecutionPlan &plan, VariantPack &with,
                 const uint64_t *buffers, CUstream stream) {
    const Cudnn &dnn = step.dnn;
    const SdpaProblem &p = shared->problem;
    std::vector<Operand> operands = p.operands();
    for (size_t i = 0; i < operands.size(); ++i)
      with.pointers[i] = device(buffers[i] + uint64_t(operands[i].offset *
                                                      operands[i].elementBytes));
    dnn.clearLastError();
    if (cudnnStatus_t s = dnn.cudnnSetStream(session->handle, stream))
      return makeError(cudnnErrorCode(s), dnn.failure("cudnnSetStream", s));
    // Before 9.6, cuDNN expects dQ's accumulator zeroed.
    if (p.backward() && step.version < 90600)
      if (CUresult r = step.cu.cuMemsetD8Async(
              with.accumulator, 0, size_t(with.accumulatorBytes), stream))
        return makeError(cudaErrorCode(r), "zeroing dQ's accumulator: " +
                                               step.cu.errorText(r));
    return executePlan(dnn, session->handle, plan, with.uids, with.pointers,
                       with.workspace);
  }

  /// The variant pack of the shared plan over `memory` laid out as `l`.
  VariantPack packOver(const DeviceMemory *memory,
                       const WorkspaceLayout &l) const {
    const SdpaProblem &p = shared->problem;
    auto at = [&](int64_t offset) { return memory->at(offset); };
    VariantPack pack;
    for (const Operand &o : p.operands())
      pack.uids.push_back(o.uid);
    pack.pointers.assign(pack.uids.size(), nullptr);
    for (const auto &[uid, value] : shared->graph.scalars()) {
      pack.uids.push_back(uid);
      pack.pointers.push_back(const_cast<float *>(&value));
    }
    if (p.backward()) {
      pack.accumulator = at(l.accumulator);
      pack.accumulatorBytes = l.accumulatorBytes;
      pack.uids.push_back(kDQAccumulator);
      pack.pointers.push_back(device(at(l.accumulator)));
      pack.uids.push_back(kSoftmaxSum);
      pack.pointers.push_back(device(at(l.rows)));
    } else if (!p.stats) {
      pack.uids.push_back(kStats);
      pack.pointers.push_back(device(at(l.rows)));
    }
    pack.workspace = l.total ? device(at(0)) : nullptr;
    return pack;
  }

  /// Calls `p` from now on: its plan (built on its first use), the
  /// workspace it needs (grown where it needs more: a kept CUDA graph of
  /// another shape may still point into the smaller one, which lives as
  /// long as the instance), and its variant pack.
  Status use(const SdpaProblem &p) {
    Result<std::shared_ptr<SdpaPlan>> found = planOf(p);
    if (!found)
      return found.error();
    WorkspaceLayout l(p, (*found)->plan.workspaceBytes);
    if (l.total > workspaceBytes) {
      auto grown = std::make_unique<DeviceMemory>(step.cu);
      if (Status s = grown->allocate(l.total); !s)
        return s;
      if (workspace)
        retired.push_back(std::move(workspace));
      workspace = std::move(grown);
      workspaceBytes = l.total;
    }
    shared = std::move(*found);
    layoutPlanBytes = l.planBytes;
    pack = packOver(workspace.get(), l);
    return Status::ok();
  }

  /// Replaces the shared plan by the fastest configuration over `buffers`
  /// (tune). The candidates run over the step's workspace, or over one of
  /// the size that the largest of them needs, freed after.
  Status keepFastestPlan(const uint64_t *buffers, CUstream stream) {
    SdpaPlan &plan = *shared;
    step.dnn.clearLastError();
    Result<std::vector<ExecutionPlan>> candidates =
        buildExecutionPlans(step.dnn, session->handle, plan.opGraph,
                            plan.problem.describe());
    if (!candidates)
      return candidates.error();
    int64_t largest = 0;
    for (const ExecutionPlan &candidate : *candidates)
      largest = std::max(largest, candidate.workspaceBytes);
    WorkspaceLayout l(plan.problem, largest);
    DeviceMemory scratch(step.cu);
    const DeviceMemory *memory = workspace.get();
    if (l.total > workspaceBytes) {
      if (Status s = scratch.allocate(l.total); !s)
        return s;
      memory = &scratch;
    }
    VariantPack timing = packOver(memory, l);
    size_t best = 0;
    double bestMs = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < candidates->size(); ++i) {
      Result<double> ms =
          timeLibraryCalls(step.cu, stream, "a cuDNN execution plan", [&] {
            return execute((*candidates)[i], timing, buffers, stream);
          });
      if (!ms)
        return ms.error();
      if (*ms < bestMs) {
        bestMs = *ms;
        best = i;
      }
    }
    plan.plan = std::move((*candidates)[best]);
    plan.tuned = true;
    return Status::ok();
  }

  /// The plan of `p`: the step's own if it planned `p` recently, else the
  /// session's (another step of the same problem, a model's layers), else
  /// built now. A static step's plan stays with the session; a symbolic
  /// step's recent plans stay with the step, the session sharing them
  /// while any step keeps them.
  Result<std::shared_ptr<SdpaPlan>> planOf(const SdpaProblem &p) {
    std::string key = p.planKey();
    for (auto it = recent.begin(); it != recent.end(); ++it)
      if ((*it)->key == key) {
        recent.splice(recent.begin(), recent, it);
        return recent.front();
      }
    Result<std::shared_ptr<SdpaPlan>> plan = sessionPlan(p, key);
    if (!plan)
      return plan.error();
    if (step.symbolic) {
      recent.push_front(*plan);
      if (recent.size() > kSdpaShapes)
        recent.pop_back();
    }
    return plan;
  }

  /// A plan the session keeps (as `const void`, CudnnSession.h): built by
  /// sessionPlan, and tuned in place (tune).
  static std::shared_ptr<SdpaPlan> asPlan(std::shared_ptr<const void> kept) {
    return std::const_pointer_cast<SdpaPlan>(
        std::static_pointer_cast<const SdpaPlan>(std::move(kept)));
  }

  Result<std::shared_ptr<SdpaPlan>> sessionPlan(const SdpaProblem &p,
                                                const std::string &key) {
    if (auto found = session->plans.find(key); found != session->plans.end())
      return asPlan(found->second);
    if (auto found = session->shapePlans.find(key);
        found != session->shapePlans.end())
      if (std::shared_ptr<const void> kept = found->second.lock())
        return asPlan(std::move(kept));
    step.dnn.clearLastError();
    auto built = std::make_shared<SdpaPlan>(step.dnn, p, step.version);
    CudnnGraph &g = built->graph.build();
    if (Status s = g.status(); !s)
      return s.error();
    Result<BackendDescriptor> finalized = g.finalize(session->handle);
    if (!finalized)
      return finalized.error();
    built->opGraph = std::move(*finalized);
    Result<ExecutionPlan> chosen = buildExecutionPlan(
        step.dnn, session->handle, built->opGraph, p.describe());
    if (!chosen)
      return chosen.error();
    built->plan = std::move(*chosen);
    if (step.symbolic)
      session->keepShapePlan(key, built);
    else
      session->plans.emplace(key, built);
    return built;
  }

  const PreparedSdpa &step;
  std::shared_ptr<CudnnSession> session;
  /// The plan of the bound problem (the module's, for a static step).
  std::shared_ptr<SdpaPlan> shared;
  /// Over symbolic sizes, the plans of the step's recent problems, most
  /// recently used first.
  std::list<std::shared_ptr<SdpaPlan>> recent;
  std::unique_ptr<DeviceMemory> workspace;
  /// Smaller workspaces of earlier shapes, which their kept CUDA graphs
  /// may still use.
  std::vector<std::unique_ptr<DeviceMemory>> retired;
  int64_t workspaceBytes = 0;
  /// The plan's own workspace that the bound layout leaves room for.
  int64_t layoutPlanBytes = 0;
  VariantPack pack;
};

Result<std::unique_ptr<LibraryCallInstance>>
PreparedSdpa::instantiate(LibrarySessions &sessions) const {
  Result<std::shared_ptr<CudnnSession>> s = cudnnSession(dnn, sessions);
  if (!s)
    return s.error();
  auto instance = std::make_unique<SdpaInstance>(*this, std::move(*s));
  if (Status created = instance->create(); !created)
    return created.error();
  return std::unique_ptr<LibraryCallInstance>(std::move(instance));
}

Result<std::unique_ptr<PreparedLibraryCall>>
prepareSdpa(const LibraryCallContext &context, Direction direction) {
  Result<SdpaProblem> problem = readProblem(context, direction);
  if (!problem)
    return problem.error();
  Result<const Cudnn *> dnn = loadCudnn(context.where);
  if (!dnn)
    return dnn.error();
  bool symbolic = false;
  for (const DescriptorField &f : context.call.descriptor)
    symbolic |= !f.symbolicInts.empty();
  // Over symbolic sizes each bound shape's s_kv is checked when bound.
  if (Status s = checkVersion(**dnn, *problem, /*shapeKnown=*/!symbolic); !s)
    return prefixError(context.where + ": ", s.error());
  return std::unique_ptr<PreparedLibraryCall>(
      new PreparedSdpa(**dnn, context.cu, std::move(*problem),
                       context.bufferBytes, symbolic));
}

} // namespace

Status buildCudnnSdpaGraph(const LibraryCallContext &context, bool backward) {
  Result<SdpaProblem> problem = readProblem(
      context, backward ? Direction::Backward : Direction::Forward);
  if (!problem)
    return problem.error();
  Result<const Cudnn *> dnn = loadCudnn(context.where);
  if (!dnn)
    return dnn.error();
  SdpaGraph graph(**dnn, *problem, (*dnn)->version());
  Result<BackendDescriptor> finalized = graph.build().finalize(nullptr);
  if (!finalized)
    return finalized.error();
  return Status::ok();
}

Result<std::unique_ptr<PreparedLibraryCall>>
prepareCudnnSdpaForward(const LibraryCallContext &context, LibrarySessions &) {
  return prepareSdpa(context, Direction::Forward);
}

Result<std::unique_ptr<PreparedLibraryCall>>
prepareCudnnSdpaBackward(const LibraryCallContext &context,
                         LibrarySessions &) {
  return prepareSdpa(context, Direction::Backward);
}

} // namespace stride
