//===- ActivationOps.cpp - Activations built from other ops ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's activations and tests that core ATen keeps as ops of
// their own and Stride builds from its pointwise ops (issue 42): clamp and
// its variants (hardtanh, ReLU6's), leaky_relu, elu, hardsigmoid,
// hardswish, isnan, isinf and _log_softmax. Each keeps PyTorch's NaN
// semantics: stride.maximum and stride.minimum propagate NaN, as
// torch.clamp does, and a comparison with NaN is false.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include <limits>

using namespace mlir;

namespace stride::torch {
namespace {

/// The output's shape filled with `value` in `dtype` (a broadcast scalar).
Value splat(NodeImporter &n, double value, DType dtype) {
  return *n.broadcast(n.scalarTensor(value, dtype), n.outputShape());
}

/// `x` clamped below by `low` and above by `high` (either null: no bound).
Value clamped(NodeImporter &n, Value x, Value low, Value high) {
  StridedTensorType type = n.contiguous(n.outputShape(), n.outputDType());
  if (low)
    x = MaximumOp::create(n.b(), n.location(), type, x, low);
  if (high)
    x = MinimumOp::create(n.b(), n.location(), type, x, high);
  return x;
}

/// The op's input `self` in the output's dtype, over the output's shape.
FailureOr<Value> self(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  return n.conform(*x, n.outputDType(), n.outputShape());
}

/// A bound of clamp: the scalar or tensor argument `name`, or null for
/// None or absent.
FailureOr<Value> bound(NodeImporter &n, StringRef name) {
  if (!n.arg(name) || n.isNone(name))
    return Value();
  FailureOr<Value> b = n.tensorOrScalar(name, n.outputDType());
  if (failed(b))
    return failure();
  return n.conform(*b, n.outputDType(), n.outputShape());
}

/// clamp(self, min, max) (scalars or tensors, .default and .Tensor),
/// clamp_min(self, min), clamp_max(self, max).
LogicalResult clamp(NodeImporter &n) {
  FailureOr<Value> x = self(n);
  FailureOr<Value> low = succeeded(x) ? bound(n, "min") : Fail();
  FailureOr<Value> high = succeeded(low) ? bound(n, "max") : Fail();
  if (failed(high))
    return failure();
  if (!*low && !*high)
    return n.error() << "clamp needs min or max";
  n.setOutput(0, n.toType(clamped(n, *x, *low, *high), n.outputType()));
  return success();
}

/// hardtanh(self, min_val=-1, max_val=1): clamp (ReLU6 is hardtanh(0, 6)).
LogicalResult hardtanh(NodeImporter &n) {
  FailureOr<Value> x = self(n);
  FailureOr<double> low = succeeded(x) ? n.scalar("min_val", -1.0) : Fail();
  FailureOr<double> high = succeeded(low) ? n.scalar("max_val", 1.0) : Fail();
  if (failed(high))
    return failure();
  DType dtype = n.outputDType();
  n.setOutput(0, n.toType(clamped(n, *x, splat(n, *low, dtype),
                                  splat(n, *high, dtype)),
                          n.outputType()));
  return success();
}

/// where(x > 0, positive, negative), in the output's type.
Value byPositive(NodeImporter &n, Value x, Value positive, Value negative) {
  Value zero = splat(n, 0.0, n.outputDType());
  Value above = CmpOp::create(n.b(), n.location(),
                              n.contiguous(n.outputShape(), DType::I1),
                              CmpPredicate::gt, x, zero);
  return WhereOp::create(n.b(), n.location(), n.outputType(), above, positive,
                         negative);
}

/// leaky_relu(self, negative_slope=0.01): x where x > 0, else slope * x.
LogicalResult leakyRelu(NodeImporter &n) {
  FailureOr<Value> x = self(n);
  FailureOr<double> slope =
      succeeded(x) ? n.scalar("negative_slope", 0.01) : Fail();
  if (failed(slope))
    return failure();
  DType dtype = n.outputDType();
  Value scaled = MulOp::create(n.b(), n.location(),
                               n.contiguous(n.outputShape(), dtype), *x,
                               splat(n, *slope, dtype));
  n.setOutput(0, byPositive(n, *x, *x, scaled));
  return success();
}

/// elu(self, alpha=1, scale=1, input_scale=1): scale * x where x > 0, else
/// scale * alpha * (exp(x * input_scale) - 1).
LogicalResult elu(NodeImporter &n) {
  FailureOr<Value> x = self(n);
  FailureOr<double> alpha = succeeded(x) ? n.scalar("alpha", 1.0) : Fail();
  FailureOr<double> scale = succeeded(alpha) ? n.scalar("scale", 1.0) : Fail();
  FailureOr<double> inputScale =
      succeeded(scale) ? n.scalar("input_scale", 1.0) : Fail();
  if (failed(inputScale))
    return failure();
  DType dtype = n.outputDType();
  StridedTensorType type = n.contiguous(n.outputShape(), dtype);
  Value inner = MulOp::create(n.b(), n.location(), type, *x,
                              splat(n, *inputScale, dtype));
  Value e = ExpOp::create(n.b(), n.location(), type, inner);
  Value minusOne =
      SubOp::create(n.b(), n.location(), type, e, splat(n, 1.0, dtype));
  Value negative = MulOp::create(n.b(), n.location(), type, minusOne,
                                 splat(n, *alpha * *scale, dtype));
  Value positive =
      MulOp::create(n.b(), n.location(), type, *x, splat(n, *scale, dtype));
  n.setOutput(0, byPositive(n, *x, positive, negative));
  return success();
}

/// relu6(x + 3) / 6, hardsigmoid's value.
Value hardSigmoidOf(NodeImporter &n, Value x) {
  DType dtype = n.outputDType();
  StridedTensorType type = n.contiguous(n.outputShape(), dtype);
  Value shifted = AddOp::create(n.b(), n.location(), type, x, splat(n, 3.0, dtype));
  Value six = clamped(n, shifted, splat(n, 0.0, dtype), splat(n, 6.0, dtype));
  return DivOp::create(n.b(), n.location(), type, six, splat(n, 6.0, dtype));
}

/// hardsigmoid(self) = relu6(x + 3) / 6; hardswish(self) = x * that.
template <bool swish> LogicalResult hard(NodeImporter &n) {
  FailureOr<Value> x = self(n);
  if (failed(x))
    return failure();
  Value y = hardSigmoidOf(n, *x);
  if (swish)
    y = MulOp::create(n.b(), n.location(),
                      n.contiguous(n.outputShape(), n.outputDType()), *x, y);
  n.setOutput(0, n.toType(y, n.outputType()));
  return success();
}

/// isnan(self): x != x; isinf(self): |x| == inf.
template <bool infinite> LogicalResult floatClass(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  StridedTensorType type = cast<StridedTensorType>(x->getType());
  StridedTensorType bools = n.contiguous(n.outputShape(), DType::I1);
  Value result;
  if (!type.getElementType().isIntOrIndex() || !infinite) {
    if (infinite) {
      Value magnitude = AbsOp::create(
          n.b(), n.location(), n.contiguous(type.getShape(), type.getDType()), *x);
      Value inf = *n.broadcast(
          n.scalarTensor(std::numeric_limits<double>::infinity(), type.getDType()),
          type.getShape());
      result = CmpOp::create(n.b(), n.location(), bools, CmpPredicate::eq,
                             magnitude, inf);
    } else {
      result = CmpOp::create(n.b(), n.location(), bools, CmpPredicate::ne, *x, *x);
    }
  } else {
    result = FullOp::create(n.b(), n.location(), bools, n.b().getF64FloatAttr(0.0));
  }
  n.setOutput(0, n.toType(n.cast(result, n.outputDType()), n.outputType()));
  return success();
}

/// _log_softmax(self, dim, half_to_float): (x - max) - log(sum(exp(x -
/// max))) over the dim.
LogicalResult logSoftmax(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(input) ? n.dim("dim", rankOf(*input), std::nullopt) : Fail();
  if (failed(dim) || failed(expectOutputSizes(n, 0, symbolicShapeOf(*input))))
    return failure();
  DType dtype = n.outputDType();
  SizeExprs shape = n.outputSizes();
  StridedTensorType type = n.contiguousOf(shape, dtype);
  Value x = n.cast(*input, dtype);
  SizeExprs kept = shape;
  kept[*dim] = SizeExpr::constant(1);
  int64_t dims[] = {*dim};
  StridedTensorType keptType = n.contiguousOf(kept, dtype);
  Value max = MaxOp::create(n.b(), n.location(), keptType, x, dims, true);
  Value shifted = SubOp::create(n.b(), n.location(), type, x,
                                *n.broadcastTo(max, shape));
  Value e = ExpOp::create(n.b(), n.location(), type, shifted);
  Value sum = SumOp::create(n.b(), n.location(), keptType, e, dims, true);
  Value logSum = LogOp::create(n.b(), n.location(), keptType, sum);
  n.setOutput(0, SubOp::create(n.b(), n.location(), n.outputType(), shifted,
                               *n.broadcastTo(logSum, shape)));
  return success();
}

/// native_dropout(input, p, train) -> (out, mask) where it draws nothing:
/// in inference (train False) or with p 0, the input and an all-true mask.
/// Dropout in training draws random numbers, which Stride does not.
LogicalResult nativeDropout(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<double> p = succeeded(input) ? n.scalar("p", std::nullopt) : Fail();
  if (failed(p))
    return failure();
  bool train = true;
  if (n.arg("train") && !n.isNone("train")) {
    FailureOr<bool> t = n.boolean("train", true);
    if (failed(t))
      return failure();
    train = *t;
  }
  if (train && *p != 0.0)
    return n.error() << "native_dropout in training with p " << decimal(*p)
                     << " draws random numbers, which Stride does not; "
                        "export the model in eval mode";
  if (n.numOutputs() != 2 || failed(expectOutputShape(n, 0, shapeOf(*input))))
    return n.error() << "native_dropout has 2 outputs of the input's shape";
  n.setOutput(0, n.toType(n.cast(*input, n.outputDType()), n.outputType()));
  if (n.hasOutput(1))
    n.setOutput(1, FullOp::create(n.b(), n.location(), n.outputType(1),
                                  n.b().getF64FloatAttr(1.0)));
  return success();
}

} // namespace

/// Adds the activations built from other ops to the table.
void addActivationOps(OpTable &ops) {
  ops.insert({
      {"aten.clamp.default", clamp},
      {"aten.clamp.Tensor", clamp},
      {"aten.clamp_min.default", clamp},
      {"aten.clamp_max.default", clamp},
      {"aten.hardtanh.default", hardtanh},
      {"aten.leaky_relu.default", leakyRelu},
      {"aten.elu.default", elu},
      {"aten.hardsigmoid.default", hard<false>},
      {"aten.hardswish.default", hard<true>},
      {"aten.isnan.default", floatClass<false>},
      {"aten.isinf.default", floatClass<true>},
      {"aten._log_softmax.default", logSoftmax},
      {"aten.native_dropout.default", nativeDropout},
  });
}

} // namespace stride::torch
