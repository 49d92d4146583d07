// stride-prepare-collectives: a gather or scatter along an inner dim becomes
// one along dim 0 of a row-major copy with that dim first, permuted back and
// copied into the op's result type; a collective of a strided view reads a
// row-major copy. The ranks' values do not change: the group simulated
// before and after the rewrite returns the same elements.
// RUN: stride-opt --stride-prepare-collectives %S/Inputs/inner-collectives.mlir | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-opt --stride-prepare-collectives %S/Inputs/inner-collectives.mlir -o %t/prepared.mlir
// RUN: stride-run %S/Inputs/inner-collectives.mlir --simulate-ranks 2 --random-inputs --seed 7 --output-dir %t/before
// RUN: stride-run %t/prepared.mlir --simulate-ranks 2 --random-inputs --seed 7 --expect %t/before --rtol 0 | FileCheck %s --check-prefix=SAME
// SAME-COUNT-6: match
// The comparison can fail: other inputs give other elements.
// RUN: not stride-run %t/prepared.mlir --simulate-ranks 2 --random-inputs --seed 8 --expect %t/before --rtol 0 | FileCheck %s --check-prefix=OTHER
// OTHER: MISMATCH

// CHECK-LABEL: func.func @inner(
// CHECK-NEXT: %[[P:.*]] = stride.permute %arg0 dims [1, 0, 2] : {{.*}} -> <3x2x4xf32, strides = [4, 12, 1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = stride.clone %[[P]] : {{.*}} -> <3x2x4xf32, strides = [8, 4, 1], offset = 0>
// CHECK-NEXT: %[[G:.*]] = stride.all_gather %[[C]] dim 0 world_size 2 : {{.*}} -> <6x2x4xf32, strides = [8, 4, 1], offset = 0>
// CHECK-NEXT: %[[B:.*]] = stride.permute %[[G]] dims [1, 0, 2]
// CHECK-NEXT: %[[GATHER:.*]] = stride.clone %[[B]] : {{.*}} -> <2x6x4xf32, strides = [24, 4, 1], offset = 0>
// CHECK-NEXT: %[[P2:.*]] = stride.permute %arg0 dims [2, 0, 1]
// CHECK-NEXT: %[[C2:.*]] = stride.clone %[[P2]] : {{.*}} -> <4x2x3xf32, strides = [6, 3, 1], offset = 0>
// CHECK-NEXT: %[[S:.*]] = stride.reduce_scatter %[[C2]] sum dim 0 world_size 2 : {{.*}} -> <2x2x3xf32, strides = [6, 3, 1], offset = 0>
// CHECK-NEXT: %[[B2:.*]] = stride.permute %[[S]] dims [1, 2, 0]
// CHECK-NEXT: %[[SCATTER:.*]] = stride.clone %[[B2]] : {{.*}} -> <2x3x2xf32, strides = [6, 2, 1], offset = 0>
// CHECK-NEXT: stride.select
// CHECK-NEXT: %[[T:.*]] = stride.permute
// CHECK-NEXT: %[[C3:.*]] = stride.clone %[[T]] : <4x3xf32, strides = [1, 4], offset = 12> -> <4x3xf32, strides = [3, 1], offset = 0>
// CHECK-NEXT: %[[R:.*]] = stride.all_reduce %[[C3]] sum world_size 2
// CHECK-NEXT: return %[[GATHER]], %[[SCATTER]], %[[R]]
