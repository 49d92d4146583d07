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
#include "llvm/ADT/SmallPtrSet.h"

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

/// Channels-last where `type` is packed so (and not also row-major: a
/// tensor with one channel or position is both), else row-major.
SmallVector<int64_t> packedOrderOf(StridedTensorType type) {
  int64_t rank = type.getRank();
  if (!isPackedIn(type, channelsFirst(rank)) &&
      isPackedIn(type, channelsLast(rank)))
    return channelsLast(rank);
  return channelsFirst(rank);
}

/// The stride order of `op`'s tensors: its result's (cuDNN's engines read
/// and write one order; stride-convolution-layout chose the result's).
SmallVector<int64_t> strideOrderOf(ConvolutionOp op) {
  return packedOrderOf(op.getResult().getType());
}

/// The stride order of a weight gradient's tensors: channels-last for f16
/// and bf16 over 2-D and 3-D images (cuDNN's tensor-core engines read
/// NHWC, the order stride-convolution-layout gives the forward's and the
/// data gradient's results), else the order its input is packed in. Its
/// result, the weight's gradient, is small: a copy into the graph's
/// layout after the call costs little.
SmallVector<int64_t> strideOrderOf(ConvolutionWeightGradientOp op) {
  StridedTensorType input = op.getInput().getType();
  Type element = input.getElementType();
  if ((element.isF16() || element.isBF16()) && input.getRank() >= 4)
    return channelsLast(input.getRank());
  return packedOrderOf(input);
}

/// What cuDNN does not take in an op of `element` over `tensors`, or "".
std::string cudnnRefusal(Type element, ArrayRef<Value> tensors) {
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return "its element type is not f16, bf16 or f32";
  for (Value v : tensors)
    if (llvm::is_contained(typeOf(v).getShape(), 0))
      return "a tensor has no element";
  return "";
}

/// What cuDNN does not take in `op`, or "" when it takes it.
std::string cudnnRefusal(ConvolutionOp op) {
  std::string refusal =
      cudnnRefusal(op.getInput().getType().getElementType(),
                   {op.getInput(), op.getWeight(), op.getResult()});
  if (!refusal.empty())
    return refusal;
  if (std::optional<ArrayRef<int64_t>> outputPadding = op.getOutputPadding())
    for (auto [pad, stride] : llvm::zip(*outputPadding, op.getStride()))
      if (pad >= stride)
        return "an output_padding is not below its stride (cuDNN's data "
               "gradient gives only the rows the stride reaches)";
  return "";
}

/// What cuDNN does not take in the weight gradient `op`, or "".
std::string cudnnRefusal(ConvolutionWeightGradientOp op) {
  return cudnnRefusal(op.getInput().getType().getElementType(),
                      {op.getInput(), op.getGradOutput(), op.getResult()});
}

/// cuDNN's runtime-fusion engines read channels in vectors of 16 bytes.
constexpr int64_t kFusedChannelBytes = 16;

/// Whether `op` is a forward convolution of one group in f16 or bf16: what
/// both cuDNN's runtime-fusion engines and the cuBLASLt product take.
bool isOneGroupHalfForward(ConvolutionOp op) {
  Type element = op.getResult().getType().getElementType();
  return !op.getTransposed() && op.getGroups() == 1 &&
         (element.isF16() || element.isBF16());
}

/// Whether `op` is one matrix product as it stands, which the
/// decomposition hands to cuBLASLt: a pointwise (every kernel dim 1)
/// convolution of stride 1, no padding and one group, in f16 or bf16,
/// whose input and result are packed channels-last, so that the input is
/// the matrix [N * P, C] and the result [N * P, C_out] with no copy. Its
/// bias and ReLU then run in cuBLASLt's epilogue; cuDNN's engines took
/// 0.057 ms for ResNet-50's [64, 64, 56, 56] -> 256-channel one with a
/// bias, and 0.175 ms with the residual and ReLU too, where cuBLASLt and a
/// pointwise kernel take less (bench/NOTES.md section 66).
bool runsAsOneProduct(ConvolutionOp op) {
  StridedTensorType input = op.getInput().getType();
  StridedTensorType result = op.getResult().getType();
  if (input.isSymbolic() || result.isSymbolic())
    return false;
  ConvolutionGeometry g = op.getGeometry();
  auto ones = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v == 1; });
  };
  auto zeros = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v == 0; });
  };
  int64_t rank = result.getRank();
  return isOneGroupHalfForward(op) &&
         ones(ArrayRef<int64_t>(g.weight).drop_front(2)) && ones(g.stride) &&
         zeros(g.padding) && rank >= 4 &&
         cudnnReadsInPlace(input, channelsLast(rank)) &&
         cudnnReadsInPlace(result, channelsLast(rank)) &&
         !isPackedIn(result, channelsFirst(rank));
}

/// Whether the bias is added in cuDNN's graph: after a forward convolution
/// of one group in f16 or bf16 whose result is channels-last and whose
/// input and output channels fill cuDNN's vectors (its runtime-fusion
/// engines); elsewhere (ResNet's 3-channel stem among them) cuDNN has no
/// engine for the graph, and a `stride.add` after the call adds it (fused
/// into the next kernel).
bool cudnnAddsBias(ConvolutionOp op) {
  StridedTensorType result = op.getResult().getType();
  int64_t lanes = kFusedChannelBytes / 2; // f16, bf16
  return isOneGroupHalfForward(op) &&
         op.getInput().getType().getShape()[1] % lanes == 0 &&
         result.getShape()[1] % lanes == 0 &&
         isPackedIn(result, channelsLast(result.getRank()));
}

/// The only reader of `op`'s result if it is an `OpTy` whose result has
/// the op's result type (an epilogue cuDNN would write in place of it).
template <typename OpTy>
OpTy soleReaderOfType(ConvolutionOp op) {
  Value result = op.getResult();
  if (!result.hasOneUse())
    return {};
  auto reader = dyn_cast<OpTy>(*result.getUsers().begin());
  if (!reader || reader->getResult(0).getType() != result.getType())
    return {};
  return reader;
}

/// Whether `value` is available where `op` runs: an argument, or defined
/// before it in its block.
bool definedBefore(Value value, Operation *op) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return value.getParentBlock() == op->getBlock();
  return def->getBlock() == op->getBlock() && def->isBeforeInBlock(op);
}

/// Whether cuDNN reads `residual` as `op`'s: with the result's type (y's
/// dims and strides), from an aligned offset, available before the op.
bool cudnnReadsResidual(ConvolutionOp op, Value residual) {
  StridedTensorType type = op.getResult().getType();
  return residual != op.getResult() && typeOf(residual) == type &&
         cudnnReadsInPlace(type, channelsLast(type.getRank())) &&
         cudnnReadsInPlace(typeOf(residual), channelsLast(type.getRank())) &&
         definedBefore(residual, op);
}

/// Folds `add(result, residual)` (either order) into `op` where cuDNN reads
/// the residual. A residual computed after the op (ResNet's downsampling
/// branch, which the graph computes after the block's last convolution)
/// is made available by moving the op down to the add: it is pure, and
/// the add is its only reader.
void foldResidual(ConvolutionOp op) {
  AddOp add = soleReaderOfType<AddOp>(op);
  if (!add)
    return;
  Value residual = add.getLhs() == op.getResult() ? add.getRhs() : add.getLhs();
  if (add->getBlock() == op->getBlock() && !definedBefore(residual, op) &&
      definedBefore(residual, add))
    op->moveBefore(add);
  if (!cudnnReadsResidual(op, residual))
    return;
  op.getResidualMutable().assign(residual);
  add.getResult().replaceAllUsesWith(op.getResult());
  add.erase();
}

/// Folds `relu(result)` into `op`.
void foldRelu(ConvolutionOp op) {
  ReluOp relu = soleReaderOfType<ReluOp>(op);
  if (!relu)
    return;
  op.setRelu(true);
  relu.getResult().replaceAllUsesWith(op.getResult());
  relu.erase();
}

/// The op's residual and relu as a `stride.add` and a `stride.relu` after
/// it (an epilogue written in the graph that cuDNN does not take here).
void splitEpilogue(ConvolutionOp op) {
  Value residual = op.getResidual();
  bool relu = op.getRelu();
  if (!residual && !relu)
    return;
  op.getResidualMutable().clear();
  op.setRelu(false);
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  StridedTensorType type = op.getResult().getType();
  SmallPtrSet<Operation *, 2> epilogue;
  Value y = op.getResult();
  if (residual) {
    y = AddOp::create(b, op.getLoc(), type, y, residual);
    epilogue.insert(y.getDefiningOp());
  }
  if (relu) {
    y = ReluOp::create(b, op.getLoc(), type, y);
    epilogue.insert(y.getDefiningOp());
  }
  op.getResult().replaceAllUsesExcept(y, epilogue);
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

/// The copies into cuDNN's layouts made so far in a function: a second op
/// that reads the same value in the same layout (a backward graph's data
/// and weight gradients read one output gradient) reads the first copy
/// instead of making its own.
class CudnnCopies {
public:
  /// `value` packed in `order` (outermost first): a copy made before `op`,
  /// or one made already before it.
  Value into(Operation *op, Value value, ArrayRef<int64_t> order) {
    StridedTensorType type = packedIn(typeOf(value), order);
    Value &copy = made[{value, type}];
    if (copy && definedBefore(copy, op))
      return copy;
    OpsBefore ops(op, type.getElementType());
    // Over symbolic sizes a plain copy (views there take symbolic layouts).
    bool rowMajor = order == ArrayRef<int64_t>(channelsFirst(order.size()));
    copy = rowMajor || typeOf(value).isSymbolic()
               ? ops.into(value, type)
               : transposedCopy(ops, value, order);
    return copy;
  }

private:
  /// The copy of `value` into `order` as a row-major copy of its view in
  /// that order, viewed back: the copy's kernel then iterates in the order
  /// it writes, so its reads, not its writes, are the strided side, which
  /// the tiled transpose stages through shared memory (a thread an
  /// element writing channels-last wrote 512 bytes from its neighbour:
  /// 4.3 ms of ResNet-50's training backward, bench/NOTES.md section 65).
  static Value transposedCopy(OpsBefore &ops, Value value,
                              ArrayRef<int64_t> order) {
    Value inOrder = ops.permute(value, order);
    Value packed = ops.into(
        inOrder, denseOf(typeOf(inOrder), typeOf(inOrder).getElementType()));
    return ops.permute(packed, inversePermutation(order));
  }

  DenseMap<std::pair<Value, Type>, Value> made;
};

/// `operand` of `op` as cuDNN reads it in place in `order`: itself, or a
/// copy packed in that order.
void readInPlace(Operation *op, OpOperand &operand, ArrayRef<int64_t> order,
                 CudnnCopies &copies) {
  StridedTensorType type = typeOf(operand.get());
  if (!cudnnReadsInPlace(type, order))
    operand.set(copies.into(op, operand.get(), order));
}

/// `result` as cuDNN writes it in place in `order`: its own layout, or one
/// packed in that order and a copy after the op into its own.
void writeInPlace(OpResult result, ArrayRef<int64_t> order) {
  if (!cudnnReadsInPlace(typeOf(result), order))
    writeResultAs(result, packedIn(typeOf(result), order));
}

void markKept(Operation *op) {
  op->setAttr(StrideDialect::kKeepFusedAttrName, UnitAttr::get(op->getContext()));
}

/// Gives `op` operands and a result in one stride order that cuDNN reads
/// and writes in place (copies in that order where they are not), its
/// bias and (with `epilogues`) its residual and relu where cuDNN takes
/// them, and marks it for the plan.
void prepare(ConvolutionOp op, bool epilogues, CudnnCopies &copies) {
  SmallVector<int64_t> order = strideOrderOf(op);
  OpsBefore ops(op, op.getInput().getType().getElementType());
  for (OpOperand *operand : {&op.getInputMutable(), &op.getWeightMutable()})
    readInPlace(op, *operand, order, copies);
  if (Value bias = op.getBias()) {
    if (!cudnnAddsBias(op))
      splitBias(op);
    else if (!cudnnReadsInPlace(typeOf(bias), {0}))
      op.getBiasMutable().assign(ops.into(bias, packedIn(typeOf(bias), {0})));
  }
  // The runtime-fusion engines that add the bias take the residual and
  // relu too; a result written through a copy (below) has no epilogue.
  bool fusesEpilogue = epilogues && cudnnAddsBias(op) &&
                       cudnnReadsInPlace(typeOf(op.getResult()), order);
  if (!fusesEpilogue ||
      (op.getResidual() && !cudnnReadsResidual(op, op.getResidual())))
    splitEpilogue(op);
  else if (!op.getRelu()) {
    if (!op.getResidual())
      foldResidual(op);
    foldRelu(op);
  }
  writeInPlace(cast<OpResult>(op.getResult()), order);
  markKept(op);
}

/// Gives the weight gradient `op` its input, output gradient and result in
/// one stride order that cuDNN's wgrad reads and writes in place (copies
/// where they are not), and marks it for the plan.
void prepare(ConvolutionWeightGradientOp op, CudnnCopies &copies) {
  SmallVector<int64_t> order = strideOrderOf(op);
  for (OpOperand *operand :
       {&op.getInputMutable(), &op.getGradOutputMutable()})
    readInPlace(op, *operand, order, copies);
  writeInPlace(cast<OpResult>(op.getResult()), order);
  markKept(op);
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
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<ConvolutionOp, ConvolutionWeightGradientOp>(op))
        ops.push_back(op);
    });
    CudnnCopies copies;
    for (Operation *op : ops)
      if (failed(keepOrLeave(op, copies)))
        return signalPassFailure();
  }

  /// Prepares `op` for its cuDNN call where cuDNN takes it; leaves it to
  /// the decomposition otherwise (an error with `library`).
  LogicalResult keepOrLeave(Operation *op, CudnnCopies &copies) {
    auto convolution = dyn_cast<ConvolutionOp>(op);
    auto weightGradient = dyn_cast<ConvolutionWeightGradientOp>(op);
    std::string refusal =
        convolution ? cudnnRefusal(convolution) : cudnnRefusal(weightGradient);
    if (convolutions == "auto" && convolution && runsAsOneProduct(convolution))
      return success();
    if (refusal.empty()) {
      if (convolution)
        prepare(convolution, epilogues, copies);
      else
        prepare(weightGradient, copies);
      return success();
    }
    if (convolutions != "library")
      return success();
    return op->emitOpError() << "cannot run as a cuDNN call: " << refusal
                             << " (convolutions=library; auto decomposes it)";
  }
};

} // namespace
