//===- FoldIndexMasks.cpp - Masks read from their index arithmetic --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-fold-index-masks (AttentionPasses.td): a boolean attention mask whose ops
// say, for every size and input, that it is causal, true everywhere, or
// `key index <= position` over one query row, becomes the op's causal
// flag, nothing, or its kv_length (IndexForms.h reads the ops).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "OpsBefore.h"

#include "dialects/stride/Analysis/IndexForms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>

namespace stride {
#define GEN_PASS_DEF_FOLDINDEXMASKS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The mask's dims: batch, query head, query row, key.
enum MaskDim { kBatch = 0, kHead = 1, kRow = 2, kKey = 3 };

/// What a boolean mask's predicate makes of the op.
struct MaskMeaning {
  enum class Kind { Keep, Drop, Causal, ValidLength } kind = Kind::Keep;
  /// ValidLength: key j attends where j + offset <= scalar (the scalar
  /// null: j + offset <= 0).
  int64_t offset = 0;
  Value scalar;
};

/// Reads `p` over a mask's [b, h, i, j] coordinates.
MaskMeaning meaningOf(const IndexPredicate &p) {
  using Kind = MaskMeaning::Kind;
  if (p.isTrue())
    return {Kind::Drop};
  if (p.kind != IndexPredicate::Kind::AtMostZero)
    return {};
  const IndexForm &f = p.form;
  ArrayRef<int64_t> c = f.coefficients;
  if (c.size() != 4 || c[kBatch] != 0 || c[kHead] != 0 || c[kKey] != 1)
    return {};
  // j - i <= 0: query row i sees keys j <= i, top-left.
  if (c[kRow] == -1 && f.constant == 0 && !f.scalar)
    return {Kind::Causal};
  // j + offset - s <= 0 over one query row (its coefficient is 0).
  if (c[kRow] == 0 && (!f.scalar || f.scalarCoefficient == -1))
    return {Kind::ValidLength, f.constant, f.scalar};
  return {};
}

StridedTensorType typeOf(Value v) {
  return cast<StridedTensorType>(v.getType());
}

/// Builds each op's kv_length, sharing one per scalar, offset, batch and
/// key count (a model's layers read one position).
class LengthBuilder {
public:
  /// The i32 [B] `clamp(scalar - offset + 1, 0, keys)` for `op`, or null
  /// over symbolic sizes (the key count is the clamp's bound, and the
  /// library and the decomposition build the count's mask over static
  /// sizes).
  Value lengthFor(AttentionOp op, const MaskMeaning &m) {
    if (op.getKey().getType().isSymbolic() ||
        op.getQuery().getType().isSymbolic())
      return {};
    int64_t keys = op.getKey().getType().getShape()[2];
    int64_t batch = op.getQuery().getType().getShape()[0];
    Type i64 = IntegerType::get(op.getContext(), 64);
    StridedTensorType rows = StridedTensorType::getContiguous({batch}, i64);
    auto keyOf = std::make_tuple(m.scalar.getAsOpaquePointer(), m.offset,
                                 batch, keys);
    if (auto it = built.find(keyOf); it != built.end())
      return it->second;
    OpsBefore ops(op, i64);
    Value start = m.scalar ? ops.into(scalarOf(ops, m.scalar), denseScalar(i64))
                           : ops.fullLike(0.0, denseScalar(i64), i64);
    Value perBatch = ops.expandTo(start, rows);
    // One op-building call per statement: the order of argument evaluation
    // would decide the order of the ops.
    Value plusOne = ops.fullLike(double(1 - m.offset), rows, i64);
    Value length = ops.binaryLike<AddOp>(perBatch, plusOne);
    Value low = ops.fullLike(0.0, rows, i64);
    length = ops.binaryLike<MaximumOp>(length, low);
    Value high = ops.fullLike(double(keys), rows, i64);
    length = ops.binaryLike<MinimumOp>(length, high);
    length = ops.castLike(length, IntegerType::get(op.getContext(), 32));
    return built[keyOf] = length;
  }

private:
  static StridedTensorType denseScalar(Type element) {
    return StridedTensorType::getContiguous({}, element);
  }
  /// The one element of `scalar` (every dim of size 1) as a rank-0 view.
  static Value scalarOf(OpsBefore &ops, Value scalar) {
    return typeOf(scalar).getRank() == 0 ? scalar : ops.view(scalar, {});
  }

  std::map<std::tuple<void *, int64_t, int64_t, int64_t>, Value> built;
};

struct FoldIndexMasksPass
    : stride::impl::FoldIndexMasksBase<FoldIndexMasksPass> {
  void runOnOperation() override {
    IndexFormAnalysis analysis;
    LengthBuilder lengths;
    getOperation().walk([&](Operation *op) {
      if (auto forward = dyn_cast<AttentionOp>(op))
        fold(forward, analysis, lengths);
      else if (auto backward = dyn_cast<AttentionBackwardOp>(op))
        fold(backward, analysis);
    });
  }

  /// The meaning of `op`'s boolean mask, Keep when it has none.
  template <typename OpTy>
  static MaskMeaning meaning(OpTy op, IndexFormAnalysis &analysis) {
    Value mask = op.getMask();
    if (!mask || !typeOf(mask).getElementType().isInteger(1))
      return {};
    std::optional<IndexPredicate> p = analysis.predicate(mask);
    return p ? meaningOf(*p) : MaskMeaning{};
  }

  static void fold(AttentionOp op, IndexFormAnalysis &analysis,
                   LengthBuilder &lengths) {
    MaskMeaning m = meaning(op, analysis);
    if (m.kind == MaskMeaning::Kind::ValidLength) {
      if (op.getKvLength())
        return;
      Value length = lengths.lengthFor(op, m);
      if (!length)
        return;
      op.getKvLengthMutable().assign(length);
      op.getMaskMutable().clear();
      return;
    }
    apply(op, m);
  }

  static void fold(AttentionBackwardOp op, IndexFormAnalysis &analysis) {
    apply(op, meaning(op, analysis));
  }

  template <typename OpTy> static void apply(OpTy op, const MaskMeaning &m) {
    if (m.kind != MaskMeaning::Kind::Drop && m.kind != MaskMeaning::Kind::Causal)
      return;
    op.getMaskMutable().clear();
    if (m.kind == MaskMeaning::Kind::Causal)
      op.setCausal(true);
  }
};

} // namespace
