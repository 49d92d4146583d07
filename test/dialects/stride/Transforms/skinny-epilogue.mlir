// With skinny-epilogue (the default), stride-outline-kernels gives a skinny
// product the pointwise kernel that alone reads its result as its epilogue
// (python-free-docs/matmul.md, "Skinny products"): a decoder's SwiGLU after
// its merged gate and up projections is computed from the product's sums,
// and its kernel is gone. The cases that stay apart: another reader of the
// product, an epilogue the kernel contract refuses (it reads the product's
// columns strided), and the option off.
// RUN: stride-opt --stride-outline-kernels -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-outline-kernels=skinny-epilogue=false -split-input-file %s | FileCheck %s --check-prefix=OFF
// RUN: stride-opt --stride-outline-kernels --stride-verify-kernels -split-input-file %s -o /dev/null

// The merged kernel stands where the SwiGLU's stood: the product, the
// slices it read as its input, the SwiGLU's ops; it yields the SwiGLU.
// CHECK-LABEL: func.func @swiglu
// CHECK-NOT: stride.kernel "sigmoid_mul_mul"
// CHECK: %[[K:.*]] = stride.kernel "matmul_sigmoid_mul_mul" ins(%arg0, %{{.*}} : !stride.tensor<1x16xbf16{{.*}}>, !stride.tensor<16x32xbf16, strides = [1, 16], offset = 0>) -> (!stride.tensor<1x1x16xbf16{{.*}}>)
// CHECK-NEXT: ^bb0(%[[X:[^:]*]]: !stride.tensor<1x16xbf16{{.*}}>, %[[W:[^:]*]]: !stride.tensor<16x32xbf16, strides = [1, 16], offset = 0>):
// CHECK-NEXT: %[[P:.*]] = stride.matmul %[[X]], %[[W]] {stride.skinny_product}
// CHECK-NEXT: %[[G:.*]] = stride.slice %[[P]] dim 1 start 0 end 16
// CHECK-NEXT: %[[G3:.*]] = stride.view %[[G]]
// CHECK-NEXT: %[[S:.*]] = stride.sigmoid %[[G3]]
// CHECK-NEXT: %[[SI:.*]] = stride.mul %[[G3]], %[[S]]
// CHECK-NEXT: %[[U:.*]] = stride.slice %[[P]] dim 1 start 16 end 32
// CHECK-NEXT: %[[U3:.*]] = stride.view %[[U]]
// CHECK-NEXT: %[[A:.*]] = stride.mul %[[SI]], %[[U3]]
// CHECK-NEXT: stride.yield %[[A]]
// CHECK: return %[[K]]
// OFF-LABEL: func.func @swiglu
// OFF: stride.kernel "matmul_0" ins
// OFF: stride.kernel "sigmoid_mul_mul" ins
// OFF-NOT: matmul_sigmoid_mul_mul
func.func @swiglu(%x: !stride.tensor<1x16xbf16>, %w: !stride.tensor<32x16xbf16>) -> !stride.tensor<1x1x16xbf16> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<32x16xbf16> -> !stride.tensor<16x32xbf16, strides = [1, 16], offset = 0>
  %p = stride.matmul %x, %wt {stride.skinny_product} : !stride.tensor<1x16xbf16>, !stride.tensor<16x32xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<1x32xbf16>
  %k = stride.kernel "sigmoid_mul_mul" ins(%p : !stride.tensor<1x32xbf16>) -> (!stride.tensor<1x1x16xbf16>) {
  ^bb0(%a: !stride.tensor<1x32xbf16>):
    %g = stride.slice %a dim 1 start 0 end 16 step 1 : !stride.tensor<1x32xbf16> -> !stride.tensor<1x16xbf16, strides = [32, 1], offset = 0>
    %g3 = stride.view %g : !stride.tensor<1x16xbf16, strides = [32, 1], offset = 0> -> !stride.tensor<1x1x16xbf16, strides = [16, 16, 1], offset = 0>
    %s = stride.sigmoid %g3 : !stride.tensor<1x1x16xbf16, strides = [16, 16, 1], offset = 0> -> !stride.tensor<1x1x16xbf16>
    %si = stride.mul %g3, %s : !stride.tensor<1x1x16xbf16, strides = [16, 16, 1], offset = 0>, !stride.tensor<1x1x16xbf16> -> !stride.tensor<1x1x16xbf16>
    %u = stride.slice %a dim 1 start 16 end 32 step 1 : !stride.tensor<1x32xbf16> -> !stride.tensor<1x16xbf16, strides = [32, 1], offset = 16>
    %u3 = stride.view %u : !stride.tensor<1x16xbf16, strides = [32, 1], offset = 16> -> !stride.tensor<1x1x16xbf16, strides = [16, 16, 1], offset = 16>
    %m = stride.mul %si, %u3 : !stride.tensor<1x1x16xbf16>, !stride.tensor<1x1x16xbf16, strides = [16, 16, 1], offset = 16> -> !stride.tensor<1x1x16xbf16>
    stride.yield %m : !stride.tensor<1x1x16xbf16>
  }
  return %k : !stride.tensor<1x1x16xbf16>
}

// -----

// The product is also returned: it is stored anyway.
// CHECK-LABEL: func.func @other_reader
// CHECK: stride.kernel "matmul_0" ins
// CHECK: stride.kernel "exp_kernel" ins
func.func @other_reader(%x: !stride.tensor<1x16xf32>, %w: !stride.tensor<8x16xf32>) -> (!stride.tensor<1x8xf32>, !stride.tensor<1x8xf32>) {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %x, %wt {stride.skinny_product} : !stride.tensor<1x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<1x8xf32>
  %k = stride.kernel "exp_kernel" ins(%p : !stride.tensor<1x8xf32>) -> (!stride.tensor<1x8xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>):
    %e = stride.exp %a : !stride.tensor<1x8xf32> -> !stride.tensor<1x8xf32>
    stride.yield %e : !stride.tensor<1x8xf32>
  }
  return %p, %k : !stride.tensor<1x8xf32>, !stride.tensor<1x8xf32>
}

// -----

// The pointwise kernel reads every other column of the row: no warp holds
// both columns an element needs, so the contract refuses the merged
// kernel and the product and its reader stay two kernels.
// CHECK-LABEL: func.func @strided_reader
// CHECK: stride.kernel "matmul_0" ins
// CHECK: stride.kernel "mul_kernel" ins
func.func @strided_reader(%x: !stride.tensor<1x16xf32>, %w: !stride.tensor<8x16xf32>) -> !stride.tensor<1x4xf32> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %x, %wt {stride.skinny_product} : !stride.tensor<1x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<1x8xf32>
  %k = stride.kernel "mul_kernel" ins(%p : !stride.tensor<1x8xf32>) -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>):
    %even = stride.slice %a dim 1 start 0 end 8 step 2 : !stride.tensor<1x8xf32> -> !stride.tensor<1x4xf32, strides = [8, 2], offset = 0>
    %odd = stride.slice %a dim 1 start 1 end 8 step 2 : !stride.tensor<1x8xf32> -> !stride.tensor<1x4xf32, strides = [8, 2], offset = 1>
    %m = stride.mul %even, %odd : !stride.tensor<1x4xf32, strides = [8, 2], offset = 0>, !stride.tensor<1x4xf32, strides = [8, 2], offset = 1> -> !stride.tensor<1x4xf32>
    stride.yield %m : !stride.tensor<1x4xf32>
  }
  return %k : !stride.tensor<1x4xf32>
}
