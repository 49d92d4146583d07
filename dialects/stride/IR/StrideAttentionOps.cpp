//===- StrideAttentionOps.cpp - Verifiers of the attention ops ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The verifiers of stride.attention and stride.attention_backward
// (StrideAttentionOps.td), over static or symbolic sizes (ShapeRules.h).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/ShapeRules.h"
#include "dialects/stride/IR/StrideOps.h"

using namespace mlir;
using namespace stride;

static StridedTensorType tensorType(Value value) {
  return cast<StridedTensorType>(value.getType());
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {

/// The sizes of an attention: query [B, Hq, Sq, D], key [B, Hkv, Skv, D],
/// value [B, Hkv, Skv, Dv].
struct AttentionSizes {
  SizeExpr batch, heads, kvHeads, queries, keys, headDim, valueDim;

  /// [B, Hq, Sq, Dv]: the forward's result and the backward's grad_output.
  SizeExprs output() const { return {batch, heads, queries, valueDim}; }
  /// [B, Hq, Sq]: one logsumexp per query row.
  SizeExprs rows() const { return {batch, heads, queries}; }
};

/// Whether `kvHeads` divides `heads` (both constants: a head count is
/// static; equal expressions otherwise).
bool headsDivide(const SizeExpr &heads, const SizeExpr &kvHeads) {
  std::optional<int64_t> q = heads.getConstant(), k = kvHeads.getConstant();
  if (q && k)
    return *k != 0 && *q % *k == 0;
  return heads == kvHeads;
}

constexpr StringLiteral kAttentionElementRule =
    "query, key, value and the results have one element type (convert with "
    "stride.cast)";

/// Checks what both attention ops share: query, key, value and the
/// optional mask fit together. Returns their sizes.
FailureOr<AttentionSizes> verifyAttentionOperands(Operation *op, Value query,
                                                  Value key, Value value,
                                                  Value mask) {
  for (auto [name, operand] :
       {std::pair<StringRef, Value>{"query", query}, {"key", key},
        {"value", value}})
    if (tensorType(operand).getRank() != 4)
      return errorWithNoteAt(op, operand, name)
             << name << " has shape " << formatSizes(sizesOf(operand))
             << ", but attention takes rank-4 tensors [batch, heads, "
                "sequence, head dim] (unsqueeze a missing batch or head dim)";
  if (failed(verifyElementTypesMatch(op, "query", query,
                                     {{"key", key}, {"value", value}},
                                     kAttentionElementRule)))
    return failure();
  SizeExprs q = sizesOf(query), k = sizesOf(key), v = sizesOf(value);
  if (k[0] != q[0])
    return errorWithNoteAt(op, key, "key")
           << "key has batch size " << k[0].str() << " but query has "
           << q[0].str()
           << "; the batch dims must be equal (broadcast with stride.expand)";
  if (!std::equal(v.begin(), v.begin() + 3, k.begin()))
    return errorWithNoteAt(op, value, "value")
           << "value has shape " << formatSizes(v) << " but key has "
           << formatSizes(k)
           << "; value has key's batch, heads and rows (dims 0 to 2): one "
              "row per key";
  if (k[3] != q[3])
    return errorWithNoteAt(op, key, "key")
           << "contracts query dim 3 of size " << q[3].str()
           << " with key dim 3 of size " << k[3].str()
           << "; query and key have one head dim";
  if (!headsDivide(q[1], k[1]))
    return errorWithNoteAt(op, key, "key")
           << "query has " << q[1].str() << " heads but key and value have "
           << k[1].str()
           << "; grouped-query attention needs a number of key/value heads "
              "that divides the query's (query head h reads key/value head "
              "h / (Hq / Hkv))";
  AttentionSizes sizes{q[0], q[1], k[1], q[2], k[2], q[3], v[3]};
  if (!mask)
    return sizes;
  Type element = tensorType(mask).getElementType();
  if (!element.isInteger(1) && element != tensorType(query).getElementType())
    return errorWithNoteAt(op, mask, "mask")
           << "mask has element type " << element
           << "; a mask is boolean (i1: true attends) or additive in the "
              "query's element type "
           << tensorType(query).getElementType();
  SizeExprs scores{sizes.batch, sizes.heads, sizes.queries, sizes.keys};
  if (failed(verifyShapeIs(op, "mask", mask, scores,
                           "query's batch, heads and rows by key's rows; "
                           "broadcast a smaller mask with stride.expand")))
    return failure();
  return sizes;
}

} // namespace

LogicalResult AttentionOp::verify() {
  FailureOr<AttentionSizes> sizes = verifyAttentionOperands(
      *this, getQuery(), getKey(), getValue(), getMask());
  if (failed(sizes) ||
      failed(verifyElementTypesMatch(*this, "query", getQuery(),
                                     {{"result", getResult()}},
                                     kAttentionElementRule)) ||
      failed(verifyShapeIs(*this, "result", getResult(), sizes->output(),
                           "query's batch, heads and rows, value's head dim")))
    return failure();
  if (Value length = getKvLength();
      length && failed(verifyShapeIs(*this, "kv_length", length,
                                     {sizes->batch},
                                     "one valid key count per batch")))
    return failure();
  if (Value lse = getLogsumexp())
    return verifyShapeIs(*this, "logsumexp", lse, sizes->rows(),
                         "one per query row: query's batch, heads and rows");
  return success();
}

LogicalResult AttentionBackwardOp::verify() {
  FailureOr<AttentionSizes> sizes = verifyAttentionOperands(
      *this, getQuery(), getKey(), getValue(), getMask());
  if (failed(sizes) ||
      failed(verifyElementTypesMatch(
          *this, "query", getQuery(),
          {{"grad_output", getGradOutput()},
           {"output", getOutput()},
           {"grad_query", getGradQuery()},
           {"grad_key", getGradKey()},
           {"grad_value", getGradValue()}},
          kAttentionElementRule)))
    return failure();
  StringRef forwardResult = "the forward's result: query's batch, heads and "
                            "rows, value's head dim";
  if (failed(verifyShapeIs(*this, "grad_output", getGradOutput(),
                           sizes->output(), forwardResult)) ||
      failed(verifyShapeIs(*this, "output", getOutput(), sizes->output(),
                           forwardResult)) ||
      failed(verifyShapeIs(*this, "logsumexp", getLogsumexp(), sizes->rows(),
                           "one per query row: query's batch, heads and "
                           "rows")))
    return failure();
  StringRef summed = "'s shape: the gradient is summed over the query heads "
                     "that share a key/value head";
  for (auto [name, gradient, operand, because] :
       {std::tuple<StringRef, Value, Value, std::string>{
            "grad_query", getGradQuery(), getQuery(), "query's shape"},
        {"grad_key", getGradKey(), getKey(), ("key" + summed).str()},
        {"grad_value", getGradValue(), getValue(), ("value" + summed).str()}})
    if (failed(verifyShapeIs(*this, name, gradient, sizesOf(operand),
                             because)))
      return failure();
  return success();
}
