// stride.absent_outputs on the graph's function (StrideDialect's
// description): the positions of the program's None outputs, strictly
// increasing, each below the number of results plus absent outputs.
// RUN: stride-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @backward
// CHECK-SAME: attributes {stride.absent_outputs = array<i64: 0, 2>}
func.func @backward(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32>
    attributes {stride.absent_outputs = array<i64: 0, 2>} {
  return %t : !stride.tensor<4xf32>
}
// -----
// Every output absent.
// CHECK-LABEL: func.func @none
func.func @none() attributes {stride.absent_outputs = array<i64: 0>} {
  return
}
// -----
// expected-error @+1 {{'stride.absent_outputs' must list positions in [0, 3) (the 1 results and 2 absent outputs), each once and in increasing order, but is array<i64: 0, 3>}}
func.func @past_the_end(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32>
    attributes {stride.absent_outputs = array<i64: 0, 3>} {
  return %t : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{'stride.absent_outputs' must list positions in [0, 3) (the 1 results and 2 absent outputs), each once and in increasing order, but is array<i64: 2, 0>}}
func.func @unordered(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32>
    attributes {stride.absent_outputs = array<i64: 2, 0>} {
  return %t : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{'stride.absent_outputs' must list positions in [0, 3) (the 1 results and 2 absent outputs), each once and in increasing order, but is array<i64: -1, 0>}}
func.func @negative(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32>
    attributes {stride.absent_outputs = array<i64: -1, 0>} {
  return %t : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{'stride.absent_outputs' must be an array<i64> of output positions, but is [0, 2]}}
func.func @not_an_array(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32>
    attributes {stride.absent_outputs = [0, 2]} {
  return %t : !stride.tensor<4xf32>
}
// -----
func.func @on_an_op(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  // expected-error @+1 {{'stride.absent_outputs' belongs on the graph's function, not on 'stride.exp'}}
  %e = stride.exp %t {stride.absent_outputs = array<i64: 0>} : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %e : !stride.tensor<4xf32>
}
