// What stride-outline-executable refuses, at the offending op.
// RUN: stride-opt --stride-outline-executable -split-input-file -verify-diagnostics %s

func.func @unformed(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  // expected-error @+1 {{'stride.neg' op is outside a stride.kernel; the plan needs kernel formation (stride-outline-kernels) first}}
  %r = stride.neg %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %r : !stride.tensor<4xf32>
}

// -----

// An attention op that stride-attention-library did not keep fused
// (stride.keep_fused) has no library call: the fallback decomposes it first
// (python-free-docs/attention.md).
func.func @unkept_attention(%q: !stride.tensor<1x2x3x8xf16>, %k: !stride.tensor<1x2x5x8xf16>,
                            %v: !stride.tensor<1x2x5x8xf16>) -> !stride.tensor<1x2x3x8xf16> {
  // expected-error @+1 {{'stride.attention' op has no library call in the plan; stride-attention-library keeps the ones cuDNN takes fused (marked 'stride.keep_fused') and stride-decompose-attention rewrites the others into products and kernels}}
  %o = stride.attention %q, %k, %v scale 0.25 causal
      : !stride.tensor<1x2x3x8xf16>, !stride.tensor<1x2x5x8xf16>, !stride.tensor<1x2x5x8xf16>
      -> !stride.tensor<1x2x3x8xf16>
  return %o : !stride.tensor<1x2x3x8xf16>
}

// -----

// A state's storage is rewritten by the next run: it is never returned as
// it is (an argument that no step writes is: an aliased output).
func.func @returns_state(%s: !stride.tensor<4xf32> {stride.name = "s", stride.state = dense<0.0> : tensor<4xf32>}) -> !stride.tensor<4xf32> {
  // expected-error @+1 {{'func.return' op returns as result #0 a value that no kernel or library call writes (a state, an input the graph writes, or a view of part of a buffer); stride-legalize-layouts copies such results, and stride-outline-kernels puts the copy into a kernel}}
  return %s : !stride.tensor<4xf32>
}

// -----

// expected-error @+1 {{expected one func.func (the graph), found none}}
module {
}

// -----

func.func @matmul_without_layouts(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf32>) -> !stride.tensor<4x5xf32> {
  // expected-error @+1 {{'stride.matmul' op has no recorded operand layouts; the plan needs stride-matmul-layout first}}
  %p = stride.matmul %a, %b : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32> -> !stride.tensor<4x5xf32>
  return %p : !stride.tensor<4x5xf32>
}

// -----

func.func @bias_over_no_k(%a: !stride.tensor<4x0xf32>, %b: !stride.tensor<0x5xf32>, %c: !stride.tensor<5xf32>) -> !stride.tensor<4x5xf32> {
  // expected-error @+1 {{'stride.matmul' op adds a bias or an addend to a product over K = 0; the library call takes K >= 1 (add it in a kernel)}}
  %p = stride.matmul %a, %b bias %c {lhs_layout = #stride.matmul_operand<transposed = false, ld = 1, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = false, ld = 5, batch_stride = 0>} : !stride.tensor<4x0xf32>, !stride.tensor<0x5xf32>, !stride.tensor<5xf32> -> !stride.tensor<4x5xf32>
  return %p : !stride.tensor<4x5xf32>
}

// -----

// NCCL reads contiguous elements: a strided view is copied first
// (stride-prepare-collectives does so in the pipeline).
func.func @strided_collective(%x: !stride.tensor<4x10xf32>) -> !stride.tensor<4x3xf32> {
  %s = stride.slice %x dim 1 start 2 end 8 step 2 : !stride.tensor<4x10xf32>
      -> !stride.tensor<4x3xf32, strides = [10, 2], offset = 2>
  // expected-error @+1 {{'stride.all_reduce' op has an input of type '!stride.tensor<4x3xf32, strides = [10, 2], offset = 2>', which NCCL cannot read or write: a plan's collective takes row-major contiguous tensors}}
  %r = stride.all_reduce %s sum world_size 2
      : !stride.tensor<4x3xf32, strides = [10, 2], offset = 2> -> !stride.tensor<4x3xf32>
  return %r : !stride.tensor<4x3xf32>
}

// -----

// The ranks' blocks of an all_gather along dim 1 of [4, 8] interleave
// (stride-prepare-collectives permutes the dim to the front first).
func.func @inner_gather(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x16xf32> {
  // expected-error @+1 {{'stride.all_gather' op exchanges blocks along dim 1 of shape [4, 16], inside outer dims of 4 elements; NCCL's ranks' blocks are contiguous, so a plan's collective gathers or scatters along the outermost dim of more than one element only (permute that dim to the front first)}}
  %g = stride.all_gather %x dim 1 world_size 2
      : !stride.tensor<4x8xf32> -> !stride.tensor<4x16xf32>
  return %g : !stride.tensor<4x16xf32>
}
