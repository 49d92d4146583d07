//===- ConvNetOps.cpp - Normalization, padding, nearest upsampling --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's ops of convolutional networks other than the convolution
// (issue 42): batch norm in inference, group norm, constant padding,
// and nearest upsampling by whole factors, each built from ops Stride has.
// Pooling is in PoolingOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

#include <limits>

using namespace mlir;

namespace stride::torch {
namespace {

StridedTensorType typeOfValue(Value v) {
  return cast<StridedTensorType>(v.getType());
}

} // namespace

FailureOr<Value> perChannel(NodeImporter &n, Value p, DType dtype,
                            ArrayRef<int64_t> shape) {
  int64_t channels = shape[1];
  if (rankOf(p) != 1 || shapeOf(p)[0] != channels)
    return n.error() << "a per-channel parameter has shape "
                     << formatDims(Dims(shapeOf(p).begin(), shapeOf(p).end()))
                     << ", expected [" << channels << "]";
  Dims column(shape.size() - 1, 1);
  column[0] = channels;
  ViewResult view = inferView(typeOfValue(p).getLayout(), column);
  Value v = ViewOp::create(n.b(), n.location(),
                           typeOfValue(p).withLayout(*view.layout), p);
  return n.conform(v, dtype, shape);
}

FailureOr<Value> affine(NodeImporter &n, Value y, Value weight, Value bias,
                        DType dtype, ArrayRef<int64_t> shape) {
  StridedTensorType type = n.contiguous(shape, dtype);
  for (Value param : {weight, bias}) {
    if (!param)
      continue;
    FailureOr<Value> p = perChannel(n, param, dtype, shape);
    if (failed(p))
      return failure();
    y = param == weight ? MulOp::create(n.b(), n.location(), type, y, *p).getResult()
                        : AddOp::create(n.b(), n.location(), type, y, *p).getResult();
  }
  return y;
}

namespace {

/// _native_batch_norm_legit_no_training(input, weight, bias, running_mean,
/// running_var, momentum, eps) -> (out, save_mean, save_invstd): batch
/// norm in inference, (x - mean) * rsqrt(var + eps) * weight + bias over
/// the channels (dim 1); the saved statistics are empty, as PyTorch's.
LogicalResult batchNormInference(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<Value> weight = succeeded(input) ? n.optionalTensor("weight") : Fail();
  FailureOr<Value> bias = succeeded(weight) ? n.optionalTensor("bias") : Fail();
  FailureOr<Value> mean = succeeded(bias) ? n.tensor("running_mean") : Fail();
  FailureOr<Value> var = succeeded(mean) ? n.tensor("running_var") : Fail();
  FailureOr<double> eps = succeeded(var) ? n.scalar("eps", std::nullopt) : Fail();
  if (failed(eps))
    return failure();
  if (rankOf(*input) < 2 || n.numOutputs() != 3)
    return n.error() << "batch norm takes an input of rank 2 or more and "
                        "has 3 outputs; got rank "
                     << rankOf(*input) << " and " << n.numOutputs();
  if (failed(expectOutputShape(n, 0, shapeOf(*input))))
    return failure();
  DType dtype = n.outputDType();
  ArrayRef<int64_t> shape = n.outputShape();
  StridedTensorType type = n.contiguous(shape, dtype);
  FailureOr<Value> m = perChannel(n, *mean, dtype, shape);
  if (failed(m))
    return failure();
  // rsqrt(var + eps) per channel, before the broadcast.
  Value v = n.cast(*var, dtype);
  auto vType = typeOfValue(v);
  StridedTensorType channelType = n.contiguous(vType.getShape(), dtype);
  Value epsilon = *n.broadcast(n.scalarTensor(*eps, dtype), vType.getShape());
  Value shifted = AddOp::create(n.b(), n.location(), channelType, v, epsilon);
  Value invstd = RsqrtOp::create(n.b(), n.location(), channelType, shifted);
  FailureOr<Value> scale = perChannel(n, invstd, dtype, shape);
  if (failed(scale))
    return failure();
  Value x = n.cast(*input, dtype);
  Value y = SubOp::create(n.b(), n.location(), type, x, *m);
  y = MulOp::create(n.b(), n.location(), type, y, *scale);
  FailureOr<Value> out = affine(n, y, *weight, *bias, dtype, shape);
  if (failed(out))
    return failure();
  n.setOutput(0, n.toType(*out, n.outputType()));
  for (size_t i : {1, 2})
    if (n.hasOutput(i))
      n.setOutput(i, FullOp::create(n.b(), n.location(), n.outputType(i),
                                    n.b().getF64FloatAttr(0.0)));
  return success();
}

/// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out,
/// mean, rstd): the input [N, C, ...] viewed as [N, G, C / G * HxW] (a
/// row-major copy first where its layout allows no view), each group
/// normalized by its mean and biased variance, then the per-channel affine.
LogicalResult groupNorm(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<Value> weight = succeeded(input) ? n.optionalTensor("weight") : Fail();
  FailureOr<Value> bias = succeeded(weight) ? n.optionalTensor("bias") : Fail();
  FailureOr<int64_t> groups =
      succeeded(bias) ? n.integer("group", std::nullopt) : Fail();
  FailureOr<double> eps = succeeded(groups) ? n.scalar("eps", std::nullopt) : Fail();
  if (failed(eps))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*input);
  if (shape.size() < 2 || n.numOutputs() != 3 || *groups < 1 ||
      shape[1] % *groups != 0)
    return n.error() << "group norm takes an input of rank 2 or more whose "
                        "channels the groups divide, and has 3 outputs; got "
                     << formatDims(Dims(shape.begin(), shape.end())) << ", "
                     << *groups << " groups, " << n.numOutputs() << " outputs";
  int64_t batch = shape[0], g = *groups, count = 1;
  for (int64_t d : shape.drop_front(1))
    count *= d;
  Dims grouped{batch, g, count / g}, stats{batch, g};
  if (failed(expectOutputShape(n, 0, shape)) ||
      failed(expectOutputShape(n, 1, stats)) ||
      failed(expectOutputShape(n, 2, stats)))
    return failure();
  DType dtype = n.outputDType();
  Value x = n.toType(n.cast(*input, dtype), n.contiguous(shape, dtype));
  x = ViewOp::create(n.b(), n.location(), n.contiguous(grouped, dtype), x);
  StridedTensorType groupedType = n.contiguous(grouped, dtype);
  int64_t dims[] = {2};
  Value mean = MeanOp::create(n.b(), n.location(),
                              n.contiguous({batch, g, 1}, dtype), x, dims, true);
  Value centered = SubOp::create(n.b(), n.location(), groupedType, x,
                                 *n.broadcast(mean, grouped));
  Value square = MulOp::create(n.b(), n.location(), groupedType, centered, centered);
  Value variance = MeanOp::create(n.b(), n.location(),
                                  n.contiguous({batch, g, 1}, dtype), square,
                                  dims, true);
  Value epsilon = *n.broadcast(n.scalarTensor(*eps, dtype), {batch, g, 1});
  Value shifted = AddOp::create(n.b(), n.location(),
                                n.contiguous({batch, g, 1}, dtype), variance, epsilon);
  Value rstd = RsqrtOp::create(n.b(), n.location(),
                               n.contiguous({batch, g, 1}, dtype), shifted);
  Value y = MulOp::create(n.b(), n.location(), groupedType, centered,
                          *n.broadcast(rstd, grouped));
  StridedTensorType type = n.contiguous(shape, dtype);
  y = ViewOp::create(n.b(), n.location(), type, y);
  FailureOr<Value> out = affine(n, y, *weight, *bias, dtype, shape);
  if (failed(out))
    return failure();
  n.setOutput(0, n.toType(*out, n.outputType()));
  n.setOutput(1, n.toType(ViewOp::create(n.b(), n.location(),
                                         n.contiguous(stats, dtype), mean),
                          n.outputType(1)));
  n.setOutput(2, n.toType(ViewOp::create(n.b(), n.location(),
                                         n.contiguous(stats, dtype), rstd),
                          n.outputType(2)));
  return success();
}

/// upsample_nearest2d(input, output_size, scale_factors) with whole scale
/// factors: each element repeated s x s times, a stride-0 view
/// [N, C, H, s, W, s] of the input copied into [N, C, H * s, W * s].
LogicalResult upsampleNearest(NodeImporter &n) {
  // `.vec` names its tensor `input`, `.default` `self`.
  FailureOr<Value> input = n.tensor(n.isTensor("self") ? "self" : "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  ArrayRef<int64_t> out = n.outputShape();
  if (in.size() != 4 || out.size() != 4 || out[2] % in[2] != 0 ||
      out[3] % in[3] != 0)
    return n.error() << "upsample_nearest2d from "
                     << formatDims(Dims(in.begin(), in.end())) << " to "
                     << formatDims(Dims(out.begin(), out.end()))
                     << ": Stride takes whole scale factors of a rank-4 input";
  int64_t sh = out[2] / in[2], sw = out[3] / in[3];
  Layout l = typeOfValue(*input).getLayout();
  Layout spread{{in[0], in[1], in[2], sh, in[3], sw},
                {l.strides[0], l.strides[1], l.strides[2], 0, l.strides[3], 0},
                l.offset};
  Value repeated = AsStridedOp::create(
      n.b(), n.location(), typeOfValue(*input).withLayout(spread), *input);
  DType dtype = n.outputDType();
  Value copy = CloneOp::create(n.b(), n.location(),
                               n.contiguous(spread.shape, dtype),
                               n.cast(repeated, dtype));
  n.setOutput(0, n.toType(ViewOp::create(n.b(), n.location(),
                                         n.contiguous(out, dtype), copy),
                          n.outputType()));
  return success();
}

/// `x` with `before` and `after` elements of `value` on dim `d` (negative:
/// that many removed), contiguous where anything is added.
Value padDim(NodeImporter &n, Value x, int64_t d, int64_t before,
             int64_t after, double value) {
  auto type = typeOfValue(x);
  int64_t size = shapeOf(x)[d];
  int64_t start = std::max<int64_t>(0, -before);
  int64_t end = size - std::max<int64_t>(0, -after);
  if (start != 0 || end != size) {
    ViewResult view = inferSlice(type.getLayout(), d, start, end, 1);
    x = SliceOp::create(n.b(), n.location(), type.withLayout(*view.layout), x,
                        d, start, end, uint64_t(1));
  }
  SmallVector<Value> parts;
  auto fill = [&](int64_t count) {
    Dims shape(shapeOf(x).begin(), shapeOf(x).end());
    shape[d] = count;
    parts.push_back(FullOp::create(n.b(), n.location(),
                                   n.contiguous(shape, type.getDType()),
                                   n.b().getF64FloatAttr(value)));
  };
  if (before > 0)
    fill(before);
  parts.push_back(x);
  if (after > 0)
    fill(after);
  if (parts.size() == 1)
    return x;
  Dims shape(shapeOf(x).begin(), shapeOf(x).end());
  shape[d] += std::max<int64_t>(0, before) + std::max<int64_t>(0, after);
  return CatOp::create(n.b(), n.location(), n.contiguous(shape, type.getDType()),
                       parts, n.b().getI64IntegerAttr(d));
}

/// constant_pad_nd(self, pad, value=0).
LogicalResult constantPad(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("self");
  FailureOr<std::vector<int64_t>> pad =
      succeeded(input) ? n.integers("pad", std::nullopt) : Fail();
  FailureOr<double> value = succeeded(pad) ? n.scalar("value", 0.0) : Fail();
  if (failed(value))
    return failure();
  FailureOr<Value> x = padded(n, n.cast(*input, n.outputDType()), *pad, *value);
  if (failed(x) || failed(expectOutputShape(n, 0, shapeOf(*x))))
    return failure();
  n.setOutput(0, n.toType(*x, n.outputType()));
  return success();
}

} // namespace

/// `x` padded as constant_pad_nd's `pad` says: (before, after) pairs from
/// the last dim backwards.
FailureOr<Value> padded(NodeImporter &n, Value x, ArrayRef<int64_t> pad,
                        double value) {
  int64_t rank = rankOf(x);
  if (pad.size() % 2 != 0 || int64_t(pad.size()) > 2 * rank)
    return n.error() << "pad has " << pad.size() << " entries; expected an "
                     << "even number, at most twice the rank " << rank;
  for (size_t i = 0; i < pad.size(); i += 2) {
    int64_t d = rank - 1 - int64_t(i / 2);
    // Bounded first, so that the sums below cannot overflow.
    if (std::abs(pad[i]) > kMaxElements || std::abs(pad[i + 1]) > kMaxElements ||
        shapeOf(x)[d] + pad[i] + pad[i + 1] > kMaxElements)
      return n.error() << "pad (" << pad[i] << ", " << pad[i + 1]
                       << ") of dim " << d << " is beyond Stride's limit of "
                       << kMaxElements << " elements";
    if (shapeOf(x)[d] + pad[i] + pad[i + 1] < 0)
      return n.error() << "pad removes more than dim " << d << "'s "
                       << shapeOf(x)[d] << " elements";
    x = padDim(n, x, d, pad[i], pad[i + 1], value);
  }
  return x;
}

/// Adds the builders of normalization, padding and pooling to the table.
void addConvNetOps(OpTable &ops) {
  ops.insert({
      {"aten._native_batch_norm_legit_no_training.default", batchNormInference},
      {"aten.native_group_norm.default", groupNorm},
      {"aten.upsample_nearest2d.vec", upsampleNearest},
      {"aten.upsample_nearest2d.default", upsampleNearest},
      {"aten.constant_pad_nd.default", constantPad},
  });
}

} // namespace stride::torch
