// Sibling index scatters share a kernel (python-free-docs/fusion.md, rule
// 7): along one dim, into results of one shape, with one index expression,
// neither reading the other's result.
// RUN: stride-opt --stride-fuse -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-fuse="sibling-scatters=false" -split-input-file %s | FileCheck %s --check-prefix=APART
// Fusing again changes nothing:
// RUN: stride-opt --stride-fuse -split-input-file %s > %t.once
// RUN: stride-opt --stride-fuse --stride-fuse -split-input-file %s > %t.twice
// RUN: diff %t.once %t.twice

// A decoder's key and value cache writes at one position: the key's
// rotary product and both scatters are one kernel that yields each cache;
// the index, read through a view chain of its own by each scatter, is one
// expression of the position.
// CHECK-LABEL: func.func @cache_writes
// CHECK:      %[[K:.*]]:2 = stride.kernel "mul_scatter_scatter" ins(%arg2, %arg0, %arg4, %arg1, %arg3 :
// CHECK-SAME:   -> (!stride.tensor<1x2x8x4xf32, strides = [64, 32, 4, 1], offset = 0>, !stride.tensor<1x2x8x4xf32, strides = [64, 32, 4, 1], offset = 0>)
// CHECK:        %[[KW:.*]] = stride.scatter
// CHECK:        %[[VW:.*]] = stride.scatter
// CHECK-NEXT:   stride.yield %[[KW]], %[[VW]]
// CHECK-NOT:  stride.kernel
// CHECK:      return %[[K]]#0, %[[K]]#1
// APART-LABEL: func.func @cache_writes
// APART:      stride.kernel "mul_scatter"
// APART:      stride.kernel "scatter_kernel"
func.func @cache_writes(%kc: !stride.tensor<1x2x8x4xf32>, %vc: !stride.tensor<1x2x8x4xf32>,
                        %k: !stride.tensor<1x2x1x4xf32>, %v: !stride.tensor<1x2x1x4xf32>,
                        %pos: !stride.tensor<1xi64>)
    -> (!stride.tensor<1x2x8x4xf32>, !stride.tensor<1x2x8x4xf32>) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1x1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1x1x1xi64>
      -> !stride.tensor<1x2x1x4xi64, strides = [1, 0, 1, 0], offset = 0>
  %r = stride.mul %k, %k : !stride.tensor<1x2x1x4xf32>, !stride.tensor<1x2x1x4xf32>
      -> !stride.tensor<1x2x1x4xf32>
  %kw = stride.scatter %kc, %i, %r dim 2 : !stride.tensor<1x2x8x4xf32>,
      !stride.tensor<1x2x1x4xi64, strides = [1, 0, 1, 0], offset = 0>,
      !stride.tensor<1x2x1x4xf32> -> !stride.tensor<1x2x8x4xf32>
  %p2 = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1x1x1xi64>
  %i2 = stride.expand %p2 : !stride.tensor<1x1x1x1xi64>
      -> !stride.tensor<1x2x1x4xi64, strides = [1, 0, 1, 0], offset = 0>
  %vw = stride.scatter %vc, %i2, %v dim 2 : !stride.tensor<1x2x8x4xf32>,
      !stride.tensor<1x2x1x4xi64, strides = [1, 0, 1, 0], offset = 0>,
      !stride.tensor<1x2x1x4xf32> -> !stride.tensor<1x2x8x4xf32>
  return %kw, %vw : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x2x8x4xf32>
}

// -----

// A scatter_add beside a scatter of the same index: siblings (each writes
// or adds into its own result).
// CHECK-LABEL: func.func @write_and_add
// CHECK:      %[[K:.*]]:2 = stride.kernel "scatter_scatter_add"
// CHECK-NOT:  stride.kernel
// CHECK:      return %[[K]]#0, %[[K]]#1
func.func @write_and_add(%x: !stride.tensor<4x3xf32>, %y: !stride.tensor<4x3xf32>,
                         %i: !stride.tensor<2x3xi64>, %s: !stride.tensor<2x3xf32>)
    -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  %a = stride.scatter %x, %i, %s dim 0 : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %b = stride.scatter_add %y, %i, %s dim 0 : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  return %a, %b : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
}

// -----

// No siblings: another dim, another index, another result shape, an
// index_add (its index selects whole slices).
// CHECK-LABEL: func.func @no_siblings
// CHECK-COUNT-5: stride.kernel "
// CHECK-NOT:  stride.kernel
func.func @no_siblings(%x: !stride.tensor<4x4xf32>, %z: !stride.tensor<5x4xf32>,
                       %i: !stride.tensor<2x4xi64>, %j: !stride.tensor<2x4xi64>,
                       %s: !stride.tensor<2x4xf32>, %w: !stride.tensor<2xi64>)
    -> (!stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>,
        !stride.tensor<5x4xf32>, !stride.tensor<4x4xf32>) {
  %a = stride.scatter %x, %i, %s dim 0 : !stride.tensor<4x4xf32>,
      !stride.tensor<2x4xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<4x4xf32>
  %b = stride.scatter %x, %i, %s dim 1 : !stride.tensor<4x4xf32>,
      !stride.tensor<2x4xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<4x4xf32>
  %c = stride.scatter %x, %j, %s dim 0 : !stride.tensor<4x4xf32>,
      !stride.tensor<2x4xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<4x4xf32>
  %d = stride.scatter %z, %i, %s dim 0 : !stride.tensor<5x4xf32>,
      !stride.tensor<2x4xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<5x4xf32>
  %e = stride.index_add %x, %w, %s dim 0 : !stride.tensor<4x4xf32>,
      !stride.tensor<2xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<4x4xf32>
  return %a, %b, %c, %d, %e : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>,
      !stride.tensor<4x4xf32>, !stride.tensor<5x4xf32>, !stride.tensor<4x4xf32>
}

// -----

// The second scatter's source reads the first's result through a kernel
// between them (an exp also returned): one kernel would read its own
// result, so they stay apart.
// CHECK-LABEL: func.func @reads_the_other
// CHECK:      %[[A:.*]] = stride.kernel "scatter_kernel" ins(
// CHECK:      %[[E:.*]] = stride.kernel "exp_kernel" ins(%[[A]] :
// CHECK:      stride.kernel "scatter_kernel_1" ins({{.*}}%[[E]]
func.func @reads_the_other(%x: !stride.tensor<4x3xf32>, %y: !stride.tensor<4x3xf32>,
                           %i: !stride.tensor<2x3xi64>, %s: !stride.tensor<2x3xf32>)
    -> (!stride.tensor<4x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<4x3xf32>) {
  %a = stride.scatter %x, %i, %s dim 0 : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %t = stride.slice %a dim 0 start 0 end 2 step 1 : !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %e = stride.exp %t : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %b = stride.scatter %y, %i, %e dim 0 : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  return %a, %e, %b : !stride.tensor<4x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<4x3xf32>
}

// -----

// Bounded like any kernel (max-kernel-ops): two scatters of 2 ops each do
// not fit a kernel of 3.
// RUN: stride-opt --stride-fuse="max-kernel-ops=3" %s -split-input-file | FileCheck %s --check-prefix=BOUND
// BOUND-LABEL: func.func @bounded
// BOUND-COUNT-2: stride.kernel "neg_scatter
func.func @bounded(%x: !stride.tensor<4x3xf32>, %y: !stride.tensor<4x3xf32>,
                   %i: !stride.tensor<2x3xi64>, %s: !stride.tensor<2x3xf32>)
    -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  %n = stride.neg %s : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %a = stride.scatter %x, %i, %n dim 0 : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %m = stride.neg %s : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %b = stride.scatter %y, %i, %m dim 0 : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  return %a, %b : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
}
