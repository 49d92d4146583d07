// RUN: stride-opt %s -split-input-file -verify-diagnostics --stride-verify-kernels

// Every rule of the kernel contract (python-free-docs/fusion.md, "Kernel contract") that
// a kernel can break, one case each: the error is at the op that breaks the
// rule, with a note at the kernel and at the related op.

func.func @nested_kernel(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "outer" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    // expected-error @+1 {{'stride.kernel' op breaks the contract of kernel "outer": is neither a view nor a functional op; a kernel holds only those}}
    %i = stride.kernel "inner" ins(%a : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
    ^bb0(%b: !stride.tensor<4xf32>):
      %e = stride.exp %b : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
      stride.yield %e : !stride.tensor<4xf32>
    }
    stride.yield %i : !stride.tensor<4xf32>
  }
  return %r : !stride.tensor<4xf32>
}

// -----

// A kernel of no results has no custom syntax: the generic form.
func.func @yields_nothing(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.kernel' op "empty" breaks the kernel contract: yields no value; a kernel writes at least one buffer}}
  "stride.kernel"(%x) <{sym_name = "empty"}> ({
  ^bb0(%a: !stride.tensor<4xf32>):
    "stride.yield"() : () -> ()
  }) : (!stride.tensor<4xf32>) -> ()
  return
}

// -----

func.func @mixed_shapes(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "mixed" ins(%x, %y : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>)
      -> (!stride.tensor<4x8xf32>, !stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<4xf32>):
    %e = stride.exp %a : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    %s = stride.exp %b : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "mixed": yields values of different shapes ([4, 8] and [4]); a kernel iterates over one shape, and only a broadcast-reduction kernel also yields values computed once per row}}
    stride.yield %e, %s : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>
}

// -----

// A broadcast-reduction kernel yields, beside its rows, only values
// computed once per row from the row's reductions: not a value of the
// rows' result shape computed from something else.
func.func @row_result_not_of_the_row(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4x1xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "max_sub" ins(%x, %y : !stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>)
      -> (!stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<4x1xf32>):
    // expected-note @+1 {{the first reduction ('stride.max') is here}}
    %m = stride.max %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e = stride.expand %m : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %d = stride.sub %a, %e : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    %n = stride.neg %b : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "max_sub": yields value #1 of shape [4, 1], which is neither the iteration shape [4, 8] nor one of the row's reductions or per-row ops (a value computed once per row)}}
    stride.yield %d, %n : !stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x8xf32>, !stride.tensor<4x1xf32>
}

// -----

func.func @yield_read_elsewhere(%x: !stride.tensor<4x4xf32>)
    -> (!stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "transposed" ins(%x : !stride.tensor<4x4xf32>)
      -> (!stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>) {
  ^bb0(%a: !stride.tensor<4x4xf32>):
    // expected-error @+1 {{'stride.exp' op breaks the contract of kernel "transposed": is yielded, but is also read inside the kernel at other coordinates or through a reduction}}
    %e = stride.exp %a : !stride.tensor<4x4xf32> -> !stride.tensor<4x4xf32>
    %t = stride.permute %e dims [1, 0] : !stride.tensor<4x4xf32>
        -> !stride.tensor<4x4xf32, strides = [1, 4], offset = 0>
    %f = stride.add %e, %t : !stride.tensor<4x4xf32>,
        !stride.tensor<4x4xf32, strides = [1, 4], offset = 0> -> !stride.tensor<4x4xf32>
    stride.yield %e, %f : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
}

// -----

// A value a reduction reads as its input is yielded only by a
// broadcast-reduction kernel (which iterates over the rows' elements); here
// the reduced dim has size 1 and the sum's epilogue is pointwise (form (b)).
func.func @row_input_yield_without_broadcast(%x: !stride.tensor<4x1xf32>)
    -> (!stride.tensor<4x1xf32>, !stride.tensor<4x1xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "exp_sum" ins(%x : !stride.tensor<4x1xf32>)
      -> (!stride.tensor<4x1xf32>, !stride.tensor<4x1xf32>) {
  ^bb0(%a: !stride.tensor<4x1xf32>):
    // expected-error @+1 {{'stride.exp' op breaks the contract of kernel "exp_sum": is yielded, but is also read inside the kernel at other coordinates or through a reduction; a yielded value is computed once per output element, at that element (only a broadcast-reduction kernel yields a value its reductions read)}}
    %e = stride.exp %a : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
    %s = stride.sum %e dims [1] keepdim : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
    %n = stride.neg %s : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
    stride.yield %e, %n : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32>
}

// -----

// A broadcast-reduction kernel yields one value that depends on its
// reductions; a second one is refused (the row input beside them, the
// residual sum, is no such value).
func.func @two_epilogue_yields(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:3 = stride.kernel "add_norm" ins(%x, %y : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>)
      -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<4x8xf32>):
    %h = stride.add %a, %b : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    // expected-note @+1 {{the reduction ('stride.max') is here}}
    %m = stride.max %h dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e = stride.expand %m : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %d = stride.sub %h, %e : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    %n = stride.neg %d : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "add_norm": yields 2 values of the iteration shape that depend on its reductions; a broadcast-reduction kernel yields one such value of the reductions' input shape (and values computed once per row, and values its reductions read)}}
    stride.yield %h, %d, %n : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
  }
  return %r#0, %r#1, %r#2 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
}

// -----

func.func @chained_scatters(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xi64>,
                            %s: !stride.tensor<2x3xf32>) -> !stride.tensor<4x3xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "chained_scatters" ins(%x, %i, %s : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32>) -> (!stride.tensor<4x3xf32>) {
  ^bb0(%a: !stride.tensor<4x3xf32>, %b: !stride.tensor<2x3xi64>, %c: !stride.tensor<2x3xf32>):
    // expected-error @+1 {{'stride.scatter_add' op breaks the contract of kernel "chained_scatters": must be yielded by the kernel once, and read by nothing else in it (an index scatter beside sibling scatters)}}
    %0 = stride.scatter_add %a, %b, %c dim 0 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    %1 = stride.scatter_add %0, %b, %c dim 0 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    stride.yield %1 : !stride.tensor<4x3xf32>
  }
  return %r : !stride.tensor<4x3xf32>
}

// -----

func.func @two_scatters(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xi64>,
                        %s: !stride.tensor<2x3xf32>)
    -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "two_scatters" ins(%x, %i, %s : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32>)
      -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  ^bb0(%a: !stride.tensor<4x3xf32>, %b: !stride.tensor<2x3xi64>, %c: !stride.tensor<2x3xf32>):
    // expected-note @+1 {{the first index scatter ('stride.scatter') is here}}
    %0 = stride.scatter %a, %b, %c dim 0 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    // expected-error @+1 {{'stride.scatter' op breaks the contract of kernel "two_scatters": is a second index scatter in the kernel, but no sibling of the first; only scatters and scatter_adds along one dim, into results of one shape, with one index expression share a kernel}}
    %1 = stride.scatter %a, %b, %c dim 1 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    stride.yield %0, %1 : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
}

// -----

func.func @siblings_and_more(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xi64>,
                             %s: !stride.tensor<2x3xf32>)
    -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:3 = stride.kernel "siblings_and_more" ins(%x, %i, %s : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32>)
      -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  ^bb0(%a: !stride.tensor<4x3xf32>, %b: !stride.tensor<2x3xi64>, %c: !stride.tensor<2x3xf32>):
    %0 = stride.scatter %a, %b, %c dim 0 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    %1 = stride.scatter_add %a, %b, %c dim 0 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    %2 = stride.exp %a : !stride.tensor<4x3xf32> -> !stride.tensor<4x3xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "siblings_and_more": yields a value that is no index scatter of the kernel; a kernel of sibling scatters yields only them}}
    stride.yield %0, %1, %2 : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
  }
  return %r#0, %r#1, %r#2 : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
}

// -----

func.func @scatter_and_reduction(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xi64>,
                                 %s: !stride.tensor<2x3x5xf32>) -> !stride.tensor<4x3xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "scatter_sum" ins(%x, %i, %s : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3x5xf32>) -> (!stride.tensor<4x3xf32>) {
  ^bb0(%a: !stride.tensor<4x3xf32>, %b: !stride.tensor<2x3xi64>, %c: !stride.tensor<2x3x5xf32>):
    // expected-note @+1 {{the reduction ('stride.sum') is here}}
    %u = stride.sum %c dims [2] : !stride.tensor<2x3x5xf32> -> !stride.tensor<2x3xf32>
    // expected-error @+1 {{'stride.scatter_add' op breaks the contract of kernel "scatter_sum": shares its kernel with a reduction; an index scatter and a reduction need kernels of their own}}
    %0 = stride.scatter_add %a, %b, %u dim 0 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    stride.yield %0 : !stride.tensor<4x3xf32>
  }
  return %r : !stride.tensor<4x3xf32>
}

// -----

func.func @scatter_read_again(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xi64>,
                              %s: !stride.tensor<2x3xf32>)
    -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "scatter_exp" ins(%x, %i, %s : !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32>)
      -> (!stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>) {
  ^bb0(%a: !stride.tensor<4x3xf32>, %b: !stride.tensor<2x3xi64>, %c: !stride.tensor<2x3xf32>):
    // expected-error @+1 {{'stride.scatter_add' op breaks the contract of kernel "scatter_exp": must be the kernel's only yielded value, read by nothing else in the kernel}}
    %0 = stride.scatter_add %a, %b, %c dim 0 : !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
    %1 = stride.exp %0 : !stride.tensor<4x3xf32> -> !stride.tensor<4x3xf32>
    stride.yield %0, %1 : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x3xf32>, !stride.tensor<4x3xf32>
}

// -----

func.func @reduction_of_reduction(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<f32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "two_stage" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<f32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the other reduction ('stride.sum') is here}}
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    // expected-error @+1 {{'stride.max' op breaks the contract of kernel "two_stage": reduces other rows than another reduction of its kernel; only reductions of one input shape over the same dims share a kernel}}
    %m = stride.max %s dims [0] : !stride.tensor<4xf32> -> !stride.tensor<f32>
    stride.yield %m : !stride.tensor<f32>
  }
  return %r : !stride.tensor<f32>
}

// -----

// Several reductions of one row yield values of their result shape (form
// (b), one accumulator each) or one value of their input shape (form (d)).
func.func @rows_yield_other_shape(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<2xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "max_sum" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<2xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the first reduction ('stride.max') is here}}
    %m = stride.max %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    %t = stride.add %m, %s : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    %v = stride.slice %t dim 0 start 0 end 4 step 2 : !stride.tensor<4xf32> -> !stride.tensor<2xf32, strides = [2]>
    %e = stride.exp %v : !stride.tensor<2xf32, strides = [2]> -> !stride.tensor<2xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "max_sum": yields shape [2]; a kernel of several reductions yields values of their result shape [4] or one value of their input shape [4, 8]}}
    stride.yield %e : !stride.tensor<2xf32>
  }
  return %r : !stride.tensor<2xf32>
}

// -----

func.func @rows_yield_independent(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "unused_rows" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the first reduction ('stride.max') is here}}
    %m = stride.max %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %s = stride.sum %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e = stride.exp %a : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "unused_rows": yields a value that depends on none of the kernel's reductions}}
    stride.yield %e : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}

// -----

func.func @epilogue_not_elementwise(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<2xf32>)
    -> !stride.tensor<4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "sum_scatter" ins(%x, %y : !stride.tensor<4x8xf32>, !stride.tensor<2xf32>)
      -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<2xf32>):
    // expected-note @+1 {{the reduction ('stride.sum') is here}}
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    // expected-error @+1 {{'stride.slice_scatter' op breaks the contract of kernel "sum_scatter": reads the reduction's result but is not an elementwise op; only elementwise ops may follow a reduction in its kernel}}
    %t = stride.slice_scatter %s, %b dim 0 start 0 end 2 step 1
        : !stride.tensor<4xf32>, !stride.tensor<2xf32> -> !stride.tensor<4xf32>
    stride.yield %t : !stride.tensor<4xf32>
  }
  return %r : !stride.tensor<4xf32>
}

// -----

func.func @epilogue_of_other_shape(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "shifted_max" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the reduction ('stride.max') is here}}
    %m = stride.max %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e3 = stride.expand %m : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x3xf32, strides = [1, 0], offset = 0>
    // expected-error @+1 {{'stride.neg' op breaks the contract of kernel "shifted_max": has shape [4, 3], but the reduction's broadcast epilogue has shape [4, 8] (the reduction's input shape; or its result shape, for a value computed once per row)}}
    %n = stride.neg %e3 : !stride.tensor<4x3xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x3xf32>
    %e = stride.expand %m : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %d = stride.add %a, %e : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    stride.yield %d : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}

// -----

func.func @per_row_reads_element(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "row_of_element" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the reduction ('stride.max') is here}}
    %m = stride.max %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e = stride.expand %m : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %c = stride.sub %a, %e : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    %s = stride.slice %c dim 1 start 0 end 1 step 1 : !stride.tensor<4x8xf32>
        -> !stride.tensor<4x1xf32, strides = [8, 1], offset = 0>
    // expected-error @+1 {{'stride.add' op breaks the contract of kernel "row_of_element": computes one value per row, so it may read the row's reductions and other per-row values only directly, not values computed per element or views}}
    %q = stride.add %m, %s : !stride.tensor<4x1xf32>,
        !stride.tensor<4x1xf32, strides = [8, 1], offset = 0> -> !stride.tensor<4x1xf32>
    %qe = stride.expand %q : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %d = stride.mul %c, %qe : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    stride.yield %d : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}

// -----

func.func @not_broadcast_back(%x: !stride.tensor<4x4xf32>) -> !stride.tensor<4x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "transposed_max" ins(%x : !stride.tensor<4x4xf32>) -> (!stride.tensor<4x4xf32>) {
  ^bb0(%a: !stride.tensor<4x4xf32>):
    // expected-note @+1 {{the reduction ('stride.max') is here}}
    %m = stride.max %a dims [1] keepdim : !stride.tensor<4x4xf32> -> !stride.tensor<4x1xf32>
    %p = stride.permute %m dims [1, 0] : !stride.tensor<4x1xf32>
        -> !stride.tensor<1x4xf32, strides = [1, 1], offset = 0>
    %e = stride.expand %p : !stride.tensor<1x4xf32, strides = [1, 1], offset = 0>
        -> !stride.tensor<4x4xf32, strides = [0, 1], offset = 0>
    // expected-error @+1 {{'stride.sub' op breaks the contract of kernel "transposed_max": reads the reduction's result through views that do not broadcast it back over the reduced dims}}
    %d = stride.sub %a, %e : !stride.tensor<4x4xf32>,
        !stride.tensor<4x4xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x4xf32>
    stride.yield %d : !stride.tensor<4x4xf32>
  }
  return %r : !stride.tensor<4x4xf32>
}

// -----

func.func @epilogue_through_view(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "sum_exp" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the reduction ('stride.sum') is here}}
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    %e = stride.exp %s : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    // expected-note @+1 {{the view ('stride.slice') is here}}
    %v = stride.slice %e dim 0 start 0 end 4 step 1 : !stride.tensor<4xf32>
        -> !stride.tensor<4xf32>
    // expected-error @+1 {{'stride.add' op breaks the contract of kernel "sum_exp": reads a value computed from the reduction through a view; an epilogue reads such values directly, at its own coordinates}}
    %f = stride.add %s, %v : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %f : !stride.tensor<4xf32>
  }
  return %r : !stride.tensor<4xf32>
}

// -----

func.func @reduction_yields_argument(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4xf32>)
    -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "sum_copy" ins(%x, %y : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>)
      -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<4xf32>):
    // expected-note @+1 {{the reduction ('stride.sum') is here}}
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "sum_copy": yields a view or a kernel argument next to a reduction; a reduction kernel yields only values it computes}}
    stride.yield %s, %b : !stride.tensor<4xf32>, !stride.tensor<4xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4xf32>, !stride.tensor<4xf32>
}

// -----

func.func @reduction_unused(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4xf32>)
    -> !stride.tensor<4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "dead_sum" ins(%x, %y : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>)
      -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<4xf32>):
    // expected-error @+1 {{'stride.sum' op breaks the contract of kernel "dead_sum": is not yielded and no yielded value depends on it}}
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    %e = stride.exp %b : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %e : !stride.tensor<4xf32>
  }
  return %r : !stride.tensor<4xf32>
}

// -----

func.func @row_kernel_yields_two(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "max_sub_exp" ins(%x : !stride.tensor<4x8xf32>)
      -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the reduction ('stride.max') is here}}
    %m = stride.max %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e = stride.expand %m : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %d = stride.sub %a, %e : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    %x2 = stride.exp %d : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "max_sub_exp": yields 2 values of the iteration shape that depend on its reductions; a broadcast-reduction kernel yields one such value of the reductions' input shape (and values computed once per row, and values its reductions read)}}
    stride.yield %d, %x2 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
}

// -----

func.func @yield_of_other_shape(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<2x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "sum_expand" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<2x4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the reduction ('stride.sum') is here}}
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    %e = stride.expand %s : !stride.tensor<4xf32>
        -> !stride.tensor<2x4xf32, strides = [0, 1], offset = 0>
    %f = stride.exp %e : !stride.tensor<2x4xf32, strides = [0, 1], offset = 0>
        -> !stride.tensor<2x4xf32>
    // expected-error @+1 {{'stride.yield' op breaks the contract of kernel "sum_expand": yields shape [2, 4], which is neither the reduction's result shape [4] nor its input shape [4, 8]}}
    stride.yield %f : !stride.tensor<2x4xf32>
  }
  return %r : !stride.tensor<2x4xf32>
}

// -----

// A kernel that keeps the contract passes, and so do the forms it can take.
func.func @softmax_rows(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  %r = stride.kernel "ok" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %m = stride.max %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e = stride.expand %m : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %d = stride.sub %a, %e : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    stride.yield %d : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}

// -----

// A matrix product is a library call, never part of a kernel, unless it is
// marked for the skinny product kernel (below).
func.func @matmul_in_kernel(%x: !stride.tensor<4x4xf32>) -> !stride.tensor<4x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "with_matmul" ins(%x : !stride.tensor<4x4xf32>) -> (!stride.tensor<4x4xf32>) {
  ^bb0(%a: !stride.tensor<4x4xf32>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "with_matmul": is neither a view nor a functional op; a kernel holds only those}}
    %p = stride.matmul %a, %a : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32> -> !stride.tensor<4x4xf32>
    stride.yield %p : !stride.tensor<4x4xf32>
  }
  return %r : !stride.tensor<4x4xf32>
}

// -----

// A scan is its kernel's only yielded value: an op that reads it inside the
// kernel would need the whole row's sums first.
func.func @scan_read_in_kernel(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "cumsum_exp" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-error @+1 {{'stride.cumsum' op breaks the contract of kernel "cumsum_exp": must be the kernel's only yielded value, read by nothing else in the kernel}}
    %c = stride.cumsum %a dim 1 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    %e = stride.exp %c : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    stride.yield %e : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}

// -----

// A scan and a reduction need kernels of their own.
func.func @scan_with_reduction(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "sum_cumsum" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the reduction ('stride.sum') is here}}
    %s = stride.sum %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %e = stride.expand %s : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    // expected-error @+1 {{'stride.cumsum' op breaks the contract of kernel "sum_cumsum": shares its kernel with a reduction; a scan needs a kernel of its own}}
    %c = stride.cumsum %e dim 1 : !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
        -> !stride.tensor<4x8xf32>
    stride.yield %c : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}

// -----

// At most one scan per kernel.
func.func @two_scans(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "cumsum_cumsum" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    // expected-note @+1 {{the first scan ('stride.cumsum') is here}}
    %c = stride.cumsum %a dim 1 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    // expected-error @+1 {{'stride.cumsum' op breaks the contract of kernel "cumsum_cumsum": is a second scan in the kernel; a kernel holds at most one}}
    %d = stride.cumsum %c dim 0 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    stride.yield %d : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}

// -----

// A product marked for the skinny product kernel (form (g)) has a kernel of
// its own: beside it, views, the pointwise ops that compute its lhs (its
// prologue) and the elementwise ops that read its result (its epilogue),
// nothing else.
func.func @skinny_with_op(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x4xf32> {
  %r = stride.kernel "skinny" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-error @+2 {{'stride.exp' op breaks the contract of kernel "skinny": shares its kernel with a skinny product but neither computes part of its lhs nor reads its result; such a kernel holds the product, views, the pointwise ops that compute its lhs and the elementwise ops that read its result}}
    // expected-note @-3 {{the kernel}}
    %e = stride.exp %a : !stride.tensor<1x8xf32> -> !stride.tensor<1x8xf32>
    // expected-note @+1 {{the product ('stride.matmul') is here}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    stride.yield %p : !stride.tensor<1x4xf32>
  }
  return %r : !stride.tensor<1x4xf32>
}

// -----

// A prologue's reductions reduce the lhs's rows (an RMSNorm's mean over
// K): a sum of pairs of elements of one row is not one.
func.func @skinny_reduction_prologue(%x: !stride.tensor<1x8x2xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x4xf32> {
  %r = stride.kernel "sum_matmul" ins(%x, %w : !stride.tensor<1x8x2xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x8x2xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-error @+2 {{'stride.sum' op breaks the contract of kernel "sum_matmul": reduces [1, 8, 2] to [1, 8]; a skinny product's prologue reduces its lhs's rows, 1 of 8 elements (each block reduces every row before it stages them)}}
    // expected-note @-3 {{the kernel}}
    %s = stride.sum %a dims [2] : !stride.tensor<1x8x2xf32> -> !stride.tensor<1x8xf32>
    // expected-note @+1 {{the product ('stride.matmul') is here}}
    %p = stride.matmul %s, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    stride.yield %p : !stride.tensor<1x4xf32>
  }
  return %r : !stride.tensor<1x4xf32>
}

// -----

// Only the rows may be computed: the weight is streamed from memory.
func.func @skinny_computed_weight(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x4xf32> {
  %r = stride.kernel "neg_matmul" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-error @+2 {{'stride.neg' op breaks the contract of kernel "neg_matmul": computes the skinny product's weight; only its lhs (the rows) may be computed in its kernel}}
    // expected-note @-3 {{the kernel}}
    %n = stride.neg %b : !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
    // expected-note @+1 {{the product ('stride.matmul') is here}}
    %p = stride.matmul %a, %n {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    stride.yield %p : !stride.tensor<1x4xf32>
  }
  return %r : !stride.tensor<1x4xf32>
}

// -----

// Two ops that each need a kernel of their own.
func.func @two_skinny(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x8xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x8xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny2" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x8xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x8xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x8xf32, strides = [1, 8], offset = 0>):
    // expected-note @+1 {{the first such op ('stride.matmul') is here}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x8xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x8xf32>
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny2": needs a kernel of its own, but shares one with another op that does}}
    %q = stride.matmul %p, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x8xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x8xf32>
    stride.yield %q : !stride.tensor<1x8xf32>
  }
  return %r : !stride.tensor<1x8xf32>
}

// -----

// The skinny product kernel streams a weight whose K elements are
// consecutive; a row-major weight [K, N] is the library's.
func.func @skinny_row_major_weight(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32>)
    -> !stride.tensor<1x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_kn" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32>) -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_kn": reads its weight (rhs) with a stride of 4 along K; the skinny product kernel streams a weight whose K elements are consecutive (an nn.Linear weight [N, K] read through a permute)}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32> -> !stride.tensor<1x4xf32>
    stride.yield %p : !stride.tensor<1x4xf32>
  }
  return %r : !stride.tensor<1x4xf32>
}

// -----

// ... and activations whose K elements are consecutive.
func.func @skinny_transposed_lhs(%x: !stride.tensor<2x8xf32, strides = [1, 2], offset = 0>,
                                 %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<2x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_t" ins(%x, %w : !stride.tensor<2x8xf32, strides = [1, 2], offset = 0>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<2x4xf32>) {
  ^bb0(%a: !stride.tensor<2x8xf32, strides = [1, 2], offset = 0>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_t": reads its lhs with a stride of 2 along K; the skinny product kernel reads rows whose K elements are consecutive}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<2x8xf32, strides = [1, 2], offset = 0>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<2x4xf32>
    stride.yield %p : !stride.tensor<2x4xf32>
  }
  return %r : !stride.tensor<2x4xf32>
}

// -----

// At most 32 rows (the registers of a warp's sums).
func.func @skinny_rows(%x: !stride.tensor<33x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<33x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_33" ins(%x, %w : !stride.tensor<33x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<33x4xf32>) {
  ^bb0(%a: !stride.tensor<33x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_33": has 33 rows; the skinny product kernel computes 1 to 32}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<33x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<33x4xf32>
    stride.yield %p : !stride.tensor<33x4xf32>
  }
  return %r : !stride.tensor<33x4xf32>
}

// -----

// 2-D products only.
func.func @skinny_batched(%x: !stride.tensor<2x1x8xf32>, %w: !stride.tensor<2x8x4xf32, strides = [0, 1, 8], offset = 0>)
    -> !stride.tensor<2x1x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_b" ins(%x, %w : !stride.tensor<2x1x8xf32>, !stride.tensor<2x8x4xf32, strides = [0, 1, 8], offset = 0>) -> (!stride.tensor<2x1x4xf32>) {
  ^bb0(%a: !stride.tensor<2x1x8xf32>, %b: !stride.tensor<2x8x4xf32, strides = [0, 1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_b": is a product of rank 3; the skinny product kernel computes 2-D products}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<2x1x8xf32>,
        !stride.tensor<2x8x4xf32, strides = [0, 1, 8], offset = 0> -> !stride.tensor<2x1x4xf32>
    stride.yield %p : !stride.tensor<2x1x4xf32>
  }
  return %r : !stride.tensor<2x1x4xf32>
}

// -----

// f16, bf16 and f32 only.
func.func @skinny_f64(%x: !stride.tensor<1x8xf64>, %w: !stride.tensor<8x4xf64, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x4xf64> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_f64" ins(%x, %w : !stride.tensor<1x8xf64>, !stride.tensor<8x4xf64, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x4xf64>) {
  ^bb0(%a: !stride.tensor<1x8xf64>, %b: !stride.tensor<8x4xf64, strides = [1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_f64": has element type 'f64'; the skinny product kernel computes f16, bf16 and f32}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf64>,
        !stride.tensor<8x4xf64, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf64>
    stride.yield %p : !stride.tensor<1x4xf64>
  }
  return %r : !stride.tensor<1x4xf64>
}

// -----

// A sum over at least one element (the plan fills a product over K = 0).
func.func @skinny_empty_k(%x: !stride.tensor<1x0xf32>, %w: !stride.tensor<0x4xf32, strides = [1, 1], offset = 0>)
    -> !stride.tensor<1x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_k0" ins(%x, %w : !stride.tensor<1x0xf32>, !stride.tensor<0x4xf32, strides = [1, 1], offset = 0>) -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x0xf32>, %b: !stride.tensor<0x4xf32, strides = [1, 1], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_k0": sums over no elements (K = 0); the skinny product kernel needs K >= 1}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x0xf32>,
        !stride.tensor<0x4xf32, strides = [1, 1], offset = 0> -> !stride.tensor<1x4xf32>
    stride.yield %p : !stride.tensor<1x4xf32>
  }
  return %r : !stride.tensor<1x4xf32>
}

// -----

// No epilogue but ReLU (the pipeline computes a GELU after the product).
func.func @skinny_gelu(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x4xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_gelu" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_gelu": has epilogue gelu_tanh; the skinny product kernel applies relu only}}
    %p = stride.matmul %a, %b epilogue gelu_tanh {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    stride.yield %p : !stride.tensor<1x4xf32>
  }
  return %r : !stride.tensor<1x4xf32>
}

// -----

// Written in row classes: the library's calls.
func.func @skinny_row_classes(%x: !stride.tensor<4x8xbf16>, %w: !stride.tensor<8x5xbf16, strides = [1, 8], offset = 0>)
    -> !stride.tensor<4x5xbf16> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "skinny_rc" ins(%x, %w : !stride.tensor<4x8xbf16>, !stride.tensor<8x5xbf16, strides = [1, 8], offset = 0>) -> (!stride.tensor<4x5xbf16>) {
  ^bb0(%a: !stride.tensor<4x8xbf16>, %b: !stride.tensor<8x5xbf16, strides = [1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "skinny_rc": is written in row classes; the skinny product kernel writes the whole result}}
    %p = stride.matmul %a, %b {row_classes = 8 : i64, stride.skinny_product} : !stride.tensor<4x8xbf16>,
        !stride.tensor<8x5xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<4x5xbf16>
    stride.yield %p : !stride.tensor<4x5xbf16>
  }
  return %r : !stride.tensor<4x5xbf16>
}

// -----

// An epilogue is elementwise: a reduction of the product's result needs
// every column of a row, which no warp holds.
func.func @skinny_reduction_epilogue(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1xf32> {
  %r = stride.kernel "matmul_sum" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-note @+1 {{the product ('stride.matmul') is here}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    // expected-error @+2 {{'stride.sum' op breaks the contract of kernel "matmul_sum": reads the skinny product's result but is no elementwise op of the epilogue's shape [1]; a skinny product's epilogue holds elementwise ops of one shape}}
    // expected-note @-6 {{the kernel}}
    %s = stride.sum %p dims [1] : !stride.tensor<1x4xf32> -> !stride.tensor<1xf32>
    stride.yield %s : !stride.tensor<1xf32>
  }
  return %r : !stride.tensor<1xf32>
}

// -----

// An epilogue reads the product's result as blocks of consecutive columns
// of each row (the SwiGLU's gate and up halves): a reversed or strided
// read of a row mixes columns that different warps hold.
func.func @skinny_strided_epilogue(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x2xf32> {
  %r = stride.kernel "matmul_mul" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x2xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-note @+1 {{the product ('stride.matmul') is here}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    %even = stride.slice %p dim 1 start 0 end 4 step 2 : !stride.tensor<1x4xf32>
        -> !stride.tensor<1x2xf32, strides = [4, 2], offset = 0>
    %high = stride.slice %p dim 1 start 2 end 4 step 1 : !stride.tensor<1x4xf32>
        -> !stride.tensor<1x2xf32, strides = [4, 1], offset = 2>
    // expected-error @+2 {{'stride.mul' op breaks the contract of kernel "matmul_mul": reads a value that is neither another epilogue op's result read directly, a kernel input, nor the skinny product's result read as a block of 2 consecutive columns of each row; a warp evaluates the epilogue at its own columns}}
    // expected-note @-10 {{the kernel}}
    %m = stride.mul %even, %high : !stride.tensor<1x2xf32, strides = [4, 2], offset = 0>,
        !stride.tensor<1x2xf32, strides = [4, 1], offset = 2> -> !stride.tensor<1x2xf32>
    stride.yield %m : !stride.tensor<1x2xf32>
  }
  return %r : !stride.tensor<1x2xf32>
}

// -----

// A row prologue's value yielded beside the product must be one its
// reductions read at each element (the residual sum), not the normalized
// row the product reads.
func.func @skinny_row_prologue_yields_lhs(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> (!stride.tensor<1x4xf32>, !stride.tensor<1x8xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "mul_mean_rsqrt_mul_matmul" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x4xf32>, !stride.tensor<1x8xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    %sq = stride.mul %a, %a : !stride.tensor<1x8xf32>, !stride.tensor<1x8xf32> -> !stride.tensor<1x8xf32>
    %m = stride.mean %sq dims [1] keepdim : !stride.tensor<1x8xf32> -> !stride.tensor<1x1xf32>
    %rs = stride.rsqrt %m : !stride.tensor<1x1xf32> -> !stride.tensor<1x1xf32>
    %e = stride.expand %rs : !stride.tensor<1x1xf32> -> !stride.tensor<1x8xf32, strides = [1, 0], offset = 0>
    // expected-error @+1 {{'stride.mul' op breaks the contract of kernel "mul_mean_rsqrt_mul_matmul": is computed by the skinny product's prologue and yielded; a skinny product's kernel yields a prologue value only where the prologue's row reductions read it at each element of their rows (a residual sum an RMSNorm normalizes)}}
    %n = stride.mul %a, %e : !stride.tensor<1x8xf32>, !stride.tensor<1x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<1x8xf32>
    // expected-note @+1 {{the product ('stride.matmul') is here}}
    %p = stride.matmul %n, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    stride.yield %p, %n : !stride.tensor<1x4xf32>, !stride.tensor<1x8xf32>
  }
  return %r#0, %r#1 : !stride.tensor<1x4xf32>, !stride.tensor<1x8xf32>
}

// -----

// With an epilogue the kernel yields only the epilogue's result: the
// product's own result is never stored.
func.func @skinny_epilogue_and_product(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>)
    -> (!stride.tensor<1x4xf32>, !stride.tensor<1x4xf32>) {
  // expected-note @+1 {{the kernel}}
  %r:2 = stride.kernel "matmul_neg" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x4xf32>, !stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "matmul_neg": is read by ops of its kernel, which yields 2 values beside its prologue's; a skinny product with an epilogue yields only the epilogue's result}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x4xf32>
    %n = stride.neg %p : !stride.tensor<1x4xf32> -> !stride.tensor<1x4xf32>
    stride.yield %p, %n : !stride.tensor<1x4xf32>, !stride.tensor<1x4xf32>
  }
  return %r#0, %r#1 : !stride.tensor<1x4xf32>, !stride.tensor<1x4xf32>
}

// -----

// An epilogue reads the product at most at 4 column offsets: a warp holds
// its sums at each.
func.func @skinny_epilogue_offsets(%x: !stride.tensor<1x8xf32>, %w: !stride.tensor<8x5xf32, strides = [1, 8], offset = 0>)
    -> !stride.tensor<1x1xf32> {
  // expected-note @+1 {{the kernel}}
  %r = stride.kernel "matmul_add" ins(%x, %w : !stride.tensor<1x8xf32>, !stride.tensor<8x5xf32, strides = [1, 8], offset = 0>) -> (!stride.tensor<1x1xf32>) {
  ^bb0(%a: !stride.tensor<1x8xf32>, %b: !stride.tensor<8x5xf32, strides = [1, 8], offset = 0>):
    // expected-error @+1 {{'stride.matmul' op breaks the contract of kernel "matmul_add": is read by its epilogue at 5 column offsets; a warp holds its columns' sums at each, and the skinny product kernel holds at most 4}}
    %p = stride.matmul %a, %b {stride.skinny_product} : !stride.tensor<1x8xf32>,
        !stride.tensor<8x5xf32, strides = [1, 8], offset = 0> -> !stride.tensor<1x5xf32>
    %c0 = stride.slice %p dim 1 start 0 end 1 step 1 : !stride.tensor<1x5xf32> -> !stride.tensor<1x1xf32, strides = [5, 1], offset = 0>
    %c1 = stride.slice %p dim 1 start 1 end 2 step 1 : !stride.tensor<1x5xf32> -> !stride.tensor<1x1xf32, strides = [5, 1], offset = 1>
    %c2 = stride.slice %p dim 1 start 2 end 3 step 1 : !stride.tensor<1x5xf32> -> !stride.tensor<1x1xf32, strides = [5, 1], offset = 2>
    %c3 = stride.slice %p dim 1 start 3 end 4 step 1 : !stride.tensor<1x5xf32> -> !stride.tensor<1x1xf32, strides = [5, 1], offset = 3>
    %c4 = stride.slice %p dim 1 start 4 end 5 step 1 : !stride.tensor<1x5xf32> -> !stride.tensor<1x1xf32, strides = [5, 1], offset = 4>
    %s0 = stride.add %c0, %c1 : !stride.tensor<1x1xf32, strides = [5, 1], offset = 0>, !stride.tensor<1x1xf32, strides = [5, 1], offset = 1> -> !stride.tensor<1x1xf32>
    %s1 = stride.add %c2, %c3 : !stride.tensor<1x1xf32, strides = [5, 1], offset = 2>, !stride.tensor<1x1xf32, strides = [5, 1], offset = 3> -> !stride.tensor<1x1xf32>
    %s2 = stride.add %s0, %s1 : !stride.tensor<1x1xf32>, !stride.tensor<1x1xf32> -> !stride.tensor<1x1xf32>
    %s3 = stride.add %s2, %c4 : !stride.tensor<1x1xf32>, !stride.tensor<1x1xf32, strides = [5, 1], offset = 4> -> !stride.tensor<1x1xf32>
    stride.yield %s3 : !stride.tensor<1x1xf32>
  }
  return %r : !stride.tensor<1x1xf32>
}
