// stride-place-constants: constants above max-inline-elements leave their
// kernel for the plan; equal ones share a buffer; small ones stay.
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels --stride-outline-executable --stride-place-constants %s | FileCheck %s
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels --stride-outline-executable --stride-place-constants=max-inline-elements=1000 %s | FileCheck %s --check-prefix=INLINE

// CHECK-LABEL: plan.executable @graph_kernels
// CHECK: stride.kernel "constant_add_constant_mul"
// CHECK-NEXT: ^bb0(%[[X:.*]]: !stride.tensor<128xf32, strides = [1], offset = 0>, %[[W:.*]]: !stride.tensor<128xf32, strides = [1], offset = 0>, %[[W2:.*]]: !stride.tensor<128xf32, strides = [1], offset = 0>):
// CHECK-NEXT: %[[A:.*]] = stride.add %[[X]], %[[W]]
// CHECK-NEXT: stride.mul %[[A]], %[[W2]]
// CHECK: stride.kernel "constant_add"
// CHECK: stride.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-LABEL: func.func @graph(
// CHECK-NEXT: %[[C:.*]] = plan.constant dense<1.500000e+00> : tensor<128xf32> as !stride.tensor<128xf32, strides = [1], offset = 0>
// CHECK-NEXT: %[[IN:.*]] = plan.input %arg0
// CHECK: plan.dispatch @graph_kernels::@constant_add_constant_mul(%[[IN]], %[[C]], %[[C]], %{{.*}})
// CHECK-NOT: plan.constant

// INLINE-NOT: plan.constant
// INLINE-COUNT-2: stride.constant dense<1.500000e+00>
// INLINE-NOT: plan.constant
func.func @graph(%x: !stride.tensor<128xf32>, %y: !stride.tensor<4xf32>)
    -> (!stride.tensor<128xf32>, !stride.tensor<4xf32>) {
  %w = stride.constant dense<1.5> : tensor<128xf32> : !stride.tensor<128xf32>
  %a = stride.add %x, %w : !stride.tensor<128xf32>, !stride.tensor<128xf32> -> !stride.tensor<128xf32>
  %w2 = stride.constant dense<1.5> : tensor<128xf32> : !stride.tensor<128xf32>
  %m = stride.mul %a, %w2 : !stride.tensor<128xf32>, !stride.tensor<128xf32> -> !stride.tensor<128xf32>
  %s = stride.constant dense<2.0> : tensor<4xf32> : !stride.tensor<4xf32>
  %b = stride.add %y, %s : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %m, %b : !stride.tensor<128xf32>, !stride.tensor<4xf32>
}

