//===- ExpansionOps.cpp - Ops expanded into several -----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's expansions: softmax and native_layer_norm, each built
// from reductions and pointwise ops, and _assert_tensor_metadata, checked
// at import and dropped.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

using namespace mlir;

namespace stride::torch {

LogicalResult expectOutputShape(NodeImporter &n, size_t i,
                                llvm::ArrayRef<int64_t> shape) {
  if (!n.hasOutput(i))
    return n.error() << "output #" << i << " is not a tensor; expected one of shape "
                     << formatDims(Dims(shape.begin(), shape.end()));
  if (n.outputShape(i) == shape)
    return success();
  return n.error() << "output #" << i << " has shape "
                   << formatDims(Dims(n.outputShape(i).begin(),
                                      n.outputShape(i).end()))
                   << ", expected " << formatDims(Dims(shape.begin(), shape.end()));
}

LogicalResult expectOutputSizes(NodeImporter &n, size_t i,
                                const SizeExprs &shape) {
  if (!n.hasOutput(i))
    return n.error() << "output #" << i
                     << " is not a tensor; expected one of shape "
                     << formatSizes(shape);
  if (n.outputSizes(i) == shape)
    return success();
  return n.error() << "output #" << i << " has shape "
                   << formatSizes(n.outputSizes(i)) << ", expected "
                   << formatSizes(shape);
}

namespace {

//===----------------------------------------------------------------------===//
// Expansions: softmax, layer norm
//===----------------------------------------------------------------------===//

/// `x` reduced over `dims` with keepdim, row-major.
template <typename OpTy>
Value reduceKeep(NodeImporter &n, Value x, llvm::ArrayRef<int64_t> dims,
                 StridedTensorType type = {}) {
  auto xType = llvm::cast<StridedTensorType>(x.getType());
  SizeExprs shape = symbolicShapeOf(x);
  for (int64_t d : dims)
    shape[d] = SizeExpr::constant(1);
  if (!type)
    type = n.contiguousOf(shape, xType.getDType());
  return OpTy::create(n.b(), n.location(), type, x, dims, true);
}

LogicalResult softmax(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(self) ? n.dim("dim", rankOf(*self), std::nullopt) : Fail();
  if (failed(dim) || failed(expectOutputSizes(n, 0, symbolicShapeOf(*self))))
    return failure();
  DType dtype = n.outputDType();
  Value x = n.cast(*self, dtype);
  SizeExprs shape = n.outputSizes();
  StridedTensorType type = n.contiguousOf(shape, dtype);
  int64_t dims[] = {*dim};
  Value max = *n.broadcastTo(reduceKeep<MaxOp>(n, x, dims), shape);
  Value shifted = SubOp::create(n.b(), n.location(), type, x, max);
  Value e = ExpOp::create(n.b(), n.location(), type, shifted);
  Value sum = *n.broadcastTo(reduceKeep<SumOp>(n, e, dims), shape);
  n.setOutput(0, DivOp::create(n.b(), n.location(), n.outputType(), e, sum));
  return success();
}

/// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out,
/// mean, rstd), over the last len(normalized_shape) dims.
LogicalResult layerNorm(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<std::vector<int64_t>> normalized =
      succeeded(input) ? n.integers("normalized_shape", std::nullopt) : Fail();
  FailureOr<Value> weight = succeeded(normalized) ? n.optionalTensor("weight") : Fail();
  FailureOr<Value> bias = succeeded(weight) ? n.optionalTensor("bias") : Fail();
  FailureOr<double> eps = succeeded(bias) ? n.scalar("eps", std::nullopt) : Fail();
  if (failed(eps))
    return failure();
  if (n.numOutputs() != 3)
    return n.error() << "native_layer_norm has " << n.numOutputs()
                     << " outputs, expected 3";
  int64_t rank = rankOf(*input);
  int64_t k = normalized->size();
  if (k < 1 || k > rank)
    return n.error() << "normalized_shape has " << k << " dims for an input "
                     << "of rank " << rank;
  std::vector<int64_t> dims;
  SizeExprs statShape = symbolicShapeOf(*input);
  for (int64_t d = rank - k; d < rank; ++d) {
    dims.push_back(d);
    statShape[d] = SizeExpr::constant(1);
  }
  if (failed(expectOutputSizes(n, 0, symbolicShapeOf(*input))) ||
      failed(expectOutputSizes(n, 1, statShape)) ||
      failed(expectOutputSizes(n, 2, statShape)))
    return failure();
  DType dtype = n.outputDType();
  SizeExprs shape = n.outputSizes();
  StridedTensorType type = n.contiguousOf(shape, dtype);
  Value x = n.cast(*input, dtype);
  Value mean = reduceKeep<MeanOp>(n, x, dims, n.outputType(1));
  Value centered = SubOp::create(n.b(), n.location(), type, x,
                                 *n.broadcastTo(mean, shape));
  Value square = MulOp::create(n.b(), n.location(), type, centered, centered);
  Value variance = reduceKeep<MeanOp>(n, square, dims);
  auto statType = llvm::cast<StridedTensorType>(variance.getType());
  Value epsilon = *n.broadcastTo(n.scalarTensor(*eps, dtype), statShape);
  Value shiftedVariance =
      AddOp::create(n.b(), n.location(), statType, variance, epsilon);
  Value rstd = RsqrtOp::create(n.b(), n.location(), n.outputType(2),
                               shiftedVariance);
  bool last = !*weight && !*bias;
  Value y = MulOp::create(n.b(), n.location(), last ? n.outputType() : type,
                          centered, *n.broadcastTo(rstd, shape));
  for (auto [param, isLast] :
       {std::pair{*weight, !*bias}, std::pair{*bias, true}}) {
    if (!param)
      continue;
    FailureOr<Value> p = n.conformTo(param, dtype, shape);
    if (failed(p))
      return failure();
    StridedTensorType t = isLast ? n.outputType() : type;
    y = param == *weight
            ? MulOp::create(n.b(), n.location(), t, y, *p).getResult()
            : AddOp::create(n.b(), n.location(), t, y, *p).getResult();
  }
  n.setOutput(0, y);
  n.setOutput(1, mean);
  n.setOutput(2, rstd);
  return success();
}

/// _assert_tensor_metadata(a, size, stride, dtype): checked, then dropped.
LogicalResult assertMetadata(NodeImporter &n) {
  FailureOr<Value> a = n.tensor("a");
  if (failed(a))
    return failure();
  auto type = llvm::cast<StridedTensorType>(a->getType());
  if (const Argument *size = n.arg("size");
      size && size->kind == Argument::Kind::Ints &&
      llvm::ArrayRef<int64_t>(size->ints) != type.getShape())
    return n.error() << "_assert_tensor_metadata: the tensor has shape "
                     << formatDims(type.getLayout().shape)
                     << ", the assertion expects " << formatDims(size->ints);
  if (const Argument *dtype = n.arg("dtype");
      dtype && dtype->kind == Argument::Kind::ScalarType &&
      dtypeOfScalarType(dtype->ints[0]) != type.getDType())
    return n.error() << "_assert_tensor_metadata: the tensor is "
                     << dtypeName(type.getDType()) << ", the assertion expects "
                     << scalarTypeName(dtype->ints[0]);
  return success();
}

} // namespace

/// Adds the builders of expansions to the table.
void addExpansionOps(OpTable &ops) {
  ops.insert({
      // Expansions.
      {"aten._softmax.default", softmax},
      {"aten.native_layer_norm.default", layerNorm},
      {"aten._assert_tensor_metadata.default", assertMetadata},
  });
}

} // namespace stride::torch
