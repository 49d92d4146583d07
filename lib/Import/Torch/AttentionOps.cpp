//===- AttentionOps.cpp - Scaled dot-product attention --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's attention: scaled_dot_product_attention, and the fused
// variants PyTorch records in training captures and on GPUs (flash
// attention for the CPU, flash, memory-efficient and cuDNN attention), each
// with its backward, as stride.attention and stride.attention_backward.
// python-free-docs/attention.md ("Import") says how each maps.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

using namespace mlir;

namespace stride::torch {

namespace {

/// What sets the variants apart: their argument names and what they take.
struct Variant {
  /// The mask argument ("attn_mask", "attn_bias"), or nullptr (flash
  /// attention has none).
  const char *mask = nullptr;
  /// scaled_dot_product_attention itself: rank-3 inputs and the enable_gqa
  /// flag. The fused variants take rank 4, and key/value heads that divide
  /// the query's as grouped-query attention.
  bool composite = false;
  /// CUDA flash attention, whose causal mask is aligned to the bottom right.
  bool bottomRightCausal = false;
  /// The backward's gradient argument.
  const char *gradOutput = "grad_out";
};

constexpr Variant kComposite{"attn_mask", true};
constexpr Variant kFlashCpu{"attn_mask"};
constexpr Variant kFlash{nullptr, false, true};
constexpr Variant kEfficient{"attn_bias", false, false, "grad_out_"};
constexpr Variant kCudnn{"attn_bias"};

std::string dimsText(llvm::ArrayRef<int64_t> shape) {
  return formatDims(Dims(shape.begin(), shape.end()));
}

/// 0.1 as "0.1" (the diagnostic's own printing gives "1.000000e-01").
std::string numberText(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

DType dtypeOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getDType();
}

/// A view of `x` with the layout `inferred` (computed by the caller from
/// sizes it checked, so never an error).
template <typename OpTy, typename... Args>
Value viewOf(NodeImporter &n, Value x, const ViewResult &inferred,
             Args... args) {
  auto type = llvm::cast<StridedTensorType>(x.getType());
  return OpTy::create(
      n.b(), n.location(),
      StridedTensorType::get(type.getElementType(), *inferred.layout), x,
      args...);
}

Layout layoutOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getLayout();
}

Value unsqueezeAt(NodeImporter &n, Value x, int64_t dim) {
  return viewOf<UnsqueezeOp>(n, x, inferUnsqueeze(layoutOf(x), dim),
                             static_cast<uint64_t>(dim));
}

Value squeezeAt(NodeImporter &n, Value x, int64_t dim) {
  int64_t dims[] = {dim};
  return viewOf<SqueezeOp>(n, x, inferSqueeze(layoutOf(x), dims),
                           llvm::ArrayRef<int64_t>(dims));
}

/// The type of a result `computed` of the op: the file's type of output
/// `i` where it is one the op can have (the same shape and element type;
/// the op writes any layout), else `computed`'s row-major one.
StridedTensorType resultType(NodeImporter &n, size_t i,
                             const SizeExprs &shape, DType dtype) {
  if (n.hasOutput(i) && n.outputSizes(i) == shape && n.outputDType(i) == dtype)
    return n.outputType(i);
  return n.contiguousOf(shape, dtype);
}

/// The size that sizes `a` and `b` broadcast to: equal expressions, or the
/// other where one is the constant 1, or the larger of two constants (the
/// broadcast then reports the mismatch); nullopt for two symbolic sizes
/// that differ.
std::optional<SizeExpr> broadcastSize(const SizeExpr &a, const SizeExpr &b) {
  std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
  if (a == b || cb == 1)
    return a;
  if (ca == 1)
    return b;
  if (ca && cb)
    return SizeExpr::constant(std::max(*ca, *cb));
  return std::nullopt;
}

Value full(NodeImporter &n, StridedTensorType type, double value) {
  return FullOp::create(n.b(), n.location(), type,
                        n.b().getF64FloatAttr(value));
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// The operands of stride.attention and stride.attention_backward: query
/// [B, Hq, L, E], key [B, Hkv, S, E], value [B, Hkv, S, Ev], the mask
/// [B, Hq, L, S] (null when there is none), the scale and the causal flag.
struct Operands {
  Value query, key, value, mask;
  double scale = 1.0;
  bool causal = false;
  /// Rank-3 inputs ([N, L, E]), given a head dim of 1 at dim 1.
  bool headless = false;

  DType dtype() const { return dtypeOf(query); }
  /// [B, Hq, L]: one logsumexp per query row.
  SizeExprs rows() const {
    SizeExprs shape = symbolicShapeOf(query);
    shape.pop_back();
    return shape;
  }
  /// [B, Hq, L, Ev]: the result.
  SizeExprs output() const {
    SizeExprs shape = rows();
    shape.push_back(symbolicShapeOf(value)[3]);
    return shape;
  }
  FloatAttr scaleAttr(OpBuilder &b) const { return b.getF64FloatAttr(scale); }
  UnitAttr causalAttr(OpBuilder &b) const {
    return causal ? b.getUnitAttr() : UnitAttr();
  }
};

/// query, key and value of rank 4 (rank 3 given a head dim), with key and
/// value broadcast to one number of heads and every batch to one size.
LogicalResult shapeOperands(NodeImporter &n, const Variant &v,
                            Operands &a) {
  int64_t rank = rankOf(a.query);
  if (rankOf(a.key) != rank || rankOf(a.value) != rank)
    return n.error() << "query, key and value have ranks " << rank << ", "
                     << rankOf(a.key) << " and " << rankOf(a.value)
                     << "; attention takes three tensors of one rank";
  a.headless = v.composite && rank == 3;
  if (a.headless &&
      llvm::cast<StridedTensorType>(a.query.getType()).isSymbolic())
    return n.error() << "scaled_dot_product_attention on rank-3 tensors of "
                        "symbolic sizes is not imported yet (view them as "
                        "rank 4 [batch, heads, sequence, head dim])";
  if (rank != 4 && !a.headless)
    return n.error()
           << "query, key and value have rank " << rank << "; Stride imports "
           << (v.composite
                   ? "scaled_dot_product_attention on rank-4 [batch, heads, "
                     "sequence, head dim] and rank-3 [batch, sequence, head "
                     "dim] tensors (view other batch dims as one)"
                   : "fused attention on rank-4 [batch, heads, sequence, "
                     "head dim] tensors");
  if (a.headless)
    for (Value *x : {&a.query, &a.key, &a.value})
      *x = unsqueezeAt(n, *x, 1);
  SizeExprs q = symbolicShapeOf(a.query), k = symbolicShapeOf(a.key),
            val = symbolicShapeOf(a.value);
  std::optional<int64_t> qHeads = q[1].getConstant(),
                         kHeads = k[1].getConstant(),
                         vHeads = val[1].getConstant();
  if (!qHeads || !kHeads || !vHeads)
    return n.error() << "query, key and value have " << q[1].str() << ", "
                     << k[1].str() << " and " << val[1].str()
                     << " heads; Stride takes a static number of heads";
  if (*kHeads != *vHeads && *kHeads != 1 && *vHeads != 1)
    return n.error() << "key has " << *kHeads << " heads and value "
                     << *vHeads
                     << "; key and value need one number of heads (or 1, "
                        "which broadcasts)";
  int64_t kvHeads = std::max(*kHeads, *vHeads);
  FailureOr<bool> gqa =
      v.composite ? n.boolean("enable_gqa", false) : FailureOr<bool>(true);
  if (failed(gqa))
    return failure();
  bool grouped = kvHeads != *qHeads && kvHeads != 1;
  if (kvHeads == 0 || *qHeads % kvHeads != 0 || (grouped && !*gqa))
    return n.error() << "query has " << *qHeads << " heads, key and value "
                     << kvHeads << "; "
                     << (*gqa ? "grouped-query attention needs a number of "
                                "key/value heads that divides the query's"
                              : "without enable_gqa=True key and value need "
                                "the query's number of heads, or 1");
  std::optional<SizeExpr> qk = broadcastSize(q[0], k[0]);
  std::optional<SizeExpr> batch = qk ? broadcastSize(*qk, val[0]) : qk;
  if (!batch)
    return n.error() << "query, key and value have the batch sizes "
                     << q[0].str() << ", " << k[0].str() << " and "
                     << val[0].str()
                     << ", which do not broadcast to one for every value of "
                        "the symbols";
  SizeExpr heads = SizeExpr::constant(kvHeads);
  SizeExprs qShape{*batch, q[1], q[2], q[3]}, kShape{*batch, heads, k[2], k[3]},
      vShape{*batch, heads, val[2], val[3]};
  FailureOr<Value> bq = n.broadcastTo(a.query, qShape);
  FailureOr<Value> bk = succeeded(bq) ? n.broadcastTo(a.key, kShape) : Fail();
  FailureOr<Value> bv = succeeded(bk) ? n.broadcastTo(a.value, vShape) : Fail();
  if (failed(bv))
    return failure();
  a.query = *bq, a.key = *bk, a.value = *bv;
  return success();
}

/// The mask argument, cast to the query's element type when it is
/// additive, broadcast to [B, Hq, L, S].
LogicalResult maskOperand(NodeImporter &n, const Variant &v, Operands &a) {
  if (!v.mask)
    return success();
  FailureOr<Value> mask = n.optionalTensor(v.mask);
  if (failed(mask))
    return failure();
  if (!*mask)
    return success();
  DType dtype = dtypeOf(*mask);
  if (dtype != DType::I1 && !isFloat(dtype))
    return n.error() << v.mask << " is " << dtypeName(dtype)
                     << "; a mask is boolean (true attends) or "
                        "floating-point (added to the scores)";
  Value m = n.cast(*mask, dtype == DType::I1 ? dtype : a.dtype());
  SizeExprs q = symbolicShapeOf(a.query), k = symbolicShapeOf(a.key);
  SizeExprs scores{q[0], q[1], q[2], k[2]};
  if (a.headless) {
    // [N, L, S], then the head dim.
    FailureOr<Value> m3 = n.broadcastTo(m, {q[0], q[2], k[2]});
    if (failed(m3))
      return failure();
    m = unsqueezeAt(n, *m3, 1);
  }
  FailureOr<Value> broadcast = n.broadcastTo(m, scores);
  if (failed(broadcast))
    return failure();
  a.mask = *broadcast;
  return success();
}

/// Reads and checks the arguments both directions share.
FailureOr<Operands> operands(NodeImporter &n, const Variant &v) {
  FailureOr<double> dropout = n.scalar("dropout_p", 0.0);
  if (failed(dropout))
    return failure();
  if (*dropout != 0.0)
    return n.error() << "dropout_p=" << numberText(*dropout)
                     << ": Stride imports attention without dropout; export "
                        "the model in eval mode (model.eval()) or with "
                        "dropout_p=0";
  Operands a;
  FailureOr<Value> q = n.tensor("query");
  FailureOr<Value> k = succeeded(q) ? n.tensor("key") : Fail();
  FailureOr<Value> val = succeeded(k) ? n.tensor("value") : Fail();
  FailureOr<bool> causal =
      succeeded(val) ? n.boolean("is_causal", false) : Fail();
  if (failed(causal))
    return failure();
  a.query = *q, a.key = *k, a.value = *val, a.causal = *causal;
  if (failed(shapeOperands(n, v, a)) || failed(maskOperand(n, v, a)))
    return failure();
  SizeExpr queries = symbolicShapeOf(a.query)[2],
           keys = symbolicShapeOf(a.key)[2];
  if (v.bottomRightCausal && a.causal && queries != keys)
    return n.error() << "is_causal=True with " << queries.str()
                     << " queries and " << keys.str()
                     << " keys: CUDA flash attention aligns its "
                        "causal mask to the bottom right, stride.attention "
                        "(as PyTorch's is_causal) to the top left";
  std::optional<int64_t> headDim = symbolicShapeOf(a.query)[3].getConstant();
  if (!headDim && n.isNone("scale"))
    return n.error() << "attention of a symbolic head dim without a scale";
  FailureOr<double> scale =
      n.scalar("scale", 1.0 / std::sqrt(double(headDim.value_or(1))));
  if (failed(scale))
    return failure();
  a.scale = *scale;
  return a;
}

//===----------------------------------------------------------------------===//
// The logsumexp
//===----------------------------------------------------------------------===//

/// How a variant stores the logsumexp of the rows [B, H, L]: as they are
/// (flash attention), with a trailing dim of 1 (cuDNN), or padded past L
/// (memory-efficient attention rounds L up to a multiple of 32 and writes
/// +inf there).
enum class LogsumexpForm { Rows, Column, Padded };

FailureOr<LogsumexpForm> logsumexpForm(NodeImporter &n,
                                       llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<int64_t> rows,
                                       llvm::StringRef what) {
  if (shape == rows)
    return LogsumexpForm::Rows;
  if (shape.size() == 4 && shape.take_front(3) == rows && shape[3] == 1)
    return LogsumexpForm::Column;
  if (shape.size() == 3 && shape.take_front(2) == rows.take_front(2) &&
      shape[2] > rows[2])
    return LogsumexpForm::Padded;
  SmallVector<int64_t> column(rows);
  column.push_back(1);
  std::string padded = dimsText(rows.take_front(2));
  padded.insert(padded.size() - 1, ", P");
  return n.error() << what << " has shape " << dimsText(shape)
                   << ", expected one value per query row: "
                   << dimsText(rows) << ", " << dimsText(column) << ", or "
                   << padded << " padded to P > " << rows[2];
}

/// The forward's logsumexp `lse` ([B, H, L], f32) as output #1 of the file.
LogicalResult setLogsumexpOutput(NodeImporter &n, Value lse) {
  StridedTensorType type = n.outputType(1);
  if (type.isSymbolic()) {
    // Over symbolic sizes, the rows as they are only.
    if (failed(expectOutputSizes(n, 1, symbolicShapeOf(lse))))
      return failure();
    n.setOutput(1, n.toType(n.cast(lse, type.getDType()), type));
    return success();
  }
  llvm::ArrayRef<int64_t> rows = shapeOf(lse);
  FailureOr<LogsumexpForm> form = logsumexpForm(
      n, type.getShape(), rows, "the logsumexp (output #1)");
  if (failed(form))
    return failure();
  Value x = lse;
  if (*form == LogsumexpForm::Column)
    x = unsqueezeAt(n, lse, 3);
  if (*form == LogsumexpForm::Padded) {
    SmallVector<int64_t> padding{rows[0], rows[1], type.getShape()[2] - rows[2]};
    Value inf = full(n, n.contiguous(padding, DType::F32),
                     std::numeric_limits<double>::infinity());
    x = CatOp::create(n.b(), n.location(),
                      n.contiguous(type.getShape(), DType::F32),
                      ValueRange{lse, inf}, n.b().getI64IntegerAttr(2));
  }
  n.setOutput(1, n.toType(n.cast(x, type.getDType()), type));
  return success();
}

/// The backward's logsumexp argument as stride.attention_backward takes it:
/// [B, H, L], f32.
FailureOr<Value> logsumexpOperand(NodeImporter &n, llvm::ArrayRef<int64_t> rows) {
  FailureOr<Value> lse = n.tensor("logsumexp");
  FailureOr<LogsumexpForm> form =
      succeeded(lse) ? logsumexpForm(n, shapeOf(*lse), rows, "logsumexp")
                     : Fail();
  if (failed(form))
    return failure();
  Value x = *lse;
  if (*form == LogsumexpForm::Column)
    x = squeezeAt(n, x, 3);
  if (*form == LogsumexpForm::Padded)
    x = viewOf<SliceOp>(n, x, inferSlice(layoutOf(x), 2, 0, rows[2], 1),
                        uint64_t(2), uint64_t(0), uint64_t(rows[2]),
                        uint64_t(1));
  return n.cast(x, DType::F32);
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

/// The forward: the result (output #0), the logsumexp where the file has
/// a non-empty one (output #1), and zeros for the rest (the bookkeeping
/// of dropout: sequence offsets, random-number state, the debug mask).
LogicalResult forward(NodeImporter &n, const Variant &v) {
  FailureOr<Operands> a = operands(n, v);
  FailureOr<bool> debug =
      succeeded(a) ? n.boolean("return_debug_mask", false) : Fail();
  if (failed(debug))
    return failure();
  if (*debug)
    return n.error() << "return_debug_mask=True asks for the attention "
                        "probabilities, which stride.attention never writes";
  SizeExprs result = a->output();
  if (a->headless)
    result.erase(result.begin() + 1);
  if (failed(expectOutputSizes(n, 0, result)))
    return failure();
  bool logsumexp = n.hasOutput(1) && !n.outputShape(1).empty() &&
                   !llvm::is_contained(n.outputShape(1), 0);
  StridedTensorType type = resultType(n, 0, result, a->dtype());
  if (a->headless) // with the head dim the op has
    type = StridedTensorType::get(
        type.getElementType(), *inferUnsqueeze(type.getLayout(), 1).layout);
  auto op = AttentionOp::create(
      n.b(), n.location(), type,
      logsumexp ? Type(resultType(n, 1, a->rows(), DType::F32)) : Type(),
      a->query, a->key, a->value, a->mask, /*kv_length=*/Value(),
      a->scaleAttr(n.b()),
      a->causalAttr(n.b()));
  Value out = a->headless ? squeezeAt(n, op.getResult(), 1) : op.getResult();
  n.setOutput(0, n.toType(out, n.outputType(0)));
  if (logsumexp && failed(setLogsumexpOutput(n, op.getLogsumexp())))
    return failure();
  for (size_t i = 1; i < n.numOutputs(); ++i)
    if (n.hasOutput(i) && !n.output(i))
      n.setOutput(i, full(n, n.outputType(i), 0.0));
  return success();
}

/// The backward: the gradients of query, key and value.
LogicalResult backward(NodeImporter &n, const Variant &v) {
  FailureOr<Operands> a = operands(n, v);
  FailureOr<Value> grad = succeeded(a) ? n.tensor(v.gradOutput) : Fail();
  FailureOr<Value> out = succeeded(grad) ? n.tensor("out") : Fail();
  FailureOr<Value> lse =
      succeeded(out) ? logsumexpOperand(n, shapeOf(a->query).drop_back())
                     : Fail();
  if (failed(lse))
    return failure();
  if (n.hasOutput(3))
    return n.error() << "output #3 asks for the gradient of " << v.mask
                     << ", which stride.attention_backward does not give "
                        "(the mask gets no gradient)";
  DType dtype = a->dtype();
  auto op = AttentionBackwardOp::create(
      n.b(), n.location(), resultType(n, 0, symbolicShapeOf(a->query), dtype),
      resultType(n, 1, symbolicShapeOf(a->key), dtype),
      resultType(n, 2, symbolicShapeOf(a->value), dtype), *grad, a->query,
      a->key,
      a->value, *out, *lse, a->mask, a->scaleAttr(n.b()),
      a->causalAttr(n.b()));
  for (auto [i, gradient] : llvm::enumerate(op.getResults())) {
    if (!n.hasOutput(i))
      continue;
    if (failed(expectOutputShape(n, i, shapeOf(gradient))))
      return failure();
    n.setOutput(i, n.toType(gradient, n.outputType(i)));
  }
  return success();
}

template <const Variant &variant> LogicalResult forwardOf(NodeImporter &n) {
  return forward(n, variant);
}
template <const Variant &variant> LogicalResult backwardOf(NodeImporter &n) {
  return backward(n, variant);
}

} // namespace

/// Adds the builders of attention to the table.
void addAttentionOps(OpTable &ops) {
  ops.insert({
      {"aten.scaled_dot_product_attention.default", forwardOf<kComposite>},
      {"aten._scaled_dot_product_flash_attention_for_cpu.default",
       forwardOf<kFlashCpu>},
      {"aten._scaled_dot_product_flash_attention_for_cpu_backward.default",
       backwardOf<kFlashCpu>},
      {"aten._scaled_dot_product_flash_attention.default", forwardOf<kFlash>},
      {"aten._scaled_dot_product_flash_attention_backward.default",
       backwardOf<kFlash>},
      {"aten._scaled_dot_product_efficient_attention.default",
       forwardOf<kEfficient>},
      {"aten._scaled_dot_product_efficient_attention_backward.default",
       backwardOf<kEfficient>},
      {"aten._scaled_dot_product_cudnn_attention.default", forwardOf<kCudnn>},
      {"aten._scaled_dot_product_cudnn_attention_backward.default",
       backwardOf<kCudnn>},
  });
}

bool attentionTakesAbsentOutputs(llvm::StringRef target) {
  static const OpTable ops = [] {
    OpTable t;
    addAttentionOps(t);
    return t;
  }();
  return ops.find(target) != ops.end();
}

} // namespace stride::torch
