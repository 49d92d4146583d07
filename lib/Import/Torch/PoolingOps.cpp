//===- PoolingOps.cpp - Average, max and adaptive pooling -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's pooling (issue 42) over 2 or 3 spatial dims, built from
// ops Stride has. A pooling window is a strided view of its input
// (`stride.as_strided`: [.., O_1, .., O_s, K_1, .., K_s], overlapping where
// the stride is below the window), reduced over its last s dims; padding
// is `constant_pad_nd` first (0, or -inf for max).
//
// Adaptive average pooling is separable: along each spatial dim, output
// cell o averages input cells [floor(o * in / out), ceil((o + 1) * in /
// out)), a constant [out, in] matrix of weights 1 / length applied along
// that dim (poolAlong: the input broadcast against the matrix, multiplied,
// summed). The backward of average pooling applies the transposed
// matrices (average pooling is separable too: a window's divisor is a
// product of one factor per dim); the backward of max pooling adds each
// gradient at its index (scatter_add over the flattened spatial volume).
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

#include <limits>

using namespace mlir;

namespace stride::torch {
namespace {

/// Entries of a pooling's constant tables at most: a separable pooling's
/// [out, in] weights (doubles), a max pooling's window offsets.
constexpr int64_t kMaxPoolingTable = int64_t(1) << 24;

/// Refuses a table of `rows` x `columns` entries beyond kMaxPoolingTable
/// (the sizes come from the file: checked before anything is allocated).
LogicalResult checkTable(NodeImporter &n, int64_t rows, int64_t columns,
                         StringRef what) {
  if (rows > 0 && columns > kMaxPoolingTable / rows)
    return n.error() << what << " hold " << rows << " x " << columns
                     << " entries, beyond Stride's limit of "
                     << kMaxPoolingTable;
  return success();
}

/// `x` with the [out, in] `weights` applied along `dim` (of size in):
/// result element o is the sum over i of weights[o][i] times element i.
Value poolAlong(NodeImporter &n, Value x, int64_t dim, int64_t out,
                ArrayRef<double> weights) {
  auto type = cast<StridedTensorType>(x.getType());
  DType dtype = type.getDType();
  Dims in(type.getShape().begin(), type.getShape().end());
  int64_t size = in[dim];
  Value dense = n.toType(x, n.contiguous(in, dtype));
  Dims lifted = in;
  lifted.insert(lifted.begin() + dim, 1);
  Value view =
      ViewOp::create(n.b(), n.location(), n.contiguous(lifted, dtype), dense);
  Dims pairs = lifted;
  pairs[dim] = out;
  Value spread = *n.broadcast(view, pairs);
  auto matrixType = RankedTensorType::get({out, size}, n.b().getF64Type());
  Value matrix = ConstantOp::create(
      n.b(), n.location(), n.contiguous({out, size}, DType::F64),
      DenseElementsAttr::get(matrixType, weights));
  Dims column(pairs.size(), 1);
  column[dim] = out;
  column[dim + 1] = size;
  Value shaped = ViewOp::create(n.b(), n.location(),
                                n.contiguous(column, DType::F64), matrix);
  Value w = *n.broadcast(n.cast(shaped, dtype), pairs);
  Value product =
      MulOp::create(n.b(), n.location(), n.contiguous(pairs, dtype), spread, w);
  Dims result = in;
  result[dim] = out;
  int64_t dims[] = {dim + 1};
  return SumOp::create(n.b(), n.location(), n.contiguous(result, dtype),
                       product, dims, false);
}

/// Adaptive pooling's weights [out, in]: output cell o averages cells
/// [floor(o * in / out), ceil((o + 1) * in / out)).
std::vector<double> adaptiveWeights(int64_t in, int64_t out) {
  std::vector<double> weights(size_t(out * in), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = (o * in) / out;
    int64_t end = ((o + 1) * in + out - 1) / out;
    for (int64_t i = start; i < end; ++i)
      weights[size_t(o * in + i)] = 1.0 / double(end - start);
  }
  return weights;
}

/// `weights` [rows, columns] as [columns, rows].
std::vector<double> transposed(ArrayRef<double> weights, int64_t rows,
                               int64_t columns) {
  std::vector<double> t(weights.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c)
      t[size_t(c * rows + r)] = weights[size_t(r * columns + c)];
  return t;
}

/// Refuses an input of another rank than `spatial` + 1 or + 2, or with an
/// empty spatial dim.
LogicalResult checkPoolingRank(NodeImporter &n, Value x, int64_t spatial) {
  int64_t rank = rankOf(x);
  if (rank != spatial + 1 && rank != spatial + 2)
    return n.error() << spatial << "-D pooling takes an input of rank "
                     << spatial + 1 << " or " << spatial + 2 << ", got "
                     << rank;
  for (int64_t d : shapeOf(x).take_back(spatial))
    if (d < 1)
      return n.error() << spatial << "-D pooling of an input with an empty "
                       << "spatial dim: "
                       << formatDims(
                              Dims(shapeOf(x).begin(), shapeOf(x).end()));
  return success();
}

StridedTensorType typeOfValue(Value v) {
  return cast<StridedTensorType>(v.getType());
}

/// The pooling parameters of a node, one entry per spatial dim.
struct Pooling {
  int64_t spatial;
  Dims kernel, stride, padding, dilation;
};

/// `name`'s one or `spatial` integers, one per spatial dim (PyTorch's
/// `_pair` and `_triple`); `fallback` where the list is empty (stride
/// defaults to the kernel size).
FailureOr<Dims> perDim(NodeImporter &n, StringRef name, int64_t spatial,
                       std::vector<int64_t> fallback) {
  FailureOr<std::vector<int64_t>> v = n.integers(name, fallback);
  if (failed(v))
    return failure();
  if (v->empty())
    *v = fallback;
  if (v->size() == 1)
    v->resize(size_t(spatial), v->front());
  if (int64_t(v->size()) != spatial)
    return n.error() << name << " has " << v->size()
                     << " entries; expected 1 or " << spatial;
  return Dims(v->begin(), v->end());
}

FailureOr<Pooling> poolingOf(NodeImporter &n, int64_t spatial, bool dilated) {
  FailureOr<Dims> kernel = perDim(n, "kernel_size", spatial, {});
  if (failed(kernel))
    return failure();
  FailureOr<Dims> stride =
      perDim(n, "stride", spatial,
             std::vector<int64_t>(kernel->begin(), kernel->end()));
  FailureOr<Dims> padding =
      succeeded(stride) ? perDim(n, "padding", spatial, {0}) : Fail();
  FailureOr<Dims> dilation = succeeded(padding) && dilated
                                 ? perDim(n, "dilation", spatial, {1})
                                 : FailureOr<Dims>(Dims(size_t(spatial), 1));
  if (failed(padding) || failed(dilation))
    return failure();
  Pooling p{spatial, *kernel, *stride, *padding, *dilation};
  for (int64_t i = 0; i < spatial; ++i)
    if (p.kernel[i] < 1 || p.stride[i] < 1 || p.dilation[i] < 1 ||
        p.padding[i] < 0 || p.padding[i] > p.kernel[i] / 2)
      return n.error() << "pooling needs a kernel, stride and dilation of 1 "
                          "or more and a padding of at most half the kernel";
  return p;
}

/// The output size of pooling a dim of `size` (floor mode).
int64_t pooledSize(const Pooling &p, int64_t i, int64_t size) {
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
  int64_t first = int64_t(in.size()) - p.spatial;
  for (int64_t i = 0; i < p.spatial; ++i) {
    int64_t span = p.dilation[i] * (p.kernel[i] - 1) + 1;
    if ((in[first + i] + 2 * p.padding[i] - span) % p.stride[i] != 0)
      return n.error() << "ceil_mode=True adds a partial window on dim "
                       << first + i << ", which Stride does not pool";
  }
  return success();
}

/// The pooling windows of `x` (padded already) as a view [.., O_1, ..,
/// O_s, K_1, .., K_s] of its storage.
Value windows(NodeImporter &n, Value x, const Pooling &p,
              ArrayRef<int64_t> out) {
  Layout in = typeOfValue(x).getLayout();
  int64_t first = in.rank() - p.spatial;
  Layout view;
  view.offset = in.offset;
  view.shape.assign(in.shape.begin(), in.shape.begin() + first);
  view.strides.assign(in.strides.begin(), in.strides.begin() + first);
  // A dim of size 1 takes stride 0: its step (a stride or dilation from
  // the file, perhaps huge) is never taken, and so never multiplied out.
  auto step = [](int64_t size, int64_t by, int64_t stride) {
    return size == 1 ? 0 : by * stride;
  };
  for (int64_t i = 0; i < p.spatial; ++i) {
    view.shape.push_back(out[i]);
    view.strides.push_back(step(out[i], p.stride[i], in.strides[first + i]));
  }
  for (int64_t i = 0; i < p.spatial; ++i) {
    view.shape.push_back(p.kernel[i]);
    view.strides.push_back(
        step(p.kernel[i], p.dilation[i], in.strides[first + i]));
  }
  return AsStridedOp::create(n.b(), n.location(),
                             typeOfValue(x).withLayout(view), x);
}

/// The input of a pooling node, checked, padded with `fill`, and its
/// output's spatial sizes.
FailureOr<std::pair<Value, Dims>> pooledInput(NodeImporter &n, const Pooling &p,
                                              double fill) {
  FailureOr<Value> input = n.tensor("self");
  if (failed(input) || failed(checkPoolingRank(n, *input, p.spatial)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  int64_t first = int64_t(in.size()) - p.spatial;
  // The window must fit the padded input (checked without overflow: the
  // sizes come from the file).
  for (int64_t i = 0; i < p.spatial; ++i) {
    int64_t padded =
        in[first + i] + 2 * std::min<int64_t>(p.padding[i], kMaxElements);
    if (p.padding[i] > kMaxElements ||
        p.kernel[i] - 1 > (padded - 1) / p.dilation[i])
      return n.error() << "the pooling window (kernel " << p.kernel[i]
                       << ", dilation " << p.dilation[i]
                       << ") does not fit dim " << first + i << " of the input "
                       << formatDims(Dims(in.begin(), in.end()))
                       << " padded by " << p.padding[i];
  }
  if (failed(checkCeilMode(n, p, in)))
    return failure();
  Dims out, window(in.begin(), in.begin() + first);
  for (int64_t i = 0; i < p.spatial; ++i)
    out.push_back(pooledSize(p, i, in[first + i]));
  window.insert(window.end(), out.begin(), out.end());
  window.insert(window.end(), p.kernel.begin(), p.kernel.end());
  if (!checkedNumElements(window))
    return n.error() << "the pooling windows " << formatDims(window)
                     << " are beyond Stride's limit of " << kMaxElements
                     << " elements";
  Value x = n.cast(*input, n.outputDType());
  std::vector<int64_t> pad;
  for (int64_t i = p.spatial - 1; i >= 0; --i)
    pad.insert(pad.end(), {p.padding[i], p.padding[i]});
  FailureOr<Value> xp = padded(n, x, pad, fill);
  if (failed(xp))
    return failure();
  return std::make_pair(*xp, out);
}

/// The window dims of a view from `windows`: its last `spatial`.
SmallVector<int64_t> windowDims(Value w, int64_t spatial) {
  SmallVector<int64_t> dims;
  for (int64_t d = rankOf(w) - spatial; d < rankOf(w); ++d)
    dims.push_back(d);
  return dims;
}

/// Average pooling's divisor_override: none when absent or None; 0 is an
/// error, as PyTorch's.
FailureOr<std::optional<int64_t>> divisorOverride(NodeImporter &n) {
  if (n.isNone("divisor_override") || !n.arg("divisor_override"))
    return std::optional<int64_t>();
  FailureOr<int64_t> d = n.integer("divisor_override", std::nullopt);
  if (failed(d))
    return failure();
  if (*d == 0)
    return n.error() << "average pooling with divisor_override 0";
  return std::optional<int64_t>(*d);
}

/// For average pooling without count_include_pad: the input elements each
/// window covers (the product over spatial dims of its extent clipped to
/// the input, as PyTorch's avg_pool divides), broadcast to `outShape`.
Value coveredCounts(NodeImporter &n, const Pooling &p, ArrayRef<int64_t> in,
                    ArrayRef<int64_t> outShape) {
  int64_t first = int64_t(outShape.size()) - p.spatial;
  Dims out(outShape.begin() + first, outShape.end());
  std::vector<double> counts(size_t(checkedNumElements(out).value_or(0)), 1.0);
  for (size_t linear = 0; linear < counts.size(); ++linear) {
    int64_t rest = int64_t(linear);
    for (int64_t d = p.spatial - 1; d >= 0; --d) {
      int64_t o = rest % out[d];
      rest /= out[d];
      int64_t start = o * p.stride[d] - p.padding[d];
      int64_t end = std::min(start + p.kernel[d], in[first + d]);
      counts[linear] *= double(end - std::max<int64_t>(start, 0));
    }
  }
  auto tableType = RankedTensorType::get(out, n.b().getF64Type());
  Value table = ConstantOp::create(n.b(), n.location(),
                                   n.contiguous(out, DType::F64),
                                   DenseElementsAttr::get(tableType, ArrayRef<double>(counts)));
  Dims lifted(outShape.begin(), outShape.end());
  std::fill(lifted.begin(), lifted.begin() + first, 1);
  Value shaped = ViewOp::create(n.b(), n.location(),
                                n.contiguous(lifted, DType::F64), table);
  return *n.broadcast(n.cast(shaped, n.outputDType()), outShape);
}

/// avg_pool2d / avg_pool3d(self, kernel_size, stride, padding, ceil_mode,
/// count_include_pad, divisor_override): the mean of each window (zeros
/// where it covers the padding, PyTorch's count_include_pad=True; without
/// it, the sum over the input elements the window covers).
template <int64_t spatial> LogicalResult avgPool(NodeImporter &n) {
  FailureOr<Pooling> p = poolingOf(n, spatial, /*dilated=*/false);
  FailureOr<bool> includePad =
      succeeded(p) ? n.boolean("count_include_pad", true) : Fail();
  if (failed(includePad))
    return failure();
  FailureOr<std::pair<Value, Dims>> in = pooledInput(n, *p, 0.0);
  if (failed(in))
    return failure();
  Value w = windows(n, in->first, *p, in->second);
  SmallVector<int64_t> dims = windowDims(w, spatial);
  if (failed(expectOutputShape(
          n, 0, Dims(shapeOf(w).begin(), shapeOf(w).end() - spatial))))
    return failure();
  FailureOr<std::optional<int64_t>> divisor = divisorOverride(n);
  if (failed(divisor))
    return failure();
  StridedTensorType type = n.contiguous(n.outputShape(), n.outputDType());
  bool padded = llvm::any_of(p->padding, [](int64_t v) { return v != 0; });
  if (!*divisor && !*includePad && padded) {
    // Each window divides by the input elements it covers (PyTorch's
    // count_include_pad=False): a constant count per output position.
    Value sum = SumOp::create(n.b(), n.location(), type, w, dims, false);
    Value counts = coveredCounts(n, *p, shapeOf(*n.tensor("self")),
                                 n.outputShape());
    n.setOutput(0, n.toType(DivOp::create(n.b(), n.location(), type, sum,
                                          counts),
                            n.outputType()));
    return success();
  }
  if (!*divisor) {
    n.setOutput(
        0, n.toType(MeanOp::create(n.b(), n.location(), type, w, dims, false),
                    n.outputType()));
    return success();
  }
  Value sum = SumOp::create(n.b(), n.location(), type, w, dims, false);
  Value by = *n.broadcast(n.scalarTensor(double(**divisor), n.outputDType()),
                          n.outputShape());
  n.setOutput(0, n.toType(DivOp::create(n.b(), n.location(), type, sum, by),
                          n.outputType()));
  return success();
}

/// max pooling's indices: for each window [.., O_1.., K_1..] of `w` (the
/// padded input's), the index in the input's spatial volume of its first
/// largest element, as PyTorch's: argmax over the window flattened (a copy
/// of the windows), then the window's origin (sum over dims of (o * s - p)
/// times the dim's row-major stride in the volume) plus the element's
/// offset in the window (a table indexed by the argmax).
LogicalResult maxPoolIndices(NodeImporter &n, Value w, const Pooling &p,
                             ArrayRef<int64_t> outShape, ArrayRef<int64_t> in) {
  auto wType = typeOfValue(w);
  int64_t s = p.spatial, rank = int64_t(outShape.size());
  Dims volume = rowMajorStrides(Dims(in.end() - s, in.end()));
  Value dense = CloneOp::create(
      n.b(), n.location(), n.contiguous(wType.getShape(), wType.getDType()), w);
  int64_t window = 1;
  for (int64_t k : p.kernel)
    window *= k;
  if (failed(checkTable(n, 1, window, "max pooling's window offsets")))
    return failure();
  Dims flat(outShape.begin(), outShape.end());
  flat.push_back(window);
  Value rows = ViewOp::create(n.b(), n.location(),
                              n.contiguous(flat, wType.getDType()), dense);
  StridedTensorType indexType = n.contiguous(outShape, DType::I64);
  Value arg = ArgmaxOp::create(n.b(), n.location(), indexType, rows,
                               uint64_t(rank), false);
  // The offset of each window element in the volume, row-major over the
  // window's dims.
  std::vector<int64_t> table(size_t(window), 0);
  for (int64_t e = 0; e < window; ++e)
    for (int64_t i = s - 1, rest = e; i >= 0; rest /= p.kernel[i], --i)
      table[size_t(e)] += (rest % p.kernel[i]) * p.dilation[i] * volume[i];
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
  Value index = ViewOp::create(n.b(), n.location(), indexType, inWindow);
  PointwiseBuilder pw{n, outShape};
  for (int64_t i = 0; i < s; ++i) {
    int64_t dim = rank - s + i;
    // One window along a dim: its stride is never taken (it may be huge).
    int64_t step = outShape[dim] == 1 ? 0 : p.stride[i] * volume[i];
    Value iota = IotaOp::create(n.b(), n.location(), indexType, uint64_t(dim));
    Value scaled = pw.op<MulOp>(iota, *pw.constant(double(step), DType::I64));
    Value shift = *pw.constant(double(-p.padding[i] * volume[i]), DType::I64);
    Value origin = pw.op<AddOp>(scaled, shift);
    index = pw.op<AddOp>(index, origin);
  }
  n.setOutput(1, n.toType(n.cast(index, n.outputDType(1)), n.outputType(1)));
  return success();
}

/// max_pool2d_with_indices / max_pool3d_with_indices(self, kernel_size,
/// stride, padding, dilation, ceil_mode) -> (out, indices): the largest
/// element of each window (padding is -inf) and its index in the input's
/// spatial volume.
template <int64_t spatial> LogicalResult maxPool(NodeImporter &n) {
  FailureOr<Pooling> p = poolingOf(n, spatial, /*dilated=*/true);
  if (failed(p))
    return failure();
  FailureOr<std::pair<Value, Dims>> in =
      pooledInput(n, *p, -std::numeric_limits<double>::infinity());
  if (failed(in))
    return failure();
  Value w = windows(n, in->first, *p, in->second);
  Dims outShape(shapeOf(w).begin(), shapeOf(w).end() - spatial);
  if (n.numOutputs() != 2 || failed(expectOutputShape(n, 0, outShape)))
    return failure();
  StridedTensorType type = n.contiguous(outShape, n.outputDType());
  n.setOutput(0, n.toType(MaxOp::create(n.b(), n.location(), type, w,
                                        windowDims(w, spatial), false),
                          n.outputType()));
  if (!n.hasOutput(1))
    return success();
  FailureOr<Value> input = n.tensor("self");
  return maxPoolIndices(n, w, *p, outShape, shapeOf(*input));
}

/// _adaptive_avg_pool2d / _adaptive_avg_pool3d(self, output_size): each
/// output cell the mean of its input cells, one spatial dim at a time.
template <int64_t spatial> LogicalResult adaptiveAvgPool(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("self");
  FailureOr<Dims> size =
      succeeded(input) ? perDim(n, "output_size", spatial, {}) : Fail();
  if (failed(size) || failed(checkPoolingRank(n, *input, spatial)))
    return failure();
  Dims out(shapeOf(*input).begin(), shapeOf(*input).end());
  int64_t first = int64_t(out.size()) - spatial;
  for (int64_t i = 0; i < spatial; ++i) {
    if ((*size)[i] < 1)
      return n.error() << "adaptive pooling to output size " << (*size)[i]
                       << " on dim " << first + i << ": expected 1 or more";
    if (failed(checkTable(n, (*size)[i], out[first + i],
                          "adaptive pooling's weights")))
      return failure();
    out[first + i] = (*size)[i];
  }
  if (failed(expectOutputShape(n, 0, out)))
    return failure();
  DType dtype = n.outputDType();
  DType work = dtype == DType::F64 ? DType::F64 : DType::F32;
  Value x = n.cast(*input, work);
  for (int64_t i = 0; i < spatial; ++i)
    x = poolAlong(n, x, first + i, out[first + i],
                  adaptiveWeights(shapeOf(x)[first + i], out[first + i]));
  n.setOutput(0, n.toType(n.cast(x, dtype), n.outputType()));
  return success();
}

/// The gradient's dims of a pooling backward node: `grad_output` and
/// `self` of one rank, equal outside the last `spatial` dims.
FailureOr<std::pair<Value, Value>> backwardOperands(NodeImporter &n,
                                                    int64_t spatial) {
  FailureOr<Value> grad = n.tensor("grad_output");
  FailureOr<Value> self = succeeded(grad) ? n.tensor("self") : Fail();
  if (failed(self) || failed(checkPoolingRank(n, *self, spatial)))
    return failure();
  ArrayRef<int64_t> g = shapeOf(*grad), in = shapeOf(*self);
  if (g.size() != in.size() || g.drop_back(spatial) != in.drop_back(spatial) ||
      llvm::any_of(g.take_back(spatial), [](int64_t d) { return d < 1; }))
    return n.error() << "a pooling gradient of shape "
                     << formatDims(Dims(g.begin(), g.end()))
                     << " for an input of shape "
                     << formatDims(Dims(in.begin(), in.end()))
                     << ": expected the input's rank and leading dims, and "
                        "spatial dims of 1 or more";
  if (failed(expectOutputShape(n, 0, in)))
    return failure();
  for (int64_t d = int64_t(in.size()) - spatial; d < int64_t(in.size()); ++d)
    if (failed(checkTable(n, g[d], in[d], "a pooling gradient's weights")))
      return failure();
  return std::make_pair(*grad, *self);
}

/// `grad` [.., out_1, .., out_s] through the transposed `weights` of each
/// spatial dim (weights(i, in, out): [out, in]), into the input's shape.
template <typename WeightsFn>
void separableBackward(NodeImporter &n, Value grad, ArrayRef<int64_t> in,
                       int64_t spatial, WeightsFn weights) {
  DType dtype = n.outputDType();
  DType work = dtype == DType::F64 ? DType::F64 : DType::F32;
  Value x = n.cast(grad, work);
  int64_t first = int64_t(in.size()) - spatial;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t out = shapeOf(x)[first + i], size = in[first + i];
    x = poolAlong(n, x, first + i, size,
                  transposed(weights(i, size, out), out, size));
  }
  n.setOutput(0, n.toType(n.cast(x, dtype), n.outputType()));
}

/// _adaptive_avg_pool2d_backward(grad_output, self).
LogicalResult adaptiveAvgPoolBackward(NodeImporter &n) {
  FailureOr<std::pair<Value, Value>> ops = backwardOperands(n, 2);
  if (failed(ops))
    return failure();
  separableBackward(n, ops->first, shapeOf(ops->second), 2,
                    [](int64_t, int64_t in, int64_t out) {
                      return adaptiveWeights(in, out);
                    });
  return success();
}

/// Average pooling's weights [out, in] along one dim, as PyTorch's
/// avg_pool2d computes its windows: [o * s - p, min(o * s - p + k, in +
/// p)) clipped to the input, each weighted by 1 / its divisor's factor
/// for this dim (the padded length, or the clipped one without
/// count_include_pad; 1 with divisor_override, which divides once).
std::vector<double> averageWeights(int64_t in, int64_t out, int64_t k,
                                   int64_t s, int64_t p, bool includePad,
                                   bool overridden) {
  std::vector<double> weights(size_t(out * in), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    int64_t start = o * s - p;
    int64_t end = std::min(start + k, in + p);
    int64_t padded = end - start;
    start = std::max<int64_t>(start, 0);
    end = std::min(end, in);
    double factor =
        overridden ? 1.0 : double(includePad ? padded : end - start);
    for (int64_t i = start; i < end; ++i)
      weights[size_t(o * in + i)] = 1.0 / factor;
  }
  return weights;
}

/// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding,
/// ceil_mode, count_include_pad, divisor_override).
LogicalResult avgPoolBackward(NodeImporter &n) {
  FailureOr<std::pair<Value, Value>> ops = backwardOperands(n, 2);
  FailureOr<Pooling> p =
      succeeded(ops) ? poolingOf(n, 2, /*dilated=*/false) : Fail();
  FailureOr<bool> ceil = succeeded(p) ? n.boolean("ceil_mode", false) : Fail();
  FailureOr<bool> includePad =
      succeeded(ceil) ? n.boolean("count_include_pad", true) : Fail();
  if (failed(includePad))
    return failure();
  FailureOr<std::optional<int64_t>> divisor = divisorOverride(n);
  if (failed(divisor))
    return failure();
  ArrayRef<int64_t> in = shapeOf(ops->second), g = shapeOf(ops->first);
  int64_t first = int64_t(in.size()) - 2;
  for (int64_t i = 0; i < 2; ++i) {
    // PyTorch's pooling_output_shape: the last window starts inside the
    // input or its left padding.
    int64_t span = in[first + i] + 2 * p->padding[i] - p->kernel[i];
    int64_t out =
        span < 0 ? 0
                 : (span + (*ceil ? p->stride[i] - 1 : 0)) / p->stride[i] + 1;
    if (*ceil && out > 0 &&
        (out - 1) * p->stride[i] >= in[first + i] + p->padding[i])
      --out;
    if (g[first + i] != out)
      return n.error() << "avg_pool2d_backward: the gradient has size "
                       << g[first + i] << " on dim " << first + i
                       << ", but pooling the input gives " << out;
  }
  Pooling q = *p;
  separableBackward(
      n, ops->first, in, 2, [&](int64_t i, int64_t size, int64_t out) {
        return averageWeights(size, out, q.kernel[i], q.stride[i], q.padding[i],
                              *includePad, divisor->has_value());
      });
  if (*divisor) {
    PointwiseBuilder pw{n, n.outputShape()};
    Value by = *pw.constant(double(**divisor), n.outputDType());
    n.setOutput(0, n.toType(pw.op<DivOp>(n.output(0), by), n.outputType()));
  }
  return success();
}

/// `x` row-major, its last `spatial` dims viewed as one.
Value volumeRows(NodeImporter &n, Value x, int64_t spatial, DType dtype) {
  Dims shape(shapeOf(x).begin(), shapeOf(x).end());
  Value dense = n.toType(n.cast(x, dtype), n.contiguous(shape, dtype));
  int64_t volume = 1;
  for (int64_t d : ArrayRef<int64_t>(shape).take_back(spatial))
    volume *= d;
  shape.resize(shape.size() - size_t(spatial));
  shape.push_back(volume);
  return ViewOp::create(n.b(), n.location(), n.contiguous(shape, dtype), dense);
}

/// max_pool2d_with_indices_backward(grad_output, self, kernel_size,
/// stride, padding, dilation, ceil_mode, indices): each gradient added at
/// its index in the input's H x W plane (scatter_add: windows that share
/// their largest element add up).
LogicalResult maxPoolBackward(NodeImporter &n) {
  FailureOr<std::pair<Value, Value>> ops = backwardOperands(n, 2);
  FailureOr<Value> indices = succeeded(ops) ? n.tensor("indices") : Fail();
  if (failed(indices))
    return failure();
  if (shapeOf(*indices) != shapeOf(ops->first))
    return n.error() << "max_pool2d_with_indices_backward: indices of shape "
                     << formatDims(Dims(shapeOf(*indices).begin(),
                                        shapeOf(*indices).end()))
                     << " for a gradient of shape "
                     << formatDims(Dims(shapeOf(ops->first).begin(),
                                        shapeOf(ops->first).end()));
  DType dtype = n.outputDType();
  Value grad = volumeRows(n, ops->first, 2, dtype);
  Value index = volumeRows(n, *indices, 2, DType::I64);
  Value zeros = volumeRows(n,
                           FullOp::create(n.b(), n.location(),
                                          n.contiguous(n.outputShape(), dtype),
                                          n.b().getF64FloatAttr(0.0)),
                           2, dtype);
  int64_t last = rankOf(grad) - 1;
  Value sum = ScatterAddOp::create(n.b(), n.location(), zeros.getType(), zeros,
                                   index, grad, uint64_t(last));
  Value result = ViewOp::create(n.b(), n.location(),
                                n.contiguous(n.outputShape(), dtype), sum);
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

} // namespace

/// Adds the builders of pooling to the table.
void addPoolingOps(OpTable &ops) {
  ops.insert({
      {"aten.avg_pool2d.default", avgPool<2>},
      {"aten.avg_pool3d.default", avgPool<3>},
      {"aten.max_pool2d_with_indices.default", maxPool<2>},
      {"aten.max_pool3d_with_indices.default", maxPool<3>},
      {"aten._adaptive_avg_pool2d.default", adaptiveAvgPool<2>},
      {"aten._adaptive_avg_pool3d.default", adaptiveAvgPool<3>},
      {"aten._adaptive_avg_pool2d_backward.default", adaptiveAvgPoolBackward},
      {"aten.avg_pool2d_backward.default", avgPoolBackward},
      {"aten.max_pool2d_with_indices_backward.default", maxPoolBackward},
  });
}

} // namespace stride::torch
