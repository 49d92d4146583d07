//===- Schedule.h - How the CUDA backend runs each kernel -------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Scheduling decides, for each stride.kernel, the scheme its threads follow,
// its tile and vector width, its index width and its launches, and records
// them as the kernel's `stride.schedule` attribute (#stride.schedule). The
// printers (emitCuda) read the schedule and decide nothing themselves.
// python-free-docs/cuda-backend.md describes the schemes.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_CUDA_SCHEDULE_H
#define STRIDE_TARGET_CUDA_SCHEDULE_H

#include "dialects/stride/IR/StrideAttrs.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Target/CUDA/TargetOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace stride {

/// The multiprocessor count of the usual GPU of `arch` (132 when unknown).
int defaultMultiprocessors(llvm::StringRef arch);

/// The multiprocessors grids are sized for: `count` where it is positive
/// (stridec --multiprocessors), else the arch's usual count.
int multiprocessorsFor(llvm::StringRef arch, int count);

/// Decides the schedule of `kernel` (an error at the kernel when it breaks
/// the kernel contract or the backend's limits).
mlir::FailureOr<KernelScheduleAttr>
scheduleKernel(KernelOp kernel, const CudaTargetOptions &options);

/// The schedule recorded on `kernel`, or null.
KernelScheduleAttr getSchedule(KernelOp kernel);

#define GEN_PASS_DECL
#include "stride/Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "stride/Target/CUDA/Passes.h.inc"

} // namespace stride

#endif // STRIDE_TARGET_CUDA_SCHEDULE_H
