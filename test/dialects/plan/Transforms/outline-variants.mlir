// A product over symbolic rows and its variant at one row
// (python-free-docs/symbolic-sizes.md, "Variants selected at run time"):
// the guarded skinny kernel's dispatch runs `when` the rows are one, the
// cuBLASLt call `unless` they are, and both write one buffer, which the
// select's readers read (here the graph's output); the IR prints and
// parses back.
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels --stride-outline-executable --stride-reuse-buffers %s | FileCheck %s
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels --stride-outline-executable --stride-reuse-buffers %s | stride-opt | FileCheck %s

// CHECK-LABEL: plan.executable @linear_kernels
// CHECK: stride.kernel "matmul_skinny" attributes {stride.schedule = #stride.schedule<scheme = skinny_matmul{{.*}}, when = [#stride.symbol<"tokens", range = [1, 1]>]} -> (!stride.tensor<1x32xbf16, strides = [32, 1], offset = 0>) {
// CHECK-NEXT: ^bb0(%{{.*}}: !stride.tensor<1x64xbf16, strides = [64, 1], offset = 0>, %{{.*}}: !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>, %{{.*}}: !stride.tensor<32xbf16, strides = [1], offset = 0>):
// CHECK-LABEL: func.func @linear
// CHECK: %[[X:.*]] = plan.input %arg0
// CHECK: %[[W:.*]] = plan.input %arg1
// CHECK: %[[B:.*]] = plan.input %arg2
// CHECK: %[[Y:.*]] = plan.alloc 8192 bytes sized <tokens*64>
// CHECK: plan.dispatch @linear_kernels::@matmul_skinny(%[[X]], %[[W]], %[[B]], %[[Y]]) {when = [#stride.symbol<"tokens", range = [1, 1]>]}
// CHECK: plan.library_call "cublaslt.matmul"(%[[W]], %[[X]], %[[B]], %[[Y]], %{{.*}}) descriptor {{{.*}}n = #stride.size<tokens>{{.*}}} {unless = [#stride.symbol<"tokens", range = [1, 1]>]}
// CHECK: plan.output %[[Y]]
func.func @linear(%x: !stride.tensor<[tokens, 64], bf16>,
                  %w: !stride.tensor<32x64xbf16>, %b: !stride.tensor<32xbf16>)
    -> !stride.tensor<[tokens, 32], bf16>
    attributes {stride.symbols = [#stride.symbol<"tokens", range = [1, 128]>]} {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<32x64xbf16>
      -> !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>
  %p = stride.matmul %x, %wt bias %b : !stride.tensor<[tokens, 64], bf16>,
      !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>,
      !stride.tensor<32xbf16> -> !stride.tensor<[tokens, 32], bf16>
  return %p : !stride.tensor<[tokens, 32], bf16>
}
