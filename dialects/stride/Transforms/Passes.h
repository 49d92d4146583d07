//===- Passes.h - Stride passes ---------------------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_PASSES_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/PipelineOptions.h"

namespace stride {

#define GEN_PASS_DECL
#include "dialects/stride/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/stride/Transforms/Passes.h.inc"

/// The default pipeline: layout legalization first, so no later pass ever
/// sees an illegal layout; then fusion.
/// The stride-fuse options for `fusion` (PipelineOptions.h keeps them free of
/// MLIR).
FuseOptions toFuseOptions(const FusionOptions &fusion);

void buildStridePipeline(mlir::OpPassManager &pm,
                         const PipelineOptions &options);

/// Runs stride-instantiate-symbols on every function of `module` at
/// `values` (`name=value` each: a static graph of one shape from a symbolic
/// one), before anything else that stridec and stride-run do to a graph;
/// nothing when `values` is empty. Errors go to the context's handler.
mlir::LogicalResult instantiateSymbols(mlir::ModuleOp module,
                                       llvm::ArrayRef<std::string> values);

/// Registers `stride-pipeline` for stride-opt, with one option per field of
/// PipelineOptions (`repair-layouts`, `fuse`, `fuse-broadcast-epilogues`,
/// `form-kernels`).
void registerStridePipeline();

/// Dissolves `kernel` into the block around it: its ops, reading the
/// kernel's inputs, replace it (stride-inline-kernels, stride-reduce).
void inlineKernel(mlir::RewriterBase &rewriter, KernelOp kernel);

/// The name a kernel of `ops` (its functional ops, in program order) is
/// given before it is made unique (python-free-docs/fusion.md,
/// "Interface"): their names joined by `_`, past six ops the first five
/// and the last, a lone op's name followed by `_kernel`.
std::string kernelBaseName(llvm::ArrayRef<mlir::Operation *> ops);

/// The names stride-keep-values gives the values it makes graph outputs:
/// "value.0", "value.1", ... in program order.
inline constexpr llvm::StringLiteral kKeptValuePrefix = "value.";
std::string keptValueName(unsigned index);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_PASSES_H
