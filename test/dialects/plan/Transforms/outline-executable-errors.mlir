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

func.func @returns_argument(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  // expected-error @+1 {{'func.return' op returns as result #0 a value that no kernel or library call writes (an argument, or a view of part of a buffer); stride-legalize-layouts copies such results, and stride-outline-kernels puts the copy into a kernel}}
  return %x : !stride.tensor<4xf32>
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
  // expected-error @+1 {{'stride.matmul' op adds a bias to a product over K = 0; the library call takes K >= 1 (add the bias in a kernel)}}
  %p = stride.matmul %a, %b bias %c {lhs_layout = #stride.matmul_operand<transposed = false, ld = 1, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = false, ld = 5, batch_stride = 0>} : !stride.tensor<4x0xf32>, !stride.tensor<0x5xf32>, !stride.tensor<5xf32> -> !stride.tensor<4x5xf32>
  return %p : !stride.tensor<4x5xf32>
}
