//===- EmbeddingBagOps.cpp - embedding_bag --------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's embedding_bag (issue 42: recommendation models), built
// from index ops: each index's bag from the offsets (a mark at each bag's
// first position, summed by cumsum), the weight's rows gathered
// (index_select), optionally weighted, and summed into their bags
// (index_add); mode mean divides by the bags' sizes.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

using namespace mlir;

namespace stride::torch {
namespace {

/// PyTorch's embedding_bag modes.
enum class BagMode : int64_t { Sum = 0, Mean = 1, Max = 2 };

/// The bag of each of `count` positions, from the first `bags` offsets:
/// cumsum of a mark at each bag's first position (an index_add of ones, so
/// that empty bags, which repeat an offset, count), minus 1. A mark past
/// the last position (a trailing empty bag) lands in one spare slot.
Value bagOfPositions(NodeImporter &n, Value offsets, int64_t bags,
                     int64_t count) {
  StridedTensorType markType = n.contiguous({count + 1}, DType::I64);
  Value zeros = FullOp::create(n.b(), n.location(), markType,
                               n.b().getF64FloatAttr(0.0));
  Layout l = cast<StridedTensorType>(offsets.getType()).getLayout();
  if (l.shape[0] != bags) {
    ViewResult view = inferSlice(l, 0, 0, bags, 1);
    offsets = SliceOp::create(
        n.b(), n.location(),
        cast<StridedTensorType>(offsets.getType()).withLayout(*view.layout),
        offsets, 0, 0, bags, uint64_t(1));
  }
  Value ones = *n.broadcast(n.scalarTensor(1.0, DType::I64), {bags});
  Value marks = IndexAddOp::create(n.b(), n.location(), markType, zeros,
                                   n.cast(offsets, DType::I64), ones,
                                   uint64_t(0));
  Value running = CumsumOp::create(n.b(), n.location(), markType, marks,
                                   n.b().getI64IntegerAttr(0));
  ViewResult head = inferSlice(markType.getLayout(), 0, 0, count, 1);
  Value bag = SliceOp::create(n.b(), n.location(),
                              markType.withLayout(*head.layout), running, 0,
                              0, count, uint64_t(1));
  StridedTensorType bagType = n.contiguous({count}, DType::I64);
  Value one = *n.broadcast(n.scalarTensor(1.0, DType::I64), {count});
  return SubOp::create(n.b(), n.location(), bagType, bag, one);
}

/// _embedding_bag / _embedding_bag_forward_only(weight, indices, offsets,
/// scale_grad_by_freq, mode, sparse, per_sample_weights,
/// include_last_offset, padding_idx) -> (output, offset2bag, bag_size,
/// max_indices), modes sum and mean over 1-D indices.
LogicalResult embeddingBag(NodeImporter &n) {
  FailureOr<Value> weight = n.tensor("weight");
  FailureOr<Value> indices = succeeded(weight) ? n.tensor("indices") : Fail();
  FailureOr<Value> offsets = succeeded(indices) ? n.tensor("offsets") : Fail();
  FailureOr<int64_t> mode = succeeded(offsets) ? n.integer("mode", 0) : Fail();
  FailureOr<Value> perSample =
      succeeded(mode) ? n.optionalTensor("per_sample_weights") : Fail();
  FailureOr<bool> lastOffset =
      succeeded(perSample) ? n.boolean("include_last_offset", false) : Fail();
  FailureOr<int64_t> padding =
      succeeded(lastOffset) ? n.integer("padding_idx", -1) : Fail();
  if (failed(padding))
    return failure();
  if (*mode != int64_t(BagMode::Sum) && *mode != int64_t(BagMode::Mean))
    return n.error() << "embedding_bag mode " << *mode
                     << " is not supported: Stride takes sum (0) and mean (1)";
  if (*padding >= 0)
    return n.error() << "embedding_bag with padding_idx " << *padding
                     << " is not supported";
  if (rankOf(*weight) != 2 || rankOf(*indices) != 1 || rankOf(*offsets) != 1 ||
      n.numOutputs() != 4)
    return n.error() << "embedding_bag takes a 2-D weight, 1-D indices and "
                        "offsets, and has 4 outputs";
  int64_t count = shapeOf(*indices)[0], width = shapeOf(*weight)[1];
  int64_t bags = shapeOf(*offsets)[0] - (*lastOffset ? 1 : 0);
  if (bags < 0 || failed(expectOutputShape(n, 0, {bags, width})))
    return failure();
  DType dtype = n.outputDType();
  StridedTensorType rowsType = n.contiguous({count, width}, dtype);
  Value rows = IndexSelectOp::create(n.b(), n.location(), rowsType,
                                     n.cast(*weight, dtype), *indices,
                                     uint64_t(0));
  if (*perSample) {
    if (*mode != int64_t(BagMode::Sum))
      return n.error() << "per_sample_weights needs mode sum";
    FailureOr<Value> column =
        n.conform(ViewOp::create(n.b(), n.location(),
                                 n.contiguous({count, 1}, dtype),
                                 n.toType(n.cast(*perSample, dtype),
                                          n.contiguous({count}, dtype))),
                  dtype, {count, width});
    if (failed(column))
      return failure();
    rows = MulOp::create(n.b(), n.location(), rowsType, rows, *column);
  }
  Value bag = bagOfPositions(n, *offsets, bags, count);
  StridedTensorType outType = n.contiguous({bags, width}, dtype);
  Value zeros = FullOp::create(n.b(), n.location(), outType,
                               n.b().getF64FloatAttr(0.0));
  Value out = IndexAddOp::create(n.b(), n.location(), outType, zeros, bag,
                                 rows, uint64_t(0));
  StridedTensorType sizeType = n.contiguous({bags}, DType::I64);
  Value noBags = FullOp::create(n.b(), n.location(), sizeType,
                                n.b().getF64FloatAttr(0.0));
  Value ones = *n.broadcast(n.scalarTensor(1.0, DType::I64), {count});
  Value sizes = IndexAddOp::create(n.b(), n.location(), sizeType, noBags, bag,
                                   ones, uint64_t(0));
  if (*mode == int64_t(BagMode::Mean)) {
    // An empty bag's mean is 0, as PyTorch's: divide by max(size, 1).
    Value one = *n.broadcast(n.scalarTensor(1.0, DType::I64), {bags});
    Value divisor = MaximumOp::create(n.b(), n.location(), sizeType, sizes, one);
    Value column = ViewOp::create(n.b(), n.location(),
                                  n.contiguous({bags, 1}, DType::I64), divisor);
    FailureOr<Value> by = n.conform(column, dtype, {bags, width});
    if (failed(by))
      return failure();
    out = DivOp::create(n.b(), n.location(), outType, out, *by);
  }
  n.setOutput(0, n.toType(out, n.outputType()));
  // offset2bag and bag_size where the file gives them those shapes; the
  // other bookkeeping (max_indices, and what a device leaves empty) zeros.
  Value known[] = {bag, sizes};
  for (size_t i = 1; i < 4; ++i) {
    if (!n.hasOutput(i))
      continue;
    Value v = i < 3 ? known[i - 1] : Value();
    if (v && shapeOf(v) == n.outputShape(i))
      n.setOutput(i, n.toType(n.cast(v, n.outputDType(i)), n.outputType(i)));
    else
      n.setOutput(i, FullOp::create(n.b(), n.location(), n.outputType(i),
                                    n.b().getF64FloatAttr(0.0)));
  }
  return success();
}

} // namespace

/// Adds embedding_bag to the table.
void addEmbeddingBagOps(OpTable &ops) {
  ops.insert({
      {"aten._embedding_bag.default", embeddingBag},
      {"aten._embedding_bag_forward_only.default", embeddingBag},
  });
}

} // namespace stride::torch
