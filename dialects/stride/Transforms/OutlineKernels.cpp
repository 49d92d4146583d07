//===- OutlineKernels.cpp - Forming and dissolving kernels ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The CUDA backend emits one __global__ function per stride.kernel. The
// outline pass wraps every functional op that is not inside a kernel into a
// kernel of its own, so that an unfused function can be compiled (stridec
// --no-fuse) and whatever the fusion pass leaves outside a kernel still is;
// so, too, each attention op marked for the split-KV kernel
// (stride.split_kv, stride-attention-library) and each product marked for
// the skinny product kernel (stride.skinny_product, stride-matmul-layout),
// which takes the pointwise kernel that computes its rows for it alone as
// its prologue (skinny-prologue; python-free-docs/matmul.md, "Skinny
// products").
// The inline pass dissolves kernels again (for tests that compare a fused
// kernel with its unfused equivalent).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"
#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/IR/Graph.h"
#include "stride/Support/Layout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace stride {
#define GEN_PASS_DEF_OUTLINEKERNELS
#define GEN_PASS_DEF_INLINEKERNELS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// Kernel names list at most this many ops (the first ones and the last).
constexpr size_t kMaxNameOps = 6;

/// The pointwise kernel whose one result `product` reads as its lhs (through
/// views) and nothing else reads, elementwise over as many elements: the
/// prologue its kernel may compute (KernelContract.h, form (g)); else null.
KernelOp prologueKernelOf(MatmulOp product) {
  Value base = viewChainBase(product.getLhs());
  auto producer = base.getDefiningOp<KernelOp>();
  auto elements = [](Value value) {
    return checkedNumElements(
        cast<StridedTensorType>(value.getType()).getShape());
  };
  if (!producer || producer->getNumResults() != 1 ||
      elements(base) != elements(product.getLhs()))
    return {};
  bool alone = true;
  forEachSink(base, [&](OpOperand &use) {
    alone &= use.getOwner() == product.getOperation() &&
             use.get() == product.getLhs();
  });
  FailureOr<KernelClass> kind = classifyKernel(producer);
  if (!alone || failed(kind) || kind->form != KernelForm::Pointwise)
    return {};
  return producer;
}

/// Erases `op` and the views of its results, which no other op reads.
void eraseWithViews(Operation *op) {
  for (Value result : op->getResults())
    for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
      eraseWithViews(user);
  op->erase();
}

/// The name of `op`'s kernel, whose ops are `body`'s: the op's and its
/// position (`matmul_3`), or with a prologue its functional ops'
/// (`sigmoid_mul_mul_matmul`).
std::string kernelName(Block &body, Operation *op, bool withPrologue,
                       unsigned position, KernelNameTable &names) {
  if (!withPrologue)
    return names.insert(op->getName().stripDialect().str() + "_" +
                        std::to_string(position));
  SmallVector<Operation *> named;
  for (Operation &member : body.without_terminator())
    if (!isa<ViewOpInterface>(member))
      named.push_back(&member);
  return names.insert(kernelBaseName(named));
}

/// Replaces `op` by a kernel of its own; with `prologue` (a kernel computing
/// `op`'s operand 0 through views), that kernel's ops and the views come
/// first in the body, and it is erased.
void outlineOp(Operation *op, KernelOp prologue, KernelNameTable &names,
               unsigned position) {
  auto body = std::make_unique<Block>();
  OpBuilder builder(op->getContext());
  builder.setInsertionPointToStart(body.get());
  IRMapping mapping;
  SmallVector<Value> inputs;
  auto input = [&](Value value) {
    if (mapping.contains(value))
      return;
    inputs.push_back(value);
    mapping.map(value, body->addArgument(value.getType(), value.getLoc()));
  };
  Location loc = op->getLoc();
  if (prologue) {
    for (auto [arg, value] : llvm::zip(prologue.getBodyBlock().getArguments(),
                                       prologue.getInputs())) {
      input(value);
      mapping.map(arg, mapping.lookup(value));
    }
    for (Operation &member : prologue.getBodyBlock().without_terminator())
      builder.clone(member, mapping);
    mapping.map(prologue.getResult(0),
                mapping.lookup(prologue.getYield().getValues().front()));
    SmallVector<Operation *> chain;
    viewChainBase(op->getOperand(0), &chain);
    for (Operation *view : chain)
      builder.clone(*view, mapping);
    loc = FusedLoc::get(op->getContext(), {prologue.getLoc(), loc});
  }
  for (Value operand : op->getOperands())
    input(operand);
  Operation *clone = builder.clone(*op, mapping);
  YieldOp::create(builder, op->getLoc(), clone->getResults());

  builder.setInsertionPoint(op);
  auto kernel = KernelOp::create(
      builder, loc, op->getResultTypes(),
      kernelName(*body, op, bool(prologue), position, names), inputs);
  kernel.getBody().push_back(body.release());
  op->replaceAllUsesWith(kernel.getResults());
  op->erase();
  if (prologue)
    eraseWithViews(prologue);
}

struct OutlineKernelsPass
    : public stride::impl::OutlineKernelsBase<OutlineKernelsPass> {
  using OutlineKernelsBase::OutlineKernelsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    KernelNameTable names(func);

    SmallVector<Operation *> toOutline;
    for (Operation &op : func.getBody().getOps())
      if (isFunctional(&op) || op.hasAttr(StrideDialect::kSplitKvAttrName) ||
          op.hasAttr(StrideDialect::kSkinnyProductAttrName))
        toOutline.push_back(&op);

    unsigned counter = 0;
    for (Operation *op : toOutline) {
      KernelOp prologue;
      if (auto product = dyn_cast<MatmulOp>(op);
          product && skinnyPrologue &&
          product->hasAttr(StrideDialect::kSkinnyProductAttrName))
        prologue = prologueKernelOf(product);
      outlineOp(op, prologue, names, counter++);
    }
  }
};

struct InlineKernelsPass
    : public stride::impl::InlineKernelsBase<InlineKernelsPass> {
  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    IRRewriter rewriter(&getContext());
    for (KernelOp kernel : kernels)
      inlineKernel(rewriter, kernel);
  }
};

} // namespace

void stride::inlineKernel(RewriterBase &rewriter, KernelOp kernel) {
  rewriter.setInsertionPoint(kernel);
  IRMapping mapping;
  for (auto [arg, input] :
       llvm::zip(kernel.getBodyBlock().getArguments(), kernel.getInputs()))
    mapping.map(arg, input);
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    rewriter.clone(op, mapping);
  SmallVector<Value> yielded;
  for (Value v : kernel.getYield().getValues())
    yielded.push_back(mapping.lookupOrDefault(v));
  rewriter.replaceOp(kernel, yielded);
}

std::string stride::kernelBaseName(ArrayRef<Operation *> ops) {
  std::string base;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.size() > kMaxNameOps && i >= kMaxNameOps - 1 && i + 1 < ops.size())
      continue;
    if (!base.empty())
      base += '_';
    base += ops[i]->getName().stripDialect();
  }
  // A lone op's name is often a C function's (max, exp, div): the backend
  // emits `extern "C"` kernels named after the kernel.
  if (ops.size() == 1)
    base += "_kernel";
  return base;
}
