//===- UpsampleOps.cpp - Bilinear upsampling ------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's upsample_bilinear2d: along each of the two spatial dims,
// the two source rows of every output row (index_select by constant
// indices) blended by constant weights, which are PyTorch's
// (area_pixel_compute_source_index): with align_corners, source
// i * (in - 1) / (out - 1); without, (i + 0.5) * scale - 0.5 clamped at 0,
// scale 1 / scale_factor when one is given and in / out otherwise. f16 and
// bf16 are blended in f32 and rounded once, as PyTorch's kernels
// accumulate. Nearest upsampling is in ConvNetOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

using namespace mlir;

namespace stride::torch {
namespace {

/// For each output row along one dim: the two source rows and their
/// weights.
struct Taps {
  std::vector<int64_t> first, second;
  std::vector<float> firstWeight, secondWeight;
};

Taps bilinearTaps(int64_t in, int64_t out, bool alignCorners,
                  std::optional<double> scaleFactor) {
  // PyTorch computes the scale and the source index in float.
  float scale;
  if (alignCorners)
    scale = out > 1 ? float(in - 1) / float(out - 1) : 0.0f;
  else
    scale = scaleFactor && *scaleFactor > 0 ? float(1.0 / *scaleFactor)
                                            : float(in) / float(out);
  Taps taps;
  for (int64_t i = 0; i < out; ++i) {
    float source = alignCorners ? scale * float(i)
                                : std::max(scale * (float(i) + 0.5f) - 0.5f, 0.0f);
    int64_t low = std::min<int64_t>(int64_t(source), in - 1);
    int64_t high = low < in - 1 ? low + 1 : low;
    float lambda = source - float(low);
    taps.first.push_back(low);
    taps.second.push_back(high);
    taps.firstWeight.push_back(1.0f - lambda);
    taps.secondWeight.push_back(lambda);
  }
  return taps;
}

/// A constant 1-D tensor of `values` (i64 or f32).
template <typename T>
Value constantVector(NodeImporter &n, ArrayRef<T> values, DType dtype) {
  int64_t size = int64_t(values.size());
  auto type = RankedTensorType::get({size}, n.elementType(dtype));
  return ConstantOp::create(n.b(), n.location(), n.contiguous({size}, dtype),
                            DenseElementsAttr::get(type, values));
}

/// `x` (f32 or f64, rank 4) resampled along `dim` by `taps`.
Value blendAlong(NodeImporter &n, Value x, int64_t dim, const Taps &taps) {
  auto type = llvm::cast<StridedTensorType>(x.getType());
  DType dtype = type.getDType();
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  shape[dim] = int64_t(taps.first.size());
  StridedTensorType resultType = n.contiguous(shape, dtype);
  auto rows = [&](const std::vector<int64_t> &index,
                  const std::vector<float> &weight) {
    Value indices = constantVector<int64_t>(n, index, DType::I64);
    Value selected = IndexSelectOp::create(n.b(), n.location(), resultType, x,
                                           indices, uint64_t(dim));
    Value weights = n.cast(constantVector<float>(n, weight, DType::F32), dtype);
    std::vector<int64_t> column(shape.size(), 1);
    column[dim] = shape[dim];
    Value view = ViewOp::create(n.b(), n.location(), n.contiguous(column, dtype),
                                weights);
    Value spread = *n.broadcast(view, shape);
    return MulOp::create(n.b(), n.location(), resultType, selected, spread)
        .getResult();
  };
  Value low = rows(taps.first, taps.firstWeight);
  Value high = rows(taps.second, taps.secondWeight);
  return AddOp::create(n.b(), n.location(), resultType, low, high);
}

/// upsample_bilinear2d.vec(input, output_size, align_corners,
/// scale_factors) and .default(self, output_size, align_corners, scales_h,
/// scales_w).
LogicalResult upsampleBilinear(NodeImporter &n) {
  bool isVec = n.isTensor("input");
  FailureOr<Value> input = n.tensor(isVec ? "input" : "self");
  FailureOr<bool> align =
      succeeded(input) ? n.boolean("align_corners", false) : Fail();
  if (failed(align))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  ArrayRef<int64_t> out = n.outputShape();
  if (in.size() != 4 || out.size() != 4 || in[0] != out[0] || in[1] != out[1] ||
      in[2] < 1 || in[3] < 1)
    return n.error() << "upsample_bilinear2d from "
                     << formatDims(Dims(in.begin(), in.end())) << " to "
                     << formatDims(Dims(out.begin(), out.end()))
                     << ": Stride takes a rank-4 input with rows and columns";
  std::optional<double> scales[2];
  if (isVec) {
    const Argument *factors = n.arg("scale_factors");
    if (factors && factors->kind == Argument::Kind::Floats &&
        factors->floats.size() == 2)
      scales[0] = factors->floats[0], scales[1] = factors->floats[1];
  } else {
    for (int i = 0; i < 2; ++i) {
      const char *name = i == 0 ? "scales_h" : "scales_w";
      if (n.arg(name) && !n.isNone(name)) {
        FailureOr<double> s = n.scalar(name, std::nullopt);
        if (failed(s))
          return failure();
        scales[i] = *s;
      }
    }
  }
  DType dtype = n.outputDType();
  DType blendType = dtype == DType::F64 ? DType::F64 : DType::F32;
  Value x = n.cast(*input, blendType);
  for (int i = 0; i < 2; ++i)
    x = blendAlong(n, x, 2 + i, bilinearTaps(in[2 + i], out[2 + i], *align,
                                             scales[i]));
  n.setOutput(0, n.toType(n.cast(x, dtype), n.outputType()));
  return success();
}

} // namespace

/// Adds bilinear upsampling to the table.
void addUpsampleOps(OpTable &ops) {
  ops.insert({
      {"aten.upsample_bilinear2d.vec", upsampleBilinear},
      {"aten.upsample_bilinear2d.default", upsampleBilinear},
  });
}

} // namespace stride::torch
