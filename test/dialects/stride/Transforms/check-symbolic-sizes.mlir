// Until kernels take sizes as arguments (issue 44), a graph with symbolic
// sizes stops at stride-check-symbolic-sizes, the first pass of the
// pipeline, with one located error; a static graph passes unchanged.
// RUN: stride-opt %s -split-input-file -verify-diagnostics --stride-pipeline
// RUN: stride-opt %s -split-input-file -verify-diagnostics --stride-check-symbolic-sizes
// stride-run on the reference interpreter meets the same check first.
// RUN: not stride-run %s --entry input --reference --random-inputs 2>&1 | FileCheck %s --check-prefix=RUNNER
// RUNNER: check-symbolic-sizes.mlir:{{[0-9]+}}:18: error: value 'x' has the symbolic size 'batch' (1 to 1024); Stride compiles symbolic sizes up to verification and layout legalization only

// expected-error @+1 {{value 'x' has the symbolic size 'batch' (1 to 1024); Stride compiles symbolic sizes up to verification and layout legalization only: kernels with sizes as arguments are not built yet (issue 44)}}
func.func @input(%x: !stride.tensor<[batch, 768], f32> {stride.name = "x"}) -> !stride.tensor<[batch, 768], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>]} {
  %y = stride.relu %x : !stride.tensor<[batch, 768], f32> -> !stride.tensor<[batch, 768], f32>
  return %y : !stride.tensor<[batch, 768], f32>
}

// -----

// A symbolic value inside a static-input graph: at the op that computes it.
func.func @inner(%x: !stride.tensor<1x768xf32>) -> !stride.tensor<[seq, 768], f32>
    attributes {stride.symbols = [#stride.symbol<"seq", range = [8, 4096], multiple_of = 8>]} {
  // expected-error @+1 {{result #0 of 'stride.expand' has the symbolic size 'seq' (8 to 4096, multiples of 8)}}
  %e = stride.expand %x : !stride.tensor<1x768xf32> -> !stride.tensor<[seq, 768], f32, strides = [0, 1]>
  %c = stride.clone %e : !stride.tensor<[seq, 768], f32, strides = [0, 1]> -> !stride.tensor<[seq, 768], f32>
  return %c : !stride.tensor<[seq, 768], f32>
}

// -----

// A static graph passes.
func.func @static(%x: !stride.tensor<4x768xf32>) -> !stride.tensor<4x768xf32> {
  %y = stride.relu %x : !stride.tensor<4x768xf32> -> !stride.tensor<4x768xf32>
  return %y : !stride.tensor<4x768xf32>
}
