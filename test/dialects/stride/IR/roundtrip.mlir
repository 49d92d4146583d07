// Every op of the dialect parses, prints, and parses back to the same text.
// RUN: stride-opt %s > %t.1.mlir
// RUN: stride-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

!f = !stride.tensor<4x8xf32>
!i = !stride.tensor<4x8xi32>
!b = !stride.tensor<4x8xi1>

// CHECK-LABEL: func.func @views
func.func @views(%x: !stride.tensor<4x1x33xf32>, %y: !stride.tensor<4x10xf32>,
                 %z: !stride.tensor<2x3x4xf32>, %w: !stride.tensor<8xf32>) {
  // CHECK: stride.expand %{{.*}} : <4x1x33xf32, strides = [33, 33, 1], offset = 0> -> <4x13x33xf32, strides = [33, 0, 1], offset = 0>
  %0 = stride.expand %x : !stride.tensor<4x1x33xf32>
      -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>
  // CHECK: stride.squeeze %{{.*}} dims [1] :
  %1 = stride.squeeze %x dims [1] : !stride.tensor<4x1x33xf32>
      -> !stride.tensor<4x33xf32>
  // CHECK: stride.unsqueeze %{{.*}} dim 2 :
  %2 = stride.unsqueeze %1 dim 2 : !stride.tensor<4x33xf32>
      -> !stride.tensor<4x33x1xf32, strides = [33, 1, 1]>
  // CHECK: stride.permute %{{.*}} dims [0, 2, 1] : {{.*}} -> <2x4x3xf32, strides = [12, 1, 4], offset = 0>
  %3 = stride.permute %z dims [0, 2, 1] : !stride.tensor<2x3x4xf32>
      -> !stride.tensor<2x4x3xf32, strides = [12, 1, 4]>
  // CHECK: stride.slice %{{.*}} dim 1 start 2 end 8 step 2 : {{.*}} -> <4x3xf32, strides = [10, 2], offset = 2>
  %4 = stride.slice %y dim 1 start 2 end 8 step 2 : !stride.tensor<4x10xf32>
      -> !stride.tensor<4x3xf32, strides = [10, 2], offset = 2>
  // CHECK: stride.select %{{.*}} dim 0 index 3 : {{.*}} -> <10xf32, strides = [1], offset = 30>
  %5 = stride.select %y dim 0 index 3 : !stride.tensor<4x10xf32>
      -> !stride.tensor<10xf32, offset = 30>
  // CHECK: stride.view %{{.*}} : {{.*}} -> <2x2x10xf32, strides = [20, 10, 1], offset = 0>
  %6 = stride.view %y : !stride.tensor<4x10xf32> -> !stride.tensor<2x2x10xf32>
  // CHECK: stride.as_strided %{{.*}} : {{.*}} -> <3x4xf32, strides = [2, 1], offset = 0>
  %7 = stride.as_strided %w : !stride.tensor<8xf32>
      -> !stride.tensor<3x4xf32, strides = [2, 1]>
  return
}

// CHECK-LABEL: func.func @pointwise
func.func @pointwise(%x: !f, %y: !f, %n: !i, %m: !b,
                     %t: !stride.tensor<4x8xf32, strides = [1, 4]>) {
  // CHECK: stride.neg
  %0 = stride.neg %x : !f -> !f
  // CHECK: stride.abs
  %1 = stride.abs %n : !i -> !i
  // CHECK: stride.exp
  %2 = stride.exp %x : !f -> !f
  // CHECK: stride.log
  %3 = stride.log %x : !f -> !f
  // CHECK: stride.sqrt
  %4 = stride.sqrt %x : !f -> !f
  // CHECK: stride.rsqrt
  %5 = stride.rsqrt %x : !f -> !f
  // CHECK: stride.tanh
  %6 = stride.tanh %x : !f -> !f
  // CHECK: stride.erf
  %erf = stride.erf %x : !f -> !f
  // CHECK: stride.sigmoid
  %7 = stride.sigmoid %x : !f -> !f
  // CHECK: stride.relu
  %8 = stride.relu %x : !f -> !f
  // CHECK: stride.gelu
  %9 = stride.gelu %x : !f -> !f
  // CHECK: stride.gelu_tanh
  %gt = stride.gelu_tanh %x : !f -> !f
  // CHECK: stride.sin
  %10 = stride.sin %x : !f -> !f
  // CHECK: stride.cos
  %11 = stride.cos %x : !f -> !f
  // CHECK: stride.not %{{.*}} : <4x8xi1
  %12 = stride.not %m : !b -> !b
  // CHECK: stride.cast %{{.*}} : <4x8xf32, {{.*}}> -> <4x8xf16
  %13 = stride.cast %x : !f -> !stride.tensor<4x8xf16>
  // CHECK: stride.add
  %14 = stride.add %x, %y : !f, !f -> !f
  // CHECK: stride.sub
  %15 = stride.sub %x, %t : !f, !stride.tensor<4x8xf32, strides = [1, 4]> -> !f
  // CHECK: stride.mul
  %16 = stride.mul %x, %y : !f, !f -> !stride.tensor<4x8xf32, strides = [1, 4]>
  // CHECK: stride.div
  %17 = stride.div %n, %n : !i, !i -> !i
  // CHECK: stride.pow
  %18 = stride.pow %x, %y : !f, !f -> !f
  // CHECK: stride.maximum
  %19 = stride.maximum %x, %y : !f, !f -> !f
  // CHECK: stride.minimum
  %20 = stride.minimum %x, %y : !f, !f -> !f
  // CHECK: stride.and
  %21 = stride.and %m, %m : !b, !b -> !b
  // CHECK: stride.or
  %22 = stride.or %n, %n : !i, !i -> !i
  // CHECK: stride.cmp lt, %{{.*}}, %{{.*}} : {{.*}} -> <4x8xi1
  %23 = stride.cmp lt, %x, %y : !f, !f -> !b
  // CHECK: stride.cmp ge
  %24 = stride.cmp ge, %n, %n : !i, !i -> !b
  // CHECK: stride.where
  %25 = stride.where %m, %x, %y : !b, !f, !f -> !f
  return
}

// CHECK-LABEL: func.func @creation
func.func @creation(%x: !stride.tensor<4x8xf32, strides = [1, 4]>) {
  // CHECK: stride.full 0.000000e+00 : <4x6x33xf32
  %0 = stride.full 0.0 : !stride.tensor<4x6x33xf32>
  // CHECK: stride.full -7.000000e+00 : <3xi32
  %1 = stride.full -7.0 : !stride.tensor<3xi32>
  // CHECK: stride.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> : <2xf32
  %2 = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  // CHECK: stride.iota dim 1 : <2x5xi64
  %3 = stride.iota dim 1 : !stride.tensor<2x5xi64>
  // CHECK: stride.clone %{{.*}} : <4x8xf32, strides = [1, 4], offset = 0> -> <4x8xf32, strides = [8, 1], offset = 0>
  %4 = stride.clone %x : !stride.tensor<4x8xf32, strides = [1, 4]>
      -> !stride.tensor<4x8xf32>
  // CHECK: stride.full 1.000000e+00 : <f64, strides = [], offset = 0>
  %5 = stride.full 1.0 : !stride.tensor<f64>
  return
}

// CHECK-LABEL: func.func @scatter_gather
func.func @scatter_gather(%x: !stride.tensor<4x13x33xf32>,
                          %src: !stride.tensor<4x6x33xf32>,
                          %row: !stride.tensor<4x33xf32>,
                          %t: !stride.tensor<4x3xf32>,
                          %idx2: !stride.tensor<2x3xi64>,
                          %src2: !stride.tensor<2x3xf32>,
                          %idx: !stride.tensor<8xi32>,
                          %rows: !stride.tensor<8x3xf32>) {
  // CHECK: stride.slice_scatter %{{.*}}, %{{.*}} dim 1 start 0 end 6 step 1 :
  %0 = stride.slice_scatter %x, %src dim 1 start 0 end 6 step 1
      : !stride.tensor<4x13x33xf32>, !stride.tensor<4x6x33xf32>
      -> !stride.tensor<4x13x33xf32>
  // CHECK: stride.select_scatter %{{.*}}, %{{.*}} dim 1 index 3 :
  %1 = stride.select_scatter %x, %row dim 1 index 3
      : !stride.tensor<4x13x33xf32>, !stride.tensor<4x33xf32>
      -> !stride.tensor<4x13x33xf32>
  // CHECK: stride.scatter %{{.*}}, %{{.*}}, %{{.*}} dim 0 :
  %2 = stride.scatter %t, %idx2, %src2 dim 0
      : !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32>
      -> !stride.tensor<4x3xf32>
  // CHECK: stride.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim 0 :
  %3 = stride.scatter_add %t, %idx2, %src2 dim 0
      : !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32>
      -> !stride.tensor<4x3xf32>
  // CHECK: stride.index_add %{{.*}}, %{{.*}}, %{{.*}} dim 0 :
  %4 = stride.index_add %t, %idx, %rows dim 0
      : !stride.tensor<4x3xf32>, !stride.tensor<8xi32>, !stride.tensor<8x3xf32>
      -> !stride.tensor<4x3xf32>
  // CHECK: stride.gather %{{.*}}, %{{.*}} dim 0 :
  %5 = stride.gather %t, %idx2 dim 0
      : !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64> -> !stride.tensor<2x3xf32>
  // CHECK: stride.index_select %{{.*}}, %{{.*}} dim 0 :
  %6 = stride.index_select %t, %idx dim 0
      : !stride.tensor<4x3xf32>, !stride.tensor<8xi32> -> !stride.tensor<8x3xf32>
  // CHECK: stride.cat %{{.*}}, %{{.*}}, %{{.*}} dim 1 : {{.*}} -> <4x25x33xf32
  %7 = stride.cat %src, %x, %src dim 1
      : !stride.tensor<4x6x33xf32>, !stride.tensor<4x13x33xf32>,
        !stride.tensor<4x6x33xf32> -> !stride.tensor<4x25x33xf32>
  // CHECK: stride.cat %{{.*}} dim 0 : {{.*}} -> <4x33xf32
  %8 = stride.cat %row dim 0 : !stride.tensor<4x33xf32> -> !stride.tensor<4x33xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: !stride.tensor<4x13x33xf32>, %n: !i, %m: !b) {
  // CHECK: stride.sum %{{.*}} dims [1] : {{.*}} -> <4x33xf32
  %0 = stride.sum %x dims [1] : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x33xf32>
  // CHECK: stride.mean %{{.*}} dims [0, 2] keepdim : {{.*}} -> <1x13x1xf32
  %1 = stride.mean %x dims [0, 2] keepdim
      : !stride.tensor<4x13x33xf32> -> !stride.tensor<1x13x1xf32>
  // CHECK: stride.max %{{.*}} dims [2] keepdim
  %2 = stride.max %x dims [2] keepdim
      : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x13x1xf32>
  // CHECK: stride.min %{{.*}} dims [0, 1, 2] : {{.*}} -> <f32
  %3 = stride.min %x dims [0, 1, 2] : !stride.tensor<4x13x33xf32> -> !stride.tensor<f32>
  // CHECK: stride.prod %{{.*}} dims [] : {{.*}} -> <4x8xi32
  %4 = stride.prod %n dims [] : !i -> !i
  // CHECK: stride.any %{{.*}} dims [1] keepdim : {{.*}} -> <4x1xi1
  %5 = stride.any %m dims [1] keepdim : !b -> !stride.tensor<4x1xi1>
  // CHECK: stride.argmax %{{.*}} dim 2 : {{.*}} -> <4x13xi64
  %6 = stride.argmax %x dim 2 : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x13xi64>
  // CHECK: stride.argmin %{{.*}} dim 1 keepdim : {{.*}} -> <4x1xi64
  %7 = stride.argmin %n dim 1 keepdim : !i -> !stride.tensor<4x1xi64>
  return
}

// CHECK-LABEL: func.func @scans
func.func @scans(%x: !stride.tensor<4x13x33xf32>, %n: !i) {
  // CHECK: stride.cumsum %{{.*}} dim 1 : {{.*}} -> <4x13x33xf32
  %0 = stride.cumsum %x dim 1 : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x13x33xf32>
  // CHECK: stride.cumsum %{{.*}} dim 0 : {{.*}} -> <4x8xi32
  %1 = stride.cumsum %n dim 0 : !i -> !i
  return
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf32>,
    %x: !stride.tensor<2x4x8xbf16>, %w: !stride.tensor<16x8xbf16>,
    %bias: !stride.tensor<16xbf16>) {
  // CHECK: stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x5xf32, {{.*}}> -> <4x5xf32
  %0 = stride.matmul %a, %b : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32>
      -> !stride.tensor<4x5xf32>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<16x8xbf16>
      -> !stride.tensor<8x16xbf16, strides = [1, 8], offset = 0>
  %we = stride.expand %wt : !stride.tensor<8x16xbf16, strides = [1, 8], offset = 0>
      -> !stride.tensor<2x8x16xbf16, strides = [0, 1, 8], offset = 0>
  // CHECK: stride.matmul %{{.*}}, %{{.*}} bias %{{.*}} epilogue gelu_tanh : {{.*}}, !stride.tensor<16xbf16, {{.*}}> -> <2x4x16xbf16
  %1 = stride.matmul %x, %we bias %bias epilogue gelu_tanh
      : !stride.tensor<2x4x8xbf16>, !stride.tensor<2x8x16xbf16, strides = [0, 1, 8], offset = 0>,
        !stride.tensor<16xbf16> -> !stride.tensor<2x4x16xbf16>
  // CHECK: stride.matmul %{{.*}}, %{{.*}} epilogue relu : {{.*}} -> <4x5xf32
  %2 = stride.matmul %a, %b epilogue relu : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32>
      -> !stride.tensor<4x5xf32>
  // The addend's type is the result's (not written).
  // CHECK: stride.matmul %{{.*}}, %{{.*}} addend %{{.*}} epilogue relu : {{.*}} -> <4x5xf32
  %3 = stride.matmul %a, %b addend %0 epilogue relu : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32>
      -> !stride.tensor<4x5xf32>
  return
}

!aq = !stride.tensor<2x4x3x8xbf16>
!akv = !stride.tensor<2x2x5x8xbf16>
!alse = !stride.tensor<2x4x3xf32>
// CHECK-LABEL: func.func @attention
func.func @attention(%q: !aq, %k: !akv, %v: !akv, %do: !aq,
    %m: !stride.tensor<5xi1>, %b: !stride.tensor<3x5xbf16>) {
  // CHECK: stride.attention %{{.*}}, %{{.*}}, %{{.*}} scale 3.500000e-01 : <2x4x3x8xbf16, {{.*}}>, <2x2x5x8xbf16, {{.*}}>, <2x2x5x8xbf16, {{.*}}> -> <2x4x3x8xbf16
  %0 = stride.attention %q, %k, %v scale 0.35 : !aq, !akv, !akv -> !aq
  // CHECK: stride.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} kv_length(%{{.*}} : !stride.tensor<2xi32, strides = [1], offset = 0>) scale 3.500000e-01 : {{.*}}, !stride.tensor<2x4x3x5xi1, strides = [0, 0, 0, 1], offset = 0> -> <2x4x3x8xbf16
  %n = stride.full 3.0 : !stride.tensor<2xi32>
  %mv = stride.expand %m : !stride.tensor<5xi1>
      -> !stride.tensor<2x4x3x5xi1, strides = [0, 0, 0, 1], offset = 0>
  %valid = stride.attention %q, %k, %v mask %mv kv_length(%n : !stride.tensor<2xi32>) scale 0.35
      : !aq, !akv, !akv, !stride.tensor<2x4x3x5xi1, strides = [0, 0, 0, 1], offset = 0> -> !aq
  %me = stride.expand %m : !stride.tensor<5xi1>
      -> !stride.tensor<2x4x3x5xi1, strides = [0, 0, 0, 1], offset = 0>
  // CHECK: %[[O:.*]], %[[LSE:.*]] = stride.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 3.500000e-01 causal : {{.*}}, !stride.tensor<2x4x3x5xi1, strides = [0, 0, 0, 1], offset = 0> -> <2x4x3x8xbf16, {{.*}}>, !stride.tensor<2x4x3xf32
  %1, %lse = stride.attention %q, %k, %v mask %me scale 0.35 causal
      : !aq, !akv, !akv, !stride.tensor<2x4x3x5xi1, strides = [0, 0, 0, 1], offset = 0>
      -> !aq, !alse
  %be = stride.expand %b : !stride.tensor<3x5xbf16>
      -> !stride.tensor<2x4x3x5xbf16, strides = [0, 0, 5, 1], offset = 0>
  // CHECK: = stride.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[LSE]] mask %{{.*}} scale 3.500000e-01 causal : {{.*}} -> <2x4x3x8xbf16, {{.*}}>, <2x2x5x8xbf16, {{.*}}>, <2x2x5x8xbf16
  %2, %3, %4 = stride.attention_backward %do, %q, %k, %v, %1, %lse mask %be scale 0.35 causal
      : !aq, !aq, !akv, !akv, !aq, !alse,
        !stride.tensor<2x4x3x5xbf16, strides = [0, 0, 5, 1], offset = 0>
      -> !aq, !akv, !akv
  // CHECK: stride.attention_backward {{.*}} scale 3.500000e-01 : {{.*}}, <2x4x3xf32, {{.*}}> -> <2x4x3x8xbf16
  %5, %6, %7 = stride.attention_backward %do, %q, %k, %v, %1, %lse scale 0.35
      : !aq, !aq, !akv, !akv, !aq, !alse -> !aq, !akv, !akv
  return
}
