// The stride.name argument and result attribute (StrideDialect::kNameAttrName):
// a non-empty string; any other stride. attribute on an argument or result is
// refused.
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
// expected-error @+1 {{unknown attribute 'stride.label' on argument #0; the stride dialect defines only 'stride.name' (the name of a graph input or output)}}
func.func @f(%x: !stride.tensor<4xf32> {stride.label = "x"}) {
  return
}
// -----
// expected-error @+1 {{'stride.name' of result #0 must be a non-empty string (the name of a graph input or output), but is ["y"]}}
func.func @f(%x: !stride.tensor<4xf32>) -> (!stride.tensor<4xf32> {stride.name = ["y"]}) {
  return %x : !stride.tensor<4xf32>
}
// -----
// expected-error @+1 {{unknown attribute 'stride.nmae' on result #0; the stride dialect defines only 'stride.name' (the name of a graph input or output)}}
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
