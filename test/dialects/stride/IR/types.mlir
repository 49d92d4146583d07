// The tensor type: strides and offset are optional in the input, always
// printed, and the printed form parses back identically.
// RUN: stride-opt %s | FileCheck %s
// RUN: stride-opt %s | stride-opt | FileCheck %s

// CHECK-LABEL: func.func @contiguous
// CHECK-SAME: !stride.tensor<4x13x33xf32, strides = [429, 33, 1], offset = 0>
func.func @contiguous(%x: !stride.tensor<4x13x33xf32>) { return }

// CHECK-LABEL: func.func @explicit
// CHECK-SAME: !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 7>
func.func @explicit(%x: !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 7>) { return }

// CHECK-LABEL: func.func @offset_only
// CHECK-SAME: !stride.tensor<2x3xbf16, strides = [3, 1], offset = 5>
func.func @offset_only(%x: !stride.tensor<2x3xbf16, offset = 5>) { return }

// CHECK-LABEL: func.func @scalar_and_empty
// CHECK-SAME: !stride.tensor<f64, strides = [], offset = 0>
// CHECK-SAME: !stride.tensor<0x4xi8, strides = [4, 1], offset = 0>
func.func @scalar_and_empty(%x: !stride.tensor<f64>, %y: !stride.tensor<0x4xi8>) { return }

// CHECK-LABEL: func.func @element_types
// CHECK-SAME: f16
// CHECK-SAME: i1
// CHECK-SAME: i32
// CHECK-SAME: i64
func.func @element_types(%a: !stride.tensor<2xf16>, %b: !stride.tensor<2xi1>,
                         %c: !stride.tensor<2xi32>, %d: !stride.tensor<2xi64>) { return }
