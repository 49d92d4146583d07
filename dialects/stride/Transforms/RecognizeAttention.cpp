//===- RecognizeAttention.cpp - Attention spelled out as ops --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-recognize-attention: a product of the query with the transposed
// key, scaled, masked, put through the importer's softmax and multiplied by
// the value, as transformers' eager attention writes it, becomes one
// stride.attention. One pattern, rooted at the second product; what it
// accepts and why each rule keeps the result exact is in AttentionPasses.td
// and python-free-docs/attention.md ("Attention spelled out as ops").
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "AttentionMatch.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <optional>

namespace stride {
#define GEN_PASS_DEF_RECOGNIZEATTENTION
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace stride::attention_match {

//===----------------------------------------------------------------------===//
// Values the graph reshapes, copies or fills
//===----------------------------------------------------------------------===//

/// The operand of `value`'s defining op when that op keeps the elements in
/// row-major order (a reshape, a squeeze or unsqueeze, an expand to the
/// same shape, a copy), else null.
Value reshapedFrom(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return {};
  if (isa<ViewOp, SqueezeOp, UnsqueezeOp, CloneOp>(op))
    return op->getOperand(0);
  if (auto expand = dyn_cast<ExpandOp>(op);
      expand && shapeOf(expand.getInput()) == shapeOf(value))
    return expand.getInput();
  return {};
}

/// `value` and each value it is a reshape or copy of, nearest first: all
/// hold the same elements in row-major order.
SmallVector<Value> reshapeChain(Value value) {
  SmallVector<Value> chain{value};
  while (Value from = reshapedFrom(chain.back()))
    chain.push_back(from);
  return chain;
}

/// The value a `stride.full` or a one-element float `stride.constant`
/// (seen through reshapes and broadcasts) holds, rounded to its element
/// type.
std::optional<double> constantValue(Value value) {
  while (true) {
    if (Value from = reshapedFrom(value))
      value = from;
    else if (auto expand = value.getDefiningOp<ExpandOp>())
      value = expand.getInput();
    else
      break;
  }
  auto element = dyn_cast<FloatType>(typeOf(value).getElementType());
  if (!element)
    return std::nullopt;
  std::optional<APFloat> x;
  if (auto full = value.getDefiningOp<FullOp>())
    x = full.getValue();
  else if (auto constant = value.getDefiningOp<ConstantOp>()) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (dense && dense.isSplat() && isa<FloatType>(dense.getElementType()))
      x = dense.getSplatValue<APFloat>();
  }
  if (!x)
    return std::nullopt;
  bool lost;
  x->convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return x->convertToDouble();
}

/// The largest magnitude of `type`'s finite values and half a unit in the
/// last place there: a sum rounds to a finite value while its exact
/// magnitude stays below their sum.
double overflowThreshold(FloatType type) {
  APFloat largest = APFloat::getLargest(type.getFloatSemantics());
  APFloat next = largest;
  next.next(/*nextDown=*/true);
  double max = largest.convertToDouble();
  return max + (max - next.convertToDouble()) / 2;
}

/// A bound on the magnitude of every element of `value`, where one is
/// provable: a constant's largest (each element finite); a view, a copy
/// or a broadcast of a bounded value; a `stride.where` of two bounded
/// values (transformers' `where(keep, 0, min)`); rows of a bounded table
/// (`index_select` or `gather`: an embedding of learned values, T5's
/// relative position bias); the sum of two bounded values that cannot
/// round to an infinity in the result's type (T5's bias plus a padding
/// mask of the type's lowest value). Otherwise nullopt.
std::optional<double> magnitudeBound(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  // Ops whose elements are some of their first operand's.
  if (isa<ViewOpInterface, CloneOp, ExpandOp, IndexSelectOp, GatherOp>(op))
    return magnitudeBound(op->getOperand(0));
  if (auto where = dyn_cast<WhereOp>(op)) {
    std::optional<double> lhs = magnitudeBound(where.getLhs());
    std::optional<double> rhs = magnitudeBound(where.getRhs());
    return lhs && rhs ? std::optional<double>(std::max(*lhs, *rhs))
                      : std::nullopt;
  }
  if (auto add = dyn_cast<AddOp>(op)) {
    std::optional<double> lhs = magnitudeBound(add.getLhs());
    std::optional<double> rhs = magnitudeBound(add.getRhs());
    auto element = dyn_cast<FloatType>(typeOf(value).getElementType());
    if (!lhs || !rhs || !element || *lhs + *rhs >= overflowThreshold(element))
      return std::nullopt;
    return *lhs + *rhs;
  }
  // A `full` or a splat, rounded to its element type (f16's -3.4e38 is
  // -inf).
  if (std::optional<double> x = constantValue(value))
    return std::isfinite(*x) ? std::optional<double>(std::abs(*x))
                             : std::nullopt;
  auto constant = dyn_cast<ConstantOp>(op);
  auto dense =
      constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  double bound = 0;
  for (const APFloat &x : dense.getValues<APFloat>()) {
    if (!x.isFinite())
      return std::nullopt;
    bound = std::max(bound, std::abs(x.convertToDouble()));
  }
  return bound;
}

bool provablyFinite(Value value) { return magnitudeBound(value).has_value(); }

/// Whether adding `fill` to any score of magnitude below 2^100 gives
/// `fill` again after rounding: f32's and bf16's lowest finite values
/// (transformers' `torch.finfo(dtype).min`) are below -2^127, where one
/// unit in the last place is 2^104.
bool absorbsScores(double fill) {
  return std::isfinite(fill) && fill <= -std::ldexp(1.0, 127);
}

/// Whether `mask` (seen through views and broadcasts) is `where(c, 0,
/// fill)` or `where(c, fill, 0)` with a fill that absorbs the scores. Such
/// a mask can be added to a sum `s + b` of bounded terms or to `b` first
/// with the same result after rounding: 0 adds nothing, and the fill
/// absorbs `s + b`, `b` and `s` alike.
bool zeroOrAbsorbing(Value mask) {
  while (Operation *op = mask.getDefiningOp()) {
    if (!isa<ExpandOp, ViewOp, UnsqueezeOp, SqueezeOp, CloneOp>(op))
      break;
    mask = op->getOperand(0);
  }
  auto where = mask.getDefiningOp<WhereOp>();
  if (!where)
    return false;
  std::optional<double> lhs = constantValue(where.getLhs());
  std::optional<double> rhs = constantValue(where.getRhs());
  return lhs && rhs &&
         ((*lhs == 0 && absorbsScores(*rhs)) || (*rhs == 0 && absorbsScores(*lhs)));
}

//===----------------------------------------------------------------------===//
// The parts of the pattern
//===----------------------------------------------------------------------===//


/// The `[batch, heads, rows, columns]` tensor that the product operand
/// `operand` (`[..., rows, columns]`, of the same elements in row-major
/// order) reshapes: the furthest such value in its chain, else a view of
/// the operand.
Source sourceOf(Value operand, int64_t batch, int64_t heads) {
  Dims shape = shapeOf(operand);
  Dims want{batch, heads, shape[shape.size() - 2], shape.back()};
  Source found;
  for (Value v : reshapeChain(operand))
    if (shapeOf(v) == want)
      found.value = v;
  if (found)
    return found;
  if (!inferView(typeOf(operand).getLayout(), want))
    return {};
  return Source{operand, want};
}

/// A key or value `[B, H, S, X]` that is a key/value tensor
/// `[B, Hkv, S, X]` repeated over groups of `H / Hkv` query heads
/// (LLaMA's `repeat_kv`: unsqueeze, expand, reshape), as that tensor.
Source groupedSource(Value value) {
  auto expand = reshapeChain(value).back().getDefiningOp<ExpandOp>();
  if (!expand)
    return {};
  Dims in = shapeOf(expand.getInput()), out = shapeOf(expand);
  Dims shape = shapeOf(value);
  if (in.size() != 5 || in[2] != 1 || in[0] != out[0] || in[1] != out[1] ||
      in[3] != out[3] || in[4] != out[4] || in[1] * out[2] != shape[1] ||
      out[0] != shape[0] || out[3] != shape[2] || out[4] != shape[3])
    return {};
  if (auto unsqueeze = expand.getInput().getDefiningOp<UnsqueezeOp>();
      unsqueeze && unsqueeze.getDim() == 2)
    return Source{unsqueeze.getInput()};
  Source squeezed{expand.getInput()};
  squeezed.squeezeGroup = true;
  return squeezed;
}

/// Whether `op` reduces only the last dim of its input, keeping it.
template <typename OpTy> bool reducesLastDim(OpTy op) {
  int64_t last = typeOf(op.getInput()).getRank() - 1;
  return op && op.getKeepdim() && op.getDims().size() == 1 &&
         op.getDims()[0] == last;
}

/// Whether `value` is a float value cast from another float type.
bool isFloatCast(Value value) {
  auto cast = value.getDefiningOp<CastOp>();
  return cast && isa<FloatType>(typeOf(cast.getInput()).getElementType()) &&
         isa<FloatType>(typeOf(value).getElementType());
}

/// The value `value` is, seen back through reshapes, copies and (with
/// `casts`) float casts; each op passed is added to `ops`.
Value through(Value value, llvm::SetVector<Operation *> &ops, bool casts) {
  while (true) {
    Value from = reshapedFrom(value);
    if (!from && casts && isFloatCast(value))
      from = value.getDefiningOp()->getOperand(0);
    if (!from)
      return value;
    ops.insert(value.getDefiningOp());
    value = from;
  }
}

/// The softmax's input `x` when `p` is the importer's softmax of `x` over
/// its last dim (`_softmax`: `e = exp(x - max x)`, `e / sum e`), with the
/// softmax's ops added to `ops`.
Value softmaxInput(Value p, llvm::SetVector<Operation *> &ops) {
  auto div = p.getDefiningOp<DivOp>();
  auto exp = div ? div.getLhs().getDefiningOp<ExpOp>() : ExpOp();
  auto sub = exp ? exp.getInput().getDefiningOp<SubOp>() : SubOp();
  if (!sub)
    return {};
  auto sumExpand = div.getRhs().getDefiningOp<ExpandOp>();
  auto maxExpand = sub.getRhs().getDefiningOp<ExpandOp>();
  if (!sumExpand || !maxExpand)
    return {};
  auto sum = sumExpand.getInput().getDefiningOp<SumOp>();
  auto max = maxExpand.getInput().getDefiningOp<MaxOp>();
  Value x = sub.getLhs();
  if (!sum || !max || sum.getInput() != exp.getResult() ||
      max.getInput() != x || !reducesLastDim(sum) || !reducesLastDim(max))
    return {};
  for (Operation *op : {div.getOperation(), sumExpand.getOperation(),
                        sum.getOperation(), exp.getOperation(),
                        sub.getOperation(), maxExpand.getOperation(),
                        max.getOperation()})
    ops.insert(op);
  return x;
}

/// The softmax's input `x` when `p` is PyTorch's safe softmax of `x` (its
/// math attention's `_safe_softmax`: 0 on a row that is all `-inf`,
/// `where(not(any(not(x == -inf))), 0, softmax(x))`), with its ops added to
/// `ops`.
Value safeSoftmaxInput(Value p, llvm::SetVector<Operation *> &ops) {
  auto where = p.getDefiningOp<WhereOp>();
  std::optional<double> zero = where ? constantValue(where.getLhs()) : 0.0;
  if (!where || zero != 0.0)
    return {};
  Value x = softmaxInput(where.getRhs(), ops);
  auto expand = where.getCondition().getDefiningOp<ExpandOp>();
  auto none = expand ? expand.getInput().getDefiningOp<NotOp>() : NotOp();
  auto any = none ? none.getInput().getDefiningOp<AnyOp>() : AnyOp();
  auto finite = any ? any.getInput().getDefiningOp<NotOp>() : NotOp();
  auto isInf = finite ? finite.getInput().getDefiningOp<CmpOp>() : CmpOp();
  if (!x || !isInf || !reducesLastDim(any) ||
      isInf.getPredicate() != CmpPredicate::eq || isInf.getLhs() != x ||
      constantValue(isInf.getRhs()) != -kInf)
    return {};
  for (Operation *op : {where.getOperation(), expand.getOperation(),
                        none.getOperation(), any.getOperation(),
                        finite.getOperation(), isInf.getOperation()})
    ops.insert(op);
  // The -inf full the comparison reads is part of the pattern too.
  for (Value v : reshapeChain(isInf.getRhs()))
    if (Operation *def = v.getDefiningOp(); def && v.hasOneUse())
      ops.insert(def);
  return x;
}


/// `x` as `s * c` or `s / c` for a finite, nonzero constant `c`: `s`, with
/// `scale` multiplied by `c` or `1 / c` and the op added to `ops`; else
/// `x`.
Value unscaled(Value x, double &scale, llvm::SetVector<Operation *> &ops) {
  Operation *op = x.getDefiningOp();
  if (!isa_and_nonnull<MulOp, DivOp>(op))
    return x;
  bool divide = isa<DivOp>(op);
  for (int side : {1, 0}) {
    if (divide && side == 0)
      break;
    std::optional<double> c = constantValue(op->getOperand(side));
    if (!c || *c == 0 || !std::isfinite(*c))
      continue;
    scale *= divide ? 1.0 / *c : *c;
    ops.insert(op);
    return op->getOperand(1 - side);
  }
  return x;
}

/// The product `scores` is, through reshapes, copies and a constant scale
/// (multiplied into `scale`), with the ops passed added to `ops`.
MatmulOp productOf(Value scores, double &scale,
                   llvm::SetVector<Operation *> &ops) {
  scores = through(unscaled(through(scores, ops), scale, ops), ops);
  auto product = scores.getDefiningOp<MatmulOp>();
  if (product)
    ops.insert(product);
  return product;
}


/// `x` as `mask(scale * product)`, each op passed added to `ops`. Fails (a
/// null product) where the mask could change a result: an added mask must
/// be provably finite, a `where` must fill with a value that absorbs the
/// scores (python-free-docs/attention.md says why).
Scores parseScores(Value x, bool safe, llvm::SetVector<Operation *> &ops) {
  Scores s;
  Value scores = x;
  Operation *op = x.getDefiningOp();
  if (auto add = dyn_cast_or_null<AddOp>(op)) {
    // The side that is finite by construction is the mask.
    double unused = 1;
    llvm::SetVector<Operation *> scratch;
    auto leadsToProduct = [&](Value v) {
      if (productOf(v, unused, scratch))
        return true;
      auto sum = v.getDefiningOp<AddOp>(); // T5's, below
      return sum && (productOf(sum.getLhs(), unused, scratch) ||
                     productOf(sum.getRhs(), unused, scratch));
    };
    bool maskOnRhs = leadsToProduct(add.getLhs());
    s.mask.additive = maskOnRhs ? add.getRhs() : add.getLhs();
    scores = maskOnRhs ? add.getLhs() : add.getRhs();
    if (!safe && !provablyFinite(s.mask.additive))
      return {};
    ops.insert(op);
    // T5: `(scores + bias) + padding`, where the padding mask may move
    // onto the bias without changing a rounded sum (zeroOrAbsorbing).
    auto inner = scores.getDefiningOp<AddOp>();
    if (inner && zeroOrAbsorbing(s.mask.additive)) {
      bool biasOnRhs = static_cast<bool>(productOf(inner.getLhs(), unused, scratch));
      Value bias = biasOnRhs ? inner.getRhs() : inner.getLhs();
      if ((biasOnRhs || productOf(inner.getRhs(), unused, scratch)) &&
          provablyFinite(bias)) {
        s.mask.second = s.mask.additive;
        s.mask.additive = bias;
        scores = biasOnRhs ? inner.getLhs() : inner.getRhs();
        ops.insert(inner);
      }
    }
  } else if (auto where = dyn_cast_or_null<WhereOp>(op)) {
    std::optional<double> lhs = constantValue(where.getLhs());
    std::optional<double> fill = lhs ? lhs : constantValue(where.getRhs());
    if (!fill || !(absorbsScores(*fill) || (safe && *fill == -kInf)))
      return {};
    s.mask.fillWhereTrue = lhs.has_value();
    s.mask.fill = *fill;
    s.mask.condition = where.getCondition();
    scores = lhs ? where.getRhs() : where.getLhs();
    ops.insert(op);
  }
  s.product = productOf(scores, s.scale, ops);
  return s;
}

bool plainProduct(MatmulOp op) {
  return op && !op.getBias() && !op.getAddend() &&
         op.getEpilogue() == MatmulEpilogue::none;
}

/// Erases `roots` and, transitively, the producers they leave unused.
void eraseDeadProducers(ArrayRef<Operation *> roots, PatternRewriter &rewriter) {
  SmallVector<Operation *> work(roots);
  llvm::SmallPtrSet<Operation *, 32> erased;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        work.push_back(def);
    erased.insert(op);
    rewriter.eraseOp(op);
  }
}

/// The batch and head split of the batch dims of `qk`'s operands: the
/// query's `[B, H, Sq, D]` where the graph has one, else one batch.
std::pair<int64_t, int64_t> batchAndHeads(MatmulOp qk) {
  Dims lhs = shapeOf(qk.getLhs());
  int64_t n = 1;
  for (size_t d = 0; d + 2 < lhs.size(); ++d)
    n *= lhs[d];
  std::pair<int64_t, int64_t> split{1, n};
  for (Value v : reshapeChain(qk.getLhs())) {
    Dims s = shapeOf(v);
    if (s.size() == 4 && s[0] * s[1] == n && s[2] == lhs[lhs.size() - 2] &&
        s[3] == lhs.back())
      split = {s[0], s[1]};
  }
  return split;
}

std::optional<Spelled> readSpelled(MatmulOp pv,
                                   llvm::SetVector<Operation *> &inner,
                                   bool casts) {
  if (!plainProduct(pv))
    return std::nullopt;
  Spelled s;
  s.probabilities = through(pv.getLhs(), inner, casts);
  Value x = safeSoftmaxInput(s.probabilities, inner);
  bool safe = static_cast<bool>(x);
  if (!safe)
    x = softmaxInput(s.probabilities, inner);
  if (!x)
    return std::nullopt;
  // An upcast of the scores for the softmax (`softmax(x, dtype=f32)`).
  s.scoresInput = x;
  if (casts && isFloatCast(x)) {
    inner.insert(x.getDefiningOp());
    s.scoresInput = x.getDefiningOp()->getOperand(0);
  }
  s.scores = parseScores(s.scoresInput, safe, inner);
  MatmulOp qk = s.scores.product;
  if (!plainProduct(qk) || shapeOf(qk) != shapeOf(pv.getLhs()))
    return std::nullopt;
  return s;
}

} // namespace stride::attention_match

using namespace stride::attention_match;

namespace {

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// What the attention op reads: query, key, value, mask, scale.
struct Operands {
  Source query, key, value;
  Mask mask;
  double scale;
  Dims scores; // [B, H, Sq, Skv]
};


/// The key/value pair as `[B, Hkv, S, X]` tensors where the graph repeats
/// them over query heads the same way (grouped-query attention).
void ungroup(Source &key, Source &value) {
  if (!key.viewAs.empty() || key.transpose || !value.viewAs.empty())
    return;
  Source k = groupedSource(key.value), v = groupedSource(value.value);
  if (k && v && shapeOf(k.value)[1] == shapeOf(v.value)[1]) {
    key = k;
    value = v;
  }
}

/// The operands of the attention that `qk` and `pv` compute, or a failure
/// message.
FailureOr<Operands> operandsOf(MatmulOp qk, MatmulOp pv, const Scores &s,
                               ArrayRef<int64_t> softmaxShape) {
  if (shapeOf(qk).size() > 4 || softmaxShape.back() != shapeOf(qk).back())
    return failure();
  auto [batch, heads] = batchAndHeads(qk);
  Operands o{sourceOf(qk.getLhs(), batch, heads), sourceOf(qk.getRhs(), batch, heads),
             sourceOf(pv.getRhs(), batch, heads), s.mask, s.scale, {}};
  if (!o.query || !o.key || !o.value)
    return failure();
  Dims q = shapeOf(qk.getLhs());
  o.scores = {batch, heads, q[q.size() - 2], shapeOf(qk).back()};
  if ((o.mask.additive || o.mask.condition) && softmaxShape != ArrayRef<int64_t>(o.scores))
    return failure();
  // A scale of the query or the transposed key before the product
  // (`q * c`, as PyTorch's math attention scales both) is the op's.
  llvm::SetVector<Operation *> scaled;
  for (Source *operand : {&o.query, &o.key})
    if (operand->viewAs.empty())
      operand->value = unscaled(operand->value, o.scale, scaled);
  // The key as the graph has it before its transpose, else transposed here.
  auto permute = o.key.viewAs.empty()
                     ? o.key.value.getDefiningOp<PermuteOp>()
                     : PermuteOp();
  if (permute && permute.getDims() == ArrayRef<int64_t>{0, 1, 3, 2})
    o.key = Source{permute.getInput()};
  else
    o.key.transpose = true;
  ungroup(o.key, o.value);
  return o;
}

/// `softmax(scale * Q K^T + mask) V`, spelled out, rooted at the product
/// with V.
struct SpelledAttention : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    // Ops between the two products: used by nothing else.
    llvm::SetVector<Operation *> inner;
    std::optional<Spelled> spelled = readSpelled(pv, inner, /*casts=*/true);
    if (!spelled)
      return rewriter.notifyMatchFailure(pv, "not softmax(Q K^T) times V");
    Value x0 = spelled->scoresInput;
    const Scores &scores = spelled->scores;
    MatmulOp qk = scores.product;
    for (Operation *op : inner)
      for (Operation *user : op->getUsers())
        if (user != pv && !inner.contains(user))
          return rewriter.notifyMatchFailure(pv, "the scores have other uses");
    FailureOr<Operands> operands = operandsOf(qk, pv, scores, shapeOf(x0));
    if (failed(operands))
      return rewriter.notifyMatchFailure(pv, "operands not attention's");
    if (typeOf(operands->value.value).getElementType() !=
        typeOf(qk).getElementType())
      return rewriter.notifyMatchFailure(pv, "value of another type");
    replace(pv, *operands, rewriter);
    return success();
  }

private:
  static void replace(MatmulOp pv, const Operands &o, PatternRewriter &rewriter) {
    rewriter.setInsertionPoint(pv);
    Type element = typeOf(pv).getElementType();
    OpsBefore ops(rewriter, pv.getLoc(), element);
    // One op-building call per statement: argument evaluation order is
    // unspecified in C++, and it would decide the order of the ops.
    Value query = o.query.build(ops);
    Value key = o.key.build(ops);
    Value value = o.value.build(ops);
    Value mask = o.mask.build(ops, o.scores);
    Dims result = o.scores;
    result.back() = shapeOf(value).back();
    auto attention = AttentionOp::create(
        rewriter, pv.getLoc(), ops.dense(result), /*logsumexp=*/Type(), query,
        key, value, mask, /*kv_length=*/Value(),
        rewriter.getF64FloatAttr(o.scale), UnitAttr());
    Value out = attention.getResult();
    if (shapeOf(out) != shapeOf(pv))
      out = ops.view(out, shapeOf(pv));
    out = ops.into(out, typeOf(pv));
    SmallVector<Operation *> producers;
    for (Value operand : pv->getOperands())
      if (Operation *def = operand.getDefiningOp())
        producers.push_back(def);
    rewriter.replaceOp(pv, out);
    eraseDeadProducers(producers, rewriter);
  }
};

/// An attention op (an imported SDPA call) whose key and value are the
/// graph's key/value tensors repeated over groups of query heads: LLaMA's
/// `repeat_kv` before an SDPA call given a mask, where transformers does
/// not leave the grouping to SDPA. The op reads the tensors before the
/// repeat (grouped-query attention), so the repeated copy, as large as
/// the whole KV cache times the group size in a decode step, is never made.
struct RepeatedKeyValue : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Source key{op.getKey()}, value{op.getValue()};
    ungroup(key, value);
    if (key.value == op.getKey())
      return rewriter.notifyMatchFailure(op, "key and value not repeated");
    rewriter.setInsertionPoint(op);
    OpsBefore ops(rewriter, op.getLoc(), typeOf(op.getKey()).getElementType());
    // One op-building call per statement (see SpelledAttention::replace).
    Value groupedKey = key.build(ops);
    Value groupedValue = value.build(ops);
    SmallVector<Operation *> producers{op.getKey().getDefiningOp(),
                                       op.getValue().getDefiningOp()};
    rewriter.modifyOpInPlace(op, [&] {
      op.getKeyMutable().assign(groupedKey);
      op.getValueMutable().assign(groupedValue);
    });
    eraseDeadProducers(producers, rewriter);
    return success();
  }
};

/// Applies `pattern` once to each op of type OpTy in `func` that exists now.
template <typename PatternTy, typename OpTy>
LogicalResult applyToExisting(func::FuncOp func) {
  RewritePatternSet patterns(func.getContext());
  patterns.add<PatternTy>(func.getContext());
  SmallVector<Operation *> ops;
  func.walk([&](OpTy op) { ops.push_back(op); });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  return applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// The fused op replaces a batched product's result through a view to its
/// [batch * heads, ...] shape, which the graph then viewed back to
/// [batch, heads, ...]. Each such round trip reads the view's source
/// instead, so no later pass meets the merged dim (stride-tensor-parallel
/// cannot split batch * heads into one block per rank).
void dropViewRoundTrips(func::FuncOp func) {
  func.walk([](ViewOp outer) {
    auto inner = outer.getInput().getDefiningOp<ViewOp>();
    if (!inner || inner.getInput().getType() != outer.getType())
      return;
    outer.replaceAllUsesWith(inner.getInput());
    outer.erase();
    if (inner->use_empty())
      inner.erase();
  });
}

struct RecognizeAttentionPass
    : stride::impl::RecognizeAttentionBase<RecognizeAttentionPass> {
  void runOnOperation() override {
    if (failed(applyToExisting<SpelledAttention, MatmulOp>(getOperation())) ||
        failed(applyToExisting<RepeatedKeyValue, AttentionOp>(getOperation())))
      return signalPassFailure();
    dropViewRoundTrips(getOperation());
  }
};

} // namespace
