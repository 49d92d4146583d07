// stride-reuse-buffers: temporaries whose lifetimes do not overlap share a
// buffer; zeroed buffers and graph outputs never do.
// RUN: stride-opt --stride-reuse-buffers -split-input-file %s | FileCheck %s

// A chain: each step reads one temporary and writes the next, so two
// buffers take turns. No step reads and writes one buffer.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {plan.reuse = {bytes = 192 : i64, shared_bytes = 128 : i64, shared_temporaries = 2 : i64, temporaries = 3 : i64}}
// CHECK: %[[A:.*]] = plan.alloc 64 bytes
// CHECK-NEXT: plan.dispatch @k::@a(%[[IN:.*]], %[[A]])
// CHECK-NEXT: %[[B:.*]] = plan.alloc 64 bytes
// CHECK-NEXT: plan.dispatch @k::@b(%[[A]], %[[B]])
// CHECK-NEXT: plan.dispatch @k::@c(%[[B]], %[[A]])
// CHECK-NEXT: %[[O:.*]] = plan.alloc 64 bytes
// CHECK-NEXT: plan.dispatch @k::@d(%[[A]], %[[O]])
plan.executable @k {
  stride.kernel "a" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "b" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "c" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "d" -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
}
func.func @chain(%x: !stride.tensor<16xf32>) -> !stride.tensor<16xf32> {
  %in = plan.input %x : !stride.tensor<16xf32>
  %0 = plan.alloc 64 bytes
  plan.dispatch @k::@a(%in, %0)
  %1 = plan.alloc 64 bytes
  plan.dispatch @k::@b(%0, %1)
  %2 = plan.alloc 64 bytes
  plan.dispatch @k::@c(%1, %2)
  %3 = plan.alloc 64 bytes
  plan.dispatch @k::@d(%2, %3)
  %r = plan.output %3 : !stride.tensor<16xf32>
  return %r : !stride.tensor<16xf32>
}

// -----

// Of the free buffers, the smallest that is large enough; when none is, the
// largest, grown. A zeroed buffer (scratch the plan leaves zeroed) keeps its
// own buffer and is given to no other.
// CHECK-LABEL: func.func @sizes
// CHECK-SAME: plan.reuse = {bytes = 3624 : i64, shared_bytes = 2368 : i64, shared_temporaries = 3 : i64, temporaries = 6 : i64}
// CHECK-NEXT: %[[A:.*]] = plan.alloc 2048 bytes
// CHECK-NEXT: %[[B:.*]] = plan.alloc 256 bytes
// CHECK-NEXT: %[[Z:.*]] = plan.alloc 64 bytes zeroed
// CHECK-NEXT: plan.library_call "lib.f"(%[[A]], %[[B]], %[[Z]])
// CHECK-NEXT: plan.library_call "lib.f"(%[[B]])
// CHECK-NEXT: plan.library_call "lib.f"(%[[A]])
// CHECK-NEXT: plan.library_call "lib.f"(%[[B]], %[[Z]])
// CHECK-NEXT: return
func.func @sizes() {
  %a = plan.alloc 1024 bytes
  %b = plan.alloc 256 bytes
  %z = plan.alloc 64 bytes zeroed
  plan.library_call "lib.f"(%a, %b, %z) descriptor {}
  %c = plan.alloc 200 bytes
  plan.library_call "lib.f"(%c) descriptor {}
  %d = plan.alloc 2048 bytes
  plan.library_call "lib.f"(%d) descriptor {}
  %e = plan.alloc 32 bytes
  plan.library_call "lib.f"(%e, %z) descriptor {}
  return
}
