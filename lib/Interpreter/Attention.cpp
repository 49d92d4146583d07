//===- Attention.cpp - Attention in the reference interpreter -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride.attention and stride.attention_backward in float64, literally as
// their op descriptions define them: every score of a row, its softmax (a
// row of -inf scores gives P = 0), the weighted sums; and the backward's
// formulas from the given output and logsumexp. Operands are read once into
// dense arrays; each result element is rounded once when written.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace mlir;

namespace stride::interp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A rank-3 or rank-4 tensor as a dense row-major array of doubles.
class Dense {
public:
  Dense() = default;

  /// Zeros of `shape`.
  explicit Dense(Dims shape)
      : shape(std::move(shape)), strides(rowMajorStrides(this->shape)),
        data(count(this->shape), 0.0) {}

  /// Every element of `t`, read once.
  explicit Dense(const Tensor &t) : Dense(t.layout.shape) {
    size_t e = 0;
    forEachIndex(shape, [&](const Dims &index) {
      data[e++] = t.getAsDouble(t.address(index));
    });
  }

  double &at(int64_t b, int64_t h, int64_t i, int64_t d = 0) {
    return data[offset(b, h, i, d)];
  }
  double at(int64_t b, int64_t h, int64_t i, int64_t d = 0) const {
    return data[offset(b, h, i, d)];
  }

  /// A fresh buffer of `type` holding these values, each rounded once.
  Tensor toTensor(StridedTensorType type) const {
    Tensor t = allocate(type);
    size_t e = 0;
    forEachIndex(
        shape, [&](const Dims &index) { t.setF(t.address(index), data[e++]); });
    return t;
  }

private:
  static size_t count(const Dims &shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return static_cast<size_t>(n);
  }

  int64_t offset(int64_t b, int64_t h, int64_t i, int64_t d) const {
    int64_t at = b * strides[0] + h * strides[1] + i * strides[2];
    return shape.size() == 4 ? at + d * strides[3] : at;
  }

  Dims shape, strides;
  std::vector<double> data;
};

/// What both ops read: query, key, value, the mask and the attributes.
struct Problem {
  Problem(const Tensor &query, const Tensor &key, const Tensor &value,
          const Tensor *mask, double scale, bool causal)
      : query(query), key(key), value(value), scale(scale), causal(causal) {
    const Dims &q = query.layout.shape, &k = key.layout.shape;
    batch = q[0];
    heads = q[1];
    queries = q[2];
    headDim = q[3];
    kvHeads = k[1];
    keys = k[2];
    valueDim = value.layout.shape[3];
    group = heads / kvHeads; // the verifier: kvHeads >= 1 divides heads
    if (mask) {
      this->mask = Dense(*mask);
      hasMask = true;
      booleanMask = mask->dtype == DType::I1;
    }
  }

  /// The key/value head that query head `h` reads.
  int64_t kvHead(int64_t h) const { return h / group; }

  /// The scaled, masked scores of query row `i` of head `h` in batch `b`
  /// against every key.
  void scores(int64_t b, int64_t h, int64_t i, std::vector<double> &s) const {
    int64_t g = kvHead(h);
    for (int64_t j = 0; j < keys; ++j) {
      double dot = 0.0;
      for (int64_t d = 0; d < headDim; ++d)
        dot += query.at(b, h, i, d) * key.at(b, g, j, d);
      double x = scale * dot;
      if (hasMask) {
        double m = mask.at(b, h, i, j);
        x = booleanMask ? (m != 0.0 ? x : -kInf) : x + m;
      }
      bool valid = validKeys.empty() || j < validKeys[b];
      s[j] = (causal && j > i) || !valid ? -kInf : x;
    }
  }

  /// Reads the forward's kv_length: batch b attends keys j < its value,
  /// clamped to [0, keys].
  void setValidKeys(const Tensor &lengths) {
    validKeys.resize(batch);
    for (int64_t b = 0; b < batch; ++b) {
      double n = lengths.getAsDouble(lengths.address({b}));
      validKeys[b] = int64_t(std::clamp(n, 0.0, double(keys)));
    }
  }

  Dense query, key, value, mask;
  double scale;
  bool causal, hasMask = false, booleanMask = false;
  /// Per batch, the keys it attends (kv_length); empty: all.
  std::vector<int64_t> validKeys;
  int64_t batch, heads, kvHeads, queries, headDim, keys, valueDim, group;
};

/// The largest of `s`, NaN if one is NaN; -inf for no elements.
double rowMax(const std::vector<double> &s) {
  double m = -kInf;
  for (double x : s) {
    if (std::isnan(x))
      return x;
    m = std::max(m, x);
  }
  return m;
}

} // namespace

Status Interpreter::attention(AttentionOp op) {
  Problem p(get(op.getQuery()), get(op.getKey()), get(op.getValue()),
            op.getMask() ? &get(op.getMask()) : nullptr,
            op.getScale().convertToDouble(), op.getCausal());
  if (Value length = op.getKvLength())
    p.setValidKeys(get(length));
  Dense out({p.batch, p.heads, p.queries, p.valueDim});
  Dense lse({p.batch, p.heads, p.queries});
  std::vector<double> s(p.keys);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h)
      for (int64_t i = 0; i < p.queries; ++i) {
        p.scores(b, h, i, s);
        double m = rowMax(s);
        // A row of -inf scores (every key masked) has P = 0.
        double sum = 0.0;
        for (double &x : s) {
          x = m == -kInf ? 0.0 : std::exp(x - m);
          sum += x;
        }
        lse.at(b, h, i) = m == -kInf ? -kInf : m + std::log(sum);
        for (int64_t j = 0; j < p.keys; ++j) {
          double weight = m == -kInf ? 0.0 : s[j] / sum;
          for (int64_t e = 0; e < p.valueDim; ++e)
            out.at(b, h, i, e) += weight * p.value.at(b, p.kvHead(h), j, e);
        }
      }
  values[op.getResult()] = out.toTensor(op.getResult().getType());
  if (Value logsumexp = op.getLogsumexp())
    values[logsumexp] = lse.toTensor(typeOf(logsumexp));
  return Status::ok();
}

Status Interpreter::attentionBackward(AttentionBackwardOp op) {
  Problem p(get(op.getQuery()), get(op.getKey()), get(op.getValue()),
            op.getMask() ? &get(op.getMask()) : nullptr,
            op.getScale().convertToDouble(), op.getCausal());
  Dense gradOut(get(op.getGradOutput())), out(get(op.getOutput())),
      lse(get(op.getLogsumexp()));
  Dense dq({p.batch, p.heads, p.queries, p.headDim});
  Dense dk({p.batch, p.kvHeads, p.keys, p.headDim});
  Dense dv({p.batch, p.kvHeads, p.keys, p.valueDim});
  std::vector<double> s(p.keys);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h)
      for (int64_t i = 0; i < p.queries; ++i) {
        int64_t g = p.kvHead(h);
        p.scores(b, h, i, s);
        double l = lse.at(b, h, i), rowDot = 0.0;
        for (int64_t e = 0; e < p.valueDim; ++e)
          rowDot += gradOut.at(b, h, i, e) * out.at(b, h, i, e);
        for (int64_t j = 0; j < p.keys; ++j) {
          double prob = l == -kInf ? 0.0 : std::exp(s[j] - l);
          double dp = 0.0;
          for (int64_t e = 0; e < p.valueDim; ++e) {
            dp += gradOut.at(b, h, i, e) * p.value.at(b, g, j, e);
            dv.at(b, g, j, e) += prob * gradOut.at(b, h, i, e);
          }
          double ds = prob * (dp - rowDot);
          for (int64_t d = 0; d < p.headDim; ++d) {
            dq.at(b, h, i, d) += p.scale * ds * p.key.at(b, g, j, d);
            dk.at(b, g, j, d) += p.scale * ds * p.query.at(b, h, i, d);
          }
        }
      }
  values[op.getGradQuery()] = dq.toTensor(op.getGradQuery().getType());
  values[op.getGradKey()] = dk.toTensor(op.getGradKey().getType());
  values[op.getGradValue()] = dv.toTensor(op.getGradValue().getType());
  return Status::ok();
}

} // namespace stride::interp
