//===- MatmulEpilogues.cpp - Fold bias and activation into a matmul -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/MatmulEpilogues.h"
#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/Layout.h"
#include "stride/Support/MatmulLayout.h"
#include "stride/Support/SymbolicLayout.h"

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

/// Whether folding `op` (read as `viewed`, a view of the product) would
/// make the function return a view: a result must be written by a kernel
/// or a call, and stride-legalize-layouts, which copies views into
/// results, has run.
bool wouldReturnView(MatmulOp matmul, Value viewed, Operation *op) {
  return viewed != readProduct(matmul) &&
         llvm::any_of(op->getUsers(),
                      [](Operation *user) { return isa<func::ReturnOp>(user); });
}

/// The views from the product as the graph reads it to viewedProduct's
/// value, first to last.
SmallVector<Operation *> viewChain(MatmulOp matmul) {
  SmallVector<Operation *> chain;
  for (Value value = readProduct(matmul); value != viewedProduct(matmul);
       value = chain.back()->getResult(0))
    chain.push_back(*value.getUsers().begin());
  return chain;
}

/// `value` seen through the inverse of `view` (a reshape or a permute),
/// built before `before`; null where `view` is neither or the inverse is no
/// view of `value`'s layout. Over symbolic sizes too (SymbolicLayout.h
/// infers the layouts of both).
Value inverseView(Operation *view, Value value, Operation *before) {
  auto source = cast<StridedTensorType>(view->getOperand(0).getType());
  SymbolicLayout layout =
      cast<StridedTensorType>(value.getType()).getSymbolicLayout();
  OpBuilder builder(before);
  auto typed = [&](const SymbolicViewResult &inferred) {
    return StridedTensorType::get(source.getElementType(), *inferred.layout);
  };
  if (auto permute = dyn_cast<PermuteOp>(view)) {
    ArrayRef<int64_t> dims = permute.getDims();
    Dims inverse(dims.size());
    for (auto [i, d] : llvm::enumerate(dims))
      inverse[d] = int64_t(i);
    SymbolicViewResult inferred = inferPermute(layout, inverse);
    if (!inferred)
      return nullptr;
    return PermuteOp::create(builder, view->getLoc(), typed(inferred), value,
                             builder.getDenseI64ArrayAttr(inverse));
  }
  if (!isa<ViewOp, SqueezeOp, UnsqueezeOp>(view))
    return nullptr;
  SymbolicViewResult inferred =
      inferView(layout, source.getSymbolicLayout().shape);
  if (!inferred)
    return nullptr;
  return ViewOp::create(builder, view->getLoc(), typed(inferred), value);
}

/// Whether the graph computes `value` anyway: an argument, a value with
/// other readers than `add`, or the result of an op no kernel recomputes
/// (a library call, a reduction). An addend the product reads must be in
/// memory; a pointwise value that only `add` reads would be computed inside
/// the add's kernel otherwise.
bool isMaterialized(Value value, AddOp add) {
  Operation *def = value.getDefiningOp();
  // With one reader, that reader is `add`.
  return !def || !value.hasOneUse() || !def->hasTrait<Elementwise>();
}

/// Folds an `add` of the product (or of a chain of views of it that only
/// the chain reads, as a pointwise convolution's product viewed as its
/// channels-last image) and another value of the same type into the call
/// as its addend: cuBLASLt's C, read with the result's layout, so the other
/// value seen through the inverse views must have exactly the product's
/// type. The add's readers then read the chain. ResNet's residual add
/// after a block's last pointwise convolution becomes part of the product.
bool foldAddend(MatmulOp matmul) {
  Value product = matmul.getResult();
  StridedTensorType type = matmul.getResult().getType();
  SizeExpr depth = matmul.getLhs().getType().getSymbolicLayout().shape.back();
  if (readProduct(matmul) != product || matmul.getRowClasses() ||
      matmul->hasAttr(StrideDialect::kSkinnyProductAttrName) ||
      depth == SizeExpr::constant(0))
    return false;
  Value viewed = viewedProduct(matmul);
  if (!viewed.hasOneUse())
    return false;
  auto add = dyn_cast<AddOp>(*viewed.getUsers().begin());
  if (!add || add.getLhs() == add.getRhs() ||
      add.getType() != viewed.getType() || wouldReturnView(matmul, viewed, add))
    return false;
  Value other = add.getLhs() == viewed ? add.getRhs() : add.getLhs();
  if (other.getType() != viewed.getType() || !isMaterialized(other, add))
    return false;
  SmallVector<Operation *> chain = viewChain(matmul);
  SmallVector<Operation *> built;
  Value addend = other;
  for (Operation *view : llvm::reverse(chain)) {
    addend = inverseView(view, addend, add);
    if (!addend)
      break;
    built.push_back(addend.getDefiningOp());
  }
  if (!addend || addend.getType() != type) {
    for (Operation *op : llvm::reverse(built))
      op->erase();
    return false;
  }
  // The product and its views move to the add, after the addend.
  matmul->moveBefore(add);
  for (Operation *view : chain)
    view->moveBefore(add);
  matmul.getAddendMutable().assign(addend);
  add.getResult().replaceAllUsesWith(viewed);
  add.erase();
  return true;
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
  if (!relu || relu.getType() != viewed.getType() ||
      wouldReturnView(matmul, viewed, relu))
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
    // A product that comes with an epilogue of its own (a graph file may
    // write one) keeps it: an add after a bias, an addend or an activation
    // is not the call's.
    if (matmul.getLhs().getType().getElementType().isF64() ||
        matmul.getBias() || matmul.getAddend() ||
        matmul.getEpilogue() != MatmulEpilogue::none)
      continue;
    foldBias(matmul);
    foldAddend(matmul);
    foldActivation(matmul);
  }
}
