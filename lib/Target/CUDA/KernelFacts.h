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

#include "stride/Dialect/Stride/Analysis/KernelContract.h"
#include "stride/Dialect/Stride/IR/StrideOps.h"
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

enum class ReduceKind { Sum, Mean, Prod, Max, Min, Any };

struct ReductionInfo {
  mlir::Operation *op;
  ReduceKind kind;
  mlir::Value input;
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
  /// Forms (b) and (d): in program order.
  llvm::SmallVector<ReductionInfo> reductions;
  /// Form (d): the ops computed once per row (KernelClass::rowOps).
  llvm::SmallVector<mlir::Operation *> rowOps;
  /// Form (c): the scatter, scatter_add or index_add.
  mlir::Operation *scatterRoot = nullptr;
  /// Form (e): the cumsum.
  CumsumOp scanRoot;

  bool isRowForm() const { return form == KernelForm::BroadcastReduction; }
};

/// Reads the facts of `kernel`: classifies it by the kernel contract and
/// checks the backend's own limits (element types it can compute in).
/// Errors are reported at the offending op, prefixed with "cannot emit CUDA
/// for kernel '<name>': ".
mlir::FailureOr<KernelFacts> readKernelFacts(KernelOp kernel,
                                             llvm::StringRef name);

/// Form (d), scheme row_shared: the kernel's arguments with one value per
/// element of its iteration space (a row's own inputs, where a weight
/// broadcast over the rows has fewer), in argument order, each with the
/// byte offset of its row in the block's shared memory (16-byte aligned).
struct RowSharedLayout {
  struct Argument {
    unsigned arg;
    int64_t offset;
  };
  llvm::SmallVector<Argument> arguments;
  /// The bytes of one row element of all of them, and of their rows.
  int64_t elementBytes = 0, bytes = 0;
};
RowSharedLayout rowSharedLayout(KernelOp kernel,
                                llvm::ArrayRef<int64_t> iterationShape,
                                int64_t rowLength);

/// The diagnostic prefix of the backend's errors about `kernel`.
mlir::InFlightDiagnostic backendError(mlir::Operation *op,
                                      llvm::StringRef kernelName);

/// True when some extent, element count or storage extent of a value of the
/// kernel needs 64-bit index arithmetic.
bool needsWideIndices(KernelOp kernel);

} // namespace stride

#endif // STRIDE_LIB_TARGET_CUDA_KERNELFACTS_H
