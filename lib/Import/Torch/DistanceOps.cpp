//===- DistanceOps.cpp - cdist and pdist ----------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's _cdist_forward and _pdist_forward (issue 42, the rest of
// core ATen): the p-norm of the difference of every pair of rows, computed
// directly, |x - y| over the pairs [.., P, R, M] reduced over M (p 0:
// the count of differing elements; 1: the sum; 2: the square root of the
// sum of squares; inf: the largest; otherwise the sum of p-th powers to
// the power 1 / p). PyTorch's cdist may take the Euclidean distance
// through a matrix product for rows longer than 25, which rounds
// differently (less exactly) than this.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

#include <cmath>

using namespace mlir;

namespace stride::torch {
namespace {

/// Pairs of rows pdist takes at most (its two constant index vectors).
constexpr int64_t kMaxPairs = int64_t(1) << 24;

/// The p-norm of `diff` [.., M] over its last dim, in `dtype`.
Value normOfLast(NodeImporter &n, Value diff, double p) {
  auto type = cast<StridedTensorType>(diff.getType());
  DType dtype = type.getDType();
  ArrayRef<int64_t> shape = type.getShape();
  Dims reducedShape(shape.begin(), shape.end() - 1);
  StridedTensorType reduced = n.contiguous(reducedShape, dtype);
  PointwiseBuilder pw{n, shape};
  Value size = pw.op<AbsOp>(diff);
  int64_t dims[] = {int64_t(shape.size()) - 1};
  if (std::isinf(p))
    return MaxOp::create(n.b(), n.location(), reduced, size, dims, false);
  if (p == 0.0) {
    Value nonzero =
        pw.compare(CmpPredicate::ne, size, *pw.constant(0.0, dtype));
    return SumOp::create(n.b(), n.location(), reduced, n.cast(nonzero, dtype),
                         dims, false);
  }
  if (p == 1.0)
    return SumOp::create(n.b(), n.location(), reduced, size, dims, false);
  Value powered = p == 2.0 ? pw.op<MulOp>(size, size)
                           : pw.op<PowOp>(size, *pw.constant(p, dtype));
  Value sum = SumOp::create(n.b(), n.location(), reduced, powered, dims, false);
  if (p == 2.0)
    return SqrtOp::create(n.b(), n.location(), reduced, sum);
  PointwiseBuilder out{n, reducedShape};
  return out.op<PowOp>(sum, *out.constant(1.0 / p, dtype));
}

/// The `p` argument of cdist and pdist: 0 or more (inf too).
FailureOr<double> normOrder(NodeImporter &n) {
  FailureOr<double> p = n.scalar("p", 2.0);
  if (failed(p))
    return failure();
  if (!(*p >= 0.0))
    return n.error() << "a p-norm distance with p " << decimal(*p)
                     << ": PyTorch's are 0 or more";
  return *p;
}

/// `x` row-major with a dim of size 1 inserted at `at`, broadcast to
/// `shape`.
FailureOr<Value> lifted(NodeImporter &n, Value x, int64_t at,
                        ArrayRef<int64_t> shape, DType dtype) {
  Dims in(shapeOf(x).begin(), shapeOf(x).end());
  Value dense = n.toType(n.cast(x, dtype), n.contiguous(in, dtype));
  in.insert(in.begin() + at, 1);
  Value view =
      ViewOp::create(n.b(), n.location(), n.contiguous(in, dtype), dense);
  return n.broadcast(view, shape);
}

/// _cdist_forward(x1, x2, p, compute_mode) -> [.., P, R]: the distance of
/// each row of x1 [.., P, M] to each of x2 [.., R, M], batch dims
/// broadcast.
LogicalResult cdist(NodeImporter &n) {
  FailureOr<Value> x1 = n.tensor("x1");
  FailureOr<Value> x2 = succeeded(x1) ? n.tensor("x2") : Fail();
  FailureOr<double> p = succeeded(x2) ? normOrder(n) : Fail();
  if (failed(p))
    return failure();
  int64_t r1 = rankOf(*x1), r2 = rankOf(*x2);
  ArrayRef<int64_t> out = n.outputShape();
  if (r1 < 2 || r2 < 2 || shapeOf(*x1).back() != shapeOf(*x2).back() ||
      out.size() < 2 || out[out.size() - 2] != shapeOf(*x1)[r1 - 2] ||
      out.back() != shapeOf(*x2)[r2 - 2])
    return n.error() << "cdist takes x1 [.., P, M] and x2 [.., R, M] of one "
                        "row length M and gives [.., P, R]";
  Dims pairs(out.begin(), out.end());
  pairs.push_back(shapeOf(*x1).back());
  if (!checkedNumElements(pairs))
    return n.error() << "cdist of " << formatDims(pairs)
                     << " pairs of elements is beyond Stride's limit of "
                     << kMaxElements;
  DType dtype = n.outputDType();
  int64_t rank = int64_t(pairs.size());
  // x1 [.., P, M] broadcast over R (dim rank - 2), x2 [.., R, M] over P.
  auto batched = [&](Value x, int64_t insertAt) -> FailureOr<Value> {
    int64_t missing = rank - 1 - rankOf(x);
    Dims shape(size_t(missing), 1);
    shape.insert(shape.end(), shapeOf(x).begin(), shapeOf(x).end());
    Value dense = n.toType(n.cast(x, dtype), n.contiguous(shapeOf(x), dtype));
    Value view =
        ViewOp::create(n.b(), n.location(), n.contiguous(shape, dtype), dense);
    return lifted(n, view, insertAt, pairs, dtype);
  };
  FailureOr<Value> a = batched(*x1, rank - 2);
  FailureOr<Value> b = succeeded(a) ? batched(*x2, rank - 3) : Fail();
  if (failed(b))
    return failure();
  PointwiseBuilder pw{n, pairs};
  Value diff = pw.op<SubOp>(*a, *b);
  n.setOutput(0, n.toType(normOfLast(n, diff, *p), n.outputType()));
  return success();
}

/// _pdist_forward(self, p) -> [N (N - 1) / 2]: the distance of each pair
/// of rows i < j of self [N, M], in row-major order of the pairs.
LogicalResult pdist(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<double> p = succeeded(x) ? normOrder(n) : Fail();
  if (failed(p))
    return failure();
  if (rankOf(*x) != 2)
    return n.error() << "pdist takes a 2-D input, got rank " << rankOf(*x);
  int64_t rows = shapeOf(*x)[0], width = shapeOf(*x)[1];
  if (rows > 1 && rows - 1 > 2 * kMaxPairs / rows)
    return n.error() << "pdist of " << rows << " rows: more pairs than "
                     << "Stride's limit of " << kMaxPairs;
  int64_t count = rows * (rows - 1) / 2;
  if (failed(expectOutputShape(n, 0, {count})))
    return failure();
  DType dtype = n.outputDType();
  if (count == 0) {
    n.setOutput(0, FullOp::create(n.b(), n.location(), n.outputType(),
                                  n.b().getF64FloatAttr(0.0)));
    return success();
  }
  std::vector<int64_t> first, second;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = i + 1; j < rows; ++j) {
      first.push_back(i);
      second.push_back(j);
    }
  auto indexType = RankedTensorType::get({count}, n.b().getI64Type());
  StridedTensorType rowsType = n.contiguous({count, width}, dtype);
  Value in = n.cast(*x, dtype);
  auto select = [&](ArrayRef<int64_t> which) {
    Value index = ConstantOp::create(n.b(), n.location(),
                                     n.contiguous({count}, DType::I64),
                                     DenseElementsAttr::get(indexType, which));
    return IndexSelectOp::create(n.b(), n.location(), rowsType, in, index,
                                 uint64_t(0))
        .getResult();
  };
  Value a = select(first);
  Value b = select(second);
  Dims shape{count, width};
  PointwiseBuilder pw{n, shape};
  Value diff = pw.op<SubOp>(a, b);
  n.setOutput(0, n.toType(normOfLast(n, diff, *p), n.outputType()));
  return success();
}

} // namespace

/// Adds cdist and pdist to the table.
void addDistanceOps(OpTable &ops) {
  ops.insert({
      {"aten._cdist_forward.default", cdist},
      {"aten._pdist_forward.default", pdist},
  });
}

} // namespace stride::torch
