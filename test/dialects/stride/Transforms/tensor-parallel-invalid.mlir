// stride-tensor-parallel refuses what it cannot split, at the op, with a
// note at the product the split comes from. Each graph is an MLP
// `down(relu(up(x)))`, whose up projection is split by columns, with one
// more use of the split activation.
// RUN: stride-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(stride-tensor-parallel{world-size=2 rank=0}))'

!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x) -> (!x, !stride.tensor<4xf32>) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product, split across 2 ranks}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  // expected-error @+1 {{'stride.sum' op reduces dim 1, which is split across the ranks (each holds a block)}}
  %s = stride.sum %h dims [1] : !x -> !stride.tensor<4xf32>
  return %d, %s : !x, !stride.tensor<4xf32>
}

// -----

!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x) -> (!x, !stride.tensor<4x2xf32, strides = [8, 1]>) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  // expected-error @+1 {{'stride.slice' op cannot keep the split of its operand's dim 1 (each rank holds a block of it)}}
  %s = stride.slice %h dim 1 start 0 end 2 step 1 : !x -> !stride.tensor<4x2xf32, strides = [8, 1]>
  return %d, %s : !x, !stride.tensor<4x2xf32, strides = [8, 1]>
}

// -----

!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x) -> (!x, !x) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  // expected-error @+1 {{'stride.cumsum' op cannot be split: its operand is split along dim 1 across 2 ranks}}
  %c = stride.cumsum %h dim 0 : !x -> !x
  return %d, %c : !x, !x
}

// -----

!x = !stride.tensor<4x8xf32>
func.func @f(%x: !x) -> !x {
  // expected-error @+1 {{'stride.all_reduce' op is a collective: stride-tensor-parallel splits graphs that are not split yet}}
  %r = stride.all_reduce %x sum world_size 2 : !x -> !x
  return %r : !x
}

// -----

// A vocabulary the ranks cannot share equally: the LM head's 3 words.
func.func @f(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x3xf32> {
  %w = stride.constant dense<1.0> : tensor<3x8xf32> : !stride.tensor<3x8xf32>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<3x8xf32> -> !stride.tensor<8x3xf32, strides = [1, 8]>
  // expected-error @+1 {{'stride.matmul' op cannot split dim 1 of size 3 across 2 ranks: the tensor-parallel world size must divide it}}
  %l = stride.matmul %x, %wt : !stride.tensor<4x8xf32>, !stride.tensor<8x3xf32, strides = [1, 8]> -> !stride.tensor<4x3xf32>
  return %l : !stride.tensor<4x3xf32>
}
