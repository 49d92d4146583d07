//===- FoldIntoConvolution.cpp - Per-channel affine ops into a convolution ===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Patterns that fold a per-channel multiply, add or subtract of a
// convolution's result (nothing else reading it) into the convolution's
// weight and bias, and a copy of it into its result layout. Applied
// together, they fold an inference batch norm, as the importer spells it
// (sub mean, mul rsqrt(var + eps), mul weight, add bias), into the
// convolution before it. python-free-docs/convolution.md, "Folding".
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "OpsBefore.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace stride {
#define GEN_PASS_DEF_FOLDINTOCONVOLUTION
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The convolution that `v` is the result of, where nothing else reads `v`,
/// its output channels are the weight's dim 0 (not transposed) and it has
/// no epilogue (a per-channel op after a residual or a relu does not fold).
ConvolutionOp soleConvolution(Value v) {
  auto conv = v.getDefiningOp<ConvolutionOp>();
  if (!conv || conv.getTransposed() || !v.hasOneUse() || conv.getResidual() ||
      conv.getRelu())
    return {};
  return conv;
}

/// Whether `v` ([N, C, Y..]) reads one value per channel (stride 0 on every
/// other dim of more than one element).
bool perChannel(Value v) {
  Layout l = typeOf(v).getLayout();
  for (int64_t d = 0; d < l.rank(); ++d)
    if (d != 1 && l.shape[d] != 1 && l.strides[d] != 0)
      return false;
  return true;
}

/// One pattern per elementwise op: `op(conv, c)` (or `op(c, conv)` where
/// the op commutes) with `c` per channel becomes the convolution with a
/// new weight and bias, built by `Fold::rewrite`.
template <typename OpTy, bool commutes>
struct FoldPerChannel : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value lhs = op.getLhs(), rhs = op.getRhs();
    ConvolutionOp conv = soleConvolution(lhs);
    if (!conv && commutes) {
      std::swap(lhs, rhs);
      conv = soleConvolution(lhs);
    }
    if (!conv)
      return rewriter.notifyMatchFailure(op, "not a convolution's only use");
    if (!perChannel(rhs))
      return rewriter.notifyMatchFailure(op, "not one value per channel");
    OpsBefore ops(rewriter, op.getLoc(), typeOf(rhs).getElementType());
    Value c = channelValues(ops, rhs);
    auto [weight, bias] = folded(ops, conv, c);
    rewriter.replaceOpWithNewOp<ConvolutionOp>(
        op, op.getResult().getType(), conv.getInput(), weight, bias,
        /*residual=*/Value(), conv.getStrideAttr(), conv.getPaddingAttr(),
        conv.getDilationAttr(), conv.getGroupsAttr(),
        conv.getTransposedAttr(), conv.getOutputPaddingAttr(),
        /*relu=*/UnitAttr());
    rewriter.eraseOp(conv);
    return success();
  }

  /// `v`'s one value per channel as [C]: every other dim cut to its first
  /// index, then viewed. Views only (no as_strided, which the emitter takes
  /// of a computed value only where its layout is dense, and `v` is a
  /// broadcast).
  static Value channelValues(OpsBefore &ops, Value v) {
    Dims shape = shapeOf(v);
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      if (d != 1 && shape[d] != 1)
        v = ops.slice(v, d, 0, 1);
    return ops.view(v, {shape[1]});
  }

  /// The weight and bias of `conv` with the op applied per channel `c`.
  static std::pair<Value, Value> folded(OpsBefore &ops, ConvolutionOp conv,
                                        Value c) {
    Value weight = conv.getWeight(), bias = conv.getBias();
    if constexpr (std::is_same_v<OpTy, MulOp>) {
      Dims shape = shapeOf(weight);
      Dims column(shape.size(), 1);
      column[0] = shape[0];
      Value perRow = ops.view(c, column);
      Value scale = ops.expand(perRow, shape);
      Value scaled = ops.binary<MulOp>(weight, scale);
      return {scaled, bias ? ops.binary<MulOp>(bias, c) : Value()};
    } else if constexpr (std::is_same_v<OpTy, AddOp>) {
      return {weight, bias ? ops.binary<AddOp>(bias, c) : c};
    } else {
      return {weight, bias ? ops.binary<SubOp>(bias, c) : ops.unary<NegOp>(c)};
    }
  }
};

/// A copy of a convolution's result into another layout: the convolution
/// writes that layout itself.
struct FoldCopy : OpRewritePattern<CloneOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CloneOp op,
                                PatternRewriter &rewriter) const override {
    auto conv = op.getInput().getDefiningOp<ConvolutionOp>();
    if (!conv || !op.getInput().hasOneUse() ||
        typeOf(op.getInput()).getElementType() !=
            op.getResult().getType().getElementType())
      return rewriter.notifyMatchFailure(op, "not a convolution's only use");
    rewriter.modifyOpInPlace(
        conv, [&] { conv.getResult().setType(op.getResult().getType()); });
    rewriter.replaceOp(op, conv.getResult());
    return success();
  }
};

/// The ops that read a convolution's result and a pattern may fold.
SmallVector<Operation *> convolutionReaders(func::FuncOp func) {
  SmallVector<Operation *> readers;
  func.walk([&](ConvolutionOp conv) {
    for (Operation *user : conv.getResult().getUsers())
      if (isa<MulOp, AddOp, SubOp, CloneOp>(user))
        readers.push_back(user);
  });
  return readers;
}

struct FoldIntoConvolutionPass
    : stride::impl::FoldIntoConvolutionBase<FoldIntoConvolutionPass> {
  void runOnOperation() override {
    FrozenRewritePatternSet patterns = [&] {
      RewritePatternSet set(&getContext());
      set.add<FoldPerChannel<MulOp, true>, FoldPerChannel<AddOp, true>,
              FoldPerChannel<SubOp, false>, FoldCopy>(&getContext());
      return FrozenRewritePatternSet(std::move(set));
    }();
    // The patterns see only the ops that read a convolution's result,
    // again after each round (a folded op's reader reads the new
    // convolution): nothing else in the graph is folded or erased.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    config.enableFolding(false);
    config.enableConstantCSE(false);
    bool changed = true;
    while (changed) {
      SmallVector<Operation *> readers = convolutionReaders(getOperation());
      if (readers.empty())
        return;
      if (failed(applyOpPatternsGreedily(readers, patterns, config, &changed)))
        return signalPassFailure();
    }
  }
};

} // namespace
