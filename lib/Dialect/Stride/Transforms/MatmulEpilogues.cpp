//===- MatmulEpilogues.cpp - Fold bias and activation into a matmul -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Dialect/Stride/Transforms/MatmulEpilogues.h"
#include "stride/Dialect/Stride/IR/StrideOps.h"
#include "stride/Support/MatmulLayout.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace stride;

namespace {

/// The only user of `matmul`'s result, read directly (not through a view),
/// whose result has the product's type (dense row-major); or null.
Operation *soleFoldableUser(MatmulOp matmul) {
  Value product = matmul.getResult();
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
/// its place so that the operands the fold added dominate it.
void absorb(MatmulOp matmul, Operation *user) {
  matmul->moveBefore(user);
  user->getResult(0).replaceAllUsesWith(matmul.getResult());
  user->erase();
}

bool foldBias(MatmulOp matmul) {
  auto add = dyn_cast_or_null<AddOp>(soleFoldableUser(matmul));
  // cuBLASLt takes no K of 0 (the plan fills such a product with zeros).
  if (!add || matmul.getLhs().getType().getShape().back() == 0)
    return false;
  Value other = add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
  Value bias = broadcastBias(other, matmul.getResult().getType().getShape().back());
  if (!bias)
    return false;
  matmul.getBiasMutable().assign(bias);
  absorb(matmul, add);
  return true;
}

/// cuBLASLt's GELU epilogue is less exact than the tolerances of every
/// dtype on the H100 (f32 1.6e-5 relative, bf16 1.4e-2, against PyTorch's
/// `addmm` then `gelu`: docs/matmul.md, "Accuracy"), so only ReLU folds.
void foldActivation(MatmulOp matmul) {
  Operation *user = soleFoldableUser(matmul);
  if (!isa_and_nonnull<ReluOp>(user))
    return;
  matmul.setEpilogue(MatmulEpilogue::relu);
  absorb(matmul, user);
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
