// stride-schedule-kernels with deterministic=true (stridec --deterministic):
// a float index_add counts each tile of 256 source positions in a column of
// its own (slices), so that ranks follow source order, and records
// `deterministic`; integer sums do not depend on the order and keep the
// default schedule; a float index_add into short rows takes the segmented
// form too; a float scatter_add is an error.
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels="deterministic=true" -split-input-file -verify-diagnostics %s | FileCheck %s

// 600 positions: 3 tiles of 256, so 3 columns of counts per row.
// CHECK-LABEL: func.func @floats
// CHECK: #stride.schedule<scheme = segmented_index_add, index_bits = 32, vector_width = 4, threads = 32, slices = 3, elements_per_thread = 4, tile = 16, launches = [#stride.launch<grid = 3, block = 256, phase = 1>, {{.*}}], scratch = [600, 200, 204, 2400, 2400, 2400, 10944]
// CHECK-SAME: deterministic = true
func.func @floats(%x: !stride.tensor<50x36xf32>, %idx: !stride.tensor<600xi64>,
                  %src: !stride.tensor<600x36xf32>) -> !stride.tensor<50x36xf32> {
  %r = stride.index_add %x, %idx, %src dim 0 : !stride.tensor<50x36xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xf32> -> !stride.tensor<50x36xf32>
  return %r : !stride.tensor<50x36xf32>
}

// -----

// CHECK-LABEL: func.func @integers
// CHECK: #stride.schedule<scheme = segmented_index_add,
// CHECK-NOT: deterministic
// CHECK: return
func.func @integers(%x: !stride.tensor<50x36xi32>, %idx: !stride.tensor<600xi64>,
                    %src: !stride.tensor<600x36xi32>) -> !stride.tensor<50x36xi32> {
  %r = stride.index_add %x, %idx, %src dim 0 : !stride.tensor<50x36xi32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xi32> -> !stride.tensor<50x36xi32>
  return %r : !stride.tensor<50x36xi32>
}

// -----

// Rows of one element (the default mode's atomic scheme below 32).
// CHECK-LABEL: func.func @short_rows
// CHECK: #stride.schedule<scheme = segmented_index_add, index_bits = 32, threads = 32, elements_per_thread = 1,
func.func @short_rows(%x: !stride.tensor<10xf32>, %idx: !stride.tensor<40xi64>,
                      %src: !stride.tensor<40xf32>) -> !stride.tensor<10xf32> {
  %r = stride.index_add %x, %idx, %src dim 0 : !stride.tensor<10xf32>,
      !stride.tensor<40xi64>, !stride.tensor<40xf32> -> !stride.tensor<10xf32>
  return %r : !stride.tensor<10xf32>
}

// -----

func.func @scatter_add(%x: !stride.tensor<8x4xf32>, %i: !stride.tensor<6x4xi64>,
                       %u: !stride.tensor<6x4xf32>) -> !stride.tensor<8x4xf32> {
  // expected-error @+2 {{'stride.scatter_add' op has no deterministic form: its float additions run in an order that varies from run to run}}
  // expected-note @+1 {{--deterministic sums index_add in source order; a scatter_add whose index selects whole rows is an index_add}}
  %r = stride.scatter_add %x, %i, %u dim 0 : !stride.tensor<8x4xf32>,
      !stride.tensor<6x4xi64>, !stride.tensor<6x4xf32> -> !stride.tensor<8x4xf32>
  return %r : !stride.tensor<8x4xf32>
}

// -----

// An integer scatter_add keeps its atomics: integer sums do not depend on
// the order.
// CHECK-LABEL: func.func @int_scatter_add
// CHECK: scheme = scatter
func.func @int_scatter_add(%x: !stride.tensor<8x4xi32>, %i: !stride.tensor<6x4xi64>,
                           %u: !stride.tensor<6x4xi32>) -> !stride.tensor<8x4xi32> {
  %r = stride.scatter_add %x, %i, %u dim 0 : !stride.tensor<8x4xi32>,
      !stride.tensor<6x4xi64>, !stride.tensor<6x4xi32> -> !stride.tensor<8x4xi32>
  return %r : !stride.tensor<8x4xi32>
}
