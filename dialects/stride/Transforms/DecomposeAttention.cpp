//===- DecomposeAttention.cpp - Attention as products and a softmax -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The fallback of the fused attention call: each stride.attention and
// stride.attention_backward becomes stride.matmul products and pointwise
// and reduction ops that fusion then groups into kernels. The scores are a
// [B, Hq, Sq, Skv] tensor in memory here; only the fused call avoids that.
// python-free-docs/attention.md, "The fallback".
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "OpsBefore.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <limits>

namespace stride {
#define GEN_PASS_DEF_DECOMPOSEATTENTION
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// One attention op's operands and sizes, in the compute type: query
/// [B, Hq, Sq, D], key [B, Hkv, Skv, D], value [B, Hkv, Skv, Dv], and
/// `group` = Hq / Hkv query heads per key/value head.
class Attention {
public:
  /// For a stride.attention or stride.attention_backward `op`.
  template <typename OpTy>
  explicit Attention(OpTy op)
      : ops(op, computeType(op.getQuery().getType().getElementType())),
        mask(op.getMask()), kvLength(kvLengthOf(op)),
        scale(op.getScale().convertToDouble()), isCausal(op.getCausal()) {
    query = ops.widen(op.getQuery());
    key = ops.widen(op.getKey());
    value = ops.widen(op.getValue());
    Dims q = shapeOf(query), k = shapeOf(key);
    batch = q[0];
    heads = q[1];
    kvHeads = k[1];
    group = heads / kvHeads;
    queries = q[2];
    keys = k[2];
  }

  /// The forward's kv_length (null without one); the backward has none.
  static Value kvLengthOf(AttentionOp op) { return op.getKvLength(); }
  static Value kvLengthOf(AttentionBackwardOp) { return {}; }

  static Type computeType(Type element) {
    return element.isF64() ? element : Float32Type::get(element.getContext());
  }

  /// [B, Hq, S, X] as [B, Hkv, G, S, X] (a view, built once per value).
  Value byGroup(Value x) {
    Value &view = byGroupViews[x];
    if (!view) {
      Dims shape = shapeOf(x);
      view = ops.view(x, {batch, kvHeads, group, shape[2], shape[3]});
    }
    return view;
  }
  /// A key/value [B, Hkv, S, X] as [B, Hkv, G, S, X] (broadcast with stride
  /// 0, built once per value).
  Value perGroup(Value x) {
    Value &view = perGroupViews[x];
    if (!view) {
      Dims shape = shapeOf(x);
      view = ops.expand(ops.unsqueeze(x, 2),
                        {batch, kvHeads, group, shape[2], shape[3]});
    }
    return view;
  }
  /// [B, Hkv, G, S, X] as [B, Hq, S, X] (a view of a dense product).
  Value byHead(Value x) {
    Dims shape = shapeOf(x);
    return ops.view(x, {batch, heads, shape[3], shape[4]});
  }
  /// [B, Hkv, G, S, X] summed over the G query heads of each key/value head.
  Value sumGroup(Value x) {
    return group == 1 ? ops.squeeze(x, 2) : ops.sum(x, 2);
  }
  /// The scaled, masked scores [B, Hq, Sq, Skv].
  Value scores() {
    // One op-building call per statement: argument evaluation order is
    // unspecified in C++, and it would decide the order of the ops.
    Value groupedQuery = byGroup(query);
    Value keyT = ops.transpose(perGroup(key));
    Value s = byHead(ops.matmul(groupedQuery, keyT));
    Dims shape = shapeOf(s);
    s = ops.binary<MulOp>(s, ops.full(scale, shape));
    if (mask && typeOf(mask).getElementType().isInteger(1))
      s = ops.maskOut(mask, s);
    else if (mask)
      s = ops.binary<AddOp>(s, ops.widen(mask));
    if (isCausal)
      s = ops.maskOut(ops.causal(queries, keys), s);
    if (kvLength)
      s = ops.maskOut(ops.validKeys(kvLength, keys), s);
    return s;
  }

  OpsBefore ops;
  Value query, key, value, mask;
  /// The forward's kv_length, or null.
  Value kvLength;
  double scale;
  bool isCausal;
  int64_t batch, heads, kvHeads, group, queries, keys;

private:
  llvm::DenseMap<Value, Value> byGroupViews, perGroupViews;
};

void decompose(AttentionOp op) {
  Attention a(op);
  OpsBefore &ops = a.ops;
  Value lse = op.getLogsumexp(), result, logsumexp;
  if (a.keys == 0) {
    result = ops.full(0.0, shapeOf(op.getResult()));
    if (lse)
      logsumexp = ops.full(-kInf, shapeOf(lse));
  } else {
    Value s = a.scores();
    Dims shape = shapeOf(s);
    // The probabilities are normalized before the product with the value,
    // as a softmax: max, exp, sum and the division are then one kernel that
    // reads the scores once (fusion.md, rule 6); dividing the product's
    // result instead needs the sum as a kernel of its own, a second pass.
    // A row of -inf scores (every key masked) subtracts 0 instead of its
    // max, so its exponentials are 0, and divides by 1: its result is 0
    // (PyTorch's _safe_softmax) and its logsumexp log(0) = -inf.
    Value max = ops.reduceRow<MaxOp>(s);
    Value shift = ops.replace(max, -kInf, 0.0);
    Value e = ops.unary<ExpOp>(ops.binary<SubOp>(s, ops.expand(shift, shape)));
    Value sum = ops.reduceRow<SumOp>(e);
    Value divisor = ops.replace(sum, 0.0, 1.0);
    Value p = ops.binary<DivOp>(e, ops.expand(divisor, shape));
    Value groupedP = a.byGroup(p);
    Value groupedValue = a.perGroup(a.value);
    result = a.byHead(ops.matmul(groupedP, groupedValue));
    if (lse)
      logsumexp =
          ops.squeeze(ops.binary<AddOp>(shift, ops.unary<LogOp>(sum)), 3);
  }
  op.getResult().replaceAllUsesWith(ops.into(result, op.getResult().getType()));
  if (lse)
    lse.replaceAllUsesWith(ops.into(logsumexp, typeOf(lse)));
}

void decompose(AttentionBackwardOp op) {
  Attention a(op);
  OpsBefore &ops = a.ops;
  Value gradQuery, gradKey, gradValue;
  if (a.keys == 0) {
    gradQuery = ops.full(0.0, shapeOf(op.getQuery()));
    gradKey = ops.full(0.0, shapeOf(op.getKey()));
    gradValue = ops.full(0.0, shapeOf(op.getValue()));
  } else {
    Value s = a.scores();
    Dims shape = shapeOf(s);
    // P = exp(S - L); a row whose L is -inf (every key masked) has P = 0:
    // it subtracts +inf instead.
    Value lse = ops.replace(ops.unsqueeze(ops.widen(op.getLogsumexp()), 3),
                            -kInf, kInf);
    Value p = ops.unary<ExpOp>(ops.binary<SubOp>(s, ops.expand(lse, shape)));
    Value gradOut = ops.widen(op.getGradOutput());
    Value rowDot = ops.reduceRow<SumOp>(
        ops.binary<MulOp>(gradOut, ops.widen(op.getOutput())));
    Value groupedGradOut = a.byGroup(gradOut);
    Value valueT = ops.transpose(a.perGroup(a.value));
    Value gradP = a.byHead(ops.matmul(groupedGradOut, valueT));
    // dS = P * (dP - rowDot), times the scale both gradients carry.
    Value centered = ops.binary<SubOp>(gradP, ops.expand(rowDot, shape));
    Value unscaled = ops.binary<MulOp>(p, centered);
    Value gradS = ops.binary<MulOp>(unscaled, ops.full(a.scale, shape));
    Value gradS5 = a.byGroup(gradS);
    gradQuery = a.byHead(ops.matmul(gradS5, a.perGroup(a.key)));
    Value gradST = ops.transpose(gradS5);
    gradKey = a.sumGroup(ops.matmul(gradST, a.byGroup(a.query)));
    Value pT = ops.transpose(a.byGroup(p));
    gradValue = a.sumGroup(ops.matmul(pT, groupedGradOut));
  }
  op.getGradQuery().replaceAllUsesWith(
      ops.into(gradQuery, op.getGradQuery().getType()));
  op.getGradKey().replaceAllUsesWith(
      ops.into(gradKey, op.getGradKey().getType()));
  op.getGradValue().replaceAllUsesWith(
      ops.into(gradValue, op.getGradValue().getType()));
}

/// The decomposition's products over symbolic sizes would contract over
/// the keys (a symbolic contraction and column count), which cuBLASLt's
/// products over symbolic sizes do not take yet: an op over symbolic sizes
/// runs as the fused call or not at all (python-free-docs/symbolic-sizes.md).
LogicalResult refuseSymbolic(Operation *op) {
  if (llvm::none_of(op->getOperandTypes(), [](Type t) {
        return cast<StridedTensorType>(t).isSymbolic();
      }))
    return success();
  auto query = cast<StridedTensorType>(op->getOperand(0).getType());
  auto value = cast<StridedTensorType>(op->getOperand(2).getType());
  InFlightDiagnostic error =
      op->emitOpError()
      << "over symbolic sizes runs as one cuDNN call only (which "
         "stride-attention-library keeps for f16 and bf16 with head dims "
         "that are multiples of 8 up to 128, with --attention-library=cudnn "
         "on sm_80 or newer); its decomposition into products over a "
         "symbolic contraction and column count is not built yet (issue 44)";
  error.attachNote() << "this op is " << query.getElementType()
                     << " with head dims " << query.getShape()[3] << " and "
                     << value.getShape()[3];
  return error;
}

struct DecomposeAttentionPass
    : public stride::impl::DecomposeAttentionBase<DecomposeAttentionPass> {
  void runOnOperation() override {
    SmallVector<Operation *> attention;
    getOperation().walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionBackwardOp>(op) &&
          !op->hasAttr(StrideDialect::kKeepFusedAttrName) &&
          !op->hasAttr(StrideDialect::kSplitKvAttrName))
        attention.push_back(op);
    });
    for (Operation *op : attention)
      if (failed(refuseSymbolic(op)))
        return signalPassFailure();
    for (Operation *op : attention) {
      if (auto forward = dyn_cast<AttentionOp>(op))
        decompose(forward);
      else
        decompose(cast<AttentionBackwardOp>(op));
      op->erase();
    }
  }
};

} // namespace
