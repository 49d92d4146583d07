//===- EmuConvolution.h - cudnn.convolution on the CPU -------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cudnn.convolution` library-call step computed on host buffers as
// its descriptor says (python-free-docs/convolution.md, "The cuDNN step":
// the kind, the forward's x, w and y with their dims and strides, stride,
// paddings, dilation, bias, residual, relu, offsets), so that the emulated
// plan of a graph with convolutions runs on the CPU and the comparison with
// the reference interpreter checks the descriptor the compiler wrote. The forward
// relation is walked once for each pair of a y and an x element a window
// joins; sums are in double and each written element is rounded once.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_EMUCONVOLUTION_H
#define STRIDE_TEST_EMU_EMUCONVOLUTION_H

#include "EmuAttention.h"

namespace stride::emu {

/// One tensor of the step: its buffer, dims, strides and offset.
struct ConvTensor {
  uint8_t *base = nullptr;
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;

  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    return n;
  }
  /// The element at row-major index `linear` of the dims.
  int64_t at(int64_t linear) const {
    int64_t e = offset;
    for (size_t d = dims.size(); d-- > 0;) {
      e += linear % dims[d] * strides[d];
      linear /= dims[d];
    }
    return e;
  }
  /// The row-major index of [n, c, spatial..].
  int64_t linear(int64_t n, int64_t c, const std::vector<int64_t> &s) const {
    int64_t i = n * dims[1] + c;
    for (size_t d = 0; d < s.size(); ++d)
      i = i * dims[d + 2] + s[d];
    return i;
  }
};

/// The row-major coordinates of `linear` in `dims`.
inline std::vector<int64_t> coordinates(int64_t linear,
                                        const std::vector<int64_t> &dims) {
  std::vector<int64_t> c(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    c[d] = linear % dims[d];
    linear /= dims[d];
  }
  return c;
}

/// One cudnn.convolution step; "" or what it cannot emulate.
inline std::string runConvolution(const LibraryCallStep &call,
                                  const std::vector<uint8_t *> &buffers) {
  AttentionFields f(call);
  Elements elements{f.text["dtype"]};
  if (!elements.known())
    return "cudnn.convolution on '" + f.text["dtype"] + "' is not emulated";
  std::string kind = f.text["kind"];
  ConvTensor x{nullptr, f.ints["x_dims"], f.ints["x_strides"]},
      w{nullptr, f.ints["w_dims"], f.ints["w_strides"]},
      y{nullptr, f.ints["y_dims"], f.ints["y_strides"]}, bias,
      residual{nullptr, f.ints["y_dims"], f.ints["y_strides"]};
  bool hasBias = f.flag("bias"), hasResidual = f.flag("residual"),
       relu = f.flag("relu");
  std::vector<ConvTensor *> order;
  if (kind == "fprop")
    order = {&x, &w};
  else if (kind == "dgrad")
    order = {&y, &w, &x};
  else if (kind == "wgrad")
    order = {&x, &y, &w};
  else
    return "cudnn.convolution of kind '" + kind + "' is not emulated";
  if (hasBias) {
    bias.dims = {y.dims[1]};
    bias.strides = {1};
    order.push_back(&bias);
  }
  if (hasResidual)
    order.push_back(&residual);
  if (kind == "fprop")
    order.push_back(&y);
  const std::vector<int64_t> &offsets = f.ints["offsets"];
  for (size_t i = 0; i < order.size(); ++i) {
    order[i]->base = buffers[call.buffers[i]];
    order[i]->offset = offsets[i];
  }
  const std::vector<int64_t> &stride = f.ints["stride"],
                             &pad = f.ints["pre_padding"],
                             &dilation = f.ints["dilation"];
  size_t spatial = x.dims.size() - 2;
  int64_t perGroup = w.dims[1], outPerGroup = w.dims[0] / (x.dims[1] / perGroup);
  // The written tensor's sums, row-major.
  ConvTensor &out = kind == "fprop" ? y : kind == "dgrad" ? x : w;
  std::vector<double> sums(size_t(out.count()), 0.0);
  std::vector<int64_t> kernel(w.dims.begin() + 2, w.dims.end());
  std::vector<int64_t> ySpatial(y.dims.begin() + 2, y.dims.end());
  int64_t kernelCount = 1, yPositions = 1;
  for (size_t d = 0; d < spatial; ++d)
    kernelCount *= kernel[d], yPositions *= ySpatial[d];
  for (int64_t n = 0; n < y.dims[0]; ++n)
    for (int64_t k = 0; k < y.dims[1]; ++k)
      for (int64_t p = 0; p < yPositions; ++p) {
        std::vector<int64_t> yAt = coordinates(p, ySpatial);
        int64_t yIndex = y.at(y.linear(n, k, yAt));
        int64_t group = k / outPerGroup;
        for (int64_t c = 0; c < perGroup; ++c)
          for (int64_t r = 0; r < kernelCount; ++r) {
            std::vector<int64_t> rAt = coordinates(r, kernel), xAt(spatial);
            bool inside = true;
            for (size_t d = 0; d < spatial; ++d) {
              xAt[d] = yAt[d] * stride[d] - pad[d] + rAt[d] * dilation[d];
              inside &= xAt[d] >= 0 && xAt[d] < x.dims[d + 2];
            }
            if (!inside)
              continue;
            int64_t xLinear = x.linear(n, group * perGroup + c, xAt);
            int64_t wLinear = w.linear(k, c, rAt);
            double wv = elements.load(w.base, w.at(wLinear));
            if (kind == "fprop")
              sums[size_t(y.linear(n, k, yAt))] +=
                  elements.load(x.base, x.at(xLinear)) * wv;
            else if (kind == "dgrad")
              sums[size_t(xLinear)] += elements.load(y.base, yIndex) * wv;
            else
              sums[size_t(wLinear)] += elements.load(y.base, yIndex) *
                                       elements.load(x.base, x.at(xLinear));
          }
      }
  for (int64_t i = 0; i < out.count(); ++i) {
    double v = sums[size_t(i)];
    if (hasBias)
      v += elements.load(bias.base, bias.offset + coordinates(i, out.dims)[1]);
    if (hasResidual)
      v += elements.load(residual.base, residual.at(i));
    if (relu && v < 0)
      v = 0;
    elements.store(out.base, out.at(i), v);
  }
  return "";
}

} // namespace stride::emu

#endif // STRIDE_TEST_EMU_EMUCONVOLUTION_H
