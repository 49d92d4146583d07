// stride-overlap-collectives: each collective runs on the collective
// stream, forked after the last step that writes its input (or touches its
// output) and joined before the first step that reads its output or takes
// its bytes; the end of the plan joins the rest.
// RUN: stride-opt --pass-pipeline='builtin.module(func.func(stride-reuse-buffers{collective-lifetimes=true},stride-overlap-collectives))' -split-input-file %s | FileCheck %s
// Without the pass (stridec --no-overlap-collectives), nothing moves.
// RUN: stride-opt --stride-reuse-buffers -split-input-file %s | FileCheck %s --check-prefix=OFF
// OFF-NOT: plan.record_event
// OFF-NOT: plan.wait_event
// OFF-NOT: on collective stream

// One bucket: the gradient's all-reduce forks after the kernel that writes
// it, runs beside the next gradient's kernel, and its result, only
// returned, is joined at the end.
// CHECK-LABEL: func.func @one_bucket
// CHECK: plan.dispatch @k::@grad0
// CHECK-NEXT: %[[FORK:.*]] = plan.record_event
// CHECK-NOT: plan.dispatch
// CHECK: plan.wait_event %[[FORK]] on collective stream
// CHECK-NEXT: plan.collective all_reduce reduction avg %{{.*}}[0] to %{{.*}} count 16 x f32 world_size 2 on collective stream
// CHECK-NEXT: %[[DONE:.*]] = plan.record_event on collective stream
// CHECK: plan.dispatch @k::@grad1
// CHECK-NOT: plan.wait_event
// CHECK: plan.wait_event %[[DONE]]{{$}}
// CHECK-NEXT: return
plan.executable @k {
  stride.kernel "grad0" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "grad1" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
}
func.func @one_bucket(%x: !stride.tensor<16xf32>) -> (!stride.tensor<16xf32>, !stride.tensor<16xf32>) {
  %in = plan.input %x : !stride.tensor<16xf32>
  %g0 = plan.alloc 64 bytes
  plan.dispatch @k::@grad0(%in, %g0)
  %r0 = plan.alloc 64 bytes
  plan.collective all_reduce reduction avg %g0[0] to %r0 count 16 x f32 world_size 2
  %g1 = plan.alloc 64 bytes
  plan.dispatch @k::@grad1(%in, %g1)
  %o0 = plan.output %r0 : !stride.tensor<16xf32>
  %o1 = plan.output %g1 : !stride.tensor<16xf32>
  return %o0, %o1 : !stride.tensor<16xf32>, !stride.tensor<16xf32>
}

// -----

// Two buckets: one fork each (the second after its own gradient's kernel),
// the collectives in plan order on their stream, and the end of the plan
// waits for the second one only (the first is done before it).
// CHECK-LABEL: func.func @two_buckets
// CHECK: plan.dispatch @k::@grad0
// CHECK-NEXT: %[[F0:.*]] = plan.record_event
// CHECK: plan.wait_event %[[F0]] on collective stream
// CHECK-NEXT: plan.collective all_reduce {{.*}} on collective stream
// CHECK-NEXT: %[[D0:.*]] = plan.record_event on collective stream
// CHECK: plan.dispatch @k::@grad1
// CHECK-NEXT: %[[F1:.*]] = plan.record_event
// CHECK: plan.wait_event %[[F1]] on collective stream
// CHECK-NEXT: plan.collective all_reduce {{.*}} on collective stream
// CHECK-NEXT: %[[D1:.*]] = plan.record_event on collective stream
// CHECK: plan.dispatch @k::@rest
// CHECK-NOT: plan.wait_event
// CHECK: plan.wait_event %[[D1]]{{$}}
// CHECK-NEXT: return
plan.executable @k {
  stride.kernel "grad0" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "grad1" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "rest" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
}
func.func @two_buckets(%x: !stride.tensor<16xf32>) -> (!stride.tensor<16xf32>, !stride.tensor<16xf32>, !stride.tensor<16xf32>) {
  %in = plan.input %x : !stride.tensor<16xf32>
  %g0 = plan.alloc 64 bytes
  plan.dispatch @k::@grad0(%in, %g0)
  %r0 = plan.alloc 64 bytes
  plan.collective all_reduce reduction avg %g0[0] to %r0 count 16 x f32 world_size 2
  %g1 = plan.alloc 64 bytes
  plan.dispatch @k::@grad1(%in, %g1)
  %r1 = plan.alloc 64 bytes
  plan.collective all_reduce reduction avg %g1[0] to %r1 count 16 x f32 world_size 2
  %g2 = plan.alloc 64 bytes
  plan.dispatch @k::@rest(%in, %g2)
  %o0 = plan.output %r0 : !stride.tensor<16xf32>
  %o1 = plan.output %r1 : !stride.tensor<16xf32>
  %o2 = plan.output %g2 : !stride.tensor<16xf32>
  return %o0, %o1, %o2 : !stride.tensor<16xf32>, !stride.tensor<16xf32>, !stride.tensor<16xf32>
}

// -----

// A reader right after the all-reduce: it waits for it at once (nothing to
// overlap), and the end of the plan has nothing left to join.
// CHECK-LABEL: func.func @reader_right_after
// CHECK: plan.collective all_reduce {{.*}} on collective stream
// CHECK-NEXT: %[[DONE:.*]] = plan.record_event on collective stream
// CHECK-NEXT: plan.alloc
// CHECK-NEXT: plan.wait_event %[[DONE]]{{$}}
// CHECK-NEXT: plan.dispatch @k::@use
// CHECK-NOT: plan.wait_event
plan.executable @k {
  stride.kernel "grad0" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "use" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
}
func.func @reader_right_after(%x: !stride.tensor<16xf32>) -> !stride.tensor<16xf32> {
  %in = plan.input %x : !stride.tensor<16xf32>
  %g0 = plan.alloc 64 bytes
  plan.dispatch @k::@grad0(%in, %g0)
  %r0 = plan.alloc 64 bytes
  plan.collective all_reduce reduction sum %g0[0] to %r0 count 16 x f32 world_size 2
  %u = plan.alloc 64 bytes
  plan.dispatch @k::@use(%r0, %u)
  %o = plan.output %u : !stride.tensor<16xf32>
  return %o : !stride.tensor<16xf32>
}

// -----

// Arena reuse: the all-reduce's input dies at the collective, so a later
// kernel's result may take its bytes. With collective-lifetimes the input
// lives on to the first reader of the result (@use), so @other's result
// goes elsewhere and runs beside the collective; without, @other's result
// takes the input's bytes (arena 0) and must wait for the collective.
// CHECK-LABEL: func.func @reused_bytes
// CHECK: %[[G:.*]] = plan.alloc 64 bytes at arena 0
// CHECK: plan.collective all_reduce reduction sum %[[G]][0] {{.*}} on collective stream
// CHECK-NEXT: %[[DONE:.*]] = plan.record_event on collective stream
// CHECK-NEXT: plan.alloc 64 bytes at arena {{[1-9][0-9]*}}
// CHECK-NEXT: plan.dispatch @k::@other
// CHECK-NEXT: plan.alloc
// CHECK-NEXT: plan.wait_event %[[DONE]]{{$}}
// CHECK-NEXT: plan.dispatch @k::@use
// RUN: stride-opt --pass-pipeline='builtin.module(func.func(stride-reuse-buffers,stride-overlap-collectives))' -split-input-file %s | FileCheck %s --check-prefix=REUSED
// REUSED-LABEL: func.func @reused_bytes
// REUSED: plan.collective all_reduce reduction sum %{{.*}}[0] {{.*}} on collective stream
// REUSED-NEXT: %[[DONE:.*]] = plan.record_event on collective stream
// REUSED-NEXT: plan.alloc 64 bytes at arena 0
// REUSED-NEXT: plan.wait_event %[[DONE]]{{$}}
// REUSED-NEXT: plan.dispatch @k::@other
plan.executable @k {
  stride.kernel "grad0" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "other" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "use" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>, %y: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
}
func.func @reused_bytes(%x: !stride.tensor<16xf32>) -> !stride.tensor<16xf32> {
  %in = plan.input %x : !stride.tensor<16xf32>
  %g0 = plan.alloc 64 bytes
  plan.dispatch @k::@grad0(%in, %g0)
  %r0 = plan.alloc 64 bytes
  plan.collective all_reduce reduction sum %g0[0] to %r0 count 16 x f32 world_size 2
  %t = plan.alloc 64 bytes
  plan.dispatch @k::@other(%in, %t)
  %u = plan.alloc 64 bytes
  plan.dispatch @k::@use(%r0, %t, %u)
  %o = plan.output %u : !stride.tensor<16xf32>
  return %o : !stride.tensor<16xf32>
}

// -----

// A collective that reads a graph input: nothing writes it, so the
// collective stream forks before the plan's first step.
// CHECK-LABEL: func.func @from_input
// CHECK-NEXT: plan.input
// CHECK-NEXT: plan.alloc
// CHECK-NEXT: %[[FORK:.*]] = plan.record_event
// CHECK-NEXT: plan.wait_event %[[FORK]] on collective stream
// CHECK-NEXT: plan.collective all_gather
func.func @from_input(%x: !stride.tensor<16xf32>) -> !stride.tensor<32xf32> {
  %in = plan.input %x : !stride.tensor<16xf32>
  %r = plan.alloc 128 bytes
  plan.collective all_gather %in[0] to %r count 16 x f32 world_size 2
  %o = plan.output %r : !stride.tensor<32xf32>
  return %o : !stride.tensor<32xf32>
}
