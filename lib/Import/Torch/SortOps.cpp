//===- SortOps.cpp - sort and topk by counting ----------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's sort and topk, built from ops Stride has: an element's
// place in its sorted row is the count of the row's elements that come
// before it (a larger value, descending; NaN above every number, as
// PyTorch orders it; an equal value at a smaller index, so the order is
// stable), and the row is scattered by those places. The count compares
// every pair of a row, n * n per row, which the fused compare-and-sum
// kernel does without holding the pairs; rows longer than
// kMaxSortedLength are refused, as that cost outgrows a sorting kernel's.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

using namespace mlir;

namespace stride::torch {
namespace {

/// The longest row sort and topk take (the count compares n * n pairs).
constexpr int64_t kMaxSortedLength = 4096;

/// A sorted row: the values and their indices in the input, the sorted dim
/// last.
struct SortedRows {
  Value values, indices;
};

/// `x` with `dim` moved last, copied row-major: `order` is the permutation.
Value withDimLast(NodeImporter &n, Value x, int64_t dim,
                  std::vector<int64_t> &order) {
  auto type = llvm::cast<StridedTensorType>(x.getType());
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      order.push_back(d);
  order.push_back(dim);
  Layout permuted = *inferPermute(type.getLayout(), order).layout;
  Value view = PermuteOp::create(n.b(), n.location(), type.withLayout(permuted),
                                 x, order);
  return n.toType(view, n.contiguous(permuted.shape, type.getDType()));
}

/// `rows` (row-major) viewed with a size-1 dim inserted at `at`, broadcast
/// to `pairs`.
Value pairedView(NodeImporter &n, Value rows, int64_t at,
                 ArrayRef<int64_t> pairs) {
  auto type = llvm::cast<StridedTensorType>(rows.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  shape.insert(shape.begin() + at, 1);
  Layout layout = *inferView(type.getLayout(), shape).layout;
  Value view = ViewOp::create(n.b(), n.location(), type.withLayout(layout), rows);
  return *n.broadcast(view, pairs);
}

/// Where `a` comes before `b` in the order (descending: the larger first;
/// ascending: the smaller first; NaN counts as larger than every number).
Value precedes(NodeImporter &n, Value a, Value b, bool descending,
               StridedTensorType flags) {
  Value strictly = CmpOp::create(n.b(), n.location(), flags,
                                 descending ? CmpPredicate::gt : CmpPredicate::lt,
                                 a, b);
  if (!isFloat(llvm::cast<StridedTensorType>(a.getType()).getDType()))
    return strictly;
  Value aNan = CmpOp::create(n.b(), n.location(), flags, CmpPredicate::ne, a, a);
  Value bNan = CmpOp::create(n.b(), n.location(), flags, CmpPredicate::ne, b, b);
  // descending: a NaN precedes a number; ascending: a number precedes NaN.
  Value first = descending ? aNan : bNan;
  Value second = descending ? bNan : aNan;
  Value notSecond = NotOp::create(n.b(), n.location(), flags, second);
  Value nanFirst = AndOp::create(n.b(), n.location(), flags, first, notSecond);
  return OrOp::create(n.b(), n.location(), flags, strictly, nanFirst);
}

/// Where `a` and `b` are equal in the order (NaN equals NaN).
Value tied(NodeImporter &n, Value a, Value b, StridedTensorType flags) {
  Value equal = CmpOp::create(n.b(), n.location(), flags, CmpPredicate::eq, a, b);
  if (!isFloat(llvm::cast<StridedTensorType>(a.getType()).getDType()))
    return equal;
  Value aNan = CmpOp::create(n.b(), n.location(), flags, CmpPredicate::ne, a, a);
  Value bNan = CmpOp::create(n.b(), n.location(), flags, CmpPredicate::ne, b, b);
  Value bothNan = AndOp::create(n.b(), n.location(), flags, aNan, bNan);
  return OrOp::create(n.b(), n.location(), flags, equal, bothNan);
}

/// The rows of `rows` (row-major, sorted dim last) in order, stable.
SortedRows sortRows(NodeImporter &n, Value rows, bool descending) {
  auto type = llvm::cast<StridedTensorType>(rows.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t last = type.getRank() - 1;
  std::vector<int64_t> pairs(shape.begin(), shape.end());
  pairs.push_back(shape[last]);
  // Pair (.., i, j): element i of the row and element j.
  Value element = pairedView(n, rows, last + 1, pairs);
  Value other = pairedView(n, rows, last, pairs);
  StridedTensorType flags = n.contiguous(pairs, DType::I1);
  StridedTensorType pairIndex = n.contiguous(pairs, DType::I64);
  Value i = IotaOp::create(n.b(), n.location(), pairIndex, uint64_t(last));
  Value j = IotaOp::create(n.b(), n.location(), pairIndex, uint64_t(last + 1));
  Value earlierIndex = CmpOp::create(n.b(), n.location(), flags,
                                     CmpPredicate::lt, j, i);
  Value otherFirst = precedes(n, other, element, descending, flags);
  Value tie = tied(n, other, element, flags);
  Value tieFirst = AndOp::create(n.b(), n.location(), flags, tie, earlierIndex);
  Value before = OrOp::create(n.b(), n.location(), flags, otherFirst, tieFirst);
  Value counted = CastOp::create(n.b(), n.location(), pairIndex, before);
  StridedTensorType place = n.contiguous(shape, DType::I64);
  std::vector<int64_t> countDim{last + 1};
  Value places = SumOp::create(n.b(), n.location(), place, counted, countDim,
                               false);
  Value zeros = FullOp::create(n.b(), n.location(), type,
                               n.b().getF64FloatAttr(0.0));
  Value values = ScatterOp::create(n.b(), n.location(), type, zeros, places,
                                   rows, uint64_t(last));
  Value positions = IotaOp::create(n.b(), n.location(), place, uint64_t(last));
  Value noIndex = FullOp::create(n.b(), n.location(), place,
                                 n.b().getF64FloatAttr(0.0));
  Value indices = ScatterOp::create(n.b(), n.location(), place, noIndex,
                                    places, positions, uint64_t(last));
  return {values, indices};
}

/// `sorted` (dim last, the first `count` of each row kept) with the dim
/// moved back by `order`, into output `i`'s type.
void setSortedOutput(NodeImporter &n, size_t i, Value sorted,
                     ArrayRef<int64_t> order, int64_t count) {
  auto type = llvm::cast<StridedTensorType>(sorted.getType());
  int64_t last = type.getRank() - 1;
  Value kept = sorted;
  if (count != type.getShape()[last]) {
    Layout sliced = *inferSlice(type.getLayout(), last, 0, count, 1).layout;
    kept = SliceOp::create(n.b(), n.location(), type.withLayout(sliced), sorted,
                           last, 0, count, 1);
  }
  std::vector<int64_t> inverse(order.size());
  for (size_t d = 0; d < order.size(); ++d)
    inverse[order[d]] = int64_t(d);
  auto keptType = llvm::cast<StridedTensorType>(kept.getType());
  Layout back = *inferPermute(keptType.getLayout(), inverse).layout;
  Value view = PermuteOp::create(n.b(), n.location(), keptType.withLayout(back),
                                 kept, inverse);
  n.setOutput(i, n.toType(view, n.outputType(i)));
}

/// The input of sort or topk and its sorted dim, refused past
/// kMaxSortedLength.
FailureOr<std::pair<Value, int64_t>> sortedInput(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = std::max<int64_t>(rankOf(*x), 1);
  FailureOr<int64_t> dim = n.dim("dim", rank, -1 + rank);
  if (failed(dim))
    return failure();
  if (rankOf(*x) == 0)
    return n.error() << "sort and topk of a rank-0 tensor are not imported";
  int64_t length = shapeOf(*x)[*dim];
  if (length > kMaxSortedLength)
    return n.error() << "sorting rows of " << length
                     << " elements is not imported: Stride sorts by "
                        "counting, which compares every pair of a row, and "
                        "takes rows of at most "
                     << kMaxSortedLength;
  std::vector<int64_t> pairs(shapeOf(*x).begin(), shapeOf(*x).end());
  pairs.push_back(length);
  if (!checkedNumElements(pairs))
    return n.error() << "sorting " << formatDims(shapeOf(*x)) << " compares "
                     << "more pairs than Stride's limit of " << kMaxElements
                     << " elements";
  return std::make_pair(*x, *dim);
}

/// sort(self, dim=-1, descending=False) -> (values, indices), stable.
LogicalResult sort(NodeImporter &n) {
  FailureOr<std::pair<Value, int64_t>> input = sortedInput(n);
  FailureOr<bool> descending =
      succeeded(input) ? n.boolean("descending", false) : Fail();
  if (failed(descending))
    return failure();
  std::vector<int64_t> order;
  Value rows = withDimLast(n, input->first, input->second, order);
  SortedRows sorted = sortRows(n, rows, *descending);
  int64_t length = shapeOf(rows).back();
  setSortedOutput(n, 0, sorted.values, order, length);
  setSortedOutput(n, 1, sorted.indices, order, length);
  return success();
}

/// topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices):
/// the first k of the row sorted (so sorted=False gives them sorted too).
LogicalResult topk(NodeImporter &n) {
  FailureOr<std::pair<Value, int64_t>> input = sortedInput(n);
  FailureOr<int64_t> k = succeeded(input) ? n.integer("k", std::nullopt) : Fail();
  FailureOr<bool> largest = succeeded(k) ? n.boolean("largest", true) : Fail();
  if (failed(largest))
    return failure();
  int64_t length = shapeOf(input->first)[input->second];
  if (*k < 0 || *k > length)
    return n.error() << "topk: k = " << *k << " is out of range for a dim of "
                     << length << " elements";
  std::vector<int64_t> order;
  Value rows = withDimLast(n, input->first, input->second, order);
  SortedRows sorted = sortRows(n, rows, *largest);
  setSortedOutput(n, 0, sorted.values, order, *k);
  setSortedOutput(n, 1, sorted.indices, order, *k);
  return success();
}

} // namespace

/// Adds sort and topk to the table.
void addSortOps(OpTable &ops) {
  ops.insert({
      {"aten.sort.default", sort},
      {"aten.sort.stable", sort},
      {"aten.topk.default", topk},
  });
}

} // namespace stride::torch
