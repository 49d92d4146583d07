// With skinny-prologue, stride-outline-kernels gives a skinny product the
// pointwise kernel that computes its rows for it alone as its prologue
// (python-free-docs/matmul.md, "Skinny products"): a decoder's SwiGLU
// before its down projection is computed where the product reads it, and
// its kernel is gone. The cases that stay apart: another reader, a product
// that is no skinny product (33 rows), a reduction, and the option off
// (the default).
// RUN: stride-opt "--stride-outline-kernels=skinny-prologue=true skinny-epilogue=false" -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-outline-kernels=skinny-epilogue=false -split-input-file %s | FileCheck %s --check-prefix=OFF
// skinny-epilogue is off in each run: on by default, it gives the SwiGLU to
// the gate/up product first, as its epilogue (skinny-epilogue.mlir).
// And from the ops, through the pipeline (fusion forms the SwiGLU's kernel):
// RUN: stride-opt --stride-pipeline="form-kernels=true skinny-prologue=true skinny-epilogue=false" -split-input-file %s | FileCheck %s --check-prefix=PIPE
// RUN: stride-opt --stride-pipeline="form-kernels=true skinny-epilogue=false" -split-input-file %s | FileCheck %s --check-prefix=PIPE-OFF

// The SwiGLU of a merged gate/up product's slices, read by the down
// projection through a view: one kernel, named after its ops, whose body is
// the SwiGLU's, the view, then the product.
// CHECK-LABEL: func.func @swiglu
// CHECK-NOT: stride.kernel "sigmoid_mul_mul"
// CHECK: %[[K:.*]] = stride.kernel "sigmoid_mul_mul_matmul" ins(%arg0, %{{.*}} : !stride.tensor<1x32xbf16{{.*}}>, !stride.tensor<16x8xbf16, strides = [1, 16], offset = 0>) -> (!stride.tensor<1x8xbf16{{.*}}>)
// CHECK-NEXT: ^bb0(%[[GU:[^:]*]]: !stride.tensor<1x32xbf16{{.*}}>, %[[W:[^:]*]]: !stride.tensor<16x8xbf16, strides = [1, 16], offset = 0>):
// CHECK-NEXT: %[[G:.*]] = stride.slice %[[GU]] dim 1 start 0 end 16
// CHECK-NEXT: %[[S:.*]] = stride.sigmoid %[[G]]
// CHECK-NEXT: %[[SI:.*]] = stride.mul %[[G]], %[[S]]
// CHECK-NEXT: %[[U:.*]] = stride.slice %[[GU]] dim 1 start 16 end 32
// CHECK-NEXT: %[[A:.*]] = stride.mul %[[SI]], %[[U]]
// CHECK-NEXT: %[[A3:.*]] = stride.view %[[A]] : {{.*}} -> <1x1x16xbf16
// CHECK-NEXT: %[[AV:.*]] = stride.view %[[A3]] : {{.*}} -> <1x16xbf16
// CHECK-NEXT: %[[P:.*]] = stride.matmul %[[AV]], %[[W]] {stride.skinny_product}
// CHECK-NEXT: stride.yield %[[P]]
// CHECK: return %[[K]]
// OFF-LABEL: func.func @swiglu
// OFF: stride.kernel "sigmoid_mul_mul" ins
// OFF: stride.kernel "matmul_0" ins
// OFF-NOT: sigmoid_mul_mul_matmul
func.func @swiglu(%gu: !stride.tensor<1x32xbf16>, %w: !stride.tensor<8x16xbf16>) -> !stride.tensor<1x8xbf16> {
  %k = stride.kernel "sigmoid_mul_mul" ins(%gu : !stride.tensor<1x32xbf16>) -> (!stride.tensor<1x1x16xbf16>) {
  ^bb0(%a: !stride.tensor<1x32xbf16>):
    %g = stride.slice %a dim 1 start 0 end 16 step 1 : !stride.tensor<1x32xbf16> -> !stride.tensor<1x16xbf16, strides = [32, 1], offset = 0>
    %s = stride.sigmoid %g : !stride.tensor<1x16xbf16, strides = [32, 1], offset = 0> -> !stride.tensor<1x16xbf16>
    %si = stride.mul %g, %s : !stride.tensor<1x16xbf16, strides = [32, 1], offset = 0>, !stride.tensor<1x16xbf16> -> !stride.tensor<1x16xbf16>
    %u = stride.slice %a dim 1 start 16 end 32 step 1 : !stride.tensor<1x32xbf16> -> !stride.tensor<1x16xbf16, strides = [32, 1], offset = 16>
    %m = stride.mul %si, %u : !stride.tensor<1x16xbf16>, !stride.tensor<1x16xbf16, strides = [32, 1], offset = 16> -> !stride.tensor<1x16xbf16>
    %m3 = stride.view %m : !stride.tensor<1x16xbf16> -> !stride.tensor<1x1x16xbf16>
    stride.yield %m3 : !stride.tensor<1x1x16xbf16>
  }
  %x = stride.view %k : !stride.tensor<1x1x16xbf16> -> !stride.tensor<1x16xbf16>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xbf16> -> !stride.tensor<16x8xbf16, strides = [1, 16], offset = 0>
  %p = stride.matmul %x, %wt {stride.skinny_product} : !stride.tensor<1x16xbf16>, !stride.tensor<16x8xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<1x8xbf16>
  return %p : !stride.tensor<1x8xbf16>
}

// -----

// The pointwise result is also returned: it is stored anyway, and the
// product reads it.
// CHECK-LABEL: func.func @other_reader
// CHECK: stride.kernel "exp_kernel" ins
// CHECK: stride.kernel "matmul_0" ins
// CHECK-NOT: exp_kernel_matmul
func.func @other_reader(%x: !stride.tensor<2x16xf32>, %w: !stride.tensor<8x16xf32>)
    -> (!stride.tensor<2x8xf32>, !stride.tensor<2x16xf32>) {
  %k = stride.kernel "exp_kernel" ins(%x : !stride.tensor<2x16xf32>) -> (!stride.tensor<2x16xf32>) {
  ^bb0(%a: !stride.tensor<2x16xf32>):
    %e = stride.exp %a : !stride.tensor<2x16xf32> -> !stride.tensor<2x16xf32>
    stride.yield %e : !stride.tensor<2x16xf32>
  }
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %k, %wt {stride.skinny_product} : !stride.tensor<2x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<2x8xf32>
  return %p, %k : !stride.tensor<2x8xf32>, !stride.tensor<2x16xf32>
}

// -----

// Read twice by the product (its rows and, through a view, its weight):
// the weight is no prologue.
// CHECK-LABEL: func.func @read_as_weight
// CHECK: stride.kernel "exp_kernel" ins
// CHECK: stride.kernel "matmul_0" ins
func.func @read_as_weight(%x: !stride.tensor<16x16xf32>) -> !stride.tensor<16x16xf32> {
  %k = stride.kernel "exp_kernel" ins(%x : !stride.tensor<16x16xf32>) -> (!stride.tensor<16x16xf32>) {
  ^bb0(%a: !stride.tensor<16x16xf32>):
    %e = stride.exp %a : !stride.tensor<16x16xf32> -> !stride.tensor<16x16xf32>
    stride.yield %e : !stride.tensor<16x16xf32>
  }
  %kt = stride.permute %k dims [1, 0] : !stride.tensor<16x16xf32> -> !stride.tensor<16x16xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %k, %kt {stride.skinny_product} : !stride.tensor<16x16xf32>, !stride.tensor<16x16xf32, strides = [1, 16], offset = 0> -> !stride.tensor<16x16xf32>
  return %p : !stride.tensor<16x16xf32>
}

// -----

// 33 rows: no skinny product (kMaxSkinnyProductRows is 32), a library call
// that outlining leaves alone, after the pointwise kernel.
// CHECK-LABEL: func.func @rows33
// CHECK: stride.kernel "exp_kernel" ins
// CHECK-NOT: stride.kernel
// CHECK: stride.matmul
func.func @rows33(%x: !stride.tensor<33x16xf32>, %w: !stride.tensor<8x16xf32>) -> !stride.tensor<33x8xf32> {
  %k = stride.kernel "exp_kernel" ins(%x : !stride.tensor<33x16xf32>) -> (!stride.tensor<33x16xf32>) {
  ^bb0(%a: !stride.tensor<33x16xf32>):
    %e = stride.exp %a : !stride.tensor<33x16xf32> -> !stride.tensor<33x16xf32>
    stride.yield %e : !stride.tensor<33x16xf32>
  }
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %k, %wt : !stride.tensor<33x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<33x8xf32>
  return %p : !stride.tensor<33x8xf32>
}

// -----

// A reduction's kernel (form (b)) computes each row element from a whole
// row of its input: it stays apart.
// CHECK-LABEL: func.func @reduction
// CHECK: stride.kernel "sum_kernel" ins
// CHECK: stride.kernel "matmul_0" ins
func.func @reduction(%x: !stride.tensor<1x16x4xf32>, %w: !stride.tensor<8x16xf32>) -> !stride.tensor<1x8xf32> {
  %k = stride.kernel "sum_kernel" ins(%x : !stride.tensor<1x16x4xf32>) -> (!stride.tensor<1x16xf32>) {
  ^bb0(%a: !stride.tensor<1x16x4xf32>):
    %s = stride.sum %a dims [2] : !stride.tensor<1x16x4xf32> -> !stride.tensor<1x16xf32>
    stride.yield %s : !stride.tensor<1x16xf32>
  }
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %p = stride.matmul %k, %wt {stride.skinny_product} : !stride.tensor<1x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<1x8xf32>
  return %p : !stride.tensor<1x8xf32>
}

// -----

// From the ops: fusion makes the SwiGLU (gate and up as one product's
// slices) one kernel, then the down projection takes it.
// PIPE-LABEL: func.func @swiglu_ops
// PIPE: stride.kernel "matmul_0"
// PIPE-NOT: stride.kernel "sigmoid_mul_mul"
// PIPE: stride.kernel "sigmoid_mul_mul_matmul"
// PIPE: stride.sigmoid
// PIPE: stride.matmul {{.*}} {stride.skinny_product}
// PIPE-OFF-LABEL: func.func @swiglu_ops
// PIPE-OFF: stride.kernel "sigmoid_mul_mul"
// PIPE-OFF: stride.kernel "matmul_1"
func.func @swiglu_ops(%x: !stride.tensor<1x16xf32>, %wgu: !stride.tensor<64x16xf32>, %wd: !stride.tensor<16x32xf32>)
    -> !stride.tensor<1x16xf32> {
  %wgut = stride.permute %wgu dims [1, 0] : !stride.tensor<64x16xf32> -> !stride.tensor<16x64xf32, strides = [1, 16], offset = 0>
  %gu = stride.matmul %x, %wgut : !stride.tensor<1x16xf32>, !stride.tensor<16x64xf32, strides = [1, 16], offset = 0> -> !stride.tensor<1x64xf32>
  %g = stride.slice %gu dim 1 start 0 end 32 step 1 : !stride.tensor<1x64xf32> -> !stride.tensor<1x32xf32, strides = [64, 1], offset = 0>
  %u = stride.slice %gu dim 1 start 32 end 64 step 1 : !stride.tensor<1x64xf32> -> !stride.tensor<1x32xf32, strides = [64, 1], offset = 32>
  %s = stride.sigmoid %g : !stride.tensor<1x32xf32, strides = [64, 1], offset = 0> -> !stride.tensor<1x32xf32>
  %si = stride.mul %g, %s : !stride.tensor<1x32xf32, strides = [64, 1], offset = 0>, !stride.tensor<1x32xf32> -> !stride.tensor<1x32xf32>
  %a = stride.mul %si, %u : !stride.tensor<1x32xf32>, !stride.tensor<1x32xf32, strides = [64, 1], offset = 32> -> !stride.tensor<1x32xf32>
  %wdt = stride.permute %wd dims [1, 0] : !stride.tensor<16x32xf32> -> !stride.tensor<32x16xf32, strides = [1, 32], offset = 0>
  %d = stride.matmul %a, %wdt : !stride.tensor<1x32xf32>, !stride.tensor<32x16xf32, strides = [1, 32], offset = 0> -> !stride.tensor<1x16xf32>
  return %d : !stride.tensor<1x16xf32>
}
