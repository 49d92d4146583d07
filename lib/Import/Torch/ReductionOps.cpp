//===- ReductionOps.cpp - Reduction and scan ops --------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's reductions (sum, mean, amax, amin, prod, any over the
// listed dims; argmax, argmin and max/min with indices along one dim) and
// scans (cumsum).
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include <type_traits>

using namespace mlir;

namespace stride::torch {

namespace {

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The reduced dims: the listed ones normalized, or every dim for an
/// absent or empty list.
FailureOr<std::vector<int64_t>> reducedDims(NodeImporter &n, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<std::vector<int64_t>> listed = n.integers("dim", std::vector<int64_t>{});
  if (failed(listed))
    return failure();
  std::vector<int64_t> dims;
  for (int64_t d : *listed) {
    int64_t bound = std::max<int64_t>(rank, 1);
    if (d < -bound || d >= bound)
      return n.error() << "dim " << d << " is out of range for rank " << rank;
    d = d < 0 ? d + bound : d;
    if (rank > 0 && !llvm::is_contained(dims, d))
      dims.push_back(d);
  }
  if (listed->empty())
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(i);
  llvm::sort(dims);
  return dims;
}

template <typename OpTy> LogicalResult reduce(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<std::vector<int64_t>> dims =
      succeeded(x) ? reducedDims(n, *x) : Fail();
  FailureOr<bool> keepdim = succeeded(dims) ? n.boolean("keepdim", false)
                                            : Fail();
  if (failed(keepdim))
    return failure();
  Value input = n.cast(*x, n.outputDType());
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), input,
                              llvm::ArrayRef<int64_t>(*dims), *keepdim));
  return success();
}

/// var.correction(self, dim, correction=1, keepdim=False): the sum of the
/// squared deviations from the mean over `dim`, divided by the count
/// minus `correction` (PyTorch's: a count at or below the correction
/// gives inf or NaN, as the division does).
LogicalResult variance(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<std::vector<int64_t>> dims =
      succeeded(x) ? reducedDims(n, *x) : Fail();
  FailureOr<double> correction =
      succeeded(dims) ? n.scalar("correction", 1.0) : Fail();
  FailureOr<bool> keepdim =
      succeeded(correction) ? n.boolean("keepdim", false) : Fail();
  if (failed(keepdim))
    return failure();
  DType dtype = n.outputDType();
  Value input = n.cast(*x, dtype);
  ArrayRef<int64_t> shape = shapeOf(input);
  std::vector<int64_t> kept(shape.begin(), shape.end());
  int64_t count = 1;
  for (int64_t d : *dims) {
    count *= shape[d];
    kept[d] = 1;
  }
  StridedTensorType type = n.contiguous(shape, dtype);
  StridedTensorType keptType = n.contiguous(kept, dtype);
  Value mean = MeanOp::create(n.b(), n.location(), keptType, input,
                              llvm::ArrayRef<int64_t>(*dims), true);
  Value centered = SubOp::create(n.b(), n.location(), type, input,
                                 *n.broadcast(mean, shape));
  Value square = MulOp::create(n.b(), n.location(), type, centered, centered);
  StridedTensorType sumType = n.contiguous(n.outputShape(), dtype);
  Value sum = SumOp::create(n.b(), n.location(), sumType, square,
                            llvm::ArrayRef<int64_t>(*dims), *keepdim);
  Value divisor = *n.broadcast(
      n.scalarTensor(double(count) - *correction, dtype), n.outputShape());
  n.setOutput(0, n.toType(DivOp::create(n.b(), n.location(), sumType, sum,
                                        divisor),
                          n.outputType()));
  return success();
}

/// The input of an index reduction and the one dim it reduces: `self`
/// along `dim`, or, where `dim` is None (argmax and argmin over every
/// element) or self has rank 0, self flattened to 1-D, as PyTorch does. A
/// reduced dim of no elements is refused where the result has elements
/// (PyTorch's error).
struct IndexRows {
  Value input;
  int64_t dim;
};

FailureOr<IndexRows> indexRows(NodeImporter &n, llvm::StringRef opName) {
  llvm::StringRef what = opName.split('.').second;
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  IndexRows rows{*x, 0};
  if (!n.isNone("dim")) {
    FailureOr<int64_t> dim =
        n.dim("dim", std::max<int64_t>(rank, 1), std::nullopt);
    if (failed(dim))
      return failure();
    rows.dim = *dim;
  }
  if (n.isNone("dim") || rank == 0)
    rows.input = flattened(n, *x);
  ArrayRef<int64_t> shape = shapeOf(rows.input);
  int64_t others = 1;
  for (auto [d, size] : llvm::enumerate(shape))
    others *= static_cast<int64_t>(d) == rows.dim ? 1 : size;
  if (shape[rows.dim] == 0 && others != 0)
    return n.error() << what << " of no elements: dim " << rows.dim
                     << " of the input " << (n.isNone("dim") ? "(flattened) " : "")
                     << "has size 0";
  return rows;
}

/// `OpTy` (argmax, argmin, max, min) of `rows` as output `i`: the op's
/// row-major result, viewed to the output's shape where that differs
/// (keepdim over a flattened input: every dim of size 1; a rank-0 input:
/// rank 0) and laid out as the file claims.
template <typename OpTy>
void setIndexReduction(NodeImporter &n, size_t i, const IndexRows &rows,
                       bool keepdim) {
  SmallVector<int64_t> shape(shapeOf(rows.input));
  if (keepdim)
    shape[rows.dim] = 1;
  else
    shape.erase(shape.begin() + rows.dim);
  StridedTensorType type = n.contiguous(shape, n.outputDType(i));
  Value result;
  if constexpr (std::is_same_v<OpTy, MaxOp> || std::is_same_v<OpTy, MinOp>)
    result = OpTy::create(n.b(), n.location(), type, rows.input,
                          ArrayRef<int64_t>{rows.dim}, keepdim);
  else
    result = OpTy::create(n.b(), n.location(), type, rows.input,
                          static_cast<uint64_t>(rows.dim), keepdim);
  if (type.getShape() != n.outputShape(i))
    result = ViewOp::create(n.b(), n.location(),
                            n.contiguous(n.outputShape(i), n.outputDType(i)),
                            result);
  n.setOutput(i, n.toType(result, n.outputType(i)));
}

/// argmax / argmin(self, dim=None, keepdim=False): the index of the first
/// extreme element along dim, or of all elements (flattened) for None.
template <typename OpTy> LogicalResult argReduce(NodeImporter &n) {
  FailureOr<IndexRows> rows = indexRows(n, OpTy::getOperationName());
  FailureOr<bool> keepdim =
      succeeded(rows) ? n.boolean("keepdim", false) : Fail();
  if (failed(keepdim))
    return failure();
  setIndexReduction<OpTy>(n, 0, *rows, *keepdim);
  return success();
}

/// max.dim / min.dim(self, dim, keepdim=False) -> (values, indices): amax
/// (amin) and argmax (argmin) of the same rows, which fusion computes in
/// one kernel; an output nothing reads is erased with its op.
template <typename ValueOp, typename IndexOp>
LogicalResult valuesAndIndices(NodeImporter &n) {
  FailureOr<IndexRows> rows = indexRows(n, ValueOp::getOperationName());
  FailureOr<bool> keepdim =
      succeeded(rows) ? n.boolean("keepdim", false) : Fail();
  if (failed(keepdim))
    return failure();
  if (n.outputDType(0) != *dtypeOf(rows->input.getType()))
    return n.error() << "the values' dtype " << dtypeName(n.outputDType(0))
                     << " differs from the input's";
  setIndexReduction<ValueOp>(n, 0, *rows, *keepdim);
  setIndexReduction<IndexOp>(n, 1, *rows, *keepdim);
  return success();
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

/// cumsum(self, dim, dtype): the input cast to the result's dtype (int64
/// for integer and boolean inputs, or `dtype`), summed along dim. A rank-0
/// tensor is its own cumsum (dim 0 or -1, as in PyTorch).
LogicalResult cumsum(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  int64_t rank = succeeded(x) ? rankOf(*x) : 0;
  FailureOr<int64_t> dim = succeeded(x)
                               ? n.dim("dim", std::max<int64_t>(rank, 1),
                                       std::nullopt)
                               : Fail();
  if (failed(dim))
    return failure();
  Value input = n.cast(*x, n.outputDType());
  if (rank == 0) {
    n.setOutput(0, input);
    return success();
  }
  n.setOutput(0, CumsumOp::create(n.b(), n.location(), n.outputType(), input,
                                  n.b().getI64IntegerAttr(*dim)));
  return success();
}

} // namespace

/// Adds the builders of reductions and scans to the table.
void addReductionOps(OpTable &ops) {
  ops.insert({
      // Reductions.
      {"aten.sum.dim_IntList", reduce<SumOp>},
      {"aten.sum.default", reduce<SumOp>},
      {"aten.mean.dim", reduce<MeanOp>},
      {"aten.var.correction", variance},
      {"aten.mean.default", reduce<MeanOp>},
      {"aten.amax.default", reduce<MaxOp>},
      {"aten.amin.default", reduce<MinOp>},
      {"aten.prod.dim_int", reduce<ProdOp>},
      {"aten.prod.default", reduce<ProdOp>},
      {"aten.any.dim", reduce<AnyOp>},
      {"aten.any.dims", reduce<AnyOp>},
      {"aten.any.default", reduce<AnyOp>},
      {"aten.argmax.default", argReduce<ArgmaxOp>},
      {"aten.argmin.default", argReduce<ArgminOp>},
      {"aten.max.dim", valuesAndIndices<MaxOp, ArgmaxOp>},
      {"aten.min.dim", valuesAndIndices<MinOp, ArgminOp>},
      // Scans.
      {"aten.cumsum.default", cumsum},
  });
}

} // namespace stride::torch
