//===- ConvolutionCalls.cpp - Convolutions as cuDNN calls -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The descriptor of cudnn.convolution (python-free-docs/convolution.md,
// "The cuDNN step"): the kind of call (a convolution's fprop or dgrad, a
// weight gradient's wgrad), the forward convolution's x, w and y with
// their dims and strides, its parameters, and each tensor's element offset
// in its buffer.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionCalls.h"
#include "CallFields.h"

#include "stride/Support/DType.h"

#include "mlir/IR/Location.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace stride::plan {

namespace {

/// The convolution's name for messages: the importer's node name, else
/// "file:line:col", else the location as MLIR prints it.
std::string nameOf(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto named = dyn_cast<NameLoc>(inner))
        return named.getName().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

/// The forward convolution's x, w and y: the op's input, weight and
/// result, or (transposed) its result, weight and input.
struct ForwardTensors {
  Value x, w, y;
};

ForwardTensors forwardOf(ConvolutionOp op) {
  if (op.getTransposed())
    return {op.getResult(), op.getWeight(), op.getInput()};
  return {op.getInput(), op.getWeight(), op.getResult()};
}

void addTensor(Fields &f, StringRef name, Value tensor) {
  f.ints((name + "_dims").str(), callTensorType(tensor).getShape());
  f.strides((name + "_strides").str(), tensor);
}

} // namespace

CallTensors convolutionTensors(ConvolutionOp op) {
  if (op.getTransposed())
    return {op.getInput(), op.getWeight(), op.getResult()};
  CallTensors tensors{op.getInput(), op.getWeight()};
  if (Value bias = op.getBias())
    tensors.push_back(bias);
  if (Value residual = op.getResidual())
    tensors.push_back(residual);
  tensors.push_back(op.getResult());
  return tensors;
}

namespace {

/// The parameters of the forward convolution `y = conv(x, w)` a call runs
/// one of cuDNN's operations of.
struct ForwardParameters {
  ArrayRef<int64_t> stride, padding, dilation;
};

/// The fields every kind of call has: the kind, the dtype and name, the
/// forward's tensors and parameters, TF32, and the offsets of `tensors`
/// (the call's buffer order). The epilogue's flags are the caller's.
void addForward(Fields &f, Operation *op, StringRef kind,
                ForwardTensors forward, ForwardParameters parameters,
                bool allowTf32, const CallTensors &tensors) {
  f.text("kind", kind);
  Type element = callTensorType(forward.x).getElementType();
  std::optional<DType> dtype = dtypeOf(element);
  f.text("dtype", dtypeName(*dtype));
  f.text("name", nameOf(op->getLoc()));
  addTensor(f, "x", forward.x);
  addTensor(f, "w", forward.w);
  addTensor(f, "y", forward.y);
  f.ints("stride", parameters.stride);
  // A transposed convolution's output_padding (below the stride) adds x
  // rows that no window of the forward reaches: the same padding at both
  // ends gives the forward's y.
  f.ints("pre_padding", parameters.padding);
  f.ints("post_padding", parameters.padding);
  f.ints("dilation", parameters.dilation);
  f.flag("tf32", allowTf32 && element.isF32());
  SmallVector<int64_t> offsets;
  for (Value t : tensors)
    offsets.push_back(callTensorType(t).getOffset());
  f.ints("offsets", offsets);
}

} // namespace

DictionaryAttr convolutionDescriptor(ConvolutionOp op, bool allowTf32) {
  Fields f(op.getContext());
  addForward(f, op, op.getTransposed() ? "dgrad" : "fprop", forwardOf(op),
             {op.getStride(), op.getPadding(), op.getDilation()}, allowTf32,
             convolutionTensors(op));
  f.flag("bias", bool(op.getBias()));
  // The epilogue, in cuDNN's graph after the bias: the residual (y's dims
  // and strides) added, then the relu.
  f.flag("residual", bool(op.getResidual()));
  f.flag("relu", op.getRelu());
  return f.get();
}

CallTensors weightGradientTensors(ConvolutionWeightGradientOp op) {
  return {op.getInput(), op.getGradOutput(), op.getResult()};
}

DictionaryAttr weightGradientDescriptor(ConvolutionWeightGradientOp op,
                                        bool allowTf32) {
  Fields f(op.getContext());
  ForwardTensors forward{op.getInput(), op.getResult(), op.getGradOutput()};
  addForward(f, op, "wgrad", forward,
             {op.getStride(), op.getPadding(), op.getDilation()}, allowTf32,
             weightGradientTensors(op));
  f.flag("bias", false);
  f.flag("residual", false);
  f.flag("relu", false);
  return f.get();
}

} // namespace stride::plan
