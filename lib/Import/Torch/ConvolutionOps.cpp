//===- ConvolutionOps.cpp - aten.convolution ------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's convolution (issue 42): aten.convolution as one
// stride.convolution, its parameters checked by the op's own shape rule
// (Convolution.h) with the error at the node.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

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

/// convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups): stride.convolution in the output's float type.
LogicalResult convolution(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<Value> weight = succeeded(input) ? n.tensor("weight") : Fail();
  FailureOr<Value> bias = succeeded(weight) ? n.optionalTensor("bias") : Fail();
  if (failed(bias))
    return failure();
  DType dtype = n.outputDType();
  if (!isFloat(dtype))
    return n.error() << "convolution of " << dtypeName(dtype)
                     << " tensors: Stride convolves f16, bf16, f32 and f64";
  FailureOr<ConvolutionGeometry> g = geometryOf(n, *input, *weight, *bias);
  if (failed(g))
    return failure();
  FailureOr<Dims> shape = inferConvolutionShape(*g, [&] { return n.error(); });
  if (failed(shape) || failed(expectOutputShape(n, 0, *shape)))
    return failure();
  Value x = n.cast(*input, dtype);
  Value w = n.cast(*weight, dtype);
  Value b = *bias ? n.cast(*bias, dtype) : Value();
  DenseI64ArrayAttr outputPadding;
  if (!g->outputPadding.empty())
    outputPadding = n.b().getDenseI64ArrayAttr(g->outputPadding);
  UnitAttr transposed = g->transposed ? n.b().getUnitAttr() : UnitAttr();
  Value y = ConvolutionOp::create(
      n.b(), n.location(), n.contiguous(*shape, dtype), x, w, b,
      n.b().getDenseI64ArrayAttr(g->stride),
      n.b().getDenseI64ArrayAttr(g->padding),
      n.b().getDenseI64ArrayAttr(g->dilation),
      n.b().getI64IntegerAttr(g->groups), transposed, outputPadding);
  n.setOutput(0, n.toType(y, n.outputType()));
  return success();
}

} // namespace

/// Adds the convolution to the table.
void addConvolutionOps(OpTable &ops) {
  ops.insert({{"aten.convolution.default", convolution}});
}

} // namespace stride::torch
