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

#include "mlir/IR/Builders.h"

namespace stride {
#define GEN_PASS_DEF_OUTERPRODUCTS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// Whether `product` is an outer product this pass rewrites: `K` = 1, no
/// bias, no epilogue, no layout decision yet, static sizes.
bool isPlainOuterProduct(MatmulOp product) {
  StridedTensorType lhs = cast<StridedTensorType>(product.getLhs().getType());
  if (lhs.isSymbolic() || cast<StridedTensorType>(product.getRhs().getType()).isSymbolic() ||
      product.getResult().getType().isSymbolic())
    return false;
  return lhs.getShape().back() == 1 && !product.getBias() &&
         product.getEpilogue() == MatmulEpilogue::none &&
         !product.getLhsLayout() && !product.getRhsLayout() &&
         !product.getRowClasses();
}

/// `operand` broadcast to the product's result shape: its dim of size 1
/// (K) expanded.
Value broadcastToResult(OpBuilder &builder, Location loc, Value operand,
                        StridedTensorType resultType) {
  auto type = cast<StridedTensorType>(operand.getType());
  ViewResult layout = inferExpand(type.getLayout(), resultType.getShape());
  return ExpandOp::create(builder, loc, type.withLayout(*layout.layout),
                          operand);
}

void rewriteAsMultiply(MatmulOp product) {
  OpBuilder builder(product);
  Location loc = product.getLoc();
  StridedTensorType resultType = product.getResult().getType();
  Value lhs = broadcastToResult(builder, loc, product.getLhs(), resultType);
  Value rhs = broadcastToResult(builder, loc, product.getRhs(), resultType);
  Value multiply = MulOp::create(builder, loc, resultType, lhs, rhs);
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
