//===- Convolution.cpp - The shape rules of a convolution -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// inferConvolutionShape (PyTorch's aten.convolution rules, checked in the
// order PyTorch checks them), stride.convolution's verifier and
// stride.convolution_weight_gradient's (the forward's rule).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideOps.h"

using namespace mlir;
using namespace stride;

namespace {

/// Each parameter list has one entry per spatial dim and each entry is at
/// least `least` (and at most kMaxElements, so the size arithmetic below
/// cannot overflow).
LogicalResult checkParameter(const ConvolutionGeometry &g, StringRef name,
                             const Dims &values, int64_t least,
                             function_ref<InFlightDiagnostic()> emitError) {
  if (int64_t(values.size()) != g.spatialRank())
    return emitError() << name << " has " << values.size()
                       << " entries, expected one per spatial dim ("
                       << g.spatialRank() << ")";
  for (int64_t v : values)
    if (v < least || v > kMaxElements)
      return emitError() << name << " must be at least " << least
                         << " in each spatial dim, got " << formatDims(values);
  return success();
}

LogicalResult checkRanks(const ConvolutionGeometry &g,
                         function_ref<InFlightDiagnostic()> emitError) {
  int64_t rank = int64_t(g.input.size());
  if (rank < 3 || rank > 5)
    return emitError() << "input has rank " << rank
                       << ", expected 3 to 5 ([N, C, spatial...] with 1 to 3 "
                          "spatial dims)";
  if (int64_t(g.weight.size()) != rank)
    return emitError() << "weight has rank " << g.weight.size()
                       << ", expected the input's rank " << rank;
  return success();
}

LogicalResult checkParameters(const ConvolutionGeometry &g,
                              function_ref<InFlightDiagnostic()> emitError) {
  if (failed(checkParameter(g, "stride", g.stride, 1, emitError)) ||
      failed(checkParameter(g, "padding", g.padding, 0, emitError)) ||
      failed(checkParameter(g, "dilation", g.dilation, 1, emitError)))
    return failure();
  if (g.outputPadding.empty())
    return success();
  if (!g.transposed)
    return emitError() << "output_padding is only for a transposed "
                          "convolution";
  if (failed(checkParameter(g, "output_padding", g.outputPadding, 0,
                            emitError)))
    return failure();
  for (int64_t d = 0; d < g.spatialRank(); ++d)
    if (g.outputPadding[d] >= std::max(g.stride[d], g.dilation[d])) {
      InFlightDiagnostic diag = emitError();
      diag << "output_padding " << formatDims(g.outputPadding)
           << " must be smaller than the stride or the dilation in each "
              "spatial dim";
      diag.attachNote() << "stride " << formatDims(g.stride) << ", dilation "
                        << formatDims(g.dilation);
      return diag;
    }
  return success();
}

/// The weight's channel dims and kernel sizes against the input's channels
/// and the groups.
LogicalResult checkWeight(const ConvolutionGeometry &g,
                          function_ref<InFlightDiagnostic()> emitError) {
  auto withNote = [&](InFlightDiagnostic diag) -> LogicalResult {
    diag.attachNote() << (g.transposed
                              ? "a transposed convolution's weight is "
                                "[in_channels, out_channels / groups, "
                                "kernel...]"
                              : "a convolution's weight is [out_channels, "
                                "in_channels / groups, kernel...]");
    return diag;
  };
  if (g.groups < 1 || g.inChannels() % g.groups != 0) {
    InFlightDiagnostic diag = emitError();
    diag << "groups (" << g.groups << ") must be at least 1 and divide the "
         << "input's " << g.inChannels() << " channels";
    diag.attachNote() << "the input is " << formatDims(g.input)
                      << " ([N, C, spatial...])";
    return diag;
  }
  int64_t perGroup = g.inChannels() / g.groups;
  if (g.transposed && g.weight[0] != g.inChannels())
    return withNote(emitError()
                    << "weight " << formatDims(g.weight) << " has "
                    << g.weight[0] << " input channels (dim 0), expected the "
                    << "input's " << g.inChannels());
  if (!g.transposed && g.weight[1] != perGroup)
    return withNote(emitError()
                    << "weight " << formatDims(g.weight) << " has "
                    << g.weight[1] << " input channels per group (dim 1), "
                    << "expected " << g.inChannels() << " / " << g.groups
                    << " groups = " << perGroup);
  if (!g.transposed && g.weight[0] % g.groups != 0)
    return withNote(emitError()
                    << "weight " << formatDims(g.weight) << " has "
                    << g.weight[0] << " output channels (dim 0), which the "
                    << g.groups << " groups do not divide");
  for (int64_t d = 2; d < int64_t(g.weight.size()); ++d)
    if (g.weight[d] < 1)
      return withNote(emitError() << "weight " << formatDims(g.weight)
                                  << " has an empty kernel (dim " << d << ")");
  return success();
}

/// The result's size along spatial dim `d`, in a wide type (the caller
/// bounds it).
__int128 spatialSize(const ConvolutionGeometry &g, int64_t d) {
  __int128 in = g.input[d + 2], kernel = g.weight[d + 2];
  __int128 span = __int128(g.dilation[d]) * (kernel - 1) + 1;
  if (g.transposed)
    return (in - 1) * g.stride[d] - 2 * __int128(g.padding[d]) + span +
           g.outputPaddingOf(d);
  __int128 room = in + 2 * __int128(g.padding[d]) - span;
  // Floor division; a negative room is a result of no element.
  return room < 0 ? 0 : room / g.stride[d] + 1;
}

} // namespace

FailureOr<Dims>
stride::inferConvolutionShape(const ConvolutionGeometry &g,
                              function_ref<InFlightDiagnostic()> emitError) {
  if (failed(checkRanks(g, emitError)) ||
      failed(checkParameters(g, emitError)) ||
      failed(checkWeight(g, emitError)))
    return failure();
  Dims result{g.input[0], g.outChannels()};
  if (g.bias && *g.bias != Dims{g.outChannels()})
    return emitError() << "bias has shape " << formatDims(*g.bias)
                       << ", expected [" << g.outChannels()
                       << "] (one per output channel)";
  for (int64_t d = 0; d < g.spatialRank(); ++d) {
    __int128 size = spatialSize(g, d);
    if (size < 1 || size > kMaxElements) {
      InFlightDiagnostic diag = emitError();
      diag << "spatial dim " << d << " of the result would have "
           << (size < 1 ? "no element" : "more elements than Stride's limit")
           << ": input size " << g.input[d + 2] << ", kernel "
           << g.weight[d + 2] << ", stride " << g.stride[d] << ", padding "
           << g.padding[d] << ", dilation " << g.dilation[d];
      diag.attachNote() << "the dilated kernel spans dilation * (kernel - 1) "
                           "+ 1 elements of the padded input";
      return diag;
    }
    result.push_back(int64_t(size));
  }
  return result;
}

namespace {

Dims dimsOf(Value v) {
  ArrayRef<int64_t> s = cast<StridedTensorType>(v.getType()).getShape();
  return Dims(s.begin(), s.end());
}

/// Each named tensor of `op` (null: absent) has `element`, its input's
/// element type.
LogicalResult
checkElementTypes(Operation *op, Type element,
                  ArrayRef<std::pair<StringRef, Value>> tensors) {
  for (auto [name, v] : tensors) {
    if (!v)
      continue;
    Type had = cast<StridedTensorType>(v.getType()).getElementType();
    if (had != element)
      return op->emitOpError() << name << " has element type " << had
                               << ", expected the input's " << element;
  }
  return success();
}

/// The geometry of a convolution over `input` by a weight of `weight`'s
/// shape, with the parameters both ops have.
template <typename OpTy>
ConvolutionGeometry geometryOf(OpTy op, Value input, Value weight) {
  ConvolutionGeometry g;
  g.input = dimsOf(input);
  g.weight = dimsOf(weight);
  g.stride = Dims(op.getStride().begin(), op.getStride().end());
  g.padding = Dims(op.getPadding().begin(), op.getPadding().end());
  g.dilation = Dims(op.getDilation().begin(), op.getDilation().end());
  g.groups = op.getGroups();
  return g;
}

} // namespace

ConvolutionGeometry ConvolutionOp::getGeometry() {
  ConvolutionGeometry g = geometryOf(*this, getInput(), getWeight());
  if (getBias())
    g.bias = dimsOf(getBias());
  if (std::optional<ArrayRef<int64_t>> outputPadding = getOutputPadding())
    g.outputPadding = Dims(outputPadding->begin(), outputPadding->end());
  g.transposed = getTransposed();
  return g;
}

LogicalResult ConvolutionOp::verify() {
  Type element = getInput().getType().getElementType();
  if (failed(checkElementTypes(*this, element,
                               {{"weight", getWeight()},
                                {"bias", getBias()},
                                {"residual", getResidual()},
                                {"result", getResult()}})))
    return failure();
  FailureOr<Dims> shape =
      inferConvolutionShape(getGeometry(), [&] { return emitOpError(); });
  if (failed(shape))
    return failure();
  ArrayRef<int64_t> actual = getResult().getType().getShape();
  if (Dims(actual.begin(), actual.end()) != *shape)
    return emitOpError() << "result has shape "
                         << formatDims(Dims(actual.begin(), actual.end()))
                         << ", expected " << formatDims(*shape)
                         << " ([N, out_channels, spatial...] by the "
                            "convolution's rule)";
  if (Value residual = getResidual()) {
    if (getTransposed())
      return emitOpError() << "has a residual and is transposed; only a "
                              "convolution that is not takes one";
    ArrayRef<int64_t> had = cast<StridedTensorType>(residual.getType()).getShape();
    if (had != actual)
      return emitOpError() << "residual has shape "
                           << formatDims(Dims(had.begin(), had.end()))
                           << ", expected the result's "
                           << formatDims(Dims(actual.begin(), actual.end()));
  }
  return success();
}

ConvolutionGeometry ConvolutionWeightGradientOp::getGeometry() {
  return geometryOf(*this, getInput(), getResult());
}

/// The forward convolution's rule over the input and a weight of the
/// result's shape gives grad_output's shape.
LogicalResult ConvolutionWeightGradientOp::verify() {
  Type element = getInput().getType().getElementType();
  if (failed(checkElementTypes(*this, element,
                               {{"grad_output", getGradOutput()},
                                {"result", getResult()}})))
    return failure();
  FailureOr<Dims> forward =
      inferConvolutionShape(getGeometry(), [&] { return emitOpError(); });
  if (failed(forward))
    return failure();
  Dims gradOutput = dimsOf(getGradOutput());
  if (gradOutput == *forward)
    return success();
  InFlightDiagnostic diag = emitOpError();
  diag << "grad_output has shape " << formatDims(gradOutput)
       << ", expected the forward convolution's result "
       << formatDims(*forward);
  diag.attachNote() << "the forward convolves the input "
                    << formatDims(dimsOf(getInput())) << " by a weight of "
                    << "the result's shape " << formatDims(dimsOf(getResult()));
  return diag;
}
