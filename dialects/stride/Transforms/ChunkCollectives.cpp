//===- ChunkCollectives.cpp - All-reduced products in chunks of rows ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-chunk-collectives (CollectivePasses.td): a product whose result
// is only all-reduced across the ranks becomes `chunks` products over
// slices of its rows, each all-reduced on its own, and a stride.cat of the
// chunks' results, so that the plan runs a chunk's all-reduce on the
// collective stream while the next chunk's product computes.
//
//===----------------------------------------------------------------------===//

#include "OpsBefore.h"
#include "dialects/stride/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace stride {
#define GEN_PASS_DEF_CHUNKCOLLECTIVES
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The product `reduce` all-reduces, where the pass may split it: a 2-D
/// product of at least `minRows` rows (and `chunks`), without bias,
/// epilogue or library layout yet, read by nothing but `reduce`.
MatmulOp splittableProduct(AllReduceOp reduce, int64_t chunks,
                           int64_t minRows) {
  auto product = reduce.getInput().getDefiningOp<MatmulOp>();
  if (!product || !product->hasOneUse() || product.getBias() ||
      product.getAddend() ||
      product.getEpilogue() != MatmulEpilogue::none ||
      product.getLhsLayoutAttr() || product.getRhsLayoutAttr() ||
      product.getRowClassesAttr() || typeOf(product).getRank() != 2)
    return {};
  int64_t rows = shapeOf(product)[0];
  return rows >= std::max(minRows, chunks) ? product : MatmulOp();
}

/// The rows [start, end) of chunk `i` of `rows` rows in `chunks` chunks:
/// equal chunks, the last taking the rest.
std::pair<int64_t, int64_t> chunkRows(int64_t rows, int64_t chunks,
                                      int64_t i) {
  int64_t size = rows / chunks;
  return {i * size, i + 1 == chunks ? rows : (i + 1) * size};
}

/// Replaces `reduce` of `product` by `chunks` products and all-reduces of
/// slices of the product's rows, and their concatenation.
void splitIntoChunks(AllReduceOp reduce, MatmulOp product, int64_t chunks) {
  OpBuilder b(reduce);
  Type element = typeOf(product).getElementType();
  OpsBefore ops(b, product.getLoc(), element);
  int64_t rows = shapeOf(product)[0];
  SmallVector<Value> reduced;
  for (int64_t i = 0; i < chunks; ++i) {
    auto [start, end] = chunkRows(rows, chunks, i);
    Value lhs = ops.slice(product.getLhs(), 0, start, end);
    Value part = ops.matmul(lhs, product.getRhs());
    Value combined = AllReduceOp::create(
        b, reduce.getLoc(), ops.dense(shapeOf(part)), part,
        reduce.getReduction(), reduce.getWorldSize());
    reduced.push_back(combined);
  }
  Value joined = CatOp::create(b, reduce.getLoc(), typeOf(reduce.getResult()),
                               reduced, b.getI64IntegerAttr(0));
  reduce.getResult().replaceAllUsesWith(joined);
  reduce.erase();
  product.erase();
}

struct ChunkCollectivesPass
    : public stride::impl::ChunkCollectivesBase<ChunkCollectivesPass> {
  using ChunkCollectivesBase::ChunkCollectivesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (chunks < 1 || minRows < 1) {
      func.emitError() << "stride-chunk-collectives: chunks and min-rows "
                          "must be at least 1, not "
                       << static_cast<int64_t>(chunks) << " and "
                       << static_cast<int64_t>(minRows);
      return signalPassFailure();
    }
    if (chunks == 1)
      return;
    SmallVector<std::pair<AllReduceOp, MatmulOp>> found;
    func.walk([&](AllReduceOp reduce) {
      if (MatmulOp product = splittableProduct(reduce, chunks, minRows))
        found.push_back({reduce, product});
    });
    for (auto [reduce, product] : found)
      splitIntoChunks(reduce, product, chunks);
  }
};

} // namespace
