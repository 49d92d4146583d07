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

// -----

// A split value written into an input that is not a state.
!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x, %i: !stride.tensor<4x8xi64>, %s: !x {stride.name = "s"}) -> (!x, !x {stride.name = "s_new", stride.writes = "s"}) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product, split across 2 ranks}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  // expected-error @+1 {{'stride.scatter' op writes a value split along dim 1 into a tensor that is not a state: only a state argument (a KV cache) is split by what is written into it}}
  %w = stride.scatter %s, %i, %h dim 0 : !x, !stride.tensor<4x8xi64>, !x -> !x
  return %d, %w : !x, !x
}

// -----

// A state read whole before a split value is written into it.
!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x, %i: !stride.tensor<4x8xi64>, %s: !x {stride.name = "s", stride.state = dense<0.0> : tensor<4x8xf32>}) -> (!x, !x {stride.name = "s_new", stride.writes = "s"}) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{state 's' is read here}}
  %old = stride.neg %s : !x -> !x
  // expected-note @+1 {{the split comes from this product, split across 2 ranks}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  // expected-error @+1 {{'stride.scatter' op writes a value split along dim 1 into state 's', which an earlier op reads whole: the state cannot be split}}
  %w = stride.scatter %s, %i, %h dim 0 : !x, !stride.tensor<4x8xi64>, !x -> !x
  %o = stride.add %d, %old : !x, !x -> !x
  return %o, %w : !x, !x
}

// -----

// A split value written along its split dim.
!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x, %i: !stride.tensor<4x8xi64>, %s: !x {stride.name = "s", stride.state = dense<0.0> : tensor<4x8xf32>}) -> (!x, !x {stride.name = "s_new", stride.writes = "s"}) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product, split across 2 ranks}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  // expected-error @+1 {{'stride.scatter' op writes along dim 1, which is split across the ranks (each holds a block)}}
  %w = stride.scatter %s, %i, %h dim 1 : !x, !stride.tensor<4x8xi64>, !x -> !x
  return %d, %w : !x, !x
}

// -----

// An index that writes only some of the split dim (the first 2 heads).
!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x, %i: !stride.tensor<1x2xi64>, %s: !x {stride.name = "s", stride.state = dense<0.0> : tensor<4x8xf32>}) -> (!x, !x {stride.name = "s_new", stride.writes = "s"}) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product, split across 2 ranks}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  // expected-error @+1 {{'stride.scatter' op writes only part of dim 1 (its index has size 2 there): the ranks' blocks need the whole dim}}
  %w = stride.scatter %s, %i, %h dim 0 : !x, !stride.tensor<1x2xi64>, !x -> !x
  return %d, %w : !x, !x
}

// -----

// A split state written again with a value that is not split.
!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x, %i: !stride.tensor<4x8xi64>, %s: !x {stride.name = "s", stride.state = dense<0.0> : tensor<4x8xf32>}) -> (!x, !x {stride.name = "s_new", stride.writes = "s"}) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product, split across 2 ranks}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  %w = stride.scatter %s, %i, %h dim 0 : !x, !stride.tensor<4x8xi64>, !x -> !x
  // expected-error @+1 {{'stride.scatter' op writes a value that is not split into a tensor split along dim 1: a split state is written from values split the same way (the key or value projection's heads)}}
  %w2 = stride.scatter %w, %i, %x dim 0 : !x, !stride.tensor<4x8xi64>, !x -> !x
  return %d, %w2 : !x, !x
}

// -----

// A split state written back whole.
!x = !stride.tensor<4x8xf32>
!w = !stride.tensor<8x8xf32>
!wt = !stride.tensor<8x8xf32, strides = [1, 8]>
func.func @f(%x: !x, %i: !stride.tensor<4x8xi64>, %s: !x {stride.name = "s", stride.state = dense<0.0> : tensor<4x8xf32>}) -> (!x, !x {stride.name = "s_new", stride.writes = "s"}) {
  %wu = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wut = stride.permute %wu dims [1, 0] : !w -> !wt
  // expected-note @+1 {{the split comes from this product, split across 2 ranks}}
  %up = stride.matmul %x, %wut : !x, !wt -> !x
  %h = stride.relu %up : !x -> !x
  %wd = stride.constant dense<1.0> : tensor<8x8xf32> : !w
  %wdt = stride.permute %wd dims [1, 0] : !w -> !wt
  %d = stride.matmul %h, %wdt : !x, !wt -> !x
  %w = stride.scatter %s, %i, %h dim 0 : !x, !stride.tensor<4x8xi64>, !x -> !x
  // expected-error @+1 {{'func.return' op writes back state 's' (result #1) with a value that is whole, but the state is split along dim 1: a state is split only where what writes it is split the same way}}
  return %d, %x : !x, !x
}
