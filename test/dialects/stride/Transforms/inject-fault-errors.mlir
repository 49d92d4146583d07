// stride-test-inject-fault knows a counterpart for add, sub, mul, div,
// maximum and minimum only.
// RUN: stride-opt "--stride-test-inject-fault=op=exp" -verify-diagnostics %s

// expected-error @+1 {{stride-test-inject-fault has no fault for 'exp': expected one of add, sub, mul, div, maximum, minimum}}
func.func @f(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %e = stride.exp %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %e : !stride.tensor<4xf32>
}
