// stride-outline-executable turns each collective into a plan.collective
// step from its input's buffer (at the input's byte offset: a view of a
// buffer is read in place) into a plan.alloc of its own, with NCCL's count:
// the all_reduce's elements, each rank's elements of an all_gather, each
// rank's part of a reduce_scatter.
// RUN: stride-opt --stride-outline-executable -split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @each(
// CHECK-NEXT: %[[X:.*]] = plan.input %arg0
// CHECK-NEXT: %[[Y:.*]] = plan.input %arg1
// CHECK-NEXT: %[[R:.*]] = plan.alloc 256 bytes
// CHECK-NEXT: plan.collective all_reduce reduction sum %[[X]][0] to %[[R]] count 64 x f32 world_size 2
// CHECK-NEXT: %[[G:.*]] = plan.alloc 256 bytes
// CHECK-NEXT: plan.collective all_gather %[[X]][128] to %[[G]] count 32 x f32 world_size 2
// CHECK-NEXT: %[[S:.*]] = plan.alloc 64 bytes
// CHECK-NEXT: plan.collective reduce_scatter reduction avg %[[R]][0] to %[[S]] count 16 x f32 world_size 4
// CHECK-NEXT: %[[M:.*]] = plan.alloc 128 bytes
// CHECK-NEXT: plan.collective all_reduce reduction max %[[Y]][0] to %[[M]] count 64 x bf16 world_size 2
// CHECK: return
func.func @each(%x: !stride.tensor<4x16xf32>, %y: !stride.tensor<64xbf16>)
    -> (!stride.tensor<4x16xf32>, !stride.tensor<4x16xf32>, !stride.tensor<1x16xf32>, !stride.tensor<64xbf16>) {
  %r = stride.all_reduce %x sum world_size 2
      : !stride.tensor<4x16xf32> -> !stride.tensor<4x16xf32>
  // Rows 2 and 3 of %x: 32 elements at byte 128.
  %rows = stride.slice %x dim 0 start 2 end 4 step 1
      : !stride.tensor<4x16xf32> -> !stride.tensor<2x16xf32, strides = [16, 1], offset = 32>
  %g = stride.all_gather %rows dim 0 world_size 2
      : !stride.tensor<2x16xf32, strides = [16, 1], offset = 32> -> !stride.tensor<4x16xf32>
  %s = stride.reduce_scatter %r avg dim 0 world_size 4
      : !stride.tensor<4x16xf32> -> !stride.tensor<1x16xf32>
  %m = stride.all_reduce %y max world_size 2
      : !stride.tensor<64xbf16> -> !stride.tensor<64xbf16>
  return %r, %g, %s, %m : !stride.tensor<4x16xf32>, !stride.tensor<4x16xf32>, !stride.tensor<1x16xf32>, !stride.tensor<64xbf16>
}

// -----

// A collective of no elements exchanges nothing: its result has a buffer
// and no step.
// CHECK-LABEL: func.func @empty(
// CHECK-NEXT: plan.input
// CHECK-NEXT: plan.alloc 16 bytes
// CHECK-NEXT: plan.output
func.func @empty(%x: !stride.tensor<0x4xf32>) -> !stride.tensor<0x4xf32> {
  %r = stride.all_reduce %x sum world_size 2
      : !stride.tensor<0x4xf32> -> !stride.tensor<0x4xf32>
  return %r : !stride.tensor<0x4xf32>
}
