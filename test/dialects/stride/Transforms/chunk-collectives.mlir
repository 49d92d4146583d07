// stride-chunk-collectives: a product only all-reduced becomes one product
// and one all-reduce per chunk of rows, and a cat of the chunks' results.
// The ranks' values do not change: the group simulated before and after
// the rewrite returns the same elements.
// RUN: stride-opt --stride-chunk-collectives="chunks=2 min-rows=4" %S/Inputs/row-parallel.mlir | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-opt --stride-chunk-collectives="chunks=2 min-rows=4" %S/Inputs/row-parallel.mlir -o %t/chunked.mlir
// RUN: stride-run %S/Inputs/row-parallel.mlir --entry even --simulate-ranks 2 --random-inputs --seed 5 --output-dir %t/even
// RUN: stride-run %t/chunked.mlir --entry even --simulate-ranks 2 --random-inputs --seed 5 --expect %t/even --rtol 0 | FileCheck %s --check-prefix=SAME
// RUN: stride-run %S/Inputs/row-parallel.mlir --entry uneven --simulate-ranks 2 --random-inputs --seed 5 --output-dir %t/uneven
// RUN: stride-run %t/chunked.mlir --entry uneven --simulate-ranks 2 --random-inputs --seed 5 --expect %t/uneven --rtol 0 | FileCheck %s --check-prefix=SAME
// SAME-COUNT-2: match
// The comparison can fail: other inputs give other elements.
// RUN: not stride-run %t/chunked.mlir --entry even --simulate-ranks 2 --random-inputs --seed 6 --expect %t/even --rtol 0 | FileCheck %s --check-prefix=OTHER
// OTHER: MISMATCH
//
// chunks=1 leaves every function as it was; so does a min-rows above them.
// RUN: stride-opt --stride-chunk-collectives="chunks=1 min-rows=4" %S/Inputs/row-parallel.mlir | FileCheck %s --check-prefix=OFF
// RUN: stride-opt --stride-chunk-collectives="chunks=2 min-rows=16" %S/Inputs/row-parallel.mlir | FileCheck %s --check-prefix=OFF
// OFF-COUNT-5: stride.all_reduce
// OFF-NOT: stride.cat
// RUN: not stride-opt --stride-chunk-collectives="chunks=0" %S/Inputs/row-parallel.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: stride-chunk-collectives: chunks and min-rows must be at least 1, not 0 and 1024

// CHECK-LABEL: func.func @even(
// CHECK-NEXT: %[[X0:.*]] = stride.slice %arg0 dim 0 start 0 end 4 step 1 : {{.*}} -> <4x4xf32, strides = [4, 1], offset = 0>
// CHECK-NEXT: %[[P0:.*]] = stride.matmul %[[X0]], %arg1 : {{.*}} -> <4x16xf32, strides = [16, 1], offset = 0>
// CHECK-NEXT: %[[R0:.*]] = stride.all_reduce %[[P0]] sum world_size 2
// CHECK-NEXT: %[[X1:.*]] = stride.slice %arg0 dim 0 start 4 end 8 step 1 : {{.*}} -> <4x4xf32, strides = [4, 1], offset = 16>
// CHECK-NEXT: %[[P1:.*]] = stride.matmul %[[X1]], %arg1
// CHECK-NEXT: %[[R1:.*]] = stride.all_reduce %[[P1]] sum world_size 2
// CHECK-NEXT: %[[R:.*]] = stride.cat %[[R0]], %[[R1]] dim 0 : {{.*}} -> <8x16xf32, strides = [16, 1], offset = 0>
// CHECK-NEXT: stride.add %[[R]], %[[R]]

// CHECK-LABEL: func.func @uneven(
// CHECK: stride.slice %arg0 dim 0 start 0 end 4 step 1
// CHECK: stride.all_reduce {{.*}} max world_size 2 : <4x16xf32
// CHECK: stride.slice %arg0 dim 0 start 4 end 9 step 1
// CHECK: stride.all_reduce {{.*}} max world_size 2 : <5x16xf32
// CHECK: stride.cat {{.*}} dim 0 : {{.*}} -> <9x16xf32

// CHECK-LABEL: func.func @kept(
// CHECK-NOT: stride.slice
// CHECK-NOT: stride.cat
// CHECK: return
