//===- ConvolutionTestSupport.h - cudnn.convolution problems -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For the tests of `cudnn.convolution` (FakeCudnnConvolutionTest.cpp,
// CudnnGraphTest.cpp): a problem (the forward's x, w, y with strides, its
// parameters, the kind of call, the epilogue), its one-step module, and
// the written tensor by a direct sum over the forward relation.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_RUNTIME_CONVOLUTIONTESTSUPPORT_H
#define STRIDE_TEST_RUNTIME_CONVOLUTIONTESTSUPPORT_H

#include "SdpaTestSupport.h"

namespace stride::test {

/// A convolution problem: the forward's x, w, y (dims and strides), its
/// parameters, and which of the three calls the step makes.
struct Conv {
  std::string kind = "fprop";
  DType dtype = DType::F32;
  std::vector<int64_t> x, w, y, xs, ws, ys;
  std::vector<int64_t> stride, pad, dilation;
  bool bias = false;
  /// The epilogue (fprop only): a residual of y's dims and strides added
  /// after the bias, then a relu.
  bool residual = false, relu = false;

  static std::vector<int64_t> dense(const std::vector<int64_t> &d) {
    std::vector<int64_t> s(d.size(), 1);
    for (size_t i = d.size(); i-- > 1;)
      s[i - 1] = s[i] * d[i];
    return s;
  }
  static int64_t count(const std::vector<int64_t> &d) {
    int64_t n = 1;
    for (int64_t v : d)
      n *= v;
    return n;
  }
  /// Elements a buffer of these dims and strides spans.
  static int64_t span(const std::vector<int64_t> &d,
                      const std::vector<int64_t> &s) {
    int64_t e = 1;
    for (size_t i = 0; i < d.size(); ++i)
      e += (d[i] - 1) * s[i];
    return e;
  }
};

/// 2 x 4 x 6 x 5 input, 6 x 2 x 3 x 3 weight in 2 groups, stride 2 by 1,
/// padding 1, dilation 1 by 2.
inline Conv grouped() {
  Conv c;
  c.x = {2, 4, 6, 5};
  c.w = {6, 2, 3, 3};
  c.y = {2, 6, 3, 3};
  c.stride = {2, 1};
  c.pad = {1, 1};
  c.dilation = {1, 2};
  c.xs = Conv::dense(c.x), c.ws = Conv::dense(c.w), c.ys = Conv::dense(c.y);
  return c;
}

/// A 1-D convolution: 2 x 3 x 9 by 4 x 3 x 2, stride 2.
inline Conv conv1d() {
  Conv c;
  c.x = {2, 3, 9}, c.w = {4, 3, 2}, c.y = {2, 4, 4};
  c.stride = {2}, c.pad = {0}, c.dilation = {1};
  c.xs = Conv::dense(c.x), c.ws = Conv::dense(c.w), c.ys = Conv::dense(c.y);
  return c;
}

/// A 3-D convolution: 1 x 4 x 6 x 8 x 8 by 8 x 4 x 3 x 3 x 3, padding 1.
inline Conv conv3d() {
  Conv c;
  c.x = {1, 4, 6, 8, 8}, c.w = {8, 4, 3, 3, 3}, c.y = {1, 8, 6, 8, 8};
  c.stride = {1, 1, 1}, c.pad = {1, 1, 1}, c.dilation = {1, 1, 1};
  c.xs = Conv::dense(c.x), c.ws = Conv::dense(c.w), c.ys = Conv::dense(c.y);
  return c;
}

inline DescriptorField text(const char *name, const std::string &value) {
  return {name, {}, value};
}

inline std::vector<DescriptorField> descriptor(const Conv &c) {
  std::vector<DescriptorField> f = {
      text("kind", c.kind),
      text("dtype", std::string(dtypeName(c.dtype))),
      text("name", "conv1"),
      ints("x_dims", c.x),
      ints("w_dims", c.w),
      ints("y_dims", c.y),
      ints("x_strides", c.xs),
      ints("w_strides", c.ws),
      ints("y_strides", c.ys),
      ints("stride", c.stride),
      ints("pre_padding", c.pad),
      ints("post_padding", c.pad),
      ints("dilation", c.dilation),
      ints("bias", {int64_t(c.bias)}),
      ints("tf32", {0}),
      ints("residual", {int64_t(c.residual)}),
      ints("relu", {int64_t(c.relu)})};
  return f;
}

/// The step's tensors in buffer order: name, dims and strides; the last is
/// the one it writes.
using NamedTensors = std::vector<
    std::pair<std::string, std::pair<std::vector<int64_t>, std::vector<int64_t>>>>;

inline NamedTensors tensors(const Conv &c) {
  if (c.kind == "dgrad")
    return {{"dy", {c.y, c.ys}}, {"w", {c.w, c.ws}}, {"dx", {c.x, c.xs}}};
  if (c.kind == "wgrad")
    return {{"x", {c.x, c.xs}}, {"dy", {c.y, c.ys}}, {"dw", {c.w, c.ws}}};
  NamedTensors all = {{"x", {c.x, c.xs}}, {"w", {c.w, c.ws}}};
  if (c.bias)
    all.push_back({"bias", {{c.y[1]}, {1}}});
  if (c.residual)
    all.push_back({"residual", {c.y, c.ys}});
  all.push_back({"y", {c.y, c.ys}});
  return all;
}

inline ModuleDesc module(const Conv &c, const std::string &arch = "sm_90") {
  std::vector<std::pair<const char *, std::pair<DType, int64_t>>> ins, outs;
  auto all = tensors(c);
  for (size_t i = 0; i < all.size(); ++i) {
    int64_t n = Conv::span(all[i].second.first, all[i].second.second);
    (i + 1 == all.size() ? outs : ins)
        .push_back({all[i].first.c_str(), {c.dtype, n}});
  }
  return oneStepModule("cudnn.convolution", arch, ins, outs, descriptor(c));
}

/// The written tensor by a direct sum over the forward relation, at the
/// offsets of its strides.
inline std::vector<double> reference(const Conv &c,
                                     const std::vector<HostArray> &in) {
  auto all = tensors(c);
  std::vector<double> out(
      size_t(Conv::span(all.back().second.first, all.back().second.second)), 0);
  auto at = [](const std::vector<int64_t> &s, std::vector<int64_t> i) {
    int64_t o = 0;
    for (size_t d = 0; d < s.size(); ++d)
      o += i[d] * s[d];
    return o;
  };
  const HostArray &xa = in[0];
  int64_t perGroup = c.w[1], outPerGroup = c.w[0] / (c.x[1] / perGroup);
  size_t spatial = c.x.size() - 2;
  for (int64_t n = 0; n < c.y[0]; ++n)
    for (int64_t k = 0; k < c.y[1]; ++k)
      for (int64_t p = 0; p < Conv::count(c.y) / c.y[0] / c.y[1]; ++p)
        for (int64_t ch = 0; ch < perGroup; ++ch)
          for (int64_t r = 0; r < Conv::count(c.w) / c.w[0] / c.w[1]; ++r) {
            std::vector<int64_t> yi = {n, k}, wi = {k, ch},
                                 xi = {n, k / outPerGroup * perGroup + ch};
            int64_t pp = p, rr = r;
            std::vector<int64_t> ys(spatial), rs(spatial);
            for (size_t d = spatial; d-- > 0;) {
              ys[d] = pp % c.y[d + 2], pp /= c.y[d + 2];
              rs[d] = rr % c.w[d + 2], rr /= c.w[d + 2];
            }
            bool inside = true;
            for (size_t d = 0; d < spatial; ++d) {
              int64_t xp = ys[d] * c.stride[d] - c.pad[d] + rs[d] * c.dilation[d];
              inside &= xp >= 0 && xp < c.x[d + 2];
              yi.push_back(ys[d]), wi.push_back(rs[d]), xi.push_back(xp);
            }
            if (!inside)
              continue;
            if (c.kind == "fprop")
              out[size_t(at(c.ys, yi))] += element(xa, at(c.xs, xi)) *
                                           element(in[1], at(c.ws, wi));
            else if (c.kind == "dgrad")
              out[size_t(at(c.xs, xi))] += element(in[0], at(c.ys, yi)) *
                                           element(in[1], at(c.ws, wi));
            else
              out[size_t(at(c.ws, wi))] += element(in[1], at(c.ys, yi)) *
                                           element(in[0], at(c.xs, xi));
          }
  if (c.bias || c.residual || c.relu)
    for (int64_t n = 0; n < c.y[0]; ++n)
      for (int64_t k = 0; k < c.y[1]; ++k)
        for (int64_t p = 0; p < Conv::count(c.y) / c.y[0] / c.y[1]; ++p) {
          std::vector<int64_t> yi = {n, k};
          int64_t pp = p;
          std::vector<int64_t> ys(spatial);
          for (size_t d = spatial; d-- > 0;)
            ys[d] = pp % c.y[d + 2], pp /= c.y[d + 2];
          yi.insert(yi.end(), ys.begin(), ys.end());
          double &v = out[size_t(at(c.ys, yi))];
          if (c.bias)
            v += element(in[2], k);
          if (c.residual)
            v += element(in[c.bias ? 3 : 2], at(c.ys, yi));
          if (c.relu)
            v = std::max(v, 0.0);
        }
  return out;
}

/// Runs `c`'s step through `inv` on random inputs: "" if the written
/// tensor matches the reference within `tolerance` (relative to the larger
/// of the element and 1), else the first difference.
inline std::string compareConvolution(Invocation &inv, const Conv &c,
                                      double tolerance) {
  NamedTensors all = tensors(c);
  std::vector<HostArray> args;
  for (size_t i = 0; i + 1 < all.size(); ++i)
    args.push_back(randomArray(
        c.dtype, Conv::span(all[i].second.first, all[i].second.second),
        uint32_t(7 + i)));
  Result<std::vector<HostArray>> out = inv.run(args);
  if (!out)
    return out.error().message;
  std::vector<double> want = reference(c, args);
  for (size_t i = 0; i < want.size(); ++i) {
    double got = element((*out)[0], int64_t(i));
    if (!(std::fabs(got - want[i]) <=
          tolerance * std::max(1.0, std::fabs(want[i]))))
      return all.back().first + " element " + std::to_string(i) + " is " +
             std::to_string(got) + ", expected " + std::to_string(want[i]);
  }
  return "";
}

} // namespace stride::test

#endif // STRIDE_TEST_RUNTIME_CONVOLUTIONTESTSUPPORT_H
