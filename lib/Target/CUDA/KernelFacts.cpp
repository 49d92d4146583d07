//===- KernelFacts.cpp - What the CUDA backend reads off a kernel --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "KernelFacts.h"

#include "stride/Support/Layout.h"


#include <limits>

using namespace mlir;

namespace stride {

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool tileRowsAligned(StridedTensorType type, ArrayRef<int64_t> shape,
                     int64_t t) {
  if (shape[t] % 4 != 0 || type.getOffset() % 4 != 0)
    return false;
  for (auto [d, stride] : llvm::enumerate(type.getStrides()))
    if (static_cast<int64_t>(d) != t && shape[d] != 1 && stride % 4 != 0)
      return false;
  return true;
}

InFlightDiagnostic backendError(Operation *op, StringRef kernelName) {
  return op->emitError() << "cannot emit CUDA for kernel '" << kernelName
                         << "': ";
}

namespace {

ReduceKind reduceKindOf(ReductionOpInterface op) {
  switch (op.getCombiner()) {
  case ReductionCombiner::add:
    return op.isAverage() ? ReduceKind::Mean : ReduceKind::Sum;
  case ReductionCombiner::mul:
    return ReduceKind::Prod;
  case ReductionCombiner::max:
    return ReduceKind::Max;
  case ReductionCombiner::min:
    return ReduceKind::Min;
  case ReductionCombiner::logical_or:
    return ReduceKind::Any;
  }
  llvm_unreachable("unknown reduction combiner");
}

ReductionInfo reductionInfoOf(ReductionOpInterface op) {
  ReductionInfo info;
  info.op = op;
  info.kind = reduceKindOf(op);
  info.input = op.getInput();
  info.dtype = *dtypeOf(op->getResult(0).getType());
  info.dims = op.getReducedDims();
  info.keepdim = op.getKeepdim();
  return info;
}

/// The backend computes in the element types of DType only.
LogicalResult checkElementTypes(KernelOp kernel, StringRef name) {
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    for (Type t : op.getResultTypes())
      if (!dtypeOf(t))
        return backendError(&op, name) << "unsupported result type " << t;
  return success();
}

} // namespace

FailureOr<KernelFacts> readKernelFacts(KernelOp kernel, StringRef name) {
  // The kernel contract, with an error at the op that breaks it (the
  // pipeline's stride-verify-kernels has checked kernels it formed; this
  // also covers a function that did not come through it).
  FailureOr<KernelClass> kind = verifyKernel(kernel);
  if (failed(kind))
    return failure();
  if (failed(checkElementTypes(kernel, name)))
    return failure();
  KernelFacts facts;
  facts.form = kind->form;
  facts.iterationShape = kind->iterationShape;
  facts.rowOps = kind->rowOps;
  ValueRange yields = kernel.getYield().getValues();
  facts.yields.assign(yields.begin(), yields.end());
  for (Operation &op : kernel.getBodyBlock().without_terminator()) {
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      facts.reductions.push_back(reductionInfoOf(reduction));
    else if (isa<IndexScatterOpInterface>(op))
      facts.scatterRoot = &op;
    else if (auto scan = dyn_cast<CumsumOp>(op))
      facts.scanRoot = scan;
  }
  return facts;
}

/// Largest index any extent of the kernel may reach before 32-bit index
/// arithmetic is unsafe: leaves room for a grid-stride step (at most 2^24
/// threads) past the last element.
constexpr int64_t kMaxInt32Extent =
    std::numeric_limits<int32_t>::max() - (int64_t(1) << 24);

RowSharedLayout rowSharedLayout(KernelOp kernel,
                                ArrayRef<int64_t> iterationShape,
                                int64_t rowLength) {
  RowSharedLayout layout;
  int64_t elements = product(iterationShape);
  for (BlockArgument arg : kernel.getBodyBlock().getArguments()) {
    auto type = cast<StridedTensorType>(arg.getType());
    if (product(type.getShape()) != elements)
      continue;
    auto size = static_cast<int64_t>(dtypeSize(*dtypeOf(type)));
    layout.arguments.push_back({arg.getArgNumber(), layout.bytes});
    layout.elementBytes += size;
    layout.bytes += ceilDiv(rowLength * size, 16) * 16;
  }
  return layout;
}

bool needsWideIndices(KernelOp kernel) {
  int64_t largest = 0;
  auto consider = [&](Type t) {
    auto tensor = dyn_cast<StridedTensorType>(t);
    if (!tensor)
      return;
    Layout layout = tensor.getLayout();
    largest = std::max(largest,
                       checkedNumElements(layout.shape).value_or(INT64_MAX));
    largest = std::max(largest, storageExtent(layout).value_or(INT64_MAX));
    for (int64_t d : layout.shape)
      largest = std::max(largest, d);
  };
  for (Type t : kernel.getBodyBlock().getArgumentTypes())
    consider(t);
  for (Type t : kernel.getResultTypes())
    consider(t);
  kernel.getBodyBlock().walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      consider(t);
  });
  return largest > kMaxInt32Extent;
}

} // namespace stride
