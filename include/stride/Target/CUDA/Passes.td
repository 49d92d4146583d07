//===- Passes.td - Passes of the CUDA target ---------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_CUDA_PASSES_TD
#define STRIDE_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScheduleKernels : Pass<"stride-schedule-kernels", "::mlir::func::FuncOp"> {
  let summary = "Decide how each stride.kernel runs on the GPU";
  let description = [{
    Records on every `stride.kernel` its schedule, the
    `stride.schedule = #stride.schedule<...>` attribute that the CUDA
    printers read: the kernel's scheme (from its form under the kernel
    contract: `grid_stride`, `vectorized` or `tiled_transpose` for pointwise
    kernels, `reduction_inner`, `reduction_outer` or `reduction_split` for
    reductions,
    `row_registers` or `row_reread` for broadcast reductions, `scatter`,
    `segmented_index_add` or `sorted_index_add` for index scatters), its
    vector width, tile and
    threads per output or row, 32 or 64-bit index arithmetic, and its
    launches (grid, block, phase) and scratch buffers.
    python-free-docs/cuda-backend.md describes each scheme and why it is chosen.

    It also records what a kernel reads before it waits for the grid ahead
    (python-free-docs/cuda-backend.md, "Before the wait"): the inputs that
    are constants of the module, in `stride.read_only_inputs`, for a skinny
    product (its weight) and for a `row_registers` kernel where every row
    reads them alike (a norm's weight), and, in such a kernel, the unit
    attribute `stride.preload` on each dense non-splat `stride.constant`
    of its body that every row reads alike.

    A kernel that breaks the kernel contract is an error at the kernel.

    ```mlir
    %0 = stride.kernel "add" ins(%a, %b : ...) -> (!stride.tensor<1024xf32>)
        attributes {stride.schedule = #stride.schedule<scheme = vectorized,
          index_bits = 32, vector_width = 4,
          launches = [#stride.launch<grid = 1, block = 256>]>} { ... }
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90\"",
           "The target GPU architecture (sizes grids)">,
    Option<"multiprocessors", "multiprocessors", "int", /*default=*/"0",
           "Multiprocessors of the target GPU; 0: the usual count for arch">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "Let pointwise kernels move 4 consecutive elements per access">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "Index scatters of floats sum each output element's contributions "
           "in source order (bit-identical results run after run)">,
    Option<"skinnyColumnsPerWarp", "skinny-columns-per-warp", "int",
           /*default=*/"0",
           "Skinny products of at most 8 rows: output columns per warp; 0: "
           "the scheduler's default">,
    Option<"skinnyLoadsPerLane", "skinny-loads-per-lane", "int",
           /*default=*/"0",
           "Skinny products: weight loads each lane issues per column before "
           "using any; 0: the scheduler's default">,
    Option<"skinnyColumnWarps", "skinny-column-warps", "int",
           /*default=*/"0",
           "Skinny products without a prologue: warps of a block sharing a "
           "column group (1, or 4: the whole block), each taking every N-th "
           "512-byte step of its weight rows; 0: the scheduler's default">,
    Option<"stagedKvAttention", "staged-kv-attention", "bool",
           /*default=*/"false",
           "Decode attention that Stride's kernel runs takes the staged "
           "scheme where it applies (sm_80 and later, few units, 2-byte "
           "keys and values, a kv_length); false: the split-KV scheme">,
    Option<"stagedKvTensorCores", "staged-kv-tensor-cores", "bool",
           /*default=*/"true",
           "The staged scheme's chunks on the tensor cores where their "
           "shapes allow (scheme staged_kv_mma_attention); false: on the "
           "CUDA cores (staged_kv_attention)">,
  ];
}

#endif // STRIDE_TARGET_CUDA_PASSES_TD
