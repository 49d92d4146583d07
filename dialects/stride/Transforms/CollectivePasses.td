//===- CollectivePasses.td - Several ranks -------------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The passes for programs that run on several ranks (included by
// Passes.td, in pipeline order; python-free-docs/distributed.md): the
// tensor-parallel split, data parallelism's gradient buckets, the
// row-parallel products in chunks, and the collectives' contiguous blocks.
//
//===----------------------------------------------------------------------===//

def TensorParallel : Pass<"stride-tensor-parallel", "::mlir::func::FuncOp"> {
  let summary = "Split a graph for tensor parallelism (Megatron-style) and "
                "keep one rank's program";
  let description = [{
    Splits an unsplit transformer graph across `world-size` ranks and keeps
    rank `rank`'s program: the same graph on every rank, each holding its
    part of the weights (stride.constants sliced at compile time), with
    collectives where the ranks combine their parts. Recognized from the
    graph (python-free-docs/distributed.md has the rules):

    - **column-parallel** products (each rank computes its columns): the
      query, key and value projections (the products whose results reach a
      `stride.attention`'s operands through views and element-wise ops,
      RoPE included), the MLP's gate and up projections (the products that
      feed, through element-wise ops, another product: `down(act(gate(x)) *
      up(x))`), and the LM head (a product whose result is returned
      through views only);
    - attention heads split across the ranks, grouped-query key/value heads
      too (both head counts must be multiples of the world size);
    - **row-parallel** products (a product whose lhs is split along its
      contracted dim: the output and down projections) followed by a
      `stride.all_reduce sum`;
    - the embedding (`stride.index_select` of a constant table) split along
      its hidden dim, followed by a `stride.all_gather`;
    - a split value returned by the function is all-gathered, so every
      rank returns the unsplit results (the LM head's logits are gathered
      before an op that reduces over the vocabulary, such as the next
      token's argmax, which reads the same gathered value);
    - a state argument (a KV cache) into which an index scatter writes a
      value split along another dim than the one it writes along (the key
      or value projection's heads) is split along that dim: its type and
      its `stride.state` initial value become the rank's block, and so
      does the result that writes it back.

    A split value reaching an op the pass cannot split along that dim (a
    reduction over it, a slice of it, a fused QKV product's slices) is an
    error at that op, with a note at the product the split came from.

    ```mlir
    // before (world-size=2 rank=1)
    %q = stride.matmul %x, %wq : !stride.tensor<4x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<4x8xf32>
    // after: rank 1's columns 4..7 of the weight
    %q = stride.matmul %x, %wq1 : !stride.tensor<4x8xf32>, !stride.tensor<8x4xf32> -> !stride.tensor<4x4xf32>
    ...
    %o = stride.matmul %a, %wo1 : !stride.tensor<4x4xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    %r = stride.all_reduce %o sum world_size 2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    // a cache of 2 key/value heads: before
    %k = stride.scatter %cache, %pos, %knew dim 2 : !stride.tensor<1x2x96x16xf32>, ... -> !stride.tensor<1x2x96x16xf32>
    // after: rank 1's head (the argument's type and initial value too)
    %k = stride.scatter %cache, %pos1, %knew dim 2 : !stride.tensor<1x1x96x16xf32>, ... -> !stride.tensor<1x1x96x16xf32>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"worldSize", "world-size", "int64_t", /*default=*/"1",
           "The number of ranks to split the graph across (1: no split)">,
    Option<"rank", "rank", "int64_t", /*default=*/"0",
           "The rank whose program to keep, in [0, world-size)">,
  ];
}

def DataParallel : Pass<"stride-data-parallel", "::mlir::func::FuncOp"> {
  let summary = "Average a backward graph's gradients across data-parallel "
                "ranks, in buckets placed as soon as they are complete";
  let description = [{
    Data parallelism as PyTorch's DistributedDataParallel does it: every
    rank runs the same backward graph on its shard of the batch, and the
    gradients are averaged across the `world-size` ranks, so that each rank
    holds the gradient of the mean loss over the whole batch (each rank's
    loss being the mean over its equal shard).

    The gradients are the function's floating-point results (but those that
    write an argument back, `stride.writes`). In the order they are
    complete (the position of the op that computes each), they are put into
    buckets of one element type, each closed when it holds at least
    `bucket-bytes` bytes (DDP's default is 25 MiB). Each bucket becomes one
    `stride.all_reduce avg` placed right after the op that completes its
    last gradient, so that NCCL averages it while the rest of the backward
    runs: a bucket of one gradient reduces it as it is; a larger one
    reduces the concatenation of its gradients flattened (`stride.cat`),
    and each result is a copy (`stride.clone`) of its slice, viewed at its
    shape, placed at the end of the function (before its `return`): the
    averaged gradients are only returned, so no op reads a bucket's result
    before the rest of the backward has run, and the plan can run the
    all-reduce beside it (`stride-overlap-collectives`).

    ```mlir
    // before (world-size=2, two gradients in one bucket)
    %dw = stride.matmul ... -> !stride.tensor<8x4xf32>
    %db = stride.sum ... -> !stride.tensor<4xf32>
    return %dw, %db
    // after
    %f = stride.view %dw : ... -> !stride.tensor<32xf32>
    %c = stride.cat %f, %db dim 0 : ... -> !stride.tensor<36xf32>
    %r = stride.all_reduce %c avg world_size 2 : ... -> !stride.tensor<36xf32>
    %s0 = stride.slice %r dim 0 start 0 end 32 step 1 : ...
    %v0 = stride.view %s0 : ... -> !stride.tensor<8x4xf32>
    %dw2 = stride.clone %v0 : ... -> !stride.tensor<8x4xf32>
    %s1 = stride.slice %r dim 0 start 32 end 36 step 1 : ...
    %db2 = stride.clone %s1 : ... -> !stride.tensor<4xf32>
    return %dw2, %db2
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"worldSize", "world-size", "int64_t", /*default=*/"1",
           "The number of data-parallel ranks (1: nothing to average)">,
    Option<"bucketBytes", "bucket-bytes", "int64_t",
           /*default=*/"26214400",
           "Close a bucket of gradients once it holds this many bytes "
           "(default 25 MiB, as DDP's bucket_cap_mb)">,
  ];
}

def ChunkCollectives : Pass<"stride-chunk-collectives",
                             "::mlir::func::FuncOp"> {
  let summary = "Split a product all-reduced across the ranks into chunks "
                "of rows, so each chunk's all-reduce runs beside the next "
                "chunk's product";
  let description = [{
    A row-parallel product of a tensor-parallel program (the attention's
    output projection, the MLP's down projection) is followed by a
    `stride.all_reduce`, and the residual add after it waits for both: on
    two H200s the prefill of a LLaMA-8B-class model at 4,096 tokens spent
    about 1.9 of its 8.9 ms a rank in its 8 all-reduces of 32 MiB, one
    after the other with the products (bench/NOTES.md section 52).

    This pass splits such a product along its rows into `chunks` products
    (`stride.slice`s of the lhs, each the same product over its rows) and
    all-reduces each chunk's result on its own; a `stride.cat` of the
    chunks' results replaces the all-reduce's (fusion merges it into its
    readers, the residual add). The values are the same: each row's
    product is computed as before, and an all-reduce combines the ranks
    element by element. `stride-overlap-collectives` then runs chunk `i`'s
    all-reduce on the collective stream while chunk `i + 1`'s product runs.

    It takes a 2-D `stride.matmul` without bias or epilogue whose only
    reader is the all-reduce, with at least `min-rows` rows (a decode
    step's few rows gain nothing and pay a launch per chunk); chunks are
    equal but for the last, which takes the rest. `chunks = 1` turns the
    pass off. The pipeline runs it on programs split by
    `stride-tensor-parallel` (`stridec --tensor-parallel=N`, with
    `--collective-chunks=N`, default 2), not on data parallelism's
    gradient buckets, which overlap the backward already.

    ```mlir
    // before (chunks=2 min-rows=4)
    %p = stride.matmul %x, %w : !stride.tensor<8x4xf32>, !stride.tensor<4x16xf32> -> !stride.tensor<8x16xf32>
    %r = stride.all_reduce %p sum world_size 2 : !stride.tensor<8x16xf32> -> !stride.tensor<8x16xf32>
    // after
    %x0 = stride.slice %x dim 0 start 0 end 4 step 1 : ... -> !stride.tensor<4x4xf32>
    %p0 = stride.matmul %x0, %w : ... -> !stride.tensor<4x16xf32>
    %r0 = stride.all_reduce %p0 sum world_size 2 : ...
    %x1 = stride.slice %x dim 0 start 4 end 8 step 1 : ... -> !stride.tensor<4x4xf32, strides = [4, 1], offset = 16>
    %p1 = stride.matmul %x1, %w : ... -> !stride.tensor<4x16xf32>
    %r1 = stride.all_reduce %p1 sum world_size 2 : ...
    %r = stride.cat %r0, %r1 dim 0 : ... -> !stride.tensor<8x16xf32>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"chunks", "chunks", "int64_t", /*default=*/"2",
           "Split each all-reduced product into this many chunks of rows "
           "(1: no split)">,
    Option<"minRows", "min-rows", "int64_t", /*default=*/"1024",
           "Split only products of at least this many rows">,
  ];
}

def PrepareCollectives : Pass<"stride-prepare-collectives",
                              "::mlir::func::FuncOp"> {
  let summary = "Give each collective the contiguous blocks NCCL exchanges";
  let description = [{
    NCCL reads and writes contiguous elements, and an all_gather or
    reduce_scatter exchanges the ranks' blocks one after the other. This
    pass rewrites each collective whose input or result is not row-major
    contiguous, or that gathers or scatters along a dim inside outer dims of
    more than one element (the tensor-parallel LM head's vocabulary
    columns, the embedding's hidden dim), into one that NCCL runs as it
    is: the input permuted so that the dim comes first and copied
    row-major (`stride.clone`), the collective along dim 0, and the result
    permuted back and copied into the op's result type. A permute of the
    ranks' concatenation is the concatenation of their permutes, so the
    values are the op's (the reference interpreter runs both).

    ```mlir
    // before
    %g = stride.all_gather %x dim 1 world_size 2
        : !stride.tensor<4x8xf32> -> !stride.tensor<4x16xf32>
    // after
    %p = stride.permute %x dims [1, 0] : ... -> !stride.tensor<8x4xf32, strides = [1, 8]>
    %c = stride.clone %p : ... -> !stride.tensor<8x4xf32>
    %a = stride.all_gather %c dim 0 world_size 2
        : !stride.tensor<8x4xf32> -> !stride.tensor<16x4xf32>
    %b = stride.permute %a dims [1, 0] : ... -> !stride.tensor<4x16xf32, strides = [1, 4]>
    %g = stride.clone %b : ... -> !stride.tensor<4x16xf32>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}
