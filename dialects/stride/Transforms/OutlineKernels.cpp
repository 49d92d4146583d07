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
// the skinny product kernel (stride.skinny_product, stride-matmul-layout).
// The inline pass dissolves kernels again (for tests that compare a fused
// kernel with its unfused equivalent).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"
#include "dialects/stride/IR/Graph.h"

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

struct OutlineKernelsPass
    : public stride::impl::OutlineKernelsBase<OutlineKernelsPass> {
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
      std::string name = names.insert(op->getName().stripDialect().str() +
                                      "_" + std::to_string(counter++));

      OpBuilder builder(op);
      SmallVector<Value> inputs(op->getOperands());
      auto kernel = KernelOp::create(builder, op->getLoc(),
                                     op->getResultTypes(), name, inputs);
      Block *body = new Block();
      kernel.getBody().push_back(body);
      IRMapping mapping;
      for (Value input : inputs)
        mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
      builder.setInsertionPointToStart(body);
      Operation *clone = builder.clone(*op, mapping);
      YieldOp::create(builder, op->getLoc(), clone->getResults());
      op->replaceAllUsesWith(kernel.getResults());
      op->erase();
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
