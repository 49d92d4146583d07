//===- Planner.h - The launch plan of a compiled graph --------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The CUDA backend's second read-only step: after emitCuda (Emitter.h) and
// NVRTC, translatePlan translates the graph's host plan (the plan dialect,
// dialects/plan) into the module around the code images:
// buffers, ordered launches with their arguments, and the graph signature.
// It decides nothing; anything it cannot translate is an error at the
// offending op's location.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_CUDA_PLANNER_H
#define STRIDE_TARGET_CUDA_PLANNER_H

#include "stride/Module/Module.h"
#include "stride/Target/CUDA/Emitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace stride {

/// The module of the host plan in `entry` around `source`'s kernels, each
/// unit's in the image at its index in `images` (the compiled units), one
/// executable each: one buffer per buffer op, the launches of each step in
/// order, and the signature. An argument or result named by a
/// `stride.name` string attribute (StrideDialect::kNameAttrName) keeps that
/// name; the others are arg0.., result0...
mlir::FailureOr<ModuleDesc> translatePlan(mlir::func::FuncOp entry,
                                          const CudaSource &source,
                                          std::vector<CodeImage> images,
                                          std::string arch,
                                          std::string producer);

} // namespace stride

#endif // STRIDE_TARGET_CUDA_PLANNER_H
