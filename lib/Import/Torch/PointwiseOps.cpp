//===- PointwiseOps.cpp - Pointwise, copy and creation ops ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's pointwise builders (PyTorch's type promotion, unary and
// binary ops, comparisons, where) and its copies and creation ops (clone,
// _to_copy, full, zeros, ones, arange).
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

using namespace mlir;

namespace stride::torch {

FailureOr<Value> scaledByAlpha(NodeImporter &n, Value other, DType dtype) {
  FailureOr<double> alpha = n.scalar("alpha", 1.0);
  if (failed(alpha))
    return failure();
  if (*alpha == 1.0)
    return other;
  SizeExprs shape = symbolicShapeOf(other);
  FailureOr<Value> factor = n.broadcastTo(n.scalarTensor(*alpha, dtype), shape);
  if (failed(factor))
    return failure();
  return MulOp::create(n.b(), n.location(), n.contiguousOf(shape, dtype),
                       other, *factor)
      .getResult();
}

namespace {

//===----------------------------------------------------------------------===//
// Type promotion
//===----------------------------------------------------------------------===//

int category(DType t) { return t == DType::I1 ? 0 : isFloat(t) ? 2 : 1; }

/// torch.result_type of two operands of a binary op: a dimensioned tensor's
/// dtype wins over a rank-0 tensor's and a scalar's unless they are of a
/// higher category (bool < integer < float), where a rank-0 tensor gives its
/// dtype and a scalar the default (f32 for a float, i64 for an int).
DType promote(NodeImporter &n, llvm::StringRef lhs, llvm::StringRef rhs) {
  struct Operand { DType dtype; int priority; }; // 2 dimensioned, 1 rank-0, 0 scalar
  auto describe = [&](llvm::StringRef name) -> Operand {
    if (n.isTensor(name)) {
      FailureOr<Value> v = n.tensor(name);
      if (failed(v)) // operands() reports it
        return {DType::F32, 2};
      auto type = llvm::cast<StridedTensorType>(v->getType());
      return {type.getDType(), type.getRank() > 0 ? 2 : 1};
    }
    if (n.isFloatScalar(name))
      return {DType::F32, 0};
    const Argument *a = n.arg(name);
    bool isBool = a && a->kind == Argument::Kind::Bool;
    return {isBool ? DType::I1 : DType::I64, 0};
  };
  Operand a = describe(lhs), b = describe(rhs);
  if (a.priority < b.priority)
    std::swap(a, b);
  if (a.priority == b.priority) {
    if (a.dtype == b.dtype) return a.dtype;
    if (category(a.dtype) != category(b.dtype))
      return category(a.dtype) > category(b.dtype) ? a.dtype : b.dtype;
    return dtypeSize(a.dtype) >= dtypeSize(b.dtype) ? a.dtype : b.dtype;
  }
  return category(b.dtype) > category(a.dtype) ? b.dtype : a.dtype;
}

//===----------------------------------------------------------------------===//
// Pointwise
//===----------------------------------------------------------------------===//

template <typename OpTy> LogicalResult unary(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  Value input = n.cast(*x, n.outputDType());
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), input));
  return success();
}

/// floor, ceil, round and trunc: of an integer tensor, the tensor itself
/// (PyTorch returns it unchanged), as a copy with the output's layout.
template <typename OpTy> LogicalResult rounding(NodeImporter &n) {
  if (isFloat(n.outputDType()))
    return unary<OpTy>(n);
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  n.setOutput(0, CloneOp::create(n.b(), n.location(), n.outputType(), *x));
  return success();
}

LogicalResult logicalNot(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  Value input = n.cast(*x, DType::I1);
  Value result = NotOp::create(n.b(), n.location(),
                               n.contiguousOf(n.outputSizes(), DType::I1),
                               input);
  n.setOutput(0, n.toType(n.cast(result, n.outputDType()), n.outputType()));
  return success();
}

LogicalResult gelu(NodeImporter &n) {
  FailureOr<std::string> approximate = n.string("approximate", "none");
  if (failed(approximate))
    return failure();
  if (*approximate == "tanh")
    return unary<GeluTanhOp>(n);
  if (*approximate != "none")
    return n.error() << "gelu approximate='" << *approximate
                     << "' is not 'none' or 'tanh'";
  return unary<GeluOp>(n);
}

/// reciprocal(x): 1 / x in the result's dtype (a float: PyTorch promotes
/// an integer or bool input), a stride.div of a broadcast 1.
LogicalResult reciprocal(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  DType dtype = n.outputDType();
  if (!isFloat(dtype))
    return n.error() << "reciprocal with a result of dtype " << dtypeName(dtype)
                     << "; PyTorch gives a floating-point result";
  Value input = n.cast(*x, dtype);
  FailureOr<Value> one =
      n.broadcastTo(n.scalarTensor(1.0, dtype), n.outputSizes());
  if (failed(one))
    return failure();
  n.setOutput(0, DivOp::create(n.b(), n.location(), n.outputType(), *one, input));
  return success();
}

/// Both operands cast to `dtype` and broadcast to the output's shape.
FailureOr<std::pair<Value, Value>> operands(NodeImporter &n,
                                            llvm::StringRef lhs,
                                            llvm::StringRef rhs, DType dtype) {
  FailureOr<Value> a = n.tensorOrScalar(lhs, dtype);
  FailureOr<Value> b = succeeded(a) ? n.tensorOrScalar(rhs, dtype) : Fail();
  if (failed(b))
    return failure();
  FailureOr<Value> ca = n.conformTo(*a, dtype, n.outputSizes());
  FailureOr<Value> cb = succeeded(ca) ? n.conformTo(*b, dtype, n.outputSizes())
                                      : Fail();
  if (failed(cb))
    return failure();
  return std::make_pair(*ca, *cb);
}

/// The names of a binary op's second operand: `other`, and pow's
/// `exponent`.
constexpr char kOther[] = "other";
constexpr char kExponent[] = "exponent";

template <typename OpTy, bool hasAlpha = false, const char *rhsName = kOther>
LogicalResult binary(NodeImporter &n) {
  DType dtype = n.outputDType();
  auto ops = operands(n, "self", rhsName, dtype);
  if (failed(ops))
    return failure();
  Value rhs = ops->second;
  if constexpr (hasAlpha) {
    FailureOr<Value> scaled = scaledByAlpha(n, rhs, dtype);
    if (failed(scaled))
      return failure();
    rhs = *scaled;
  }
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), ops->first,
                              rhs));
  return success();
}

/// fmod and remainder: floats only (an integer divisor of zero is an error
/// PyTorch's CUDA kernels do not report).
template <typename OpTy> LogicalResult floatRemainder(NodeImporter &n) {
  if (!isFloat(n.outputDType()))
    return n.error() << "fmod and remainder with a result of dtype "
                     << dtypeName(n.outputDType())
                     << " are not imported: Stride takes floating-point "
                        "operands only";
  return binary<OpTy>(n);
}

/// pow(x, exponent) with a scalar exponent. PyTorch's CUDA kernel
/// (pow_tensor_scalar_kernel) computes the exponents 2 and 3 as products in
/// the tensor's dtype (a bf16 `base * base * base` rounds after each
/// product); so does Stride, which is also far cheaper than powf (GPT-2's
/// GELU spent most of its kernel in powf(x, 3): bench/NOTES.md, section
/// 46). Other exponents: stride.pow.
LogicalResult powScalar(NodeImporter &n) {
  if (n.isTensor(kExponent))
    return binary<PowOp, false, kExponent>(n);
  FailureOr<double> exponent = n.scalar(kExponent, std::nullopt);
  if (failed(exponent))
    return failure();
  if (!isFloat(n.outputDType()) || (*exponent != 2.0 && *exponent != 3.0))
    return binary<PowOp, false, kExponent>(n);
  FailureOr<Value> self = n.tensor("self");
  FailureOr<Value> x = succeeded(self) ? n.conformTo(*self, n.outputDType(),
                                                     n.outputSizes())
                                       : Fail();
  if (failed(x))
    return failure();
  bool cube = *exponent == 3.0;
  StridedTensorType square = n.contiguousOf(n.outputSizes(), n.outputDType());
  Value result = MulOp::create(n.b(), n.location(),
                               cube ? square : n.outputType(), *x, *x);
  if (cube)
    result = MulOp::create(n.b(), n.location(), n.outputType(), result, *x);
  n.setOutput(0, result);
  return success();
}

/// a / b rounded down, as PyTorch's div_floor_floating (computed in f32 for
/// f16/bf16, as its kernels do): the quotient of a - fmod(a, b), one less
/// where the remainder's sign differs from b's, its floor plus one where
/// that floor is more than 0.5 below it, a signed zero for a zero
/// quotient, and a / b for b = 0.
FailureOr<Value> floorDivideFloats(PointwiseBuilder &p, Value a, Value b) {
  DType dtype = llvm::cast<StridedTensorType>(a.getType()).getDType();
  FailureOr<Value> zero = p.constant(0.0, dtype);
  FailureOr<Value> one = succeeded(zero) ? p.constant(1.0, dtype) : Fail();
  FailureOr<Value> half = succeeded(one) ? p.constant(0.5, dtype) : Fail();
  if (failed(half))
    return failure();
  Value mod = p.op<FmodOp>(a, b);
  Value whole = p.op<SubOp>(a, mod);
  Value quotient = p.op<DivOp>(whole, b);
  quotient = p.floorOfTruncated(quotient, mod, b, mod, *zero, *one);
  Value floor = p.op<FloorOp>(quotient);
  Value below = p.op<SubOp>(quotient, floor);
  Value roundUp = p.compare(CmpPredicate::gt, below, *half);
  Value raised = p.op<AddOp>(floor, *one);
  Value result = p.select(roundUp, raised, floor);
  Value exact = p.op<DivOp>(a, b);
  Value signedZero = p.op<MulOp>(exact, *zero);
  Value zeroQuotient = p.compare(CmpPredicate::eq, quotient, *zero);
  result = p.select(zeroQuotient, signedZero, result);
  Value byZero = p.compare(CmpPredicate::eq, b, *zero);
  return p.select(byZero, exact, result);
}

/// a / b rounded down for integers: the truncated quotient, one less where
/// the remainder is not zero and the signs differ (stride.div reports a
/// zero divisor).
FailureOr<Value> floorDivideIntegers(PointwiseBuilder &p, Value a, Value b) {
  DType dtype = llvm::cast<StridedTensorType>(a.getType()).getDType();
  FailureOr<Value> zero = p.constant(0.0, dtype);
  FailureOr<Value> one = succeeded(zero) ? p.constant(1.0, dtype) : Fail();
  if (failed(one))
    return failure();
  Value quotient = p.op<DivOp>(a, b);
  Value product = p.op<MulOp>(quotient, b);
  Value remainder = p.op<SubOp>(a, product);
  return p.floorOfTruncated(quotient, remainder, a, b, *zero, *one);
}

/// A rounding division's operands, in f32 for an f16 or bf16 result (as
/// PyTorch's kernels compute them).
FailureOr<std::pair<Value, Value>> roundingDivisionOperands(NodeImporter &n) {
  DType dtype = n.outputDType();
  bool half = dtype == DType::F16 || dtype == DType::BF16;
  return operands(n, "self", kOther, half ? DType::F32 : dtype);
}

/// div with rounding_mode='floor': floats (f16 and bf16 through f32) or
/// integers.
LogicalResult floorDivide(NodeImporter &n) {
  DType dtype = n.outputDType();
  auto ops = roundingDivisionOperands(n);
  if (failed(ops))
    return failure();
  PointwiseBuilder p{n, n.outputShape()};
  FailureOr<Value> result =
      isFloat(dtype) ? floorDivideFloats(p, ops->first, ops->second)
                     : floorDivideIntegers(p, ops->first, ops->second);
  if (failed(result))
    return failure();
  n.setOutput(0, n.toType(n.cast(*result, dtype), n.outputType()));
  return success();
}

/// div with rounding_mode='trunc' on floats: trunc(a / b), as PyTorch's
/// div_trunc (f16 and bf16 through f32).
LogicalResult truncDivideFloats(NodeImporter &n) {
  DType dtype = n.outputDType();
  auto ops = roundingDivisionOperands(n);
  if (failed(ops))
    return failure();
  PointwiseBuilder p{n, n.outputShape()};
  Value quotient = p.op<DivOp>(ops->first, ops->second);
  Value truncated = p.op<TruncOp>(quotient);
  n.setOutput(0, n.toType(n.cast(truncated, dtype), n.outputType()));
  return success();
}

LogicalResult divide(NodeImporter &n) {
  FailureOr<std::string> mode = n.string("rounding_mode", "");
  if (failed(mode))
    return failure();
  if (*mode == "floor")
    return floorDivide(n);
  if (*mode == "trunc" && isFloat(n.outputDType()))
    return truncDivideFloats(n);
  if (!mode->empty() && *mode != "trunc")
    return n.error() << "div with rounding_mode='" << *mode
                     << "': PyTorch takes 'trunc', 'floor' or None";
  if (mode->empty() && !isFloat(n.outputDType()))
    return n.error() << "true division with an integer result";
  return binary<DivOp>(n);
}

template <CmpPredicate predicate> LogicalResult compare(NodeImporter &n) {
  DType dtype = promote(n, "self", "other");
  auto ops = operands(n, "self", "other", dtype);
  if (failed(ops))
    return failure();
  Value result = CmpOp::create(n.b(), n.location(),
                               n.contiguousOf(n.outputSizes(), DType::I1),
                               predicate, ops->first, ops->second);
  n.setOutput(0, n.toType(n.cast(result, n.outputDType()), n.outputType()));
  return success();
}

LogicalResult where(NodeImporter &n) {
  FailureOr<Value> condition = n.tensor("condition");
  if (failed(condition))
    return failure();
  FailureOr<Value> c = n.conformTo(*condition, DType::I1, n.outputSizes());
  auto ops = succeeded(c) ? operands(n, "self", "other", n.outputDType())
                          : Fail();
  if (failed(ops))
    return failure();
  n.setOutput(0, WhereOp::create(n.b(), n.location(), n.outputType(), *c,
                                 ops->first, ops->second));
  return success();
}

//===----------------------------------------------------------------------===//
// Copies and creation
//===----------------------------------------------------------------------===//

LogicalResult clone(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  n.setOutput(0, CloneOp::create(n.b(), n.location(), n.outputType(), *x));
  return success();
}

LogicalResult toCopy(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  if (llvm::cast<StridedTensorType>(x->getType()).getDType() ==
      n.outputDType())
    return clone(n);
  n.setOutput(0, CastOp::create(n.b(), n.location(), n.outputType(), *x));
  return success();
}

LogicalResult fill(NodeImporter &n, double value) {
  n.setOutput(0, FullOp::create(n.b(), n.location(), n.outputType(),
                                n.b().getF64FloatAttr(value)));
  return success();
}

template <const char *argName> LogicalResult fullWith(NodeImporter &n) {
  FailureOr<double> value = n.scalar(argName, std::nullopt);
  if (failed(value))
    return failure();
  return fill(n, *value);
}
constexpr char kFillValue[] = "fill_value";
constexpr char kScalarArg[] = "s";

LogicalResult zeros(NodeImporter &n) { return fill(n, 0.0); }
LogicalResult ones(NodeImporter &n) { return fill(n, 1.0); }

/// arange(start, end, step): iota scaled by step, plus start.
LogicalResult arange(NodeImporter &n) {
  FailureOr<double> start = n.scalar("start", 0.0);
  FailureOr<double> step = succeeded(start) ? n.scalar("step", 1.0) : Fail();
  if (failed(step))
    return failure();
  if (n.outputType().getRank() != 1)
    return n.error() << "arange's result has rank "
                     << n.outputType().getRank();
  DType dtype = n.outputDType();
  StridedTensorType type = n.contiguousOf(n.outputSizes(), dtype);
  bool plain = *start == 0.0 && *step == 1.0;
  Value result = IotaOp::create(n.b(), n.location(),
                                plain ? n.outputType() : type, uint64_t(0));
  if (*step != 1.0) {
    Value factor =
        *n.broadcastTo(n.scalarTensor(*step, dtype), n.outputSizes());
    result = MulOp::create(n.b(), n.location(),
                           *start == 0.0 ? n.outputType() : type, result, factor);
  }
  if (*start != 0.0) {
    Value offset =
        *n.broadcastTo(n.scalarTensor(*start, dtype), n.outputSizes());
    result = AddOp::create(n.b(), n.location(), n.outputType(), result, offset);
  }
  n.setOutput(0, result);
  return success();
}

/// atan2.out(self, other, out): atan2, and `out`'s name bound to it.
LogicalResult atan2Out(NodeImporter &n) {
  return writtenInPlace(n, "out", binary<Atan2Op>);
}

} // namespace

/// Adds the builders of pointwise ops, copies and creation to the table.
void addPointwiseOps(OpTable &ops) {
  ops.insert({
      // Pointwise unary.
      {"aten.neg.default", unary<NegOp>},
      {"aten.abs.default", unary<AbsOp>},
      {"aten.exp.default", unary<ExpOp>},
      {"aten.log.default", unary<LogOp>},
      {"aten.sqrt.default", unary<SqrtOp>},
      {"aten.rsqrt.default", unary<RsqrtOp>},
      {"aten.reciprocal.default", reciprocal},
      {"aten.tanh.default", unary<TanhOp>},
      {"aten.sigmoid.default", unary<SigmoidOp>},
      {"aten.relu.default", unary<ReluOp>},
      {"aten.sin.default", unary<SinOp>},
      {"aten.cos.default", unary<CosOp>},
      {"aten.tan.default", unary<TanOp>},
      {"aten.asin.default", unary<AsinOp>},
      {"aten.acos.default", unary<AcosOp>},
      {"aten.atan.default", unary<AtanOp>},
      {"aten.sinh.default", unary<SinhOp>},
      {"aten.cosh.default", unary<CoshOp>},
      {"aten.asinh.default", unary<AsinhOp>},
      {"aten.acosh.default", unary<AcoshOp>},
      {"aten.atanh.default", unary<AtanhOp>},
      {"aten.expm1.default", unary<Expm1Op>},
      {"aten.log1p.default", unary<Log1pOp>},
      {"aten.log2.default", unary<Log2Op>},
      {"aten.log10.default", unary<Log10Op>},
      {"aten.floor.default", rounding<FloorOp>},
      {"aten.ceil.default", rounding<CeilOp>},
      {"aten.round.default", rounding<RoundOp>},
      {"aten.trunc.default", rounding<TruncOp>},
      {"aten.sign.default", unary<SignOp>},
      {"aten.erf.default", unary<ErfOp>},
      {"aten.gelu.default", gelu},
      {"aten.logical_not.default", logicalNot},
      {"aten.bitwise_not.default", unary<NotOp>},
      // Pointwise binary (a Scalar overload's `other` becomes a rank-0 full).
      {"aten.add.Tensor", binary<AddOp, true>},
      {"aten.add.Scalar", binary<AddOp, true>},
      {"aten.sub.Tensor", binary<SubOp, true>},
      {"aten.sub.Scalar", binary<SubOp, true>},
      {"aten.mul.Tensor", binary<MulOp>},
      {"aten.mul.Scalar", binary<MulOp>},
      {"aten.div.Tensor", divide},
      {"aten.div.Scalar", divide},
      {"aten.div.Tensor_mode", divide},
      {"aten.div.Scalar_mode", divide},
      {"aten.atan2.default", binary<Atan2Op>},
      {"aten.atan2.out", atan2Out},
      {"aten.fmod.Tensor", floatRemainder<FmodOp>},
      {"aten.fmod.Scalar", floatRemainder<FmodOp>},
      {"aten.remainder.Tensor", floatRemainder<RemainderOp>},
      {"aten.remainder.Scalar", floatRemainder<RemainderOp>},
      {"aten.pow.Scalar", binary<PowOp, false, kExponent>},
      {"aten.pow.Tensor_Tensor", binary<PowOp, false, kExponent>},
      {"aten.pow.Tensor_Scalar", powScalar},
      {"aten.maximum.default", binary<MaximumOp>},
      {"aten.minimum.default", binary<MinimumOp>},
      {"aten.logical_and.default", binary<AndOp>},
      {"aten.logical_or.default", binary<OrOp>},
      {"aten.bitwise_and.Tensor", binary<AndOp>},
      {"aten.bitwise_or.Tensor", binary<OrOp>},
      {"aten.bitwise_and.Scalar", binary<AndOp>},
      {"aten.bitwise_or.Scalar", binary<OrOp>},
      {"aten.bitwise_xor.Tensor", binary<XorOp>},
      {"aten.bitwise_xor.Scalar", binary<XorOp>},
      {"aten.logical_xor.default", binary<XorOp>},
      {"aten.eq.Tensor", compare<CmpPredicate::eq>},
      {"aten.eq.Scalar", compare<CmpPredicate::eq>},
      {"aten.ne.Tensor", compare<CmpPredicate::ne>},
      {"aten.ne.Scalar", compare<CmpPredicate::ne>},
      {"aten.lt.Tensor", compare<CmpPredicate::lt>},
      {"aten.lt.Scalar", compare<CmpPredicate::lt>},
      {"aten.le.Tensor", compare<CmpPredicate::le>},
      {"aten.le.Scalar", compare<CmpPredicate::le>},
      {"aten.gt.Tensor", compare<CmpPredicate::gt>},
      {"aten.gt.Scalar", compare<CmpPredicate::gt>},
      {"aten.ge.Tensor", compare<CmpPredicate::ge>},
      {"aten.ge.Scalar", compare<CmpPredicate::ge>},
      {"aten.where.self", where},
      // Copies and creation.
      {"aten.clone.default", clone},
      {"aten.lift_fresh_copy.default", clone},
      {"aten._to_copy.default", toCopy},
      {"aten.full.default", fullWith<kFillValue>},
      {"aten.full_like.default", fullWith<kFillValue>},
      {"aten.scalar_tensor.default", fullWith<kScalarArg>},
      {"aten.zeros.default", zeros},
      {"aten.zeros_like.default", zeros},
      // empty's elements are unspecified until written: zeros.
      {"aten.empty.memory_format", zeros},
      {"aten.empty_strided.default", zeros},
      {"aten.ones.default", ones},
      {"aten.ones_like.default", ones},
      {"aten.arange.default", arange},
      {"aten.arange.start", arange},
      {"aten.arange.start_step", arange},
  });
}

} // namespace stride::torch
