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
// (index_add, marked sorted_index: the bags never decrease); mode mean
// divides by the bags' sizes. Mode max compares
// every bag with every position (a mask [bags, positions]) and takes the
// largest of each column and its row's index (max, argmax). Positions
// whose index is padding_idx count in no bag.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

#include <limits>

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

/// Mode max: each bag against each position, [bags, count, width]: the
/// rows of the bag's positions (kept ones only) compared, the largest
/// element per column and the embedding index of its first row (argmax
/// keeps the first of equal values); an empty bag gives 0 and index -1,
/// as PyTorch's CUDA kernel.
std::pair<Value, Value> bagMax(NodeImporter &n, Value rows, Value bag,
                               Value kept, Value indices, int64_t bags) {
  DType dtype = n.outputDType();
  int64_t count = shapeOf(rows)[0], width = shapeOf(rows)[1];
  Dims pairs{bags, count, width}, byBag{bags, count}, out{bags, width};
  PointwiseBuilder p{n, pairs};
  Value which = IotaOp::create(n.b(), n.location(),
                               n.contiguous(byBag, DType::I64), uint64_t(0));
  Value bagRow = ViewOp::create(n.b(), n.location(),
                                n.contiguous({1, count}, DType::I64), bag);
  Value inBag =
      CmpOp::create(n.b(), n.location(), n.contiguous(byBag, DType::I1),
                    CmpPredicate::eq, which, *n.broadcast(bagRow, byBag));
  if (kept) {
    Value keptRow = ViewOp::create(n.b(), n.location(),
                                   n.contiguous({1, count}, DType::I1), kept);
    inBag = AndOp::create(n.b(), n.location(), n.contiguous(byBag, DType::I1),
                          inBag, *n.broadcast(keptRow, byBag));
  }
  Value member = ViewOp::create(
      n.b(), n.location(), n.contiguous({bags, count, 1}, DType::I1), inBag);
  Value mask = *n.broadcast(member, pairs);
  Value lifted = ViewOp::create(n.b(), n.location(),
                                n.contiguous({1, count, width}, dtype), rows);
  Value lowest = *p.constant(-std::numeric_limits<double>::infinity(), dtype);
  Value masked = p.select(mask, *n.broadcast(lifted, pairs), lowest);
  int64_t dims[] = {1};
  Value largest = MaxOp::create(n.b(), n.location(), n.contiguous(out, dtype),
                                masked, dims, false);
  Value first =
      ArgmaxOp::create(n.b(), n.location(), n.contiguous(out, DType::I64),
                       masked, uint64_t(1), false);
  Value any = AnyOp::create(
      n.b(), n.location(), n.contiguous({bags}, DType::I1), inBag, dims, false);
  Value anyColumn = ViewOp::create(n.b(), n.location(),
                                   n.contiguous({bags, 1}, DType::I1), any);
  Value filled = *n.broadcast(anyColumn, out);
  PointwiseBuilder q{n, out};
  Value result = q.select(filled, largest, *q.constant(0.0, dtype));
  int64_t cells = bags * width;
  Value flatFirst = ViewOp::create(n.b(), n.location(),
                                   n.contiguous({cells}, DType::I64), first);
  Value words = IndexSelectOp::create(
      n.b(), n.location(), n.contiguous({cells}, DType::I64),
      n.cast(indices, DType::I64), flatFirst, uint64_t(0));
  Value wordGrid =
      ViewOp::create(n.b(), n.location(), n.contiguous(out, DType::I64), words);
  Value none = *q.constant(-1.0, DType::I64);
  return {result, q.select(filled, wordGrid, none)};
}

/// The arguments of an embedding_bag node, checked.
struct BagArgs {
  Value weight, indices, offsets, perSample;
  BagMode mode;
  bool lastOffset;
  int64_t padding;
};

FailureOr<BagArgs> bagArgs(NodeImporter &n) {
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
  if (*mode < int64_t(BagMode::Sum) || *mode > int64_t(BagMode::Max))
    return n.error() << "embedding_bag mode " << *mode
                     << " is not one of PyTorch's: sum (0), mean (1), max (2)";
  if (rankOf(*weight) != 2 || rankOf(*indices) != 1 || rankOf(*offsets) != 1 ||
      n.numOutputs() != 4)
    return n.error() << "embedding_bag takes a 2-D weight, 1-D indices and "
                        "offsets, and has 4 outputs";
  // PyTorch's functional form turns a negative padding_idx into a row;
  // the aten op's -1 means none.
  if (*padding < -1 || *padding >= shapeOf(*weight)[0])
    return n.error() << "embedding_bag padding_idx " << *padding
                     << " is not a row of the weight's " << shapeOf(*weight)[0]
                     << " rows (or -1, none)";
  if (*perSample && *mode != int64_t(BagMode::Sum))
    return n.error() << "per_sample_weights needs mode sum";
  return BagArgs{*weight,        *indices,    *offsets, *perSample,
                 BagMode(*mode), *lastOffset, *padding};
}

/// _embedding_bag / _embedding_bag_forward_only(weight, indices, offsets,
/// scale_grad_by_freq, mode, sparse, per_sample_weights,
/// include_last_offset, padding_idx) -> (output, offset2bag, bag_size,
/// max_indices), modes sum, mean and max over 1-D indices; positions whose
/// index is padding_idx count in no bag.
LogicalResult embeddingBag(NodeImporter &n) {
  FailureOr<BagArgs> a = bagArgs(n);
  if (failed(a))
    return failure();
  int64_t count = shapeOf(a->indices)[0], width = shapeOf(a->weight)[1];
  int64_t bags = shapeOf(a->offsets)[0] - (a->lastOffset ? 1 : 0);
  if (bags < 0 || failed(expectOutputShape(n, 0, {bags, width})))
    return failure();
  Dims compared{bags, count, width};
  if (a->mode == BagMode::Max && !checkedNumElements(compared))
    return n.error() << "embedding_bag max compares " << bags << " bags with "
                     << count << " positions of " << width
                     << " elements, beyond Stride's limit of " << kMaxElements;
  DType dtype = n.outputDType();
  StridedTensorType rowsType = n.contiguous({count, width}, dtype);
  Value rows =
      IndexSelectOp::create(n.b(), n.location(), rowsType,
                            n.cast(a->weight, dtype), a->indices, uint64_t(0));
  if (a->perSample) {
    FailureOr<Value> column = n.conform(
        ViewOp::create(n.b(), n.location(), n.contiguous({count, 1}, dtype),
                       n.toType(n.cast(a->perSample, dtype),
                                n.contiguous({count}, dtype))),
        dtype, {count, width});
    if (failed(column))
      return failure();
    rows = MulOp::create(n.b(), n.location(), rowsType, rows, *column);
  }
  Value bag = bagOfPositions(n, a->offsets, bags, count);
  Dims positions{count};
  PointwiseBuilder p{n, positions};
  Value kept, counted = *p.constant(1.0, DType::I64);
  if (a->padding >= 0) {
    Value index = n.toType(n.cast(a->indices, DType::I64),
                           n.contiguous({count}, DType::I64));
    kept = p.compare(CmpPredicate::ne, index,
                     *p.constant(double(a->padding), DType::I64));
    counted = n.cast(kept, DType::I64);
    Value keptColumn = ViewOp::create(
        n.b(), n.location(), n.contiguous({count, 1}, DType::I1), kept);
    PointwiseBuilder r{n, shapeOf(rows)};
    Value keptRows = *n.broadcast(keptColumn, shapeOf(rows));
    Value zero = *r.constant(0.0, dtype);
    rows = r.select(keptRows, rows, zero);
  }
  StridedTensorType sizeType = n.contiguous({bags}, DType::I64);
  Value noBags =
      FullOp::create(n.b(), n.location(), sizeType, n.b().getF64FloatAttr(0.0));
  // The bags never decrease (a cumulative sum of marks, minus 1): each
  // bag's positions are one run, which kernels find by binary search.
  Value sizes = IndexAddOp::create(n.b(), n.location(), sizeType, noBags, bag,
                                   counted, uint64_t(0), /*sorted_index=*/true);
  StridedTensorType outType = n.contiguous({bags, width}, dtype);
  Value out, maxIndices;
  if (a->mode == BagMode::Max) {
    std::tie(out, maxIndices) = bagMax(n, rows, bag, kept, a->indices, bags);
  } else {
    Value zeros = FullOp::create(n.b(), n.location(), outType,
                                 n.b().getF64FloatAttr(0.0));
    out = IndexAddOp::create(n.b(), n.location(), outType, zeros, bag, rows,
                             uint64_t(0), /*sorted_index=*/true);
  }
  if (a->mode == BagMode::Mean) {
    // An empty bag's mean is 0, as PyTorch's: divide by max(size, 1).
    Value one = *n.broadcast(n.scalarTensor(1.0, DType::I64), {bags});
    Value divisor =
        MaximumOp::create(n.b(), n.location(), sizeType, sizes, one);
    Value column = ViewOp::create(n.b(), n.location(),
                                  n.contiguous({bags, 1}, DType::I64), divisor);
    FailureOr<Value> by = n.conform(column, dtype, {bags, width});
    if (failed(by))
      return failure();
    out = DivOp::create(n.b(), n.location(), outType, out, *by);
  }
  n.setOutput(0, n.toType(out, n.outputType()));
  // offset2bag, bag_size and max_indices where the file gives them those
  // shapes; the other bookkeeping (what a device leaves empty) zeros.
  Value known[] = {bag, sizes, maxIndices};
  for (size_t i = 1; i < 4; ++i) {
    if (!n.hasOutput(i))
      continue;
    Value v = known[i - 1];
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
