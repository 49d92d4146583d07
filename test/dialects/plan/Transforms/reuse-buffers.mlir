// stride-reuse-buffers: every buffer that is not zeroed gets an offset in
// one arena; buffers whose lifetimes overlap never share bytes, buffers
// whose lifetimes do not may, whatever their sizes; a graph output lives to
// the end of the plan; a zeroed buffer keeps storage of its own.
// RUN: stride-opt --stride-reuse-buffers -split-input-file %s | FileCheck %s

// A chain: each step reads one buffer and writes the next, so two arena
// slots take turns, the output's included. No step reads and writes one
// byte through two buffers.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {plan.reuse = {arena_bytes = 320 : i64, bytes = 192 : i64, output_bytes = 64 : i64, outputs = 1 : i64, temporaries = 3 : i64}}
// CHECK: plan.alloc 64 bytes at arena 0
// CHECK-NEXT: plan.dispatch @k::@a
// CHECK-NEXT: plan.alloc 64 bytes at arena 256
// CHECK-NEXT: plan.dispatch @k::@b
// CHECK-NEXT: plan.alloc 64 bytes at arena 0
// CHECK-NEXT: plan.dispatch @k::@c
// CHECK-NEXT: plan.alloc 64 bytes at arena 256
// CHECK-NEXT: plan.dispatch @k::@d
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

// The largest first, each at the lowest offset free for its lifetime: the
// 2048 bytes at 0; 1024 and 256 live together, and with nothing placed
// yet, take 0 and 1024 (the 2048 lives later); 200 and 32 reuse offset 0.
// The zeroed buffer is never in the arena.
// CHECK-LABEL: func.func @sizes
// CHECK-SAME: plan.reuse = {arena_bytes = 2048 : i64, bytes = 3624 : i64, output_bytes = 0 : i64, outputs = 0 : i64, temporaries = 6 : i64}
// CHECK-NEXT: plan.alloc 1024 bytes at arena 0
// CHECK-NEXT: plan.alloc 256 bytes at arena 1024
// CHECK-NEXT: plan.alloc 64 bytes zeroed{{$}}
// CHECK-NEXT: plan.library_call
// CHECK-NEXT: plan.alloc 200 bytes at arena 0
// CHECK-NEXT: plan.library_call
// CHECK-NEXT: plan.alloc 2048 bytes at arena 0
// CHECK-NEXT: plan.library_call
// CHECK-NEXT: plan.alloc 32 bytes at arena 0
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

// -----

// A graph output takes the bytes of temporaries that died before it was
// written: the two 4096-byte temporaries, which live together, take 0 and
// 4096, and the 8192-byte output, written after both died, starts at 0
// too. The 64-byte temporary between them lives with the second and with
// the output, so it goes past both.
// CHECK-LABEL: func.func @output_after_temporaries
// CHECK-SAME: plan.reuse = {arena_bytes = 8256 : i64, bytes = 8256 : i64, output_bytes = 8192 : i64, outputs = 1 : i64, temporaries = 3 : i64}
// CHECK-NEXT: plan.alloc 4096 bytes at arena 0
// CHECK-NEXT: plan.alloc 4096 bytes at arena 4096
// CHECK-NEXT: plan.library_call
// CHECK-NEXT: plan.alloc 64 bytes at arena 8192
// CHECK-NEXT: plan.library_call
// CHECK-NEXT: plan.alloc 8192 bytes at arena 0
// CHECK-NEXT: plan.library_call
func.func @output_after_temporaries() -> !stride.tensor<2048xf32> {
  %a = plan.alloc 4096 bytes
  %b = plan.alloc 4096 bytes
  plan.library_call "lib.f"(%a, %b) descriptor {}
  %c = plan.alloc 64 bytes
  plan.library_call "lib.f"(%b, %c) descriptor {}
  %o = plan.alloc 8192 bytes
  plan.library_call "lib.f"(%c, %o) descriptor {}
  %r = plan.output %o : !stride.tensor<2048xf32>
  return %r : !stride.tensor<2048xf32>
}
