//===- GridSampleOps.cpp - grid_sampler_2d --------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's grid_sampler_2d (issue 42, the rest of core ATen), as
// PyTorch's grid_sampler_2d kernel computes it: each grid point (x, y) in
// [-1, 1] unnormalized to pixel coordinates (align_corners: (g + 1) / 2 *
// (size - 1); otherwise ((g + 1) * size - 1) / 2), clipped to the image
// with padding mode border; then bilinear (the four neighbours weighted
// by their distances) or nearest (the coordinate rounded, halves to even)
// interpolation. Each neighbour is a gather from the image's flattened
// H x W plane; one outside the image reads 0 (padding mode zeros).
// Bicubic interpolation and reflection padding are refused by name.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

using namespace mlir;

namespace stride::torch {
namespace {

enum class Interpolation : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class Padding : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

/// `v` clamped to [low, high].
Value clamped(PointwiseBuilder &p, Value v, Value low, Value high) {
  Value above = p.op<MaximumOp>(v, low);
  return p.op<MinimumOp>(above, high);
}

/// `v` where it is a number, `otherwise` where it is NaN.
Value numberOr(PointwiseBuilder &p, Value v, Value otherwise) {
  Value isNumber = p.compare(CmpPredicate::eq, v, v);
  return p.select(isNumber, v, otherwise);
}

/// The image, its grid points and their coordinates, all flat: the image
/// [N, C, H * W], coordinates [N, 1, L] (L = Ho * Wo) in the work dtype.
struct Sampler {
  NodeImporter &n;
  Value image;
  int64_t height, width;
  Dims points;  // [N, 1, L]
  Dims samples; // [N, C, L]
  DType work;

  /// The pixel at integer coordinates (x, y) of each point (floats), 0
  /// where outside the image, times `weight`.
  Value tap(Value x, Value y, Value weight) {
    PointwiseBuilder p{n, points};
    Value zero = *p.constant(0.0, work);
    Value lastColumn = *p.constant(double(width - 1), work);
    Value lastRow = *p.constant(double(height - 1), work);
    Value inside;
    for (auto [coordinate, last] :
         {std::pair(x, lastColumn), std::pair(y, lastRow)}) {
      Value above = p.compare(CmpPredicate::ge, coordinate, zero);
      Value within = p.compare(CmpPredicate::le, coordinate, last);
      Value both = p.op<AndOp>(above, within);
      inside = inside ? p.op<AndOp>(inside, both) : both;
    }
    // A NaN coordinate (outside, above) reads a pixel in the image, whose
    // weight is 0: no NaN reaches the integer index.
    Value cx = clamped(p, numberOr(p, x, zero), zero, lastColumn);
    Value cy = clamped(p, numberOr(p, y, zero), zero, lastRow);
    Value ix = n.cast(cx, DType::I64);
    Value iy = n.cast(cy, DType::I64);
    Value rowLength = *p.constant(double(width), DType::I64);
    Value row = p.op<MulOp>(iy, rowLength);
    Value index = p.op<AddOp>(row, ix);
    Value spread = *n.broadcast(index, samples);
    Value pixels =
        GatherOp::create(n.b(), n.location(), n.contiguous(samples, work),
                         image, spread, uint64_t(2));
    Value kept = p.select(inside, weight, zero);
    PointwiseBuilder s{n, samples};
    return s.op<MulOp>(pixels, *n.broadcast(kept, samples));
  }
};

/// A grid coordinate g [N, Ho, Wo] (a view of the grid) as a pixel
/// coordinate along a dim of `size`, flat [N, 1, L].
Value pixelCoordinate(NodeImporter &n, Value g, int64_t size, bool align,
                      Padding padding, ArrayRef<int64_t> points, DType work) {
  Value flat = n.toType(n.cast(g, work), n.contiguous(shapeOf(g), work));
  flat = ViewOp::create(n.b(), n.location(), n.contiguous(points, work), flat);
  PointwiseBuilder p{n, points};
  Value one = *p.constant(1.0, work);
  Value shifted = p.op<AddOp>(flat, one);
  Value pixel;
  if (align) {
    pixel = p.op<MulOp>(shifted, *p.constant(double(size - 1) / 2.0, work));
  } else {
    Value scaled = p.op<MulOp>(shifted, *p.constant(double(size), work));
    Value less = p.op<SubOp>(scaled, one);
    pixel = p.op<DivOp>(less, *p.constant(2.0, work));
  }
  if (padding == Padding::Border) {
    Value zero = *p.constant(0.0, work);
    Value last = *p.constant(double(size - 1), work);
    pixel = clamped(p, pixel, zero, last);
  }
  return pixel;
}

/// grid_sampler_2d(input, grid, interpolation_mode, padding_mode,
/// align_corners).
LogicalResult gridSampler(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<Value> grid = succeeded(input) ? n.tensor("grid") : Fail();
  FailureOr<int64_t> mode =
      succeeded(grid) ? n.integer("interpolation_mode", std::nullopt) : Fail();
  FailureOr<int64_t> padMode =
      succeeded(mode) ? n.integer("padding_mode", std::nullopt) : Fail();
  FailureOr<bool> align =
      succeeded(padMode) ? n.boolean("align_corners", false) : Fail();
  if (failed(align))
    return failure();
  if (*mode != int64_t(Interpolation::Bilinear) &&
      *mode != int64_t(Interpolation::Nearest))
    return n.error() << "grid_sampler_2d interpolation mode " << *mode
                     << " is not imported: Stride takes bilinear (0) and "
                        "nearest (1)";
  if (*padMode != int64_t(Padding::Zeros) &&
      *padMode != int64_t(Padding::Border))
    return n.error() << "grid_sampler_2d padding mode " << *padMode
                     << " is not imported: Stride takes zeros (0) and "
                        "border (1)";
  ArrayRef<int64_t> in = shapeOf(*input), g = shapeOf(*grid);
  if (in.size() != 4 || g.size() != 4 || g[0] != in[0] || g[3] != 2 ||
      in[2] < 1 || in[3] < 1)
    return n.error() << "grid_sampler_2d takes an input [N, C, H, W] of "
                        "non-empty H and W, and a grid [N, Ho, Wo, 2]";
  Dims out{in[0], in[1], g[1], g[2]};
  if (failed(expectOutputShape(n, 0, out)))
    return failure();
  DType dtype = n.outputDType();
  DType work = dtype == DType::F64 ? DType::F64 : DType::F32;
  int64_t length = g[1] * g[2];
  Dims points{in[0], 1, length}, samples{in[0], in[1], length};
  Dims plane{in[0], in[1], in[2] * in[3]};
  Value image = n.toType(n.cast(*input, work), n.contiguous(in, work));
  image = ViewOp::create(n.b(), n.location(), n.contiguous(plane, work), image);
  auto coordinate = [&](int64_t which, int64_t size) {
    auto gridType = cast<StridedTensorType>(grid->getType());
    ViewResult view = inferSelect(gridType.getLayout(), 3, which);
    Value part =
        SelectOp::create(n.b(), n.location(), gridType.withLayout(*view.layout),
                         *grid, 3, which);
    return pixelCoordinate(n, part, size, *align, Padding(*padMode), points,
                           work);
  };
  Value x = coordinate(0, in[3]);
  Value y = coordinate(1, in[2]);
  Sampler sampler{n, image, in[2], in[3], points, samples, work};
  PointwiseBuilder p{n, points};
  Value result;
  if (*mode == int64_t(Interpolation::Nearest)) {
    Value rx = p.op<RoundOp>(x);
    Value ry = p.op<RoundOp>(y);
    result = sampler.tap(rx, ry, *p.constant(1.0, work));
  } else {
    Value one = *p.constant(1.0, work);
    Value x0 = p.op<FloorOp>(x);
    Value y0 = p.op<FloorOp>(y);
    Value x1 = p.op<AddOp>(x0, one);
    Value y1 = p.op<AddOp>(y0, one);
    Value east = p.op<SubOp>(x, x0), west = p.op<SubOp>(x1, x);
    Value south = p.op<SubOp>(y, y0), north = p.op<SubOp>(y1, y);
    PointwiseBuilder s{n, samples};
    result = sampler.tap(x0, y0, p.op<MulOp>(west, north));
    result = s.op<AddOp>(result, sampler.tap(x1, y0, p.op<MulOp>(east, north)));
    result = s.op<AddOp>(result, sampler.tap(x0, y1, p.op<MulOp>(west, south)));
    result = s.op<AddOp>(result, sampler.tap(x1, y1, p.op<MulOp>(east, south)));
  }
  Value shaped =
      ViewOp::create(n.b(), n.location(), n.contiguous(out, work), result);
  n.setOutput(0, n.toType(n.cast(shaped, dtype), n.outputType()));
  return success();
}

} // namespace

/// Adds grid_sampler_2d to the table.
void addGridSampleOps(OpTable &ops) {
  ops.insert({{"aten.grid_sampler_2d.default", gridSampler}});
}

} // namespace stride::torch
