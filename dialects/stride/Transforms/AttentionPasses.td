//===- AttentionPasses.td - The attention passes ---------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The passes over stride.attention (included by Passes.td, in pipeline
// order): recognizing attention spelled out as ops, folding index masks
// into its flags, the cuDNN choice and the decomposition of what cuDNN
// does not run (python-free-docs/attention.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_ATTENTION_PASSES_TD
#define STRIDE_ATTENTION_PASSES_TD

def RecognizeAttention : Pass<"stride-recognize-attention",
                              "::mlir::func::FuncOp"> {
  let summary = "Rewrite attention spelled out as ops (transformers' eager "
                "attention) into stride.attention";
  let description = [{
    Finds `softmax(scale * Q K^T + mask) V` written as ops, as an imported
    eager attention has it, and replaces it with one `stride.attention`, so
    that `stride-attention-library` can run it as one fused call whose
    `Sq x Skv` scores never reach memory. The pattern is rooted at the
    product with the value and reads back:

    - the softmax over the last dim as the importer expands `_softmax`
      (`max`, `sub`, `exp`, `sum`, `div`), optionally between float casts
      (an f32 softmax of bf16 scores, cast back);
    - an additive mask (`stride.add`) that is provably finite: a bound on
      every element's magnitude, from constants through views, broadcasts,
      `stride.where` (transformers' `where(keep, 0, min)`), the rows
      `stride.index_select` or `stride.gather` take of a constant table
      (T5's relative position bias) and sums that cannot round to an
      infinity; two such masks added one after the other (T5 as exported:
      `(scores + bias) + padding`), when the second is a `where` of 0 and
      a fill below `-2^127`, which adds the same to `scores + bias` as to
      `bias`: the op's mask is then `bias + padding`; or a `stride.where`
      of the scores with a constant fill below `-2^127` (f32's and bf16's
      lowest value), which becomes the additive mask `where(keep, 0,
      fill)`;
    - a scale: `stride.mul` or `stride.div` by a constant, of the scores or
      of the query before the product;
    - the product of query and key (`stride.matmul`, through the views and
      copies `torch.matmul` adds); the key is the product's rhs before a
      transpose of its last two dims, or that rhs transposed here; a key
      and value repeated over query heads by unsqueeze, expand and reshape
      (LLaMA's `repeat_kv`) are read with their own heads (grouped-query
      attention).

    Every value between the two products must have no other use. A mask
    that could hold `-inf` on a whole row (eagerly a NaN row, in the op a
    zero row), or a fill that does not absorb the scores (f16's lowest,
    `-inf`), is left as ops: the rewrite changes no result beyond rounding
    (python-free-docs/attention.md, "Attention spelled out as ops"). The
    mask stays an operand; the compiler library folds a constant causal
    one into the op's `causal` flag afterwards. Runs first in the default
    pipeline (`recognize-attention=false` turns it off).

    The pass also reads through `repeat_kv` in front of an existing
    `stride.attention` (an imported SDPA call that transformers gave a
    mask, so that it repeated the key and value over the query heads
    itself): the op takes the tensors before the repeat as grouped-query
    attention, and the repeated copy (in a decode step, the whole KV cache
    times the group size) is never made.

    Before (types shortened):

    ```mlir
    %kt = stride.permute %k dims [0, 1, 3, 2] : ... -> <1x2x16x8xf32, ...>
    %s0 = stride.matmul %q, %kt : ... -> <1x2x8x8xf32>
    %s = stride.mul %s0, %c : ...                 // %c: 0.25 broadcast
    %x = stride.add %s, %m : ...                  // %m: where(keep, 0, min)
    %mx = stride.max %x dims [3] keepdim : ...
    ... sub, exp, sum, div: %p
    %o = stride.matmul %p, %v : ... -> <1x2x8x16xf32>
    ```

    After:

    ```mlir
    %o = stride.attention %q, %k, %v mask %m scale 2.500000e-01 : ...
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def PairTrainingAttention : Pass<"stride-pair-training-attention",
                                 "::mlir::ModuleOp"> {
  let summary = "Fuse attention spelled out as ops across a training step's "
                "forward and backward graphs";
  let description = [{
    Runs on a module that holds one training step as two functions,
    `forward` and `backward` (AOTAutograd's graphs, as `stridec
    forward.pt2 --backward=backward.pt2` imports them): the forward's
    results that the backward reads (the saved tensors) are the backward's
    arguments of the same `stride.name`.

    Eager attention in such a forward cannot become one `stride.attention`
    on its own (stride-recognize-attention refuses it): the forward returns
    the probabilities `P = softmax(scale * Q K^T + mask)` for the backward,
    whose `_softmax_backward_data` reads them. This pass rewrites both
    functions together, where it finds in the forward

    - the two products and the softmax that stride-recognize-attention
      reads (the same scale and mask rules), whose only other uses are
      returns of `P`, of reshapes of it, or of a transpose of either (what
      AOTAutograd's min-cut partition saves for `dV = P^T dO`), and

    in the backward, reading the arguments those returns became,

    - `dV = P^T dO` and `dP = dO V^T` (batched products of one `dO`),
    - the softmax's backward `dX = P * dP - P * sum(P * dP)` over the last
      dim, as the importer expands `_softmax_backward_data` (between float
      casts: PyTorch computes a bf16 gradient in f32),
    - `dX` scaled by the forward's scale (or by nothing where the forward's
      scale is 1), then `dQ = dX K` and `dK^T = Q^T dX`, whose `Q`, `K^T`
      and `V` are the forward's product operands (arguments named as the
      forward's results that hold them, as they are or transposed).

    The forward's products become one `stride.attention` of the product
    operands (viewed as `[B, H, S, D]`) that also returns each row's
    logsumexp; the backward's products and softmax backward become one
    `stride.attention_backward`. The forward stops returning `P`, its
    reshapes and their transposes, and returns instead, for each pair, the logsumexp, the
    attention's result and its mask (before any broadcast), named
    `<P's name>_logsumexp`, `_output` and `_mask`; the backward takes them
    as arguments of those names in place of `P`'s. Neither function then
    writes or reads a `tokens x tokens` tensor for the pair. Where any part
    is missing (dropout between the softmax and the product, the scores
    themselves saved, a softmax the backward recomputes, a result or
    argument name given twice), both functions keep that attention as ops. See python-free-docs/attention.md,
    "Training graphs spelled out".
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def FoldIndexMasks : Pass<"stride-fold-index-masks", "::mlir::func::FuncOp"> {
  let summary = "Boolean attention masks built from index arithmetic become "
                "the causal flag or a valid key count";
  let description = [{
    A model builds its attention mask from `arange`s, a position and
    comparisons. Where the reference interpreter cannot evaluate it at
    compile time (symbolic sizes; a decode step's position, an input), this
    pass reads it from its ops (`dialects/stride/Analysis/IndexForms.h`:
    integer tensors as affine functions of their coordinates and of one
    scalar read at run time, booleans as comparisons of them), for every
    size and every value of the inputs. A boolean mask of `stride.attention`
    or `stride.attention_backward` over `[b, h, i, j]` that is

    - true everywhere (transformers' packed-sequence test of positions
      that are an `arange`, and-ed in) is dropped;
    - `j <= i` (over symbolic query and key counts too) becomes the op's
      `causal` flag;
    - `j + c <= s` over one query row, `s` an integer with one element
      read at run time (a decode step's cache position) and `c` a
      constant, becomes the forward's `kv_length`: `clamp(s - c + 1, 0,
      Skv)` as i32 per batch, computed once for the layers that share the
      position. The split-KV kernel then reads only the valid part of a
      static KV cache; `stride-attention-library` gives a cuDNN call the
      count back as a bias (python-free-docs/attention.md, "Masks read
      from their ops"). Over symbolic sizes the mask stays.

    Any other mask stays. Runs in the default pipeline after
    `stride-recognize-attention`, before the library decides how each
    attention runs.

    ```mlir
    %le = stride.cmp le, %keys, %position : ... -> <1x1x1x4096xi1, ...>
    %m = stride.expand %le : ... -> <1x32x1x4096xi1, strides = [4096, 0, 4096, 1], offset = 0>
    %o = stride.attention %q, %k, %v mask %m scale 0.0883 : ...
    // becomes
    %n = ... clamp(position + 1, 0, 4096) as i32 : <1xi32>
    %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<1xi32>) scale 0.0883 : ...
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def AttentionLibrary : Pass<"stride-attention-library", "::mlir::func::FuncOp"> {
  let summary = "keep the attention ops a library takes fused, in the "
                "layout it reads, and mark the decode steps it does not take "
                "for the split-KV kernel";
  let description = [{
    Chooses, for each `stride.attention` and `stride.attention_backward`,
    whether it runs as one fused library call (`library=cudnn`: cuDNN's
    flash attention, python-free-docs/attention.md) or is left to
    `stride-decompose-attention`, and prepares the ones it keeps:

    - cuDNN takes f16 and bf16, head dims (`D`, `Dv`) that are multiples of
      8 up to 128, and any causal flag, GQA and mask; everything else is
      decomposed (with `library=none`, every op is).
    - An operand whose rows are not contiguous (`stride[3] != 1`), or whose
      strides or offset are not multiples of 16 bytes, is copied into a
      dense tensor first (`stride.clone`); a head view of a fused QKV
      projection is read in place. The backward reads the row statistics
      (the logsumexp) dense from element 0, so other layouts are copied.
    - Results: cuDNN writes an output or gradient through its strides
      where they suit it (as operands above); otherwise, and always for
      the forward's statistics (dense, as PyTorch's CUDA kernels return
      them, while its CPU flash attention returns them heads-innermost),
      the op gets a dense result and a `stride.clone` after it gives the
      other uses the layout the graph declared.
    - The mask becomes cuDNN's additive bias: the mask's broadcast dims
      (stride 0) are sliced to size 1, that small tensor is turned into
      the query's element type (a boolean mask into 0 and `-inf` with
      `stride.where`, a float one copied only where its layout needs it),
      and expanded back, so the bias cuDNN reads broadcasts over batch,
      heads and query rows without a `Sq x Skv` tensor per head in memory
      (for the backward the runtime gives cuDNN the query rows at full
      size with stride 0, as PyTorch does: a rows' dim of size 1 gave
      cuDNN's backward a wrong dQ).
    - A boolean mask of static sizes may hide every key of a row: the op
      computes such a row as 0 with a logsumexp of `-inf`, cuDNN as its
      softmax of a row of `-inf`, NaN. Which rows attend a key is reduced
      from the same small tensor (`stride.any` over its keys, after
      `stride.and` with the causal order where the op is causal; for a
      padding mask shared by the rows and the causal flag, whether the
      first key it keeps, a `stride.min` over B x Skv, is at most the
      row's index), and a
      `stride.where` after the forward call writes 0 (and `-inf`) on the
      other rows; the backward call reads a logsumexp of `+inf` there,
      so that their weights `exp(S - L)` are 0. A kv_length (a decode
      step's, at least 1 in practice) gets no such pass.
    - Each op kept is marked `stride.keep_fused`; the plan lowers it to a
      `cudnn.sdpa_forward` or `cudnn.sdpa_backward` library call.
    - Over symbolic batch and token counts the same holds for every value
      of the symbols: a stride or offset is a multiple of 16 bytes where
      each coefficient of its expression is, copies and the bias are
      dense over the symbolic sizes, and the split-KV kernel (static
      bounds) is never chosen.

    A forward op that cuDNN does not take (f32, other head dims,
    `library=none`) with few query rows per key/value head (at most 4
    query rows, and at most 16 rows counting the query heads that share a
    key/value head: a decode step), head dims up to 256 and no logsumexp
    result is marked `stride.split_kv` (option `split-kv`, on by default):
    it runs as Stride's split-KV kernel (python-free-docs/attention.md,
    "Decode attention") instead of being decomposed around a copy of the
    key and value per query head. A decode step that both take runs as
    option `decode-attention` says: `library` (cuDNN), `staged` or
    `split-kv` (Stride's kernel, whose schedule then takes the staged
    or the split-KV scheme: CudaTargetOptions::stagedKvAttention,
    the compiler sets it for `staged`), or `auto` (the default): cuDNN,
    but for a step the staged kernel takes (`stagedDecodeTakes`) whose
    valid key count is read from an input (`validLengthInput`:
    transformers' `cache_position`), which gets both, chosen at run time
    by the input's value (python-free-docs/attention.md, "Chosen at run
    time by the position"): the op's clone marked `stride.split_kv` and
    `stride.staged_kv` in a `stride.kernel` guarded `when` the count is
    at most option `staged-keys` (0: never), the op prepared for cuDNN
    otherwise, a `stride.select_variant` between the two, and the input
    marked `stride.binds` to a symbol named after it (declared in
    `stride.symbols`, the range of positions whose count is 1 to the
    cache's keys). On an H200 the staged kernel's batch-1 step was
    faster than cuDNN's at position 1024 and slower at 4000, where
    cuDNN's time does not depend on the position (bench/NOTES.md
    sections 81 and 85).

    Runs after `stride-legalize-layouts` and before
    `stride-decompose-attention` in the default pipeline.

    Before:

    ```mlir
    %o = stride.attention %q, %k, %v mask %m scale 0.125
        : !stride.tensor<2x4x64x64xbf16>, ..., !stride.tensor<2x4x64x64xi1,
          strides = [64, 0, 0, 1], offset = 0> -> !stride.tensor<2x4x64x64xbf16>
    ```

    After:

    ```mlir
    %s = stride.slice %m dim 1 start 0 end 1 step 1 : ...
    %s2 = stride.slice %s dim 2 start 0 end 1 step 1 : ... -> <2x1x1x64xi1, ...>
    %any = stride.any %s2 dims [3] keepdim : ... -> <2x1x1x1xi1, ...>
    %rows = stride.expand %any : ... -> <2x1x64x1xi1, ...>
    %bias = stride.where %s2, %zeros, %ninf : ... -> <2x1x1x64xbf16>
    %e = stride.expand %bias : ... -> <2x4x64x64xbf16, strides = [64, 0, 0, 1]>
    %r = stride.attention %q, %k, %v mask %e scale 0.125 {stride.keep_fused} : ...
    %kept = stride.expand %rows : ... -> <2x4x64x64xi1, ...>
    %o = stride.where %kept, %r, %zero : ...
    ```
  }];
  let options = [
    Option<"library", "library", "std::string", "\"cudnn\"",
           "The library that runs fused attention: cudnn, or none (no "
           "library: decode steps as the split-KV kernel with split-kv, "
           "every other attention op decomposed)">,
    Option<"splitKv", "split-kv", "bool", "true",
           "Run attention ops with few query rows (decode steps) as the "
           "split-KV kernel">,
    Option<"decodeAttention", "decode-attention", "std::string", "\"auto\"",
           "How decode steps that both cuDNN and Stride's kernel take run: "
           "auto (cuDNN, and the staged kernel up to staged-keys valid "
           "keys where the count is read from an input, chosen at run "
           "time), staged or split-kv (Stride's kernel), or library "
           "(cuDNN)">,
    Option<"stagedKeys", "staged-keys", "int64_t", "2048",
           "With decode-attention=auto: the most valid keys at which a "
           "decode step whose count is read from an input runs the staged "
           "kernel instead of cuDNN (0: cuDNN always)">
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}

def DecomposeAttention : Pass<"stride-decompose-attention",
                              "::mlir::func::FuncOp"> {
  let summary = "Rewrite attention ops into matrix products and a softmax "
                "(the fallback of the fused library call)";
  let description = [{
    `stride.attention` and `stride.attention_backward` are meant to run as
    one fused library call (cuDNN) that never writes the `Sq x Skv` scores
    to memory. Where that call is not taken (f32 and f64, or no GPU library
    chosen), this pass rewrites each op into ops Stride already compiles,
    so that every graph with attention compiles; fusion then groups them
    into kernels around the products.

    - The scores are one batched `stride.matmul` of the query, viewed as
      `[B, Hkv, G, Sq, D]` (`G = Hq / Hkv`), with the key, broadcast over
      the `G` query heads of a group by a `stride.expand` (stride 0) and
      transposed by a `stride.permute`; a `stride.mul` applies `scale`.
    - An additive mask is a `stride.add`; a boolean mask and `causal`
      (`stride.iota` rows and columns, `stride.cmp le`) a `stride.where`
      that writes `-inf`.
    - The softmax is `max`, `sub`, `exp`, `sum` and the division by the
      sum, before the product with the value (another product), so that
      fusion makes the five one kernel that reads the scores once. A row
      whose max is `-inf` (every key masked) subtracts 0 and divides by 1
      instead, so its result is 0 and its logsumexp, `max + log(sum)`, is
      `-inf`.
    - The backward computes `P = exp(S - logsumexp)` (a `-inf` logsumexp
      replaced by `+inf`, so such a row has `P = 0`), `dP = dO V^T`,
      `dS = scale * P * (dP - rowsum(dO * O))`, and `dQ = dS K`,
      `dK = dS^T Q`, `dV = P^T dO`; `dK` and `dV` are summed over the `G`
      query heads of each group (`stride.sum`).
    - f16 and bf16 are computed in f32 (`stride.cast` of the operands, and
      of the results back), f32 in f32, f64 in f64; the f32 logsumexp is
      cast from f64 for f64.

    An op carrying the discardable unit attribute `stride.keep_fused`
    (`StrideDialect::kKeepFusedAttrName`) or `stride.split_kv`
    (`kSplitKvAttrName`) is left alone: stride-attention-library marks an
    op so when it runs as the fused cuDNN call or as the split-KV kernel.
    An op over symbolic sizes that is not kept fused is refused at the op
    (its products would contract over a symbolic key count, which
    cuBLASLt's products over symbolic sizes do not take yet), with a note
    giving its element type and head dims. Runs after
    `stride-legalize-layouts` and before `stride-matmul-layout` and
    `stride-fuse` in the default pipeline.

    Before:

    ```mlir
    %o = stride.attention %q, %k, %v scale 0.5 causal
        : !stride.tensor<1x4x8x16xf32>, !stride.tensor<1x2x8x16xf32>,
          !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x4x8x16xf32>
    ```

    After (types shortened):

    ```mlir
    %qg = stride.view %q : ... -> <1x2x2x8x16xf32>
    %ku = stride.unsqueeze %k dim 2 : ... -> <1x2x1x8x16xf32>
    %ke = stride.expand %ku : ... -> <1x2x2x8x16xf32, strides = [256, 128, 0, 16, 1]>
    %kt = stride.permute %ke dims [0, 1, 2, 4, 3] : ... -> <1x2x2x16x8xf32, ...>
    %qk = stride.matmul %qg, %kt : ... -> <1x2x2x8x8xf32>
    %s0 = stride.view %qk : ... -> <1x4x8x8xf32>
    %s1 = stride.mul %s0, %scale : ...           // %scale: stride.full 0.5
    %rows = stride.iota dim 0 : <8x8xi64>
    %cols = stride.iota dim 1 : <8x8xi64>
    %seen = stride.cmp le, %cols, %rows : ... -> <8x8xi1>
    %s = stride.where %seen4, %s1, %ninf : ...  // %seen4: %seen expanded
    %m = stride.max %s dims [3] keepdim : ... -> <1x4x8x1xf32>
    ... exp(%s - max), sum, matmul with the expanded value, div
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

#endif // STRIDE_ATTENTION_PASSES_TD
