//===- Passes.h - Stride passes ---------------------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_STRIDE_TRANSFORMS_PASSES_H
#define STRIDE_DIALECT_STRIDE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "stride/Dialect/Stride/IR/StrideOps.h"

namespace stride {

#define GEN_PASS_DECL
#include "stride/Dialect/Stride/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "stride/Dialect/Stride/Transforms/Passes.h.inc"

/// Options of the default pipeline, shared by stride-opt, stridec and the
/// embedding API.
struct PipelineOptions {
  /// Repair illegal functional result layouts instead of rejecting them.
  bool repairLayouts = false;
  /// Fuse ops into stride.kernel regions (stride-fuse) after legalization.
  bool fuse = true;
  /// With `fuse`: the fusion pass's options (broadcast epilogues, the cost
  /// model's bounds), with the defaults of Passes.td.
  FuseOptions fusion;
  /// Put every functional op into a stride.kernel (what the CUDA backend
  /// needs): after legalization, each functional op left outside a kernel
  /// gets a kernel of its own (stride-outline-kernels).
  bool formKernels = false;
};

/// The default pipeline: layout legalization first, so no later pass ever
/// sees an illegal layout; then fusion.
void buildStridePipeline(mlir::OpPassManager &pm,
                         const PipelineOptions &options);

/// Registers `stride-pipeline` (with option `repair-layouts`) for
/// stride-opt.
void registerStridePipeline();

} // namespace stride

#endif // STRIDE_DIALECT_STRIDE_TRANSFORMS_PASSES_H
