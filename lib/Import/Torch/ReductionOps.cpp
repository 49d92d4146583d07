//===- ReductionOps.cpp - Reduction and scan ops --------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's reductions (sum, mean, amax, amin, prod, any over the
// listed dims) and scans (cumsum).
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

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
      {"aten.mean.default", reduce<MeanOp>},
      {"aten.amax.default", reduce<MaxOp>},
      {"aten.amin.default", reduce<MinOp>},
      {"aten.prod.dim_int", reduce<ProdOp>},
      {"aten.any.dim", reduce<AnyOp>},
      {"aten.any.dims", reduce<AnyOp>},
      {"aten.any.default", reduce<AnyOp>},
      // Scans.
      {"aten.cumsum.default", cumsum},
  });
}

} // namespace stride::torch
