// stride-outline-executable: kernels move into the executable (outlined, no
// operands, schedule kept), and the entry becomes steps over buffers.
// RUN: stride-opt --stride-pipeline="fuse=false form-kernels" --stride-schedule-kernels --stride-outline-executable -split-input-file %s | FileCheck %s

// A view outside kernels allocates nothing: the second kernel reads the
// first one's buffer through the view's layout (its parameter's type). A
// value returned twice gets a second buffer, filled by a copy.
// CHECK-LABEL: plan.executable @views_kernels {
// CHECK: stride.kernel "exp_0" attributes {stride.schedule = #stride.schedule<scheme = vectorized
// CHECK-SAME: -> (!stride.tensor<4x8xf32, strides = [8, 1], offset = 0>)
// CHECK: stride.kernel "neg_1" attributes {stride.schedule = #stride.schedule<scheme = tiled_transpose
// CHECK-NEXT: ^bb0(%{{.*}}: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
// CHECK-LABEL: func.func @views(
// CHECK-NEXT: %[[X:.*]] = plan.input %arg0
// CHECK-NEXT: %[[E:.*]] = plan.alloc 128 bytes
// CHECK-NEXT: plan.dispatch @views_kernels::@exp_0(%[[X]], %[[E]])
// CHECK-NEXT: %[[N:.*]] = plan.alloc 128 bytes
// CHECK-NEXT: plan.dispatch @views_kernels::@neg_1(%[[E]], %[[N]])
// CHECK-NEXT: %[[R0:.*]] = plan.output %[[N]] : !stride.tensor<8x4xf32, strides = [4, 1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = plan.alloc 128 bytes
// CHECK-NEXT: plan.copy %[[N]] to %[[C]] size 128
// CHECK-NEXT: %[[R1:.*]] = plan.output %[[C]]
// CHECK-NEXT: return %[[R0]], %[[R1]]
func.func @views(%x: !stride.tensor<4x8xf32>) -> (!stride.tensor<8x4xf32>, !stride.tensor<8x4xf32>) {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t = stride.permute %e dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %r = stride.neg %t : !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<8x4xf32>
  return %r, %r : !stride.tensor<8x4xf32>, !stride.tensor<8x4xf32>
}

// -----

// A returned reshape of a whole kernel result is that result's buffer under
// the returned type; the same buffer returned again (here the result
// itself) is copied into a buffer of its own.
// CHECK-LABEL: func.func @reshape_returned(
// CHECK-NEXT: %[[X:.*]] = plan.input %arg0
// CHECK-NEXT: %[[E:.*]] = plan.alloc 128 bytes
// CHECK-NEXT: plan.dispatch @reshape_returned_kernels::@exp_0(%[[X]], %[[E]])
// CHECK-NEXT: %[[R0:.*]] = plan.output %[[E]] : !stride.tensor<32xf32, strides = [1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = plan.alloc 128 bytes
// CHECK-NEXT: plan.copy %[[E]] to %[[C]] size 128
// CHECK-NEXT: %[[R1:.*]] = plan.output %[[C]] : !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>
// CHECK-NEXT: return %[[R0]], %[[R1]]
func.func @reshape_returned(%x: !stride.tensor<4x8xf32>) -> (!stride.tensor<32xf32>, !stride.tensor<4x8xf32>) {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %v = stride.view %e : !stride.tensor<4x8xf32> -> !stride.tensor<32xf32>
  return %v, %e : !stride.tensor<32xf32>, !stride.tensor<4x8xf32>
}

// -----

// An argument returned as it is, or through views, is an aliased output:
// the plan.output of its plan.input, no buffer and no copy, once for each
// return (here %x twice, and a transposed slice of it).
// CHECK-LABEL: func.func @returns_inputs(
// CHECK-NEXT: %[[X:.*]] = plan.input %arg0
// CHECK-NEXT: %[[E:.*]] = plan.alloc 128 bytes
// CHECK-NEXT: plan.dispatch @returns_inputs_kernels::@exp_0(%[[X]], %[[E]])
// CHECK-NEXT: %[[R0:.*]] = plan.output %[[E]]
// CHECK-NEXT: %[[R1:.*]] = plan.output %[[X]] : !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[R2:.*]] = plan.output %[[X]] : !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[R3:.*]] = plan.output %[[X]] : !stride.tensor<8x2xf32, strides = [1, 8], offset = 16>
// CHECK-NOT: plan.copy
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
func.func @returns_inputs(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<8x2xf32, strides = [1, 8], offset = 16>) {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s = stride.slice %x dim 0 start 2 end 4 step 1 : !stride.tensor<4x8xf32>
      -> !stride.tensor<2x8xf32, strides = [8, 1], offset = 16>
  %t = stride.permute %s dims [1, 0] : !stride.tensor<2x8xf32, strides = [8, 1], offset = 16>
      -> !stride.tensor<8x2xf32, strides = [1, 8], offset = 16>
  return %e, %x, %x, %t : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<8x2xf32, strides = [1, 8], offset = 16>
}

// -----

// A kernel's scratch (the schedule's `scratch`, bytes each) is a zeroed
// buffer of its own, after the results; sizes are rounded up to 16 bytes.
// CHECK-LABEL: func.func @segmented(
// CHECK: %[[X:.*]] = plan.input %arg0
// CHECK: %[[I:.*]] = plan.input %arg1
// CHECK: %[[S:.*]] = plan.input %arg2
// CHECK: %[[R:.*]] = plan.alloc 2880 bytes{{$}}
// CHECK-NEXT: %[[C:.*]] = plan.alloc 80 bytes zeroed
// CHECK-NEXT: %[[B:.*]] = plan.alloc 2560 bytes zeroed
// CHECK-NEXT: %[[H:.*]] = plan.alloc 192 bytes zeroed
// CHECK-NEXT: %[[L:.*]] = plan.alloc 480 bytes zeroed
// CHECK-NEXT: %[[Q:.*]] = plan.alloc 144 bytes zeroed
// CHECK-NEXT: %[[P:.*]] = plan.alloc 16 bytes zeroed
// CHECK-NEXT: plan.dispatch @segmented_kernels::@index_add_0(%[[X]], %[[I]], %[[S]], %[[R]], %[[C]], %[[B]], %[[H]], %[[L]], %[[Q]], %[[P]])
func.func @segmented(%x: !stride.tensor<20x36xf32>, %idx: !stride.tensor<50xi64>,
                     %src: !stride.tensor<50x36xf32>) -> !stride.tensor<20x36xf32> {
  %r = stride.index_add %x, %idx, %src dim 0 : !stride.tensor<20x36xf32>,
      !stride.tensor<50xi64>, !stride.tensor<50x36xf32> -> !stride.tensor<20x36xf32>
  return %r : !stride.tensor<20x36xf32>
}

// -----

// The executable's name does not collide with a symbol of the module.
// CHECK: plan.executable @graph_kernels_0 {
// CHECK: plan.executable @graph_kernels {
// CHECK: plan.dispatch @graph_kernels_0::@neg_0(
plan.executable @graph_kernels {
}
func.func @graph(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %r = stride.neg %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %r : !stride.tensor<4xf32>
}
