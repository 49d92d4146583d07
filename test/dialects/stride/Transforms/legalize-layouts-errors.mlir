// stride-legalize-layouts rejects every functional op family's result layout
// with a zero stride on a dim of size > 1, or two indices on one address.
// RUN: stride-opt %s --stride-legalize-layouts -split-input-file -verify-diagnostics

func.func @pointwise_zero_stride(%x: !stride.tensor<4x8xf32>) {
  // expected-error @+2 {{'stride.exp' op result #0 has an overlapping layout: dim 1 has size 8 and stride 0, so all 8 indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [8, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32, strides = [1, 0]>
  return
}
// -----
func.func @pointwise_overlap(%x: !stride.tensor<3x3xf32>, %y: !stride.tensor<3x3xf32>) {
  // expected-error @+2 {{'stride.add' op result #0 has an overlapping layout: logical indices [1, 0] and [0, 2] both map to storage address offset + 2 (shape [3, 3], strides [2, 1]); a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.add %x, %y : !stride.tensor<3x3xf32>, !stride.tensor<3x3xf32> -> !stride.tensor<3x3xf32, strides = [2, 1]>
  return
}
// -----
func.func @pointwise_from_expand(%b: !stride.tensor<8xf32>, %y: !stride.tensor<4x8xf32>) {
  // expected-note @+1 {{the result copies the layout of operand #0, a 'stride.expand' that broadcasts dim 0}}
  %e = stride.expand %b : !stride.tensor<8xf32> -> !stride.tensor<4x8xf32, strides = [0, 1]>
  // expected-error @+2 {{'stride.mul' op result #0 has an overlapping layout: dim 0 has size 4 and stride 0, so all 4 indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [8, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.mul %e, %y : !stride.tensor<4x8xf32, strides = [0, 1]>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32, strides = [0, 1]>
  return
}
// -----
func.func @scatter_zero_stride(%x: !stride.tensor<4x13x33xf32>, %y: !stride.tensor<4x6x33xf32>) {
  // expected-error @+2 {{'stride.slice_scatter' op result #0 has an overlapping layout: dim 1 has size 13 and stride 0, so all 13 indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [429, 33, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.slice_scatter %x, %y dim 1 start 0 end 6 step 1 : !stride.tensor<4x13x33xf32>, !stride.tensor<4x6x33xf32> -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>
  return
}
// -----
func.func @scatter_overlap(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<8xi64>, %s: !stride.tensor<8x3xf32>) {
  // expected-error @+2 {{'stride.index_add' op result #0 has an overlapping layout: logical indices [1, 0] and [0, 2] both map to storage address offset + 2 (shape [4, 3], strides [2, 1]); a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.index_add %x, %i, %s dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<8xi64>, !stride.tensor<8x3xf32> -> !stride.tensor<4x3xf32, strides = [2, 1]>
  return
}
// -----
func.func @gather_zero_stride(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<5xi64>) {
  // expected-error @+2 {{'stride.index_select' op result #0 has an overlapping layout: dim 0 has size 5 and stride 0, so all 5 indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.index_select %x, %i dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<5xi64> -> !stride.tensor<5x3xf32, strides = [0, 1]>
  return
}
// -----
func.func @gather_overlap(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<3x3xi64>) {
  // expected-error @+2 {{'stride.gather' op result #0 has an overlapping layout: logical indices [0, 1] and [1, 0] both map to storage address offset + 1 (shape [3, 3], strides [1, 1]); a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.gather %x, %i dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<3x3xi64> -> !stride.tensor<3x3xf32, strides = [1, 1]>
  return
}
// -----
func.func @reduction_zero_stride(%x: !stride.tensor<4x13x33xf32>) {
  // expected-error @+2 {{'stride.sum' op result #0 has an overlapping layout: dim 0 has size 4 and stride 0, so all 4 indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [33, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.sum %x dims [1] : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x33xf32, strides = [0, 1]>
  return
}
// -----
func.func @reduction_overlap(%x: !stride.tensor<3x5x3xf32>) {
  // expected-error @+2 {{'stride.max' op result #0 has an overlapping layout: logical indices [0, 1] and [2, 0] both map to storage address offset + 2 (shape [3, 3], strides [1, 2]); a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.max %x dims [1] : !stride.tensor<3x5x3xf32> -> !stride.tensor<3x3xf32, strides = [1, 2]>
  return
}
// -----
func.func @creation_zero_stride() {
  // expected-error @+2 {{'stride.full' op result #0 has an overlapping layout: dim 1 has size 6 and stride 0, so all 6 indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [198, 33, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.full 0.0 : !stride.tensor<4x6x33xf32, strides = [33, 0, 1]>
  return
}
// -----
func.func @creation_overlap() {
  // expected-error @+2 {{'stride.iota' op result #0 has an overlapping layout: logical indices [1, 0] and [0, 2] both map to storage address offset + 2 (shape [3, 3], strides [2, 1]); a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.iota dim 0 : !stride.tensor<3x3xi64, strides = [2, 1]>
  return
}
// -----
func.func @clone_unprovable(%x: !stride.tensor<2x3xf32>) {
  // expected-error @+2 {{'stride.clone' op cannot prove that the layout of result #0 is non-overlapping: dim 0 (size 2, stride 4) does not step past the span of the dims with smaller strides (shape [2, 3], strides [4, 3]); a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %0 = stride.clone %x : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32, strides = [4, 3]>
  return
}
// -----
func.func @attention_logsumexp_zero_stride(%q: !stride.tensor<1x2x3x8xf32>, %k: !stride.tensor<1x2x5x8xf32>, %v: !stride.tensor<1x2x5x8xf32>) {
  // expected-error @+2 {{'stride.attention' op result #1 has an overlapping layout: dim 1 has size 2 and stride 0, so all 2 indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{a dense layout such as strides = [6, 3, 1] is legal; --repair-layouts (pass option 'repair') assigns one}}
  %o, %lse = stride.attention %q, %k, %v scale 0.25 : !stride.tensor<1x2x3x8xf32>, !stride.tensor<1x2x5x8xf32>, !stride.tensor<1x2x5x8xf32> -> !stride.tensor<1x2x3x8xf32>, !stride.tensor<1x2x3xf32, strides = [3, 0, 1]>
  return
}
