// A function of symbolic sizes (python-free-docs/symbolic-sizes.md): the
// kernel's schedule records the grid of the largest sizes and the work it
// covers (4 elements a thread and step: the innermost size is a static
// multiple of 4); the outlined kernel keeps its function's symbols; each buffer
// has its bytes at the largest sizes, which the arena is planned for, and
// its bytes at run time; the IR prints and parses back.
// RUN: stride-opt %s --stride-fuse --stride-verify-kernels --stride-schedule-kernels --stride-outline-executable --stride-reuse-buffers | FileCheck %s
// RUN: stride-opt %s --stride-fuse --stride-verify-kernels --stride-schedule-kernels --stride-outline-executable --stride-reuse-buffers | stride-opt | FileCheck %s

// CHECK-LABEL: plan.executable @bias_relu_kernels
// CHECK: stride.kernel "add_relu" attributes {stride.schedule = #stride.schedule<scheme = vectorized, index_bits = 64, vector_width = 4, launches = [#stride.launch<grid = 64, block = 256, elements = <rows*16>, per_block = 256>]>, stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]}
// CHECK-LABEL: func.func @bias_relu
// CHECK: %[[OUT:.*]] = plan.alloc 262144 bytes sized <rows*256> at arena 0
// CHECK: plan.dispatch @bias_relu_kernels::@add_relu(%{{.*}}, %{{.*}}, %[[OUT]])
// CHECK: plan.output %[[OUT]] : !stride.tensor<[rows, 64], f32, strides = [64, 1], offset = 0>
func.func @bias_relu(%x: !stride.tensor<[rows, 64], f32> {stride.name = "x"},
                     %b: !stride.tensor<1x64xf32> {stride.name = "b"})
    -> !stride.tensor<[rows, 64], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]} {
  %e = stride.expand %b : !stride.tensor<1x64xf32> -> !stride.tensor<[rows, 64], f32, strides = [0, 1]>
  %y = stride.add %x, %e : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1]> -> !stride.tensor<[rows, 64], f32>
  %r = stride.relu %y : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  return %r : !stride.tensor<[rows, 64], f32>
}
