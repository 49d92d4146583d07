// A state updated in place: the scatter kernel's result is the state's
// buffer and its schedule keeps phase 1 alone (python-free-docs/state.md).
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels --stride-outline-executable -split-input-file %s | FileCheck %s

// CHECK-LABEL: plan.executable @step_kernels
// CHECK: stride.kernel "scatter_kernel"
// CHECK-SAME: launches = [#stride.launch<grid = 1, block = 256, phase = 1>]
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[POS:.*]]: !stride.tensor<1xi64, strides = [1], offset = 0> {stride.name = "pos"}
// CHECK-SAME: -> (!stride.tensor<2xf32, strides = [1], offset = 0> {stride.name = "total"})
// CHECK: %[[CACHE:.*]] = plan.state "cache" init dense<0.000000e+00> : tensor<2x8xf32> as !stride.tensor<2x8xf32, strides = [8, 1], offset = 0> written
// CHECK: %[[P:.*]] = plan.input %[[POS]] : !stride.tensor<1xi64
// CHECK: %[[NEW:.*]] = plan.input %{{.*}} : !stride.tensor<2x1xf32
// CHECK-NEXT: plan.dispatch @step_kernels::@scatter_kernel(%[[CACHE]], %[[P]], %[[NEW]], %[[CACHE]])
// CHECK: plan.dispatch @step_kernels::@sum_kernel(%[[CACHE]], %{{.*}})
// CHECK-NOT: plan.copy
// CHECK: return
func.func @step(%cache: !stride.tensor<2x8xf32> {stride.name = "cache", stride.state = dense<0.0> : tensor<2x8xf32>},
                %pos: !stride.tensor<1xi64> {stride.name = "pos"},
                %new: !stride.tensor<2x1xf32> {stride.name = "new"})
    -> (!stride.tensor<2x8xf32> {stride.name = "updated", stride.writes = "cache"},
        !stride.tensor<2xf32> {stride.name = "total"}) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1xi64> -> !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>
  %u = stride.scatter %cache, %i, %new dim 1 : !stride.tensor<2x8xf32>, !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>, !stride.tensor<2x1xf32> -> !stride.tensor<2x8xf32>
  %t = stride.sum %u dims [1] : !stride.tensor<2x8xf32> -> !stride.tensor<2xf32>
  return %u, %t : !stride.tensor<2x8xf32>, !stride.tensor<2xf32>
}

// -----

// The old value of an input is read after the scatter: the new value goes
// into a buffer of its own, copied into the input's storage at the end.
// CHECK-LABEL: plan.executable @late_read_kernels
// CHECK: stride.kernel "scatter_kernel"
// CHECK-SAME: launches = [#stride.launch<grid = 1, block = 256, phase = 0>, #stride.launch<grid = 1, block = 256, phase = 1>]
// CHECK-LABEL: func.func @late_read(
// CHECK-SAME: -> (!stride.tensor<2xf32, strides = [1], offset = 0> {stride.name = "old_total"})
// CHECK: %[[X:.*]] = plan.input %arg0 written
// CHECK: %[[U:.*]] = plan.alloc 64 bytes
// CHECK: plan.dispatch @late_read_kernels::@scatter_kernel(%[[X]], %{{.*}}, %{{.*}}, %[[U]])
// CHECK: plan.dispatch @late_read_kernels::@sum_kernel(%[[X]], %{{.*}})
// CHECK: plan.copy %[[U]] to %[[X]] size 64
// CHECK-NEXT: plan.output
func.func @late_read(%x: !stride.tensor<2x8xf32> {stride.name = "x"},
                     %pos: !stride.tensor<1xi64> {stride.name = "pos"},
                     %new: !stride.tensor<2x1xf32> {stride.name = "new"})
    -> (!stride.tensor<2x8xf32> {stride.name = "updated", stride.writes = "x"},
        !stride.tensor<2xf32> {stride.name = "old_total"}) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1xi64> -> !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>
  %u = stride.scatter %x, %i, %new dim 1 : !stride.tensor<2x8xf32>, !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>, !stride.tensor<2x1xf32> -> !stride.tensor<2x8xf32>
  %t = stride.sum %x dims [1] : !stride.tensor<2x8xf32> -> !stride.tensor<2xf32>
  return %u, %t : !stride.tensor<2x8xf32>, !stride.tensor<2xf32>
}

// -----

// A decoder's cumulative lengths: each layer's state is written a value
// computed from the step's position, not from the state itself. The kernel
// writes it into the state's own buffer: no copy. Two layers compute it
// alike, so stride-merge-duplicate-kernels leaves one kernel, which yields
// the value once per state: both are written in place.
// CHECK-LABEL: plan.executable @lengths_kernels
// CHECK: stride.kernel "full_add"
// CHECK-NOT: stride.kernel
// CHECK-LABEL: func.func @lengths(
// CHECK: %[[L0:.*]] = plan.state "length_0" init dense<0> : tensor<i64> as !stride.tensor<i64, strides = [], offset = 0> written
// CHECK: %[[L1:.*]] = plan.state "length_1" init dense<0> : tensor<i64> as !stride.tensor<i64, strides = [], offset = 0> written
// CHECK: %[[P:.*]] = plan.input %{{.*}} : !stride.tensor<i64
// CHECK-NEXT: plan.dispatch @lengths_kernels::@full_add(%[[P]], %[[L0]], %[[L1]])
// CHECK-NOT: plan.copy
// CHECK: return
func.func @lengths(%l0: !stride.tensor<i64> {stride.name = "length_0", stride.state = dense<0> : tensor<i64>},
                   %l1: !stride.tensor<i64> {stride.name = "length_1", stride.state = dense<0> : tensor<i64>},
                   %pos: !stride.tensor<i64> {stride.name = "pos"})
    -> (!stride.tensor<i64> {stride.name = "new_0", stride.writes = "length_0"},
        !stride.tensor<i64> {stride.name = "new_1", stride.writes = "length_1"}) {
  %one = stride.full 1.0 : !stride.tensor<i64>
  %n0 = stride.add %pos, %one : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
  %one1 = stride.full 1.0 : !stride.tensor<i64>
  %n1 = stride.add %pos, %one1 : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
  return %n0, %n1 : !stride.tensor<i64>, !stride.tensor<i64>
}

// -----

// One result written back into two states: written in place into the
// first and copied into the second.
// CHECK-LABEL: func.func @shared(
// CHECK: %[[L0:.*]] = plan.state "length_0"
// CHECK: %[[L1:.*]] = plan.state "length_1"
// CHECK: plan.dispatch @shared_kernels::@full_add(%{{.*}}, %[[L0]])
// CHECK-NEXT: plan.copy %[[L0]] to %[[L1]] size 8
func.func @shared(%l0: !stride.tensor<i64> {stride.name = "length_0", stride.state = dense<0> : tensor<i64>},
                  %l1: !stride.tensor<i64> {stride.name = "length_1", stride.state = dense<0> : tensor<i64>},
                  %pos: !stride.tensor<i64> {stride.name = "pos"})
    -> (!stride.tensor<i64> {stride.name = "new_0", stride.writes = "length_0"},
        !stride.tensor<i64> {stride.name = "new_1", stride.writes = "length_1"}) {
  %one = stride.full 1.0 : !stride.tensor<i64>
  %n = stride.add %pos, %one : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
  return %n, %n : !stride.tensor<i64>, !stride.tensor<i64>
}

// -----

// The kernel reads the state it writes (a running count, `length + 1`):
// its result goes into a buffer of its own and is copied in at the end,
// since a pointwise kernel is not known to read each element before it
// writes it.
// CHECK-LABEL: func.func @count(
// CHECK: %[[C:.*]] = plan.state "count" init dense<0> : tensor<i64> as !stride.tensor<i64, strides = [], offset = 0> written
// CHECK: %[[N:.*]] = plan.alloc
// CHECK: plan.dispatch @count_kernels::@full_add(%[[C]], %[[N]])
// CHECK: plan.copy %[[N]] to %[[C]] size 8
func.func @count(%c: !stride.tensor<i64> {stride.name = "count", stride.state = dense<0> : tensor<i64>})
    -> (!stride.tensor<i64> {stride.name = "new", stride.writes = "count"}) {
  %one = stride.full 1.0 : !stride.tensor<i64>
  %n = stride.add %c, %one : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
  return %n : !stride.tensor<i64>
}

// -----

// A decoder's key and value caches written at one position: one kernel of
// sibling scatters (python-free-docs/fusion.md, rule 7) writes both in
// place; its schedule keeps phase 1 alone.
// CHECK-LABEL: plan.executable @caches_kernels
// CHECK: stride.kernel "scatter_scatter"
// CHECK-SAME: launches = [#stride.launch<grid = 1, block = 256, phase = 1>]
// CHECK-NOT: stride.kernel
// CHECK-LABEL: func.func @caches(
// CHECK: %[[K:.*]] = plan.state "keys"
// CHECK: %[[V:.*]] = plan.state "values"
// CHECK: plan.dispatch @caches_kernels::@scatter_scatter(%[[K]], %{{.*}}, %{{.*}}, %[[V]], %{{.*}}, %[[K]], %[[V]])
// CHECK-NOT: plan.copy
// CHECK: return
func.func @caches(%keys: !stride.tensor<2x8xf32> {stride.name = "keys", stride.state = dense<0.0> : tensor<2x8xf32>},
                  %values: !stride.tensor<2x8xf32> {stride.name = "values", stride.state = dense<0.0> : tensor<2x8xf32>},
                  %pos: !stride.tensor<1xi64> {stride.name = "pos"},
                  %k: !stride.tensor<2x1xf32> {stride.name = "k"},
                  %v: !stride.tensor<2x1xf32> {stride.name = "v"})
    -> (!stride.tensor<2x8xf32> {stride.name = "new_keys", stride.writes = "keys"},
        !stride.tensor<2x8xf32> {stride.name = "new_values", stride.writes = "values"}) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1xi64> -> !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>
  %uk = stride.scatter %keys, %i, %k dim 1 : !stride.tensor<2x8xf32>, !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>, !stride.tensor<2x1xf32> -> !stride.tensor<2x8xf32>
  %uv = stride.scatter %values, %i, %v dim 1 : !stride.tensor<2x8xf32>, !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>, !stride.tensor<2x1xf32> -> !stride.tensor<2x8xf32>
  return %uk, %uv : !stride.tensor<2x8xf32>, !stride.tensor<2x8xf32>
}

// -----

// Sibling scatters of which one writes a state and the other an ordinary
// result: phase 0 copies both inputs, so neither result is written in
// place; the state's new value is copied into it at the end.
// CHECK-LABEL: plan.executable @one_state_kernels
// CHECK: stride.kernel "scatter_scatter"
// CHECK-SAME: launches = [#stride.launch<grid = 1, block = 256, phase = 0>, #stride.launch<grid = 1, block = 256, phase = 1>]
// CHECK-LABEL: func.func @one_state(
// CHECK: %[[K:.*]] = plan.state "keys"
// CHECK: %[[NK:.*]] = plan.alloc 64 bytes
// CHECK: %[[NX:.*]] = plan.alloc 64 bytes
// CHECK: plan.dispatch @one_state_kernels::@scatter_scatter(%[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NK]], %[[NX]])
// CHECK: plan.copy %[[NK]] to %[[K]] size 64
// CHECK: return
func.func @one_state(%keys: !stride.tensor<2x8xf32> {stride.name = "keys", stride.state = dense<0.0> : tensor<2x8xf32>},
                     %x: !stride.tensor<2x8xf32> {stride.name = "x"},
                     %pos: !stride.tensor<1xi64> {stride.name = "pos"},
                     %k: !stride.tensor<2x1xf32> {stride.name = "k"},
                     %v: !stride.tensor<2x1xf32> {stride.name = "v"})
    -> (!stride.tensor<2x8xf32> {stride.name = "new_keys", stride.writes = "keys"},
        !stride.tensor<2x8xf32> {stride.name = "new_x"}) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1xi64> -> !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>
  %uk = stride.scatter %keys, %i, %k dim 1 : !stride.tensor<2x8xf32>, !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>, !stride.tensor<2x1xf32> -> !stride.tensor<2x8xf32>
  %ux = stride.scatter %x, %i, %v dim 1 : !stride.tensor<2x8xf32>, !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>, !stride.tensor<2x1xf32> -> !stride.tensor<2x8xf32>
  return %uk, %ux : !stride.tensor<2x8xf32>, !stride.tensor<2x8xf32>
}
