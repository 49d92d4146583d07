//===- PipelineOptions.h - Options of the default pipeline -----*- C++ -*-===//
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

#ifndef STRIDE_SUPPORT_PIPELINEOPTIONS_H
#define STRIDE_SUPPORT_PIPELINEOPTIONS_H

#include <cstdint>
#include <string>

namespace stride {

/// The fusion pass's switches and the bounds of its cost model: the options
/// of `stride-fuse` (Passes.td), with its defaults (a unit test checks that
/// they agree).
struct FusionOptions {
  /// Also fuse broadcast epilogues (kernel contract form (d)).
  bool broadcastEpilogues = true;
  /// A cast that only converts, read by several kernels, is computed in
  /// each of them (stride-fuse's `recompute-casts`).
  bool recomputeCasts = true;
  /// A value that a broadcast-reduction kernel reads as its reductions'
  /// input, also read elsewhere, is yielded by that kernel (stride-fuse's
  /// `row-input-outputs`).
  bool rowInputOutputs = true;
  /// Independent sibling index scatters (one dim, one result shape, one
  /// index) share one kernel (stride-fuse's `sibling-scatters`).
  bool siblingScatters = true;
  /// A kernel holds at most this many ops.
  unsigned maxKernelOps = 64;
  /// A kernel whose estimated registers per thread would exceed this is not
  /// grown further.
  unsigned maxKernelRegisters = 255;
};

/// Options of the default pipeline, shared by stride-opt, stridec and the
/// embedding API.
struct PipelineOptions {
  /// Repair illegal functional result layouts instead of rejecting them.
  bool repairLayouts = false;
  /// Fuse ops into stride.kernel regions (stride-fuse) after legalization.
  bool fuse = true;
  /// With `fuse`: the fusion pass's switches and cost-model bounds.
  FusionOptions fusion;
  /// Put every functional op into a stride.kernel (what the CUDA backend
  /// needs): after legalization, each functional op left outside a kernel
  /// gets a kernel of its own (stride-outline-kernels).
  bool formKernels = false;
  /// With formKernels: make every value a kernel or library call writes an
  /// extra graph output (stride-keep-values), for per-value comparison.
  bool keepValues = false;
  /// Rewrite attention spelled out as ops into stride.attention
  /// (stride-recognize-attention), first in the pipeline.
  bool recognizeAttention = true;
  /// The library that runs fused attention (stride-attention-library):
  /// "cudnn" (cuDNN's flash attention for the ops it takes; the compiler
  /// uses "none" below sm_80, which cuDNN's engines need), or "none" (no
  /// library: decode steps as the split-KV kernel where splitKvAttention
  /// allows, every other attention op decomposed into products and kernels).
  std::string attentionLibrary = "cudnn";
  /// Run attention ops with few query rows (decode steps) as Stride's
  /// split-KV kernel (stride-attention-library's split-kv option).
  bool splitKvAttention = true;
  /// How decode steps that both cuDNN and Stride's kernel take run
  /// (stride-attention-library's decode-attention option): "auto" and
  /// "library" (cuDNN), "staged" or "split-kv" (Stride's kernel; with
  /// "staged" the compiler also has its schedule take the staged scheme
  /// where it applies, CudaTargetOptions::stagedKvAttention).
  std::string decodeAttention = "auto";
  /// With decodeAttention "auto": a decode step the staged kernel takes,
  /// whose valid key count is read from an input, runs the staged kernel
  /// up to this many valid keys and cuDNN beyond, chosen at run time by
  /// the input's value (stride-attention-library's staged-keys option;
  /// python-free-docs/attention.md, "Chosen at run time by the position").
  /// 0: cuDNN always. Below sm_80 (no asynchronous copies, which the
  /// staged scheme needs) the compiler takes no attention library, so no
  /// step gets variants.
  int64_t decodeAttentionStagedKeys = 2048;
  /// Which matrix products of few rows run as Stride's skinny product
  /// kernel instead of a cuBLASLt call (stride-matmul-layout's
  /// skinny-products option): "auto" (1 row, where the kernel streams the
  /// weights at least as fast as cuBLASLt), "generated" (up to 32 rows) or "library"
  /// (none).
  std::string skinnyProducts = "auto";
  /// Compute a skinny product's rows in its kernel where a pointwise
  /// kernel computes them for it alone (stride-outline-kernels'
  /// skinny-prologue option; a decoder's SwiGLU before its down
  /// projection). Off by default: measured slower on an H200
  /// (python-free-docs/matmul.md, "Skinny products").
  bool skinnyPrologue = false;
  /// Compute the broadcast-reduction kernel whose result a skinny product
  /// alone reads (a decoder's RMSNorm) in the product's kernel, each block
  /// reducing the rows (stride-outline-kernels' skinny-row-prologue
  /// option). Off by default: measured slower on an H200
  /// (python-free-docs/matmul.md, "Skinny products").
  bool skinnyRowPrologue = false;
  /// Compute the pointwise kernel that alone reads a skinny product's
  /// result in the product's kernel, as its epilogue (stride-outline-
  /// kernels' skinny-epilogue option; a decoder's SwiGLU after its merged
  /// gate and up projections; python-free-docs/matmul.md, "Skinny
  /// products").
  bool skinnyEpilogue = true;
  /// Copy f16/bf16 product operands whose rows are not 16-byte multiples
  /// into aligned rows (stride-matmul-layout's pad-operand-rows option).
  bool padOperandRows = true;
  /// With padOperandRows: run a 2-D product whose K is such a row over K
  /// padded with zeros (stride-matmul-layout's pad-contraction option).
  bool padContraction = true;
  /// Split the graph for this many ranks (stride-tensor-parallel, after
  /// attention recognition) and keep rank `rank`'s program; 1: no split.
  int64_t tensorParallel = 1;
  int64_t rank = 0;
  /// Average the gradients (the floating-point results) across this many
  /// data-parallel ranks, in buckets of at least dataParallelBucketBytes
  /// bytes, each placed as soon as its gradients are complete
  /// (stride-data-parallel); 1: nothing to average.
  int64_t dataParallel = 1;
  int64_t dataParallelBucketBytes = int64_t(25) << 20;
  /// With tensorParallel > 1: split each product that is only all-reduced
  /// across the ranks (the split's row-parallel products) into this many
  /// chunks of rows, each all-reduced beside the next chunk's product
  /// (stride-chunk-collectives, products of at least 1,024 rows); 1: none.
  int64_t collectiveChunks = 2;
  /// Run the plan's collectives on the invocation's collective stream,
  /// beside the steps that do not touch their bytes
  /// (stride-overlap-collectives); false: on the invocation's stream,
  /// between the steps around them.
  bool overlapCollectives = true;
  /// Rewrite each stride.convolution into a strided view of its windows and
  /// a matrix product per group (stride-decompose-convolution), as the CUDA
  /// backend needs; the reference interpreter (stride-run --reference) runs
  /// the op itself instead.
  bool decomposeConvolutions = true;
  /// With decomposeConvolutions: which convolutions run as cuDNN calls
  /// instead (stride-convolution-library): "auto" (those cuDNN takes: f16,
  /// bf16, f32), "library" (all; one cuDNN does not take is an error) or
  /// "generated" (none).
  std::string convolutions = "auto";
  /// With convolutions other than "generated": fold a residual add and a
  /// relu after a convolution into its cuDNN call where cuDNN's
  /// runtime-fusion engines take them (stride-convolution-library's
  /// epilogues option).
  bool convolutionEpilogues = true;
  /// Fold per-channel multiplies, adds and subtracts of a convolution's
  /// result (inference batch norms) into its weight and bias
  /// (stride-fold-into-convolution); the reference interpreter runs the
  /// graph unfolded.
  bool foldIntoConvolutions = true;
  /// Compute the ops whose operands are all constants at compile time, with
  /// the reference interpreter (stride-fold-constants, before fusion).
  bool foldConstants = true;
  /// Make pointwise results packed in a permuted order row-major where
  /// Stride owns their layout (stride-row-major-pointwise).
  bool rowMajorPointwise = true;
  /// Merge products of the same activations against constant weights into
  /// one product over the weights concatenated
  /// (stride-merge-sibling-products).
  bool mergeSiblingProducts = true;
  /// Test only: miscompile every op of this kind (stride-test-inject-fault,
  /// e.g. "add"); empty: none.
  std::string testInjectFault;
};

} // namespace stride

#endif // STRIDE_SUPPORT_PIPELINEOPTIONS_H
