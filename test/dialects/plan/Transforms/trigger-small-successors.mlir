// stride-trigger-small-successors: a kernel of one launch whose every
// dispatch is followed by a small grid (at most max-blocks blocks) is
// marked plan.trigger_dependents; a kernel before a large grid, before a
// library call, of two launches, or dispatched once before a small grid
// and once before a large one is not.
// RUN: stride-opt --stride-trigger-small-successors="max-blocks=4" %s | FileCheck %s

// CHECK-LABEL: plan.executable @k
// CHECK: stride.kernel "big" attributes {plan.trigger_dependents, stride.schedule
// CHECK: stride.kernel "small" attributes {stride.schedule
// CHECK: stride.kernel "phased" attributes {stride.schedule
// CHECK: stride.kernel "mixed" attributes {stride.schedule
// CHECK: stride.kernel "before_call" attributes {stride.schedule
#big = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 64, block = 256>]>
#small = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 4, block = 256>]>
plan.executable @k {
  stride.kernel "big" attributes {stride.schedule = #big} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "small" attributes {stride.schedule = #small} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "phased" attributes {stride.schedule = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 64, block = 256>, #stride.launch<grid = 1, block = 256>]>} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "mixed" attributes {stride.schedule = #big} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
  stride.kernel "before_call" attributes {stride.schedule = #big} -> (!stride.tensor<16xf32>) {
  ^bb0(%x: !stride.tensor<16xf32>):
    stride.yield %x : !stride.tensor<16xf32>
  }
}
func.func @steps(%x: !stride.tensor<16xf32>) -> !stride.tensor<16xf32> {
  %in = plan.input %x : !stride.tensor<16xf32>
  %0 = plan.alloc 64 bytes
  plan.dispatch @k::@big(%in, %0)
  // the alloc between the two is no step
  %1 = plan.alloc 64 bytes
  plan.dispatch @k::@small(%0, %1)
  %2 = plan.alloc 64 bytes
  plan.dispatch @k::@phased(%1, %2)
  %3 = plan.alloc 64 bytes
  plan.dispatch @k::@small(%2, %3)
  %4 = plan.alloc 64 bytes
  plan.dispatch @k::@mixed(%3, %4)
  %5 = plan.alloc 64 bytes
  plan.dispatch @k::@small(%4, %5)
  %6 = plan.alloc 64 bytes
  plan.dispatch @k::@mixed(%5, %6)
  %8 = plan.alloc 64 bytes
  plan.dispatch @k::@before_call(%6, %8)
  plan.library_call "cublaslt.matmul"(%8, %0) descriptor {}
  %9 = plan.alloc 64 bytes
  plan.dispatch @k::@small(%8, %9)
  %r = plan.output %9 : !stride.tensor<16xf32>
  return %r : !stride.tensor<16xf32>
}
