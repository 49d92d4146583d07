// The stride.name argument and result attribute (StrideDialect::kNameAttrName):
// a non-empty string; stride.state on an argument, stride.writes on a
// result; any other stride. attribute on an argument or result is refused.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'stride.name' of argument #1 must be a non-empty string (the name of a graph input or output), but is 3 : i64}}
func.func @f(%x: !stride.tensor<4xf32>, %y: !stride.tensor<4xf32> {stride.name = 3}) {
  return
}
// -----
// expected-error @+1 {{'stride.name' of argument #0 must be a non-empty string (the name of a graph input or output), but is ""}}
func.func @f(%x: !stride.tensor<4xf32> {stride.name = ""}) {
  return
}
// -----
// expected-error @+1 {{unknown attribute 'stride.label' on argument #0; the stride dialect defines 'stride.name' (the name of a graph input or output), 'stride.state' (an argument that is state), 'stride.binds' (an argument whose value binds a symbol) and 'stride.writes' (a result written back into an argument)}}
func.func @f(%x: !stride.tensor<4xf32> {stride.label = "x"}) {
  return
}
// -----
// expected-error @+1 {{'stride.name' of result #0 must be a non-empty string (the name of a graph input or output), but is ["y"]}}
func.func @f(%x: !stride.tensor<4xf32>) -> (!stride.tensor<4xf32> {stride.name = ["y"]}) {
  return %x : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{unknown attribute 'stride.nmae' on result #0; the stride dialect defines 'stride.name' (the name of a graph input or output), 'stride.state' (an argument that is state), 'stride.binds' (an argument whose value binds a symbol) and 'stride.writes' (a result written back into an argument)}}
func.func @f(%x: !stride.tensor<4xf32>) -> (!stride.tensor<4xf32> {stride.nmae = "y"}) {
  return %x : !stride.tensor<4xf32>
}
// -----
// An argument written on a line of its own is located there.
func.func @f(%x: !stride.tensor<4xf32>,
             // expected-error @+1 {{'stride.name' of argument #1 must be a non-empty string}}
             %y: !stride.tensor<4xf32> {stride.name = 1.0 : f32}) {
  return
}
// -----
// Names on arguments and results verify (no diagnostic expected).
func.func @f(%x: !stride.tensor<4xf32> {stride.name = "x"})
    -> (!stride.tensor<4xf32> {stride.name = "y"}) {
  return %x : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{'stride.state' of argument #0 must be the initial elements of the argument's shape and element type ('!stride.tensor<4xf32, strides = [1], offset = 0>'), but is dense<0> : tensor<4xi32>}}
func.func @f(%x: !stride.tensor<4xf32> {stride.name = "x", stride.state = dense<0> : tensor<4xi32>}) {
  return
}
// -----
// expected-error @+1 {{result #0 writes 'y', which names no argument}}
func.func @f(%x: !stride.tensor<4xf32> {stride.name = "x"}) -> (!stride.tensor<4xf32> {stride.writes = "y"}) {
  return %x : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{result #0 of type '!stride.tensor<4xf32, strides = [1], offset = 0>' writes argument 'x' of another type, '!stride.tensor<4xf32, strides = [2], offset = 0>'}}
func.func @f(%x: !stride.tensor<4xf32, strides = [2]> {stride.name = "x"}) -> (!stride.tensor<4xf32> {stride.writes = "x"}) {
  %c = stride.clone %x : !stride.tensor<4xf32, strides = [2]> -> !stride.tensor<4xf32>
  return %c : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{results #0 and #1 both write argument 'x'}}
func.func @f(%x: !stride.tensor<4xf32> {stride.name = "x"}) -> (!stride.tensor<4xf32> {stride.writes = "x"}, !stride.tensor<4xf32> {stride.writes = "x"}) {
  return %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{'stride.writes' of result #0 must be the name of an argument, but is 1 : i64}}
func.func @f(%x: !stride.tensor<4xf32> {stride.name = "x"}) -> (!stride.tensor<4xf32> {stride.writes = 1}) {
  return %x : !stride.tensor<4xf32>
}
// -----
// A state and its update verify (no diagnostic expected).
func.func @f(%c: !stride.tensor<4xf32> {stride.name = "c", stride.state = dense<1.0> : tensor<4xf32>})
    -> (!stride.tensor<4xf32> {stride.name = "new_c", stride.writes = "c"}) {
  %n = stride.neg %c : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %n : !stride.tensor<4xf32>
}
