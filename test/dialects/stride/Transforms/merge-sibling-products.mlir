// stride-merge-sibling-products (python-free-docs/matmul.md, "Sibling
// products"): 2-D products of the same activations against constant
// weights become one product over the weights concatenated along N and a
// slice of its columns for each, the views of each result re-inferred on
// its slice; and the products that must stay apart.
// RUN: stride-opt --stride-merge-sibling-products -split-input-file %s | FileCheck %s
// The pipeline runs it by default; merge-sibling-products=false keeps the
// products apart:
// RUN: stride-opt --stride-pipeline -split-input-file %s | FileCheck %s --check-prefix=PIPE
// RUN: stride-opt --stride-pipeline=merge-sibling-products=false -split-input-file %s | FileCheck %s --check-prefix=OFF

// LLaMA's query, key and value projections at one row (a decode step):
// each linear layer reads a view of its own of the normed hidden state and
// an nn.Linear weight [N, K] through a permute. The weights become one
// [16, 8] constant (q's rows, then k's, then v's: a splat expanded), the
// product [1, 16]; q's view into heads and the permute after it read the
// slice in place.
// CHECK-LABEL: func.func @qkv
// CHECK-NEXT: %[[X:.*]] = stride.view %arg0 : <1x1x8xbf16, strides = [8, 8, 1], offset = 0> -> <1x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[W:.*]] = stride.constant dense<"0x803F803F{{(803F)+}}0040{{(0040)+}}803F00404040{{.*}}"> : tensor<16x8xbf16> : <16x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[T:.*]] = stride.permute %[[W]] dims [1, 0] : <16x8xbf16, strides = [8, 1], offset = 0> -> <8x16xbf16, strides = [1, 8], offset = 0>
// CHECK-NEXT: %[[P:.*]] = stride.matmul %[[X]], %[[T]] : <1x8xbf16, strides = [8, 1], offset = 0>, <8x16xbf16, strides = [1, 8], offset = 0> -> <1x16xbf16, strides = [16, 1], offset = 0>
// CHECK-NEXT: %[[Q:.*]] = stride.slice %[[P]] dim 1 start 0 end 8 step 1 : <1x16xbf16, strides = [16, 1], offset = 0> -> <1x8xbf16, strides = [16, 1], offset = 0>
// CHECK-NEXT: %[[K:.*]] = stride.slice %[[P]] dim 1 start 8 end 12 step 1 : <1x16xbf16, strides = [16, 1], offset = 0> -> <1x4xbf16, strides = [16, 1], offset = 8>
// CHECK-NEXT: %[[V:.*]] = stride.slice %[[P]] dim 1 start 12 end 16 step 1 : <1x16xbf16, strides = [16, 1], offset = 0> -> <1x4xbf16, strides = [16, 1], offset = 12>
// CHECK-NEXT: %[[Q3:.*]] = stride.view %[[Q]] : <1x8xbf16, strides = [16, 1], offset = 0> -> <1x1x2x4xbf16, strides = [8, 8, 4, 1], offset = 0>
// CHECK-NEXT: %[[QH:.*]] = stride.permute %[[Q3]] dims [0, 2, 1, 3]
// CHECK-NEXT: stride.clone %[[QH]]
// CHECK-NEXT: stride.neg %[[K]] : <1x4xbf16, strides = [16, 1], offset = 8>
// CHECK-NEXT: stride.neg %[[V]] : <1x4xbf16, strides = [16, 1], offset = 12>
// CHECK-NOT: stride.matmul
// CHECK: return
// PIPE-LABEL: func.func @qkv
// PIPE-COUNT-1: stride.matmul
// PIPE-NOT: stride.matmul
// PIPE: return
// OFF-LABEL: func.func @qkv
// OFF-COUNT-3: stride.matmul
func.func @qkv(%h: !stride.tensor<1x1x8xbf16>)
    -> (!stride.tensor<1x2x1x4xbf16, strides = [8, 4, 8, 1], offset = 0>,
        !stride.tensor<1x4xbf16>, !stride.tensor<1x4xbf16>) {
  %wq = stride.constant dense<1.0> : tensor<8x8xbf16> : !stride.tensor<8x8xbf16>
  %wk = stride.constant dense<2.0> : tensor<4x8xbf16> : !stride.tensor<4x8xbf16>
  %wv = stride.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
      [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
      [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<4x8xbf16> : !stride.tensor<4x8xbf16>
  %tq = stride.permute %wq dims [1, 0] : !stride.tensor<8x8xbf16>
      -> !stride.tensor<8x8xbf16, strides = [1, 8], offset = 0>
  %xq = stride.view %h : !stride.tensor<1x1x8xbf16> -> !stride.tensor<1x8xbf16>
  %q = stride.matmul %xq, %tq : !stride.tensor<1x8xbf16>,
      !stride.tensor<8x8xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<1x8xbf16>
  %q3 = stride.view %q : !stride.tensor<1x8xbf16> -> !stride.tensor<1x1x2x4xbf16>
  %qh = stride.permute %q3 dims [0, 2, 1, 3] : !stride.tensor<1x1x2x4xbf16>
      -> !stride.tensor<1x2x1x4xbf16, strides = [8, 4, 8, 1], offset = 0>
  %tk = stride.permute %wk dims [1, 0] : !stride.tensor<4x8xbf16>
      -> !stride.tensor<8x4xbf16, strides = [1, 8], offset = 0>
  %xk = stride.view %h : !stride.tensor<1x1x8xbf16> -> !stride.tensor<1x8xbf16>
  %k = stride.matmul %xk, %tk : !stride.tensor<1x8xbf16>,
      !stride.tensor<8x4xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xbf16>
  %tv = stride.permute %wv dims [1, 0] : !stride.tensor<4x8xbf16>
      -> !stride.tensor<8x4xbf16, strides = [1, 8], offset = 0>
  %xv = stride.view %h : !stride.tensor<1x1x8xbf16> -> !stride.tensor<1x8xbf16>
  %v = stride.matmul %xv, %tv : !stride.tensor<1x8xbf16>,
      !stride.tensor<8x4xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xbf16>
  %qc = stride.clone %qh : !stride.tensor<1x2x1x4xbf16, strides = [8, 4, 8, 1], offset = 0>
      -> !stride.tensor<1x2x1x4xbf16, strides = [8, 4, 8, 1], offset = 0>
  %ks = stride.neg %k : !stride.tensor<1x4xbf16> -> !stride.tensor<1x4xbf16>
  %vs = stride.neg %v : !stride.tensor<1x4xbf16> -> !stride.tensor<1x4xbf16>
  return %qc, %ks, %vs : !stride.tensor<1x2x1x4xbf16, strides = [8, 4, 8, 1], offset = 0>,
      !stride.tensor<1x4xbf16>, !stride.tensor<1x4xbf16>
}

// -----

// An MLP's gate and up projections at 3 rows, weights stored [K, N] (read
// as they are): concatenated along their columns, row by row. Each with a
// bias on the op (written by hand; stride-fuse forms them after this
// pass): the biases concatenated too.
// CHECK-LABEL: func.func @gate_up
// CHECK-NEXT: %[[W:.*]] = stride.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00], [2.000000e+00, 2.000000e+00, 4.000000e+00, 4.000000e+00, 4.000000e+00]]> : tensor<2x5xf32> : <2x5xf32, strides = [5, 1], offset = 0>
// CHECK-NEXT: %[[B:.*]] = stride.constant dense<[5.000000e-01, 5.000000e-01, 1.500000e+00, 1.500000e+00, 1.500000e+00]> : tensor<5xf32>
// CHECK-NEXT: %[[P:.*]] = stride.matmul %arg0, %[[W]] bias %[[B]] : <3x2xf32, strides = [2, 1], offset = 0>, <2x5xf32, strides = [5, 1], offset = 0>, !stride.tensor<5xf32, strides = [1], offset = 0> -> <3x5xf32, strides = [5, 1], offset = 0>
// CHECK-NEXT: %[[G:.*]] = stride.slice %[[P]] dim 1 start 0 end 2 step 1 : {{.*}} -> <3x2xf32, strides = [5, 1], offset = 0>
// CHECK-NEXT: %[[U:.*]] = stride.slice %[[P]] dim 1 start 2 end 5 step 1 : {{.*}} -> <3x3xf32, strides = [5, 1], offset = 2>
// CHECK-NEXT: stride.sum %[[G]]
// CHECK-NEXT: stride.sum %[[U]]
func.func @gate_up(%x: !stride.tensor<3x2xf32>) -> (!stride.tensor<3xf32>, !stride.tensor<3xf32>) {
  %wg = stride.constant dense<[[1.0, 1.0], [2.0, 2.0]]> : tensor<2x2xf32> : !stride.tensor<2x2xf32>
  %bg = stride.constant dense<0.5> : tensor<2xf32> : !stride.tensor<2xf32>
  %wu = stride.constant dense<[[3.0, 3.0, 3.0], [4.0, 4.0, 4.0]]> : tensor<2x3xf32> : !stride.tensor<2x3xf32>
  %bu = stride.constant dense<1.5> : tensor<3xf32> : !stride.tensor<3xf32>
  %g = stride.matmul %x, %wg bias %bg : !stride.tensor<3x2xf32>, !stride.tensor<2x2xf32>,
      !stride.tensor<2xf32> -> !stride.tensor<3x2xf32>
  %u = stride.matmul %x, %wu bias %bu : !stride.tensor<3x2xf32>, !stride.tensor<2x3xf32>,
      !stride.tensor<3xf32> -> !stride.tensor<3x3xf32>
  %sg = stride.sum %g dims [1] : !stride.tensor<3x2xf32> -> !stride.tensor<3xf32>
  %su = stride.sum %u dims [1] : !stride.tensor<3x3xf32> -> !stride.tensor<3xf32>
  return %sg, %su : !stride.tensor<3xf32>, !stride.tensor<3xf32>
}

// -----

// Left apart: products of different activations (%x and %y), of a
// different K (a slice of %x: a different lhs, as a different element
// type would be: a product's operands have one), a weight that is a graph
// input (a training graph's parameter: concatenating it would copy it at
// every run), a weight another op also reads (it would be stored twice),
// and a product with a ReLU beside those without. Of the products of %x,
// only %a and %b merge, into one at %a's place.
// CHECK-LABEL: func.func @apart
// CHECK: stride.matmul %arg1, %arg2
// CHECK: %[[AB:.*]] = stride.matmul %arg0, %{{.*}} : <2x4xf32, strides = [4, 1], offset = 0>, <4x6xf32, strides = [6, 1], offset = 0>
// CHECK: stride.slice %[[AB]] dim 1 start 0 end 3
// CHECK: stride.slice %[[AB]] dim 1 start 3 end 6
// CHECK: stride.matmul %arg1, %{{.*}} : <2x4xf32, strides = [4, 1], offset = 0>, <4x3xf32
// CHECK: stride.matmul %{{.*}}, %{{.*}} : <2x2xf32, strides = [4, 1], offset = 0>
// CHECK: stride.matmul %arg0, %{{.*}} : <2x4xf32, strides = [4, 1], offset = 0>, <4x3xf32
// CHECK: stride.matmul %arg0, %{{.*}} epilogue relu
// CHECK-NOT: stride.matmul
// CHECK: return
func.func @apart(%x: !stride.tensor<2x4xf32>, %y: !stride.tensor<2x4xf32>,
                 %win: !stride.tensor<4x3xf32>) -> !stride.tensor<2x3xf32> {
  %wa = stride.constant dense<1.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wb = stride.constant dense<2.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wy = stride.constant dense<3.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wk = stride.constant dense<4.0> : tensor<2x3xf32> : !stride.tensor<2x3xf32>
  %wt = stride.constant dense<5.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wr = stride.constant dense<6.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %in = stride.matmul %y, %win : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %a = stride.matmul %x, %wa : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %py = stride.matmul %y, %wy : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %xk = stride.slice %x dim 1 start 0 end 2 step 1 : !stride.tensor<2x4xf32>
      -> !stride.tensor<2x2xf32, strides = [4, 1], offset = 0>
  %pk = stride.matmul %xk, %wk : !stride.tensor<2x2xf32, strides = [4, 1], offset = 0>,
      !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %pt = stride.matmul %x, %wt : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %tied = stride.slice %wt dim 0 start 0 end 2 step 1 : !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>
  %pr = stride.matmul %x, %wr epilogue relu : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %b = stride.matmul %x, %wb : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %s0 = stride.add %a, %b : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  %s1 = stride.add %s0, %in : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  %s2 = stride.add %s1, %py : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  %s3 = stride.add %s2, %pk : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  %s4 = stride.add %s3, %pt : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  %s5 = stride.add %s4, %pr : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  %s6 = stride.add %s5, %tied : !stride.tensor<2x3xf32>,
      !stride.tensor<2x3xf32, strides = [3, 1], offset = 0> -> !stride.tensor<2x3xf32>
  return %s6 : !stride.tensor<2x3xf32>
}

// -----

// A product the graph returns keeps its buffer (a slice of a merged one
// would be copied into a buffer of its own), also through a view; so
// does one whose rows a view flattens (the slice's rows are not
// consecutive: no such view exists on it). Only %a and %b merge.
// CHECK-LABEL: func.func @outputs
// CHECK: %[[AB:.*]] = stride.matmul %arg0, %{{.*}} -> <2x6xf32, strides = [6, 1], offset = 0>
// CHECK: stride.matmul %arg0, %{{.*}} -> <2x3xf32, strides = [3, 1], offset = 0>
// CHECK: stride.view
// CHECK: stride.matmul %arg0, %{{.*}} -> <2x3xf32, strides = [3, 1], offset = 0>
// CHECK: stride.matmul %arg0, %{{.*}} -> <2x3xf32, strides = [3, 1], offset = 0>
// CHECK-NEXT: stride.view %{{.*}} : <2x3xf32, strides = [3, 1], offset = 0> -> <6xf32
// CHECK-NOT: stride.matmul
// CHECK: return
func.func @outputs(%x: !stride.tensor<2x4xf32>)
    -> (!stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<2x1x3xf32>,
        !stride.tensor<6xf32>) {
  %wa = stride.constant dense<1.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wb = stride.constant dense<2.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wo = stride.constant dense<3.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wv = stride.constant dense<4.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %wf = stride.constant dense<5.0> : tensor<4x3xf32> : !stride.tensor<4x3xf32>
  %a = stride.matmul %x, %wa : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %o = stride.matmul %x, %wo : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %ov = stride.view %o : !stride.tensor<2x3xf32> -> !stride.tensor<2x1x3xf32>
  %v = stride.matmul %x, %wv : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %f = stride.matmul %x, %wf : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %ff = stride.view %f : !stride.tensor<2x3xf32> -> !stride.tensor<6xf32>
  %fn = stride.neg %ff : !stride.tensor<6xf32> -> !stride.tensor<6xf32>
  %b = stride.matmul %x, %wb : !stride.tensor<2x4xf32>, !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32>
  %s = stride.add %a, %b : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  return %s, %v, %ov, %fn : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>,
      !stride.tensor<2x1x3xf32>, !stride.tensor<6xf32>
}

// -----

// F.linear with a bias, as torch.export writes it (BERT's query, key and
// value): each product's only reader an add of its [N] constant bias
// broadcast by stride.expand (either operand order). The biases are
// concatenated and added once to the merged product (stride-fuse then
// folds that add into the call, PIPE); the slices are of the sum. A third
// product without a bias add stays apart (its readers would otherwise
// read the sum).
// CHECK-LABEL: func.func @linear_bias
// CHECK: %[[P:.*]] = stride.matmul %arg0, %{{.*}} : <2x4xf32, strides = [4, 1], offset = 0>, <4x5xf32, strides = [1, 4], offset = 0> -> <2x5xf32, strides = [5, 1], offset = 0>
// CHECK-NEXT: %[[B:.*]] = stride.constant dense<[1.000000e+00, 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: %[[E:.*]] = stride.expand %[[B]] : <5xf32, strides = [1], offset = 0> -> <2x5xf32, strides = [0, 1], offset = 0>
// CHECK-NEXT: %[[S:.*]] = stride.add %[[P]], %[[E]] : <2x5xf32, strides = [5, 1], offset = 0>, <2x5xf32, strides = [0, 1], offset = 0> -> <2x5xf32, strides = [5, 1], offset = 0>
// CHECK-NEXT: %[[Q:.*]] = stride.slice %[[S]] dim 1 start 0 end 3 step 1
// CHECK-NEXT: %[[K:.*]] = stride.slice %[[S]] dim 1 start 3 end 5 step 1
// CHECK: stride.matmul %arg0, %{{.*}} -> <2x2xf32, strides = [2, 1], offset = 0>
// CHECK-NOT: stride.add %{{.*}}, %{{.*}} : <2x3xf32, strides = [3, 1]
// CHECK: stride.sum %[[Q]]
// CHECK: stride.sum %[[K]]
// PIPE-LABEL: func.func @linear_bias
// PIPE: stride.matmul %{{.*}}, %{{.*}} bias %{{.*}} {{.*}}-> <2x5xf32
// OFF-LABEL: func.func @linear_bias
// OFF-COUNT-3: stride.matmul
func.func @linear_bias(%x: !stride.tensor<2x4xf32>)
    -> (!stride.tensor<2xf32>, !stride.tensor<2xf32>, !stride.tensor<2xf32>) {
  %wq = stride.constant dense<1.0> : tensor<3x4xf32> : !stride.tensor<3x4xf32>
  %bq = stride.constant dense<1.0> : tensor<3xf32> : !stride.tensor<3xf32>
  %wk = stride.constant dense<2.0> : tensor<2x4xf32> : !stride.tensor<2x4xf32>
  %bk = stride.constant dense<2.0> : tensor<2xf32> : !stride.tensor<2xf32>
  %wv = stride.constant dense<3.0> : tensor<2x4xf32> : !stride.tensor<2x4xf32>
  %tq = stride.permute %wq dims [1, 0] : !stride.tensor<3x4xf32>
      -> !stride.tensor<4x3xf32, strides = [1, 4], offset = 0>
  %q = stride.matmul %x, %tq : !stride.tensor<2x4xf32>,
      !stride.tensor<4x3xf32, strides = [1, 4], offset = 0> -> !stride.tensor<2x3xf32>
  %eq = stride.expand %bq : !stride.tensor<3xf32>
      -> !stride.tensor<2x3xf32, strides = [0, 1], offset = 0>
  %sq = stride.add %q, %eq : !stride.tensor<2x3xf32>,
      !stride.tensor<2x3xf32, strides = [0, 1], offset = 0> -> !stride.tensor<2x3xf32>
  %tk = stride.permute %wk dims [1, 0] : !stride.tensor<2x4xf32>
      -> !stride.tensor<4x2xf32, strides = [1, 4], offset = 0>
  %k = stride.matmul %x, %tk : !stride.tensor<2x4xf32>,
      !stride.tensor<4x2xf32, strides = [1, 4], offset = 0> -> !stride.tensor<2x2xf32>
  %ek = stride.expand %bk : !stride.tensor<2xf32>
      -> !stride.tensor<2x2xf32, strides = [0, 1], offset = 0>
  %sk = stride.add %ek, %k : !stride.tensor<2x2xf32, strides = [0, 1], offset = 0>,
      !stride.tensor<2x2xf32> -> !stride.tensor<2x2xf32>
  %tv = stride.permute %wv dims [1, 0] : !stride.tensor<2x4xf32>
      -> !stride.tensor<4x2xf32, strides = [1, 4], offset = 0>
  %v = stride.matmul %x, %tv : !stride.tensor<2x4xf32>,
      !stride.tensor<4x2xf32, strides = [1, 4], offset = 0> -> !stride.tensor<2x2xf32>
  %rq = stride.sum %sq dims [1] : !stride.tensor<2x3xf32> -> !stride.tensor<2xf32>
  %rk = stride.sum %sk dims [1] : !stride.tensor<2x2xf32> -> !stride.tensor<2xf32>
  %rv = stride.sum %v dims [1] : !stride.tensor<2x2xf32> -> !stride.tensor<2xf32>
  return %rq, %rk, %rv : !stride.tensor<2xf32>, !stride.tensor<2xf32>, !stride.tensor<2xf32>
}

// -----

// Over symbolic rows: products merge, the merged product and its slices
// of symbolic rows; a product whose view is a graph output (a layout
// fixed) stays apart.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK: %[[P:.*]] = stride.matmul {{.*}} -> <[rows, 8], f32, strides = [8, 1], offset = 0>
// CHECK: stride.slice %[[P]] dim 1 start 0 end 4 step 1 : {{.*}} -> <[rows, 4], f32, strides = [8, 1], offset = 0>
// CHECK: stride.slice %[[P]] dim 1 start 4 end 8 step 1 : {{.*}} -> <[rows, 4], f32, strides = [8, 1], offset = 4>
// CHECK: stride.matmul {{.*}} -> <[rows, 4], f32, strides = [4, 1], offset = 0>
// CHECK-NOT: stride.matmul
func.func @symbolic_rows(%x: !stride.tensor<[rows, 8], f32>)
    -> (!stride.tensor<[rows, 4], f32>, !stride.tensor<[rows], f32, strides = [4], offset = 0>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  %wa = stride.constant dense<1.0> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %wb = stride.constant dense<2.0> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %wc = stride.constant dense<3.0> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %ta = stride.permute %wa dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %tb = stride.permute %wb dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %tc = stride.permute %wc dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %a = stride.matmul %x, %ta : !stride.tensor<[rows, 8], f32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 4], f32>
  %b = stride.matmul %x, %tb : !stride.tensor<[rows, 8], f32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 4], f32>
  %c = stride.matmul %x, %tc : !stride.tensor<[rows, 8], f32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 4], f32>
  %s = stride.add %a, %b : !stride.tensor<[rows, 4], f32>, !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows, 4], f32>
  %cs = stride.select %c dim 1 index 0 : !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows], f32, strides = [4], offset = 0>
  return %s, %cs : !stride.tensor<[rows, 4], f32>, !stride.tensor<[rows], f32, strides = [4], offset = 0>
}

// -----

// Over symbolic rows, products read through views merge too, each view
// inferred again over the symbols from its slice (LLaMA's q and k viewed
// as heads over symbolic tokens).
// CHECK-LABEL: func.func @symbolic_views
// CHECK: %[[P:.*]] = stride.matmul {{.*}} -> <[rows, 8], f32, strides = [8, 1], offset = 0>
// CHECK: %[[A:.*]] = stride.slice %[[P]] dim 1 start 0 end 4 step 1
// CHECK: %[[B:.*]] = stride.slice %[[P]] dim 1 start 4 end 8 step 1 : {{.*}} -> <[rows, 4], f32, strides = [8, 1], offset = 4>
// CHECK: stride.view %[[A]] : <[rows, 4], f32, strides = [8, 1], offset = 0> -> <[rows, 2, 2], f32, strides = [8, 2, 1], offset = 0>
// CHECK: stride.view %[[B]] : <[rows, 4], f32, strides = [8, 1], offset = 4> -> <[rows, 2, 2], f32, strides = [8, 2, 1], offset = 4>
// CHECK-NOT: stride.matmul
func.func @symbolic_views(%x: !stride.tensor<[rows, 8], f32>)
    -> (!stride.tensor<[rows, 2, 2], f32>, !stride.tensor<[rows, 2, 2], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  %wa = stride.constant dense<1.0> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %wb = stride.constant dense<2.0> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %ta = stride.permute %wa dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %tb = stride.permute %wb dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %a = stride.matmul %x, %ta : !stride.tensor<[rows, 8], f32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 4], f32>
  %b = stride.matmul %x, %tb : !stride.tensor<[rows, 8], f32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 4], f32>
  %va = stride.view %a : !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows, 2, 2], f32>
  %vb = stride.view %b : !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows, 2, 2], f32>
  %ra = stride.relu %va : !stride.tensor<[rows, 2, 2], f32> -> !stride.tensor<[rows, 2, 2], f32>
  %rb = stride.relu %vb : !stride.tensor<[rows, 2, 2], f32> -> !stride.tensor<[rows, 2, 2], f32>
  return %ra, %rb : !stride.tensor<[rows, 2, 2], f32>, !stride.tensor<[rows, 2, 2], f32>
}
