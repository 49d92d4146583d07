//===- OuterProducts.cpp - Products of K = 1 as broadcast multiplies ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-outer-products (ProductPasses.td): a stride.matmul whose
// contraction is one element (LLaMA's rotary angles) becomes a stride.mul
// of its operands broadcast by stride.expand, which fusion takes into the
// kernels around it instead of a library call of its own.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/Transforms/OpsBefore.h"
#include "dialects/stride/Transforms/SymbolicProducts.h"

#include "mlir/IR/Builders.h"

namespace stride {
#define GEN_PASS_DEF_OUTERPRODUCTS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

} // namespace

bool stride::isPlainOuterProduct(MatmulOp product) {
  // K is static: a symbolic K is not 1 for every value.
  SymbolicLayout lhs = product.getLhs().getType().getSymbolicLayout();
  return lhs.shape.back() == SizeExpr::constant(1) && !product.getBias() &&
         !product.getAddend() &&
         product.getEpilogue() == MatmulEpilogue::none &&
         !product.getLhsLayout() && !product.getRhsLayout() &&
         !product.getRowClasses();
}

namespace {

void rewriteAsMultiply(MatmulOp product) {
  StridedTensorType resultType = product.getResult().getType();
  // Each operand's dim of size 1 (K) expanded to the result's sizes.
  OpsBefore ops(product, resultType.getElementType());
  Value lhs = ops.expandTo(product.getLhs(), resultType);
  Value rhs = ops.expandTo(product.getRhs(), resultType);
  // Dense in the result's sizes: the product's own (unplanned) type.
  Value multiply = ops.binaryLike<MulOp>(lhs, rhs);
  product.getResult().replaceAllUsesWith(multiply);
  product.erase();
}

struct OuterProductsPass
    : stride::impl::OuterProductsBase<OuterProductsPass> {
  void runOnOperation() override {
    SmallVector<MatmulOp> products;
    getOperation().walk([&](MatmulOp product) {
      if (isPlainOuterProduct(product))
        products.push_back(product);
    });
    for (MatmulOp product : products)
      rewriteAsMultiply(product);
  }
};

} // namespace
