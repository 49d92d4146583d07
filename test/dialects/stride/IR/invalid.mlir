// Every op of the dialect rejects an invalid input with a message that says
// what was expected.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: !stride.tensor<4x2x33xf32>) {
  // expected-error @+1 {{'stride.expand' op expand can only broadcast dims of size 1, but operand dim 1 has size 2 and result dim 1 has size 13}}
  %0 = stride.expand %x : !stride.tensor<4x2x33xf32> -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x1x33xf32>) {
  // expected-error @+1 {{'stride.expand' op result type '!stride.tensor<4x13x33xf32, strides = [429, 33, 1], offset = 0>' does not match the layout the view computes from its operand: expected '!stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>'}}
  %0 = stride.expand %x : !stride.tensor<4x1x33xf32> -> !stride.tensor<4x13x33xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x33xf32>) {
  // expected-error @+1 {{'stride.unsqueeze' op dim 3 is out of range [0, 2]}}
  %0 = stride.unsqueeze %x dim 3 : !stride.tensor<4x33xf32> -> !stride.tensor<4x33x1xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x2x33xf32>) {
  // expected-error @+1 {{'stride.squeeze' op dim 1 has size 2, but squeeze removes only dims of size 1}}
  %0 = stride.squeeze %x dims [1] : !stride.tensor<4x2x33xf32> -> !stride.tensor<4x33xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<2x3x4xf32>) {
  // expected-error @+1 {{'stride.permute' op [0, 0, 1] is not a permutation of 0..2}}
  %0 = stride.permute %x dims [0, 0, 1] : !stride.tensor<2x3x4xf32> -> !stride.tensor<2x2x3xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x10xf32>) {
  // expected-error @+1 {{'stride.slice' op the range [2, 12) must satisfy 0 <= start <= end <= 10 (the size of dim 1)}}
  %0 = stride.slice %x dim 1 start 2 end 12 step 1 : !stride.tensor<4x10xf32> -> !stride.tensor<4x10xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x10xf32>) {
  // expected-error @+1 {{'stride.select' op index 4 is out of range [0, 4) of dim 0}}
  %0 = stride.select %x dim 0 index 4 : !stride.tensor<4x10xf32> -> !stride.tensor<10xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<6x4xf32, strides = [1, 6]>) {
  // expected-error @+1 {{'stride.view' op the operand's strides [1, 6] do not allow viewing shape [6, 4] as [24] without a copy}}
  %0 = stride.view %x : !stride.tensor<6x4xf32, strides = [1, 6]> -> !stride.tensor<24xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<8xf32>) {
  // expected-error @+1 {{'stride.as_strided' op the result reaches storage addresses [0, 10), outside the addresses [0, 8) that the operand may read}}
  %0 = stride.as_strided %x : !stride.tensor<8xf32> -> !stride.tensor<3x4xf32, strides = [3, 1]>
  return
}
// -----
func.func @f(%x: !stride.tensor<8xf32>) {
  // expected-error @+1 {{'stride.view' op result element type 'f16' differs from the operand's 'f32'; a view never converts elements}}
  %0 = stride.view %x : !stride.tensor<8xf32> -> !stride.tensor<2x4xf16>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.neg' op failed to verify that all of {input, result} have same element type}}
  %0 = stride.neg %x : !stride.tensor<4xi32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.abs' op operand #0 has shape [4] but the result has shape [5]; pointwise operands must have the result's shape (there is no implicit broadcasting: use stride.expand)}}
  %0 = stride.abs %x : !stride.tensor<4xi32> -> !stride.tensor<5xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.exp' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi32, strides = [1], offset = 0>'}}
  %0 = stride.exp %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi1>) {
  // expected-error @+1 {{'stride.log' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi1, strides = [1], offset = 0>'}}
  %0 = stride.log %x : !stride.tensor<4xi1> -> !stride.tensor<4xi1>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi8>) {
  // expected-error @+1 {{'stride.sqrt' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi8, strides = [1], offset = 0>'}}
  %0 = stride.sqrt %x : !stride.tensor<4xi8> -> !stride.tensor<4xi8>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi64>) {
  // expected-error @+1 {{'stride.rsqrt' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi64, strides = [1], offset = 0>'}}
  %0 = stride.rsqrt %x : !stride.tensor<4xi64> -> !stride.tensor<4xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.tanh' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi32, strides = [1], offset = 0>'}}
  %0 = stride.tanh %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.sigmoid' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi32, strides = [1], offset = 0>'}}
  %0 = stride.sigmoid %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi1>) {
  // expected-error @+1 {{'stride.relu' op operand #0 must be stride tensor of numbers (f16, bf16, f32, f64, i8, i32, i64), but got '!stride.tensor<4xi1, strides = [1], offset = 0>'}}
  %0 = stride.relu %x : !stride.tensor<4xi1> -> !stride.tensor<4xi1>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.gelu' op failed to verify that all of {input, result} have same element type}}
  %0 = stride.gelu %x : !stride.tensor<4xf32> -> !stride.tensor<4xf64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.sin' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi32, strides = [1], offset = 0>'}}
  %0 = stride.sin %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.cos' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi32, strides = [1], offset = 0>'}}
  %0 = stride.cos %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.not' op operand #0 must be stride tensor of booleans or integers (i1, i8, i32, i64), but got '!stride.tensor<4xf32, strides = [1], offset = 0>'}}
  %0 = stride.not %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.cast' op operand #0 has shape [4] but the result has shape [5]; pointwise operands must have the result's shape (there is no implicit broadcasting: use stride.expand)}}
  %0 = stride.cast %x : !stride.tensor<4xf32> -> !stride.tensor<5xf16>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<8xf32>) {
  // expected-error @+1 {{'stride.add' op operand #1 has shape [8] but the result has shape [4, 8]; pointwise operands must have the result's shape (there is no implicit broadcasting: use stride.expand)}}
  %0 = stride.add %x, %y : !stride.tensor<4x8xf32>, !stride.tensor<8xf32> -> !stride.tensor<4x8xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>, %y: !stride.tensor<4xf64>) {
  // expected-error @+1 {{'stride.sub' op failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = stride.sub %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf64> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi1>) {
  // expected-error @+1 {{'stride.mul' op operand #0 must be stride tensor of numbers (f16, bf16, f32, f64, i8, i32, i64), but got '!stride.tensor<4xi1, strides = [1], offset = 0>'}}
  %0 = stride.mul %x, %x : !stride.tensor<4xi1>, !stride.tensor<4xi1> -> !stride.tensor<4xi1>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.div' op failed to verify that all of {lhs, rhs, result} have same element type}}
  %0 = stride.div %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.pow' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi32, strides = [1], offset = 0>'}}
  %0 = stride.pow %x, %x : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>, %y: !stride.tensor<5xf32>) {
  // expected-error @+1 {{'stride.maximum' op operand #1 has shape [5] but the result has shape [4]; pointwise operands must have the result's shape (there is no implicit broadcasting: use stride.expand)}}
  %0 = stride.maximum %x, %y : !stride.tensor<4xf32>, !stride.tensor<5xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.minimum' op operand #0 has shape [4] but the result has shape [4, 1]; pointwise operands must have the result's shape (there is no implicit broadcasting: use stride.expand)}}
  %0 = stride.minimum %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4x1xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.and' op operand #0 must be stride tensor of booleans or integers (i1, i8, i32, i64), but got '!stride.tensor<4xf32, strides = [1], offset = 0>'}}
  %0 = stride.and %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf16>) {
  // expected-error @+1 {{'stride.or' op operand #0 must be stride tensor of booleans or integers (i1, i8, i32, i64), but got '!stride.tensor<4xf16, strides = [1], offset = 0>'}}
  %0 = stride.or %x, %x : !stride.tensor<4xf16>, !stride.tensor<4xf16> -> !stride.tensor<4xf16>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.cmp' op result #0 must be stride tensor of booleans (i1), but got '!stride.tensor<4xf32, strides = [1], offset = 0>'}}
  %0 = stride.cmp lt, %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{custom op 'stride.cmp' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = stride.cmp less, %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xi1>
  return
}
// -----
func.func @f(%c: !stride.tensor<4xf32>, %x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.where' op operand #0 must be stride tensor of booleans (i1), but got '!stride.tensor<4xf32, strides = [1], offset = 0>'}}
  %0 = stride.where %c, %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f() {
  // expected-error @+1 {{'stride.full' op value 5.000000e-01 is not representable in 'i32'}}
  %0 = stride.full 0.5 : !stride.tensor<4xi32>
  return
}
// -----
func.func @f() {
  // expected-error @+1 {{'stride.constant' op value of type 'tensor<2xf32>' does not match the result's shape [3] and element type 'f32'}}
  %0 = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<3xf32>
  return
}
// -----
func.func @f() {
  // expected-error @+1 {{'stride.iota' op dim 2 is out of range [0, 2)}}
  %0 = stride.iota dim 2 : !stride.tensor<2x5xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.clone' op failed to verify that all of {input, result} have same element type}}
  %0 = stride.clone %x : !stride.tensor<4xf32> -> !stride.tensor<4xf64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13x33xf32>, %y: !stride.tensor<4x5x33xf32>) {
  // expected-error @+1 {{'stride.slice_scatter' op src has shape [4, 5, 33], expected [4, 6, 33] (the shape of the slice it replaces)}}
  %0 = stride.slice_scatter %x, %y dim 1 start 0 end 6 step 1 : !stride.tensor<4x13x33xf32>, !stride.tensor<4x5x33xf32> -> !stride.tensor<4x13x33xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13x33xf32>, %y: !stride.tensor<4x33xf32>) {
  // expected-error @+1 {{'stride.select_scatter' op index 13 is out of range [0, 13) of dim 1}}
  %0 = stride.select_scatter %x, %y dim 1 index 13 : !stride.tensor<4x13x33xf32>, !stride.tensor<4x33xf32> -> !stride.tensor<4x13x33xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xf32>, %s: !stride.tensor<2x3xf32>) {
  // expected-error @+1 {{'stride.scatter' op operand #1 must be stride tensor of indices (i32, i64), but got '!stride.tensor<2x3xf32, strides = [3, 1], offset = 0>'}}
  %0 = stride.scatter %x, %i, %s dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x4xi64>, %s: !stride.tensor<2x4xf32>) {
  // expected-error @+1 {{'stride.scatter_add' op index dim 1 has size 4, larger than the input's 3}}
  %0 = stride.scatter_add %x, %i, %s dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<2x4xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<4x3xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<8xi64>, %s: !stride.tensor<7x3xf32>) {
  // expected-error @+1 {{'stride.index_add' op src has shape [7, 3], expected [8, 3] (the input's shape with dim 0 of the index's length)}}
  %0 = stride.index_add %x, %i, %s dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<8xi64>, !stride.tensor<7x3xf32> -> !stride.tensor<4x3xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xi64>) {
  // expected-error @+1 {{'stride.gather' op result has shape [4, 3], expected [2, 3] (the index's shape)}}
  %0 = stride.gather %x, %i dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64> -> !stride.tensor<4x3xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x2xi64>) {
  // expected-error @+1 {{'stride.index_select' op index must be 1-D, but has shape [2, 2]}}
  %0 = stride.index_select %x, %i dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<2x2xi64> -> !stride.tensor<2x3xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.sum' op result has shape [4, 1], expected [4] (the input's shape without the reduced dims)}}
  %0 = stride.sum %x dims [1] : !stride.tensor<4x13xf32> -> !stride.tensor<4x1xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xi32>) {
  // expected-error @+1 {{'stride.mean' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4x13xi32, strides = [13, 1], offset = 0>'}}
  %0 = stride.mean %x dims [1] : !stride.tensor<4x13xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.max' op dim 2 is out of range [0, 2)}}
  %0 = stride.max %x dims [2] : !stride.tensor<4x13xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.min' op dim 1 is listed twice}}
  %0 = stride.min %x dims [1, 1] : !stride.tensor<4x13xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.prod' op result has shape [13], expected [1, 13] (the input's shape with the reduced dims of size 1)}}
  %0 = stride.prod %x dims [0] keepdim : !stride.tensor<4x13xf32> -> !stride.tensor<13xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  %0 = stride.kernel "k" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
  // expected-error @+1 {{'stride.kernel' op result #0 of type '!stride.tensor<5xf32, strides = [1], offset = 0>' differs in shape or element type from the yielded value of type '!stride.tensor<4xf32, strides = [1], offset = 0>'}}
  %1 = stride.kernel "k" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<5xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
  return
}
// -----
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{custom op 'stride.unknown_op' is unknown}}
  %0 = stride.unknown_op %x : !stride.tensor<4xf32>
  return
}

// -----

func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.yield' op expects parent op 'stride.kernel'}}
  stride.yield %x : !stride.tensor<4xf32>
}
