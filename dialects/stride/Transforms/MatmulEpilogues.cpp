//===- MatmulEpilogues.cpp - Fold bias and activation into a matmul -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/MatmulEpilogues.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/MatmulLayout.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace stride;

namespace {

/// The value the graph reads of `matmul`: its result, or the copy of it
/// that stride-matmul-layout makes when the product is written at an
/// aligned layout (the copy of a product with a bias is the copy of the
/// product, plus the bias).
Value readProduct(MatmulOp matmul) {
  Value product = matmul.getResult();
  if (product.hasOneUse())
    if (auto copy = dyn_cast<CloneOp>(*product.getUsers().begin()))
      return copy.getResult();
  return product;
}

/// The only user of the product as the graph reads it (readProduct),
/// directly (not through a view), whose result has that value's type; or
/// null.
Operation *soleFoldableUser(MatmulOp matmul) {
  Value product = readProduct(matmul);
  if (!product.hasOneUse())
    return nullptr;
  Operation *user = *product.getUsers().begin();
  if (user->getNumResults() != 1 ||
      user->getResult(0).getType() != product.getType())
    return nullptr;
  return user;
}

/// The `[N]` vector `value` broadcasts over the product's rows: `value` is
/// an `expand` of a contiguous 1-D tensor of the product's last dim.
Value broadcastBias(Value value, int64_t columns) {
  auto expand = value.getDefiningOp<ExpandOp>();
  if (!expand)
    return nullptr;
  Value source = expand.getInput();
  Layout layout = cast<StridedTensorType>(source.getType()).getLayout();
  if (layout.shape != Dims{columns} || !isContiguousVector(layout))
    return nullptr;
  return source;
}

/// Replaces `user` (the product's only user) by the product, which moves to
/// its place (with its copy, if any) so that the operands the fold added
/// dominate it.
void absorb(MatmulOp matmul, Operation *user) {
  Value product = readProduct(matmul);
  matmul->moveBefore(user);
  if (Operation *copy = product.getDefiningOp(); copy != matmul)
    copy->moveBefore(user);
  user->getResult(0).replaceAllUsesWith(product);
  user->erase();
}

bool foldBias(MatmulOp matmul) {
  auto add = dyn_cast_or_null<AddOp>(soleFoldableUser(matmul));
  // cuBLASLt takes no K of 0 (the plan fills such a product with zeros).
  if (!add || matmul.getLhs().getType().getShape().back() == 0)
    return false;
  Value other = add.getLhs() == readProduct(matmul) ? add.getRhs() : add.getLhs();
  Value bias = broadcastBias(other, matmul.getResult().getType().getShape().back());
  if (!bias)
    return false;
  matmul.getBiasMutable().assign(bias);
  absorb(matmul, add);
  return true;
}

/// The product as the graph reads it (readProduct), or the last of a chain
/// of views of it that each have one reader: a convolution's product
/// [N * P, C_out] viewed back as its channels-last result.
Value viewedProduct(MatmulOp matmul) {
  Value value = readProduct(matmul);
  while (value.hasOneUse()) {
    auto view = dyn_cast<ViewOpInterface>(*value.getUsers().begin());
    if (!view)
      break;
    value = view->getResult(0);
  }
  return value;
}

/// cuBLASLt's GELU epilogue is less exact than the tolerances of every
/// dtype on the H100 (f32 1.6e-5 relative, bf16 1.4e-2, against PyTorch's
/// `addmm` then `gelu`: python-free-docs/matmul.md, "Accuracy"), so only
/// ReLU folds. It folds through views of the product that only it reads:
/// a ReLU of a view is the view of the ReLU, where the ReLU's result has
/// the view's layout (it then reads the view in place of its result).
void foldActivation(MatmulOp matmul) {
  Value viewed = viewedProduct(matmul);
  if (!viewed.hasOneUse())
    return;
  auto relu = dyn_cast<ReluOp>(*viewed.getUsers().begin());
  if (!relu || relu.getType() != viewed.getType())
    return;
  matmul.setEpilogue(MatmulEpilogue::relu);
  relu.getResult().replaceAllUsesWith(viewed);
  relu.erase();
}

/// A product whose graph asks for the GELU epilogue gets a
/// `stride.gelu_tanh` after it instead, which fusion puts in a kernel.
void splitGeluEpilogue(MatmulOp matmul) {
  if (matmul.getEpilogue() != MatmulEpilogue::gelu_tanh)
    return;
  matmul.setEpilogue(MatmulEpilogue::none);
  OpBuilder builder(matmul->getContext());
  builder.setInsertionPointAfter(matmul);
  Value product = matmul.getResult();
  auto gelu =
      GeluTanhOp::create(builder, matmul.getLoc(), product.getType(), product);
  product.replaceAllUsesExcept(gelu.getResult(), gelu);
}

} // namespace

void stride::foldMatmulEpilogues(func::FuncOp func) {
  SmallVector<MatmulOp> matmuls;
  func.walk([&](MatmulOp matmul) { matmuls.push_back(matmul); });
  for (MatmulOp matmul : matmuls) {
    splitGeluEpilogue(matmul);
    if (matmul.getLhs().getType().getElementType().isF64() ||
        matmul.getBias() || matmul.getEpilogue() != MatmulEpilogue::none)
      continue;
    foldBias(matmul);
    foldActivation(matmul);
  }
}
