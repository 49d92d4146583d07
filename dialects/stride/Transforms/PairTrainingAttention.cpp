//===- PairTrainingAttention.cpp - Attention across forward and backward --===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-pair-training-attention: eager attention in a training step,
// whose forward saves the probabilities P for the backward's softmax
// gradient, becomes stride.attention in the forward and
// stride.attention_backward in the backward, the two functions' saved
// tensors changed to match (the logsumexp, the output and the mask in
// place of P). What it accepts is in AttentionPasses.td and
// python-free-docs/attention.md ("Training graphs spelled out").
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "AttentionMatch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cmath>

namespace stride {
#define GEN_PASS_DEF_PAIRTRAININGATTENTION
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;
using namespace stride::attention_match;

namespace {

using OpSet = llvm::SetVector<Operation *>;

constexpr StringLiteral kName = StrideDialect::kNameAttrName;

/// The saved tensors of a training step: the forward's results and the
/// backward's arguments, by name.
struct Step {
  func::FuncOp forward, backward;

  func::ReturnOp forwardReturn() {
    return cast<func::ReturnOp>(forward.getBody().front().getTerminator());
  }
  StringAttr resultName(unsigned i) {
    return forward.getResultAttrOfType<StringAttr>(i, kName);
  }
  /// The forward's result named `name`, else null.
  Value forwardValue(StringAttr name) {
    for (unsigned i = 0; i < forward.getNumResults(); ++i)
      if (resultName(i) == name)
        return forwardReturn().getOperand(i);
    return {};
  }
  /// The backward's argument named `name`, else null.
  BlockArgument argument(StringAttr name) {
    for (unsigned i = 0; i < backward.getNumArguments(); ++i)
      if (backward.getArgAttrOfType<StringAttr>(i, kName) == name)
        return backward.getArgument(i);
    return {};
  }
  /// Whether every result of the forward and every argument of the
  /// backward has a name of its own: what links a saved tensor to the
  /// argument that reads it (a value the forward returns twice under one
  /// name, as a model output and as a saved tensor, could not be dropped
  /// from one place only).
  bool namesUnique() {
    llvm::StringSet<> results, arguments;
    for (unsigned i = 0; i < forward.getNumResults(); ++i)
      if (StringAttr n = resultName(i); !n || !results.insert(n.getValue()).second)
        return false;
    for (unsigned i = 0; i < backward.getNumArguments(); ++i) {
      auto n = backward.getArgAttrOfType<StringAttr>(i, kName);
      if (!n || !arguments.insert(n.getValue()).second)
        return false;
    }
    return true;
  }
  bool nameTaken(StringRef name) {
    for (unsigned i = 0; i < forward.getNumResults(); ++i)
      if (StringAttr n = resultName(i); n && n.getValue() == name)
        return true;
    for (unsigned i = 0; i < backward.getNumArguments(); ++i)
      if (auto n = backward.getArgAttrOfType<StringAttr>(i, kName);
          n && n.getValue() == name)
        return true;
    return false;
  }
};

bool swapsLastTwo(PermuteOp permute) {
  ArrayRef<int64_t> dims = permute.getDims();
  size_t n = dims.size();
  if (n < 2 || dims[n - 2] != int64_t(n - 1) || dims[n - 1] != int64_t(n - 2))
    return false;
  for (size_t d = 0; d + 2 < n; ++d)
    if (dims[d] != int64_t(d))
      return false;
  return true;
}

/// The value whose last two dims `value` swaps, else null.
Value transposedFrom(Value value) {
  auto permute = value.getDefiningOp<PermuteOp>();
  return permute && swapsLastTwo(permute) ? permute.getInput() : Value();
}

//===----------------------------------------------------------------------===//
// The forward: the attention and the results that save its probabilities
//===----------------------------------------------------------------------===//

struct ForwardSite {
  MatmulOp qk, pv;
  Scores scores;
  Source query, key, value;
  int64_t batch = 1, heads = 1;
  /// Return operands holding P, a reshape of it or its transpose (what
  /// dV = P^T dO reads, as AOTAutograd's min-cut partition saves it), P's
  /// own first; and for each whether it is the transpose.
  SmallVector<unsigned> savedProbabilities;
  llvm::SmallDenseSet<unsigned> transposedProbabilities;
};

/// Whether the forward's `saved` holds the product operand `operand`: the
/// same shape, one the other's reshape or copy.
bool holds(Value saved, Value operand) {
  if (!saved || shapeOf(saved) != shapeOf(operand))
    return false;
  return llvm::is_contained(reshapeChain(operand), saved) ||
         llvm::is_contained(reshapeChain(saved), operand);
}

FailureOr<ForwardSite> matchForward(Step &step, MatmulOp pv) {
  OpSet inner;
  std::optional<Spelled> spelled = readSpelled(pv, inner, /*casts=*/false);
  if (!spelled || shapeOf(spelled->scores.product).size() > 4)
    return failure();
  Value p = spelled->probabilities, x = spelled->scoresInput;
  llvm::SmallPtrSet<Value, 4> probabilities;
  for (Value v = pv.getLhs(); v; v = reshapedFrom(v)) {
    probabilities.insert(v);
    if (v == p)
      break;
  }
  ForwardSite site;
  site.pv = pv;
  site.scores = spelled->scores;
  site.qk = site.scores.product;
  // Every other use of the values between the products is a return of P,
  // of a reshape of it, or of a transpose of either.
  func::ReturnOp ret = step.forwardReturn();
  for (Operation *op : inner)
    for (OpOperand &use : op->getUses()) {
      Operation *user = use.getOwner();
      if (user == pv || inner.contains(user))
        continue;
      if (!probabilities.contains(use.get()))
        return failure();
      if (user == ret) {
        site.savedProbabilities.push_back(use.getOperandNumber());
        continue;
      }
      auto permute = dyn_cast<PermuteOp>(user);
      if (!permute || !swapsLastTwo(permute))
        return failure();
      for (OpOperand &saved : permute->getUses()) {
        if (saved.getOwner() != ret)
          return failure();
        site.savedProbabilities.push_back(saved.getOperandNumber());
        site.transposedProbabilities.insert(saved.getOperandNumber());
      }
    }
  if (site.savedProbabilities.empty())
    return failure(); // stride-recognize-attention's case
  // The saved values are named after P where it is saved itself.
  SmallVector<unsigned> &saved = site.savedProbabilities;
  std::stable_partition(saved.begin(), saved.end(),
                        [&](unsigned i) { return ret.getOperand(i) == p; });
  std::tie(site.batch, site.heads) = batchAndHeads(site.qk);
  Dims q = shapeOf(site.qk.getLhs());
  Dims scoreShape{site.batch, site.heads, q[q.size() - 2], shapeOf(site.qk).back()};
  const Mask &mask = site.scores.mask;
  if ((mask.additive || mask.condition) && shapeOf(x) != scoreShape)
    return failure();
  site.query = sourceOf(site.qk.getLhs(), site.batch, site.heads);
  site.key = sourceOf(site.qk.getRhs(), site.batch, site.heads);
  site.value = sourceOf(pv.getRhs(), site.batch, site.heads);
  if (!site.query || !site.key || !site.value)
    return failure();
  if (Value k = site.key.viewAs.empty() ? transposedFrom(site.key.value) : Value())
    site.key = Source{k};
  else
    site.key.transpose = true;
  return site;
}

//===----------------------------------------------------------------------===//
// The backward: the products and the softmax gradient that read P
//===----------------------------------------------------------------------===//

struct BackwardSite {
  MatmulOp dv, dp, dq, dk;
  Value gradOutput;
  double scale = 1;
  /// The backward's ops that read P, and what the replaced products leave.
  OpSet matched;
  SmallVector<BlockArgument> probabilities;
};

/// A reshape or copy of its operand, or a float cast of it (PyTorch's
/// decomposition of `_softmax_backward_data` computes a bf16 or f16
/// gradient in f32: the fused gradient is at least as precise).
bool isReshapeOrCast(Operation *op) {
  if (op->getNumResults() != 1)
    return false;
  Value result = op->getResult(0);
  return reshapedFrom(result) || isFloatCast(result);
}

/// `mul`'s operand other than `one`, else null.
Value otherOperand(MulOp mul, Value one) {
  if (mul.getLhs() == one)
    return mul.getRhs();
  return mul.getRhs() == one ? mul.getLhs() : Value();
}

template <typename OpTy> OpTy onlyUser(Value value) {
  if (!value.hasOneUse())
    return {};
  return dyn_cast<OpTy>(*value.getUsers().begin());
}

/// The backward's argument that `value` reshapes or copies, else null.
BlockArgument argumentOf(Value value) {
  OpSet reshapes;
  return dyn_cast<BlockArgument>(through(value, reshapes));
}

/// Whether the backward's `read` (what a product reads) is the transpose
/// of the forward's product operand `operand`: a transpose of an argument
/// that holds `operand`, or an argument that holds its transpose (the
/// forward saved the transpose).
bool isTransposeOf(Step &step, Value read, Value operand) {
  auto nameOf = [&](BlockArgument arg) {
    return step.backward.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kName);
  };
  Dims transposed = shapeOf(operand);
  std::swap(transposed[transposed.size() - 1], transposed[transposed.size() - 2]);
  if (shapeOf(read) != transposed)
    return false;
  if (Value x = transposedFrom(read))
    if (BlockArgument arg = argumentOf(x); arg && shapeOf(x) == shapeOf(operand))
      if (holds(step.forwardValue(nameOf(arg)), operand))
        return true;
  BlockArgument arg = argumentOf(read);
  if (!arg || shapeOf(arg) != transposed)
    return false;
  Value saved = step.forwardValue(nameOf(arg));
  return saved && (holds(transposedFrom(saved), operand) ||
                   holds(saved, transposedFrom(operand)));
}

/// `value` transposed: the value a transpose read, else a transpose.
Value transposeOf(OpsBefore &ops, Value value) {
  if (Value x = transposedFrom(value))
    return x;
  return ops.transpose(value);
}

using ValueSet = llvm::SmallPtrSet<Value, 8>;

FailureOr<std::pair<Value, Value>>
softmaxGradient(ArrayRef<MulOp> muls, const ValueSet &p, OpSet &matched) {
  if (muls.size() != 2)
    return failure();
  for (int first : {0, 1}) {
    MulOp t = muls[first], u = muls[1 - first];
    Value pt = p.contains(t.getLhs()) ? t.getLhs() : t.getRhs();
    Value dP = otherOperand(t, pt);
    Value pu = p.contains(u.getLhs()) ? u.getLhs() : u.getRhs();
    Value broadcastSum = otherOperand(u, pu);
    auto expand = broadcastSum ? broadcastSum.getDefiningOp<ExpandOp>() : ExpandOp();
    auto sum = expand ? expand.getInput().getDefiningOp<SumOp>() : SumOp();
    if (!dP || !sum || sum.getInput() != t.getResult() || !sum.getKeepdim() ||
        sum.getDims().size() != 1 ||
        sum.getDims()[0] != int64_t(shapeOf(t).size() - 1))
      continue;
    auto sub = onlyUser<SubOp>(u.getResult());
    if (!sub || sub.getLhs() != t.getResult() || !expand->hasOneUse() ||
        !sum->hasOneUse() || !t.getResult().hasNUses(2))
      continue;
    for (Operation *op : {t.getOperation(), u.getOperation(), expand.getOperation(),
                          sum.getOperation(), sub.getOperation()})
      matched.insert(op);
    return std::make_pair(Value(sub.getResult()), dP);
  }
  return failure();
}

FailureOr<BackwardSite> matchBackward(Step &step, ForwardSite f,
                                      ArrayRef<BlockArgument> pArgs,
                                      ArrayRef<BlockArgument> pTransposedArgs) {
  BackwardSite site;
  site.probabilities.assign(pArgs.begin(), pArgs.end());
  site.probabilities.append(pTransposedArgs.begin(), pTransposedArgs.end());
  // P and its reshapes (p), their transposes (pT), and the ops that read
  // them: the softmax gradient's products, and dV = P^T dO.
  ValueSet p(pArgs.begin(), pArgs.end());
  ValueSet pT(pTransposedArgs.begin(), pTransposedArgs.end());
  SmallVector<Value> work(site.probabilities.begin(), site.probabilities.end());
  SmallVector<MulOp> muls;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    bool transposed = pT.contains(v);
    for (Operation *user : v.getUsers()) {
      if (site.matched.contains(user))
        continue;
      site.matched.insert(user);
      auto permute = dyn_cast<PermuteOp>(user);
      if (isReshapeOrCast(user) || (permute && swapsLastTwo(permute))) {
        // A transpose of P is P^T and the other way round.
        bool flips = static_cast<bool>(permute);
        ValueSet &into = transposed != flips ? pT : p;
        if (into.insert(user->getResult(0)).second)
          work.push_back(user->getResult(0));
      } else if (auto dv = dyn_cast<MatmulOp>(user);
                 dv && transposed && dv.getLhs() == v && !site.dv) {
        site.dv = dv;
      } else if (auto mul = dyn_cast<MulOp>(user); mul && !transposed) {
        muls.push_back(mul);
      } else {
        return failure();
      }
    }
  }
  if (!site.dv || !plainProduct(site.dv))
    return failure();
  auto gradient = softmaxGradient(muls, p, site.matched);
  if (failed(gradient))
    return failure();
  auto [dX, dP] = *gradient;
  // dP = dO V^T, of the dO that dV = P^T dO reads.
  OpSet dpChain;
  site.dp = through(dP, dpChain, /*casts=*/true).getDefiningOp<MatmulOp>();
  site.gradOutput = site.dv.getRhs();
  if (!site.dp || !plainProduct(site.dp) || site.dp.getLhs() != site.gradOutput ||
      shapeOf(site.gradOutput) != shapeOf(f.pv) ||
      shapeOf(site.dv) != shapeOf(f.pv.getRhs()))
    return failure();
  if (!isTransposeOf(step, site.dp.getRhs(), f.pv.getRhs()))
    return failure();
  site.matched.insert(dpChain.begin(), dpChain.end());
  // dX scaled as the forward's scores were, then dQ = dX K, dK^T = Q^T dX.
  Value g = dX;
  while (g.hasOneUse() && isReshapeOrCast(*g.getUsers().begin())) {
    site.matched.insert(*g.getUsers().begin());
    g = g.getUsers().begin()->getResult(0);
  }
  if (Operation *scaled = g.hasOneUse() ? *g.getUsers().begin() : nullptr;
      isa_and_nonnull<MulOp, DivOp>(scaled)) {
    // g * c, c * g or g / c.
    bool first = scaled->getOperand(0) == g;
    if (!first && isa<DivOp>(scaled))
      return failure();
    std::optional<double> factor = constantValue(scaled->getOperand(first ? 1 : 0));
    if (!factor || *factor == 0)
      return failure();
    site.scale = isa<DivOp>(scaled) ? 1.0 / *factor : *factor;
    site.matched.insert(scaled);
    g = scaled->getResult(0);
  }
  if (std::abs(site.scale - f.scores.scale) > 1e-12 * std::abs(f.scores.scale))
    return failure();
  SmallVector<Value> gradients{g};
  ValueSet scores{g}; // dX scaled, its reshapes and casts
  SmallVector<MatmulOp> products;
  while (!gradients.empty()) {
    Value v = gradients.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isReshapeOrCast(user)) {
        site.matched.insert(user);
        scores.insert(user->getResult(0));
        gradients.push_back(user->getResult(0));
      } else if (auto product = dyn_cast<MatmulOp>(user);
                 product && plainProduct(product)) {
        products.push_back(product);
      } else {
        return failure();
      }
    }
  }
  if (products.size() != 2)
    return failure();
  // dQ = dX K (K the transpose of the forward's K^T operand), dK^T = Q^T dX.
  for (MatmulOp product : products) {
    if (scores.contains(product.getLhs()) &&
        isTransposeOf(step, product.getRhs(), f.qk.getRhs()) &&
        shapeOf(product) == shapeOf(f.qk.getLhs()))
      site.dq = product;
    else if (scores.contains(product.getRhs()) &&
             isTransposeOf(step, product.getLhs(), f.qk.getLhs()) &&
             shapeOf(product) == shapeOf(f.qk.getRhs()))
      site.dk = product;
  }
  if (!site.dq || !site.dk)
    return failure();
  return site;
}

//===----------------------------------------------------------------------===//
// The rewrite of both functions
//===----------------------------------------------------------------------===//

/// `value` with the shape `shape`: itself, a view, or a copy where no view
/// gives it.
Value reshaped(OpsBefore &ops, Value value, ArrayRef<int64_t> shape) {
  return ArrayRef<int64_t>(shapeOf(value)) == shape ? value
                                                    : ops.viewOrCopy(value, shape);
}

/// `value` before the broadcasts that made it.
Value beforeBroadcast(Value value) {
  while (auto expand = value.getDefiningOp<ExpandOp>())
    value = expand.getInput();
  return value;
}

/// Erases the ops of `func` that nothing uses, users before producers.
void eraseUnused(func::FuncOp func, PatternRewriter &rewriter) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
}

/// The forward's attention op in place of its two products: the output
/// (as the product had it), the logsumexp, the attention's own output and
/// its mask before any broadcast (null without one).
struct ForwardValues {
  Value output, logsumexp, mask;
};

ForwardValues rewriteForward(ForwardSite f, PatternRewriter &rewriter) {
  rewriter.setInsertionPoint(f.pv);
  Location loc = f.pv.getLoc();
  Type element = typeOf(f.pv).getElementType();
  OpsBefore ops(rewriter, loc, element);
  Value query = f.query.build(ops);
  Value key = f.key.build(ops);
  Value value = f.value.build(ops);
  Dims scores{f.batch, f.heads, shapeOf(query)[2], shapeOf(key)[2]};
  Value mask = f.scores.mask.build(ops, scores);
  Dims result{f.batch, f.heads, scores[2], shapeOf(value)[3]};
  auto lseType = StridedTensorType::getContiguous({f.batch, f.heads, scores[2]},
                                                  rewriter.getF32Type());
  auto attention = AttentionOp::create(
      rewriter, loc, ops.dense(result), lseType, query, key, value, mask,
      /*kv_length=*/Value(), rewriter.getF64FloatAttr(f.scores.scale), UnitAttr());
  Value out = ops.into(reshaped(ops, attention.getResult(), shapeOf(f.pv)),
                       typeOf(f.pv));
  rewriter.replaceOp(f.pv, out);
  return {attention.getResult(), attention.getLogsumexp(),
          mask ? beforeBroadcast(mask) : Value()};
}

/// `value` where the rewriter inserts, before `at`: itself where it is
/// defined before `at`, else its chain of views and a transpose of an
/// argument (what isTransposeOf accepts) cloned there.
Value availableAt(Value value, Operation *at, PatternRewriter &rewriter) {
  Operation *def = value.getDefiningOp();
  if (!def || def->isBeforeInBlock(at) || def->getNumOperands() != 1)
    return value;
  IRMapping mapping;
  mapping.map(def->getOperand(0), availableAt(def->getOperand(0), at, rewriter));
  return rewriter.clone(*def, mapping)->getResult(0);
}

void rewriteBackward(ForwardSite f, BackwardSite b, Value output,
                     Value logsumexp, Value mask, PatternRewriter &rewriter) {
  Operation *first = b.dv->isBeforeInBlock(b.dp) ? b.dv : b.dp;
  rewriter.setInsertionPoint(first);
  Location loc = b.dv.getLoc();
  Type element = typeOf(b.dv).getElementType();
  OpsBefore ops(rewriter, loc, element);
  int64_t rows = shapeOf(output)[2], columns = shapeOf(output)[3];
  int64_t headDim = shapeOf(b.dq).back();
  int64_t keys = shapeOf(b.dv)[shapeOf(b.dv).size() - 2];
  Dims qShape{f.batch, f.heads, rows, headDim};
  Dims kShape{f.batch, f.heads, keys, headDim};
  Dims vShape{f.batch, f.heads, keys, columns};
  Value gradOutput = reshaped(ops, b.gradOutput, shapeOf(output));
  // The forward's product operands as the backward's products read them:
  // Q^T, K and V^T.
  auto read = [&](Value v) { return availableAt(v, first, rewriter); };
  Value query = reshaped(ops, transposeOf(ops, read(b.dk.getLhs())), qShape);
  Value key = reshaped(ops, read(b.dq.getRhs()), kShape);
  Value value = reshaped(ops, transposeOf(ops, read(b.dp.getRhs())), vShape);
  Value fullMask = mask ? ops.expand(mask, {f.batch, f.heads, rows, keys}) : Value();
  auto gradients = AttentionBackwardOp::create(
      rewriter, loc, ops.dense(qShape), ops.dense(kShape), ops.dense(vShape),
      gradOutput, query, key, value, output, logsumexp, fullMask,
      rewriter.getF64FloatAttr(b.scale), UnitAttr());
  auto replace = [&](MatmulOp product, Value gradient) {
    rewriter.setInsertionPoint(product);
    OpsBefore at(rewriter, loc, element);
    rewriter.replaceOp(product, at.into(reshaped(at, gradient, shapeOf(product)),
                                        typeOf(product)));
  };
  replace(b.dq, gradients.getGradQuery());
  replace(b.dv, gradients.getGradValue());
  // dK^T: the key's gradient transposed.
  rewriter.setInsertionPoint(b.dk);
  OpsBefore atKey(rewriter, loc, element);
  replace(b.dk, atKey.transpose(gradients.getGradKey()));
}

/// Appends `value` to the forward's results and an argument of its type
/// to the backward's, both named `name`; returns the argument.
BlockArgument passSaved(Step &step, Value value, StringRef name) {
  MLIRContext *ctx = step.forward.getContext();
  NamedAttribute nameAttr(StringAttr::get(ctx, kName), StringAttr::get(ctx, name));
  auto named = DictionaryAttr::get(ctx, {nameAttr});
  func::ReturnOp ret = step.forwardReturn();
  unsigned r = step.forward.getNumResults();
  ret->insertOperands(r, value);
  (void)step.forward.insertResult(r, value.getType(), named);
  unsigned a = step.backward.getNumArguments();
  (void)step.backward.insertArgument(a, value.getType(), named, value.getLoc());
  return step.backward.getArgument(a);
}

enum class Paired { no, yes, broken };

Paired pairOne(Step &step, MatmulOp pv, PatternRewriter &rewriter) {
  FailureOr<ForwardSite> f = matchForward(step, pv);
  if (failed(f))
    return Paired::no;
  SmallVector<BlockArgument> pArgs, pTransposedArgs;
  for (unsigned i : f->savedProbabilities) {
    BlockArgument arg = step.argument(step.resultName(i));
    if (!arg)
      return Paired::no; // saved for nothing the backward reads
    auto &into = f->transposedProbabilities.contains(i) ? pTransposedArgs : pArgs;
    if (!llvm::is_contained(into, arg))
      into.push_back(arg);
  }
  FailureOr<BackwardSite> b = matchBackward(step, *f, pArgs, pTransposedArgs);
  if (failed(b))
    return Paired::no;
  std::string base = step.resultName(f->savedProbabilities.front()).str();
  for (StringRef suffix : {"_logsumexp", "_output", "_mask"})
    if (step.nameTaken(base + suffix.str()))
      return Paired::no;

  // The forward: the op, its saved values in place of P's.
  ForwardValues saved = rewriteForward(*f, rewriter);
  llvm::BitVector droppedResults(step.forward.getNumResults());
  for (unsigned i : f->savedProbabilities)
    droppedResults.set(i);
  BlockArgument lse = passSaved(step, saved.logsumexp, base + "_logsumexp");
  BlockArgument output = passSaved(step, saved.output, base + "_output");
  BlockArgument mask =
      saved.mask ? passSaved(step, saved.mask, base + "_mask") : BlockArgument();
  droppedResults.resize(step.forward.getNumResults());
  step.forwardReturn()->eraseOperands(droppedResults);
  if (failed(step.forward.eraseResults(droppedResults)))
    return Paired::broken;

  // The backward: the gradient op, P's arguments gone.
  rewriteBackward(*f, *b, output, lse, mask, rewriter);
  eraseUnused(step.backward, rewriter);
  llvm::BitVector droppedArgs(step.backward.getNumArguments());
  for (BlockArgument arg : b->probabilities) {
    if (!arg.use_empty()) {
      step.backward.emitOpError("the probabilities ")
          << step.backward.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kName)
          << " are still read after stride.attention_backward replaced "
             "their readers";
      return Paired::broken;
    }
    droppedArgs.set(arg.getArgNumber());
  }
  if (failed(step.backward.eraseArguments(droppedArgs)))
    return Paired::broken;
  // The forward's softmax and products, the backward's, now unused.
  eraseUnused(step.forward, rewriter);
  return Paired::yes;
}

struct PairTrainingAttentionPass
    : stride::impl::PairTrainingAttentionBase<PairTrainingAttentionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Step step{module.lookupSymbol<func::FuncOp>("forward"),
              module.lookupSymbol<func::FuncOp>("backward")};
    if (!step.forward || !step.backward) {
      module.emitError("stride-pair-training-attention needs a module with "
                       "the functions 'forward' and 'backward' (a training "
                       "step's two graphs)");
      return signalPassFailure();
    }
    if (!step.namesUnique())
      return; // nothing links the two graphs: each keeps its attention
    PatternRewriter rewriter(module.getContext());
    llvm::SmallPtrSet<Operation *, 16> tried;
    for (bool paired = true; paired;) {
      paired = false;
      SmallVector<MatmulOp> products;
      step.forward.walk([&](MatmulOp op) { products.push_back(op); });
      for (MatmulOp pv : products) {
        if (!tried.insert(pv).second)
          continue;
        Paired result = pairOne(step, pv, rewriter);
        if (result == Paired::broken)
          return signalPassFailure();
        if (result == Paired::yes) {
          paired = true;
          break;
        }
      }
    }
  }
};

} // namespace
