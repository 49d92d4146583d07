// The backend builds pointwise ops, views, gathers, concatenations,
// reductions, scans, products over symbolic rows and attention over
// symbolic batch and token counts over symbolic sizes
// (python-free-docs/symbolic-sizes.md); anything else over them stops at
// stride-check-symbolic-sizes, the first pass of the pipeline, with one
// located error naming the op and what is not built; a static graph, and a
// symbolic one the backend builds, pass unchanged.
// RUN: stride-opt %s -split-input-file -verify-diagnostics --stride-check-symbolic-sizes
// (test/Emu/symbolic-sizes.test and symbolic-reductions.test compile and
// run such graphs; the first shows the reference interpreter's refusal.)

// Pointwise ops and views of the inputs: built.
func.func @pointwise(%x: !stride.tensor<[batch, 768], f32> {stride.name = "x"},
                     %b: !stride.tensor<1x768xf32>) -> !stride.tensor<[batch, 768], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>]} {
  %e = stride.expand %b : !stride.tensor<1x768xf32> -> !stride.tensor<[batch, 768], f32, strides = [0, 1]>
  %y = stride.add %x, %e : !stride.tensor<[batch, 768], f32>, !stride.tensor<[batch, 768], f32, strides = [0, 1]> -> !stride.tensor<[batch, 768], f32>
  %r = stride.relu %y : !stride.tensor<[batch, 768], f32> -> !stride.tensor<[batch, 768], f32>
  return %r : !stride.tensor<[batch, 768], f32>
}

// -----

// A constant broadcast over symbolic rows (an exported bias): built.
func.func @constant_bias(%x: !stride.tensor<[rows, 4], f32>) -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  %c = stride.constant dense<[0.5, -1.5, 2.0, 3.25]> : tensor<4xf32> : !stride.tensor<4xf32>
  %e = stride.expand %c : !stride.tensor<4xf32> -> !stride.tensor<[rows, 4], f32, strides = [0, 1]>
  %y = stride.mul %x, %e : !stride.tensor<[rows, 4], f32>, !stride.tensor<[rows, 4], f32, strides = [0, 1]> -> !stride.tensor<[rows, 4], f32>
  return %y : !stride.tensor<[rows, 4], f32>
}

// -----

// Products over symbolic rows, and over a symbolic leading batch dim, with
// static strides: built (cuBLASLt calls whose descriptors the runtime
// evaluates per shape).
func.func @products(%x: !stride.tensor<[rows, 64], f32>, %w: !stride.tensor<64x256xf32>,
                    %a: !stride.tensor<[batch, 8, 64], f32>, %b: !stride.tensor<[batch, 64, 16], f32>)
    -> (!stride.tensor<[rows, 256], f32>, !stride.tensor<[batch, 8, 16], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>,
                                  #stride.symbol<"batch", range = [1, 64]>]} {
  %y = stride.matmul %x, %w : !stride.tensor<[rows, 64], f32>, !stride.tensor<64x256xf32> -> !stride.tensor<[rows, 256], f32>
  %z = stride.matmul %a, %b : !stride.tensor<[batch, 8, 64], f32>, !stride.tensor<[batch, 64, 16], f32> -> !stride.tensor<[batch, 8, 16], f32>
  return %y, %z : !stride.tensor<[rows, 256], f32>, !stride.tensor<[batch, 8, 16], f32>
}

// -----

// A symbolic contraction: at the product.
func.func @contraction(%x: !stride.tensor<[4, k], f32>, %w: !stride.tensor<[k, 8], f32>) -> !stride.tensor<4x8xf32>
    attributes {stride.symbols = [#stride.symbol<"k", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.matmul' over the symbolic size 'k' (1 to 64) is not built yet: Stride compiles symbolic sizes for pointwise ops, views, gathers, concatenations, reductions, scans, products over symbolic rows and attention over symbolic batch and token counts, not yet for products over a symbolic contraction or column count (cuBLASLt is called over symbolic rows and a symbolic leading batch dim only) (issue 44)}}
  %y = stride.matmul %x, %w : !stride.tensor<[4, k], f32>, !stride.tensor<[k, 8], f32> -> !stride.tensor<4x8xf32>
  return %y : !stride.tensor<4x8xf32>
}

// -----

// Symbolic rows of batched matrices: the batch strides are symbolic.
func.func @batched_rows(%a: !stride.tensor<[2, seq, 64], f32>, %b: !stride.tensor<2x64x16xf32>) -> !stride.tensor<[2, seq, 16], f32>
    attributes {stride.symbols = [#stride.symbol<"seq", range = [1, 128]>]} {
  // expected-error @+1 {{'stride.matmul' over the symbolic size 'seq' (1 to 128) is not built yet: Stride compiles symbolic sizes for pointwise ops, views, gathers, concatenations, reductions, scans, products over symbolic rows and attention over symbolic batch and token counts, not yet for products whose operands or result have symbolic strides or offsets (cuBLASLt reads them at one leading dimension and batch stride for the whole range) (issue 44)}}
  %y = stride.matmul %a, %b : !stride.tensor<[2, seq, 64], f32>, !stride.tensor<2x64x16xf32> -> !stride.tensor<[2, seq, 16], f32>
  return %y : !stride.tensor<[2, seq, 16], f32>
}

// -----

// A symbolic batch dim after the first.
func.func @inner_batch(%a: !stride.tensor<[2, heads, 8, 64], f32>, %b: !stride.tensor<[2, heads, 64, 16], f32>) -> !stride.tensor<[2, heads, 8, 16], f32>
    attributes {stride.symbols = [#stride.symbol<"heads", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.matmul' over the symbolic size 'heads' (1 to 64) is not built yet: Stride compiles symbolic sizes for pointwise ops, views, gathers, concatenations, reductions, scans, products over symbolic rows and attention over symbolic batch and token counts, not yet for products over a symbolic batch dim other than the first (issue 44)}}
  %y = stride.matmul %a, %b : !stride.tensor<[2, heads, 8, 64], f32>, !stride.tensor<[2, heads, 64, 16], f32> -> !stride.tensor<[2, heads, 8, 16], f32>
  return %y : !stride.tensor<[2, heads, 8, 16], f32>
}

// -----

// Attention over a symbolic batch and token counts: built (one cuDNN call
// whose graph the runtime builds per shape; stride-decompose-attention
// refuses an op cuDNN does not take, decompose-attention-symbolic.mlir).
func.func @attention(%q: !stride.tensor<[batch, 4, seq, 32], f16>, %k: !stride.tensor<[batch, 4, seq, 32], f16>, %v: !stride.tensor<[batch, 4, seq, 32], f16>) -> !stride.tensor<[batch, 4, seq, 32], f16>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 8]>, #stride.symbol<"seq", range = [1, 512]>]} {
  %o = stride.attention %q, %k, %v scale 0.25 causal : !stride.tensor<[batch, 4, seq, 32], f16>, !stride.tensor<[batch, 4, seq, 32], f16>, !stride.tensor<[batch, 4, seq, 32], f16> -> !stride.tensor<[batch, 4, seq, 32], f16>
  return %o : !stride.tensor<[batch, 4, seq, 32], f16>
}

// -----

// Over a symbolic head dim it is not: at the op.
func.func @attention_head_dim(%q: !stride.tensor<[batch, 4, 16, d], f16>, %k: !stride.tensor<[batch, 4, 16, d], f16>, %v: !stride.tensor<[batch, 4, 16, 32], f16>) -> !stride.tensor<[batch, 4, 16, 32], f16>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 8]>, #stride.symbol<"d", range = [8, 64], multiple_of = 8>]} {
  // expected-error @+1 {{'stride.attention' over the symbolic size 'batch' (1 to 8) is not built yet: Stride compiles symbolic sizes for pointwise ops, views, gathers, concatenations, reductions, scans, products over symbolic rows and attention over symbolic batch and token counts, not yet for attention over a symbolic head dim (cuDNN's graph per shape takes symbolic batch and token counts) (issue 44)}}
  %o = stride.attention %q, %k, %v scale 0.25 : !stride.tensor<[batch, 4, 16, d], f16>, !stride.tensor<[batch, 4, 16, d], f16>, !stride.tensor<[batch, 4, 16, 32], f16> -> !stride.tensor<[batch, 4, 16, 32], f16>
  return %o : !stride.tensor<[batch, 4, 16, 32], f16>
}

// -----

// Rows of static length over a symbolic row count (softmax), the
// reduction's result broadcast back, a gather and an embedding read through
// a reshape of a computed value: built.
func.func @rows(%x: !stride.tensor<[batch, 768], f32> {stride.name = "x"},
                %table: !stride.tensor<100x16xf32>, %ids: !stride.tensor<[batch, seq], i64>,
                %gidx: !stride.tensor<[batch, 768], i64>)
    -> (!stride.tensor<[batch, 768], f32>, !stride.tensor<[batch, seq, 16], f32>,
        !stride.tensor<[batch, 768], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>,
                                  #stride.symbol<"seq", range = [1, 64]>]} {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<[batch, 768], f32> -> !stride.tensor<[batch, 1], f32>
  %mb = stride.expand %m : !stride.tensor<[batch, 1], f32> -> !stride.tensor<[batch, 768], f32, strides = [1, 0]>
  %s = stride.sub %x, %mb : !stride.tensor<[batch, 768], f32>, !stride.tensor<[batch, 768], f32, strides = [1, 0]> -> !stride.tensor<[batch, 768], f32>
  %e = stride.exp %s : !stride.tensor<[batch, 768], f32> -> !stride.tensor<[batch, 768], f32>
  %t = stride.sum %e dims [1] keepdim : !stride.tensor<[batch, 768], f32> -> !stride.tensor<[batch, 1], f32>
  %tb = stride.expand %t : !stride.tensor<[batch, 1], f32> -> !stride.tensor<[batch, 768], f32, strides = [1, 0]>
  %y = stride.div %e, %tb : !stride.tensor<[batch, 768], f32>, !stride.tensor<[batch, 768], f32, strides = [1, 0]> -> !stride.tensor<[batch, 768], f32>
  %flat = stride.view %ids : !stride.tensor<[batch, seq], i64> -> !stride.tensor<[batch*seq], i64>
  %emb = stride.index_select %table, %flat dim 0 : !stride.tensor<100x16xf32>, !stride.tensor<[batch*seq], i64> -> !stride.tensor<[batch*seq, 16], f32>
  %v = stride.view %emb : !stride.tensor<[batch*seq, 16], f32> -> !stride.tensor<[batch, seq, 16], f32>
  %r = stride.relu %v : !stride.tensor<[batch, seq, 16], f32> -> !stride.tensor<[batch, seq, 16], f32>
  %g = stride.gather %x, %gidx dim 1 : !stride.tensor<[batch, 768], f32>, !stride.tensor<[batch, 768], i64> -> !stride.tensor<[batch, 768], f32>
  return %y, %r, %g : !stride.tensor<[batch, 768], f32>, !stride.tensor<[batch, seq, 16], f32>, !stride.tensor<[batch, 768], f32>
}

// -----

// Reductions over a dim of symbolic size (a row of symbolic length, a
// mean over the sequence): built.
func.func @symbolic_rows(%x: !stride.tensor<[batch, seq], f32>) -> (!stride.tensor<[batch, 1], f32>, !stride.tensor<[1, seq], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 16]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  %m = stride.mean %x dims [1] keepdim : !stride.tensor<[batch, seq], f32> -> !stride.tensor<[batch, 1], f32>
  %s = stride.sum %x dims [0] keepdim : !stride.tensor<[batch, seq], f32> -> !stride.tensor<[1, seq], f32>
  return %m, %s : !stride.tensor<[batch, 1], f32>, !stride.tensor<[1, seq], f32>
}

// -----

// Any other op (an index scatter): at the op.
func.func @scatter(%x: !stride.tensor<[seq, 64], f32>, %i: !stride.tensor<[seq], i64>) -> !stride.tensor<16x64xf32>
    attributes {stride.symbols = [#stride.symbol<"seq", range = [8, 4096], multiple_of = 8>]} {
  %z = stride.full 0.0 : !stride.tensor<16x64xf32>
  // expected-error @+1 {{'stride.index_add' over the symbolic size 'seq' (8 to 4096, multiples of 8) is not built yet: Stride compiles symbolic sizes for pointwise ops, views, gathers, concatenations, reductions, scans, products over symbolic rows and attention over symbolic batch and token counts only (issue 44)}}
  %c = stride.index_add %z, %i, %x dim 0 : !stride.tensor<16x64xf32>, !stride.tensor<[seq], i64>, !stride.tensor<[seq, 64], f32> -> !stride.tensor<16x64xf32>
  return %c : !stride.tensor<16x64xf32>
}

// -----

// A symbol that may be 0: at the function.
// expected-error @+1 {{symbol 'n' (0 to 16) may be 0; Stride compiles symbolic sizes of at least 1 (empty tensors over a range are not built yet, issue 44)}}
func.func @empty(%x: !stride.tensor<[n], f32>) -> !stride.tensor<[n], f32>
    attributes {stride.symbols = [#stride.symbol<"n", range = [0, 16]>]} {
  %r = stride.relu %x : !stride.tensor<[n], f32> -> !stride.tensor<[n], f32>
  return %r : !stride.tensor<[n], f32>
}

// -----

// A static graph passes.
func.func @static(%x: !stride.tensor<4x768xf32>) -> !stride.tensor<4x768xf32> {
  %y = stride.relu %x : !stride.tensor<4x768xf32> -> !stride.tensor<4x768xf32>
  return %y : !stride.tensor<4x768xf32>
}
