//===- TargetOptions.h - Options of the CUDA target -----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR), so that the embedding API (stride/Compiler) can hold
// these options without its users needing MLIR's headers.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_CUDA_TARGETOPTIONS_H
#define STRIDE_TARGET_CUDA_TARGETOPTIONS_H

#include <cstdint>
#include <string>

namespace stride {

/// The CUDA target's options: the schedule pass (stride-schedule-kernels)
/// reads `arch`, `multiprocessorCount`, `vectorize` and `deterministic`,
/// the printer (emitCuda) reads `runtimeChecks`, and NVRTC compiles for
/// `arch`.
struct CudaTargetOptions {
  /// The target, "sm_" + digits: grids are sized for it, and the compiler
  /// has NVRTC compile for it (parseGpuArch checks its form before parsing,
  /// checkNvrtcArch NVRTC's support when NVRTC runs).
  std::string arch = "sm_90";
  /// Multiprocessors of the target GPU; 0: the usual count for `arch`
  /// (132 for sm_90, an H100 SXM).
  int multiprocessorCount = 0;
  /// Out-of-range gather/scatter indices and integer division by zero stop
  /// the kernel with a device-side assertion naming the op (the launch then
  /// fails with CUDA_ERROR_ASSERT). Without checks they are only guarded:
  /// nothing is read or written out of bounds, the result is unspecified.
  bool runtimeChecks = true;
  /// Pointwise kernels whose innermost dim is a multiple of 4 compute 4
  /// consecutive elements per thread and step, and move the operands and
  /// results whose layout allows it (innermost stride 1, offset and other
  /// strides multiples of 4) as one aligned 4-element access. Buffers must
  /// be aligned to 4 elements (cuMemAlloc's 256 bytes are).
  bool vectorize = true;
  /// f32 matrix products may use TF32 tensor cores (cuBLASLt's compute type
  /// "32f_fast_tf32", recorded in each call's descriptor); otherwise they
  /// compute in full f32, as PyTorch does by default.
  bool allowTf32 = false;
  /// Index scatters that add floats (index_add, scatter_add) sum each
  /// output element's contributions in source order, so results are
  /// bit-identical run after run (python-free-docs/determinism.md); read by the
  /// schedule pass.
  bool deterministic = false;
  /// On sm_90 and later, every kernel waits for the grid launched before it
  /// at its start (griddepcontrol.wait), and each dispatch that follows a
  /// dispatch is a dependent launch (python-free-docs/module-format.md, "Dispatch"):
  /// the next kernel is launched as the previous one's blocks exit, before
  /// that grid has ended and flushed, hiding part of the gap between them.
  /// Ignored below sm_90 (stride::supportsDependentLaunch).
  bool dependentLaunch = true;
  /// With dependentLaunch: every kernel also lets the grid after it launch
  /// as soon as each of its blocks starts (griddepcontrol.launch_dependents)
  /// rather than as they exit, and a kernel that reads inputs no step
  /// writes (the module's constants: a skinny product's weight) fetches
  /// their first lines into L2 before it waits, overlapping the grid ahead
  /// (python-free-docs/cuda-backend.md, "The kernel ABI"; measured slower on
  /// a decode step, bench/NOTES.md section 63).
  bool earlyLaunch = false;
  /// Independent small kernels (one launch of at most a wave of blocks,
  /// a few steps apart, no step between them that either depends on) run
  /// as one launch, each on its own blocks (stride-group-launches,
  /// python-free-docs/cuda-backend.md, "Launch groups").
  bool launchGroups = true;
  /// With dependentLaunch: a kernel whose every dispatch is followed by a
  /// small grid (at most 32 blocks) lets that grid launch as it starts
  /// (stride-trigger-small-successors; stridec --no-early-triggers turns it
  /// off).
  bool triggerSmallSuccessors = true;
  /// Skinny products (form (g), python-free-docs/matmul.md, "Skinny
  /// products"): the output columns each warp takes, and the 16-byte loads
  /// each lane issues per column before it uses them (the bytes in flight);
  /// 0: the scheduler's defaults (kSkinnyColumnsPerWarp, kSkinnyLoadsPerLane).
  /// Tuning knobs: bench/decode/skinny_sweep.py times the choices.
  int skinnyColumnsPerWarp = 0;
  int skinnyLoadsPerLane = 0;
  /// Skinny products without a prologue: the warps of a block that share
  /// a column group, each taking every N-th 512-byte step of its weight
  /// rows, their sums added in warp order (1, or 4: the block's warps,
  /// kSkinnyThreads / 32); 0: the scheduler's
  /// default (kSkinnyColumnWarps where skinnyColumnWarps allows).
  int skinnyColumnWarps = 0;
  /// Decode attention that Stride's kernel runs (form (f)) takes the
  /// staged scheme where stagedDecodeTakes allows it and the target has
  /// asynchronous copies (sm_80 and later), else the split-KV scheme
  /// (python-free-docs/attention.md, "Decode attention"; stridec
  /// --decode-attention=staged). Off by default: the batch-1 decode step
  /// measured slower with it than with cuDNN (bench/NOTES.md section 78).
  bool stagedKvAttention = false;
  /// The staged scheme's chunks on the tensor cores where their shapes
  /// allow (scheme staged_kv_mma_attention); false keeps the CUDA cores'
  /// staged_kv_attention (stridec --no-staged-tensor-cores, to compare).
  bool stagedKvTensorCores = true;
  /// The bytes of the skinny products' weights, in the plan's order, whose
  /// launches carry an L2 window that keeps them in L2 from one run to the
  /// next (stride-keep-weights-in-l2, python-free-docs/plan.md, "Weights
  /// kept in L2"; stridec --l2-resident-bytes). 0, the default: none.
  int64_t l2ResidentBytes = 0;
};

} // namespace stride

#endif // STRIDE_TARGET_CUDA_TARGETOPTIONS_H
