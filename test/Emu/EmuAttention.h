//===- EmuAttention.h - cudnn.sdpa_* on the CPU, for stride-emu -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cudnn.sdpa_forward` and `cudnn.sdpa_backward` library-call steps
// computed on host buffers as their descriptors say
// (python-free-docs/attention.md, "The library calls": dims, each tensor's
// strides and offset, scale, causal flag, bias), so that the emulated plan
// of a graph with fused attention runs on the CPU and the comparison with
// the reference interpreter checks the descriptor the compiler wrote. Sums
// are in double; each output element is rounded once to the dtype (the
// statistics are f32).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_EMUATTENTION_H
#define STRIDE_TEST_EMU_EMUATTENTION_H

#include "EmuElements.h"
#include "stride/Module/Module.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace stride::emu {

/// A descriptor's fields by name.
struct AttentionFields {
  std::map<std::string, std::vector<int64_t>> ints;
  std::map<std::string, std::string> text;

  explicit AttentionFields(const LibraryCallStep &call) {
    for (const DescriptorField &field : call.descriptor) {
      ints[field.name] = field.ints;
      text[field.name] = field.text;
    }
  }
  int64_t flag(const std::string &name) const {
    auto it = ints.find(name);
    return it == ints.end() || it->second.empty() ? 0 : it->second[0];
  }
};

/// One 4-d tensor of a step: where element [b, h, s, d] lives.
struct AttentionTensor {
  uint8_t *base = nullptr;
  std::vector<int64_t> strides;
  int64_t offset = 0;

  int64_t at(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return offset + b * strides[0] + h * strides[1] + s * strides[2] +
           d * strides[3];
  }
};

/// The problem of one step: sizes, scale, masking, and the scores.
class AttentionProblem {
public:
  AttentionProblem(const AttentionFields &f, const Elements &elements)
      : elements(elements) {
    const std::vector<int64_t> &dims = f.ints.at("dims");
    batch = dims[0], heads = dims[1], kvHeads = dims[2], queries = dims[3],
    keys = dims[4], headDim = dims[5], valueDim = dims[6];
    scale = std::bit_cast<double>(f.ints.at("scale")[0]);
    causal = f.flag("causal");
    hasBias = f.flag("bias");
    if (hasBias)
      biasDims = f.ints.at("bias_dims");
  }

  int64_t batch, heads, kvHeads, queries, keys, headDim, valueDim;
  double scale;
  bool causal, hasBias;
  /// [b or 1, h or 1, s_q, s_kv]: a dim of 1 is broadcast.
  std::vector<int64_t> biasDims;
  AttentionTensor q, k, v, bias;

  int64_t kvHead(int64_t h) const { return h / (heads / kvHeads); }

  /// The scaled, biased, masked scores of query row `i` of (b, h).
  std::vector<double> scores(int64_t b, int64_t h, int64_t i) const {
    std::vector<double> s(keys);
    int64_t g = kvHead(h);
    for (int64_t j = 0; j < keys; ++j) {
      if (causal && j > i) {
        s[j] = -std::numeric_limits<double>::infinity();
        continue;
      }
      double dot = 0;
      for (int64_t d = 0; d < headDim; ++d)
        dot += elements.load(q.base, q.at(b, h, i, d)) *
               elements.load(k.base, k.at(b, g, j, d));
      s[j] = scale * dot;
      // A bias dim of 1 broadcasts (python-free-docs/attention.md, "The
      // descriptor"): a padding mask [b, 1, 1, s_kv] is read at row 0.
      if (hasBias)
        s[j] += elements.load(
            bias.base, bias.at(biasDims[0] == 1 ? 0 : b,
                               biasDims[1] == 1 ? 0 : h,
                               biasDims[2] == 1 ? 0 : i,
                               biasDims[3] == 1 ? 0 : j));
    }
    return s;
  }

  const Elements &elements;
};

inline double maxOf(const std::vector<double> &s) {
  double m = -std::numeric_limits<double>::infinity();
  for (double x : s)
    m = std::max(m, x);
  return m;
}

/// Each tensor of the step in buffer order: its buffer, strides, offset.
inline std::vector<AttentionTensor>
attentionTensors(const LibraryCallStep &call, const AttentionFields &f,
                 const std::vector<uint8_t *> &buffers,
                 const std::vector<std::string> &strideFields) {
  std::vector<AttentionTensor> tensors;
  const std::vector<int64_t> &offsets = f.ints.at("offsets");
  for (size_t i = 0; i < strideFields.size(); ++i) {
    AttentionTensor t;
    t.base = buffers[call.buffers[i]];
    t.offset = offsets[i];
    if (!strideFields[i].empty())
      t.strides = f.ints.at(strideFields[i]);
    tensors.push_back(t);
  }
  return tensors;
}

/// One cudnn.sdpa_forward step; "" or what it cannot emulate.
inline std::string runSdpaForward(const LibraryCallStep &call,
                                  const std::vector<uint8_t *> &buffers) {
  AttentionFields f(call);
  Elements elements{f.text["dtype"]}, f32{"f32"};
  if (!elements.known())
    return "cudnn.sdpa_forward on '" + f.text["dtype"] + "' is not emulated";
  AttentionProblem p(f, elements);
  std::vector<std::string> names = {"q_strides", "k_strides", "v_strides"};
  if (p.hasBias)
    names.push_back("bias_strides");
  names.push_back("o_strides");
  bool stats = f.flag("stats");
  if (stats)
    names.push_back(""); // dense [b, h, s_q] f32
  std::vector<AttentionTensor> t = attentionTensors(call, f, buffers, names);
  p.q = t[0], p.k = t[1], p.v = t[2];
  if (p.hasBias)
    p.bias = t[3];
  const AttentionTensor &o = t[p.hasBias ? 4 : 3];
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h)
      for (int64_t i = 0; i < p.queries; ++i) {
        std::vector<double> s = p.scores(b, h, i);
        double m = maxOf(s), sum = 0;
        for (double &x : s)
          sum += (x = std::exp(x - m));
        for (int64_t e = 0; e < p.valueDim; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < p.keys; ++j)
            acc += s[j] * elements.load(p.v.base, p.v.at(b, p.kvHead(h), j, e));
          elements.store(o.base, o.at(b, h, i, e), acc / sum);
        }
        if (stats)
          f32.store(t.back().base,
                    t.back().offset + (b * p.heads + h) * p.queries + i,
                    m + std::log(sum));
      }
  return "";
}

/// One cudnn.sdpa_backward step; "" or what it cannot emulate.
inline std::string runSdpaBackward(const LibraryCallStep &call,
                                   const std::vector<uint8_t *> &buffers) {
  AttentionFields f(call);
  Elements elements{f.text["dtype"]}, f32{"f32"};
  if (!elements.known())
    return "cudnn.sdpa_backward on '" + f.text["dtype"] + "' is not emulated";
  AttentionProblem p(f, elements);
  std::vector<std::string> names = {"q_strides", "k_strides", "v_strides",
                                    "o_strides", "do_strides", ""};
  if (p.hasBias)
    names.push_back("bias_strides");
  for (const char *name : {"dq_strides", "dk_strides", "dv_strides"})
    names.push_back(name);
  std::vector<AttentionTensor> t = attentionTensors(call, f, buffers, names);
  p.q = t[0], p.k = t[1], p.v = t[2];
  const AttentionTensor &o = t[3], &dO = t[4], &stats = t[5];
  if (p.hasBias)
    p.bias = t[6];
  size_t first = p.hasBias ? 7 : 6;
  const AttentionTensor &dq = t[first], &dk = t[first + 1],
                        &dv = t[first + 2];
  // Accumulate dK and dV over the query heads that share each key/value
  // head, in double, then round once.
  std::vector<double> dkAcc(p.batch * p.kvHeads * p.keys * p.headDim, 0.0),
      dvAcc(p.batch * p.kvHeads * p.keys * p.valueDim, 0.0);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h) {
      int64_t g = p.kvHead(h);
      for (int64_t i = 0; i < p.queries; ++i) {
        std::vector<double> s = p.scores(b, h, i);
        double lse = f32.load(stats.base,
                              stats.offset + (b * p.heads + h) * p.queries + i);
        double rowDot = 0; // D_i = dO_i . O_i
        for (int64_t e = 0; e < p.valueDim; ++e)
          rowDot += elements.load(dO.base, dO.at(b, h, i, e)) *
                    elements.load(o.base, o.at(b, h, i, e));
        std::vector<double> dq_i(p.headDim, 0.0);
        for (int64_t j = 0; j < p.keys; ++j) {
          double prob = std::exp(s[j] - lse), dp = 0;
          for (int64_t e = 0; e < p.valueDim; ++e) {
            double go = elements.load(dO.base, dO.at(b, h, i, e));
            dp += go * elements.load(p.v.base, p.v.at(b, g, j, e));
            dvAcc[((b * p.kvHeads + g) * p.keys + j) * p.valueDim + e] +=
                prob * go;
          }
          double ds = prob * (dp - rowDot) * p.scale;
          for (int64_t d = 0; d < p.headDim; ++d) {
            dq_i[d] += ds * elements.load(p.k.base, p.k.at(b, g, j, d));
            dkAcc[((b * p.kvHeads + g) * p.keys + j) * p.headDim + d] +=
                ds * elements.load(p.q.base, p.q.at(b, h, i, d));
          }
        }
        for (int64_t d = 0; d < p.headDim; ++d)
          elements.store(dq.base, dq.at(b, h, i, d), dq_i[d]);
      }
    }
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t g = 0; g < p.kvHeads; ++g)
      for (int64_t j = 0; j < p.keys; ++j) {
        for (int64_t d = 0; d < p.headDim; ++d)
          elements.store(
              dk.base, dk.at(b, g, j, d),
              dkAcc[((b * p.kvHeads + g) * p.keys + j) * p.headDim + d]);
        for (int64_t e = 0; e < p.valueDim; ++e)
          elements.store(
              dv.base, dv.at(b, g, j, e),
              dvAcc[((b * p.kvHeads + g) * p.keys + j) * p.valueDim + e]);
      }
  return "";
}

} // namespace stride::emu

#endif // STRIDE_TEST_EMU_EMUATTENTION_H
