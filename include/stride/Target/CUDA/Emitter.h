//===- Emitter.h - CUDA C++ from stride kernels ---------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The CUDA backend's first read-only step over a planned module (every
// kernel scheduled, see stride-schedule-kernels, and outlined into the
// graph's plan.executables, see stride-outline-executable): emitCuda makes one
// CUDA C++ translation unit per plan.executable, with one `extern "C"
// __global__` function per stride.kernel, and says how each must be launched
// (grid, block, phase), as the schedule decided. translatePlan (Planner.h)
// then translates the host plan into the module around the code images
// NVRTC makes of those sources, one executable each.
//
// The emitter does not mutate the IR; anything it cannot handle is an error
// at the offending op's location (through the context's diagnostic engine).
// python-free-docs/cuda-backend.md describes the kernels' shapes.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_CUDA_EMITTER_H
#define STRIDE_TARGET_CUDA_EMITTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "stride/Module/Module.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Target/CUDA/TargetOptions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stride {

/// One launch of a kernel.
struct CudaLaunch {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  /// The trailing `int phase` argument of multi-phase kernels (index
  /// scatters: phase 0 copies the input, phase 1 scatters; the segmented
  /// index_add: phase 1 builds each row's list, phase 2 computes the rows).
  std::optional<int32_t> phase;
  /// Over symbolic sizes: `grid` is the grid at the symbols' largest
  /// values, and the grid at run time min(ceil(elements / perBlock),
  /// grid.x) (LaunchAttr).
  std::optional<SizeExpr> elements;
  int64_t perBlock = 1;
};

/// One stride.kernel as emitted. Its __global__ function takes, in order, a
/// pointer to storage element 0 of the buffer behind each kernel input,
/// then one per kernel result, then one per scratch buffer, then `int phase`
/// for multi-phase kernels.
struct CudaKernel {
  KernelOp op;
  /// The __global__ function's name (the kernel's sym_name, made a unique C
  /// identifier).
  std::string name;
  /// "slice_scatter + sum (seed_forward.mlir:7:17, 10:10)".
  std::string description;
  /// In order; empty when the kernel has no element to compute.
  std::vector<CudaLaunch> launches;
  /// Device scratch the kernel needs (bytes each): the plan gives each a
  /// temporary buffer of its own, passed after the result pointers as
  /// `int *scratchN`. What it holds before the first launch is the
  /// temporaries' contract (python-free-docs/module-format.md, "Buffer"). The inverse
  /// index of the segmented index_add lives there.
  std::vector<int64_t> scratchBytes;
  /// The kernel waits for the grid before it at its start, so its launches
  /// may be dependent ones (CudaTargetOptions::dependentLaunch).
  bool waitsForPreviousGrid = false;
  /// The symbols the kernel's types name, by name: its trailing `long
  /// long size_<name>` parameters (kernelSizeParameters).
  std::vector<std::string> sizeParameters;
  /// The function ends with `int phase` (index scatters, multi-phase
  /// kernels).
  bool phaseParameter = false;
};

/// One translation unit: the kernels of one plan.executable.
struct CudaUnit {
  /// The plan.executable's symbol name.
  std::string executable;
  /// The whole translation unit, prelude included.
  std::string source;
  /// In program order.
  std::vector<CudaKernel> kernels;
};

struct CudaSource {
  /// One per plan.executable, in the module's order (the order of the
  /// module's executables).
  std::vector<CudaUnit> units;
};

/// Emits the CUDA C++ of every stride.kernel in the graph's plan.executables,
/// in order, as its schedule says (an error at a kernel without one). The C
/// names of the kernels are unique across all units. Reads
/// `options.runtimeChecks`; the schedule pass has used the other options.
mlir::FailureOr<CudaSource> emitCuda(mlir::ModuleOp module,
                                     const CudaTargetOptions &options);

} // namespace stride

#endif // STRIDE_TARGET_CUDA_EMITTER_H
