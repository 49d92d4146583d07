//===- AttentionCalls.cpp - Attention ops as cuDNN library calls ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The descriptors of cudnn.sdpa_forward and cudnn.sdpa_backward
// (python-free-docs/attention.md, "The descriptor"): sizes, every tensor's
// strides and element offset in its buffer, the scale's bits, the causal
// flag and the bias's broadcast dims. Over symbolic sizes the sizes,
// strides and offsets are size expressions, which the runtime evaluates
// per shape (python-free-docs/symbolic-sizes.md).
//
//===----------------------------------------------------------------------===//

#include "AttentionCalls.h"
#include "CallFields.h"

#include "dialects/stride/IR/ShapeRules.h"
#include "stride/Support/DType.h"

#include "mlir/IR/Builders.h"

#include <bit>

using namespace mlir;

namespace stride::plan {

namespace {

/// The bias's dims as cuDNN reads them: 1 where the mask broadcasts (stride
/// 0), and strides where a broadcast dim's stride is that of a dense
/// tensor of those dims (cuDNN reads no element twice through a stride 0).
/// Over symbolic sizes, a dim that is not the constant 1 may exceed 1, and
/// the dense stride is the largest extent proven over the ranges.
void addBias(Fields &f, Value mask) {
  f.flag("bias", bool(mask));
  if (!mask)
    return;
  SymbolicLayout layout = callTensorType(mask).getSymbolicLayout();
  Operation *scope = mask.getParentBlock()->getParentOp();
  SizeExprs dims = layout.shape, strides = layout.strides;
  SizeExpr dense = SizeExpr::constant(1);
  for (int64_t d = 3; d >= 0; --d) {
    if (strides[d].getConstant() == 0 && dims[d].getConstant() != 1) {
      dims[d] = SizeExpr::constant(1);
      strides[d] = dense;
    }
    std::optional<SizeExpr> extent = strides[d].times(dims[d]);
    if (extent && provenAtMost(scope, dense, *extent))
      dense = *extent;
  }
  f.sizes("bias_dims", dims);
  f.sizes("bias_strides", strides);
}

/// What both directions share: dtype, dims, scale and causal flag.
template <typename OpTy> void addProblem(Fields &f, OpTy op) {
  SizeExprs q = op.getQuery().getType().getSymbolicLayout().shape,
            k = op.getKey().getType().getSymbolicLayout().shape,
            v = op.getValue().getType().getSymbolicLayout().shape;
  std::optional<DType> dtype =
      dtypeOf(op.getQuery().getType().getElementType());
  f.text("dtype", dtypeName(*dtype));
  f.sizes("dims", {q[0], q[1], k[1], q[2], k[2], q[3], v[3]});
  f.ints("scale", {std::bit_cast<int64_t>(op.getScale().convertToDouble())});
  f.flag("causal", op.getCausal());
}

/// Each tensor's element offset in its buffer, in buffer order; `extra`
/// zeros after them (the forward's statistics, dense from their start).
void addOffsets(Fields &f, ArrayRef<Value> tensors, int extra = 0) {
  SizeExprs offsets;
  for (Value t : tensors)
    offsets.push_back(callTensorType(t).getSymbolicLayout().offset);
  offsets.insert(offsets.end(), extra, SizeExpr::constant(0));
  f.sizes("offsets", offsets);
}

} // namespace

CallTensors sdpaForwardTensors(AttentionOp op) {
  CallTensors tensors{op.getQuery(), op.getKey(), op.getValue()};
  if (Value mask = op.getMask())
    tensors.push_back(mask);
  tensors.push_back(op.getResult());
  return tensors;
}

DictionaryAttr sdpaForwardDescriptor(AttentionOp op) {
  Fields f(op.getContext());
  addProblem(f, op);
  f.strides("q_strides", op.getQuery());
  f.strides("k_strides", op.getKey());
  f.strides("v_strides", op.getValue());
  f.strides("o_strides", op.getResult());
  f.flag("stats", true);
  addBias(f, op.getMask());
  addOffsets(f, sdpaForwardTensors(op), /*extra=*/1);
  return f.get();
}

CallTensors sdpaBackwardTensors(AttentionBackwardOp op) {
  CallTensors tensors{op.getQuery(),      op.getKey(),    op.getValue(),
                      op.getOutput(),     op.getGradOutput(),
                      op.getLogsumexp()};
  if (Value mask = op.getMask())
    tensors.push_back(mask);
  tensors.append({op.getGradQuery(), op.getGradKey(), op.getGradValue()});
  return tensors;
}

DictionaryAttr sdpaBackwardDescriptor(AttentionBackwardOp op) {
  Fields f(op.getContext());
  addProblem(f, op);
  f.strides("q_strides", op.getQuery());
  f.strides("k_strides", op.getKey());
  f.strides("v_strides", op.getValue());
  f.strides("o_strides", op.getOutput());
  f.strides("do_strides", op.getGradOutput());
  f.strides("dq_strides", op.getGradQuery());
  f.strides("dk_strides", op.getGradKey());
  f.strides("dv_strides", op.getGradValue());
  addBias(f, op.getMask());
  addOffsets(f, sdpaBackwardTensors(op));
  return f.get();
}

} // namespace stride::plan
