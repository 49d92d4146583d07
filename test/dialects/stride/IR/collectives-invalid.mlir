// The collectives' verifiers, one case per diagnostic.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: !stride.tensor<4x16xf32>) {
  // expected-error @+1 {{'stride.all_reduce' op result has shape [4, 8], expected [4, 16] (the input's shape)}}
  %0 = stride.all_reduce %x sum world_size 2 : !stride.tensor<4x16xf32> -> !stride.tensor<4x8xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x16xf32>) {
  // expected-error @+1 {{'stride.all_reduce' op result element type 'f16' differs from the input's 'f32' (a collective moves elements without converting them)}}
  %0 = stride.all_reduce %x sum world_size 2 : !stride.tensor<4x16xf32> -> !stride.tensor<4x16xf16>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x16xi32>) {
  // expected-error @+1 {{'stride.all_reduce' op avg of 'i32' elements: avg needs a floating-point element type (sum, then divide after a stride.cast)}}
  %0 = stride.all_reduce %x avg world_size 2 : !stride.tensor<4x16xi32> -> !stride.tensor<4x16xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x16xf32>) {
  // expected-error @+1 {{'stride.all_reduce' op attribute 'world_size' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %0 = stride.all_reduce %x sum world_size 0 : !stride.tensor<4x16xf32> -> !stride.tensor<4x16xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x16xi1>) {
  // expected-error @+1 {{'stride.all_reduce' op operand #0 must be stride tensor of numbers}}
  %0 = stride.all_reduce %x sum world_size 2 : !stride.tensor<4x16xi1> -> !stride.tensor<4x16xi1>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x8xf32>) {
  // expected-error @+1 {{'stride.all_gather' op dim 2 is out of range [0, 2) of the input}}
  %0 = stride.all_gather %x dim 2 world_size 2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x16xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x8xf32>) {
  // expected-error @+1 {{'stride.all_gather' op result has shape [4, 8], expected [4, 16] (the input's, with dim times the world size)}}
  %0 = stride.all_gather %x dim 1 world_size 2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x8xf32>) {
  // expected-error @+1 {{'stride.all_gather' op result element type 'bf16' differs from the input's 'f32'}}
  %0 = stride.all_gather %x dim 1 world_size 2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x16xbf16>
  return
}
// -----
func.func @f(%x: !stride.tensor<6x16xf32>) {
  // expected-error @+1 {{'stride.reduce_scatter' op input dim 0 has size 6, which the world size 4 does not divide: each rank receives an equal part}}
  %0 = stride.reduce_scatter %x sum dim 0 world_size 4 : !stride.tensor<6x16xf32> -> !stride.tensor<1x16xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<8x16xf32>) {
  // expected-error @+1 {{'stride.reduce_scatter' op dim -1 is out of range [0, 2) of the input}}
  %0 = stride.reduce_scatter %x sum dim -1 world_size 2 : !stride.tensor<8x16xf32> -> !stride.tensor<8x8xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<8x16xf32>) {
  // expected-error @+1 {{'stride.reduce_scatter' op result has shape [8, 16], expected [4, 16] (the input's, with dim divided by the world size)}}
  %0 = stride.reduce_scatter %x sum dim 0 world_size 2 : !stride.tensor<8x16xf32> -> !stride.tensor<8x16xf32>
  return
}
