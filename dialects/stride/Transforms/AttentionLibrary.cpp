//===- AttentionLibrary.cpp - Keep the attention a library takes fused ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-attention-library: which attention ops run as one cuDNN call,
// which (decode steps cuDNN does not take) as Stride's split-KV kernel,
// and the operands of the former in the layouts cuDNN reads
// (AttentionPasses.td says what each takes; python-free-docs/attention.md,
// "The fused path" and "Decode attention", why).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "OpsBefore.h"

#include "dialects/stride/Analysis/DecodeAttention.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"

namespace stride {
#define GEN_PASS_DEF_ATTENTIONLIBRARY
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// cuDNN's flash attention: head dims that are multiples of 8, up to this.
constexpr int64_t kMaxCudnnHeadDim = 128;
/// The alignment, in bytes, of every address and stride cuDNN reads.
constexpr int64_t kCudnnAlignment = 16;

bool cudnnTakesHeadDim(int64_t dim) {
  return dim % 8 == 0 && dim > 0 && dim <= kMaxCudnnHeadDim;
}

/// Whether every value `size` takes is a multiple of `n` bytes of
/// `elementBytes` each: each coefficient is.
bool isMultipleOfBytes(const SizeExpr &size, int64_t elementBytes,
                       int64_t n) {
  return llvm::all_of(size.terms(), [&](const auto &term) {
    return term.second * elementBytes % n == 0;
  });
}

/// Whether cuDNN reads a [b, h, s, d] tensor of `type` in place: rows
/// contiguous, the other strides and the offset multiples of 16 bytes (over
/// symbolic sizes, for every value of the symbols).
bool cudnnReadsInPlace(StridedTensorType type) {
  int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  SymbolicLayout layout = type.getSymbolicLayout();
  auto isOne = [](const SizeExpr &size) { return size.getConstant() == 1; };
  if (!isOne(layout.shape[3]) && !isOne(layout.strides[3]))
    return false;
  for (int64_t d = 0; d < 3; ++d)
    if (!isOne(layout.shape[d]) &&
        !isMultipleOfBytes(layout.strides[d], bytes, kCudnnAlignment))
      return false;
  return isMultipleOfBytes(layout.offset, bytes, kCudnnAlignment);
}

/// Whether a dim of `type` other than the last addresses one element for
/// all its indices (a broadcast).
bool isBroadcast(StridedTensorType type, int64_t dim) {
  SymbolicLayout layout = type.getSymbolicLayout();
  return layout.shape[dim].getConstant() != 1 &&
         layout.strides[dim].getConstant() == 0;
}

/// `value` ([B, H, Sq, D] or [B, H, Sq]) where `rows` (i1 [B or 1, H or
/// 1, Sq, 1]) says the row attends a key, `fill` elsewhere; the `where`
/// has `type` and is built by `ops`.
Value keepRows(OpsBefore &ops, OpBuilder &builder, Location loc, Value rows,
               Value value, double fill, StridedTensorType type) {
  Dims shape(type.getShape());
  Value keep = rows;
  if (shape.size() == 3) {
    Dims rowShape(typeOf(rows).getShape());
    rowShape.pop_back();
    keep = ops.view(rows, rowShape);
  }
  Value kept = ops.expand(keep, shape);
  Value filler = ops.full(fill, shape);
  return WhereOp::create(builder, loc, type, kept, value, filler);
}

class Preparer {
public:
  Preparer(Operation *op, Type element)
      : ops(op, element), element(element), op(op),
        symbols(enclosingSymbols(op)) {}

  /// `value` itself where cuDNN reads it in place, else a dense copy.
  Value operand(Value value) {
    StridedTensorType type = typeOf(value);
    if (cudnnReadsInPlace(type))
      return value;
    return ops.into(value, denseOf(type, element));
  }

  /// The kv_length as the boolean mask [B, Hq, Sq, Skv] cuDNN reads as
  /// its bias (key j attends where j < kv_length[b]): cuDNN's padding mask,
  /// built as its frontend builds it, gave wrong results on an H200 with
  /// cuDNN 9.19 (bench/NOTES.md section 61).
  Value lengthMask(AttentionOp op) {
    SmallVector<int64_t> scores(op.getResult().getType().getShape());
    scores.back() = op.getKey().getType().getShape()[2];
    Value keep = ops.validKeys(op.getKvLength(), scores.back());
    return ops.expand(keep, scores);
  }

  /// `value` as `type` (itself when it has that type, else a copy).
  Value into(Value value, StridedTensorType type) {
    return ops.into(value, type);
  }

  /// The small tensor behind the mask's broadcast dims (batch, heads and
  /// query rows): a slice of one element along each, built once per mask.
  Value compact(Value mask) {
    Value &small = compacts[mask];
    if (small)
      return small;
    StridedTensorType type = typeOf(mask);
    small = mask;
    for (int64_t d = 0; d < 3; ++d)
      if (isBroadcast(type, d))
        small = type.isSymbolic()
                    ? ops.sliceSymbolic(small, d, 0, 1, symbols)
                    : ops.slice(small, d, 0, 1);
    return small;
  }

  /// The i1 [B or 1, H or 1, Sq, 1] that is true where query row i attends
  /// some key under the boolean `mask` (static sizes) and, if `causal`, the
  /// top-left causal rule (key j <= i). Reduced over the mask's compact
  /// tensor: a padding mask costs B x Skv, causal or not (causalRows).
  Value rowsWithKeys(Value mask, bool causal) {
    Value keep = compact(mask);
    Dims shape(typeOf(keep).getShape());
    int64_t queries = typeOf(mask).getShape()[2], keys = shape[3];
    if (causal && shape[2] == 1 && queries > 1)
      return causalRows(keep, queries);
    if (causal) {
      Value order = ops.view(ops.causal(queries, keys), {1, 1, queries, keys});
      keep = ops.both(keep, ops.expand(order, shape));
    }
    Value any = ops.anyRow(keep);
    shape = Dims(typeOf(any).getShape());
    shape[2] = queries;
    return ops.expand(any, shape);
  }

  /// rowsWithKeys of a mask shared by the query rows (`keep`, [B', H', 1,
  /// Skv]) under the causal rule: row i attends a key where the first key
  /// the mask keeps is at most i. The first key is a minimum over B' x Skv,
  /// not a test of every row against every key.
  Value causalRows(Value keep, int64_t queries) {
    OpsBefore index(op, IntegerType::get(op->getContext(), 64));
    Dims shape(typeOf(keep).getShape());
    int64_t keys = shape.back();
    Value position = index.iota(shape, 3);
    // A mask that keeps no key gives a first key past every row, also
    // when there are more query rows than keys (row i >= Skv attends key
    // Skv - 1 and below, but no key at all is not "at most i").
    Value none = index.full(double(std::max(keys, queries)), shape);
    Value first = index.reduceRow<MinOp>(index.select(keep, position, none));
    Dims rows = shape;
    rows[2] = queries;
    rows[3] = 1;
    Value firstOfRows = index.expand(first, rows);
    Value row = index.iota(rows, 2);
    return index.compare(CmpPredicate::le, firstOfRows, row);
  }

  /// The logsumexp `lse` [B, H, Sq] as cuDNN's backward reads it: +inf on
  /// the rows `rows` says attend no key, so that their weights
  /// exp(S - L) are 0 (the op's), not exp(-inf + inf).
  Value backwardStatistics(Value lse, Value rows) {
    OpsBefore statistics(op, typeOf(lse).getElementType());
    OpBuilder builder(op);
    return keepRows(statistics, builder, op->getLoc(), rows, lse, kInf,
                    denseOf(typeOf(lse), typeOf(lse).getElementType()));
  }

  /// The mask as cuDNN's additive bias in the query's element type: the
  /// compact tensor behind its broadcast dims, converted or copied only
  /// where needed, then expanded back to the mask's shape.
  Value bias(Value mask) {
    StridedTensorType type = typeOf(mask);
    Value small = compact(mask);
    StridedTensorType smallType = typeOf(small);
    StridedTensorType denseSmall = denseOf(smallType, element);
    Value dense;
    if (smallType.getElementType().isInteger(1)) {
      // True attends: 0; false: -inf.
      Value zero = ops.fullLike(0.0, smallType, element);
      Value minusInf = ops.fullLike(-kInf, smallType, element); // in this order
      OpBuilder b(op);
      dense = WhereOp::create(b, op->getLoc(), denseSmall, small, zero,
                              minusInf);
    } else {
      bool stillBroadcast = false;
      for (int64_t d = 0; d < 3; ++d)
        stillBroadcast |= isBroadcast(smallType, d);
      dense = stillBroadcast || !cudnnReadsInPlace(smallType)
                  ? ops.into(small, denseSmall)
                  : small;
    }
    return ops.expandTo(dense, type);
  }

private:
  OpsBefore ops;
  Type element;
  Operation *op;
  SymbolRanges symbols;
  llvm::DenseMap<Value, Value> compacts;
};

/// Whether `mask` is a boolean mask of static sizes, whose rows may hide
/// every key: cuDNN computes such a row as its softmax of a row of -inf
/// (NaN), the op as 0 (python-free-docs/attention.md, "The fused path").
bool mayHideWholeRows(Value mask) {
  return mask && typeOf(mask).getElementType().isInteger(1) &&
         !typeOf(mask).isSymbolic();
}

/// Gives `value` (the result [B, H, Sq, D] or the logsumexp [B, H, Sq] of
/// a cuDNN call) `fill` on the rows that `rows` (i1 [B or 1, H or 1, Sq,
/// 1]) says attend no key: a `where` after the call that its readers read
/// in its place.
void fillRowsWithoutKeys(OpResult value, Value rows, double fill) {
  SmallVector<OpOperand *> readers;
  for (OpOperand &use : value.getUses())
    readers.push_back(&use);
  OpBuilder builder(value.getOwner());
  builder.setInsertionPointAfter(value.getOwner());
  StridedTensorType type = typeOf(value);
  OpsBefore after(builder, value.getLoc(), type.getElementType());
  Value filled =
      keepRows(after, builder, value.getLoc(), rows, value, fill, type);
  for (OpOperand *reader : readers)
    reader->set(filled);
}

/// `type`'s shape and element type, dense row-major from element 0: how
/// cuDNN reads and writes the row statistics [b, h, s] always (PyTorch's
/// CPU flash attention, for one, returns them heads-innermost), and any
/// tensor whose strides do not suit it (python-free-docs/attention.md).
StridedTensorType dense(StridedTensorType type) {
  return denseOf(type, type.getElementType());
}

/// A result cuDNN writes through its strides: itself where they suit
/// cuDNN, else dense.
void writable(OpResult result) {
  if (!cudnnReadsInPlace(typeOf(result)))
    writeResultAs(result, dense(typeOf(result)));
}

/// Whether `op` has a valid key count besides a mask (cuDNN reads one
/// bias; stride-fold-index-masks makes the count in place of the mask).
bool hasMaskAndLength(AttentionOp op) { return op.getMask() && op.getKvLength(); }
bool hasMaskAndLength(AttentionBackwardOp) { return false; }

template <typename OpTy> bool cudnnTakes(OpTy op) {
  if (hasMaskAndLength(op))
    return false;
  StridedTensorType query = op.getQuery().getType(),
                    value = op.getValue().getType();
  Type element = query.getElementType();
  bool empty = llvm::is_contained(query.getShape(), 0) ||
               llvm::is_contained(op.getKey().getType().getShape(), 0);
  return (element.isF16() || element.isBF16()) && !empty &&
         cudnnTakesHeadDim(query.getShape()[3]) &&
         cudnnTakesHeadDim(value.getShape()[3]);
}

/// The split-KV kernel's limits: a decode step's query rows (at most
/// kMaxSplitKvQueryRows per head, kMaxSplitKvRows per key/value head with
/// the query heads that share it), head dims a block's shared memory holds
/// the partial results of.
constexpr int64_t kMaxSplitKvQueryRows = 4;
constexpr int64_t kMaxSplitKvRows = 16;
constexpr int64_t kMaxSplitKvHeadDim = 256;
constexpr int64_t kMaxSplitKvRowElements = 2048;

/// Whether Stride's split-KV kernel runs `op`: few query rows against the
/// keys (a decode step), f16, bf16 or f32, the result only, static sizes
/// (its kernel's bounds are constants).
bool splitKvTakes(AttentionOp op) {
  if (llvm::any_of(op->getOperandTypes(), [](Type t) {
        return cast<StridedTensorType>(t).isSymbolic();
      }))
    return false;
  ArrayRef<int64_t> query = op.getQuery().getType().getShape();
  ArrayRef<int64_t> key = op.getKey().getType().getShape();
  ArrayRef<int64_t> value = op.getValue().getType().getShape();
  Type element = op.getQuery().getType().getElementType();
  int64_t rows = query[2] * (query[1] / key[1]);
  return !op.getLogsumexp() && (element.isF16() || element.isBF16() ||
                                element.isF32()) &&
         query[2] <= kMaxSplitKvQueryRows && rows <= kMaxSplitKvRows &&
         query[3] <= kMaxSplitKvHeadDim && value[3] <= kMaxSplitKvHeadDim &&
         rows * value[3] <= kMaxSplitKvRowElements;
}

/// How decode steps that both cuDNN and Stride's kernel take run (the
/// pass's decode-attention option). `staged` and `split-kv` both run
/// Stride's kernel, whose schedule picks the scheme
/// (CudaTargetOptions::stagedKvAttention, which the compiler sets for
/// `staged`).
enum class DecodeAttention { Auto, OwnKernel, Library };

std::optional<DecodeAttention> parseDecodeAttention(StringRef policy) {
  if (policy == "auto")
    return DecodeAttention::Auto;
  if (policy == "staged" || policy == "split-kv")
    return DecodeAttention::OwnKernel;
  if (policy == "library")
    return DecodeAttention::Library;
  return std::nullopt;
}

/// Whether a decode step both take runs as Stride's kernel alone under
/// `policy`. `auto` gives it cuDNN, but for the steps stagedGuardOf gives
/// both, chosen by the position at run time: on an H200 at
/// bench/decode's dims the split-KV kernel took 1.4 to 2.6 times cuDNN's
/// time at batches 1 and 32 (bench/NOTES.md section 55), and the batch-1
/// step with the staged kernel (on the tensor cores) took 0.577 ms at
/// position 1024 and 0.590 at 4000, where cuDNN's took 0.583 and 0.580
/// (section 81): ahead on short caches, behind on long ones, where
/// cuDNN's time does not depend on the position.
bool prefersOwnKernel(DecodeAttention policy) {
  return policy == DecodeAttention::OwnKernel;
}

void markFused(Operation *op) {
  op->setAttr(StrideDialect::kKeepFusedAttrName, UnitAttr::get(op->getContext()));
}

void prepare(AttentionOp op) {
  Preparer p(op, op.getQuery().getType().getElementType());
  op.getQueryMutable().assign(p.operand(op.getQuery()));
  op.getKeyMutable().assign(p.operand(op.getKey()));
  op.getValueMutable().assign(p.operand(op.getValue()));
  // A kv_length of 0 hides every key too; a decode step's length is at
  // least 1, and its cuDNN call gets no pass over its result for it.
  Value rows = mayHideWholeRows(op.getMask())
                   ? p.rowsWithKeys(op.getMask(), op.getCausal())
                   : Value();
  if (op.getKvLength()) {
    op.getMaskMutable().assign(p.lengthMask(op));
    op.getKvLengthMutable().clear();
  }
  if (Value mask = op.getMask())
    op.getMaskMutable().assign(p.bias(mask));
  writable(cast<OpResult>(op.getResult()));
  if (Value lse = op.getLogsumexp())
    writeResultAs(cast<OpResult>(lse), dense(typeOf(lse)));
  if (rows) {
    fillRowsWithoutKeys(cast<OpResult>(op.getResult()), rows, 0.0);
    if (Value lse = op.getLogsumexp())
      fillRowsWithoutKeys(cast<OpResult>(lse), rows, -kInf);
  }
  markFused(op);
}

void prepare(AttentionBackwardOp op) {
  Preparer p(op, op.getQuery().getType().getElementType());
  op.getGradOutputMutable().assign(p.operand(op.getGradOutput()));
  op.getQueryMutable().assign(p.operand(op.getQuery()));
  op.getKeyMutable().assign(p.operand(op.getKey()));
  op.getValueMutable().assign(p.operand(op.getValue()));
  op.getOutputMutable().assign(p.operand(op.getOutput()));
  Value lse = op.getLogsumexp();
  if (mayHideWholeRows(op.getMask()))
    lse = p.backwardStatistics(lse, p.rowsWithKeys(op.getMask(),
                                                   op.getCausal()));
  op.getLogsumexpMutable().assign(p.into(lse, dense(typeOf(lse))));
  if (Value mask = op.getMask())
    op.getMaskMutable().assign(p.bias(mask));
  for (Value gradient :
       {op.getGradQuery(), op.getGradKey(), op.getGradValue()})
    writable(cast<OpResult>(gradient));
  markFused(op);
}

//===----------------------------------------------------------------------===//
// The staged kernel and cuDNN, chosen at run time by the position
//===----------------------------------------------------------------------===//

/// "cache_position" for an argument named `cache_position` ("position"
/// for one without a name), as a symbol's name: an identifier, not one of
/// `taken`.
std::string symbolNameFor(func::FuncOp func, unsigned argument,
                          const SymbolRanges &taken) {
  auto name = func.getArgAttrOfType<StringAttr>(argument,
                                                StrideDialect::kNameAttrName);
  std::string base = name ? name.str() : "position";
  for (char &c : base)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (llvm::isDigit(base[0]))
    base = "_" + base;
  std::string candidate = base;
  for (int n = 1; taken.count(candidate); ++n)
    candidate = base + "_" + std::to_string(n);
  return candidate;
}

/// Binds a symbol to `input`'s value, once per argument: the positions
/// whose count (position + `offset`) is 1 to `keys` (at least 0). Returns
/// the symbol's declaration; null where that range is empty.
SymbolAttr bindPosition(func::FuncOp func, ValidLengthInput input,
                        int64_t keys) {
  MLIRContext *context = func.getContext();
  SymbolRanges declared = declaredSymbols(func);
  if (auto bound = func.getArgAttrOfType<StringAttr>(
          input.argument, StrideDialect::kBindsAttrName)) {
    const SizeSymbol &s = declared.at(bound.str());
    return SymbolAttr::get(context, bound, s.min, s.max, 1);
  }
  int64_t min = std::max<int64_t>(0, 1 - input.offset);
  int64_t max = keys - input.offset;
  if (max < min)
    return {};
  std::string name = symbolNameFor(func, input.argument, declared);
  auto symbol = SymbolAttr::get(context, StringAttr::get(context, name), min,
                                max, 1);
  SmallVector<Attribute> symbols;
  if (auto existing =
          func->getAttrOfType<ArrayAttr>(StrideDialect::kSymbolsAttrName))
    symbols.append(existing.begin(), existing.end());
  symbols.push_back(symbol);
  func->setAttr(StrideDialect::kSymbolsAttrName,
                ArrayAttr::get(context, symbols));
  func.setArgAttr(input.argument, StrideDialect::kBindsAttrName,
                  symbol.getName());
  return symbol;
}

/// `op`, a clone before it marked to run as the staged kernel, in a
/// stride.kernel guarded `when`.
KernelOp stagedVariantOf(AttentionOp op, ArrayAttr when,
                         KernelNameTable &names) {
  Operation *staged = nullptr;
  KernelOp kernel = variantKernelOf(op, "attention_staged", when, names, {},
                                    {}, staged);
  UnitAttr unit = UnitAttr::get(op.getContext());
  staged->setAttr(StrideDialect::kSplitKvAttrName, unit);
  staged->setAttr(StrideDialect::kStagedKvAttrName, unit);
  return kernel;
}

/// The guard under which `op`'s staged kernel runs: its count read from
/// an input, positions up to `stagedKeys` valid keys; nullopt where the
/// staged kernel does not take `op` or the count is computed otherwise.
/// An empty array: the staged kernel at every position (the cache holds
/// at most `stagedKeys` keys).
std::optional<ArrayAttr> stagedGuardOf(AttentionOp op, int64_t stagedKeys) {
  auto func = op->getParentOfType<func::FuncOp>();
  std::optional<ValidLengthInput> input = validLengthInput(op);
  if (stagedKeys <= 0 || !func || !stagedDecodeTakes(op) || !input ||
      !cudnnReadsInPlace(op.getResult().getType()))
    return std::nullopt;
  int64_t keys = op.getKey().getType().getShape()[2];
  MLIRContext *context = op.getContext();
  if (keys <= stagedKeys)
    return ArrayAttr::get(context, {});
  SymbolAttr symbol = bindPosition(func, *input, keys);
  if (!symbol)
    return std::nullopt;
  int64_t last = std::min(symbol.getMax(), stagedKeys - input->offset);
  if (last < symbol.getMin())
    return std::nullopt;
  return ArrayAttr::get(
      context, {SymbolAttr::get(context, symbol.getName(), symbol.getMin(),
                                last, 1)});
}

/// `op` as the staged kernel where `when` holds and as cuDNN's call
/// elsewhere, read through a stride.select_variant.
void makeVariants(AttentionOp op, ArrayAttr when, KernelNameTable &names) {
  KernelOp staged = stagedVariantOf(op, when, names);
  prepare(op);
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  auto select =
      SelectVariantOp::create(builder, op.getLoc(), op.getResult().getType(),
                              staged.getResult(0), op.getResult(), when);
  op.getResult().replaceAllUsesExcept(select.getResult(), select);
}

struct AttentionLibraryPass
    : stride::impl::AttentionLibraryBase<AttentionLibraryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (library != "cudnn" && library != "none") {
      getOperation().emitError()
          << "stride-attention-library: unknown library '" << library
          << "'; expected cudnn or none";
      return signalPassFailure();
    }
    std::optional<DecodeAttention> policy =
        parseDecodeAttention(decodeAttention);
    if (!policy) {
      getOperation().emitError()
          << "stride-attention-library: unknown decode-attention policy '"
          << decodeAttention << "'; expected auto, staged, split-kv or library";
      return signalPassFailure();
    }
    bool cudnn = library == "cudnn";
    names = KernelNameTable(getOperation());
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionBackwardOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto forward = dyn_cast<AttentionOp>(op))
        chooseForward(forward, cudnn, *policy);
      else if (auto backward = dyn_cast<AttentionBackwardOp>(op);
               backward && cudnn && cudnnTakes(backward))
        prepare(backward);
    }
  }

  KernelNameTable names;

  /// The split-KV kernel for the decode steps it takes that cuDNN does not
  /// (f32, other head dims, library=none), which would otherwise be
  /// decomposed around a copy of the cache per query head; for those both
  /// take, `policy` decides (python-free-docs/attention.md, "Decode
  /// attention"). cuDNN for the other ops it takes.
  void chooseForward(AttentionOp forward, bool cudnn, DecodeAttention policy) {
    bool library = cudnn && cudnnTakes(forward);
    bool kernel = splitKv && splitKvTakes(forward) &&
                  !forward->hasAttr(StrideDialect::kKeepFusedAttrName) &&
                  (!library || prefersOwnKernel(policy));
    std::optional<ArrayAttr> staged;
    if (library && splitKv && policy == DecodeAttention::Auto &&
        !forward->hasAttr(StrideDialect::kKeepFusedAttrName))
      staged = stagedGuardOf(forward, stagedKeys);
    if (staged && staged->empty()) {
      // The staged kernel at every position the cache holds.
      forward->setAttr(StrideDialect::kSplitKvAttrName,
                       UnitAttr::get(forward->getContext()));
      forward->setAttr(StrideDialect::kStagedKvAttrName,
                       UnitAttr::get(forward->getContext()));
    } else if (staged) {
      makeVariants(forward, *staged, names);
    } else if (kernel) {
      forward->setAttr(StrideDialect::kSplitKvAttrName,
                       UnitAttr::get(forward->getContext()));
    } else if (library) {
      prepare(forward);
    }
  }
};

} // namespace
