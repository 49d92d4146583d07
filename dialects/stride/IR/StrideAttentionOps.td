//===- StrideAttentionOps.td - Attention (library calls) ---*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Scaled dot-product attention and its gradient: library calls like
// stride.matmul (included by StrideOps.td). The semantics, the fallback and
// the fused path are in python-free-docs/attention.md.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_ATTENTION_OPS_TD
#define STRIDE_ATTENTION_OPS_TD

def Stride_F32Tensor : Stride_TensorOf<[F32], "f32 values">;
def Stride_I32Tensor : Stride_TensorOf<[I32], "i32 values">;

def Stride_AttentionOp : Stride_Op<"attention",
    [Pure, Stride_LibraryCall, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention "
                "(`F.scaled_dot_product_attention`), optionally with each "
                "row's logsumexp";
  let description = [{
    `torch.nn.functional.scaled_dot_product_attention(query, key, value,
    attn_mask=mask, is_causal=causal, scale=scale, enable_gqa=True)`
    without dropout. `query` is `[B, Hq, Sq, D]`, `key` `[B, Hkv, Skv, D]`,
    `value` `[B, Hkv, Skv, Dv]` and the result `[B, Hq, Sq, Dv]`, all of one
    element type (`f16`, `bf16`, `f32`, `f64`). `Hkv` divides `Hq`
    (grouped-query attention): query head `h` reads key/value head
    `h / (Hq / Hkv)`. For each batch `b`, query head `h` and query row `i`,
    with `g = h / (Hq / Hkv)`:

    ```
    S[j] = scale * sum_d query[b, h, i, d] * key[b, g, j, d]  (+ mask[b, h, i, j])
    S[j] = -inf  where the boolean mask is false, or causal and j > i,
                 or j >= kv_length[b]
    P[j] = exp(S[j] - max S) / sum_k exp(S[k] - max S)
    result[b, h, i, :] = sum_j P[j] * value[b, g, j, :]
    logsumexp[b, h, i] = log(sum_j exp(S[j]))     (natural log)
    ```

    - `scale` is explicit: the importer writes PyTorch's default
      `1 / sqrt(D)` when the graph gives none.
    - `causal` is aligned to the top left, as PyTorch's `is_causal`: query
      row `i` sees keys `j <= i`, also when `Sq != Skv`.
    - `mask` (optional) is `[B, Hq, Sq, Skv]`, additive in the query's
      element type or boolean (`i1`: true attends, PyTorch's convention). A
      mask shared by heads or rows is a `stride.expand` of a smaller one,
      with stride 0 on the broadcast dims.
    - `kv_length` (optional) is `[B]`, i32: batch `b` attends keys
      `j < kv_length[b]` only, the others are masked out as by a false
      mask. Each value is in `[0, Skv]` (a value outside reads as the
      nearer bound). It is how a decode step over a static KV cache
      states the cache's valid length, so that the split-KV kernel reads
      only that much of the cache (a cuDNN call reads it as a bias):
      `stride-fold-index-masks` makes it from a mask `key index <=
      position` over one query row.
    - A row whose scores are all `-inf` (every key masked out) has `P = 0`:
      its result row is 0 and its logsumexp `-inf`. That is PyTorch's math
      backend since 2.5 (`_safe_softmax`); a plain softmax gives NaN there.
    - The second result, `logsumexp` (`[B, Hq, Sq]`, f32), is optional: a
      training forward keeps it for `stride.attention_backward`.

    The operands may have any layout (head views of one fused QKV
    projection, an expanded key); the result is a fresh buffer, whose
    layout `stride-legalize-layouts` checks like any functional result's.
    The reference interpreter computes in f64 and rounds each result
    element once. The op runs as one fused library call (cuDNN's flash
    attention) that never writes the `Sq x Skv` scores to memory where
    `stride-attention-library` keeps it (marked `stride.keep_fused`: f16
    and bf16, head dims that are multiples of 8 up to 128);
    `stride-decompose-attention` rewrites the others into matrix products
    and a softmax before fusion. See python-free-docs/attention.md.

    ```mlir
    %o, %lse = stride.attention %q, %k, %v mask %m scale 0.125 causal
        : !stride.tensor<2x8x70x64xbf16>, !stride.tensor<2x2x70x64xbf16>,
          !stride.tensor<2x2x70x64xbf16>,
          !stride.tensor<2x8x70x70xi1, strides = [0, 0, 0, 1], offset = 0>
        -> !stride.tensor<2x8x70x64xbf16>, !stride.tensor<2x8x70xf32>
    ```
  }];
  let arguments = (ins Stride_FloatTensor:$query, Stride_FloatTensor:$key,
                       Stride_FloatTensor:$value,
                       Optional<Stride_AnyTensor>:$mask,
                       Optional<Stride_I32Tensor>:$kv_length, F64Attr:$scale,
                       UnitAttr:$causal);
  let results = (outs Stride_FloatTensor:$result,
                      Optional<Stride_F32Tensor>:$logsumexp);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)?
    (`kv_length` `(` $kv_length^ `:` type($kv_length) `)`)? `scale` $scale
    (`causal` $causal^)? attr-dict `:` type($query) `,` type($key) `,`
    type($value) (`,` type($mask)^)? `->` type($result)
    (`,` type($logsumexp)^)?
  }];
  let hasVerifier = 1;
}

def Stride_AttentionBackwardOp : Stride_Op<"attention_backward",
    [Pure, Stride_LibraryCall]> {
  let summary = "the gradient of `stride.attention` with respect to query, "
                "key and value";
  let description = [{
    The backward of `stride.attention` (PyTorch's
    `_scaled_dot_product_*_attention_backward`): `grad_output` is the
    gradient of the forward's result, `output` and `logsumexp` are the
    forward's results, and `query`, `key`, `value`, `mask`, `scale` and
    `causal` are the forward's operands and attributes, with the same
    shape rules. With `S` the forward's scaled, masked scores, `L` the
    logsumexp, `dO` the gradient and `O` the output, for each batch `b`,
    query head `h` (reading key/value head `g`) and row `i`:

    ```
    P[j]  = exp(S[j] - L[b, h, i])           (0 on a row whose L is -inf)
    dP[j] = sum_e dO[b, h, i, e] * value[b, g, j, e]
    dS[j] = P[j] * (dP[j] - sum_e dO[b, h, i, e] * O[b, h, i, e])
    grad_query[b, h, i, :] = scale * sum_j dS[j] * key[b, g, j, :]
    grad_key[b, g, j, :]  += scale * dS[j] * query[b, h, i, :]
    grad_value[b, g, j, :] += P[j] * dO[b, h, i, :]
    ```

    So `grad_key` and `grad_value` have the key's and value's `Hkv` heads:
    each sums the contributions of the `Hq / Hkv` query heads that share
    it. The results are the exact gradient of the forward when `output`
    and `logsumexp` are the forward's (as FlashAttention and cuDNN, the op
    reuses them instead of recomputing the softmax's normalization). The
    mask gets no gradient. Element types: `grad_output`, `output` and the
    three results have the query's, `logsumexp` is f32.

    ```mlir
    %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse
        scale 0.125 causal
        : !stride.tensor<2x8x70x64xbf16>, !stride.tensor<2x8x70x64xbf16>,
          !stride.tensor<2x2x70x64xbf16>, !stride.tensor<2x2x70x64xbf16>,
          !stride.tensor<2x8x70x64xbf16>, !stride.tensor<2x8x70xf32>
        -> !stride.tensor<2x8x70x64xbf16>, !stride.tensor<2x2x70x64xbf16>,
           !stride.tensor<2x2x70x64xbf16>
    ```
  }];
  let arguments = (ins Stride_FloatTensor:$grad_output,
                       Stride_FloatTensor:$query, Stride_FloatTensor:$key,
                       Stride_FloatTensor:$value, Stride_FloatTensor:$output,
                       Stride_F32Tensor:$logsumexp,
                       Optional<Stride_AnyTensor>:$mask, F64Attr:$scale,
                       UnitAttr:$causal);
  let results = (outs Stride_FloatTensor:$grad_query,
                      Stride_FloatTensor:$grad_key,
                      Stride_FloatTensor:$grad_value);
  let assemblyFormat = [{
    $grad_output `,` $query `,` $key `,` $value `,` $output `,` $logsumexp
    (`mask` $mask^)? `scale` $scale (`causal` $causal^)? attr-dict `:`
    type($grad_output) `,` type($query) `,` type($key) `,` type($value) `,`
    type($output) `,` type($logsumexp) (`,` type($mask)^)? `->`
    type($grad_query) `,` type($grad_key) `,` type($grad_value)
  }];
  let hasVerifier = 1;
}

#endif // STRIDE_ATTENTION_OPS_TD
