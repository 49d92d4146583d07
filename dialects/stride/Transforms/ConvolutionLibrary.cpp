//===- ConvolutionLibrary.cpp - The convolutions cuDNN runs ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-convolution-library: which convolutions run as one cuDNN call
// (the others are left to stride-decompose-convolution), and the operands
// and results of those in layouts cuDNN reads and writes (Passes.td says
// what each policy takes; python-free-docs/convolution.md, "The cuDNN
// step", why).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "OpsBefore.h"
#include "StrideOrders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace stride {
#define GEN_PASS_DEF_CONVOLUTIONLIBRARY
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The alignment, in bytes, of every address cuDNN reads.
constexpr int64_t kCudnnAlignment = 16;

/// Whether cuDNN reads or writes a tensor of `type` in place in the stride
/// order `order`: packed in it, from an aligned offset.
bool cudnnReadsInPlace(StridedTensorType type, ArrayRef<int64_t> order) {
  int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  return isPackedIn(type, order) &&
         type.getOffset() * bytes % kCudnnAlignment == 0;
}

/// The stride order of `op`'s tensors: channels-last where its result is
/// (and not also row-major: a tensor with one channel or position is
/// both), else row-major. cuDNN's engines read and write one order.
SmallVector<int64_t> strideOrderOf(ConvolutionOp op) {
  StridedTensorType result = op.getResult().getType();
  int64_t rank = result.getRank();
  if (!isPackedIn(result, channelsFirst(rank)) &&
      isPackedIn(result, channelsLast(rank)))
    return channelsLast(rank);
  return channelsFirst(rank);
}

/// What cuDNN does not take in `op`, or "" when it takes it.
std::string cudnnRefusal(ConvolutionOp op) {
  StridedTensorType input = op.getInput().getType();
  Type element = input.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return "its element type is not f16, bf16 or f32";
  for (Value v : {op.getInput(), op.getWeight(), op.getResult()})
    if (llvm::is_contained(typeOf(v).getShape(), 0))
      return "a tensor has no element";
  if (std::optional<ArrayRef<int64_t>> outputPadding = op.getOutputPadding())
    for (auto [pad, stride] : llvm::zip(*outputPadding, op.getStride()))
      if (pad >= stride)
        return "an output_padding is not below its stride (cuDNN's data "
               "gradient gives only the rows the stride reaches)";
  return "";
}

/// cuDNN's runtime-fusion engines read channels in vectors of 16 bytes.
constexpr int64_t kFusedChannelBytes = 16;

/// Whether the bias is added in cuDNN's graph: after a forward convolution
/// of one group in f16 or bf16 whose result is channels-last and whose
/// input and output channels fill cuDNN's vectors (its runtime-fusion
/// engines); elsewhere (ResNet's 3-channel stem among them) cuDNN has no
/// engine for the graph, and a `stride.add` after the call adds it (fused
/// into the next kernel).
bool cudnnAddsBias(ConvolutionOp op) {
  StridedTensorType result = op.getResult().getType();
  Type element = result.getElementType();
  int64_t lanes = kFusedChannelBytes / 2; // f16, bf16
  return !op.getTransposed() && (element.isF16() || element.isBF16()) &&
         op.getGroups() == 1 &&
         op.getInput().getType().getShape()[1] % lanes == 0 &&
         result.getShape()[1] % lanes == 0 &&
         isPackedIn(result, channelsLast(result.getRank()));
}

/// The op's bias as a `stride.add` of its broadcast after the op.
void splitBias(ConvolutionOp op) {
  Value bias = op.getBias();
  StridedTensorType result = op.getResult().getType();
  op.getBiasMutable().clear();
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  OpsBefore ops(b, op.getLoc(), result.getElementType());
  SmallVector<int64_t> shape(result.getRank(), 1);
  shape[1] = result.getShape()[1];
  Value column = ops.view(bias, shape);
  Value broadcast = ops.expand(column, result.getShape());
  Value sum = AddOp::create(b, op.getLoc(), result, op.getResult(), broadcast);
  op.getResult().replaceAllUsesExcept(sum, sum.getDefiningOp());
}

/// Gives `op` operands and a result in one stride order that cuDNN reads
/// and writes in place (copies in that order where they are not), its
/// bias where cuDNN takes it, and marks it for the plan.
void prepare(ConvolutionOp op) {
  SmallVector<int64_t> order = strideOrderOf(op);
  OpsBefore ops(op, op.getInput().getType().getElementType());
  for (OpOperand *operand : {&op.getInputMutable(), &op.getWeightMutable()}) {
    StridedTensorType type = typeOf(operand->get());
    if (!cudnnReadsInPlace(type, order))
      operand->set(ops.into(operand->get(), packedIn(type, order)));
  }
  if (Value bias = op.getBias()) {
    if (!cudnnAddsBias(op))
      splitBias(op);
    else if (!cudnnReadsInPlace(typeOf(bias), {0}))
      op.getBiasMutable().assign(ops.into(bias, packedIn(typeOf(bias), {0})));
  }
  OpResult result = cast<OpResult>(op.getResult());
  if (!cudnnReadsInPlace(typeOf(result), order))
    writeResultAs(result, packedIn(typeOf(result), order));
  op->setAttr(StrideDialect::kKeepFusedAttrName, UnitAttr::get(op->getContext()));
}

struct ConvolutionLibraryPass
    : stride::impl::ConvolutionLibraryBase<ConvolutionLibraryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (convolutions != "auto" && convolutions != "library" &&
        convolutions != "generated") {
      getOperation().emitError()
          << "stride-convolution-library: unknown convolutions policy '"
          << convolutions << "'; expected auto, library or generated";
      return signalPassFailure();
    }
    if (convolutions == "generated")
      return;
    SmallVector<ConvolutionOp> ops;
    getOperation().walk([&](ConvolutionOp op) { ops.push_back(op); });
    for (ConvolutionOp op : ops) {
      std::string refusal = cudnnRefusal(op);
      if (refusal.empty()) {
        prepare(op);
        continue;
      }
      if (convolutions == "library") {
        op.emitOpError() << "cannot run as a cuDNN call: " << refusal
                         << " (convolutions=library; auto decomposes it)";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
