//===- ProductPasses.td - Rewrites of matrix products ------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Passes that rewrite stride.matmul ops before stride-matmul-layout decides
// how each runs (included by Passes.td, in pipeline order;
// python-free-docs/matmul.md).
//
//===----------------------------------------------------------------------===//

def MergeSiblingProducts : Pass<"stride-merge-sibling-products",
                                "::mlir::func::FuncOp"> {
  let summary = "Merge products of the same activations with constant "
                "weights into one product over the weights concatenated";
  let description = [{
    A transformer layer multiplies one normed hidden state with several
    weights: the query, key and value projections, the MLP's gate and up
    projections. At one row (a decode step) each product is a stream of
    its weight, and a small one does not fill the GPU. This pass makes
    such siblings one product over their weights concatenated along `N`
    at compile time, and each former product a `stride.slice` view of
    its columns of the merged result, which its readers read in place
    (python-free-docs/matmul.md, "Sibling products").

    Siblings are 2-D `stride.matmul` ops in one block

    - whose `lhs` is one value, or like views of one value (the same view
      op, attributes and type: torch.export gives each linear layer a
      `view` of its own of the shared activations);
    - whose weight (`rhs`) is a dense row-major `stride.constant` `[K, N]`,
      or one `[N, K]` read through `stride.permute dims [1, 0]` (an
      `nn.Linear` weight), read by that product alone, of one `K`,
      element type and form;
    - with the same `epilogue`, and a constant `bias` each (concatenated
      too, read by that product alone) or none;
    - each read only by a `stride.add` of a constant `[N]` bias broadcast
      by `stride.expand` (`F.linear` with a bias, as torch.export writes
      it: BERT's projections), or none read so: the biases are
      concatenated and added once to the merged product (which
      `stride-fuse` then folds into the call), and the slices are of the
      sum;
    - with no decision of `stride-matmul-layout` on them yet, and whose
      results (or sums with the bias), directly or through views, are no
      graph output and no collective's operand (their layouts are fixed:
      a slice would need a copy), and whose views still exist on a slice
      (a `stride.view` that flattens rows of several tokens needs the
      rows consecutive). Over symbolic rows (python-free-docs/
      symbolic-sizes.md) the merged product and its slices have the
      symbolic rows and static columns, and the views that read a
      product are inferred again over the symbols from its slice (LLaMA's
      q, k and v split into heads).

    Left alone: a weight that is a graph input (a training graph's
    parameters: concatenating them would copy every weight at every run),
    a weight another op also reads (it would be stored twice), batched
    products. The module does not grow: the merged constant replaces the
    separate ones. The merged product computes every element as the
    separate ones did, each a sum over the same `K` products; only the
    library's or the kernel's order of summation may differ.

    Runs after `stride-tensor-parallel` (which splits each weight by
    itself) and before `stride-legalize-layouts` (which checks the
    slices' layouts) and the passes that decide how attention and
    products run on those layouts: `stride-matmul-layout` then gives the
    merged product of one row the skinny product kernel, of more rows a
    cuBLASLt call.

    Before (LLaMA's query, key and value projections, types shortened):

    ```mlir
    %wq = stride.constant dense<...> : tensor<4096x4096xbf16> : <4096x4096xbf16>
    %wk = stride.constant dense<...> : tensor<1024x4096xbf16> : <1024x4096xbf16>
    %tq = stride.permute %wq dims [1, 0] : ... -> <4096x4096xbf16, strides = [1, 4096]>
    %xq = stride.view %h : <1x1x4096xbf16> -> <1x4096xbf16>
    %q = stride.matmul %xq, %tq : ... -> <1x4096xbf16>
    %tk = stride.permute %wk dims [1, 0] : ... -> <4096x1024xbf16, strides = [1, 4096]>
    %xk = stride.view %h : <1x1x4096xbf16> -> <1x4096xbf16>
    %k = stride.matmul %xk, %tk : ... -> <1x1024xbf16>
    ```

    After (and likewise the value projection):

    ```mlir
    %w = stride.constant dense<...> : tensor<6144x4096xbf16> : <6144x4096xbf16>
    %t = stride.permute %w dims [1, 0] : ... -> <4096x6144xbf16, strides = [1, 4096]>
    %p = stride.matmul %xq, %t : ... -> <1x6144xbf16>
    %q = stride.slice %p dim 1 start 0 end 4096 step 1
        : ... -> <1x4096xbf16, strides = [6144, 1], offset = 0>
    %k = stride.slice %p dim 1 start 4096 end 5120 step 1
        : ... -> <1x1024xbf16, strides = [6144, 1], offset = 4096>
    ```

    The views of each former product's result are re-inferred on its
    slice.
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def OuterProducts : Pass<"stride-outer-products", "::mlir::func::FuncOp"> {
  let summary = "Products over a contraction of one element become "
                "broadcast multiplies";
  let description = [{
    A `stride.matmul` whose contraction dim `K` is 1 is an outer product:
    element `[b..., i, j]` is `lhs[b..., i, 0] * rhs[b..., 0, j]`, one
    product with nothing to sum. LLaMA-family models compute their rotary
    angles so (transformers' `inv_freq[:, None] @ position_ids[None, :]`,
    a `[b, 64, 1] x [b, 1, tokens]` product): as a library call it is a
    cuBLASLt launch of its own in every step, which a decode step of a
    few microseconds cannot hide. This pass rewrites it into a
    `stride.mul` of the operands broadcast by `stride.expand` (`K`'s dim
    of size 1 expanded to `N` in `lhs`, to `M` in `rhs`), with the
    product's type, which `stride-fuse` then fuses with the angles'
    `cos` and `sin` into one kernel.

    The value is the same: the library multiplies in f32 (f64 for `f64`)
    and rounds once to the result type, and so does an element-wise
    `stride.mul` of `f16`/`bf16` (computed in f32, rounded once). Left
    alone: products with a `bias` or an `epilogue` (`addmm` rounds the
    sum once, a multiply then an add would round twice), products with a
    decision of `stride-matmul-layout` on them. Over symbolic sizes (the
    angles of a symbolic token count) the expands take the result's
    symbolic sizes.

    Runs before `stride-legalize-layouts`, which checks the new views,
    and `stride-matmul-layout`, which then never sees these products.

    ```mlir
    %p = stride.matmul %a, %b : !stride.tensor<1x8x1xf32>,
        !stride.tensor<1x1x4xf32> -> !stride.tensor<1x8x4xf32>
    // becomes
    %ea = stride.expand %a : <1x8x1xf32> -> <1x8x4xf32, strides = [8, 1, 0], offset = 0>
    %eb = stride.expand %b : <1x1x4xf32> -> <1x8x4xf32, strides = [4, 0, 1], offset = 0>
    %p = stride.mul %ea, %eb : ... -> !stride.tensor<1x8x4xf32>
    ```
  }];
}
