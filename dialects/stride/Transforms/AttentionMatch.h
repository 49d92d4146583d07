//===- AttentionMatch.h - Reading attention spelled out as ops --*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The parts of attention spelled out as ops that stride-recognize-attention
// reads (RecognizeAttention.cpp defines them) and stride-pair-training-
// attention reads again in a training step's forward: values through
// reshapes and copies, the importer's softmax, the scores' scale and mask,
// the operands of the op. Internal to dialects/stride/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_ATTENTIONMATCH_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_ATTENTIONMATCH_H

#include "OpsBefore.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace stride::attention_match {

using mlir::Operation;
using mlir::Value;
using llvm::ArrayRef;

/// The operand of `value`'s defining op when that op keeps the elements in
/// row-major order (a reshape, a squeeze or unsqueeze, an expand to the
/// same shape, a copy), else null.
Value reshapedFrom(Value value);

/// `value` and each value it is a reshape or copy of, nearest first: all
/// hold the same elements in row-major order.
llvm::SmallVector<Value> reshapeChain(Value value);

/// The value a `stride.full` or a one-element float `stride.constant`
/// (seen through reshapes and broadcasts) holds, rounded to its element
/// type.
std::optional<double> constantValue(Value value);

/// Whether `value` is a float value cast from another float type.
bool isFloatCast(Value value);

/// The value `value` is, seen back through reshapes, copies and (with
/// `casts`) float casts; each op passed is added to `ops`.
Value through(Value value, llvm::SetVector<Operation *> &ops,
              bool casts = false);

/// The softmax's input `x` when `p` is the importer's softmax of `x` over
/// its last dim, with the softmax's ops added to `ops`; else null.
Value softmaxInput(Value p, llvm::SetVector<Operation *> &ops);

/// The softmax's input when `p` is PyTorch's safe softmax (math
/// attention's `_safe_softmax`), with its ops added to `ops`; else null.
Value safeSoftmaxInput(Value p, llvm::SetVector<Operation *> &ops);

/// An operand of the attention op: a value of the graph, viewed as
/// `[B, H, S, X]`, transposed, or with a group dim of 1 squeezed out, as
/// the build asks.
struct Source {
  Source() = default;
  explicit Source(Value value, Dims viewAs = {})
      : value(value), viewAs(std::move(viewAs)) {}

  Value value;
  Dims viewAs;
  bool transpose = false;
  bool squeezeGroup = false;

  explicit operator bool() const { return static_cast<bool>(value); }

  Value build(OpsBefore &ops) const {
    Value x = value;
    if (!viewAs.empty())
      x = ops.view(x, viewAs);
    if (transpose)
      x = ops.transpose(x);
    if (squeezeGroup)
      x = ops.squeeze(x, 2);
    return x;
  }
};

/// The `[batch, heads, rows, columns]` tensor that the product operand
/// `operand` (`[..., rows, columns]`, of the same elements in row-major
/// order) reshapes: the furthest such value in its chain, else a view of
/// the operand.
Source sourceOf(Value operand, int64_t batch, int64_t heads);

/// The mask of the scores `x`, as the op takes it: a mask the graph adds,
/// or one built from the condition and fill of a `stride.where` (additive
/// in the scores' type, or the condition itself for a `-inf` fill).
struct Mask {
  Value additive;
  /// A second added mask (T5: a padding mask added after the position
  /// bias), zeroOrAbsorbing; the op's mask is the sum of both.
  Value second;
  Value condition;
  double fill = 0;
  bool fillWhereTrue = false;

  Value build(OpsBefore &ops, ArrayRef<int64_t> shape) const {
    if (additive && second)
      return ops.binary<AddOp>(additive, second);
    if (additive)
      return additive;
    if (!condition)
      return {};
    // A -inf fill where the condition is false is the boolean mask itself
    // (under a safe softmax only, parseScores).
    if (fill == -kInf && !fillWhereTrue)
      return condition;
    // where(keep, 0, fill) on the condition before its broadcast.
    Value small = condition;
    if (auto expand = small.getDefiningOp<ExpandOp>();
        expand && typeOf(expand.getInput()).getRank() == 4)
      small = expand.getInput();
    Dims smallShape = shapeOf(small);
    Value zero = ops.full(0.0, smallShape);
    Value filled = ops.full(fill, smallShape);
    Value mask = fillWhereTrue ? ops.select(small, filled, zero)
                               : ops.select(small, zero, filled);
    return ops.expand(mask, shape);
  }
};

/// The softmax's input (before an upcast) taken apart: the product of
/// query and key, the scale and the mask.
struct Scores {
  MatmulOp product;
  double scale = 1;
  Mask mask;
};

/// `x` as `mask(scale * product)`, each op passed added to `ops`. Fails (a
/// null product) where the mask could change a result: an added mask must
/// be provably finite, a `where` must fill with a value that absorbs the
/// scores (python-free-docs/attention.md says why).
Scores parseScores(Value x, bool safe, llvm::SetVector<Operation *> &ops);

/// `softmax(mask(scale * Q K^T))` as the product `pv` reads it in its lhs.
struct Spelled {
  Value probabilities;      // the softmax's result
  Value scoresInput;        // what the softmax reads, before an upcast
  Scores scores;            // its product, scale and mask
};

/// `pv`'s lhs read back as a softmax of scaled, masked scores, through
/// reshapes and copies (and, with `casts`, float casts, and an upcast of
/// the scores), each op passed added to `inner`: both products plain and
/// the scores of `pv`'s lhs shape; else nullopt.
std::optional<Spelled> readSpelled(MatmulOp pv,
                                   llvm::SetVector<Operation *> &inner,
                                   bool casts);

/// Whether `op` is a matrix product with no bias, addend or epilogue.
bool plainProduct(MatmulOp op);

/// Erases `roots` and, transitively, the producers they leave unused.
void eraseDeadProducers(llvm::ArrayRef<Operation *> roots,
                        mlir::PatternRewriter &rewriter);

/// The batch and head split of the batch dims of `qk`'s operands: the
/// query's `[B, H, Sq, D]` where the graph has one, else one batch.
std::pair<int64_t, int64_t> batchAndHeads(MatmulOp qk);

} // namespace stride::attention_match

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_ATTENTIONMATCH_H
