// The cost model's bounds (python-free-docs/fusion.md, rule 11): an op that would take a
// kernel past max-kernel-ops functional ops, or past max-kernel-registers
// estimated registers per thread, roots a kernel of its own.
// RUN: stride-opt --stride-fuse=max-kernel-ops=2 -split-input-file %s | FileCheck %s --check-prefix=OPS
// RUN: stride-opt --stride-fuse=max-kernel-ops=0 -split-input-file %s | FileCheck %s --check-prefix=UNBOUNDED
// Softmax over rows of 1,024: at most 2 values live per element, 32
// elements per lane, 2 reductions: 66 registers estimated.
// RUN: stride-opt --stride-fuse=max-kernel-registers=66 %stride_src/bench/softmax.mlir | FileCheck %s --check-prefix=REGS66
// RUN: stride-opt --stride-fuse=max-kernel-registers=65 %stride_src/bench/softmax.mlir | FileCheck %s --check-prefix=REGS65
// RUN: stride-opt --stride-fuse=max-kernel-registers=64 %stride_src/bench/softmax.mlir | FileCheck %s --check-prefix=REGS64
// Softmax over rows of 64 (@rows64 below): 16 lanes hold a row, a group of
// 4 elements each (RowSplit.h, groupRowInFours, as the schedule will hold
// it), so 2 values live x 4 elements + 2 reductions: 10 registers.
// RUN: stride-opt --stride-fuse=max-kernel-registers=10 -split-input-file %s | FileCheck %s --check-prefix=ROWS64-10
// RUN: stride-opt --stride-fuse=max-kernel-registers=9 -split-input-file %s | FileCheck %s --check-prefix=ROWS64-9

// A chain of five ops, two per kernel: visited from the last op, the first
// op is left alone; each kernel reads the one before it.
// OPS-LABEL: func.func @chain
// OPS:      %[[A:.*]] = stride.kernel "add_kernel" ins(%arg0 :
// OPS:      %[[B:.*]] = stride.kernel "mul_tanh" ins(%[[A]], %arg1 :
// OPS:      %[[C:.*]] = stride.kernel "add_mul" ins(%[[B]], %arg0, %arg1 :
// OPS:      return %[[C]]
// UNBOUNDED-LABEL: func.func @chain
// UNBOUNDED:      stride.kernel "add_mul_tanh_add_mul" ins(%arg0, %arg1 :
// UNBOUNDED-NOT:  stride.kernel
// UNBOUNDED:      return
func.func @chain(%x: !stride.tensor<8x8xf32>, %y: !stride.tensor<8x8xf32>) -> !stride.tensor<8x8xf32> {
  %0 = stride.add %x, %x : !stride.tensor<8x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<8x8xf32>
  %1 = stride.mul %0, %y : !stride.tensor<8x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<8x8xf32>
  %2 = stride.tanh %1 : !stride.tensor<8x8xf32> -> !stride.tensor<8x8xf32>
  %3 = stride.add %2, %x : !stride.tensor<8x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<8x8xf32>
  %4 = stride.mul %3, %y : !stride.tensor<8x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<8x8xf32>
  return %4 : !stride.tensor<8x8xf32>
}

// -----

// A reduction that does not fit its epilogue's kernel roots a kernel of its
// own, with its prologue; the epilogue's kernel reads its result.
// OPS-LABEL: func.func @reduction
// OPS:      %[[S:.*]] = stride.kernel "exp_sum" ins(%arg0 :
// OPS:      stride.kernel "add_mul" ins(%[[S]], %arg1 :
// UNBOUNDED-LABEL: func.func @reduction
// UNBOUNDED:      stride.kernel "exp_sum_add_mul" ins(%arg0, %arg1 :
func.func @reduction(%x: !stride.tensor<4x8xf32>, %b: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s = stride.sum %e dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %a = stride.add %s, %b : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %m = stride.mul %a, %b : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %m : !stride.tensor<4xf32>
}

// REGS66:     stride.kernel "max_sub_exp_sum_div"
// REGS66-NOT: stride.kernel
// The sub's kernel would hold x - max and exp(x - max) at once with the
// sum's: the exp, the sum and the division share a kernel that reads the
// materialized x - max (2 x 32 + 1 = 65).
// REGS65:      %[[D:.*]] = stride.kernel "max_sub" ins(%arg0 :
// REGS65:      stride.kernel "exp_sum_div" ins(%[[D]] :
// REGS65-NOT:  stride.kernel
// REGS64:      stride.kernel "max_kernel"
// REGS64:      stride.kernel "sub_exp"
// REGS64:      stride.kernel "sum_kernel"
// REGS64:      stride.kernel "div_kernel"

// -----

// ROWS64-10-LABEL: func.func @rows64
// ROWS64-10:       stride.kernel "max_sub_exp_sum_div"
// ROWS64-10-NOT:   stride.kernel
// ROWS64-9-LABEL:  func.func @rows64
// ROWS64-9:        stride.kernel "max_sub"
// ROWS64-9:        stride.kernel "exp_sum_div"
func.func @rows64(%x: !stride.tensor<512x64xf32>) -> !stride.tensor<512x64xf32> {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<512x64xf32> -> !stride.tensor<512x1xf32>
  %mb = stride.expand %m : !stride.tensor<512x1xf32> -> !stride.tensor<512x64xf32, strides = [1, 0]>
  %d = stride.sub %x, %mb : !stride.tensor<512x64xf32>, !stride.tensor<512x64xf32, strides = [1, 0]> -> !stride.tensor<512x64xf32>
  %e = stride.exp %d : !stride.tensor<512x64xf32> -> !stride.tensor<512x64xf32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<512x64xf32> -> !stride.tensor<512x1xf32>
  %sb = stride.expand %s : !stride.tensor<512x1xf32> -> !stride.tensor<512x64xf32, strides = [1, 0]>
  %y = stride.div %e, %sb : !stride.tensor<512x64xf32>, !stride.tensor<512x64xf32, strides = [1, 0]> -> !stride.tensor<512x64xf32>
  return %y : !stride.tensor<512x64xf32>
}
