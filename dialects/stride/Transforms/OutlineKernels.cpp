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
// its prologue (skinny-prologue), and the pointwise kernel that alone reads
// its result as its epilogue (skinny-epilogue; python-free-docs/matmul.md,
// "Skinny products").
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

/// The kernel whose result `product` reads as its lhs (through views) and
/// nothing else reads, elementwise over as many elements: the prologue its
/// kernel may compute (KernelContract.h, form (g)); else null. With
/// `pointwise`, a pointwise kernel of that one result; with `rows`, a
/// broadcast-reduction kernel (an RMSNorm), whose other results (the
/// residual sum it also yields) the product's kernel then yields too.
KernelOp prologueKernelOf(MatmulOp product, bool pointwise, bool rows) {
  Value base = viewChainBase(product.getLhs());
  auto producer = base.getDefiningOp<KernelOp>();
  auto elements = [](Value value) {
    return checkedNumElements(
        cast<StridedTensorType>(value.getType()).getShape());
  };
  if (!producer || elements(base) != elements(product.getLhs()))
    return {};
  bool alone = true;
  forEachSink(base, [&](OpOperand &use) {
    alone &= use.getOwner() == product.getOperation() &&
             use.get() == product.getLhs();
  });
  FailureOr<KernelClass> kind = classifyKernel(producer);
  if (!alone || failed(kind))
    return {};
  if (pointwise && kind->form == KernelForm::Pointwise &&
      producer->getNumResults() == 1)
    return producer;
  if (rows && kind->form == KernelForm::BroadcastReduction &&
      kind->rowResults.empty())
    return producer;
  return {};
}

/// The pointwise kernel of one result that alone reads `product`'s result
/// (through views): the epilogue its kernel may compute (KernelContract.h,
/// form (g)); else null.
KernelOp epilogueKernelOf(MatmulOp product) {
  KernelOp consumer;
  bool alone = true;
  forEachSink(product.getResult(), [&](OpOperand &use) {
    auto kernel = dyn_cast<KernelOp>(use.getOwner());
    alone &= kernel && (!consumer || consumer == kernel);
    consumer = kernel;
  });
  if (!alone || !consumer || consumer->getNumResults() != 1)
    return {};
  FailureOr<KernelClass> kind = classifyKernel(consumer);
  if (failed(kind) || kind->form != KernelForm::Pointwise)
    return {};
  return consumer;
}

/// Erases `op` and the views of its results, which no other op reads.
void eraseWithViews(Operation *op) {
  for (Value result : op->getResults())
    for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
      eraseWithViews(user);
  op->erase();
}

/// The name of `op`'s kernel, whose ops are `body`'s: the op's and its
/// position (`matmul_3`), or with a prologue or an epilogue its functional
/// ops' (`sigmoid_mul_mul_matmul`, `matmul_sigmoid_mul_mul`).
std::string kernelName(Block &body, Operation *op, bool withOthers,
                       unsigned position, KernelNameTable &names) {
  if (!withOthers)
    return names.insert(op->getName().stripDialect().str() + "_" +
                        std::to_string(position));
  SmallVector<Operation *> named;
  for (Operation &member : body.without_terminator())
    if (!isa<ViewOpInterface>(member))
      named.push_back(&member);
  return names.insert(kernelBaseName(named));
}

/// The results of `prologue` other than the one its product reads (`lhs`,
/// through views): the values the merged kernel yields after the
/// product's (the residual sum an RMSNorm also yields).
SmallVector<unsigned> otherResults(KernelOp prologue, Value lhs) {
  Value base = viewChainBase(lhs);
  SmallVector<unsigned> others;
  for (OpResult result : prologue->getResults())
    if (result != base)
      others.push_back(result.getResultNumber());
  return others;
}

/// A kernel of `op` built before `at`: with `prologue` (a kernel computing
/// `op`'s operand 0 through views), that kernel's ops and the views come
/// first in the body, and the kernel yields that kernel's other results
/// after `op`'s; with `epilogue` (a kernel reading `op`'s result through
/// views), the views and that kernel's ops come after `op` and the kernel
/// yields the epilogue's results instead of `op`'s.
KernelOp buildKernel(Operation *op, KernelOp prologue, KernelOp epilogue,
                     Operation *at, KernelNameTable &names,
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
  // The ops of `kernel` cloned into the body, its block arguments mapped to
  // what its inputs are mapped to (or to new inputs).
  auto inlineBody = [&](KernelOp kernel) {
    for (auto [arg, value] :
         llvm::zip(kernel.getBodyBlock().getArguments(), kernel.getInputs())) {
      input(value);
      mapping.map(arg, mapping.lookup(value));
    }
    for (Operation &member : kernel.getBodyBlock().without_terminator())
      builder.clone(member, mapping);
  };
  SmallVector<Location> locs;
  if (prologue) {
    inlineBody(prologue);
    for (auto [result, value] :
         llvm::zip(prologue->getResults(), prologue.getYield().getValues()))
      mapping.map(result, mapping.lookup(value));
    SmallVector<Operation *> chain;
    viewChainBase(op->getOperand(0), &chain);
    for (Operation *view : chain)
      builder.clone(*view, mapping);
    locs.push_back(prologue.getLoc());
  }
  locs.push_back(op->getLoc());
  for (Value operand : op->getOperands())
    input(operand);
  Operation *clone = builder.clone(*op, mapping);
  SmallVector<Value> yielded(clone->getResults());
  SmallVector<Type> resultTypes(op->getResultTypes());
  if (epilogue) {
    // The views between the product and the epilogue kernel, then its ops.
    for (Value value : epilogue.getInputs()) {
      SmallVector<Operation *> chain;
      if (viewChainBase(value, &chain) != op->getResult(0))
        continue;
      for (Operation *view : chain)
        if (!mapping.contains(view->getResult(0)))
          builder.clone(*view, mapping);
    }
    inlineBody(epilogue);
    yielded.clear();
    for (Value value : epilogue.getYield().getValues())
      yielded.push_back(mapping.lookup(value));
    resultTypes.assign(epilogue->getResultTypes().begin(),
                       epilogue->getResultTypes().end());
    locs.push_back(epilogue.getLoc());
  }
  if (prologue)
    for (unsigned i : otherResults(prologue, op->getOperand(0))) {
      yielded.push_back(mapping.lookup(prologue->getResult(i)));
      resultTypes.push_back(prologue->getResult(i).getType());
    }
  YieldOp::create(builder, op->getLoc(), yielded);

  builder.setInsertionPoint(at);
  Location loc = locs.size() == 1 ? locs.front()
                                  : FusedLoc::get(op->getContext(), locs);
  auto kernel = KernelOp::create(
      builder, loc, resultTypes,
      kernelName(*body, op, prologue || epilogue, position, names), inputs);
  kernel.getBody().push_back(body.release());
  return kernel;
}

/// Whether every op that reads `prologue`'s results other than the
/// product's lhs comes after `at`, where the merged kernel would stand.
bool usedOnlyAfter(KernelOp prologue, Value lhs, Operation *at) {
  for (unsigned i : otherResults(prologue, lhs))
    for (Operation *user : prologue->getResult(i).getUsers()) {
      Operation *top = at->getBlock()->findAncestorOpInBlock(*user);
      if (!top || top == at || !at->isBeforeInBlock(top))
        return false;
    }
  return true;
}

/// Replaces `op` by a kernel of its own, with `prologue` and `epilogue`
/// (see buildKernel) where the kernel contract takes them, both if it
/// can, else the epilogue, else the prologue; each kernel taken in is
/// erased. A prologue or an epilogue that breaks the contract (an
/// epilogue that reads the product's columns in a way no warp holds)
/// stays a kernel of its own.
void outlineOp(Operation *op, KernelOp prologue, KernelOp epilogue,
               KernelNameTable &names, unsigned position) {
  Value lhs = prologue ? op->getOperand(0) : Value();
  if (prologue && !usedOnlyAfter(prologue, lhs, epilogue ? epilogue : op))
    prologue = {};
  SmallVector<std::pair<KernelOp, KernelOp>, 4> tries;
  if (prologue && epilogue)
    tries.push_back({prologue, epilogue});
  if (epilogue)
    tries.push_back({{}, epilogue});
  if (prologue)
    tries.push_back({prologue, {}});
  tries.push_back({{}, {}});
  for (auto [before, after] : tries) {
    bool last = !before && !after;
    Operation *at = after ? after.getOperation() : op;
    KernelOp kernel = buildKernel(op, before, after, at, names, position);
    if (!last && failed(classifyKernel(kernel))) {
      kernel.erase();
      continue;
    }
    // The kernel's results: the product's or the epilogue's, then the
    // prologue's others.
    Operation *replaced = after ? after.getOperation() : op;
    unsigned count = replaced->getNumResults();
    replaced->replaceAllUsesWith(kernel.getResults().take_front(count));
    if (before)
      for (auto [i, other] : llvm::enumerate(otherResults(before, lhs)))
        before->getResult(other).replaceAllUsesWith(kernel.getResult(count + i));
    if (after) {
      after.erase();
      eraseWithViews(op);
    } else {
      op->erase();
    }
    if (before)
      eraseWithViews(before);
    return;
  }
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
      KernelOp prologue, epilogue;
      if (auto product = dyn_cast<MatmulOp>(op);
          product && product->hasAttr(StrideDialect::kSkinnyProductAttrName)) {
        if (skinnyPrologue || skinnyRowPrologue)
          prologue =
              prologueKernelOf(product, skinnyPrologue, skinnyRowPrologue);
        if (skinnyEpilogue)
          epilogue = epilogueKernelOf(product);
      }
      outlineOp(op, prologue, epilogue, names, counter++);
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
