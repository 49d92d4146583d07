// stride-group-launches: independent small kernels a few steps apart run as
// one launch, a `launch_group` kernel that holds them; a dispatch joins the
// earliest group it can be moved up to, never past a step that writes what
// it reads, reads or writes what it writes, or that the pass does not look
// into.
// RUN: stride-opt --stride-group-launches="max-blocks=8" -split-input-file %s | FileCheck %s

// `b` reads only the input, so it moves up past `mid` (which reads `a`'s
// result) and joins `a`: one dispatch where `a` ran, the members' inputs
// then their results; `mid` after it. The group's launch has both grids.
// CHECK-LABEL: plan.executable @k
// CHECK: stride.kernel "launch_group" attributes {stride.schedule = #stride.schedule<scheme = launch_group, index_bits = 32, threads = 256, launches = [#stride.launch<grid = 3, block = 256>]>} -> (!stride.tensor<16xf32{{.*}}>, !stride.tensor<16xf32{{.*}}>)
// CHECK-NEXT: ^bb0(%[[X0:[a-z0-9]+]]: {{.*}}, %[[X1:[a-z0-9]+]]: {{.*}}):
// CHECK-NEXT: %[[A:.*]] = stride.kernel "a" ins(%[[X0]] : {{.*}}grid = 1, block = 256
// CHECK: %[[B:.*]] = stride.kernel "b" ins(%[[X1]] : {{.*}}grid = 2, block = 256
// CHECK: stride.yield %[[A]], %[[B]]
// CHECK-NOT: stride.kernel "a" attributes
// CHECK-NOT: stride.kernel "b" attributes
// CHECK: stride.kernel "mid" attributes
// CHECK-LABEL: func.func @hoist
// CHECK: %[[IN:.*]] = plan.input
// CHECK-NEXT: %[[RA:.*]] = plan.alloc 64 bytes
// CHECK-NEXT: %[[RB:.*]] = plan.alloc 64 bytes
// CHECK-NEXT: plan.dispatch @k::@launch_group(%[[IN]], %[[IN]], %[[RA]], %[[RB]])
// CHECK-NEXT: %[[RM:.*]] = plan.alloc 64 bytes
// CHECK-NEXT: plan.dispatch @k::@mid(%[[RA]], %[[RM]])
// CHECK-NOT: plan.dispatch
#one = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 1, block = 256>]>
#two = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 2, block = 256>]>
plan.executable @k {
  stride.kernel "a" attributes {stride.schedule = #one} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    %n = stride.neg %x : <16xf32> -> <16xf32>
    stride.yield %n : !stride.tensor<16xf32>
  }
  stride.kernel "mid" attributes {stride.schedule = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 1, block = 128>]>} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    %n = stride.neg %x : <16xf32> -> <16xf32>
    stride.yield %n : !stride.tensor<16xf32>
  }
  stride.kernel "b" attributes {stride.schedule = #two} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    %n = stride.exp %x : <16xf32> -> <16xf32>
    stride.yield %n : !stride.tensor<16xf32>
  }
}
func.func @hoist(%x: !stride.tensor<16xf32>) -> (!stride.tensor<16xf32>, !stride.tensor<16xf32>) {
  %in = plan.input %x : !stride.tensor<16xf32>
  %0 = plan.alloc 64 bytes
  plan.dispatch @k::@a(%in, %0)
  %1 = plan.alloc 64 bytes
  plan.dispatch @k::@mid(%0, %1)
  %2 = plan.alloc 64 bytes
  plan.dispatch @k::@b(%in, %2)
  %r1 = plan.output %1 : !stride.tensor<16xf32>
  %r2 = plan.output %2 : !stride.tensor<16xf32>
  return %r1, %r2 : !stride.tensor<16xf32>, !stride.tensor<16xf32>
}

// -----

// Nothing joins: `b` reads `a`'s result; `c` writes the state that `b`
// reads (it must run after `b`); `d` lies past a library call; `e` has a
// block of 128 threads; `f`'s grid would take the group past max-blocks;
// `g` has two launches.
// CHECK-LABEL: func.func @apart
// CHECK-NOT: launch_group
// CHECK: plan.dispatch @k::@a
// CHECK: plan.dispatch @k::@b
// CHECK: plan.dispatch @k::@c
// CHECK: plan.library_call
// CHECK: plan.dispatch @k::@d
// CHECK: plan.dispatch @k::@e
// CHECK: plan.dispatch @k::@f
// CHECK: plan.dispatch @k::@g
#one = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 1, block = 256>]>
plan.executable @k {
  stride.kernel "a" attributes {stride.schedule = #one} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "b" attributes {stride.schedule = #one} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>, %s: !stride.tensor<16xf32>):
    %y = stride.add %x, %s : <16xf32>, <16xf32> -> <16xf32>
    stride.yield %y : !stride.tensor<16xf32>
  }
  stride.kernel "c" attributes {stride.schedule = #one} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "d" attributes {stride.schedule = #one} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "e" attributes {stride.schedule = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 1, block = 128>]>} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "f" attributes {stride.schedule = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 8, block = 256>]>} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "g" attributes {stride.schedule = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 1, block = 256>, #stride.launch<grid = 1, block = 256>]>} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
}
func.func @apart(%x: !stride.tensor<16xf32>) -> !stride.tensor<16xf32> {
  %in = plan.input %x : !stride.tensor<16xf32>
  %state = plan.state "s" init dense<0.0> : tensor<16xf32> as !stride.tensor<16xf32> written
  %0 = plan.alloc 64 bytes
  plan.dispatch @k::@a(%in, %0)
  %1 = plan.alloc 64 bytes
  plan.dispatch @k::@b(%0, %state, %1)
  plan.dispatch @k::@c(%in, %state)
  %w = plan.alloc 64 bytes
  plan.library_call "cublaslt.matmul"(%in, %w) descriptor {}
  %2 = plan.alloc 64 bytes
  plan.dispatch @k::@d(%in, %2)
  %3 = plan.alloc 64 bytes
  plan.dispatch @k::@e(%in, %3)
  %4 = plan.alloc 64 bytes
  plan.dispatch @k::@f(%in, %4)
  %5 = plan.alloc 64 bytes
  plan.dispatch @k::@g(%in, %5)
  %r = plan.output %1 : !stride.tensor<16xf32>
  return %r : !stride.tensor<16xf32>
}

// -----

// A scatter written in place (its update launch, phase 1, alone) joins a
// pointwise kernel; its phase stays on its own schedule. A kernel that
// another dispatch still runs stays in the executable beside the group.
// CHECK-LABEL: plan.executable @k
// CHECK: stride.kernel "launch_group"
// CHECK: stride.kernel "a" ins
// CHECK: stride.kernel "put" ins{{.*}}phase = 1
// CHECK: stride.kernel "a" attributes
// CHECK-NOT: stride.kernel "put" attributes
// CHECK-LABEL: func.func @scatter
// CHECK: %[[IN:.*]] = plan.input %arg0
// CHECK: %[[S:.*]] = plan.state
// CHECK: plan.dispatch @k::@launch_group(%[[IN]], %[[S]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[S]])
// CHECK-NEXT: plan.alloc
// CHECK-NEXT: plan.dispatch @k::@a
#one = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 1, block = 256>]>
plan.executable @k {
  stride.kernel "a" attributes {stride.schedule = #one} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "put" attributes {stride.schedule = #stride.schedule<scheme = scatter, index_bits = 32, launches = [#stride.launch<grid = 1, block = 256, phase = 1>]>} -> (!stride.tensor<16xf32>) {
  ^bb0(%s: !stride.tensor<16xf32>, %i: !stride.tensor<1xi64>, %v: !stride.tensor<1xf32>):
    %y = stride.scatter %s, %i, %v dim 0 : <16xf32>, <1xi64>, <1xf32> -> <16xf32>
    stride.yield %y : !stride.tensor<16xf32>
  }
}
func.func @scatter(%x: !stride.tensor<16xf32>, %i: !stride.tensor<1xi64>, %v: !stride.tensor<1xf32>) -> (!stride.tensor<16xf32>, !stride.tensor<16xf32>) {
  %in = plan.input %x : !stride.tensor<16xf32>
  %index = plan.input %i : !stride.tensor<1xi64>
  %value = plan.input %v : !stride.tensor<1xf32>
  %state = plan.state "s" init dense<0.0> : tensor<16xf32> as !stride.tensor<16xf32> written
  %0 = plan.alloc 64 bytes
  plan.dispatch @k::@a(%in, %0)
  plan.dispatch @k::@put(%state, %index, %value, %state)
  %1 = plan.alloc 64 bytes
  plan.dispatch @k::@a(%0, %1)
  %r0 = plan.output %0 : !stride.tensor<16xf32>
  %r1 = plan.output %1 : !stride.tensor<16xf32>
  return %r0, %r1 : !stride.tensor<16xf32>, !stride.tensor<16xf32>
}
