//===- PrepareAttention.h - Attention ops before the pipeline ---*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the compiler library does to a graph before the pipeline, so that
// attention spelled out as ops gets a folded mask too: the pipeline's first
// pass, stride-recognize-attention, run ahead of it, then the constant masks
// folded with the reference interpreter (stride/Interpreter/FoldMasks.h);
// a graph of symbolic sizes is refused first (stride-check-symbolic-sizes).
// stridec and stride-run's per-value comparison (which must form the
// kernels stridec forms) both call it. Header-only: each caller links the
// transforms and the interpreter already.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_COMPILER_PREPAREATTENTION_H
#define STRIDE_COMPILER_PREPAREATTENTION_H

#include "dialects/stride/Transforms/Passes.h"
#include "stride/Interpreter/FoldMasks.h"
#include "stride/Support/PipelineOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace stride {

/// Runs stride-check-symbolic-sizes, then stride-recognize-attention when
/// `pipeline.recognizeAttention` (then clears it: the pipeline need not run
/// it again), with `configure` applied to its pass manager, and folds the
/// constant attention masks. Fails where the pass does.
inline mlir::LogicalResult
prepareAttention(mlir::ModuleOp module, PipelineOptions &pipeline,
                 llvm::function_ref<void(mlir::PassManager &)> configure = {}) {
  mlir::PassManager pm(module.getContext());
  // A graph of symbolic sizes stops before the first pass that assumes
  // static shapes (the pipeline's first pass, run ahead of it too).
  pm.addNestedPass<mlir::func::FuncOp>(createCheckSymbolicSizes());
  if (pipeline.recognizeAttention)
    pm.addNestedPass<mlir::func::FuncOp>(createRecognizeAttention());
  if (configure)
    configure(pm);
  if (mlir::failed(pm.run(module)))
    return mlir::failure();
  pipeline.recognizeAttention = false;
  foldConstantAttentionMasks(module);
  return mlir::success();
}

} // namespace stride

#endif // STRIDE_COMPILER_PREPAREATTENTION_H
