//===- MatmulOps.cpp - Matrix product ops ---------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's matrix products: mm and bmm as stride.matmul, addmm as
// the product plus the broadcast bias.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

using namespace mlir;

namespace stride::torch {

namespace {

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

LogicalResult matmulOf(NodeImporter &n, llvm::StringRef lhs,
                       llvm::StringRef rhs) {
  FailureOr<Value> a = n.tensor(lhs);
  FailureOr<Value> b = succeeded(a) ? n.tensor(rhs) : Fail();
  if (failed(b))
    return failure();
  Value product = MatmulOp::create(
      n.b(), n.location(), n.contiguousOf(n.outputSizes(), n.outputDType()), *a,
      *b, Value(), /*addend=*/Value(), MatmulEpilogue::none, MatmulOperandAttr(),
      MatmulOperandAttr(), IntegerAttr());
  n.setOutput(0, product);
  return success();
}

LogicalResult mm(NodeImporter &n) {
  if (failed(matmulOf(n, "self", "mat2")))
    return failure();
  n.setOutput(0, n.toType(n.output(0), n.outputType()));
  return success();
}

/// addmm(bias, mat1, mat2): the product plus the broadcast bias.
LogicalResult addmm(NodeImporter &n) {
  FailureOr<double> beta = n.scalar("beta", 1.0);
  FailureOr<double> alpha = succeeded(beta) ? n.scalar("alpha", 1.0) : Fail();
  if (failed(alpha))
    return failure();
  if (*beta != 1.0 || *alpha != 1.0)
    return n.error() << "addmm with beta=" << *beta << ", alpha=" << *alpha
                     << " (Stride imports beta = alpha = 1)";
  FailureOr<Value> bias = n.tensor("self");
  if (failed(bias) || failed(matmulOf(n, "mat1", "mat2")))
    return failure();
  FailureOr<Value> b = n.conformTo(*bias, n.outputDType(), n.outputSizes());
  if (failed(b))
    return failure();
  n.setOutput(0, AddOp::create(n.b(), n.location(), n.outputType(),
                               n.output(0), *b));
  return success();
}

} // namespace

/// Adds the builders of matrix products to the table.
void addMatmulOps(OpTable &ops) {
  ops.insert({
      // Matrix products.
      {"aten.mm.default", mm},
      {"aten.bmm.default", mm},
      {"aten.addmm.default", addmm},
  });
}

} // namespace stride::torch
