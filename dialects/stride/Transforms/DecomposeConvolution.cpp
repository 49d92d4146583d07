//===- DecomposeConvolution.cpp - Convolution as windows and a product ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each stride.convolution becomes ops Stride compiles: the input padded
// (stride.cat of zeros), its windows as one strided view (overlapping where
// the stride is below the kernel), copied where no view flattens them, one
// batched stride.matmul with the weight, oriented so that the product is
// the result's layout (channels first or last), the bias added, then the
// epilogue (residual, relu) as ops. A transposed
// convolution is first rewritten as a convolution of stride 1 over its
// input with zeros inserted (stride.slice_scatter) and the weight flipped
// (stride.index_select). A weight gradient cuDNN does not run is first
// rewritten as a forward convolution with the batch as channels.
// python-free-docs/convolution.md.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "OpsBefore.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace stride {
#define GEN_PASS_DEF_DECOMPOSECONVOLUTION
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t p = 1;
  for (int64_t s : sizes)
    p *= s;
  return p;
}

/// Builds the decomposition of one convolution before it, in the op's
/// element type (the products accumulate in f32 or f64).
class Decomposition {
public:
  explicit Decomposition(ConvolutionOp op)
      : op(op), b(op), loc(op.getLoc()),
        element(op.getInput().getType().getElementType()),
        ops(op, element), channelsLast(isChannelsLast(op)) {}

  /// The op's result, with exactly its type.
  Value build() {
    ConvolutionGeometry g = op.getGeometry();
    Value y = g.transposed ? transposed(g) : padAndConvolve(g);
    return withEpilogue(withBias(y));
  }

private:
  /// `x` with `before[d]` and `after[d]` zeros on spatial dim `d`
  /// (negative: that many elements removed).
  Value padded(Value x, ArrayRef<int64_t> before, ArrayRef<int64_t> after) {
    for (size_t d = 0; d < before.size(); ++d) {
      int64_t dim = int64_t(d) + 2, size = shapeOf(x)[dim];
      int64_t start = std::max<int64_t>(0, -before[d]);
      int64_t end = size - std::max<int64_t>(0, -after[d]);
      if (start != 0 || end != size)
        x = ops.slice(x, dim, start, end);
      auto zeros = [&](int64_t count) {
        Dims shape = shapeOf(x);
        shape[dim] = count;
        return ops.full(0.0, shape);
      };
      SmallVector<Value> parts;
      if (before[d] > 0)
        parts.push_back(zeros(before[d]));
      parts.push_back(x);
      if (after[d] > 0)
        parts.push_back(zeros(after[d]));
      if (parts.size() == 1)
        continue;
      Dims shape = shapeOf(x);
      shape[dim] += std::max<int64_t>(0, before[d]) +
                    std::max<int64_t>(0, after[d]);
      x = CatOp::create(b, loc, ops.dense(shape), parts,
                        b.getI64IntegerAttr(dim));
    }
    return x;
  }

  /// A convolution that is not transposed: the input padded, then
  /// convolved without padding.
  Value padAndConvolve(ConvolutionGeometry g) {
    Value x = padded(op.getInput(), g.padding, g.padding);
    g.input = shapeOf(x);
    g.padding.assign(g.padding.size(), 0);
    return convolve(x, op.getWeight(), g);
  }

  /// The windows of `x` (`g` has no padding) as a view of its storage:
  /// [N, G, C/G, K.., Y..] where `channelsFirst`, else [G, N, Y.., C/G,
  /// K..].
  Value windows(Value x, const ConvolutionGeometry &g, ArrayRef<int64_t> out,
                bool channelsFirst) {
    Layout in = typeOf(x).getLayout();
    int64_t spatial = g.spatialRank(), perGroup = g.inChannels() / g.groups;
    Layout w;
    w.offset = in.offset;
    // A dim of size 1 takes stride 0: its step is never taken.
    auto add = [&](int64_t size, int64_t stride) {
      w.shape.push_back(size);
      w.strides.push_back(size == 1 ? 0 : stride);
    };
    auto batchAndGroup = [&] {
      if (channelsFirst)
        add(g.input[0], in.strides[0]);
      add(g.groups, perGroup * in.strides[1]);
      if (!channelsFirst)
        add(g.input[0], in.strides[0]);
    };
    auto positions = [&] {
      for (int64_t d = 0; d < spatial; ++d)
        add(out[d + 2], g.stride[d] * in.strides[d + 2]);
    };
    auto kernel = [&] {
      add(perGroup, in.strides[1]);
      for (int64_t d = 0; d < spatial; ++d)
        add(g.weight[d + 2], g.dilation[d] * in.strides[d + 2]);
    };
    batchAndGroup();
    if (!channelsFirst)
      positions();
    kernel();
    if (channelsFirst)
      positions();
    return ops.asStrided(x, w);
  }

  /// `x` convolved with `weight` by `g` (not transposed, no padding), as
  /// [N, C_out, Y..]. For a channels-last result, the windows
  /// [G, N * P, C/G * K] times the weight [G, C/G * K, C_out / G], whose
  /// product is [N, Y.., C_out] for one group; otherwise the weight
  /// [N, G, C_out / G, C/G * K] (broadcast over the batch) times the
  /// windows [N, G, C/G * K, P], whose product is [N, C_out, Y..].
  Value convolve(Value x, Value weight, const ConvolutionGeometry &g) {
    FailureOr<Dims> out = inferConvolutionShape(g, [&] {
      return op.emitOpError();
    });
    assert(succeeded(out) && "the decomposition keeps the geometry legal");
    int64_t spatial = g.spatialRank(), batch = g.input[0];
    int64_t outPerGroup = g.outChannels() / g.groups;
    int64_t positions = product(ArrayRef<int64_t>(*out).drop_front(2));
    int64_t reduced = g.weight[1] * product(ArrayRef<int64_t>(g.weight).drop_front(2));
    Value w = ops.viewOrCopy(weight, {g.groups, outPerGroup, reduced});
    if (!channelsLast) {
      Value win = windows(x, g, *out, /*channelsFirst=*/true);
      Value columns =
          ops.viewOrCopy(win, {batch, g.groups, reduced, positions});
      Value perBatch = ops.unsqueeze(w, 0);
      Value broadcast =
          ops.expand(perBatch, {batch, g.groups, outPerGroup, reduced});
      Value product = ops.matmul(broadcast, columns);
      return ops.view(product, *out);
    }
    Value win = windows(x, g, *out, /*channelsFirst=*/false);
    Value columns = ops.viewOrCopy(win, {g.groups, batch * positions, reduced});
    Value wt = ops.transpose(w);
    Value product = ops.matmul(columns, wt);
    if (g.groups == 1)
      product = withProductBias(product);
    Dims grouped{g.groups, batch};
    grouped.insert(grouped.end(), out->begin() + 2, out->end());
    grouped.push_back(outPerGroup);
    Value y = ops.view(product, grouped);
    // [G, N, Y.., C_out / G] -> [N, G, C_out / G, Y..].
    Dims order{1, 0, spatial + 2};
    for (int64_t d = 0; d < spatial; ++d)
      order.push_back(d + 2);
    y = ops.permute(y, order);
    return ops.viewOrCopy(y, *out);
  }

  /// A transposed convolution as one of stride 1 over the input with
  /// S - 1 zeros between its elements, padded by L (K - 1) - P (plus
  /// output_padding at the end), with the weight's kernel flipped and its
  /// channel dims swapped within each group.
  Value transposed(const ConvolutionGeometry &g) {
    int64_t spatial = g.spatialRank();
    Value x = op.getInput();
    for (int64_t d = 0; d < spatial; ++d) {
      if (g.stride[d] == 1)
        continue;
      Dims shape = shapeOf(x);
      int64_t size = shape[d + 2];
      shape[d + 2] = (size - 1) * g.stride[d] + 1;
      Value zeros = ops.full(0.0, shape);
      x = SliceScatterOp::create(b, loc, ops.dense(shape), zeros, x, d + 2, 0,
                                 shape[d + 2], g.stride[d]);
    }
    Dims before, after;
    for (int64_t d = 0; d < spatial; ++d) {
      before.push_back(g.dilation[d] * (g.weight[d + 2] - 1) - g.padding[d]);
      after.push_back(before.back() + g.outputPaddingOf(d));
    }
    x = padded(x, before, after);
    ConvolutionGeometry forward = g;
    forward.transposed = false;
    forward.outputPadding.clear();
    forward.input = shapeOf(x);
    forward.stride.assign(spatial, 1);
    forward.padding.assign(spatial, 0);
    forward.weight[0] = g.outChannels();
    forward.weight[1] = g.inChannels() / g.groups;
    return convolve(x, flippedWeight(g), forward);
  }

  /// The weight [C_in, C_out / G, K..] as [C_out, C_in / G, K..] with each
  /// kernel dim reversed.
  Value flippedWeight(const ConvolutionGeometry &g) {
    int64_t spatial = g.spatialRank();
    int64_t inPerGroup = g.inChannels() / g.groups;
    Dims kernel(g.weight.begin() + 2, g.weight.end());
    Dims grouped{g.groups, inPerGroup, g.weight[1]};
    grouped.insert(grouped.end(), kernel.begin(), kernel.end());
    Value w = ops.viewOrCopy(op.getWeight(), grouped);
    Dims order{0, 2, 1};
    for (int64_t d = 0; d < spatial; ++d)
      order.push_back(d + 3);
    w = ops.permute(w, order);
    for (int64_t d = 0; d < spatial; ++d) {
      if (kernel[d] == 1)
        continue;
      SmallVector<int64_t> reversed;
      for (int64_t k = kernel[d] - 1; k >= 0; --k)
        reversed.push_back(k);
      auto indexType = RankedTensorType::get({kernel[d]}, b.getI64Type());
      Value index = ConstantOp::create(
          b, loc, ops.dense({kernel[d]}, b.getI64Type()),
          DenseElementsAttr::get(indexType, ArrayRef<int64_t>(reversed)));
      w = IndexSelectOp::create(b, loc, ops.dense(shapeOf(w)), w, index,
                                uint64_t(d + 3));
    }
    Dims flat{g.outChannels(), inPerGroup};
    flat.insert(flat.end(), kernel.begin(), kernel.end());
    return ops.viewOrCopy(w, flat);
  }

  /// The product [1, N * P, C_out] of a channels-last result of one group
  /// plus the bias, if any, broadcast over its rows: the form whose add
  /// stride-fuse folds into cuBLASLt's epilogue (matmul.md, "Epilogues").
  Value withProductBias(Value product) {
    Value bias = op.getBias();
    if (!bias)
      return product;
    biasAdded = true;
    Value broadcast = ops.expandTo(bias, typeOf(product));
    return AddOp::create(b, loc, typeOf(product), product, broadcast);
  }

  /// `y` [N, C_out, Y..] plus the bias, if any (and not added to the
  /// product already), into the op's result type.
  Value withBias(Value y) {
    StridedTensorType type = op.getResult().getType();
    Value bias = op.getBias();
    if (!bias || biasAdded)
      return ops.into(y, type);
    Dims column(shapeOf(y).size() - 1, 1);
    column[0] = shapeOf(bias)[0];
    Value perChannel = ops.view(bias, column);
    Value broadcast = ops.expand(perChannel, shapeOf(y));
    return AddOp::create(b, loc, type, y, broadcast);
  }

  /// `y` (in the op's result type) plus the residual, through the relu, as
  /// the op's epilogue says; each op rounds to the result type.
  Value withEpilogue(Value y) {
    StridedTensorType type = op.getResult().getType();
    if (Value residual = op.getResidual())
      y = AddOp::create(b, loc, type, y, residual);
    if (op.getRelu())
      y = ReluOp::create(b, loc, type, y);
    return y;
  }

  /// Whether the result's channels are its innermost dim (NHWC): the
  /// product is then laid out [N * P, C_out].
  static bool isChannelsLast(ConvolutionOp op) {
    StridedTensorType type = op.getResult().getType();
    return type.getShape()[1] > 1 && type.getStrides()[1] == 1;
  }

  ConvolutionOp op;
  OpBuilder b;
  Location loc;
  Type element;
  OpsBefore ops;
  bool channelsLast;
  bool biasAdded = false;
};

/// The weight gradient `op` as a forward convolution with the batch as
/// channels: the input [N, G, C/G, X..] permuted and viewed
/// [C/G, G * N, X..] convolved, in G groups, by the output's gradient
/// [N, G, C_out / G, Y..] viewed [C_out, N, Y..], with stride and dilation
/// swapped; the result [C/G, C_out, K'..] (K' >= K) cut to the kernel and
/// permuted to [C_out, C/G, K..]. The convolution is left for the
/// decomposition.
Value forwardSpelling(ConvolutionWeightGradientOp op) {
  ConvolutionGeometry g = op.getGeometry();
  OpsBefore ops(op, op.getInput().getType().getElementType());
  int64_t spatial = g.spatialRank(), batch = g.input[0], G = g.groups;
  int64_t perGroup = g.inChannels() / G, outPerGroup = g.outChannels() / G;
  Dims dy = shapeOf(op.getGradOutput());
  auto withSpatial = [&](Dims head, ArrayRef<int64_t> shape) {
    head.insert(head.end(), shape.begin() + 2, shape.end());
    return head;
  };
  auto order = [&](Dims head) {
    for (int64_t d = 0; d < spatial; ++d)
      head.push_back(d + 3);
    return head;
  };
  Value grouped = ops.viewOrCopy(op.getInput(),
                                 withSpatial({batch, G, perGroup}, g.input));
  Value byChannel = ops.permute(grouped, order({2, 1, 0}));
  Value x = ops.viewOrCopy(byChannel, withSpatial({perGroup, G * batch}, g.input));
  Value dyGrouped = ops.viewOrCopy(op.getGradOutput(),
                                   withSpatial({batch, G, outPerGroup}, dy));
  Value dyByChannel = ops.permute(dyGrouped, order({1, 2, 0}));
  Value k = ops.viewOrCopy(dyByChannel, withSpatial({G * outPerGroup, batch}, dy));
  ConvolutionGeometry forward;
  forward.input = shapeOf(x);
  forward.weight = shapeOf(k);
  forward.stride = g.dilation;
  forward.padding = g.padding;
  forward.dilation = g.stride;
  forward.groups = G;
  FailureOr<Dims> shape =
      inferConvolutionShape(forward, [&] { return op.emitOpError(); });
  assert(succeeded(shape) && "the verifier checked the forward's geometry");
  OpBuilder b(op);
  Value r = ConvolutionOp::create(
      b, op.getLoc(), ops.dense(*shape), x, k, /*bias=*/Value(),
      /*residual=*/Value(), b.getDenseI64ArrayAttr(forward.stride),
      b.getDenseI64ArrayAttr(forward.padding),
      b.getDenseI64ArrayAttr(forward.dilation), b.getI64IntegerAttr(G),
      /*transposed=*/UnitAttr(), /*output_padding=*/DenseI64ArrayAttr(),
      /*relu=*/UnitAttr());
  for (int64_t d = 0; d < spatial; ++d)
    if ((*shape)[d + 2] != g.weight[d + 2])
      r = ops.slice(r, d + 2, 0, g.weight[d + 2]);
  Dims swap{1, 0};
  for (int64_t d = 0; d < spatial; ++d)
    swap.push_back(d + 2);
  Value permuted = ops.permute(r, swap);
  return ops.into(permuted, op.getResult().getType());
}

struct DecomposeConvolutionPass
    : public stride::impl::DecomposeConvolutionBase<DecomposeConvolutionPass> {
  void runOnOperation() override {
    // The weight gradients cuDNN does not run become forward convolutions
    // first, decomposed with the others below.
    SmallVector<ConvolutionWeightGradientOp> weightGradients;
    getOperation().walk([&](ConvolutionWeightGradientOp op) {
      if (!op->hasAttr(StrideDialect::kKeepFusedAttrName))
        weightGradients.push_back(op);
    });
    for (ConvolutionWeightGradientOp op : weightGradients) {
      Value result = forwardSpelling(op);
      op.getResult().replaceAllUsesWith(result);
      op->erase();
    }
    SmallVector<ConvolutionOp> convolutions;
    // stride-convolution-library keeps the ones cuDNN runs.
    getOperation().walk([&](ConvolutionOp op) {
      if (!op->hasAttr(StrideDialect::kKeepFusedAttrName))
        convolutions.push_back(op);
    });
    for (ConvolutionOp op : convolutions) {
      Value result = Decomposition(op).build();
      op.getResult().replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
