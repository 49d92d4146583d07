//===- KernelContract.h - What a stride.kernel may hold ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one home of the kernel contract (docs/fusion.md, "Kernel contract"):
// the four shapes of kernel the fusion pass forms and the CUDA backend emits.
// The fusion pass decides with these predicates what may join a group, and
// `classifyKernel` checks a formed kernel against the same rules, so the pass
// and the backend cannot disagree about what a kernel means.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TRANSFORMS_KERNELCONTRACT_H
#define STRIDE_TRANSFORMS_KERNELCONTRACT_H

#include "stride/Dialect/Stride/IR/StrideOps.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace stride {

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

// Reductions and index scatters are the ops of ReductionOpInterface and
// IndexScatterOpInterface (StrideInterfaces.td).

/// slice_scatter, select_scatter: coordinate masks.
bool isMaskScatterOp(mlir::Operation *op);
/// Functional ops that compute each output element from operands read at
/// (possibly mapped) coordinates: elementwise ops, cast, clone, creation ops,
/// mask scatters, gather and index_select. Not reductions or index
/// scatters.
bool isPointwiseLikeOp(mlir::Operation *op);
/// full and iota: no operands and no memory reads, so fusion clones them
/// into every kernel that reads them.
bool isReplicableLeafOp(mlir::Operation *op);

/// True when `operand` is read at its user's own output coordinates: every
/// operand of an elementwise op, the `input` of a mask scatter and the
/// `index` of a gather.
bool isIdentityOperand(mlir::OpOperand &operand);

/// The value under a chain of views (the value itself when it is no view's
/// result), and the views from that base up to `value`, outermost last.
mlir::Value viewChainBase(mlir::Value value,
                          llvm::SmallVectorImpl<mlir::Operation *> *chain =
                              nullptr);

/// True when `value` is the result of `reduction` read through views that
/// broadcast it back over the reduction's input shape: element `c` of
/// `value` is element `c` (reduced dims dropped, or 0 with keepdim) of the
/// reduction's result. An empty chain qualifies when the shapes agree.
bool isBroadcastBackOf(mlir::Value value, ReductionOpInterface reduction);

/// True when `a` and `b` are reductions of one input shape over the same
/// dims: a broadcast-reduction kernel computes them row by row together.
bool reducesSameRows(mlir::Operation *a, mlir::Operation *b);

/// Membership of a candidate kernel (a fusion group, or a kernel body).
using InGroupFn = llvm::function_ref<bool(mlir::Operation *)>;

/// True when `op`'s result is computed over the kernel's output iteration
/// space: each use of it by an op of the group is an identity operand read
/// directly (no view between) by an op of the same shape that is itself in
/// that space. An op with no uses in the group is in it (it is an output).
bool isInOutputFrame(mlir::Operation *op, InGroupFn inGroup);

/// Checks that the ops of the group that depend on `reduction` (through
/// views) form a pointwise epilogue: each is elementwise and has the
/// reduction's result shape (`broadcast` false) or its input shape
/// (`broadcast` true); each reads dependent values directly, except that
/// with `broadcast` it reads the reduction's own result through views that
/// broadcast it back (isBroadcastBackOf). On failure, `why` says which op
/// broke which rule.
mlir::LogicalResult checkEpilogue(ReductionOpInterface reduction,
                                  InGroupFn inGroup,
                                  bool broadcast, std::string *why = nullptr);

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

enum class KernelForm {
  /// (a) An elementwise / mask scatter / gather / creation / clone root;
  /// iteration space = the yielded values' shape.
  Pointwise,
  /// (b) A reduction root, optionally followed by a pointwise epilogue of
  /// the reduced shape; iteration space = the reduction's result shape.
  Reduction,
  /// (c) A scatter / scatter_add / index_add root, the only yielded value.
  IndexScatter,
  /// (d) A reduction root whose result is broadcast back into a pointwise
  /// epilogue over the reduction's input shape (softmax's division); one
  /// yielded value of the input shape. Further reductions of the same rows
  /// may read it broadcast back (softmax's `sum` of `exp(x - max)`); the
  /// root is then the first of them.
  BroadcastReduction,
};

/// "pointwise", "reduction", "index-scatter", "broadcast-reduction".
llvm::StringRef stringifyKernelForm(KernelForm form);

struct KernelClass {
  KernelForm form = KernelForm::Pointwise;
  /// The reduction or index scatter; for Pointwise, the first yielded
  /// value's defining op (or null when that is a kernel argument).
  mlir::Operation *root = nullptr;
  /// The logical shape the kernel iterates over.
  llvm::SmallVector<int64_t> iterationShape;
};

/// Classifies `kernel` by the contract, or fails with the reason in `why`.
mlir::FailureOr<KernelClass> classifyKernel(KernelOp kernel,
                                            std::string *why = nullptr);

} // namespace stride

#endif // STRIDE_TRANSFORMS_KERNELCONTRACT_H
