//===- Interpreter.cpp - The reference interpreter of stride graphs -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// See Interpreter.h for the model and python-free-docs/interpreter.md for the
// semantic decisions. Structure of this file:
//
//   1. element conversions (rounding to f16/bf16/f32, integer wrapping,
//      host-array encoding and decoding, number formatting);
//   2. Tensor: shared storage + layout + dtype, with address enumeration
//      (the type itself is in InterpreterImpl.h);
//   3. the op dispatch, kernels and blocks; the ops themselves are in one
//      file per family: Pointwise.cpp (element-wise ops, casts, creation),
//      Views.cpp (views, copies, slice/select scatters, cat), IndexOps.cpp
//      (scatters, gathers, index_select), Reductions.cpp (reductions,
//      cumsum), Matmul.cpp and Convolution.cpp;
//   4. the driver: binds arguments, walks the function (and kernel bodies)
//      and converts the results.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Location.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace mlir;

namespace stride {

using namespace interp;

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

} // namespace

namespace interp {

double apToDouble(llvm::APFloat a) {
  bool lost = false;
  a.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return a.convertToDouble();
}

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

int64_t wrapInt(DType t, int64_t v) {
  switch (t) {
  case DType::I1: return v != 0;
  case DType::I8: return static_cast<int8_t>(static_cast<uint8_t>(v));
  case DType::I32: return static_cast<int32_t>(static_cast<uint32_t>(v));
  default: return v;
  }
}

double intToFloat(DType t, int64_t v) {
  llvm::APFloat a(semanticsOf(t));
  a.convertFromAPInt(llvm::APInt(64, static_cast<uint64_t>(v), true),
                     /*IsSigned=*/true, llvm::APFloat::rmNearestTiesToEven);
  return apToDouble(a);
}

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

double geluTanh(double x) {
  const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

} // namespace interp

namespace {

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
  case DType::BF16: {
    // The upper half of an f32: exact, and much cheaper than an APFloat
    // (stride-fold-constants reads a model's weights through here).
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    uint32_t wide = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
  }
  case DType::F16: {
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

namespace interp {

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
// 3. The op dispatch (the ops are in one file per family)
//===----------------------------------------------------------------------===//

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
            SigmoidOp, ReluOp, GeluOp, GeluTanhOp, SinOp, CosOp, NotOp, TanOp,
            AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
            Expm1Op, Log1pOp, Log2Op, Log10Op, FloorOp, CeilOp, RoundOp,
            TruncOp, SignOp>([&](Operation *o) { return unary(o); })
      .Case<AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, AndOp,
            OrOp, XorOp, Atan2Op, FmodOp, RemainderOp>(
          [&](Operation *o) { return binary(o); })
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
      .Case([&](AttentionOp o) { return attention(o); })
      .Case([&](AttentionBackwardOp o) { return attentionBackward(o); })
      .Case([&](ConvolutionOp o) { return convolution(o); })
      .Case([&](ConvolutionWeightGradientOp o) {
        return convolutionWeightGradient(o);
      })
      .Case([&](KernelOp o) { return kernel(o); })
      // Both operands are the value; the variant may be a kernel at other
      // sizes than these (python-free-docs/symbolic-sizes.md).
      .Case([&](SelectVariantOp o) {
        values[o.getResult()] = get(o.getOtherwise());
        return Status::ok();
      })
      .Case<AllReduceOp, AllGatherOp, ReduceScatterOp>(
          [&](Operation *o) { return singleRankCollective(o); })
      .Default([&](Operation *o) { return fail(o, "unsupported op"); });
}

Status Interpreter::runUntilCollective(Block::iterator &next) {
  for (; !next->hasTrait<OpTrait::IsTerminator>() && !needsOtherRanks(&*next);
       ++next) {
    Operation &op = *next;
    for (Value v : op.getOperands())
      if (!values.count(v) || !isa<StridedTensorType>(v.getType()))
        return fail(&op, "operand of an unsupported type or without a value");
    if (Status s = execute(&op); !s)
      return s;
  }
  return Status::ok();
}

Status Interpreter::run(Block &block, std::vector<Tensor> *returned) {
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
    return makeError(ErrorCode::Internal, "block without a terminator");
  Block::iterator next = block.begin();
  if (Status s = runUntilCollective(next); !s)
    return s;
  if (needsOtherRanks(&*next))
    return singleRankCollective(&*next);
  for (Value v : next->getOperands())
    returned->push_back(get(v));
  return Status::ok();
}

} // namespace interp

//===----------------------------------------------------------------------===//
// 4. The driver
//===----------------------------------------------------------------------===//

Status checkStaticShapes(func::FuncOp func) {
  // Every value's storage is sized from its static shape.
  if (std::optional<SymbolicValue> symbolic = firstSymbolicValue(func))
    return makeError(ErrorCode::InvalidArgument,
                     "function @" + func.getSymName().str() +
                         " has the symbolic size '" + symbolic->symbol +
                         "'; the reference interpreter runs static shapes "
                         "only (symbolic sizes: issue 44)");
  return Status::ok();
}

Status interp::bindArguments(Interpreter &interp, func::FuncOp func,
                             const std::vector<HostArray> &inputs) {
  std::string fname = "@" + func.getSymName().str();
  if (func.isExternal())
    return makeError(ErrorCode::InvalidArgument,
                     "function " + fname + " has no body");
  if (Status s = checkStaticShapes(func); !s)
    return s;
  if (inputs.size() != func.getNumArguments())
    return makeError(ErrorCode::InvalidArgument,
                     "function " + fname + " takes " +
                         std::to_string(func.getNumArguments()) +
                         " inputs, but " + std::to_string(inputs.size()) +
                         " were given");
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
  return Status::ok();
}

std::vector<HostArray>
interp::toHostArrays(const std::vector<Tensor> &results) {
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

Result<std::vector<HostArray>> interpret(func::FuncOp func,
                                         const std::vector<HostArray> &inputs) {
  Interpreter interp;
  if (Status s = bindArguments(interp, func, inputs); !s)
    return s.error();
  std::vector<Tensor> results;
  if (Status s = interp.run(func.getBody().front(), &results); !s)
    return s.error();
  return toHostArrays(results);
}

} // namespace stride
