// stride-instantiate-symbols: a function of symbolic sizes at given values
// of its symbols. Every symbol given: a static function without
// stride.symbols; some given: the others stay, with their ranges.
// RUN: stride-opt %s -split-input-file --stride-instantiate-symbols="values=batch=7,seq=33" -verify-diagnostics | FileCheck %s
// RUN: stride-opt %s -split-input-file --stride-instantiate-symbols="values=seq=33" -verify-diagnostics | FileCheck %s --check-prefix=PARTIAL

// CHECK-LABEL: func.func @block
// CHECK-SAME: (%{{.*}}: !stride.tensor<7x33x64xf32, strides = [2112, 64, 1], offset = 0> {stride.name = "x"}, %{{.*}}: !stride.tensor<7x34xi64, strides = [34, 1], offset = 0>)
// CHECK-SAME: -> (!stride.tensor<231x64xf32, strides = [64, 1], offset = 0>, !stride.tensor<7x33xi64, strides = [34, 1], offset = 1>)
// CHECK-NOT: stride.symbols
// CHECK: stride.view %{{.*}} : <7x33x64xf32, strides = [2112, 64, 1], offset = 0> -> <231x64xf32, strides = [64, 1], offset = 0>
// CHECK: stride.slice %{{.*}} dim 1 start 1 end 34 step 1 : <7x34xi64, strides = [34, 1], offset = 0> -> <7x33xi64, strides = [34, 1], offset = 1>
// PARTIAL-LABEL: func.func @block
// PARTIAL-SAME: (%{{.*}}: !stride.tensor<[batch, 33, 64], f32, strides = [2112, 64, 1], offset = 0> {stride.name = "x"}, %{{.*}}: !stride.tensor<[batch, 34], i64, strides = [34, 1], offset = 0>)
// PARTIAL-SAME: attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>]}
// PARTIAL: stride.view %{{.*}} -> <[batch*33, 64], f32, strides = [64, 1], offset = 0>
// PARTIAL: stride.slice %{{.*}} dim 1 start 1 end 34 step 1 : <[batch, 34], i64, strides = [34, 1], offset = 0> -> <[batch, 33], i64, strides = [34, 1], offset = 1>
func.func @block(%x: !stride.tensor<[batch, seq, 64], f32> {stride.name = "x"},
                 %p: !stride.tensor<[batch, seq + 1], i64>)
    -> (!stride.tensor<[batch*seq, 64], f32>, !stride.tensor<[batch, seq], i64, strides = [seq + 1, 1], offset = 1>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 1024]>]} {
  %v = stride.view %x : !stride.tensor<[batch, seq, 64], f32> -> !stride.tensor<[batch*seq, 64], f32>
  %s = stride.slice %p dim 1 start 1 end seq + 1 step 1 : !stride.tensor<[batch, seq + 1], i64> -> !stride.tensor<[batch, seq], i64, strides = [seq + 1, 1], offset = 1>
  return %v, %s : !stride.tensor<[batch*seq, 64], f32>, !stride.tensor<[batch, seq], i64, strides = [seq + 1, 1], offset = 1>
}

// -----

// A function without stride.symbols is left as it is.
// CHECK-LABEL: func.func @static
// CHECK: stride.relu %{{.*}} : <4x8xf32
// PARTIAL-LABEL: func.func @static
func.func @static(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  %r = stride.relu %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  return %r : !stride.tensor<4x8xf32>
}
