// With skinny-row-prologue (off by default), stride-outline-kernels gives a
// skinny product the broadcast-reduction kernel whose result it alone
// reads as its prologue (python-free-docs/matmul.md, "Skinny products"): a
// decoder's RMSNorm before its projections. The norm's other result (the
// residual sum) becomes the merged kernel's last result. The cases that
// stay apart: the residual sum read before the product, and the option
// off.
// RUN: stride-opt --stride-outline-kernels=skinny-row-prologue -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-outline-kernels -split-input-file %s | FileCheck %s --check-prefix=OFF
// RUN: stride-opt --stride-outline-kernels=skinny-row-prologue --stride-verify-kernels -split-input-file %s -o /dev/null

// The merged kernel: the norm's ops, the product; it yields the product,
// then the residual sum, which the later negation reads.
// CHECK-LABEL: func.func @rmsnorm
// CHECK: %[[K:.*]]:2 = stride.kernel "add_mul_mean_rsqrt_mul_matmul" ins(%arg0, %arg1, %{{.*}} : {{.*}}) -> (!stride.tensor<1x8xf32{{.*}}>, !stride.tensor<1x16xf32{{.*}}>)
// CHECK: %[[H:.*]] = stride.add
// CHECK: stride.mean
// CHECK: %[[N:.*]] = stride.mul %[[H]],
// CHECK-NEXT: %[[P:.*]] = stride.matmul %[[N]], %{{.*}} {stride.skinny_product}
// CHECK-NEXT: stride.yield %[[P]], %[[H]]
// CHECK: stride.kernel "neg_{{[0-9]+}}" ins(%[[K]]#1
// CHECK: return %[[K]]#0
// OFF-LABEL: func.func @rmsnorm
// OFF: stride.kernel "add_mul_mean_rsqrt_mul" ins
// OFF: stride.kernel "matmul_{{[0-9]+}}" ins
func.func @rmsnorm(%x: !stride.tensor<1x16xf32>, %r: !stride.tensor<1x16xf32>,
                   %w: !stride.tensor<8x16xf32>)
    -> (!stride.tensor<1x8xf32>, !stride.tensor<1x16xf32>) {
  %k:2 = stride.kernel "add_mul_mean_rsqrt_mul" ins(%x, %r : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32>)
      -> (!stride.tensor<1x16xf32>, !stride.tensor<1x16xf32>) {
  ^bb0(%a: !stride.tensor<1x16xf32>, %b: !stride.tensor<1x16xf32>):
    %h = stride.add %a, %b : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32> -> !stride.tensor<1x16xf32>
    %sq = stride.mul %h, %h : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32> -> !stride.tensor<1x16xf32>
    %m = stride.mean %sq dims [1] keepdim : !stride.tensor<1x16xf32> -> !stride.tensor<1x1xf32>
    %rs = stride.rsqrt %m : !stride.tensor<1x1xf32> -> !stride.tensor<1x1xf32>
    %e = stride.expand %rs : !stride.tensor<1x1xf32> -> !stride.tensor<1x16xf32, strides = [1, 0], offset = 0>
    %n = stride.mul %h, %e : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32, strides = [1, 0], offset = 0> -> !stride.tensor<1x16xf32>
    stride.yield %h, %n : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32>
  }
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %k#1, %wt {stride.skinny_product} : !stride.tensor<1x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<1x8xf32>
  %o = stride.neg %k#0 : !stride.tensor<1x16xf32> -> !stride.tensor<1x16xf32>
  return %p, %o : !stride.tensor<1x8xf32>, !stride.tensor<1x16xf32>
}

// -----

// The residual sum is read before the product: the merged kernel, where
// the product stands, would come after that reader. The two stay apart.
// CHECK-LABEL: func.func @read_before
// CHECK: stride.kernel "add_mul_mean_rsqrt_mul" ins
// CHECK: stride.kernel "neg_{{[0-9]+}}" ins
// CHECK: stride.kernel "matmul_{{[0-9]+}}" ins
func.func @read_before(%x: !stride.tensor<1x16xf32>, %r: !stride.tensor<1x16xf32>,
                       %w: !stride.tensor<8x16xf32>)
    -> (!stride.tensor<1x8xf32>, !stride.tensor<1x16xf32>) {
  %k:2 = stride.kernel "add_mul_mean_rsqrt_mul" ins(%x, %r : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32>)
      -> (!stride.tensor<1x16xf32>, !stride.tensor<1x16xf32>) {
  ^bb0(%a: !stride.tensor<1x16xf32>, %b: !stride.tensor<1x16xf32>):
    %h = stride.add %a, %b : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32> -> !stride.tensor<1x16xf32>
    %sq = stride.mul %h, %h : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32> -> !stride.tensor<1x16xf32>
    %m = stride.mean %sq dims [1] keepdim : !stride.tensor<1x16xf32> -> !stride.tensor<1x1xf32>
    %rs = stride.rsqrt %m : !stride.tensor<1x1xf32> -> !stride.tensor<1x1xf32>
    %e = stride.expand %rs : !stride.tensor<1x1xf32> -> !stride.tensor<1x16xf32, strides = [1, 0], offset = 0>
    %n = stride.mul %h, %e : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32, strides = [1, 0], offset = 0> -> !stride.tensor<1x16xf32>
    stride.yield %h, %n : !stride.tensor<1x16xf32>, !stride.tensor<1x16xf32>
  }
  %o = stride.neg %k#0 : !stride.tensor<1x16xf32> -> !stride.tensor<1x16xf32>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %k#1, %wt {stride.skinny_product} : !stride.tensor<1x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<1x8xf32>
  return %p, %o : !stride.tensor<1x8xf32>, !stride.tensor<1x16xf32>
}
