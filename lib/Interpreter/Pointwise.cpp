//===- Pointwise.cpp - The interpreter's element-wise ops -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The element-wise ops of the reference interpreter: unary and binary
// arithmetic (floats in f64, rounded once to the element type; integers
// wrapping), casts, comparisons and where, and the ops that create tensors
// (full, constant, iota).
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <functional>

using namespace mlir;

namespace stride::interp {

Status Interpreter::unary(Operation *op) {
  const Tensor &in = get(op->getOperand(0));
  Tensor out = allocate(typeOf(op->getResult(0)));
  std::vector<int64_t> from = addressesOf(in.layout), to = addressesOf(out.layout);
  if (in.isF()) {
    std::function<double(double)> fn =
        llvm::TypeSwitch<Operation *, std::function<double(double)>>(op)
            .Case([](NegOp) { return [](double x) { return -x; }; })
            .Case([](AbsOp) { return [](double x) { return std::fabs(x); }; })
            .Case([](ExpOp) { return [](double x) { return std::exp(x); }; })
            .Case([](LogOp) { return [](double x) { return std::log(x); }; })
            .Case([](SqrtOp) { return [](double x) { return std::sqrt(x); }; })
            .Case([](RsqrtOp) { return [](double x) { return 1.0 / std::sqrt(x); }; })
            .Case([](TanhOp) { return [](double x) { return std::tanh(x); }; })
            .Case([](ErfOp) { return [](double x) { return std::erf(x); }; })
            .Case([](SigmoidOp) {
              return [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
            })
            .Case([](ReluOp) {
              return [](double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); };
            })
            .Case([](GeluOp) {
              return [](double x) {
                return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
              };
            })
            .Case([](GeluTanhOp) {
              return [](double x) { return geluTanh(x); };
            })
            .Case([](SinOp) { return [](double x) { return std::sin(x); }; })
            .Case([](CosOp) { return [](double x) { return std::cos(x); }; })
            .Case([](TanOp) { return [](double x) { return std::tan(x); }; })
            .Case([](AsinOp) { return [](double x) { return std::asin(x); }; })
            .Case([](AcosOp) { return [](double x) { return std::acos(x); }; })
            .Case([](AtanOp) { return [](double x) { return std::atan(x); }; })
            .Case([](SinhOp) { return [](double x) { return std::sinh(x); }; })
            .Case([](CoshOp) { return [](double x) { return std::cosh(x); }; })
            .Case([](AsinhOp) { return [](double x) { return std::asinh(x); }; })
            .Case([](AcoshOp) { return [](double x) { return std::acosh(x); }; })
            .Case([](AtanhOp) { return [](double x) { return std::atanh(x); }; })
            .Case([](Expm1Op) { return [](double x) { return std::expm1(x); }; })
            .Case([](Log1pOp) { return [](double x) { return std::log1p(x); }; })
            .Case([](Log2Op) { return [](double x) { return std::log2(x); }; })
            .Case([](Log10Op) { return [](double x) { return std::log10(x); }; })
            .Case([](FloorOp) { return [](double x) { return std::floor(x); }; })
            .Case([](CeilOp) { return [](double x) { return std::ceil(x); }; })
            // The default rounding mode: halves to even, as torch.round.
            .Case([](RoundOp) { return [](double x) { return std::nearbyint(x); }; })
            .Case([](TruncOp) { return [](double x) { return std::trunc(x); }; })
            .Case([](SignOp) {
              return [](double x) { return double((0.0 < x) - (x < 0.0)); };
            })
            .Default([](Operation *) { return nullptr; });
    if (!fn)
      return fail(op, "unsupported floating-point operand");
    for (size_t e = 0; e < from.size(); ++e)
      out.setF(to[e], fn(in.getF(from[e])));
  } else {
    bool isBool = in.dtype == DType::I1;
    std::function<int64_t(int64_t)> fn =
        llvm::TypeSwitch<Operation *, std::function<int64_t(int64_t)>>(op)
            .Case([](NegOp) {
              return [](int64_t x) { return static_cast<int64_t>(0 - static_cast<uint64_t>(x)); };
            })
            .Case([](AbsOp) {
              return [](int64_t x) {
                return x < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x;
              };
            })
            .Case([](ReluOp) { return [](int64_t x) { return x > 0 ? x : int64_t(0); }; })
            .Case([](SignOp) {
              return [](int64_t x) { return int64_t((x > 0) - (x < 0)); };
            })
            .Case([&](NotOp) {
              return isBool ? std::function<int64_t(int64_t)>(
                                  [](int64_t x) { return int64_t(x == 0); })
                            : [](int64_t x) { return ~x; };
            })
            .Default([](Operation *) { return nullptr; });
    if (!fn)
      return fail(op, "unsupported integer operand");
    for (size_t e = 0; e < from.size(); ++e)
      out.setI(to[e], fn(in.getI(from[e])));
  }
  values[op->getResult(0)] = std::move(out);
  return Status::ok();
}

Status Interpreter::castOp(CastOp op) {
  const Tensor &in = get(op.getInput());
  Tensor out = allocate(typeOf(op.getResult()));
  std::vector<int64_t> from = addressesOf(in.layout), to = addressesOf(out.layout);
  for (size_t e = 0; e < from.size(); ++e) {
    if (in.isF() && out.isF())
      out.setF(to[e], in.getF(from[e]));
    else if (in.isF())
      out.setI(to[e], floatToInt(out.dtype, in.getF(from[e])));
    else if (out.isF())
      out.setF(to[e], intToFloat(out.dtype, in.getI(from[e])));
    else
      out.setI(to[e], in.getI(from[e]));
  }
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

double nanMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) ? a : b;
  return a > b ? a : b;
}
double nanMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) ? a : b;
  return a < b ? a : b;
}

Status Interpreter::binary(Operation *op) {
  const Tensor &lhs = get(op->getOperand(0));
  const Tensor &rhs = get(op->getOperand(1));
  Tensor out = allocate(typeOf(op->getResult(0)));
  std::vector<int64_t> a = addressesOf(lhs.layout), b = addressesOf(rhs.layout),
                       to = addressesOf(out.layout);
  if (out.isF()) {
    std::function<double(double, double)> fn =
        llvm::TypeSwitch<Operation *, std::function<double(double, double)>>(op)
            .Case([](AddOp) { return [](double x, double y) { return x + y; }; })
            .Case([](SubOp) { return [](double x, double y) { return x - y; }; })
            .Case([](MulOp) { return [](double x, double y) { return x * y; }; })
            .Case([](DivOp) { return [](double x, double y) { return x / y; }; })
            .Case([](PowOp) { return [](double x, double y) { return std::pow(x, y); }; })
            .Case([](MaximumOp) { return nanMax; })
            .Case([](MinimumOp) { return nanMin; })
            .Case([](Atan2Op) {
              return [](double x, double y) { return std::atan2(x, y); };
            })
            .Case([](FmodOp) {
              return [](double x, double y) { return std::fmod(x, y); };
            })
            .Case([](RemainderOp) {
              return [](double x, double y) {
                double m = std::fmod(x, y);
                return (m != 0 && ((y < 0) != (m < 0))) ? m + y : m;
              };
            })
            .Default([](Operation *) { return nullptr; });
    if (!fn)
      return fail(op, "unsupported floating-point operands");
    for (size_t e = 0; e < to.size(); ++e)
      out.setF(to[e], fn(lhs.getF(a[e]), rhs.getF(b[e])));
  } else {
    using U = uint64_t;
    bool isDiv = isa<DivOp>(op);
    std::function<int64_t(int64_t, int64_t)> fn =
        llvm::TypeSwitch<Operation *, std::function<int64_t(int64_t, int64_t)>>(op)
            .Case([](AddOp) { return [](int64_t x, int64_t y) { return int64_t(U(x) + U(y)); }; })
            .Case([](SubOp) { return [](int64_t x, int64_t y) { return int64_t(U(x) - U(y)); }; })
            .Case([](MulOp) { return [](int64_t x, int64_t y) { return int64_t(U(x) * U(y)); }; })
            .Case([](DivOp) {
              return [](int64_t x, int64_t y) {
                // Truncating division; INT64_MIN / -1 wraps to INT64_MIN.
                if (y == -1)
                  return int64_t(0 - U(x));
                return x / y;
              };
            })
            .Case([](MaximumOp) { return [](int64_t x, int64_t y) { return x > y ? x : y; }; })
            .Case([](MinimumOp) { return [](int64_t x, int64_t y) { return x < y ? x : y; }; })
            .Case([](AndOp) { return [](int64_t x, int64_t y) { return x & y; }; })
            .Case([](OrOp) { return [](int64_t x, int64_t y) { return x | y; }; })
            .Case([](XorOp) { return [](int64_t x, int64_t y) { return x ^ y; }; })
            .Default([](Operation *) { return nullptr; });
    if (!fn)
      return fail(op, "unsupported integer operands");
    for (size_t e = 0; e < to.size(); ++e) {
      int64_t y = rhs.getI(b[e]);
      if (isDiv && y == 0) {
        Dims index(out.layout.shape.size());
        int64_t rest = e;
        for (size_t k = index.size(); k-- > 0;) {
          index[k] = rest % out.layout.shape[k];
          rest /= out.layout.shape[k];
        }
        return makeError(ErrorCode::InvalidArgument,
                         "integer division by zero in 'stride.div' at " +
                             formatLocation(op->getLoc()) + " (element " +
                             formatIndex(index) + ")");
      }
      out.setI(to[e], fn(lhs.getI(a[e]), y));
    }
  }
  values[op->getResult(0)] = std::move(out);
  return Status::ok();
}

Status Interpreter::cmp(CmpOp op) {
  const Tensor &lhs = get(op.getLhs());
  const Tensor &rhs = get(op.getRhs());
  Tensor out = allocate(typeOf(op.getResult()));
  std::vector<int64_t> a = addressesOf(lhs.layout), b = addressesOf(rhs.layout),
                       to = addressesOf(out.layout);
  CmpPredicate pred = op.getPredicate();
  auto compare = [&](auto x, auto y) -> bool {
    switch (pred) {
    case CmpPredicate::eq: return x == y;
    case CmpPredicate::ne: return x != y;
    case CmpPredicate::lt: return x < y;
    case CmpPredicate::le: return x <= y;
    case CmpPredicate::gt: return x > y;
    case CmpPredicate::ge: return x >= y;
    }
    return false;
  };
  for (size_t e = 0; e < to.size(); ++e)
    out.setI(to[e], lhs.isF() ? compare(lhs.getF(a[e]), rhs.getF(b[e]))
                              : compare(lhs.getI(a[e]), rhs.getI(b[e])));
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::where(WhereOp op) {
  const Tensor &c = get(op.getCondition());
  const Tensor &lhs = get(op.getLhs());
  const Tensor &rhs = get(op.getRhs());
  Tensor out = allocate(typeOf(op.getResult()));
  std::vector<int64_t> ca = addressesOf(c.layout), a = addressesOf(lhs.layout),
                       b = addressesOf(rhs.layout), to = addressesOf(out.layout);
  for (size_t e = 0; e < to.size(); ++e) {
    bool take = c.getI(ca[e]) != 0;
    if (out.isF())
      out.setF(to[e], take ? lhs.getF(a[e]) : rhs.getF(b[e]));
    else
      out.setI(to[e], take ? lhs.getI(a[e]) : rhs.getI(b[e]));
  }
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::full(FullOp op) {
  Tensor out = allocate(typeOf(op.getResult()));
  double v = op.getValue().convertToDouble();
  for (int64_t addr : addressesOf(out.layout)) {
    if (out.isF())
      out.setF(addr, v);
    else
      out.setI(addr, floatToInt(out.dtype, v));
  }
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

/// The elements of a dense, non-splat float constant, decoded from its raw
/// bytes: exact in their type, so stored without rounding. Reading them as
/// APFloats costs microseconds an element, and stride-fold-constants reads
/// a model's weights. False where the attribute is of another kind.
static bool readRawFloats(ElementsAttr attr, const std::vector<int64_t> &to,
                          Tensor &out) {
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || dense.isSplat())
    return false;
  HostArray raw;
  raw.dtype = out.dtype;
  ArrayRef<char> bytes = dense.getRawData();
  if (bytes.size() != to.size() * dtypeSize(out.dtype))
    return false;
  raw.data.assign(bytes.begin(), bytes.end());
  for (size_t e = 0; e < to.size(); ++e)
    out.storage->f[to[e]] = hostArrayElement(raw, int64_t(e));
  return true;
}

Status Interpreter::constant(ConstantOp op) {
  Tensor out = allocate(typeOf(op.getResult()));
  std::vector<int64_t> to = addressesOf(out.layout);
  ElementsAttr attr = op.getValue();
  if (out.isF() && readRawFloats(attr, to, out)) {
    // decoded from the raw bytes
  } else if (out.isF()) {
    auto values = attr.tryGetValues<llvm::APFloat>();
    if (!values)
      return fail(op, "cannot read the constant's floating-point values");
    size_t e = 0;
    for (llvm::APFloat v : *values) {
      if (e >= to.size())
        break;
      out.setF(to[e++], apToDouble(v));
    }
  } else {
    auto values = attr.tryGetValues<llvm::APInt>();
    if (!values)
      return fail(op, "cannot read the constant's integer values");
    size_t e = 0;
    for (llvm::APInt v : *values) {
      if (e >= to.size())
        break;
      out.setI(to[e++], v.getBitWidth() == 1 ? int64_t(v.getZExtValue())
                                             : v.getSExtValue());
    }
  }
  this->values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::iota(IotaOp op) {
  Tensor out = allocate(typeOf(op.getResult()));
  int64_t dim = static_cast<int64_t>(op.getDim());
  forEachIndex(out.layout.shape, [&](const Dims &index) {
    if (out.isF())
      out.setF(out.address(index), intToFloat(out.dtype, index[dim]));
    else
      out.setI(out.address(index), index[dim]);
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

} // namespace stride::interp
