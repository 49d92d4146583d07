// stride-outline-executable with unit-ops: kernels go into several
// plan.executables (translation units) in program order, a new one after the
// current one holds unit-ops kernel ops; names stay unique across them.
// RUN: stride-opt --stride-pipeline="fuse=false form-kernels" --stride-schedule-kernels --stride-outline-executable=unit-ops=2 -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-pipeline="fuse=false form-kernels" --stride-schedule-kernels --stride-outline-executable=unit-ops=1 -split-input-file %s | FileCheck %s --check-prefix=CAP
// RUN: stride-opt --stride-pipeline="fuse=false form-kernels" --stride-schedule-kernels --stride-outline-executable=unit-ops=0 -split-input-file %s | FileCheck %s --check-prefix=ONE

// Five one-op kernels, two ops a unit at least: T = 5 ops make 5 / 2 = 2
// units of ceil(5 / 2) = 3 ops, filled in program order (3 and 2 kernels),
// each dispatch naming its unit. The second `exp` keeps a name of its own.
// CHECK-LABEL: plan.executable @units_kernels_0 {
// CHECK-NEXT: stride.kernel "exp_0"
// CHECK: stride.kernel "neg_1"
// CHECK: stride.kernel "exp_2"
// CHECK-NOT: stride.kernel
// CHECK-LABEL: plan.executable @units_kernels_1 {
// CHECK-NEXT: stride.kernel "tanh_3"
// CHECK: stride.kernel "abs_4"
// CHECK-NOT: stride.kernel
// CHECK-LABEL: func.func @units(
// CHECK: plan.dispatch @units_kernels_0::@exp_0(
// CHECK: plan.dispatch @units_kernels_0::@neg_1(
// CHECK: plan.dispatch @units_kernels_0::@exp_2(
// CHECK: plan.dispatch @units_kernels_1::@tanh_3(
// CHECK: plan.dispatch @units_kernels_1::@abs_4(
// ONE-LABEL: plan.executable @units_kernels {
// ONE-COUNT-5: stride.kernel
// ONE-NOT: plan.executable
// ONE: func.func @units(
func.func @units(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %0 = stride.exp %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %1 = stride.neg %0 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %2 = stride.exp %1 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %3 = stride.tanh %2 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %4 = stride.abs %3 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %4 : !stride.tensor<4xf32>
}

// -----

// At most 16 units: 34 one-op kernels with unit-ops=1 make 16 units, each
// filled to its share of the ops left: 3, 3, then 2 each.
// CAP-LABEL: func.func @many(
// CAP: plan.dispatch @many_kernels_0::@neg_0(
// CAP-NEXT: plan.alloc
// CAP-NEXT: plan.dispatch @many_kernels_0::@neg_1(
// CAP-NEXT: plan.alloc
// CAP-NEXT: plan.dispatch @many_kernels_0::@neg_2(
// CAP-NEXT: plan.alloc
// CAP-NEXT: plan.dispatch @many_kernels_1::@neg_3(
// CAP: plan.dispatch @many_kernels_1::@neg_5(
// CAP-NEXT: plan.alloc
// CAP-NEXT: plan.dispatch @many_kernels_2::@neg_6(
// CAP-NEXT: plan.alloc
// CAP-NEXT: plan.dispatch @many_kernels_2::@neg_7(
// CAP-NEXT: plan.alloc
// CAP-NEXT: plan.dispatch @many_kernels_3::@neg_8(
// CAP: plan.dispatch @many_kernels_15::@neg_33(
// CAP-NOT: many_kernels_16
// ONE-LABEL: plan.executable @many_kernels {
func.func @many(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %0 = stride.neg %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %1 = stride.neg %0 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %2 = stride.neg %1 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %3 = stride.neg %2 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %4 = stride.neg %3 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %5 = stride.neg %4 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %6 = stride.neg %5 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %7 = stride.neg %6 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %8 = stride.neg %7 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %9 = stride.neg %8 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %10 = stride.neg %9 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %11 = stride.neg %10 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %12 = stride.neg %11 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %13 = stride.neg %12 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %14 = stride.neg %13 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %15 = stride.neg %14 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %16 = stride.neg %15 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %17 = stride.neg %16 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %18 = stride.neg %17 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %19 = stride.neg %18 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %20 = stride.neg %19 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %21 = stride.neg %20 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %22 = stride.neg %21 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %23 = stride.neg %22 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %24 = stride.neg %23 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %25 = stride.neg %24 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %26 = stride.neg %25 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %27 = stride.neg %26 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %28 = stride.neg %27 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %29 = stride.neg %28 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %30 = stride.neg %29 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %31 = stride.neg %30 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %32 = stride.neg %31 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %33 = stride.neg %32 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %33 : !stride.tensor<4xf32>
}
