//===- Emitter.h - CUDA C++ from stride kernels, and the launch plan -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The CUDA backend in two read-only steps over legal, scheduled IR (every
// functional op inside a stride.kernel, see stride-outline-kernels; every
// kernel with its schedule, see stride-schedule-kernels):
//
//   emitCuda    one CUDA C++ translation unit with one `extern "C"
//               __global__` function per stride.kernel, and how each must be
//               launched (grid, block, phase);
//   planModule  the module's buffers, ordered launches with their arguments,
//               and the graph signature, around the code image NVRTC made of
//               that source.
//
// Neither mutates the IR; anything they cannot handle is an error at the
// offending op's location (through the context's diagnostic engine).
// docs/cuda-backend.md describes the kernels' shapes.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_CUDA_EMITTER_H
#define STRIDE_TARGET_CUDA_EMITTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "stride/Module/Module.h"
#include "stride/Dialect/Stride/IR/StrideOps.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stride {

/// How to print kernels; how they run is their schedule
/// (stride/Target/CUDA/Schedule.h).
struct CudaEmitOptions {
  /// Out-of-range gather/scatter indices and integer division by zero stop
  /// the kernel with a device-side assertion naming the op (the launch then
  /// fails with CUDA_ERROR_ASSERT). Without checks they are only guarded:
  /// nothing is read or written out of bounds, the result is unspecified.
  bool runtimeChecks = true;
};

/// One launch of a kernel.
struct CudaLaunch {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  /// The trailing `int phase` argument of multi-phase kernels (index
  /// scatters: phase 0 copies the input, phase 1 scatters; the segmented
  /// index_add has five phases).
  std::optional<int32_t> phase;
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
  /// `int *scratchN`. Its contents are undefined before the first launch
  /// (the kernel initializes what it reads). The inverse index of the
  /// segmented index_add lives there.
  std::vector<int64_t> scratchBytes;
};

struct CudaSource {
  std::string source;
  /// In program order.
  std::vector<CudaKernel> kernels;
  /// When the entry returns one value more than once, the name of a kernel
  /// `(const unsigned char *in0, unsigned char *out0, long long n)` that
  /// copies n bytes, which the plan uses to fill the extra outputs.
  std::optional<std::string> copyKernel;
};

/// The graph's entry: the module's only func.func, or an error.
mlir::FailureOr<mlir::func::FuncOp> findEntryFunction(mlir::ModuleOp module);

/// Emits the CUDA C++ of every stride.kernel in `entry`, as its schedule
/// says (an error at a kernel without one).
mlir::FailureOr<CudaSource> emitCuda(mlir::func::FuncOp entry,
                                     const CudaEmitOptions &options);

/// The module around `source`'s kernels, all in `image` (the compiled
/// source): buffers (inputs, outputs, temporaries), launches in order, and
/// the signature. An argument or result named by a `stride.name` string
/// attribute keeps that name; the others are arg0.., result0...
mlir::FailureOr<ModuleDesc> planModule(mlir::func::FuncOp entry,
                                       const CudaSource &source,
                                       CodeImage image, std::string arch,
                                       std::string producer);

} // namespace stride

#endif // STRIDE_TARGET_CUDA_EMITTER_H
