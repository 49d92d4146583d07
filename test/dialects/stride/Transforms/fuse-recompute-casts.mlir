// A cast that only converts (its input's layout, elements no narrower),
// read by several kernels, is computed in each of them from its input
// (python-free-docs/fusion.md, rule 8): the patterns of ResNet-50's bf16
// training backward, where it was a kernel of its own that wrote the f32
// activation once and every reader read it back.
// RUN: stride-opt --stride-fuse -split-input-file %s | FileCheck %s
// Before (recompute-casts=false): the cast is a kernel of its own.
// RUN: stride-opt --stride-fuse=recompute-casts=false -split-input-file %s | FileCheck %s --check-prefix=BEFORE
// Fusing again changes nothing:
// RUN: stride-opt --stride-fuse -split-input-file %s > %t.once
// RUN: stride-opt --stride-fuse --stride-fuse -split-input-file %s > %t.twice
// RUN: diff %t.once %t.twice

// Batch norm's backward widens a saved bf16 activation to f32 for two
// reductions of different rows (here: over the batch, and over the
// channels). Each kernel reads the bf16 buffer and converts it.
// CHECK-LABEL: func.func @two_reductions
// CHECK-NOT:  "cast_kernel"
// CHECK:      stride.kernel "cast_sum" ins(%arg0 : !stride.tensor<8x16xbf16
// CHECK:        stride.cast
// CHECK:        stride.sum
// CHECK:      stride.kernel "cast_sum_1" ins(%arg0 : !stride.tensor<8x16xbf16
// CHECK:        stride.cast
// CHECK:        stride.sum
// BEFORE-LABEL: func.func @two_reductions
// BEFORE:     %[[C:.*]] = stride.kernel "cast_kernel" ins(%arg0 : !stride.tensor<8x16xbf16
// BEFORE:     stride.kernel "sum_kernel" ins(%[[C]] : !stride.tensor<8x16xf32
// BEFORE:     stride.kernel "sum_kernel_1" ins(%[[C]] : !stride.tensor<8x16xf32
func.func @two_reductions(%x: !stride.tensor<8x16xbf16>)
    -> (!stride.tensor<16xf32>, !stride.tensor<8xf32>) {
  %c = stride.cast %x : !stride.tensor<8x16xbf16> -> !stride.tensor<8x16xf32>
  %a = stride.sum %c dims [0] : !stride.tensor<8x16xf32> -> !stride.tensor<16xf32>
  %b = stride.sum %c dims [1] : !stride.tensor<8x16xf32> -> !stride.tensor<8xf32>
  return %a, %b : !stride.tensor<16xf32>, !stride.tensor<8xf32>
}

// -----

// A reduction and a pointwise kernel: the cast was an extra f32 result of
// the pointwise kernel, which the reduction read back.
// CHECK-LABEL: func.func @reduction_and_pointwise
// CHECK:      stride.kernel "cast_mul" ins(%arg0, %arg1 : !stride.tensor<8x16xbf16
// CHECK-SAME:   -> (!stride.tensor<8x16xf32, strides = [16, 1], offset = 0>)
// CHECK:      stride.kernel "cast_sum" ins(%arg0 : !stride.tensor<8x16xbf16
// BEFORE-LABEL: func.func @reduction_and_pointwise
// BEFORE:     %[[K:.*]]:2 = stride.kernel "cast_mul" ins(%arg0, %arg1 :
// BEFORE:     stride.kernel "sum_kernel" ins(%[[K]]#0 : !stride.tensor<8x16xf32
func.func @reduction_and_pointwise(%x: !stride.tensor<8x16xbf16>,
                                   %g: !stride.tensor<8x16xf32>)
    -> (!stride.tensor<8x16xf32>, !stride.tensor<16xf32>) {
  %c = stride.cast %x : !stride.tensor<8x16xbf16> -> !stride.tensor<8x16xf32>
  %m = stride.mul %c, %g : !stride.tensor<8x16xf32>, !stride.tensor<8x16xf32>
      -> !stride.tensor<8x16xf32>
  %s = stride.sum %c dims [0] : !stride.tensor<8x16xf32> -> !stride.tensor<16xf32>
  return %m, %s : !stride.tensor<8x16xf32>, !stride.tensor<16xf32>
}

// -----

// A per-channel vector (batch norm's saved mean) widened and read
// broadcast by two kernels: each converts it where it reads it.
// CHECK-LABEL: func.func @broadcast_vector
// CHECK-NOT:  "cast_kernel"
// CHECK:      stride.kernel "cast_sub_sum" ins(%arg0, %arg1 :
// CHECK:      stride.kernel "cast_sub_mul" ins(%arg2, %arg1, %arg0 :
// BEFORE-LABEL: func.func @broadcast_vector
// BEFORE:     stride.kernel "cast_kernel" ins(%arg1 : !stride.tensor<16xbf16
func.func @broadcast_vector(%x: !stride.tensor<8x16xf32>, %mean: !stride.tensor<16xbf16>,
                            %w: !stride.tensor<8x16xf32>)
    -> (!stride.tensor<8xf32>, !stride.tensor<8x16xf32>) {
  %c = stride.cast %mean : !stride.tensor<16xbf16> -> !stride.tensor<16xf32>
  %u = stride.unsqueeze %c dim 0 : !stride.tensor<16xf32> -> !stride.tensor<1x16xf32, strides = [16, 1]>
  %e = stride.expand %u : !stride.tensor<1x16xf32, strides = [16, 1]>
      -> !stride.tensor<8x16xf32, strides = [0, 1]>
  %d = stride.sub %x, %e : !stride.tensor<8x16xf32>, !stride.tensor<8x16xf32, strides = [0, 1]>
      -> !stride.tensor<8x16xf32>
  %s = stride.sum %d dims [1] : !stride.tensor<8x16xf32> -> !stride.tensor<8xf32>
  %d2 = stride.sub %w, %e : !stride.tensor<8x16xf32>, !stride.tensor<8x16xf32, strides = [0, 1]>
      -> !stride.tensor<8x16xf32>
  %m = stride.mul %d2, %x : !stride.tensor<8x16xf32>, !stride.tensor<8x16xf32>
      -> !stride.tensor<8x16xf32>
  return %s, %m : !stride.tensor<8xf32>, !stride.tensor<8x16xf32>
}

// -----

// Not recomputed: a narrowing cast (each reader would read twice the
// bytes of the value it needs), a cast that also changes the layout (a
// transpose, which each reader would do again), and a returned cast.
// CHECK-LABEL: func.func @kept
// CHECK:      %[[N:.*]] = stride.kernel "cast_kernel" ins(%arg0 : !stride.tensor<8x16xf32
// CHECK:      stride.kernel "sum_kernel" ins(%[[N]] :
// CHECK:      stride.kernel "sum_kernel_1" ins(%[[N]] :
// CHECK:      %[[T:.*]] = stride.kernel "cast_kernel_1" ins(%arg1 : !stride.tensor<8x16xbf16
// CHECK-SAME:   -> (!stride.tensor<8x16xf32, strides = [1, 8], offset = 0>)
// CHECK:      stride.kernel "sum_kernel_2" ins(%[[T]] :
// CHECK:      stride.kernel "sum_kernel_3" ins(%[[T]] :
// CHECK:      %[[R:.*]] = stride.kernel "cast_kernel_2" ins(%arg2 :
// CHECK:      %[[S:.*]] = stride.kernel "sum_kernel_4" ins(%[[R]] :
// CHECK:      return {{.*}}, %[[R]], %[[S]] :
func.func @kept(%x: !stride.tensor<8x16xf32>, %y: !stride.tensor<8x16xbf16>,
                %z: !stride.tensor<8x16xbf16>)
    -> (!stride.tensor<16xbf16>, !stride.tensor<8xbf16>,
        !stride.tensor<16xf32>, !stride.tensor<8xf32>,
        !stride.tensor<8x16xf32>, !stride.tensor<16xf32>) {
  %n = stride.cast %x : !stride.tensor<8x16xf32> -> !stride.tensor<8x16xbf16>
  %n0 = stride.sum %n dims [0] : !stride.tensor<8x16xbf16> -> !stride.tensor<16xbf16>
  %n1 = stride.sum %n dims [1] : !stride.tensor<8x16xbf16> -> !stride.tensor<8xbf16>
  %t = stride.cast %y : !stride.tensor<8x16xbf16>
      -> !stride.tensor<8x16xf32, strides = [1, 8]>
  %t0 = stride.sum %t dims [0] : !stride.tensor<8x16xf32, strides = [1, 8]> -> !stride.tensor<16xf32>
  %t1 = stride.sum %t dims [1] : !stride.tensor<8x16xf32, strides = [1, 8]> -> !stride.tensor<8xf32>
  %r = stride.cast %z : !stride.tensor<8x16xbf16> -> !stride.tensor<8x16xf32>
  %r0 = stride.sum %r dims [0] : !stride.tensor<8x16xf32> -> !stride.tensor<16xf32>
  return %n0, %n1, %t0, %t1, %r, %r0 : !stride.tensor<16xbf16>, !stride.tensor<8xbf16>,
      !stride.tensor<16xf32>, !stride.tensor<8xf32>, !stride.tensor<8x16xf32>,
      !stride.tensor<16xf32>
}
