//===- Convolution.cpp - The interpreter's convolution --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride.convolution in the reference interpreter: each result element a
// sum in f64 over its group's input channels and the kernel, plus the
// bias and the residual, through the relu, rounded once; and
// stride.convolution_weight_gradient: each weight element's sum over the
// batch and the result's positions, rounded once.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include <cmath>

using namespace mlir;

namespace stride::interp {

namespace {

/// The input coordinate that kernel offset `k` reads for result coordinate
/// `y` along spatial dim `d`, or nothing where that is padding (or, for a
/// transposed convolution, where no input element lands on `y`).
std::optional<int64_t> inputCoordinate(const ConvolutionGeometry &g,
                                       int64_t d, int64_t y, int64_t k) {
  int64_t size = g.input[d + 2];
  if (!g.transposed) {
    int64_t x = y * g.stride[d] - g.padding[d] + k * g.dilation[d];
    return x >= 0 && x < size ? std::optional<int64_t>(x) : std::nullopt;
  }
  int64_t t = y + g.padding[d] - k * g.dilation[d];
  if (t < 0 || t % g.stride[d] != 0 || t / g.stride[d] >= size)
    return std::nullopt;
  return t / g.stride[d];
}

} // namespace

/// For result element [n, o, y..] of group g = o / (C_out / G): the sum
/// over the group's input channels and every kernel offset whose input
/// coordinate is inside the input, plus the bias and the residual's
/// element, through the relu, rounded once to the result type
/// (stride.convolution's description).
Status Interpreter::convolution(ConvolutionOp op) {
  const Tensor &input = get(op.getInput()), &weight = get(op.getWeight());
  const Tensor *bias = op.getBias() ? &get(op.getBias()) : nullptr;
  const Tensor *residual = op.getResidual() ? &get(op.getResidual()) : nullptr;
  bool relu = op.getRelu();
  ConvolutionGeometry g = op.getGeometry();
  Tensor out = allocate(typeOf(op.getResult()));
  int64_t spatial = g.spatialRank();
  int64_t inPerGroup = g.inChannels() / g.groups;
  int64_t outPerGroup = g.outChannels() / g.groups;
  Dims kernel(g.weight.begin() + 2, g.weight.end());
  forEachIndex(out.layout.shape, [&](const Dims &index) {
    int64_t o = index[1], group = o / outPerGroup;
    double sum = bias ? bias->getF(bias->address({o})) : 0.0;
    Dims in(index.size()), w(index.size());
    in[0] = index[0];
    for (int64_t c = 0; c < inPerGroup; ++c) {
      in[1] = group * inPerGroup + c;
      w[0] = g.transposed ? in[1] : o;
      w[1] = g.transposed ? o % outPerGroup : c;
      forEachIndex(kernel, [&](const Dims &k) {
        for (int64_t d = 0; d < spatial; ++d) {
          std::optional<int64_t> x = inputCoordinate(g, d, index[d + 2], k[d]);
          if (!x)
            return;
          in[d + 2] = *x;
          w[d + 2] = k[d];
        }
        sum += input.getF(input.address(in)) * weight.getF(weight.address(w));
      });
    }
    if (residual)
      sum += residual->getF(residual->address(index));
    if (relu && !(sum > 0.0))
      sum = std::isnan(sum) ? sum : 0.0;
    out.setF(out.address(index), sum);
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

/// For weight element [o, c, k..] of group g = o / (C_out / G): the sum
/// over the batch and every result position whose input coordinate is
/// inside the input of grad_output times that input element, rounded once
/// (stride.convolution_weight_gradient's description).
Status
Interpreter::convolutionWeightGradient(ConvolutionWeightGradientOp op) {
  const Tensor &input = get(op.getInput());
  const Tensor &gradOutput = get(op.getGradOutput());
  ConvolutionGeometry g = op.getGeometry();
  Tensor out = allocate(typeOf(op.getResult()));
  int64_t spatial = g.spatialRank();
  int64_t inPerGroup = g.inChannels() / g.groups;
  int64_t outPerGroup = g.outChannels() / g.groups;
  ArrayRef<int64_t> dyShape = gradOutput.layout.shape;
  Dims positions(dyShape.begin() + 2, dyShape.end());
  forEachIndex(out.layout.shape, [&](const Dims &index) {
    int64_t o = index[0], group = o / outPerGroup;
    double sum = 0.0;
    Dims in(index.size()), dy(index.size());
    in[1] = group * inPerGroup + index[1];
    dy[1] = o;
    for (int64_t n = 0; n < g.input[0]; ++n) {
      in[0] = dy[0] = n;
      forEachIndex(positions, [&](const Dims &y) {
        for (int64_t d = 0; d < spatial; ++d) {
          std::optional<int64_t> x = inputCoordinate(g, d, y[d], index[d + 2]);
          if (!x)
            return;
          in[d + 2] = *x;
          dy[d + 2] = y[d];
        }
        sum += gradOutput.getF(gradOutput.address(dy)) *
               input.getF(input.address(in));
      });
    }
    out.setF(out.address(index), sum);
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

} // namespace stride::interp
