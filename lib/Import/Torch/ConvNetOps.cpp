//===- ConvNetOps.cpp - Normalization, padding and pooling ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's ops of convolutional networks other than the convolution
// (issue 42): batch norm in inference, group norm, constant padding,
// nearest upsampling by whole factors, and 2-D average and max pooling,
// each built from ops Stride has. A pooling window is a
// strided view of its input (`stride.as_strided`: [.., OH, OW, KH, KW],
// overlapping where the stride is below the window), reduced over its
// last two dims; padding is `constant_pad_nd` first (0, or -inf for max).
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

/// The 2-D pooling parameters of a node: each a pair (height, width).
struct Pooling {
  int64_t kernel[2], stride[2], padding[2], dilation[2] = {1, 1};
};

/// `name`'s one or two integers as a pair (PyTorch's `_pair`); `fallback`
/// where the list is empty (stride defaults to the kernel size).
FailureOr<std::pair<int64_t, int64_t>> pairOf(NodeImporter &n, StringRef name,
                                              std::vector<int64_t> fallback) {
  FailureOr<std::vector<int64_t>> v = n.integers(name, fallback);
  if (failed(v))
    return failure();
  if (v->empty())
    *v = fallback;
  if (v->size() == 1)
    v->push_back(v->front());
  if (v->size() != 2)
    return n.error() << name << " has " << v->size()
                     << " entries; expected 1 or 2";
  return std::make_pair((*v)[0], (*v)[1]);
}

FailureOr<Pooling> poolingOf(NodeImporter &n, bool dilated) {
  Pooling p;
  FailureOr<std::pair<int64_t, int64_t>> kernel = pairOf(n, "kernel_size", {});
  if (failed(kernel))
    return failure();
  std::vector<int64_t> k{kernel->first, kernel->second};
  FailureOr<std::pair<int64_t, int64_t>> stride = pairOf(n, "stride", k);
  FailureOr<std::pair<int64_t, int64_t>> padding =
      succeeded(stride) ? pairOf(n, "padding", {0}) : Fail();
  FailureOr<std::pair<int64_t, int64_t>> dilation =
      succeeded(padding) && dilated ? pairOf(n, "dilation", {1})
                                    : FailureOr<std::pair<int64_t, int64_t>>(
                                          std::make_pair(1, 1));
  if (failed(padding) || failed(dilation))
    return failure();
  p = {{k[0], k[1]},
       {stride->first, stride->second},
       {padding->first, padding->second},
       {dilation->first, dilation->second}};
  for (int i = 0; i < 2; ++i)
    if (p.kernel[i] < 1 || p.stride[i] < 1 || p.dilation[i] < 1 ||
        p.padding[i] < 0 || p.padding[i] > p.kernel[i] / 2)
      return n.error() << "pooling needs a kernel, stride and dilation of 1 "
                          "or more and a padding of at most half the kernel";
  return p;
}

/// The output size of pooling a dim of `size` (floor mode).
int64_t pooledSize(const Pooling &p, int i, int64_t size) {
  int64_t span = p.dilation[i] * (p.kernel[i] - 1) + 1;
  return (size + 2 * p.padding[i] - span) / p.stride[i] + 1;
}

/// Refuses ceil_mode where it changes the output size.
LogicalResult checkCeilMode(NodeImporter &n, const Pooling &p,
                            ArrayRef<int64_t> in) {
  FailureOr<bool> ceil = n.boolean("ceil_mode", false);
  if (failed(ceil))
    return failure();
  if (!*ceil)
    return success();
  for (int i = 0; i < 2; ++i) {
    int64_t size = in[in.size() - 2 + i];
    int64_t span = p.dilation[i] * (p.kernel[i] - 1) + 1;
    if ((size + 2 * p.padding[i] - span) % p.stride[i] != 0)
      return n.error() << "ceil_mode=True adds a partial window on dim "
                       << in.size() - 2 + i << ", which Stride does not pool";
  }
  return success();
}

/// The pooling windows of `x` (padded already) as a view [.., OH, OW, KH,
/// KW] of its storage.
Value windows(NodeImporter &n, Value x, const Pooling &p, int64_t oh,
              int64_t ow) {
  Layout in = typeOfValue(x).getLayout();
  int64_t r = in.rank();
  Layout view;
  view.offset = in.offset;
  for (int64_t d = 0; d < r - 2; ++d) {
    view.shape.push_back(in.shape[d]);
    view.strides.push_back(in.strides[d]);
  }
  int64_t sh = in.strides[r - 2], sw = in.strides[r - 1];
  view.shape.insert(view.shape.end(), {oh, ow, p.kernel[0], p.kernel[1]});
  // A dim of size 1 takes stride 0: its step (a stride or dilation from
  // the file, perhaps huge) is never taken, and so never multiplied out.
  auto step = [](int64_t size, int64_t by, int64_t stride) {
    return size == 1 ? 0 : by * stride;
  };
  view.strides.insert(view.strides.end(),
                      {step(oh, p.stride[0], sh), step(ow, p.stride[1], sw),
                       step(p.kernel[0], p.dilation[0], sh),
                       step(p.kernel[1], p.dilation[1], sw)});
  return AsStridedOp::create(n.b(), n.location(),
                             typeOfValue(x).withLayout(view), x);
}

/// The input of a 2-D pooling node, checked, padded with `fill`, and its
/// output's height and width.
FailureOr<std::tuple<Value, int64_t, int64_t>>
pooledInput(NodeImporter &n, const Pooling &p, double fill) {
  FailureOr<Value> input = n.tensor("self");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  if (in.size() != 3 && in.size() != 4)
    return n.error() << "2-D pooling takes an input of rank 3 or 4, got "
                     << in.size();
  // The window must fit the padded input (checked without overflow: the
  // sizes come from the file).
  for (int i = 0; i < 2; ++i) {
    int64_t padded = in[in.size() - 2 + i] + 2 * std::min<int64_t>(
                                                 p.padding[i], kMaxElements);
    if (p.padding[i] > kMaxElements || p.kernel[i] - 1 > (padded - 1) / p.dilation[i])
      return n.error() << "the pooling window (kernel " << p.kernel[i]
                       << ", dilation " << p.dilation[i]
                       << ") does not fit dim " << in.size() - 2 + i
                       << " of the input " << formatDims(Dims(in.begin(), in.end()))
                       << " padded by " << p.padding[i];
  }
  if (failed(checkCeilMode(n, p, in)))
    return failure();
  int64_t oh = pooledSize(p, 0, in[in.size() - 2]);
  int64_t ow = pooledSize(p, 1, in[in.size() - 1]);
  Dims window(in.begin(), in.end() - 2);
  window.insert(window.end(), {oh, ow, p.kernel[0], p.kernel[1]});
  if (!checkedNumElements(window))
    return n.error() << "the pooling windows " << formatDims(window)
                     << " are beyond Stride's limit of " << kMaxElements
                     << " elements";
  Value x = n.cast(*input, n.outputDType());
  FailureOr<Value> xp =
      padded(n, x, {p.padding[1], p.padding[1], p.padding[0], p.padding[0]},
             fill);
  if (failed(xp))
    return failure();
  return std::make_tuple(*xp, oh, ow);
}

/// avg_pool2d(self, kernel_size, stride, padding, ceil_mode,
/// count_include_pad, divisor_override): the mean of each window (zeros
/// where it covers the padding, PyTorch's count_include_pad=True).
LogicalResult avgPool(NodeImporter &n) {
  FailureOr<Pooling> p = poolingOf(n, /*dilated=*/false);
  FailureOr<bool> includePad =
      succeeded(p) ? n.boolean("count_include_pad", true) : Fail();
  if (failed(includePad))
    return failure();
  if (!*includePad && (p->padding[0] || p->padding[1]))
    return n.error() << "avg_pool2d with count_include_pad=False and padding "
                        "is not supported (the windows at the border would "
                        "divide by fewer elements)";
  FailureOr<std::tuple<Value, int64_t, int64_t>> in = pooledInput(n, *p, 0.0);
  if (failed(in))
    return failure();
  auto [x, oh, ow] = *in;
  Value w = windows(n, x, *p, oh, ow);
  int64_t r = rankOf(x);
  int64_t dims[] = {r, r + 1};
  if (failed(expectOutputShape(n, 0, Dims(shapeOf(w).begin(),
                                           shapeOf(w).end() - 2))))
    return failure();
  std::optional<int64_t> divisor;
  if (!n.isNone("divisor_override") && n.arg("divisor_override")) {
    FailureOr<int64_t> d = n.integer("divisor_override", std::nullopt);
    if (failed(d))
      return failure();
    divisor = *d;
  }
  StridedTensorType type = n.contiguous(n.outputShape(), n.outputDType());
  if (!divisor) {
    n.setOutput(0, n.toType(MeanOp::create(n.b(), n.location(), type, w, dims,
                                           false),
                            n.outputType()));
    return success();
  }
  Value sum = SumOp::create(n.b(), n.location(), type, w, dims, false);
  Value by = *n.broadcast(n.scalarTensor(double(*divisor), n.outputDType()),
                          n.outputShape());
  n.setOutput(0, n.toType(DivOp::create(n.b(), n.location(), type, sum, by),
                          n.outputType()));
  return success();
}

/// max_pool2d's indices: for each window [.., OH, OW, KH, KW] of `w` (the
/// padded input's), the index in the input's H x W plane of its first
/// largest element, as PyTorch's: argmax over the window flattened (a copy
/// of the windows), then (oh * sh - ph + kh * dh) * W + (ow * sw - pw + kw *
/// dw), the window's part a table indexed by the argmax.
LogicalResult maxPoolIndices(NodeImporter &n, Value w, const Pooling &p,
                             ArrayRef<int64_t> outShape, int64_t width) {
  auto wType = typeOfValue(w);
  int64_t r = wType.getRank(), window = p.kernel[0] * p.kernel[1];
  Value dense = CloneOp::create(
      n.b(), n.location(), n.contiguous(wType.getShape(), wType.getDType()), w);
  Dims flat(outShape.begin(), outShape.end());
  flat.push_back(window);
  Value rows = ViewOp::create(n.b(), n.location(),
                              n.contiguous(flat, wType.getDType()), dense);
  StridedTensorType indexType = n.contiguous(outShape, DType::I64);
  Value arg = ArgmaxOp::create(n.b(), n.location(), indexType, rows,
                               uint64_t(r - 2), false);
  // The offset of each window element in the plane.
  std::vector<int64_t> table;
  for (int64_t kh = 0; kh < p.kernel[0]; ++kh)
    for (int64_t kw = 0; kw < p.kernel[1]; ++kw)
      table.push_back(kh * p.dilation[0] * width + kw * p.dilation[1]);
  auto tableType = RankedTensorType::get({window}, n.b().getI64Type());
  Value offsets = ConstantOp::create(
      n.b(), n.location(), n.contiguous({window}, DType::I64),
      DenseElementsAttr::get(tableType, ArrayRef<int64_t>(table)));
  int64_t count = 1;
  for (int64_t d : outShape)
    count *= d;
  Value flatArg = ViewOp::create(n.b(), n.location(),
                                 n.contiguous({count}, DType::I64), arg);
  Value inWindow = IndexSelectOp::create(n.b(), n.location(),
                                         n.contiguous({count}, DType::I64),
                                         offsets, flatArg, uint64_t(0));
  inWindow = ViewOp::create(n.b(), n.location(), indexType, inWindow);
  // The window's origin: (oh * sh - ph) * W + ow * sw - pw.
  int64_t rank = int64_t(outShape.size());
  auto scaled = [&](int64_t dim, int64_t factor, int64_t shift) {
    Value iota = IotaOp::create(n.b(), n.location(), indexType, uint64_t(dim));
    Value f = *n.broadcast(n.scalarTensor(double(factor), DType::I64), outShape);
    Value product = MulOp::create(n.b(), n.location(), indexType, iota, f);
    Value s = *n.broadcast(n.scalarTensor(double(shift), DType::I64), outShape);
    return AddOp::create(n.b(), n.location(), indexType, product, s).getResult();
  };
  // One window along a dim: its stride is never taken (it may be huge).
  int64_t rowStep = outShape[rank - 2] == 1 ? 0 : p.stride[0] * width;
  int64_t colStep = outShape[rank - 1] == 1 ? 0 : p.stride[1];
  Value rowsPart = scaled(rank - 2, rowStep, -p.padding[0] * width);
  Value colsPart = scaled(rank - 1, colStep, -p.padding[1]);
  Value origin = AddOp::create(n.b(), n.location(), indexType, rowsPart, colsPart);
  Value index = AddOp::create(n.b(), n.location(), indexType, origin, inWindow);
  n.setOutput(1, n.toType(n.cast(index, n.outputDType(1)), n.outputType(1)));
  return success();
}

/// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation,
/// ceil_mode) -> (out, indices): the largest element of each window
/// (padding is -inf) and its index in the input's H x W plane.
LogicalResult maxPool(NodeImporter &n) {
  FailureOr<Pooling> p = poolingOf(n, /*dilated=*/true);
  if (failed(p))
    return failure();
  FailureOr<std::tuple<Value, int64_t, int64_t>> in =
      pooledInput(n, *p, -std::numeric_limits<double>::infinity());
  if (failed(in))
    return failure();
  auto [x, oh, ow] = *in;
  Value w = windows(n, x, *p, oh, ow);
  int64_t r = rankOf(x);
  int64_t width = shapeOf(x)[r - 1] - 2 * p->padding[1];
  Dims outShape(shapeOf(w).begin(), shapeOf(w).end() - 2);
  if (n.numOutputs() != 2 || failed(expectOutputShape(n, 0, outShape)))
    return failure();
  int64_t dims[] = {r, r + 1};
  StridedTensorType type = n.contiguous(outShape, n.outputDType());
  n.setOutput(0, n.toType(MaxOp::create(n.b(), n.location(), type, w, dims,
                                        false),
                          n.outputType()));
  if (n.hasOutput(1))
    return maxPoolIndices(n, w, *p, outShape, width);
  return success();
}

} // namespace

/// Adds the builders of normalization, padding and pooling to the table.
void addConvNetOps(OpTable &ops) {
  ops.insert({
      {"aten._native_batch_norm_legit_no_training.default", batchNormInference},
      {"aten.native_group_norm.default", groupNorm},
      {"aten.upsample_nearest2d.vec", upsampleNearest},
      {"aten.upsample_nearest2d.default", upsampleNearest},
      {"aten.constant_pad_nd.default", constantPad},
      {"aten.avg_pool2d.default", avgPool},
      {"aten.max_pool2d_with_indices.default", maxPool},
  });
}

} // namespace stride::torch
