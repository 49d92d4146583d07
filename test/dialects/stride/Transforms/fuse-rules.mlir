// One case per fusion rule of python-free-docs/fusion.md.
// RUN: stride-opt --stride-fuse -split-input-file %s | FileCheck %s
// Fusing again changes nothing:
// RUN: stride-opt --stride-fuse -split-input-file %s > %t.once
// RUN: stride-opt --stride-fuse --stride-fuse -split-input-file %s > %t.twice
// RUN: diff %t.once %t.twice

// A value read by two kernels is materialized once: the exp is an extra
// result of the kernel of its in-frame consumer (the add), and the sum's
// kernel reads that buffer.
// CHECK-LABEL: func.func @multi_use
// CHECK:      %[[K:.*]]:2 = stride.kernel "exp_add" ins(%arg0, %arg1 :
// CHECK-SAME:   -> (!stride.tensor<4x8xf32, strides = [8, 1], offset = 0>, !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>)
// CHECK:        %[[E:.*]] = stride.exp
// CHECK-NEXT:   %[[A:.*]] = stride.add %[[E]]
// CHECK-NEXT:   stride.yield %[[E]], %[[A]]
// CHECK:      %[[S:.*]] = stride.kernel "sum_kernel" ins(%[[K]]#0 :
// CHECK:      return %[[K]]#1, %[[S]]
func.func @multi_use(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4xf32>) {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a = stride.add %e, %y : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  %s = stride.sum %e dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  return %a, %s : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>
}

// -----

// A returned value that is also read by a fused consumer is a second
// result of the same kernel.
// CHECK-LABEL: func.func @returned_and_used
// CHECK:      %[[K:.*]]:2 = stride.kernel "neg_relu" ins(%arg0 :
// CHECK:        %[[N:.*]] = stride.neg
// CHECK-NEXT:   %[[R:.*]] = stride.relu %[[N]]
// CHECK-NEXT:   stride.yield %[[N]], %[[R]]
// CHECK-NOT:  stride.kernel
// CHECK:      return %[[K]]#0, %[[K]]#1
func.func @returned_and_used(%x: !stride.tensor<16xf32>)
    -> (!stride.tensor<16xf32>, !stride.tensor<16xf32>) {
  %n = stride.neg %x : !stride.tensor<16xf32> -> !stride.tensor<16xf32>
  %r = stride.relu %n : !stride.tensor<16xf32> -> !stride.tensor<16xf32>
  return %n, %r : !stride.tensor<16xf32>, !stride.tensor<16xf32>
}

// -----

// A value read through a permute cannot be written by the reading kernel
// (it is computed there at other coordinates): it is materialized by the
// kernel that reads it in its own iteration space.
// CHECK-LABEL: func.func @read_through_view
// CHECK:      %[[K:.*]]:2 = stride.kernel "exp_mul" ins(%arg0 :
// CHECK:        stride.yield
// CHECK:      stride.kernel "add_kernel" ins(%[[K]]#0, %arg1 :
// CHECK:        stride.permute
// CHECK-NEXT:   stride.add
// CHECK:      return
func.func @read_through_view(%x: !stride.tensor<4x4xf32>, %y: !stride.tensor<4x4xf32>)
    -> (!stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>) {
  %e = stride.exp %x : !stride.tensor<4x4xf32> -> !stride.tensor<4x4xf32>
  %t = stride.permute %e dims [1, 0] : !stride.tensor<4x4xf32>
      -> !stride.tensor<4x4xf32, strides = [1, 4], offset = 0>
  %b = stride.add %t, %y : !stride.tensor<4x4xf32, strides = [1, 4], offset = 0>,
      !stride.tensor<4x4xf32> -> !stride.tensor<4x4xf32>
  %c = stride.mul %e, %e : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
      -> !stride.tensor<4x4xf32>
  return %b, %c : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
}

// -----

// Views are cloned into every kernel that reads them; none is left outside.
// CHECK-LABEL: func.func @view_in_each_kernel
// CHECK-NOT:  stride.expand
// CHECK:      stride.kernel "sum_kernel"
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   stride.expand
// CHECK:      stride.kernel "mul_kernel"
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   stride.expand
// CHECK:      return
func.func @view_in_each_kernel(%x: !stride.tensor<8xf32>, %y: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<8xf32>, !stride.tensor<4x8xf32>) {
  %e = stride.expand %x : !stride.tensor<8xf32>
      -> !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
  %s = stride.sum %e dims [0] : !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<8xf32>
  %m = stride.mul %e, %y : !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>,
      !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  return %s, %m : !stride.tensor<8xf32>, !stride.tensor<4x8xf32>
}

// -----

// full is cloned into each kernel that reads it, and materialized by a
// kernel of its own only where it is returned.
// CHECK-LABEL: func.func @full_cloned
// CHECK:      %[[F:.*]] = stride.kernel "full_kernel" ->
// CHECK-NEXT:   stride.full 2.0
// CHECK-NEXT:   stride.yield
// CHECK:      %[[A:.*]] = stride.kernel "full_add" ins(%arg0 :
// CHECK:      %[[M:.*]] = stride.kernel "full_mul" ins(%arg0 :
// CHECK:      return %[[A]], %[[M]], %[[F]]
func.func @full_cloned(%x: !stride.tensor<4xf32>)
    -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>) {
  %two = stride.full 2.0 : !stride.tensor<4xf32>
  %a = stride.add %x, %two : !stride.tensor<4xf32>, !stride.tensor<4xf32>
      -> !stride.tensor<4xf32>
  %m = stride.mul %x, %two : !stride.tensor<4xf32>, !stride.tensor<4xf32>
      -> !stride.tensor<4xf32>
  return %a, %m, %two : !stride.tensor<4xf32>, !stride.tensor<4xf32>,
      !stride.tensor<4xf32>
}

// -----

// A pointwise epilogue of the reduced shape fuses after the reduction; the
// reduction's own result, also returned, is a second result.
// CHECK-LABEL: func.func @reduction_epilogue
// CHECK:      %[[K:.*]]:2 = stride.kernel "abs_sum_exp_add" ins(%arg0, %arg1 :
// CHECK:        stride.abs
// CHECK-NEXT:   %[[S:.*]] = stride.sum
// CHECK-NEXT:   %[[E:.*]] = stride.exp %[[S]]
// CHECK-NEXT:   %[[A:.*]] = stride.add %[[E]], %arg3
// CHECK-NEXT:   stride.yield %[[S]], %[[A]]
// CHECK-NOT:  stride.kernel
func.func @reduction_epilogue(%x: !stride.tensor<4x8xf32>, %z: !stride.tensor<4xf32>)
    -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>) {
  %a = stride.abs %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %e = stride.exp %s : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %r = stride.add %e, %z : !stride.tensor<4xf32>, !stride.tensor<4xf32>
      -> !stride.tensor<4xf32>
  return %s, %r : !stride.tensor<4xf32>, !stride.tensor<4xf32>
}

// -----

// A consumer of a reduction that neither has its shape nor broadcasts it
// back over the reduction's input (here a new leading dim) is a kernel of
// its own; so is a reduction of a reduction.
// CHECK-LABEL: func.func @reduction_boundaries
// CHECK:      stride.kernel "sum_kernel" ins(%arg0
// CHECK:      stride.kernel "add_kernel"
// CHECK:      stride.kernel "max_kernel"
// CHECK:      stride.kernel "sum_kernel_1"
func.func @reduction_boundaries(%x: !stride.tensor<4x8xf32>, %w: !stride.tensor<3x4xf32>)
    -> (!stride.tensor<3x4xf32>, !stride.tensor<f32>) {
  %s = stride.sum %x dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %b = stride.expand %s : !stride.tensor<4xf32>
      -> !stride.tensor<3x4xf32, strides = [0, 1], offset = 0>
  %y = stride.add %b, %w : !stride.tensor<3x4xf32, strides = [0, 1], offset = 0>,
      !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
  %m = stride.max %x dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %t = stride.sum %m dims [0] : !stride.tensor<4xf32> -> !stride.tensor<f32>
  return %y, %t : !stride.tensor<3x4xf32>, !stride.tensor<f32>
}

// -----

// A broadcast epilogue without keepdim: unsqueeze + expand of the result
// over the reduced dim (x - mean(x)).
// CHECK-LABEL: func.func @broadcast_unsqueeze
// CHECK:      stride.kernel "mean_sub"
// CHECK-NOT:  stride.kernel
func.func @broadcast_unsqueeze(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  %m = stride.mean %x dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %u = stride.unsqueeze %m dim 1 : !stride.tensor<4xf32>
      -> !stride.tensor<4x1xf32, strides = [1, 1], offset = 0>
  %b = stride.expand %u : !stride.tensor<4x1xf32, strides = [1, 1], offset = 0>
      -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %y = stride.sub %x, %b : !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  return %y : !stride.tensor<4x8xf32>
}

// -----

// A value computed once per row that is also read outside the kernel (a
// training forward returns LayerNorm's mean and rstd, and softmax's max and
// sum here) is a row output of the broadcast-reduction kernel: stored once
// per row beside the rows, not a kernel of its own.
// CHECK-LABEL: func.func @row_outputs
// CHECK:      %[[K:.*]]:3 = stride.kernel "max_sub_exp_sum_div"
// CHECK-SAME: -> (!stride.tensor<4x1xf32, {{.*}}>, !stride.tensor<4x1xf32, {{.*}}>, !stride.tensor<4x8xf32, {{.*}}>)
// CHECK-NOT:  stride.kernel
// CHECK:      return %[[K]]#2, %[[K]]#0, %[[K]]#1
func.func @row_outputs(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32>) {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %mb = stride.expand %m : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d = stride.sub %x, %mb : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %e = stride.exp %d : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %sb = stride.expand %s : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %y = stride.div %e, %sb : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  return %y, %m, %s : !stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32>
}

// -----

// Per-row ops that only the return reads (batch norm's bias gradient, a
// sum rounded to bf16; its weight gradient, the other sum times a vector)
// join the broadcast-reduction kernel whose rows they read, as its row
// outputs; the sums they read are then read by no other kernel and are
// not stored.
// CHECK-LABEL: func.func @returned_row_ops
// CHECK:      %[[K:.*]]:3 = stride.kernel "sum_mul_sum_sub_sub_mul"
// CHECK-SAME: -> (!stride.tensor<4x8xf32, {{.*}}>, !stride.tensor<4xbf16, {{.*}}>, !stride.tensor<4xf32, {{.*}}>)
// CHECK:        stride.cast
// CHECK:        stride.yield
// CHECK-NOT:  stride.kernel
// CHECK:      return %[[K]]#0, %[[K]]#1, %[[K]]#2
func.func @returned_row_ops(%g: !stride.tensor<4x8xf32>, %x: !stride.tensor<4x8xf32>,
                            %w: !stride.tensor<4xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4xbf16>, !stride.tensor<4xf32>) {
  %sg = stride.sum %g dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %gx = stride.mul %g, %x : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %sgx = stride.sum %gx dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %u = stride.unsqueeze %sg dim 1 : !stride.tensor<4xf32> -> !stride.tensor<4x1xf32, strides = [1, 1]>
  %b = stride.expand %u : !stride.tensor<4x1xf32, strides = [1, 1]> -> !stride.tensor<4x8xf32, strides = [1, 0]>
  %y0 = stride.sub %gx, %b : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0]> -> !stride.tensor<4x8xf32>
  %u2 = stride.unsqueeze %sgx dim 1 : !stride.tensor<4xf32> -> !stride.tensor<4x1xf32, strides = [1, 1]>
  %b2 = stride.expand %u2 : !stride.tensor<4x1xf32, strides = [1, 1]> -> !stride.tensor<4x8xf32, strides = [1, 0]>
  %y = stride.sub %y0, %b2 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0]> -> !stride.tensor<4x8xf32>
  %gb = stride.cast %sg : !stride.tensor<4xf32> -> !stride.tensor<4xbf16>
  %gw = stride.mul %sgx, %w : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %y, %gb, %gw : !stride.tensor<4x8xf32>, !stride.tensor<4xbf16>, !stride.tensor<4xf32>
}

// -----

// A returned per-row op that reads the rows of two broadcast-reduction
// kernels stays a kernel of its own: joining it to one would make that
// kernel read the other.
// CHECK-LABEL: func.func @returned_row_op_two_kernels
// CHECK:      %[[A:.*]]:2 = stride.kernel "sum_sub"
// CHECK:      %[[B:.*]]:2 = stride.kernel "sum_sub_1"
// CHECK:      stride.kernel "mul_kernel" ins(%[[A]]#0, %[[B]]#0 :
// CHECK-NOT:  stride.kernel
func.func @returned_row_op_two_kernels(%g: !stride.tensor<4x8xf32>, %h: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4xf32>) {
  %sg = stride.sum %g dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %u = stride.unsqueeze %sg dim 1 : !stride.tensor<4xf32> -> !stride.tensor<4x1xf32, strides = [1, 1]>
  %b = stride.expand %u : !stride.tensor<4x1xf32, strides = [1, 1]> -> !stride.tensor<4x8xf32, strides = [1, 0]>
  %y = stride.sub %g, %b : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0]> -> !stride.tensor<4x8xf32>
  %sh = stride.sum %h dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %uh = stride.unsqueeze %sh dim 1 : !stride.tensor<4xf32> -> !stride.tensor<4x1xf32, strides = [1, 1]>
  %bh = stride.expand %uh : !stride.tensor<4x1xf32, strides = [1, 1]> -> !stride.tensor<4x8xf32, strides = [1, 0]>
  %z = stride.sub %h, %bh : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0]> -> !stride.tensor<4x8xf32>
  %m = stride.mul %sg, %sh : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %y, %z, %m : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4xf32>
}

// -----

// A value of the rows' shape that depends on no reduction joins the
// pointwise kernel that reads it as a row output only while that kernel
// may still become a broadcast reduction; it does not, so the kernels are
// formed again without it: a kernel of its own.
// CHECK-LABEL: func.func @row_output_without_rows
// CHECK:      stride.kernel "neg_kernel"
// CHECK:      stride.kernel "add_kernel"
// CHECK-NOT:  stride.kernel
func.func @row_output_without_rows(%x: !stride.tensor<4x8xf32>, %b: !stride.tensor<4x1xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>) {
  %n = stride.neg %b : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %nb = stride.expand %n : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %y = stride.add %x, %nb : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  return %y, %n : !stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>
}

// -----

// Broadcasting the result back over the wrong dim is no broadcast epilogue.
// CHECK-LABEL: func.func @broadcast_wrong_dim
// CHECK:      stride.kernel "sum_kernel"
// CHECK:      stride.kernel "sub_kernel"
func.func @broadcast_wrong_dim(%x: !stride.tensor<4x4xf32>) -> !stride.tensor<4x4xf32> {
  %s = stride.sum %x dims [1] : !stride.tensor<4x4xf32> -> !stride.tensor<4xf32>
  %b = stride.expand %s : !stride.tensor<4xf32>
      -> !stride.tensor<4x4xf32, strides = [0, 1], offset = 0>
  %y = stride.sub %x, %b : !stride.tensor<4x4xf32>,
      !stride.tensor<4x4xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x4xf32>
  return %y : !stride.tensor<4x4xf32>
}

// -----

// Mask scatters fuse with their producers and consumers.
// CHECK-LABEL: func.func @select_scatter_chain
// CHECK:      stride.kernel "mul_select_scatter_full_mul"
// CHECK-NOT:  stride.kernel
func.func @select_scatter_chain(%x: !stride.tensor<4x3x5xf32>, %row: !stride.tensor<4x5xf32>)
    -> !stride.tensor<4x3x5xf32> {
  %r2 = stride.mul %row, %row : !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>
      -> !stride.tensor<4x5xf32>
  %s = stride.select_scatter %x, %r2 dim 1 index 2
      : !stride.tensor<4x3x5xf32>, !stride.tensor<4x5xf32> -> !stride.tensor<4x3x5xf32>
  %h = stride.full 0.5 : !stride.tensor<4x3x5xf32>
  %y = stride.mul %s, %h : !stride.tensor<4x3x5xf32>, !stride.tensor<4x3x5xf32>
      -> !stride.tensor<4x3x5xf32>
  return %y : !stride.tensor<4x3x5xf32>
}

// -----

// gather and index_select are indirect loads inside a pointwise kernel; the
// expression they read from is evaluated at the loaded index.
// CHECK-LABEL: func.func @indirect_loads
// CHECK:      stride.kernel "exp_index_select_gather_add"
// CHECK-NOT:  stride.kernel
func.func @indirect_loads(%table: !stride.tensor<10x4xf32>, %ids: !stride.tensor<3xi64>,
                          %idx: !stride.tensor<3x2xi64>) -> !stride.tensor<3x2xf32> {
  %e = stride.exp %table : !stride.tensor<10x4xf32> -> !stride.tensor<10x4xf32>
  %rows = stride.index_select %e, %ids dim 0 : !stride.tensor<10x4xf32>,
      !stride.tensor<3xi64> -> !stride.tensor<3x4xf32>
  %g = stride.gather %rows, %idx dim 1 : !stride.tensor<3x4xf32>,
      !stride.tensor<3x2xi64> -> !stride.tensor<3x2xf32>
  %y = stride.add %g, %g : !stride.tensor<3x2xf32>, !stride.tensor<3x2xf32>
      -> !stride.tensor<3x2xf32>
  return %y : !stride.tensor<3x2xf32>
}

// -----

// An index scatter accumulates: its input and source expressions fuse, its
// consumers do not.
// CHECK-LABEL: func.func @scatter_add_root
// CHECK:      %[[K:.*]] = stride.kernel "full_neg_scatter_add" ins(
// CHECK:      stride.kernel "exp_kernel" ins(%[[K]] :
func.func @scatter_add_root(%idx: !stride.tensor<2x3xi64>, %src: !stride.tensor<2x3xf32>)
    -> !stride.tensor<4x3xf32> {
  %z = stride.full 1.0 : !stride.tensor<4x3xf32>
  %n = stride.neg %src : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %s = stride.scatter_add %z, %idx, %n dim 0 : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %y = stride.exp %s : !stride.tensor<4x3xf32> -> !stride.tensor<4x3xf32>
  return %y : !stride.tensor<4x3xf32>
}

// -----

// Kernel names are unique per function; views and dead ops are not kept.
// CHECK-LABEL: func.func @names
// CHECK-NOT:  stride.tanh
// CHECK:      stride.kernel "exp_kernel"
// CHECK:      stride.kernel "exp_kernel_1"
// CHECK-NOT:  stride.tanh
// CHECK:      return
func.func @names(%x: !stride.tensor<4xf32>, %y: !stride.tensor<4xf32>)
    -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>) {
  %dead = stride.tanh %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %a = stride.exp %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %b = stride.exp %y : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %a, %b : !stride.tensor<4xf32>, !stride.tensor<4xf32>
}

// -----

// A returned view of a computed value stays outside, on the kernel's result.
// CHECK-LABEL: func.func @returned_view
// CHECK:      %[[K:.*]] = stride.kernel "exp_kernel"
// CHECK:      %[[V:.*]] = stride.permute %[[K]] dims [1, 0]
// CHECK:      return %[[V]]
func.func @returned_view(%x: !stride.tensor<2x3xf32>)
    -> !stride.tensor<3x2xf32, strides = [1, 3], offset = 0> {
  %e = stride.exp %x : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %t = stride.permute %e dims [1, 0] : !stride.tensor<2x3xf32>
      -> !stride.tensor<3x2xf32, strides = [1, 3], offset = 0>
  return %t : !stride.tensor<3x2xf32, strides = [1, 3], offset = 0>
}

// -----

// Existing kernels are kept (fusion is idempotent) and their names taken.
// CHECK-LABEL: func.func @existing_kernel
// CHECK:      %[[K:.*]] = stride.kernel "exp_kernel" ins(%arg0
// CHECK:      stride.kernel "exp_kernel_1" ins(%[[K]]
func.func @existing_kernel(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %k = stride.kernel "exp_kernel" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    %e = stride.exp %a : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %e : !stride.tensor<4xf32>
  }
  %y = stride.exp %k : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %y : !stride.tensor<4xf32>
}

// -----

// A broadcast back may permute: expand to [8, 4] and permute to [4, 8]
// reads the sum of row i at (i, j).
// CHECK-LABEL: func.func @broadcast_through_permute
// CHECK:      stride.kernel "exp_sum_add"
// CHECK-NOT:  stride.kernel
func.func @broadcast_through_permute(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s = stride.sum %e dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %b = stride.expand %s : !stride.tensor<4xf32>
      -> !stride.tensor<8x4xf32, strides = [0, 1], offset = 0>
  %t = stride.permute %b dims [1, 0] : !stride.tensor<8x4xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d = stride.add %e, %t : !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  return %d : !stride.tensor<4x8xf32>
}

// -----

// A materialized value that would make two kernels read each other's
// results gets a kernel of its own: %e is read by the sum and by %d, and
// %d (which cannot join the sum: its broadcast is over the wrong dim)
// needs the sum, so %e cannot be an extra result of %d's kernel.
// CHECK-LABEL: func.func @no_cycle
// CHECK:      %[[E:.*]] = stride.kernel "exp_kernel" ins(%arg0
// CHECK:      %[[S:.*]] = stride.kernel "sum_kernel" ins(%[[E]]
// CHECK:      stride.kernel "add_kernel" ins(%[[E]], %[[S]]
func.func @no_cycle(%x: !stride.tensor<4x4xf32>) -> !stride.tensor<4x4xf32> {
  %e = stride.exp %x : !stride.tensor<4x4xf32> -> !stride.tensor<4x4xf32>
  %s = stride.sum %e dims [1] : !stride.tensor<4x4xf32> -> !stride.tensor<4xf32>
  %b = stride.expand %s : !stride.tensor<4xf32>
      -> !stride.tensor<4x4xf32, strides = [0, 1], offset = 0>
  %d = stride.add %e, %b : !stride.tensor<4x4xf32>,
      !stride.tensor<4x4xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x4xf32>
  return %d : !stride.tensor<4x4xf32>
}
