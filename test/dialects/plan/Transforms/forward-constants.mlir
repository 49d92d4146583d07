// stride-place-constants: constant-only kernels.
// A weight no fusion took in (its own kernel, which only yields it) is not
// copied: the product reads the plan.constant, the constant-only kernel is
// neither dispatched nor compiled. A returned constant keeps its copy.
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels --stride-outline-executable --stride-place-constants %s | FileCheck %s --check-prefix=CHECK
// CHECK-LABEL: plan.executable @weights_kernels
// CHECK-NOT: stride.kernel "constant_kernel"
// CHECK: stride.kernel "constant_kernel_1"
// CHECK-NOT: stride.kernel "constant_kernel
// CHECK-LABEL: func.func @weights(
// CHECK-DAG: %[[R:.*]] = plan.constant dense<5.000000e-01> : tensor<128xf32>
// CHECK-DAG: %[[W:.*]] = plan.constant dense<2.500000e-01> : tensor<128x128xf32>
// CHECK-NOT: plan.dispatch
// CHECK: plan.library_call "cublaslt.matmul"({{.*}}%[[W]]{{.*}})
// CHECK: %[[COPY:.*]] = plan.alloc 512 bytes
// CHECK-NEXT: plan.dispatch @weights_kernels::@constant_kernel_1(%[[R]], %[[COPY]])
// CHECK-NOT: plan.dispatch
// CHECK: plan.output %[[COPY]]
func.func @weights(%x: !stride.tensor<1x128xf32>)
    -> (!stride.tensor<1x128xf32>, !stride.tensor<128xf32>) {
  %w = stride.constant dense<0.25> : tensor<128x128xf32> : !stride.tensor<128x128xf32>
  %y = stride.matmul %x, %w : !stride.tensor<1x128xf32>, !stride.tensor<128x128xf32> -> !stride.tensor<1x128xf32>
  %r = stride.constant dense<0.5> : tensor<128xf32> : !stride.tensor<128xf32>
  return %y, %r : !stride.tensor<1x128xf32>, !stride.tensor<128xf32>
}
