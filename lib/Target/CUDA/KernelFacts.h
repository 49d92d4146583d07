//===- KernelFacts.h - What the CUDA backend reads off a kernel -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The facts about one stride.kernel that the scheduler and the printers
// share: its form (from the kernel contract, the only source of it), its
// yielded values and iteration space, its reductions or index scatter, and
// the element types the backend supports. Private to lib/Target/CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_TARGET_CUDA_KERNELFACTS_H
#define STRIDE_LIB_TARGET_CUDA_KERNELFACTS_H

#include "dialects/plan/Transforms/Passes.h"
#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Module/Module.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace stride {

int64_t product(llvm::ArrayRef<int64_t> dims);
int64_t ceilDiv(int64_t a, int64_t b);

/// Whether every row of a tiled transpose's tile, read through `type`
/// along dim `t` of the iteration space `shape`, starts at a multiple of 4
/// elements: the size along t, the offset and every other stride (of a dim
/// of size > 1) are multiples of 4. Otherwise each row's 4-element loads
/// start at its own first multiple of 4 (TiledTranspose.cpp).
bool tileRowsAligned(StridedTensorType type, llvm::ArrayRef<int64_t> shape,
                     int64_t t);

/// The length of each of `slices` slices of a range of `length` (the
/// skinny product's `K`, the split-KV attention's keys), a multiple of
/// `multiple` (the skinny product's vector width, so that every slice's
/// loads stay aligned; the attention's keys per warp step, so that every
/// step of a warp is whole), the last slice the rest.
int64_t sliceLength(int64_t length, int64_t slices, int64_t multiple);

/// The split-KV attention's keys per warp step: a key a lane.
inline constexpr int64_t kSplitKvStepKeys = 32;

/// The kernels' marks of what they read before their wait
/// (plan::kReadOnlyInputsAttrName, plan::kPreloadAttrName) are the plan
/// dialect's: stride-place-constants carries them over.
using plan::kPreloadAttrName;
using plan::kReadOnlyInputsAttrName;

/// How a reduction combines; ArgMax and ArgMin accumulate (value, index)
/// pairs packed into one 64-bit key (CudaText.h, accumulatorType).
enum class ReduceKind { Sum, Mean, Prod, Max, Min, Any, ArgMax, ArgMin };

/// Whether `kind` is argmax's or argmin's.
inline bool isArgKind(ReduceKind kind) {
  return kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin;
}

struct ReductionInfo {
  mlir::Operation *op;
  ReduceKind kind;
  mlir::Value input;
  /// The result's element type (i64 for argmax and argmin).
  DType dtype;
  llvm::SmallVector<int64_t> dims; // sorted
  bool keepdim;
  /// The accumulator's name in the printed kernel.
  std::string acc;
};

struct KernelFacts {
  KernelForm form = KernelForm::Pointwise;
  llvm::SmallVector<mlir::Value> yields;
  llvm::SmallVector<int64_t> iterationShape;
  /// Over symbolic sizes (python-free-docs/symbolic-sizes.md): the
  /// iteration space as expressions of the symbols (its kDynamic entries
  /// in `iterationShape`), and the symbols the kernel's types name, by
  /// name: its trailing `long long` size parameters. Empty for a static
  /// kernel.
  SizeExprs symbolicShape;
  std::vector<std::string> sizeParameters;
  /// Forms (b) and (d): in program order.
  llvm::SmallVector<ReductionInfo> reductions;
  /// Form (d): the ops computed once per row (KernelClass::rowOps).
  llvm::SmallVector<mlir::Operation *> rowOps;
  /// Form (d): the positions among `yields` of the values stored once per
  /// row (KernelClass::rowResults); the others are stored per element.
  llvm::SmallVector<unsigned> rowResults;
  /// Form (c): the scatter, scatter_add or index_add, or the sibling
  /// scatters, in the order of the results they yield
  /// (KernelClass::scatters).
  llvm::SmallVector<IndexScatterOpInterface> scatters;
  /// Form (e): the cumsum.
  CumsumOp scanRoot;
  /// Form (f): the attention op.
  AttentionOp attentionRoot;
  /// Form (g): the skinny product, the ops that compute its lhs
  /// (KernelClass::prologueOps; empty where it reads a kernel input) and
  /// those that read its result (KernelClass::productEpilogue; empty where
  /// the kernel yields the product).
  MatmulOp productRoot;
  llvm::SmallVector<mlir::Operation *> productPrologue;
  /// Form (g): the positions among `yields` of the prologue's values the
  /// kernel yields beside the product (KernelClass::prologueResults).
  llvm::SmallVector<unsigned> prologueResults;
  SkinnyEpilogue productEpilogue;

  bool isRowForm() const { return form == KernelForm::BroadcastReduction; }
  bool isSymbolic() const { return !sizeParameters.empty(); }
  /// The iteration space as expressions: `symbolicShape` over symbolic
  /// sizes, the constants of `iterationShape` otherwise.
  SizeExprs iterationSizes() const;
  /// Forms (b) and (d): the rows of the first reduction (its kept dims of
  /// the iteration space, or its outputs) and the length of a row (its
  /// reduced elements), each as one expression.
  SizeExpr rowCount() const;
  SizeExpr rowLength() const;
};

/// The product of `sizes` (a valid type's sizes do not overflow).
SizeExpr productOf(llvm::ArrayRef<SizeExpr> sizes);
/// Static sizes as constant expressions.
SizeExprs constantSizes(llvm::ArrayRef<int64_t> sizes);

/// The symbols `kernel`'s argument and result types and its body's types
/// name, sorted by name: the kernel's size parameters, which the plan
/// passes in this order after its other arguments.
std::vector<std::string> kernelSizeParameters(KernelOp kernel);

/// Reads the facts of `kernel`: classifies it by the kernel contract and
/// checks the backend's own limits (element types it can compute in).
/// Errors are reported at the offending op, prefixed with "cannot emit CUDA
/// for kernel '<name>': ".
mlir::FailureOr<KernelFacts> readKernelFacts(KernelOp kernel,
                                             llvm::StringRef name);

/// Form (d), scheme row_shared: the values a row held in shared memory
/// keeps between its phases. Phase i < the reductions' count evaluates
/// reduction i's input over the row, the last phase the yields. A value is
/// held where the phase that first evaluates it at the row element's own
/// coordinates (a kernel argument read directly, or an elementwise op's
/// result, reached from the phase's root through elementwise ops) is
/// followed by one that evaluates it again there, unless it is an op of an
/// instruction or two (x - mean), which the later phase computes again
/// from its operands instead; the first stores it at the end of its loop
/// body, the later ones up to `lastPhase` read it back.
/// Values of the same element size whose phases do not overlap share a
/// buffer (a buffer whose last reader is the phase that stores the next
/// value: that phase's threads each read their elements before they store
/// over them, so no barrier is needed; values of other sizes take their
/// own buffers, as a store would reach other threads' elements).
struct RowSharedLayout {
  struct Held {
    mlir::Value value;
    unsigned firstPhase, lastPhase;
    /// Byte offset of its buffer in the block's dynamic shared memory
    /// (16-byte aligned), a row of its storage type.
    int64_t offset;
  };
  llvm::SmallVector<Held> values;
  /// The bytes of one row element of all the buffers, and of their rows.
  int64_t elementBytes = 0, bytes = 0;
  const Held *find(mlir::Value value) const;
};
RowSharedLayout rowSharedLayout(const KernelFacts &facts, int64_t rowLength);

/// The diagnostic prefix of the backend's errors about `kernel`.
mlir::InFlightDiagnostic backendError(mlir::Operation *op,
                                      llvm::StringRef kernelName);

/// True when some extent, element count or storage extent of a value of the
/// kernel needs 64-bit index arithmetic.
bool needsWideIndices(KernelOp kernel);

} // namespace stride

#endif // STRIDE_LIB_TARGET_CUDA_KERNELFACTS_H
