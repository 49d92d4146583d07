//===- ConvolutionOps.cpp - aten.convolution ------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's convolution (issue 42): aten.convolution as one
// stride.convolution, its parameters checked by the op's own shape rule
// (Convolution.h) with the error at the node; aten.convolution_backward as
// a transposed convolution (the input's gradient), a
// stride.convolution_weight_gradient (the weight's) and a sum (the
// bias's).
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

using namespace mlir;

namespace stride::torch {
namespace {

/// `name`'s integers, one per spatial dim: a single entry stands for all
/// (PyTorch's expand_param_if_needed).
FailureOr<Dims> perSpatialDim(NodeImporter &n, StringRef name,
                              int64_t fallback, int64_t spatial) {
  FailureOr<std::vector<int64_t>> v = n.integers(name, {{fallback}});
  if (failed(v))
    return failure();
  if (v->size() == 1 && spatial > 1)
    v->assign(spatial, v->front());
  return Dims(v->begin(), v->end());
}

/// The node's convolution parameters, with the shapes of its operands.
FailureOr<ConvolutionGeometry> geometryOf(NodeImporter &n, Value input,
                                          Value weight, Value bias) {
  ConvolutionGeometry g;
  g.input = Dims(shapeOf(input).begin(), shapeOf(input).end());
  g.weight = Dims(shapeOf(weight).begin(), shapeOf(weight).end());
  if (bias)
    g.bias = Dims(shapeOf(bias).begin(), shapeOf(bias).end());
  int64_t spatial = std::max<int64_t>(rankOf(input) - 2, 0);
  FailureOr<Dims> stride = perSpatialDim(n, "stride", 1, spatial);
  FailureOr<Dims> padding =
      succeeded(stride) ? perSpatialDim(n, "padding", 0, spatial) : Fail();
  FailureOr<Dims> dilation =
      succeeded(padding) ? perSpatialDim(n, "dilation", 1, spatial) : Fail();
  FailureOr<bool> transposed =
      succeeded(dilation) ? n.boolean("transposed", false) : Fail();
  FailureOr<Dims> outputPadding =
      succeeded(transposed) ? perSpatialDim(n, "output_padding", 0, spatial)
                            : Fail();
  FailureOr<int64_t> groups =
      succeeded(outputPadding) ? n.integer("groups", 1) : Fail();
  if (failed(groups))
    return failure();
  g.stride = *stride;
  g.padding = *padding;
  g.dilation = *dilation;
  g.transposed = *transposed;
  g.groups = *groups;
  // All zeros is no output padding (what F.conv* passes when not
  // transposed).
  if (llvm::any_of(*outputPadding, [](int64_t p) { return p != 0; }))
    g.outputPadding = *outputPadding;
  return g;
}

/// The stride.convolution of `g` (checked already) over `x`, `w` and `b`
/// (null: no bias), dense row-major.
Value convolve(NodeImporter &n, const ConvolutionGeometry &g, Value x,
               Value w, Value b, ArrayRef<int64_t> shape) {
  DenseI64ArrayAttr outputPadding;
  if (!g.outputPadding.empty())
    outputPadding = n.b().getDenseI64ArrayAttr(g.outputPadding);
  UnitAttr transposed = g.transposed ? n.b().getUnitAttr() : UnitAttr();
  DType dtype = cast<StridedTensorType>(x.getType()).getDType();
  return ConvolutionOp::create(
      n.b(), n.location(), n.contiguous(shape, dtype), x, w, b,
      /*residual=*/Value(), n.b().getDenseI64ArrayAttr(g.stride),
      n.b().getDenseI64ArrayAttr(g.padding),
      n.b().getDenseI64ArrayAttr(g.dilation),
      n.b().getI64IntegerAttr(g.groups), transposed, outputPadding,
      /*relu=*/UnitAttr());
}

LogicalResult checkFloat(NodeImporter &n, DType dtype) {
  if (isFloat(dtype))
    return success();
  return n.error() << "convolution of " << dtypeName(dtype)
                   << " tensors: Stride convolves f16, bf16, f32 and f64";
}

/// convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups): stride.convolution in the output's float type.
LogicalResult convolution(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<Value> weight = succeeded(input) ? n.tensor("weight") : Fail();
  FailureOr<Value> bias = succeeded(weight) ? n.optionalTensor("bias") : Fail();
  if (failed(bias) || failed(checkFloat(n, n.outputDType())))
    return failure();
  DType dtype = n.outputDType();
  FailureOr<ConvolutionGeometry> g = geometryOf(n, *input, *weight, *bias);
  if (failed(g))
    return failure();
  FailureOr<Dims> shape = inferConvolutionShape(*g, [&] { return n.error(); });
  if (failed(shape) || failed(expectOutputShape(n, 0, *shape)))
    return failure();
  Value x = n.cast(*input, dtype);
  Value w = n.cast(*weight, dtype);
  Value b = *bias ? n.cast(*bias, dtype) : Value();
  n.setOutput(0, n.toType(convolve(n, *g, x, w, b, *shape), n.outputType()));
  return success();
}

/// The input's gradient: the transposed convolution of the output's
/// gradient by the weight, with the output padding that gives the input's
/// size back.
Value inputGradient(NodeImporter &n, const ConvolutionGeometry &g,
                    Value gradOut, Value w) {
  ConvolutionGeometry t = g;
  t.transposed = true;
  t.input = Dims(shapeOf(gradOut).begin(), shapeOf(gradOut).end());
  t.bias.reset();
  t.outputPadding.clear();
  for (int64_t d = 0; d < g.spatialRank(); ++d) {
    int64_t span = g.dilation[d] * (g.weight[d + 2] - 1) + 1;
    int64_t size = (t.input[d + 2] - 1) * g.stride[d] - 2 * g.padding[d] + span;
    t.outputPadding.push_back(g.input[d + 2] - size);
  }
  if (llvm::all_of(t.outputPadding, [](int64_t p) { return p == 0; }))
    t.outputPadding.clear();
  return convolve(n, t, gradOut, w, Value(), g.input);
}

/// The weight's gradient [C_out, C/G, K..]: one
/// stride.convolution_weight_gradient of the input by the output's
/// gradient, with the forward's parameters.
Value weightGradient(NodeImporter &n, const ConvolutionGeometry &g, Value x,
                     Value gradOut) {
  DType dtype = cast<StridedTensorType>(x.getType()).getDType();
  return ConvolutionWeightGradientOp::create(
      n.b(), n.location(), n.contiguous(g.weight, dtype), x, gradOut,
      n.b().getDenseI64ArrayAttr(g.stride),
      n.b().getDenseI64ArrayAttr(g.padding),
      n.b().getDenseI64ArrayAttr(g.dilation),
      n.b().getI64IntegerAttr(g.groups));
}

/// convolution_backward(grad_output, input, weight, bias_sizes, stride,
/// padding, dilation, transposed, output_padding, groups, output_mask) ->
/// (grad_input, grad_weight, grad_bias), each where the graph has it; a
/// transposed convolution's backward is an error at the node.
LogicalResult convolutionBackward(NodeImporter &n) {
  FailureOr<Value> gradOut = n.tensor("grad_output");
  FailureOr<Value> input = succeeded(gradOut) ? n.tensor("input") : Fail();
  FailureOr<Value> weight = succeeded(input) ? n.tensor("weight") : Fail();
  if (failed(weight))
    return failure();
  DType dtype = cast<StridedTensorType>((*gradOut).getType()).getDType();
  if (failed(checkFloat(n, dtype)))
    return failure();
  FailureOr<ConvolutionGeometry> g = geometryOf(n, *input, *weight, Value());
  if (failed(g))
    return failure();
  if (g->transposed)
    return n.error() << "the backward of a transposed convolution is not "
                        "supported";
  FailureOr<Dims> shape = inferConvolutionShape(*g, [&] { return n.error(); });
  if (failed(shape))
    return failure();
  Value dy = n.cast(*gradOut, dtype);
  Dims dyShape(shapeOf(dy).begin(), shapeOf(dy).end());
  if (dyShape != *shape)
    return n.error() << "grad_output has shape " << formatDims(dyShape)
                     << ", expected the convolution's result "
                     << formatDims(*shape);
  Value x = n.cast(*input, dtype);
  Value w = n.cast(*weight, dtype);
  // Output i, where the node has it: `build()` in its dtype and layout.
  auto gradient = [&](size_t i, ArrayRef<int64_t> expected,
                      function_ref<Value()> build) -> LogicalResult {
    if (!n.hasOutput(i))
      return success();
    if (failed(expectOutputShape(n, i, expected)))
      return failure();
    Value value = build();
    Value cast = n.cast(value, n.outputDType(i));
    n.setOutput(i, n.toType(cast, n.outputType(i)));
    return success();
  };
  Dims reduced{0};
  for (int64_t d = 2; d < int64_t(shape->size()); ++d)
    reduced.push_back(d);
  int64_t channels = g->outChannels();
  if (failed(gradient(0, g->input,
                      [&] { return inputGradient(n, *g, dy, w); })) ||
      failed(gradient(1, g->weight,
                      [&] { return weightGradient(n, *g, x, dy); })) ||
      failed(gradient(2, {channels}, [&]() -> Value {
        return SumOp::create(n.b(), n.location(),
                             n.contiguous({channels}, dtype), dy, reduced,
                             false);
      })))
    return failure();
  return success();
}

} // namespace

/// Adds the convolution and its backward to the table.
void addConvolutionOps(OpTable &ops) {
  ops.insert({{"aten.convolution.default", convolution},
              {"aten.convolution_backward.default", convolutionBackward}});
}

} // namespace stride::torch
