//===- Interpreter.cpp - The reference interpreter of stride graphs -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// See Interpreter.h for the model and python-free-docs/interpreter.md for the semantic
// decisions. Structure of this file:
//
//   1. element conversions (rounding to f16/bf16/f32, integer wrapping,
//      host-array encoding and decoding, number formatting);
//   2. Tensor: shared storage + layout + dtype, with address enumeration;
//   3. the op implementations, one function per op family;
//   4. the driver: binds arguments, walks the function (and kernel bodies)
//      and converts the results.
//
//===----------------------------------------------------------------------===//

#include "stride/Interpreter/Interpreter.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/Diagnostics.h"
#include "stride/Support/Layout.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

using namespace mlir;

namespace stride {

//===----------------------------------------------------------------------===//
// 1. Element conversions
//===----------------------------------------------------------------------===//

namespace {

const llvm::fltSemantics &semanticsOf(DType t) {
  switch (t) {
  case DType::F16: return llvm::APFloat::IEEEhalf();
  case DType::BF16: return llvm::APFloat::BFloat();
  case DType::F32: return llvm::APFloat::IEEEsingle();
  default: return llvm::APFloat::IEEEdouble();
  }
}

double apToDouble(llvm::APFloat a) {
  bool lost = false;
  a.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return a.convertToDouble();
}

/// `v` rounded to nearest even in the floating-point type `t`.
double roundFloat(DType t, double v) {
  switch (t) {
  case DType::F64: return v;
  case DType::F32: return static_cast<double>(static_cast<float>(v));
  case DType::F16:
  case DType::BF16: {
    llvm::APFloat a(v);
    bool lost = false;
    a.convert(semanticsOf(t), llvm::APFloat::rmNearestTiesToEven, &lost);
    return apToDouble(a);
  }
  default: return v;
  }
}

/// `v` wrapped (two's complement) to the integer type `t`; i1 is `v != 0`.
int64_t wrapInt(DType t, int64_t v) {
  switch (t) {
  case DType::I1: return v != 0;
  case DType::I8: return static_cast<int8_t>(static_cast<uint8_t>(v));
  case DType::I32: return static_cast<int32_t>(static_cast<uint32_t>(v));
  default: return v;
  }
}

/// An integer converted to the floating-point type `t`, rounded once.
double intToFloat(DType t, int64_t v) {
  llvm::APFloat a(semanticsOf(t));
  a.convertFromAPInt(llvm::APInt(64, static_cast<uint64_t>(v), true),
                     /*IsSigned=*/true, llvm::APFloat::rmNearestTiesToEven);
  return apToDouble(a);
}

/// A float converted to an integer type: truncation toward zero; NaN gives 0,
/// values beyond int64 saturate, then the value wraps to the type's width.
int64_t floatToInt(DType t, double v) {
  if (t == DType::I1)
    return v != 0.0;
  if (std::isnan(v))
    return 0;
  double tr = std::trunc(v);
  int64_t i;
  if (tr >= 9223372036854775808.0)
    i = std::numeric_limits<int64_t>::max();
  else if (tr < -9223372036854775808.0)
    i = std::numeric_limits<int64_t>::min();
  else
    i = static_cast<int64_t>(tr);
  return wrapInt(t, i);
}

/// GELU's tanh approximation (PyTorch's approximate='tanh').
double geluTanh(double x) {
  const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

} // namespace

double hostArrayElement(const HostArray &a, int64_t i) {
  const uint8_t *p = a.data.data() + i * dtypeSize(a.dtype);
  switch (a.dtype) {
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return apToDouble(llvm::APFloat(semanticsOf(a.dtype), llvm::APInt(16, bits)));
  }
  case DType::F32: { float f; std::memcpy(&f, p, 4); return f; }
  case DType::F64: { double d; std::memcpy(&d, p, 8); return d; }
  case DType::I1: return *p != 0;
  case DType::I8: return static_cast<int8_t>(*p);
  case DType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
  case DType::I64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
  }
  return 0;
}

namespace {

int64_t hostArrayInt(const HostArray &a, int64_t i) {
  const uint8_t *p = a.data.data() + i * dtypeSize(a.dtype);
  switch (a.dtype) {
  case DType::I1: return *p != 0;
  case DType::I8: return static_cast<int8_t>(*p);
  case DType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
  case DType::I64: { int64_t v; std::memcpy(&v, p, 8); return v; }
  default: return 0;
  }
}

void putFloat(HostArray &a, int64_t i, double v) {
  uint8_t *p = a.data.data() + i * dtypeSize(a.dtype);
  switch (a.dtype) {
  case DType::F16:
  case DType::BF16: {
    llvm::APFloat f(v);
    bool lost = false;
    f.convert(semanticsOf(a.dtype), llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
    std::memcpy(p, &bits, 2);
    return;
  }
  case DType::F32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
  default: std::memcpy(p, &v, 8); return;
  }
}

void putInt(HostArray &a, int64_t i, int64_t v) {
  uint8_t *p = a.data.data() + i * dtypeSize(a.dtype);
  switch (a.dtype) {
  case DType::I1: *p = v != 0; return;
  case DType::I8: *p = static_cast<uint8_t>(v); return;
  case DType::I32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); return; }
  default: std::memcpy(p, &v, 8); return;
  }
}

} // namespace

std::string formatElement(DType dtype, double value) {
  if (!isFloat(dtype)) {
    if (dtype == DType::I1)
      return value != 0 ? "true" : "false";
    return std::to_string(static_cast<int64_t>(value));
  }
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buf[64];
  if (value == std::trunc(value) && std::fabs(value) < 1e16) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return std::signbit(value) && value == 0 ? "-0" : buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (roundFloat(dtype, std::strtod(buf, nullptr)) == value)
      break;
  }
  return buf;
}

std::string formatHostArray(const HostArray &a) {
  auto element = [&](int64_t i) {
    if (isFloat(a.dtype))
      return formatElement(a.dtype, hostArrayElement(a, i));
    if (a.dtype == DType::I1)
      return std::string(hostArrayInt(a, i) ? "true" : "false");
    return std::to_string(hostArrayInt(a, i));
  };
  if (a.shape.empty())
    return element(0);
  std::string out;
  int64_t next = 0;
  std::function<void(size_t)> rec = [&](size_t dim) {
    out += "[";
    for (int64_t i = 0; i < a.shape[dim]; ++i) {
      if (i) {
        out += ",";
        if (dim + 1 < a.shape.size())
          out += "\n" + std::string(dim + 1, ' ');
        else
          out += " ";
      }
      if (dim + 1 == a.shape.size())
        out += element(next++);
      else
        rec(dim + 1);
    }
    out += "]";
  };
  rec(0);
  return out;
}

//===----------------------------------------------------------------------===//
// 2. Tensors
//===----------------------------------------------------------------------===//

namespace {

/// One buffer: doubles for floating-point dtypes, int64_t for the others.
struct Storage {
  std::vector<double> f;
  std::vector<int64_t> i;
};

struct Tensor {
  std::shared_ptr<Storage> storage;
  Layout layout;
  DType dtype = DType::F32;

  bool isF() const { return isFloat(dtype); }
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : layout.shape)
      n *= d;
    return n;
  }
  int64_t address(const Dims &index) const {
    int64_t a = layout.offset;
    for (size_t k = 0; k < index.size(); ++k)
      a += index[k] * layout.strides[k];
    return a;
  }
  double getF(int64_t addr) const { return storage->f[addr]; }
  int64_t getI(int64_t addr) const { return storage->i[addr]; }
  void setF(int64_t addr, double v) { storage->f[addr] = roundFloat(dtype, v); }
  void setI(int64_t addr, int64_t v) { storage->i[addr] = wrapInt(dtype, v); }
  /// Any element as a double (for conditions, indices and casts).
  double getAsDouble(int64_t addr) const {
    return isF() ? getF(addr) : static_cast<double>(getI(addr));
  }
};

/// Addresses of every logical element, in row-major logical order.
std::vector<int64_t> addressesOf(const Layout &layout) {
  int64_t n = 1;
  for (int64_t d : layout.shape)
    n *= d;
  std::vector<int64_t> out;
  if (n == 0)
    return out;
  out.reserve(n);
  size_t rank = layout.shape.size();
  Dims index(rank, 0);
  int64_t addr = layout.offset;
  for (int64_t e = 0; e < n; ++e) {
    out.push_back(addr);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < layout.shape[k]) {
        addr += layout.strides[k];
        break;
      }
      addr -= (layout.shape[k] - 1) * layout.strides[k];
      index[k] = 0;
    }
  }
  return out;
}

/// Calls fn(index) for every multi-index of `shape` in row-major order.
template <typename Fn> void forEachIndex(const Dims &shape, Fn &&fn) {
  for (int64_t d : shape)
    if (d == 0)
      return;
  Dims index(shape.size(), 0);
  while (true) {
    fn(static_cast<const Dims &>(index));
    size_t k = shape.size();
    while (k > 0) {
      --k;
      if (++index[k] < shape[k])
        break;
      index[k] = 0;
      if (k == 0)
        return;
    }
    if (shape.empty())
      return;
  }
}

/// A fresh buffer with the layout and element type of `type`.
Tensor allocate(StridedTensorType type) {
  Tensor t;
  t.layout = type.getLayout();
  t.dtype = type.getDType();
  t.storage = std::make_shared<Storage>();
  int64_t extent = storageExtent(t.layout).value_or(0);
  if (t.isF())
    t.storage->f.assign(extent, 0.0);
  else
    t.storage->i.assign(extent, 0);
  return t;
}

/// Copies every logical element of `src` into `dst` (same shape and dtype).
void copyElements(const Tensor &src, Tensor &dst) {
  std::vector<int64_t> from = addressesOf(src.layout), to = addressesOf(dst.layout);
  for (size_t e = 0; e < from.size(); ++e) {
    if (dst.isF())
      dst.setF(to[e], src.getF(from[e]));
    else
      dst.setI(to[e], src.getI(from[e]));
  }
}

std::string formatIndex(const Dims &index) {
  std::string s = "(";
  for (size_t k = 0; k < index.size(); ++k)
    s += (k ? ", " : "") + std::to_string(index[k]);
  return s + ")";
}

//===----------------------------------------------------------------------===//
// 3. The ops
//===----------------------------------------------------------------------===//

class Interpreter {
public:
  llvm::DenseMap<Value, Tensor> values;

  Status run(Block &block, std::vector<Tensor> *returned);

private:
  Status fail(Operation *op, const std::string &what) {
    return makeError(ErrorCode::InvalidArgument,
                     what + " in '" + op->getName().getStringRef().str() +
                         "' at " + formatLocation(op->getLoc()));
  }
  const Tensor &get(Value v) { return values.find(v)->second; }
  StridedTensorType typeOf(Value v) { return llvm::cast<StridedTensorType>(v.getType()); }

  Status execute(Operation *op);
  Status view(Operation *op);
  Status unary(Operation *op);
  Status castOp(CastOp op);
  Status binary(Operation *op);
  Status cmp(CmpOp op);
  Status where(WhereOp op);
  Status full(FullOp op);
  Status constant(ConstantOp op);
  Status iota(IotaOp op);
  Status clone(CloneOp op);
  Status sliceScatter(SliceScatterOp op);
  Status selectScatter(SelectScatterOp op);
  Status cat(CatOp op);
  Status cumsum(CumsumOp op);
  Status scatter(IndexScatterOpInterface op);
  Status gather(GatherOp op);
  Status indexSelect(IndexSelectOp op);
  Status reduce(ReductionOpInterface op);
  Status matmul(MatmulOp op);
  Status kernel(KernelOp op);

  /// Reads index tensor element at `addr` and checks it against [0, size).
  Status checkIndex(Operation *op, int64_t value, int64_t size,
                    const Dims &position, int64_t dim) {
    if (value >= 0 && value < size)
      return Status::ok();
    return fail(op, "index " + std::to_string(value) + " at position " +
                        formatIndex(position) +
                        " of the index operand is out of range [0, " +
                        std::to_string(size) + ") for dim " +
                        std::to_string(dim));
  }

  /// Walks every position of the element-wise `index` tensor, checks its
  /// value against `size` (the extent of `dim`) and calls
  /// `visit(position, value)`; stops at, and returns, the first bad index.
  template <typename Visit>
  Status forEachCheckedIndex(Operation *op, const Tensor &index, int64_t size,
                             int64_t dim, Visit &&visit) {
    Status status;
    forEachIndex(index.layout.shape, [&](const Dims &position) {
      if (!status)
        return;
      int64_t at = index.getI(index.address(position));
      if ((status = checkIndex(op, at, size, position, dim)))
        visit(position, at);
    });
    return status;
  }

  /// Checks every value of the 1-D slice `index` (index_add, index_select)
  /// against `size`.
  Status checkSliceIndices(Operation *op, const Tensor &index, int64_t size,
                           int64_t dim) {
    for (int64_t k = 0; k < index.layout.shape[0]; ++k)
      if (Status s =
              checkIndex(op, index.getI(index.address({k})), size, {k}, dim);
          !s)
        return s;
    return Status::ok();
  }
};

Status Interpreter::view(Operation *op) {
  Tensor t = get(op->getOperand(0));
  t.layout = typeOf(op->getResult(0)).getLayout();
  values[op->getResult(0)] = t;
  return Status::ok();
}

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

/// max/min with NaN propagation (the first NaN wins).
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

Status Interpreter::constant(ConstantOp op) {
  Tensor out = allocate(typeOf(op.getResult()));
  std::vector<int64_t> to = addressesOf(out.layout);
  ElementsAttr attr = op.getValue();
  if (out.isF()) {
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

Status Interpreter::clone(CloneOp op) {
  Tensor out = allocate(typeOf(op.getResult()));
  copyElements(get(op.getInput()), out);
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

/// out[to] = src[from] with rounding/wrapping to out's type.
void setFrom(Tensor &out, int64_t to, const Tensor &src, int64_t from) {
  if (out.isF())
    out.setF(to, src.getF(from));
  else
    out.setI(to, src.getI(from));
}

Status Interpreter::sliceScatter(SliceScatterOp op) {
  const Tensor &src = get(op.getSrc());
  Tensor out = allocate(typeOf(op.getResult()));
  copyElements(get(op.getInput()), out);
  int64_t dim = op.getDim(), start = op.getStart(), step = op.getStep();
  forEachIndex(src.layout.shape, [&](const Dims &index) {
    Dims target = index;
    target[dim] = start + index[dim] * step;
    setFrom(out, out.address(target), src, src.address(index));
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::cat(CatOp op) {
  Tensor out = allocate(typeOf(op.getResult()));
  int64_t dim = op.getDim(), offset = 0;
  for (Value input : op.getInputs()) {
    const Tensor &in = get(input);
    forEachIndex(in.layout.shape, [&](const Dims &index) {
      Dims target = index;
      target[dim] += offset;
      setFrom(out, out.address(target), in, in.address(index));
    });
    offset += in.layout.shape[dim];
  }
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

/// Each row along `dim` summed in order: floats in f64, each element
/// rounded to the element type as it is stored; integers wrapping.
Status Interpreter::cumsum(CumsumOp op) {
  const Tensor &in = get(op.getInput());
  Tensor out = allocate(typeOf(op.getResult()));
  int64_t dim = op.getDim();
  Dims rows = in.layout.shape;
  int64_t length = rows[dim];
  rows[dim] = 1;
  forEachIndex(rows, [&](const Dims &row) {
    Dims index = row;
    double f = 0.0;
    uint64_t u = 0;
    for (int64_t k = 0; k < length; ++k) {
      index[dim] = k;
      if (in.isF()) {
        f += in.getF(in.address(index));
        out.setF(out.address(index), f);
      } else {
        u += uint64_t(in.getI(in.address(index)));
        out.setI(out.address(index), int64_t(u));
      }
    }
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::selectScatter(SelectScatterOp op) {
  const Tensor &src = get(op.getSrc());
  Tensor out = allocate(typeOf(op.getResult()));
  copyElements(get(op.getInput()), out);
  int64_t dim = op.getDim(), at = op.getIndex();
  forEachIndex(src.layout.shape, [&](const Dims &index) {
    Dims target = index;
    target.insert(target.begin() + dim, at);
    setFrom(out, out.address(target), src, src.address(index));
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

/// Shared by scatter, scatter_add and index_add: accumulates in float64 (or
/// int64 modulo 2^64) and rounds once per element at the end.
struct Accumulator {
  Tensor &out;
  std::vector<double> f;
  std::vector<int64_t> i;
  std::vector<int64_t> to;
  explicit Accumulator(Tensor &out) : out(out), to(addressesOf(out.layout)) {
    for (int64_t addr : to) {
      if (out.isF())
        f.push_back(out.getF(addr));
      else
        i.push_back(out.getI(addr));
    }
  }
  int64_t linear(const Dims &index) const {
    int64_t l = 0;
    for (size_t k = 0; k < index.size(); ++k)
      l = l * out.layout.shape[k] + index[k];
    return l;
  }
  void add(const Dims &index, const Tensor &src, int64_t from) {
    int64_t l = linear(index);
    if (out.isF())
      f[l] += src.getF(from);
    else
      i[l] = int64_t(uint64_t(i[l]) + uint64_t(src.getI(from)));
  }
  void set(const Dims &index, const Tensor &src, int64_t from) {
    int64_t l = linear(index);
    if (out.isF())
      f[l] = src.getF(from);
    else
      i[l] = src.getI(from);
  }
  /// add (an accumulating scatter) or set (a plain one).
  void put(bool accumulate, const Dims &index, const Tensor &src,
           int64_t from) {
    if (accumulate)
      add(index, src, from);
    else
      set(index, src, from);
  }
  void finish() {
    for (size_t e = 0; e < to.size(); ++e) {
      if (out.isF())
        out.setF(to[e], f[e]);
      else
        out.setI(to[e], i[e]);
    }
  }
};

/// scatter, scatter_add (one index per element of `src`, each checked as it
/// is read) and index_add (one per slice of `src` along `dim`, all checked
/// first): a copy of `input` into which each element of `src` is written,
/// or added, at its own position with `dim` replaced by its index.
Status Interpreter::scatter(IndexScatterOpInterface op) {
  const Tensor &index = get(op.getIndex());
  const Tensor &src = get(op.getSrc());
  int64_t dim = op.getDim();
  Tensor out = allocate(typeOf(op->getResult(0)));
  copyElements(get(op.getInput()), out);
  int64_t size = out.layout.shape[dim];
  Accumulator acc(out);
  auto put = [&](const Dims &position, int64_t at) {
    Dims target = position;
    target[dim] = at;
    acc.put(op.isAccumulating(), target, src, src.address(position));
  };
  Status status = Status::ok();
  if (op.isSliceIndex()) {
    status = checkSliceIndices(op, index, size, dim);
    if (status)
      forEachIndex(src.layout.shape, [&](const Dims &position) {
        put(position, index.getI(index.address({position[dim]})));
      });
  } else {
    status = forEachCheckedIndex(op, index, size, dim, put);
  }
  if (!status)
    return status;
  acc.finish();
  values[op->getResult(0)] = std::move(out);
  return Status::ok();
}

Status Interpreter::gather(GatherOp op) {
  const Tensor &in = get(op.getInput());
  const Tensor &index = get(op.getIndex());
  int64_t dim = op.getDim();
  Tensor out = allocate(typeOf(op.getResult()));
  int64_t size = in.layout.shape[dim];
  Status status = forEachCheckedIndex(
      op, index, size, dim, [&](const Dims &position, int64_t at) {
        Dims source = position;
        source[dim] = at;
        setFrom(out, out.address(position), in, in.address(source));
      });
  if (!status)
    return status;
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::indexSelect(IndexSelectOp op) {
  const Tensor &in = get(op.getInput());
  const Tensor &index = get(op.getIndex());
  int64_t dim = op.getDim();
  Tensor out = allocate(typeOf(op.getResult()));
  int64_t size = in.layout.shape[dim];
  if (Status s = checkSliceIndices(op, index, size, dim); !s)
    return s;
  forEachIndex(out.layout.shape, [&](const Dims &position) {
    Dims source = position;
    source[dim] = index.getI(index.address({position[dim]}));
    setFrom(out, out.address(position), in, in.address(source));
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::reduce(ReductionOpInterface op) {
  const Tensor &in = get(op.getInput());
  SmallVector<int64_t> dims = op.getReducedDims();
  Tensor out = allocate(typeOf(op->getResult(0)));
  // The keepdim-shaped result: reduced dims have size 1. Its row-major order
  // is also the row-major order of the result without those dims.
  Dims keptShape = in.layout.shape;
  std::vector<bool> reduced(keptShape.size(), false);
  int64_t count = 1;
  for (int64_t d : dims) {
    reduced[d] = true;
    count *= keptShape[d];
    keptShape[d] = 1;
  }
  std::vector<int64_t> to = addressesOf(out.layout);
  ReductionCombiner combiner = op.getCombiner();
  bool isMax = combiner == ReductionCombiner::max;
  bool isMin = combiner == ReductionCombiner::min;
  bool isProd = combiner == ReductionCombiner::mul;
  bool isOr = combiner == ReductionCombiner::logical_or;
  bool isMean = op.isAverage();
  if ((isMax || isMin) && count == 0 && !to.empty()) {
    std::string list;
    for (int64_t d : dims)
      if (in.layout.shape[d] == 0)
        list += (list.empty() ? "" : ", ") + std::to_string(d);
    return fail(op, std::string(isMax ? "max" : "min") +
                        " of no elements (reduced dim " + list +
                        " has size 0)");
  }
  size_t n = to.size();
  // Each element starts at the combiner's identity (max and min instead
  // take their first element, so that NaN propagates).
  TypedAttr identity =
      op.getIdentity(op.getInput().getType().getElementType());
  std::vector<double> f(n, in.isF() ? cast<FloatAttr>(identity).getValueAsDouble() : 0.0);
  std::vector<int64_t> iv(n, in.isF() ? 0 : cast<IntegerAttr>(identity).getInt());
  std::vector<bool> seen(n, false);
  forEachIndex(in.layout.shape, [&](const Dims &index) {
    int64_t l = 0;
    for (size_t k = 0; k < index.size(); ++k)
      l = l * keptShape[k] + (reduced[k] ? 0 : index[k]);
    int64_t addr = in.address(index);
    if (in.isF()) {
      double x = in.getF(addr);
      if (isMax)
        f[l] = seen[l] ? nanMax(f[l], x) : x;
      else if (isMin)
        f[l] = seen[l] ? nanMin(f[l], x) : x;
      else if (isProd)
        f[l] *= x;
      else
        f[l] += x;
    } else {
      int64_t x = in.getI(addr);
      uint64_t u = uint64_t(iv[l]);
      if (isMax)
        iv[l] = seen[l] ? std::max(iv[l], x) : x;
      else if (isMin)
        iv[l] = seen[l] ? std::min(iv[l], x) : x;
      else if (isProd)
        iv[l] = int64_t(u * uint64_t(x));
      else if (isOr)
        iv[l] = iv[l] || x;
      else
        iv[l] = int64_t(u + uint64_t(x));
    }
    seen[l] = true;
  });
  for (size_t e = 0; e < n; ++e) {
    if (out.isF())
      out.setF(to[e], isMean ? f[e] / static_cast<double>(count) : f[e]);
    else
      out.setI(to[e], iv[e]);
  }
  values[op->getResult(0)] = std::move(out);
  return Status::ok();
}

/// A matmul epilogue applied to one element (after the bias).
double applyEpilogue(MatmulEpilogue epilogue, double x) {
  switch (epilogue) {
  case MatmulEpilogue::none:
    return x;
  case MatmulEpilogue::relu:
    return std::isnan(x) ? x : (x > 0 ? x : 0.0);
  case MatmulEpilogue::gelu_tanh:
    return geluTanh(x);
  }
  llvm_unreachable("unknown matmul epilogue");
}

/// Each element of the product is a sum in double over the contracted dim
/// of the operands' values plus the bias, rounded once to the result type
/// (as PyTorch's `addmm` and `F.linear`, and cuBLASLt, which adds the bias
/// to its accumulator), then the epilogue applies as the separate `relu` /
/// `gelu_tanh` would (rounded). A separate `add` of a bias in f16 or bf16
/// rounds the product first, so folding it into the op changes the result
/// by at most that rounding (python-free-docs/matmul.md, "Accuracy").
Status Interpreter::matmul(MatmulOp op) {
  const Tensor &lhs = get(op.getLhs()), &rhs = get(op.getRhs());
  const Tensor *bias = op.getBias() ? &get(op.getBias()) : nullptr;
  Tensor out = allocate(typeOf(op.getResult()));
  size_t rank = out.layout.shape.size();
  int64_t contracted = lhs.layout.shape[rank - 1];
  forEachIndex(out.layout.shape, [&](const Dims &index) {
    Dims a = index, b = index;
    double sum = 0.0;
    for (int64_t k = 0; k < contracted; ++k) {
      a[rank - 1] = k;
      b[rank - 2] = k;
      sum += lhs.getF(lhs.address(a)) * rhs.getF(rhs.address(b));
    }
    if (bias)
      sum += bias->getF(bias->address({index[rank - 1]}));
    double biased = roundFloat(out.dtype, sum);
    out.setF(out.address(index),
             roundFloat(out.dtype, applyEpilogue(op.getEpilogue(), biased)));
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

Status Interpreter::kernel(KernelOp op) {
  Block &body = op.getBodyBlock();
  Interpreter inner;
  for (auto [arg, operand] : llvm::zip(body.getArguments(), op.getInputs())) {
    Tensor t = get(operand);
    t.layout = typeOf(arg).getLayout();
    inner.values[arg] = t;
  }
  std::vector<Tensor> yielded;
  if (Status s = inner.run(body, &yielded); !s)
    return s;
  for (auto [result, value] : llvm::zip(op.getResults(), yielded)) {
    Tensor out = allocate(typeOf(result));
    copyElements(value, out);
    values[result] = std::move(out);
  }
  return Status::ok();
}

Status Interpreter::execute(Operation *op) {
  if (isa<ViewOpInterface>(op))
    return view(op);
  return llvm::TypeSwitch<Operation *, Status>(op)
      .Case<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, ErfOp,
            SigmoidOp, ReluOp, GeluOp, GeluTanhOp, SinOp, CosOp, NotOp>(
          [&](Operation *o) { return unary(o); })
      .Case<AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, AndOp,
            OrOp>([&](Operation *o) { return binary(o); })
      .Case([&](CastOp o) { return castOp(o); })
      .Case([&](CmpOp o) { return cmp(o); })
      .Case([&](WhereOp o) { return where(o); })
      .Case([&](FullOp o) { return full(o); })
      .Case([&](ConstantOp o) { return constant(o); })
      .Case([&](IotaOp o) { return iota(o); })
      .Case([&](CloneOp o) { return clone(o); })
      .Case([&](SliceScatterOp o) { return sliceScatter(o); })
      .Case([&](SelectScatterOp o) { return selectScatter(o); })
      .Case([&](CatOp o) { return cat(o); })
      .Case([&](CumsumOp o) { return cumsum(o); })
      .Case([&](IndexScatterOpInterface o) {
        return scatter(o);
      })
      .Case([&](GatherOp o) { return gather(o); })
      .Case([&](IndexSelectOp o) { return indexSelect(o); })
      .Case([&](ReductionOpInterface o) { return reduce(o); })
      .Case([&](MatmulOp o) { return matmul(o); })
      .Case([&](KernelOp o) { return kernel(o); })
      .Default([&](Operation *o) { return fail(o, "unsupported op"); });
}

Status Interpreter::run(Block &block, std::vector<Tensor> *returned) {
  for (Operation &op : block) {
    if (isa<func::ReturnOp, YieldOp>(op)) {
      for (Value v : op.getOperands())
        returned->push_back(get(v));
      return Status::ok();
    }
    for (Value v : op.getOperands())
      if (!values.count(v) || !isa<StridedTensorType>(v.getType()))
        return fail(&op, "operand of an unsupported type or without a value");
    if (Status s = execute(&op); !s)
      return s;
  }
  return makeError(ErrorCode::Internal, "block without a terminator");
}

} // namespace

//===----------------------------------------------------------------------===//
// 4. The driver
//===----------------------------------------------------------------------===//

Result<std::vector<HostArray>> interpret(func::FuncOp func,
                                         const std::vector<HostArray> &inputs) {
  std::string fname = "@" + func.getSymName().str();
  if (func.isExternal())
    return makeError(ErrorCode::InvalidArgument,
                     "function " + fname + " has no body");
  if (inputs.size() != func.getNumArguments())
    return makeError(ErrorCode::InvalidArgument,
                     "function " + fname + " takes " +
                         std::to_string(func.getNumArguments()) +
                         " inputs, but " + std::to_string(inputs.size()) +
                         " were given");
  Interpreter interp;
  Block &body = func.getBody().front();
  for (unsigned a = 0; a < func.getNumArguments(); ++a) {
    BlockArgument arg = body.getArgument(a);
    auto type = dyn_cast<StridedTensorType>(arg.getType());
    std::string name = "input '" + argumentName(func, a) + "'";
    if (!type)
      return makeError(ErrorCode::InvalidArgument,
                       name + " of " + fname + " has the unsupported type " +
                           typeString(arg.getType()));
    const HostArray &in = inputs[a];
    DType dtype = type.getDType();
    Dims shape(type.getShape().begin(), type.getShape().end());
    if (in.dtype != dtype || in.shape != shape)
      return makeError(ErrorCode::InvalidArgument,
                       name + " expects " + std::string(dtypeName(dtype)) +
                           " of shape " + formatDims(shape) +
                           ", but was given " +
                           std::string(dtypeName(in.dtype)) + " of shape " +
                           formatDims(in.shape));
    if (in.data.size() != static_cast<size_t>(in.numElements()) * dtypeSize(in.dtype))
      return makeError(ErrorCode::InvalidArgument,
                       name + ": the data size does not match the shape");
    Tensor t = allocate(type);
    std::vector<int64_t> to = addressesOf(t.layout);
    for (size_t e = 0; e < to.size(); ++e) {
      if (t.isF())
        t.setF(to[e], hostArrayElement(in, e));
      else
        t.setI(to[e], hostArrayInt(in, e));
    }
    // An argument layout whose elements share addresses can only hold
    // arrays whose sharing elements are equal.
    for (size_t e = 0; e < to.size(); ++e) {
      bool same = t.isF() ? (t.getF(to[e]) == hostArrayElement(in, e) ||
                             (std::isnan(t.getF(to[e])) &&
                              std::isnan(hostArrayElement(in, e))))
                          : t.getI(to[e]) == hostArrayInt(in, e);
      if (!same)
        return makeError(ErrorCode::InvalidArgument,
                         name +
                             ": the argument's layout makes elements share "
                             "an address, but the given values differ there");
    }
    interp.values[arg] = std::move(t);
  }
  std::vector<Tensor> results;
  if (Status s = interp.run(body, &results); !s)
    return s.error();
  std::vector<HostArray> out;
  for (const Tensor &t : results) {
    HostArray a;
    a.dtype = t.dtype;
    a.shape = t.layout.shape;
    a.data.assign(a.numElements() * dtypeSize(a.dtype), 0);
    std::vector<int64_t> from = addressesOf(t.layout);
    for (size_t e = 0; e < from.size(); ++e) {
      if (t.isF())
        putFloat(a, e, t.getF(from[e]));
      else
        putInt(a, e, t.getI(from[e]));
    }
    out.push_back(std::move(a));
  }
  return out;
}

} // namespace stride
