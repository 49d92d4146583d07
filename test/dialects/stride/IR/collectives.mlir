// The collectives parse, verify and print back.
// RUN: stride-opt %s | FileCheck %s
// RUN: stride-opt %s | stride-opt | FileCheck %s

// CHECK-LABEL: func.func @collectives
// CHECK: stride.all_reduce %{{.*}} sum world_size 2 : <4x16xbf16, {{.*}}> -> <4x16xbf16,
// CHECK: stride.all_reduce %{{.*}} avg world_size 4 :
// CHECK: stride.all_reduce %{{.*}} max world_size 2 : <4x16xi32,
// CHECK: stride.all_gather %{{.*}} dim 1 world_size 2 : <4x8xf32, {{.*}}> -> <4x16xf32,
// CHECK: stride.reduce_scatter %{{.*}} min dim 0 world_size 2 : <8x16xf32, {{.*}}> -> <4x16xf32,
func.func @collectives(%x: !stride.tensor<4x16xbf16>, %i: !stride.tensor<4x16xi32>,
                       %g: !stride.tensor<4x8xf32>, %s: !stride.tensor<8x16xf32>) {
  %0 = stride.all_reduce %x sum world_size 2 : !stride.tensor<4x16xbf16> -> !stride.tensor<4x16xbf16>
  %1 = stride.all_reduce %x avg world_size 4 : !stride.tensor<4x16xbf16> -> !stride.tensor<4x16xbf16>
  %2 = stride.all_reduce %i max world_size 2 : !stride.tensor<4x16xi32> -> !stride.tensor<4x16xi32>
  %3 = stride.all_gather %g dim 1 world_size 2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x16xf32>
  %4 = stride.reduce_scatter %s min dim 0 world_size 2 : !stride.tensor<8x16xf32> -> !stride.tensor<4x16xf32>
  return
}
