//===- StrideCollectiveOps.td - Collectives across ranks ---*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Collectives of a tensor-parallel (SPMD) program: every rank of a group of
// `world_size` ranks runs the same graph and meets the others at each
// collective, in program order (included by StrideOps.td). The semantics,
// the simulation of N ranks and what runs them are in
// python-free-docs/distributed.md.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_COLLECTIVE_OPS_TD
#define STRIDE_COLLECTIVE_OPS_TD

include "StrideCollectiveEnums.td"

/// A collective: a library call (a fusion boundary that writes a fresh
/// buffer) that is not Pure, so no pass removes, merges or moves one on a
/// rank without the others.
class Stride_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Stride_Op<mnemonic, traits # [Stride_LibraryCall]> {
  let results = (outs Stride_AnyTensor:$result);
  let hasVerifier = 1;
}

def Stride_AllReduceOp : Stride_CollectiveOp<"all_reduce"> {
  let summary = "combine one tensor element-wise across the ranks "
                "(`torch.distributed.all_reduce`)";
  let description = [{
    Every rank of the group of `world_size` ranks contributes `input`; each
    receives, at every element, the `reduction` of the ranks' elements:
    `sum`, `avg` (the sum divided by `world_size`), `max` or `min`. The
    result has the input's shape and element type (a floating-point or
    integer type; `avg` needs a floating-point one). The reference
    interpreter combines the ranks in rank order in f64 and rounds once.

    ```mlir
    %r = stride.all_reduce %x sum world_size 2
        : !stride.tensor<4x16xbf16> -> !stride.tensor<4x16xbf16>
    ```
  }];
  let arguments = (ins Stride_NumericTensor:$input,
                       Stride_CollectiveReduction:$reduction,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$world_size);
  let assemblyFormat = [{
    $input $reduction `world_size` $world_size attr-dict `:` type($input)
    `->` type($result)
  }];
}

def Stride_AllGatherOp : Stride_CollectiveOp<"all_gather"> {
  let summary = "concatenate the ranks' tensors along a dim "
                "(`all_gather_into_tensor`)";
  let description = [{
    Every rank contributes `input`; each receives the inputs of ranks
    `0 .. world_size - 1` concatenated along `dim`: the result's `dim` is
    `world_size` times the input's, the other dims and the element type are
    the input's. PyTorch's `all_gather_into_tensor` gathers along dim 0;
    other dims are what a tensor-parallel graph needs (the LM head's
    vocabulary columns).

    ```mlir
    %g = stride.all_gather %x dim 1 world_size 2
        : !stride.tensor<4x8xf32> -> !stride.tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, I64Attr:$dim,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$world_size);
  let assemblyFormat = [{
    $input `dim` $dim `world_size` $world_size attr-dict `:` type($input)
    `->` type($result)
  }];
}

def Stride_ReduceScatterOp : Stride_CollectiveOp<"reduce_scatter"> {
  let summary = "combine across the ranks, then keep this rank's part of a "
                "dim (`reduce_scatter_tensor`)";
  let description = [{
    The `all_reduce` of `input` with `reduction`, split along `dim` into
    `world_size` equal parts, of which rank `r` receives part `r`: the
    input's `dim` is `world_size` times the result's, the other dims and
    the element type are the input's.

    ```mlir
    %s = stride.reduce_scatter %x sum dim 0 world_size 2
        : !stride.tensor<8x16xf32> -> !stride.tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Stride_NumericTensor:$input,
                       Stride_CollectiveReduction:$reduction, I64Attr:$dim,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$world_size);
  let assemblyFormat = [{
    $input $reduction `dim` $dim `world_size` $world_size attr-dict `:`
    type($input) `->` type($result)
  }];
}

#endif // STRIDE_COLLECTIVE_OPS_TD
