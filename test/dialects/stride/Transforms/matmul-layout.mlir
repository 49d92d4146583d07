// stride-matmul-layout: each operand is read in place (row-major or
// transposed, at a leading dimension and a batch stride, 0 for a broadcast
// batch) or copied into a dense temporary first; the decision is on the op.
// Products of few rows are library calls here (skinny-products=library;
// the choice is skinny-products.mlir's).
// RUN: stride-opt --stride-matmul-layout='skinny-products=library pad-operand-rows=true' -split-input-file %s | FileCheck %s
// Unaligned operand rows are read in place without pad-operand-rows:
// RUN: stride-opt --stride-matmul-layout='skinny-products=library pad-operand-rows=false' -split-input-file %s | FileCheck %s --check-prefix=OFF
// Fusion turns the copies into kernels (with the operand's producer):
// RUN: stride-opt --stride-matmul-layout='skinny-products=library pad-operand-rows=true' --stride-fuse -split-input-file %s | FileCheck %s --check-prefix=FUSED
// Padded operand rows without a zero-padded K:
// RUN: stride-opt --stride-matmul-layout='skinny-products=library pad-contraction=false' -split-input-file %s | FileCheck %s --check-prefix=NOK

// A transposed operand (a permute of a row-major weight) is column-major.
// CHECK-LABEL: func.func @transposed
// CHECK: stride.matmul %arg0, %{{.*}} {lhs_layout = #stride.matmul_operand<transposed = false, ld = 8, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>}
func.func @transposed(%a: !stride.tensor<4x8xf32>, %w: !stride.tensor<5x8xf32>)
    -> !stride.tensor<4x5xf32> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<5x8xf32>
      -> !stride.tensor<8x5xf32, strides = [1, 8], offset = 0>
  %p = stride.matmul %a, %wt : !stride.tensor<4x8xf32>,
      !stride.tensor<8x5xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x5xf32>
  return %p : !stride.tensor<4x5xf32>
}

// -----

// Every other row of a matrix keeps the matrix's row length as leading
// dimension (and its offset, which the library call reads from the type);
// a column window too.
// CHECK-LABEL: func.func @strided
// CHECK: stride.matmul %{{.*}}, %{{.*}} {lhs_layout = #stride.matmul_operand<transposed = false, ld = 16, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = false, ld = 9, batch_stride = 0>}
func.func @strided(%a: !stride.tensor<8x8xf32>, %b: !stride.tensor<8x9xf32>)
    -> !stride.tensor<4x5xf32> {
  %rows = stride.slice %a dim 0 start 1 end 8 step 2 : !stride.tensor<8x8xf32>
      -> !stride.tensor<4x8xf32, strides = [16, 1], offset = 8>
  %cols = stride.slice %b dim 1 start 2 end 7 step 1 : !stride.tensor<8x9xf32>
      -> !stride.tensor<8x5xf32, strides = [9, 1], offset = 2>
  %p = stride.matmul %rows, %cols : !stride.tensor<4x8xf32, strides = [16, 1], offset = 8>,
      !stride.tensor<8x5xf32, strides = [9, 1], offset = 2> -> !stride.tensor<4x5xf32>
  return %p : !stride.tensor<4x5xf32>
}

// -----

// A weight broadcast over the batch (expand) has batch stride 0.
// CHECK-LABEL: func.func @zero_batch_stride
// CHECK: stride.matmul %arg0, %{{.*}} {lhs_layout = #stride.matmul_operand<transposed = false, ld = 8, batch_stride = 32>, rhs_layout = #stride.matmul_operand<transposed = false, ld = 5, batch_stride = 0>}
func.func @zero_batch_stride(%x: !stride.tensor<3x4x8xf32>, %w: !stride.tensor<8x5xf32>)
    -> !stride.tensor<3x4x5xf32> {
  %we = stride.expand %w : !stride.tensor<8x5xf32>
      -> !stride.tensor<3x8x5xf32, strides = [0, 5, 1], offset = 0>
  %p = stride.matmul %x, %we : !stride.tensor<3x4x8xf32>,
      !stride.tensor<3x8x5xf32, strides = [0, 5, 1], offset = 0> -> !stride.tensor<3x4x5xf32>
  return %p : !stride.tensor<3x4x5xf32>
}

// -----

// Neither stride is 1 (every other column of every other row): the operand
// is copied into a dense row-major temporary, which fusion makes a kernel
// together with the operand's producer.
// CHECK-LABEL: func.func @not_representable
// CHECK:      %[[E:.*]] = stride.exp %arg0
// CHECK:      %[[S:.*]] = stride.as_strided %[[E]]
// CHECK-NEXT: %[[C:.*]] = stride.clone %[[S]] : <4x8xf32, strides = [32, 2], offset = 0> -> <4x8xf32, strides = [8, 1], offset = 0>
// CHECK-NEXT: stride.matmul %[[C]], %arg1 {lhs_layout = #stride.matmul_operand<transposed = false, ld = 8, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = false, ld = 5, batch_stride = 0>}
// FUSED-LABEL: func.func @not_representable
// FUSED:      %[[K:.*]] = stride.kernel "exp_clone" ins(%arg0 :
// FUSED:      stride.matmul %[[K]], %arg1
func.func @not_representable(%a: !stride.tensor<128xf32>, %b: !stride.tensor<8x5xf32>)
    -> !stride.tensor<4x5xf32> {
  %e = stride.exp %a : !stride.tensor<128xf32> -> !stride.tensor<128xf32>
  %s = stride.as_strided %e : !stride.tensor<128xf32>
      -> !stride.tensor<4x8xf32, strides = [32, 2], offset = 0>
  %p = stride.matmul %s, %b : !stride.tensor<4x8xf32, strides = [32, 2], offset = 0>,
      !stride.tensor<8x5xf32> -> !stride.tensor<4x5xf32>
  return %p : !stride.tensor<4x5xf32>
}

// -----

// A broadcast row (stride 0 on the rows) and batch dims that do not
// collapse into one stride are copied too.
// CHECK-LABEL: func.func @broadcast_rows_and_batches
// CHECK:      stride.clone %{{.*}} : <4x8xf32, strides = [0, 1], offset = 0> -> <4x8xf32, strides = [8, 1], offset = 0>
// CHECK-NEXT: stride.clone %{{.*}} : <8x4xf32, strides = [1, 0], offset = 0> -> <8x4xf32, strides = [4, 1], offset = 0>
// CHECK:      stride.clone %{{.*}} : <2x3x8x5xf32, strides = [0, 40, 5, 1], offset = 0> -> <2x3x8x5xf32, strides = [120, 40, 5, 1], offset = 0>
func.func @broadcast_rows_and_batches(%v: !stride.tensor<8xf32>, %w: !stride.tensor<3x8x5xf32>)
    -> (!stride.tensor<4x4xf32>, !stride.tensor<2x3x4x5xf32>) {
  %row = stride.expand %v : !stride.tensor<8xf32>
      -> !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
  %vt = stride.permute %row dims [1, 0] : !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<8x4xf32, strides = [1, 0], offset = 0>
  %p = stride.matmul %row, %vt : !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>,
      !stride.tensor<8x4xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x4xf32>
  %x = stride.full 1.0 : !stride.tensor<2x3x4x8xf32>
  %we = stride.expand %w : !stride.tensor<3x8x5xf32>
      -> !stride.tensor<2x3x8x5xf32, strides = [0, 40, 5, 1], offset = 0>
  %q = stride.matmul %x, %we : !stride.tensor<2x3x4x8xf32>,
      !stride.tensor<2x3x8x5xf32, strides = [0, 40, 5, 1], offset = 0> -> !stride.tensor<2x3x4x5xf32>
  return %p, %q : !stride.tensor<4x4xf32>, !stride.tensor<2x3x4x5xf32>
}

// -----

// A value both operands read, that needs a copy, is copied once; so is a
// bias whose elements are not consecutive.
// CHECK-LABEL: func.func @one_copy
// CHECK:      %[[C:.*]] = stride.clone %{{.*}} : <4x4xf32, strides = [32, 2], offset = 1>
// CHECK-NEXT: %[[B:.*]] = stride.clone %{{.*}} : <4xf32, strides = [2], offset = 0> -> <4xf32, strides = [1], offset = 0>
// CHECK-NEXT: stride.matmul %[[C]], %[[C]] bias %[[B]] {
// CHECK-NOT:  stride.clone
func.func @one_copy(%a: !stride.tensor<128xf32>, %b: !stride.tensor<8xf32>) -> !stride.tensor<4x4xf32> {
  %s = stride.as_strided %a : !stride.tensor<128xf32>
      -> !stride.tensor<4x4xf32, strides = [32, 2], offset = 1>
  %bs = stride.slice %b dim 0 start 0 end 8 step 2 : !stride.tensor<8xf32>
      -> !stride.tensor<4xf32, strides = [2], offset = 0>
  %q = stride.matmul %s, %s bias %bs : !stride.tensor<4x4xf32, strides = [32, 2], offset = 1>,
      !stride.tensor<4x4xf32, strides = [32, 2], offset = 1>, !stride.tensor<4xf32, strides = [2], offset = 0>
      -> !stride.tensor<4x4xf32>
  return %q : !stride.tensor<4x4xf32>
}

// -----

// A bf16 product of 17 columns is written at rows of 24 (48 bytes, 16-byte
// aligned for cuBLASLt's fast kernels), batches of 5 rows one after the
// other, and copied into the graph's dense layout; fusion merges the copy
// into the kernel of the bias add and GELU after it (no extra pass over
// the product). A batched weight keeps its 17 columns (padding it would
// copy every matrix). f32 and aligned bf16 products keep the graph's layout.
// CHECK-LABEL: func.func @aligned_rows
// CHECK:      %[[P:.*]] = stride.matmul {{.*}} -> <2x5x17xbf16, strides = [120, 24, 1], offset = 0>
// CHECK-NEXT: stride.clone %[[P]] : <2x5x17xbf16, strides = [120, 24, 1], offset = 0> -> <2x5x17xbf16, strides = [85, 17, 1], offset = 0>
// CHECK:      stride.matmul {{.*}} -> <2x5x17xf32, strides = [85, 17, 1], offset = 0>
// CHECK-NEXT: stride.matmul {{.*}} -> <5x16xbf16, strides = [16, 1], offset = 0>
// CHECK-NEXT: return
// FUSED-LABEL: func.func @aligned_rows
// FUSED:      %[[P:.*]] = stride.matmul {{.*}} -> <2x5x17xbf16, strides = [120, 24, 1], offset = 0>
// FUSED:      stride.kernel "clone_add_gelu" ins(%[[P]], %{{.*}} : !stride.tensor<2x5x17xbf16, strides = [120, 24, 1], offset = 0>
func.func @aligned_rows(%x: !stride.tensor<2x5x8xbf16>, %w: !stride.tensor<2x8x17xbf16>,
                        %b: !stride.tensor<2x5x17xbf16>, %xf: !stride.tensor<2x5x8xf32>,
                        %wf: !stride.tensor<2x8x17xf32>, %y: !stride.tensor<5x8xbf16>,
                        %v: !stride.tensor<8x16xbf16>)
    -> (!stride.tensor<2x5x17xbf16>, !stride.tensor<2x5x17xf32>, !stride.tensor<5x16xbf16>) {
  %p = stride.matmul %x, %w : !stride.tensor<2x5x8xbf16>, !stride.tensor<2x8x17xbf16> -> !stride.tensor<2x5x17xbf16>
  %s = stride.add %p, %b : !stride.tensor<2x5x17xbf16>, !stride.tensor<2x5x17xbf16> -> !stride.tensor<2x5x17xbf16>
  %g = stride.gelu %s : !stride.tensor<2x5x17xbf16> -> !stride.tensor<2x5x17xbf16>
  %f = stride.matmul %xf, %wf : !stride.tensor<2x5x8xf32>, !stride.tensor<2x8x17xf32> -> !stride.tensor<2x5x17xf32>
  %a = stride.matmul %y, %v : !stride.tensor<5x8xbf16>, !stride.tensor<8x16xbf16> -> !stride.tensor<5x16xbf16>
  return %g, %f, %a : !stride.tensor<2x5x17xbf16>, !stride.tensor<2x5x17xf32>, !stride.tensor<5x16xbf16>
}

// -----

// A 2-D bf16 weight with 17 columns: cuBLASLt needs n itself 16-byte
// aligned, so the weight gets 7 zero columns and the product 24, and a
// slice view and a copy give the graph its 17. The weight is a transposed
// [17, 8] (a Linear's), so it is padded as stored: 7 zero rows after its
// 17 (a cat along dim 0, a straight copy), permuted back. Fusion puts the
// padding in one kernel and the copy into the bias add's.
// CHECK-LABEL: func.func @padded_columns
// CHECK:      %[[T:.*]] = stride.permute %arg1
// CHECK-NEXT: %[[R:.*]] = stride.permute %[[T]] dims [1, 0] : {{.*}} -> <17x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[Z:.*]] = stride.full 0.000000e+00 : <7x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = stride.cat %[[R]], %[[Z]] dim 0 : {{.*}} -> <24x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[W:.*]] = stride.permute %[[C]] dims [1, 0] : {{.*}} -> <8x24xbf16, strides = [1, 8], offset = 0>
// CHECK-NEXT: %[[P:.*]] = stride.matmul %arg0, %[[W]] {{{.*}}rhs_layout = #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>} : {{.*}} -> <5x24xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: %[[S:.*]] = stride.slice %[[P]] dim 1 start 0 end 17 step 1 : <5x24xbf16, strides = [24, 1], offset = 0> -> <5x17xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: %[[K:.*]] = stride.clone %[[S]] : {{.*}} -> <5x17xbf16, strides = [17, 1], offset = 0>
// CHECK:      stride.add %[[K]]
// FUSED-LABEL: func.func @padded_columns
// FUSED:      stride.kernel "full_cat" ins(%arg1 {{.*}} -> (!stride.tensor<24x8xbf16, strides = [8, 1], offset = 0>)
// FUSED:      stride.matmul {{.*}} -> <5x24xbf16, strides = [24, 1], offset = 0>
// FUSED:      stride.kernel "clone_add"
func.func @padded_columns(%x: !stride.tensor<5x8xbf16>, %w: !stride.tensor<17x8xbf16>,
                          %b: !stride.tensor<17xbf16>) -> !stride.tensor<5x17xbf16> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<17x8xbf16>
      -> !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<5x8xbf16>,
      !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<5x17xbf16>
  %be = stride.expand %b : !stride.tensor<17xbf16>
      -> !stride.tensor<5x17xbf16, strides = [0, 1], offset = 0>
  %s = stride.add %p, %be : !stride.tensor<5x17xbf16>,
      !stride.tensor<5x17xbf16, strides = [0, 1], offset = 0> -> !stride.tensor<5x17xbf16>
  return %s : !stride.tensor<5x17xbf16>
}

// -----

// A row-major 2-D weight is padded along its columns as stored.
// CHECK-LABEL: func.func @padded_row_major_weight
// CHECK:      %[[Z:.*]] = stride.full 0.000000e+00 : <8x7xbf16, strides = [7, 1], offset = 0>
// CHECK-NEXT: %[[W:.*]] = stride.cat %arg1, %[[Z]] dim 1 : {{.*}} -> <8x24xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: stride.matmul %arg0, %[[W]] {{{.*}}rhs_layout = #stride.matmul_operand<transposed = false, ld = 24, batch_stride = 0>} : {{.*}} -> <5x24xbf16, strides = [24, 1], offset = 0>
func.func @padded_row_major_weight(%x: !stride.tensor<5x8xbf16>, %w: !stride.tensor<8x17xbf16>)
    -> !stride.tensor<5x17xbf16> {
  %p = stride.matmul %x, %w : !stride.tensor<5x8xbf16>, !stride.tensor<8x17xbf16> -> !stride.tensor<5x17xbf16>
  return %p : !stride.tensor<5x17xbf16>
}

// -----

// A bf16 logits-like product, [2048, 16] @ [16, 17] with a transposed
// weight: 17 columns are 34-byte rows, so it is written in 8 row classes
// (every call aligned, python-free-docs/matmul.md "Row classes"): no padded weight, no
// padded product, no copy; 50 columns (100 bytes) align every 4th row, so
// 4 classes. With 2047 rows a class would have fewer than
// 256 rows, and with K = 12 the lhs's rows are not 16-byte aligned: both
// are padded instead. A row_classes written on the op stands.
// CHECK-LABEL: func.func @row_classes
// CHECK-NOT:  stride.cat
// CHECK:      %[[P:.*]] = stride.matmul %arg0, %{{.*}} {lhs_layout = #stride.matmul_operand<transposed = false, ld = 16, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = true, ld = 16, batch_stride = 0>, row_classes = 8 : i64} : {{.*}} -> <2048x17xbf16, strides = [17, 1], offset = 0>
// CHECK:      %[[Q:.*]] = stride.matmul %arg0, %{{.*}} {lhs_layout = #stride.matmul_operand<transposed = false, ld = 16, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = true, ld = 16, batch_stride = 0>, row_classes = 4 : i64} : {{.*}} -> <2048x50xbf16, strides = [50, 1], offset = 0>
// CHECK:      stride.cat
// CHECK:      stride.matmul {{.*}} -> <2047x24xbf16, strides = [24, 1], offset = 0>
// CHECK:      stride.cat
// CHECK:      stride.matmul {{.*}} -> <2048x24xbf16, strides = [24, 1], offset = 0>
// CHECK:      stride.matmul {{.*}} {lhs_layout = #stride.matmul_operand<transposed = false, ld = 16, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = true, ld = 16, batch_stride = 0>, row_classes = 8 : i64} : {{.*}} -> <5x17xbf16, strides = [17, 1], offset = 0>
// CHECK-NEXT: return
func.func @row_classes(%x: !stride.tensor<2048x16xbf16>, %w: !stride.tensor<17x16xbf16>,
                       %w50: !stride.tensor<50x16xbf16>, %y: !stride.tensor<2047x16xbf16>,
                       %z: !stride.tensor<2048x12xbf16>, %v: !stride.tensor<17x12xbf16>,
                       %s: !stride.tensor<5x16xbf16>)
    -> (!stride.tensor<2048x17xbf16>, !stride.tensor<2048x50xbf16>,
        !stride.tensor<2047x17xbf16>, !stride.tensor<2048x17xbf16>, !stride.tensor<5x17xbf16>) {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<17x16xbf16>
      -> !stride.tensor<16x17xbf16, strides = [1, 16], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<2048x16xbf16>,
      !stride.tensor<16x17xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<2048x17xbf16>
  %w50t = stride.permute %w50 dims [1, 0] : !stride.tensor<50x16xbf16>
      -> !stride.tensor<16x50xbf16, strides = [1, 16], offset = 0>
  %q = stride.matmul %x, %w50t : !stride.tensor<2048x16xbf16>,
      !stride.tensor<16x50xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<2048x50xbf16>
  %r = stride.matmul %y, %wt : !stride.tensor<2047x16xbf16>,
      !stride.tensor<16x17xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<2047x17xbf16>
  %vt = stride.permute %v dims [1, 0] : !stride.tensor<17x12xbf16>
      -> !stride.tensor<12x17xbf16, strides = [1, 12], offset = 0>
  %u = stride.matmul %z, %vt : !stride.tensor<2048x12xbf16>,
      !stride.tensor<12x17xbf16, strides = [1, 12], offset = 0> -> !stride.tensor<2048x17xbf16>
  %t = stride.matmul %s, %wt {row_classes = 8 : i64} : !stride.tensor<5x16xbf16>,
      !stride.tensor<16x17xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<5x17xbf16>
  return %p, %q, %r, %u, %t : !stride.tensor<2048x17xbf16>, !stride.tensor<2048x50xbf16>,
      !stride.tensor<2047x17xbf16>, !stride.tensor<2048x17xbf16>, !stride.tensor<5x17xbf16>
}

// -----

// bf16 rows of 17 elements (34 bytes) in memory, read by two products (one
// through a transposing permute): one copy into rows padded to 24, and
// the permute rebuilt over it; fusion makes the copy the producer's kernel.
// An f32 operand with the same rows is read in place.
// CHECK-LABEL: func.func @unaligned_rows
// CHECK: %[[P:.*]] = stride.clone %[[G:.*]] : <6x17xbf16, strides = [17, 1], offset = 0> -> <6x17xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: stride.matmul %[[P]], %arg2 {lhs_layout = #stride.matmul_operand<transposed = false, ld = 24, batch_stride = 0>
// CHECK-NEXT: %[[T:.*]] = stride.permute %[[P]] dims [1, 0] : {{.*}} -> <17x6xbf16, strides = [1, 24], offset = 0>
// CHECK-NEXT: stride.matmul %[[T]], %arg3 {lhs_layout = #stride.matmul_operand<transposed = true, ld = 24, batch_stride = 0>
// CHECK-NOT: stride.clone
// CHECK: stride.matmul %arg4, %arg5 {lhs_layout = #stride.matmul_operand<transposed = false, ld = 17, batch_stride = 0>
// FUSED-LABEL: func.func @unaligned_rows
// OFF-LABEL: func.func @unaligned_rows
// OFF-NOT: stride.clone
// OFF: return
// FUSED: stride.kernel "mul_clone" {{.*}} -> (!stride.tensor<6x17xbf16, strides = [24, 1], offset = 0>)
func.func @unaligned_rows(%a: !stride.tensor<6x17xbf16>, %s: !stride.tensor<6x17xbf16>,
                          %w: !stride.tensor<17x8xbf16>, %x: !stride.tensor<6x8xbf16>,
                          %f: !stride.tensor<6x17xf32>, %v: !stride.tensor<17x8xf32>)
    -> (!stride.tensor<6x8xbf16>, !stride.tensor<17x8xbf16>, !stride.tensor<6x8xf32>) {
  %g = stride.mul %a, %s : !stride.tensor<6x17xbf16>, !stride.tensor<6x17xbf16>
      -> !stride.tensor<6x17xbf16>
  %dx = stride.matmul %g, %w : !stride.tensor<6x17xbf16>, !stride.tensor<17x8xbf16>
      -> !stride.tensor<6x8xbf16>
  %gt = stride.permute %g dims [1, 0] : !stride.tensor<6x17xbf16>
      -> !stride.tensor<17x6xbf16, strides = [1, 17], offset = 0>
  %dw = stride.matmul %gt, %x : !stride.tensor<17x6xbf16, strides = [1, 17], offset = 0>,
      !stride.tensor<6x8xbf16> -> !stride.tensor<17x8xbf16>
  %y = stride.matmul %f, %v : !stride.tensor<6x17xf32>, !stride.tensor<17x8xf32>
      -> !stride.tensor<6x8xf32>
  return %dx, %dw, %y : !stride.tensor<6x8xbf16>, !stride.tensor<17x8xbf16>, !stride.tensor<6x8xf32>
}

// -----

// A product with a written addend and ReLU whose bf16 result rows (2
// elements, 4 bytes) the library writes at an aligned leading dimension
// through a copy: the addend is read with the result's layout, so the
// product drops it and its ReLU, which follow the copy as ops (one kernel
// after fusion).
// CHECK-LABEL: func.func @addend_of_a_padded_result
// CHECK: %[[P:.*]] = stride.matmul %arg0, %{{.*}} {{{.*}}} : {{.*}} -> <4x2xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = stride.clone %[[P]] : {{.*}} -> <4x2xbf16, strides = [2, 1], offset = 0>
// CHECK-NEXT: %[[A:.*]] = stride.add %[[C]], %arg2 :
// CHECK-NEXT: %[[R:.*]] = stride.relu %[[A]] :
// CHECK-NEXT: return %[[R]]
// FUSED-LABEL: func.func @addend_of_a_padded_result
// FUSED: %[[P:.*]] = stride.matmul %arg0, %{{.*}} {{{.*}}} : {{.*}} -> <4x2xbf16, strides = [8, 1], offset = 0>
// FUSED-NEXT: stride.kernel "clone_add_relu" ins(%[[P]], %arg2
func.func @addend_of_a_padded_result(%x: !stride.tensor<4x8xbf16>,
    %w: !stride.tensor<8x2xbf16>, %c: !stride.tensor<4x2xbf16>)
    -> !stride.tensor<4x2xbf16> {
  %p = stride.matmul %x, %w addend %c epilogue relu
      : !stride.tensor<4x8xbf16>, !stride.tensor<8x2xbf16> -> !stride.tensor<4x2xbf16>
  return %p : !stride.tensor<4x2xbf16>
}

// -----

// The same rows, 256 of them (GPT-2's logits' gradient, read by dX over
// K = 50,257 and by dW through a permute): the product over K reads the
// rows concatenated with 7 zero columns (K = 24), the weight gets 7 zero
// rows; dW, visited first, reads a slice of the concatenation, which
// replaced the clone made for it. Fusion writes the zero-padded rows in
// the producer's kernel.
// CHECK-LABEL: func.func @unaligned_k
// CHECK: %[[G:.*]] = stride.mul
// CHECK-NEXT: %[[Z:.*]] = stride.full 0.000000e+00 : <256x7xbf16, strides = [7, 1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = stride.cat %[[G]], %[[Z]] dim 1 : {{.*}} -> <256x24xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: %[[S:.*]] = stride.slice %[[C]] dim 1 start 0 end 17 step 1 : {{.*}} -> <256x17xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: %[[T:.*]] = stride.permute %[[S]] dims [1, 0] : {{.*}} -> <17x256xbf16, strides = [1, 24], offset = 0>
// CHECK-NEXT: stride.matmul %[[T]], %arg3 {lhs_layout = #stride.matmul_operand<transposed = true, ld = 24, batch_stride = 0>
// CHECK-NEXT: %[[WZ:.*]] = stride.full 0.000000e+00 : <7x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[W:.*]] = stride.cat %arg2, %[[WZ]] dim 0 : {{.*}} -> <24x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: stride.matmul %[[C]], %[[W]] {lhs_layout = #stride.matmul_operand<transposed = false, ld = 24, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = false, ld = 8, batch_stride = 0>} : <256x24xbf16, strides = [24, 1], offset = 0>, <24x8xbf16, strides = [8, 1], offset = 0> -> <256x8xbf16
// CHECK-NOT: stride.clone
// FUSED-LABEL: func.func @unaligned_k
// FUSED: stride.kernel "mul_full_cat" {{.*}} -> (!stride.tensor<256x24xbf16, strides = [24, 1], offset = 0>)
// FUSED: stride.kernel "full_cat" {{.*}} -> (!stride.tensor<24x8xbf16, strides = [8, 1], offset = 0>)
// NOK-LABEL: func.func @unaligned_k
// NOK-NOT: stride.cat
// NOK: %[[P:.*]] = stride.clone %{{.*}} -> <256x17xbf16, strides = [24, 1], offset = 0>
// NOK-NOT: stride.cat
// NOK: stride.matmul %[[P]], %arg2 {{.*}} : <256x17xbf16, strides = [24, 1], offset = 0>, <17x8xbf16
// OFF-LABEL: func.func @unaligned_k
// OFF-NOT: stride.clone
// OFF-NOT: stride.cat
// OFF: return
func.func @unaligned_k(%a: !stride.tensor<256x17xbf16>, %s: !stride.tensor<256x17xbf16>,
                       %w: !stride.tensor<17x8xbf16>, %x: !stride.tensor<256x8xbf16>)
    -> (!stride.tensor<256x8xbf16>, !stride.tensor<17x8xbf16>) {
  %g = stride.mul %a, %s : !stride.tensor<256x17xbf16>, !stride.tensor<256x17xbf16>
      -> !stride.tensor<256x17xbf16>
  %gt = stride.permute %g dims [1, 0] : !stride.tensor<256x17xbf16>
      -> !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>
  %dw = stride.matmul %gt, %x : !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>,
      !stride.tensor<256x8xbf16> -> !stride.tensor<17x8xbf16>
  %dx = stride.matmul %g, %w : !stride.tensor<256x17xbf16>, !stride.tensor<17x8xbf16>
      -> !stride.tensor<256x8xbf16>
  return %dx, %dw : !stride.tensor<256x8xbf16>, !stride.tensor<17x8xbf16>
}

// -----

// An rhs whose memory rows are K (a permute of a [N, K] input): copied with
// zero columns and permuted; the transposed lhs (a permute of [K, M]) gets
// zero rows in its memory's orientation and is permuted back. Below 256
// rows on the padded operand's side (N = 128 here) K stays 17.
// CHECK-LABEL: func.func @unaligned_k_rhs
// CHECK: %[[VT:.*]] = stride.permute %arg0 dims [1, 0]
// CHECK-NEXT: %[[LT:.*]] = stride.permute %[[VT]] dims [1, 0] : <8x17xbf16, strides = [1, 8], offset = 0> -> <17x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[LZ:.*]] = stride.full 0.000000e+00 : <7x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[LC:.*]] = stride.cat %[[LT]], %[[LZ]] dim 0 : {{.*}} -> <24x8xbf16, strides = [8, 1], offset = 0>
// CHECK-NEXT: %[[L:.*]] = stride.permute %[[LC]] dims [1, 0] : {{.*}} -> <8x24xbf16, strides = [1, 8], offset = 0>
// CHECK-NEXT: %[[Z:.*]] = stride.full 0.000000e+00 : <256x7xbf16, strides = [7, 1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = stride.cat %arg1, %[[Z]] dim 1 : {{.*}} -> <256x24xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: stride.slice %[[C]]
// CHECK-NEXT: %[[R:.*]] = stride.permute %[[C]] dims [1, 0] : {{.*}} -> <24x256xbf16, strides = [1, 24], offset = 0>
// CHECK-NEXT: stride.matmul %[[L]], %[[R]] {lhs_layout = #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = true, ld = 24, batch_stride = 0>}
// CHECK: %[[P:.*]] = stride.clone %arg2 : {{.*}} -> <128x17xbf16, strides = [24, 1], offset = 0>
// CHECK-NEXT: %[[PT:.*]] = stride.permute %[[P]] dims [1, 0] : {{.*}} -> <17x128xbf16, strides = [1, 24], offset = 0>
// CHECK-NEXT: stride.matmul %[[VT]], %[[PT]] {{.*}} : <8x17xbf16, strides = [1, 8], offset = 0>, <17x128xbf16, strides = [1, 24], offset = 0>
// NOK-LABEL: func.func @unaligned_k_rhs
// NOK-NOT: stride.cat
// NOK: return
func.func @unaligned_k_rhs(%v: !stride.tensor<17x8xbf16>, %h: !stride.tensor<256x17xbf16>,
                           %n: !stride.tensor<128x17xbf16>)
    -> (!stride.tensor<8x256xbf16>, !stride.tensor<8x128xbf16>) {
  %vt = stride.permute %v dims [1, 0] : !stride.tensor<17x8xbf16>
      -> !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>
  %ht = stride.permute %h dims [1, 0] : !stride.tensor<256x17xbf16>
      -> !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>
  %y = stride.matmul %vt, %ht : !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>,
      !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0> -> !stride.tensor<8x256xbf16>
  %nt = stride.permute %n dims [1, 0] : !stride.tensor<128x17xbf16>
      -> !stride.tensor<17x128xbf16, strides = [1, 17], offset = 0>
  %z = stride.matmul %vt, %nt : !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>,
      !stride.tensor<17x128xbf16, strides = [1, 17], offset = 0> -> !stride.tensor<8x128xbf16>
  return %y, %z : !stride.tensor<8x256xbf16>, !stride.tensor<8x128xbf16>
}
