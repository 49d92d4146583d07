// Every plan op prints and parses back, and the printed form parses again
// to the same text.
// RUN: stride-opt %s | FileCheck %s
// RUN: stride-opt %s | stride-opt | FileCheck %s

// CHECK-LABEL: plan.executable @graph_kernels {
// CHECK: stride.kernel "neg" -> (!stride.tensor<4xf32, strides = [1], offset = 0>) {
// CHECK-NEXT: ^bb0(%{{.*}}: !stride.tensor<4xf32, strides = [1], offset = 0>):
plan.executable @graph_kernels {
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    %n = stride.neg %a : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %n : !stride.tensor<4xf32>
  }
}

// CHECK-LABEL: func.func @graph
// CHECK: %[[IN:.*]] = plan.input %arg0 : !stride.tensor<4xf32, strides = [1], offset = 0>
// CHECK: %[[W:.*]] = plan.constant dense<1.000000e+00> : tensor<4xf32> as !stride.tensor<4xf32, strides = [1], offset = 0>
// CHECK: %[[T:.*]] = plan.alloc 16 bytes{{$}}
// CHECK: %[[Z:.*]] = plan.alloc 64 bytes zeroed
// CHECK: plan.fill %[[Z]] with 0
// CHECK: plan.dispatch @graph_kernels::@neg(%[[IN]], %[[T]])
// CHECK: plan.library_call "cublaslt.matmul"(%[[T]], %[[W]], %[[Z]]) descriptor {m = 2 : i64}
// CHECK: %[[O:.*]] = plan.alloc 16 bytes at arena 256
// CHECK: plan.copy %[[T]] to %[[O]] size 16
// CHECK: %[[G:.*]] = plan.alloc 32 bytes
// CHECK: plan.collective all_gather %[[T]][0] to %[[G]] count 4 x f32 world_size 2
// CHECK: plan.collective all_reduce reduction avg %[[T]][8] to %[[O]] count 2 x f32 world_size 2
// CHECK: %[[R:.*]] = plan.output %[[O]] : !stride.tensor<4xf32, strides = [1], offset = 0>
// CHECK: return %[[R]]
func.func @graph(%arg0: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  %w = plan.constant dense<1.0> : tensor<4xf32> as !stride.tensor<4xf32>
  %t = plan.alloc 16 bytes
  %z = plan.alloc 64 bytes zeroed
  plan.fill %z with 0
  plan.dispatch @graph_kernels::@neg(%in, %t)
  plan.library_call "cublaslt.matmul"(%t, %w, %z) descriptor {m = 2 : i64}
  %o = plan.alloc 16 bytes at arena 256
  plan.copy %t to %o size 16
  %g = plan.alloc 32 bytes
  plan.collective all_gather %t[0] to %g count 4 x f32 world_size 2
  plan.collective all_reduce reduction avg %t[8] to %o count 2 x f32 world_size 2
  %r = plan.output %o : !stride.tensor<4xf32>
  return %r : !stride.tensor<4xf32>
}

// A state and a mutated input (python-free-docs/state.md).
// CHECK-LABEL: func.func @step
// CHECK: %[[S:.*]] = plan.state "cache" init dense<0.000000e+00> : tensor<4xf32> as !stride.tensor<4xf32, strides = [1], offset = 0> written
// CHECK: %[[X:.*]] = plan.input %arg0 written : !stride.tensor<4xf32, strides = [1], offset = 0>
// CHECK: plan.dispatch @graph_kernels::@neg(%[[X]], %[[S]])
func.func @step(%arg0: !stride.tensor<4xf32>) {
  %s = plan.state "cache" init dense<0.0> : tensor<4xf32> as !stride.tensor<4xf32> written
  %x = plan.input %arg0 written : !stride.tensor<4xf32>
  plan.dispatch @graph_kernels::@neg(%x, %s)
  return
}

// The collective stream's fork and join (stride-overlap-collectives).
// CHECK-LABEL: func.func @streams
// CHECK: %[[FORK:.*]] = plan.record_event{{$}}
// CHECK: plan.wait_event %[[FORK]] on collective stream
// CHECK: plan.collective all_reduce reduction sum %{{.*}}[0] to %{{.*}} count 4 x f32 world_size 2 on collective stream
// CHECK: %[[DONE:.*]] = plan.record_event on collective stream
// CHECK: plan.wait_event %[[DONE]]{{$}}
func.func @streams(%arg0: !stride.tensor<4xf32>) {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  %r = plan.alloc 16 bytes
  %fork = plan.record_event
  plan.wait_event %fork on collective stream
  plan.collective all_reduce reduction sum %in[0] to %r count 4 x f32 world_size 2 on collective stream
  %done = plan.record_event on collective stream
  plan.wait_event %done
  return
}
