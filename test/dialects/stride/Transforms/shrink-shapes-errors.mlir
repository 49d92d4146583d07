// stride-shrink-shapes refuses a function that is not a graph, a class it
// does not have, a size that does not shrink the class, and a size the
// graph does not verify with (naming the op that refuses it).
// RUN: stride-opt "--stride-shrink-shapes=class=0 size=3" -split-input-file -verify-diagnostics %s
// RUN: not stride-opt "--stride-shrink-shapes=size=-1" %s 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: error: 'func.func' op cannot shrink dims to size -1: expected a size of at least 1, or 0 for size 1, else half

// expected-error @+1 {{'func.func' op argument #0 has type 'i32', but stride-shrink-shapes resizes graphs, whose values are all !stride.tensor}}
func.func @not_a_graph(%n: i32) -> i32 {
  return %n : i32
}

// -----

// expected-error @+1 {{'func.func' op is a declaration; stride-shrink-shapes resizes the values of a graph function's body}}
func.func private @declaration(!stride.tensor<4xf32>) -> !stride.tensor<4xf32>

// -----

// expected-error @+1 {{'func.func' op has no dim class 0 to shrink: it has 0 classes of dims that can shrink (numbered from 0 in program order)}}
func.func @all_ones(%x: !stride.tensor<1x1xf32>) -> !stride.tensor<1x1xf32> {
  %y = stride.exp %x : !stride.tensor<1x1xf32> -> !stride.tensor<1x1xf32>
  return %y : !stride.tensor<1x1xf32>
}

// -----

// expected-error @+1 {{'func.func' op cannot shrink dim class 0 of size 2 to 3: expected a smaller size}}
func.func @grows(%x: !stride.tensor<2xf32>) -> !stride.tensor<2xf32> {
  %y = stride.exp %x : !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  return %y : !stride.tensor<2xf32>
}

// -----

// The select's index 3 pins dim 0 of %x to at least 4.
// expected-error @+2 {{'func.func' op cannot shrink dim class 0 of size 4 to 3: 'stride.select' op index 3 is out of range}}
// expected-note @+1 {{the class's first dim is dim 0 of this value}}
func.func @pinned(%x: !stride.tensor<4x4xf32>) -> !stride.tensor<4xf32> {
  // expected-note @+1 {{the error is here}}
  %r = stride.select %x dim 0 index 3 : !stride.tensor<4x4xf32>
      -> !stride.tensor<4xf32, strides = [1], offset = 12>
  %c = stride.clone %r : !stride.tensor<4xf32, strides = [1], offset = 12>
      -> !stride.tensor<4xf32>
  return %c : !stride.tensor<4xf32>
}
