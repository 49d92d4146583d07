//===- SdpaTestSupport.h - Attention steps and their host reference -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What FakeCudnnTest.cpp (the fake cuDNN, on the host) and
// CudnnGpuTest.cpp (the real one, on a GPU) share: an attention problem,
// the one-step modules of `cudnn.sdpa_forward` and `cudnn.sdpa_backward`
// over it (python-free-docs/attention.md), random inputs in bf16 or f16, a
// straightforward reference in double precision (PyTorch's
// scaled_dot_product_attention: top-left causal mask, GQA's query head h
// reading key/value head h / (h_q / h_kv), logsumexp stats), and the
// comparison of outputs with it.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_RUNTIME_SDPATESTSUPPORT_H
#define STRIDE_TEST_RUNTIME_SDPATESTSUPPORT_H

#include "stride/Runtime/Invocation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace stride::test {

enum class BiasKind {
  None,
  /// [1, 1, s_q, s_kv]: one random matrix for every batch and head.
  Full,
  /// [b, 1, 1, s_kv]: 0 or -10000 per key, as a padding mask.
  Padding,
  /// The padding mask as PyTorch gives it to cuDNN: [b, 1, s_q, s_kv]
  /// with stride 0 over the query rows.
  PaddingRows
};

/// An attention problem, its layout and the routine's options.
struct Attention {
  DType dtype = DType::BF16;
  int64_t b = 1, hq = 1, hkv = 1, sq = 1, skv = 1, dqk = 8, dv = 8;
  bool causal = false;
  BiasKind bias = BiasKind::None;
  bool stats = true;
  /// q, k, v, o (and their gradients) laid out as PyTorch's [b, s, h, d]
  /// transposed to [b, h, s, d] (else dense [b, h, s, d]).
  bool tokensMajor = false;

  double scale() const { return 1 / std::sqrt(double(dqk)); }
  std::array<int64_t, 4> biasDims() const {
    if (bias == BiasKind::Full)
      return {1, 1, sq, skv};
    if (bias == BiasKind::PaddingRows)
      return {b, 1, sq, skv};
    return {b, 1, 1, skv};
  }
  std::string name() const {
    std::string n = std::string(dtype == DType::BF16 ? "bf16" : "f16") +
                    " b=" + std::to_string(b) + " h=" + std::to_string(hq) +
                    "/" + std::to_string(hkv) + " s=" + std::to_string(sq) +
                    "/" + std::to_string(skv) + " d=" + std::to_string(dqk) +
                    "/" + std::to_string(dv);
    if (causal)
      n += " causal";
    if (bias == BiasKind::Full)
      n += " bias[1,1,sq,skv]";
    if (bias == BiasKind::Padding)
      n += " bias[b,1,1,skv]";
    if (bias == BiasKind::PaddingRows)
      n += " bias[b,1,sq(stride 0),skv]";
    if (tokensMajor)
      n += " bshd";
    return n;
  }
};

/// A 4-D tensor of the step: dims and strides in elements.
struct Layout {
  std::array<int64_t, 4> dims, strides;
  int64_t elements() const {
    int64_t e = 1;
    for (size_t i = 0; i < 4; ++i)
      e += (dims[i] - 1) * strides[i];
    return e;
  }
  int64_t at(int64_t i, int64_t j, int64_t k, int64_t l) const {
    return i * strides[0] + j * strides[1] + k * strides[2] + l * strides[3];
  }
};

inline Layout layout(const Attention &a, int64_t h, int64_t s, int64_t d) {
  if (a.tokensMajor)
    return {{a.b, h, s, d}, {s * h * d, d, h * d, 1}};
  return {{a.b, h, s, d}, {h * s * d, s * d, d, 1}};
}
inline Layout qLayout(const Attention &a) { return layout(a, a.hq, a.sq, a.dqk); }
inline Layout kLayout(const Attention &a) { return layout(a, a.hkv, a.skv, a.dqk); }
inline Layout vLayout(const Attention &a) { return layout(a, a.hkv, a.skv, a.dv); }
inline Layout oLayout(const Attention &a) { return layout(a, a.hq, a.sq, a.dv); }
inline Layout statsLayout(const Attention &a) {
  return {{a.b, a.hq, a.sq, 1}, {a.hq * a.sq, a.sq, 1, 1}};
}
inline Layout biasLayout(const Attention &a) {
  std::array<int64_t, 4> d = a.biasDims();
  if (a.bias == BiasKind::PaddingRows)
    return {d, {d[3], d[3], 0, 1}};
  return {d, {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1}};
}

//--- Values --------------------------------------------------------------===//

inline double load(DType t, const uint8_t *p) {
  if (t == DType::F32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  if (t == DType::BF16)
    return std::bit_cast<float>(uint32_t(h) << 16);
  return double(std::bit_cast<_Float16>(h));
}

/// `v` rounded to `t` (to nearest even).
inline void store(DType t, uint8_t *p, double v) {
  float f = float(v);
  if (t == DType::F32) {
    std::memcpy(p, &f, 4);
    return;
  }
  uint16_t h;
  if (t == DType::BF16) {
    uint32_t bits = std::bit_cast<uint32_t>(f);
    h = uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
  } else {
    h = std::bit_cast<uint16_t>(_Float16(v));
  }
  std::memcpy(p, &h, 2);
}

inline double element(const HostArray &a, int64_t i) {
  return load(a.dtype, a.data.data() + size_t(i) * dtypeSize(a.dtype));
}

/// A 1-D array of `n` uniform values in [lo, hi), rounded to `t`.
inline HostArray randomArray(DType t, int64_t n, uint32_t seed, double lo = -1,
                             double hi = 1) {
  HostArray a{t, {n}, {}};
  a.data.resize(size_t(n) * dtypeSize(t));
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double u = double(state >> 11) / double(1ull << 53);
    store(t, a.data.data() + size_t(i) * dtypeSize(t), lo + (hi - lo) * u);
  }
  return a;
}

/// The padding-like bias: key j of batch i masked (-10000) when
/// j >= s_kv - 1 - i % 3 and j > 0, else 0.
inline HostArray paddingBias(const Attention &a) {
  HostArray bias{a.dtype, {a.b * a.skv}, {}};
  bias.data.resize(size_t(a.b * a.skv) * dtypeSize(a.dtype));
  for (int64_t i = 0; i < a.b; ++i)
    for (int64_t j = 0; j < a.skv; ++j)
      store(a.dtype, bias.data.data() + size_t(i * a.skv + j) * dtypeSize(a.dtype),
            j > 0 && j >= a.skv - 1 - i % 3 ? -10000.0 : 0.0);
  return bias;
}

//--- Modules -------------------------------------------------------------===//

inline DescriptorField ints(const char *name, std::vector<int64_t> v) {
  return {name, std::move(v), ""};
}
inline DescriptorField strides(const char *name, const Layout &l) {
  return ints(name, {l.strides[0], l.strides[1], l.strides[2], l.strides[3]});
}

/// The descriptor of the forward (or the backward) step of `a`.
inline std::vector<DescriptorField> sdpaDescriptor(const Attention &a,
                                                   bool backward) {
  std::vector<DescriptorField> f = {
      {"dtype", {}, a.dtype == DType::BF16 ? "bf16" : "f16"},
      ints("dims", {a.b, a.hq, a.hkv, a.sq, a.skv, a.dqk, a.dv}),
      strides("q_strides", qLayout(a)),
      strides("k_strides", kLayout(a)),
      strides("v_strides", vLayout(a)),
      strides("o_strides", oLayout(a)),
      ints("scale", {std::bit_cast<int64_t>(a.scale())}),
      ints("causal", {a.causal}),
      ints("bias", {a.bias != BiasKind::None})};
  if (backward) {
    f.push_back(strides("do_strides", oLayout(a)));
    f.push_back(strides("dq_strides", qLayout(a)));
    f.push_back(strides("dk_strides", kLayout(a)));
    f.push_back(strides("dv_strides", vLayout(a)));
  } else {
    f.push_back(ints("stats", {a.stats}));
  }
  if (a.bias != BiasKind::None) {
    Layout l = biasLayout(a);
    f.push_back(ints("bias_dims", {l.dims[0], l.dims[1], l.dims[2], l.dims[3]}));
    f.push_back(strides("bias_strides", l));
  }
  return f;
}

/// A module of one step of `routine` whose buffers are the signature's
/// inputs then outputs, each a 1-D array, in the step's order.
inline ModuleDesc oneStepModule(
    const std::string &routine, const std::string &arch,
    const std::vector<std::pair<const char *, std::pair<DType, int64_t>>> &ins,
    const std::vector<std::pair<const char *, std::pair<DType, int64_t>>> &outs,
    std::vector<DescriptorField> descriptor) {
  ModuleDesc d;
  d.producer = "SdpaTestSupport";
  d.target = {Backend::Cuda, arch};
  d.signature.entryName = "attention";
  std::vector<uint32_t> buffers;
  for (const auto &[name, typed] : ins) {
    d.signature.inputs.push_back({name, typed.first, {typed.second}, {1}, 0});
    buffers.push_back(uint32_t(d.buffers.size()));
    d.buffers.push_back({BufferKind::Input, int32_t(d.signature.inputs.size() - 1),
                         typed.second * int64_t(dtypeSize(typed.first))});
  }
  for (const auto &[name, typed] : outs) {
    d.signature.outputs.push_back({name, typed.first, {typed.second}, {1}, 0});
    buffers.push_back(uint32_t(d.buffers.size()));
    d.buffers.push_back({BufferKind::Output,
                         int32_t(d.signature.outputs.size() - 1),
                         typed.second * int64_t(dtypeSize(typed.first))});
  }
  d.steps = {LibraryCallStep{routine, buffers, std::move(descriptor)}};
  return d;
}

/// Forward: inputs q, k, v, [bias]; outputs o, [stats].
inline ModuleDesc forwardModule(const Attention &a, const std::string &arch) {
  std::vector<std::pair<const char *, std::pair<DType, int64_t>>> ins = {
      {"q", {a.dtype, qLayout(a).elements()}},
      {"k", {a.dtype, kLayout(a).elements()}},
      {"v", {a.dtype, vLayout(a).elements()}}};
  if (a.bias != BiasKind::None)
    ins.push_back({"bias", {a.dtype, biasLayout(a).elements()}});
  std::vector<std::pair<const char *, std::pair<DType, int64_t>>> outs = {
      {"o", {a.dtype, oLayout(a).elements()}}};
  if (a.stats)
    outs.push_back({"stats", {DType::F32, statsLayout(a).elements()}});
  return oneStepModule("cudnn.sdpa_forward", arch, ins, outs,
                       sdpaDescriptor(a, false));
}

/// Backward: inputs q, k, v, o, do, stats, [bias]; outputs dq, dk, dv.
inline ModuleDesc backwardModule(const Attention &a, const std::string &arch) {
  std::vector<std::pair<const char *, std::pair<DType, int64_t>>> ins = {
      {"q", {a.dtype, qLayout(a).elements()}},
      {"k", {a.dtype, kLayout(a).elements()}},
      {"v", {a.dtype, vLayout(a).elements()}},
      {"o", {a.dtype, oLayout(a).elements()}},
      {"do", {a.dtype, oLayout(a).elements()}},
      {"stats", {DType::F32, statsLayout(a).elements()}}};
  if (a.bias != BiasKind::None)
    ins.push_back({"bias", {a.dtype, biasLayout(a).elements()}});
  return oneStepModule("cudnn.sdpa_backward", arch, ins,
                       {{"dq", {a.dtype, qLayout(a).elements()}},
                        {"dk", {a.dtype, kLayout(a).elements()}},
                        {"dv", {a.dtype, vLayout(a).elements()}}},
                       sdpaDescriptor(a, true));
}

//--- The reference -------------------------------------------------------===//

/// Inputs of both directions (q, k, v, do, bias) from `seed`.
struct AttentionInputs {
  HostArray q, k, v, dO, bias;
};

inline AttentionInputs attentionInputs(const Attention &a, uint32_t seed) {
  AttentionInputs in{randomArray(a.dtype, qLayout(a).elements(), seed),
                     randomArray(a.dtype, kLayout(a).elements(), seed + 1),
                     randomArray(a.dtype, vLayout(a).elements(), seed + 2),
                     randomArray(a.dtype, oLayout(a).elements(), seed + 3),
                     {}};
  if (a.bias == BiasKind::Full)
    in.bias = randomArray(a.dtype, biasLayout(a).elements(), seed + 4, -2, 2);
  if (a.bias == BiasKind::Padding || a.bias == BiasKind::PaddingRows)
    in.bias = paddingBias(a);
  return in;
}

/// The reference's outputs: o and stats (forward), dq, dk, dv (backward),
/// each in its layout's element order.
struct AttentionReference {
  std::vector<double> o, stats, dq, dk, dv;
};

/// Scaled dot-product attention in double precision. The backward uses `o`
/// as given (the forward's output in the inputs' type, as the routine
/// reads it), or the reference's own if `o` is null.
inline AttentionReference attentionReference(const Attention &a,
                                             const AttentionInputs &in,
                                             const HostArray *o = nullptr) {
  Layout ql = qLayout(a), kl = kLayout(a), vl = vLayout(a), ol = oLayout(a),
         sl = statsLayout(a), bl = biasLayout(a);
  AttentionReference r;
  r.o.assign(size_t(ol.elements()), 0);
  r.stats.assign(size_t(sl.elements()), 0);
  r.dq.assign(size_t(ql.elements()), 0);
  r.dk.assign(size_t(kl.elements()), 0);
  r.dv.assign(size_t(vl.elements()), 0);
  int64_t group = a.hq / a.hkv;
  std::vector<double> p(size_t(a.skv)), dp(size_t(a.skv));
  for (int64_t b = 0; b < a.b; ++b)
    for (int64_t h = 0; h < a.hq; ++h) {
      int64_t kh = h / group;
      for (int64_t i = 0; i < a.sq; ++i) {
        double max = -INFINITY;
        for (int64_t j = 0; j < a.skv; ++j) {
          double s = 0;
          for (int64_t d = 0; d < a.dqk; ++d)
            s += element(in.q, ql.at(b, h, i, d)) *
                 element(in.k, kl.at(b, kh, j, d));
          s *= a.scale();
          if (a.bias != BiasKind::None)
            s += element(in.bias, bl.at(bl.dims[0] == 1 ? 0 : b, 0,
                                        bl.dims[2] == 1 ? 0 : i, j));
          if (a.causal && j > i)
            s = -INFINITY;
          p[size_t(j)] = s;
          max = std::max(max, s);
        }
        double sum = 0;
        for (double &x : p)
          sum += x = std::exp(x - max);
        for (double &x : p)
          x /= sum;
        r.stats[size_t(sl.at(b, h, i, 0))] = max + std::log(sum);
        for (int64_t d = 0; d < a.dv; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < a.skv; ++j)
            acc += p[size_t(j)] * element(in.v, vl.at(b, kh, j, d));
          r.o[size_t(ol.at(b, h, i, d))] = acc;
        }
        // The backward of this row: D = dO . O, dP = dO V^T,
        // dS = P (dP - D), dQ = scale dS K, dK += scale dS^T Q, dV += P^T dO.
        double rowD = 0;
        for (int64_t d = 0; d < a.dv; ++d)
          rowD += element(in.dO, ol.at(b, h, i, d)) *
                  (o ? element(*o, ol.at(b, h, i, d))
                     : r.o[size_t(ol.at(b, h, i, d))]);
        for (int64_t j = 0; j < a.skv; ++j) {
          double acc = 0;
          for (int64_t d = 0; d < a.dv; ++d) {
            double g = element(in.dO, ol.at(b, h, i, d));
            acc += g * element(in.v, vl.at(b, kh, j, d));
            r.dv[size_t(vl.at(b, kh, j, d))] += p[size_t(j)] * g;
          }
          dp[size_t(j)] = p[size_t(j)] * (acc - rowD) * a.scale();
        }
        for (int64_t d = 0; d < a.dqk; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < a.skv; ++j) {
            acc += dp[size_t(j)] * element(in.k, kl.at(b, kh, j, d));
            r.dk[size_t(kl.at(b, kh, j, d))] +=
                dp[size_t(j)] * element(in.q, ql.at(b, h, i, d));
          }
          r.dq[size_t(ql.at(b, h, i, d))] = acc;
        }
      }
    }
  return r;
}

/// `values` in an array of type `t` (rounded), as a routine's input.
inline HostArray asArray(DType t, const std::vector<double> &values) {
  HostArray a{t, {int64_t(values.size())}, {}};
  a.data.resize(values.size() * dtypeSize(t));
  for (size_t i = 0; i < values.size(); ++i)
    store(t, a.data.data() + i * dtypeSize(t), values[i]);
  return a;
}

/// "" if every element of `out` at the positions of `l` is within
/// `tolerance` of the reference, relative to the larger of its own
/// magnitude and the largest of the tensor's; else the first difference.
inline std::string compareTensor(const char *name, const Layout &l,
                                 const HostArray &out,
                                 const std::vector<double> &expected,
                                 double tolerance) {
  double largest = 0;
  for (int64_t i = 0; i < l.dims[0]; ++i)
    for (int64_t j = 0; j < l.dims[1]; ++j)
      for (int64_t k = 0; k < l.dims[2]; ++k)
        for (int64_t m = 0; m < l.dims[3]; ++m)
          largest = std::max(largest,
                             std::fabs(expected[size_t(l.at(i, j, k, m))]));
  for (int64_t i = 0; i < l.dims[0]; ++i)
    for (int64_t j = 0; j < l.dims[1]; ++j)
      for (int64_t k = 0; k < l.dims[2]; ++k)
        for (int64_t m = 0; m < l.dims[3]; ++m) {
          int64_t at = l.at(i, j, k, m);
          double want = expected[size_t(at)], got = element(out, at);
          double allowed =
              tolerance * std::max({std::fabs(want), largest, 1e-6});
          if (!(std::fabs(got - want) <= allowed))
            return std::string(name) + "[" + std::to_string(i) + ", " +
                   std::to_string(j) + ", " + std::to_string(k) + ", " +
                   std::to_string(m) + "] is " + std::to_string(got) +
                   ", expected " + std::to_string(want) + " (largest " +
                   std::to_string(largest) + ")";
        }
  return "";
}

/// Runs the forward of `a` through `inv` on `in`: "" if o (and stats)
/// match the reference within `tolerance`, else what differs.
inline std::string checkForward(Invocation &inv, const Attention &a,
                                const AttentionInputs &in, double tolerance) {
  std::vector<HostArray> args = {in.q, in.k, in.v};
  if (a.bias != BiasKind::None)
    args.push_back(in.bias);
  Result<std::vector<HostArray>> out = inv.run(args);
  if (!out)
    return out.error().message;
  AttentionReference r = attentionReference(a, in);
  std::string diff = compareTensor("o", oLayout(a), (*out)[0], r.o, tolerance);
  if (diff.empty() && a.stats)
    diff = compareTensor("stats", statsLayout(a), (*out)[1], r.stats, 1e-3);
  return diff;
}

/// Runs the backward of `a` through `inv` on `in`, with o and stats from
/// the reference (shaped [b, h_q, s_q, d_v] and [b, h_q, s_q] with
/// `shaped`, else flat): "" if dq, dk and dv match it within `tolerance`.
inline std::string checkBackward(Invocation &inv, const Attention &a,
                                 const AttentionInputs &in, double tolerance,
                                 bool shaped = false) {
  AttentionReference forward = attentionReference(a, in);
  HostArray o = asArray(a.dtype, forward.o);
  AttentionReference r = attentionReference(a, in, &o);
  HostArray stats = asArray(DType::F32, forward.stats);
  if (shaped) {
    o.shape = {a.b, a.hq, a.sq, a.dv};
    stats.shape = {a.b, a.hq, a.sq};
  }
  std::vector<HostArray> args = {in.q, in.k, in.v, o, in.dO, stats};
  if (a.bias != BiasKind::None)
    args.push_back(in.bias);
  Result<std::vector<HostArray>> out = inv.run(args);
  if (!out)
    return out.error().message;
  std::string diff = compareTensor("dq", qLayout(a), (*out)[0], r.dq, tolerance);
  if (diff.empty())
    diff = compareTensor("dk", kLayout(a), (*out)[1], r.dk, tolerance);
  if (diff.empty())
    diff = compareTensor("dv", vLayout(a), (*out)[2], r.dv, tolerance);
  return diff;
}

} // namespace stride::test

#endif // STRIDE_TEST_RUNTIME_SDPATESTSUPPORT_H
