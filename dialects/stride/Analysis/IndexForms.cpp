//===- IndexForms.cpp - Integer tensors as affine functions of indices ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The rules of IndexForms.h, op by op. Every rule holds for every value of
// the symbols and of the inputs: where one cannot be shown from the op, the
// value has no form.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/IndexForms.h"

#include "dialects/stride/IR/IndexMaps.h"
#include "dialects/stride/IR/StrideOps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace stride {

bool IndexForm::isUniform() const {
  return llvm::all_of(coefficients, [](int64_t c) { return c == 0; });
}

bool IndexForm::isConstant() const { return isUniform() && !scalar; }

namespace {

StridedTensorType typeOf(Value v) {
  return cast<StridedTensorType>(v.getType());
}

/// Whether every dim of `type` has the static size 1 (a rank-0 tensor
/// too): one element.
bool isSingleElement(StridedTensorType type) {
  return llvm::all_of(type.getSymbolicLayout().shape, [](const SizeExpr &s) {
    return s.getConstant() == 1;
  });
}

/// The form of a value of `type` whose every element is `constant`.
IndexForm constantForm(StridedTensorType type, int64_t constant) {
  IndexForm f;
  f.coefficients.assign(type.getRank(), 0);
  f.constant = constant;
  return f;
}

/// A form over `type`'s coordinates that reads none of them: `source`'s
/// constant and scalar.
IndexForm uniformPart(StridedTensorType type, const IndexForm &source) {
  IndexForm f = constantForm(type, source.constant);
  f.scalar = source.scalar;
  f.scalarCoefficient = source.scalarCoefficient;
  return f;
}

/// `f` with the coefficients of `type`'s dims of size 1 set to 0.
IndexForm normalized(IndexForm f, StridedTensorType type) {
  SizeExprs shape = type.getSymbolicLayout().shape;
  for (auto [c, size] : llvm::zip(f.coefficients, shape))
    if (size.getConstant() == 1)
      c = 0;
  return f;
}

/// `x` as an integer, if it is one small enough to add without overflow.
std::optional<int64_t> integral(double x) {
  if (std::trunc(x) != x || std::fabs(x) > double(int64_t(1) << 52))
    return std::nullopt;
  return int64_t(x);
}

/// The splat value of a constant op or a full, if it is an integer.
std::optional<int64_t> splatValue(Operation *op) {
  if (auto full = dyn_cast_or_null<FullOp>(op))
    return integral(full.getValue().convertToDouble());
  auto constant = dyn_cast_or_null<ConstantOp>(op);
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  Type element = dense.getElementType();
  if (auto integer = dyn_cast<IntegerType>(element))
    return integer.getWidth() == 1
               ? int64_t(dense.getSplatValue<bool>())
               : dense.getSplatValue<APInt>().getSExtValue();
  if (isa<FloatType>(element))
    return integral(dense.getSplatValue<APFloat>().convertToDouble());
  return std::nullopt;
}

/// `a + sign * b`, if their scalars combine into one.
std::optional<IndexForm> combine(const IndexForm &a, const IndexForm &b,
                                 int64_t sign) {
  if (a.coefficients.size() != b.coefficients.size())
    return std::nullopt;
  IndexForm sum = a;
  for (auto [s, c] : llvm::zip(sum.coefficients, b.coefficients))
    s += sign * c;
  sum.constant += sign * b.constant;
  if (b.scalar) {
    if (sum.scalar && sum.scalar != b.scalar)
      return std::nullopt;
    sum.scalar = b.scalar;
    sum.scalarCoefficient += sign * b.scalarCoefficient;
  }
  if (sum.scalarCoefficient == 0)
    sum.scalar = Value();
  return sum;
}

IndexForm scaled(IndexForm f, int64_t factor) {
  for (int64_t &c : f.coefficients)
    c *= factor;
  f.constant *= factor;
  f.scalarCoefficient *= factor;
  if (f.scalarCoefficient == 0)
    f.scalar = Value();
  return f;
}

/// Adds `factor * expr` to `f`'s coefficients and constant, where `expr`
/// is a sum of multiples of dims and a constant. Fails on anything else
/// (a floordiv, a mod, a symbol).
LogicalResult addLinear(IndexForm &f, AffineExpr expr, int64_t factor) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    f.constant += factor * c.getValue();
    return success();
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    f.coefficients[d.getPosition()] += factor;
    return success();
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return failure();
  if (binary.getKind() == AffineExprKind::Add)
    return success(succeeded(addLinear(f, binary.getLHS(), factor)) &&
                   succeeded(addLinear(f, binary.getRHS(), factor)));
  if (binary.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS()))
      return addLinear(f, binary.getLHS(), factor * c.getValue());
  return failure();
}

/// The form of a view of a rank-matching source whose non-unit dims are
/// the result's, in order (a reshape that only adds or drops dims of size
/// 1, which has no index map over symbolic sizes).
std::optional<IndexForm> throughUnitDims(const IndexForm &source,
                                         StridedTensorType sourceType,
                                         StridedTensorType resultType) {
  auto nonUnit = [](StridedTensorType t) {
    SmallVector<std::pair<int64_t, SizeExpr>> dims;
    for (auto [d, size] : llvm::enumerate(t.getSymbolicLayout().shape))
      if (size.getConstant() != 1)
        dims.push_back({int64_t(d), size});
    return dims;
  };
  auto from = nonUnit(sourceType), to = nonUnit(resultType);
  if (from.size() != to.size())
    return std::nullopt;
  IndexForm f = uniformPart(resultType, source);
  for (auto [a, b] : llvm::zip(from, to)) {
    if (a.second != b.second)
      return std::nullopt;
    f.coefficients[b.first] = source.coefficients[a.first];
  }
  return f;
}

/// The form of `cat` along `dim`: the pieces are one form shifted by each
/// piece's start (a piece of size 1 along `dim` need only agree at its one
/// coordinate).
std::optional<IndexForm> catForm(CatOp cat, IndexFormAnalysis &analysis) {
  int64_t dim = cat.getDim();
  StridedTensorType resultType = typeOf(cat.getResult());
  std::optional<IndexForm> whole;
  SizeExpr start = SizeExpr::constant(0);
  SmallVector<std::tuple<IndexForm, SizeExpr, bool>> pieces;
  for (Value input : cat.getInputs()) {
    std::optional<IndexForm> f = analysis.form(input);
    if (!f)
      return std::nullopt;
    SizeExpr size = typeOf(input).getSymbolicLayout().shape[dim];
    pieces.push_back({*f, start, size.getConstant() == 1});
    std::optional<SizeExpr> next = start.plus(size);
    if (!next)
      return std::nullopt;
    start = *next;
  }
  // The form from the first piece longer than 1: value(x) = piece(x - s).
  for (auto &[f, at, unit] : pieces) {
    if (unit)
      continue;
    std::optional<int64_t> s = at.getConstant();
    if (!s && f.coefficients[dim] != 0)
      return std::nullopt;
    whole = f;
    whole->constant -= f.coefficients[dim] * s.value_or(0);
    break;
  }
  if (!whole) // every piece has size 1 along dim: uniform pieces only
    whole = std::get<0>(pieces.front());
  for (auto &[f, at, unit] : pieces) {
    IndexForm expected = *whole;
    std::optional<int64_t> s = at.getConstant();
    if (whole->coefficients[dim] != 0 && !s)
      return std::nullopt;
    expected.constant += whole->coefficients[dim] * s.value_or(0);
    if (unit)
      expected.coefficients[dim] = f.coefficients[dim];
    if (expected.coefficients != f.coefficients ||
        expected.constant != f.constant || expected.scalar != f.scalar ||
        expected.scalarCoefficient != f.scalarCoefficient)
      return std::nullopt;
  }
  return normalized(*whole, resultType);
}

/// `a and b` (`a or b`) where one of them is true or false everywhere.
std::optional<IndexPredicate> logical(bool isAnd, const IndexPredicate &a,
                                      const IndexPredicate &b) {
  for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    if (isAnd ? x->isFalse() : x->isTrue())
      return *x;
    if (isAnd ? x->isTrue() : x->isFalse())
      return *y;
  }
  return std::nullopt;
}

/// The predicate `lhs - rhs <pred> 0`, decided where the difference is a
/// constant.
IndexPredicate compare(CmpPredicate pred, const IndexForm &difference) {
  using Kind = IndexPredicate::Kind;
  IndexPredicate p;
  switch (pred) {
  case CmpPredicate::le: p = {Kind::AtMostZero, difference}; break;
  case CmpPredicate::lt: // a < b: a - b + 1 <= 0 over integers
    p = {Kind::AtMostZero, difference};
    p.form.constant += 1;
    break;
  case CmpPredicate::ge: p = {Kind::AtMostZero, scaled(difference, -1)}; break;
  case CmpPredicate::gt:
    p = {Kind::AtMostZero, scaled(difference, -1)};
    p.form.constant += 1;
    break;
  case CmpPredicate::eq: p = {Kind::Zero, difference}; break;
  case CmpPredicate::ne: p = {Kind::NonZero, difference}; break;
  }
  if (!p.form.isConstant())
    return p;
  int64_t c = p.form.constant;
  bool holds = p.kind == Kind::AtMostZero ? c <= 0
               : p.kind == Kind::Zero     ? c == 0
                                          : c != 0;
  return IndexPredicate::always(holds);
}

} // namespace

std::optional<IndexForm> IndexFormAnalysis::form(Value value) {
  if (auto it = forms.find(value); it != forms.end())
    return it->second;
  forms[value] = std::nullopt; // a cycle (none in SSA) reads as no form
  std::optional<IndexForm> f = computeForm(value);
  if (f)
    f = normalized(*f, typeOf(value));
  return forms[value] = f;
}

std::optional<IndexPredicate> IndexFormAnalysis::predicate(Value value) {
  if (auto it = predicates.find(value); it != predicates.end())
    return it->second;
  predicates[value] = std::nullopt;
  std::optional<IndexPredicate> p = computePredicate(value);
  if (p)
    p->form = normalized(p->form, typeOf(value));
  return predicates[value] = p;
}

std::optional<IndexForm>
IndexFormAnalysis::throughView(Value value, Value source,
                               const IndexForm &sourceForm) {
  StridedTensorType type = typeOf(value);
  if (sourceForm.isUniform())
    return uniformPart(type, sourceForm);
  auto view = value.getDefiningOp<ViewOpInterface>();
  if (auto slice = dyn_cast<SliceOp>(view.getOperation());
      slice && slice.hasSymbolicBounds()) {
    // The map reads the static start only: a symbolic start must not
    // move a coordinate the form reads.
    std::optional<int64_t> start = slice.getStartExpr().getConstant();
    if (!start && sourceForm.coefficients[slice.getDim()] != 0)
      return std::nullopt;
    IndexForm f = sourceForm;
    f.constant += f.coefficients[slice.getDim()] * start.value_or(0);
    f.coefficients[slice.getDim()] *= slice.getStep();
    return f;
  }
  AffineMap map = view.getIndexMap();
  if (!map)
    return throughUnitDims(sourceForm, typeOf(source), type);
  IndexForm f = uniformPart(type, sourceForm);
  // Within the result's bounds a reshape's floordiv and mod often fold
  // ([96] as [2, 48]: 48 * d0 + d1).
  for (auto [d, c] : llvm::enumerate(sourceForm.coefficients))
    if (c != 0 && failed(addLinear(
                      f, simplifyInBounds(map.getResult(d), type.getShape()),
                      c)))
      return std::nullopt;
  return f;
}

std::optional<IndexForm> IndexFormAnalysis::computeForm(Value value) {
  StridedTensorType type = typeOf(value);
  Type element = type.getElementType();
  if (!element.isInteger() || element.isInteger(1))
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  if (std::optional<int64_t> splat = splatValue(def))
    return constantForm(type, *splat);
  // A single integer of the inputs (or computed some other way) is the
  // scalar read at run time.
  auto opaque = [&]() -> std::optional<IndexForm> {
    if (!isSingleElement(type))
      return std::nullopt;
    IndexForm f = constantForm(type, 0);
    f.scalar = value;
    f.scalarCoefficient = 1;
    return f;
  };
  if (!def)
    return opaque();
  auto binary = [&](Value a, Value b,
                    int64_t sign) -> std::optional<IndexForm> {
    std::optional<IndexForm> fa = form(a), fb = form(b);
    if (!fa || !fb)
      return std::nullopt;
    return combine(*fa, *fb, sign);
  };
  std::optional<IndexForm> f =
      llvm::TypeSwitch<Operation *, std::optional<IndexForm>>(def)
          .Case([&](IotaOp iota) -> std::optional<IndexForm> {
            IndexForm i = constantForm(type, 0);
            i.coefficients[iota.getDim()] = 1;
            return i;
          })
          .Case([&](AddOp add) { return binary(add.getLhs(), add.getRhs(), 1); })
          .Case([&](SubOp sub) { return binary(sub.getLhs(), sub.getRhs(), -1); })
          .Case([&](MulOp mul) -> std::optional<IndexForm> {
            std::optional<IndexForm> a = form(mul.getLhs()),
                                     b = form(mul.getRhs());
            if (a && b && b->isConstant())
              return scaled(*a, b->constant);
            if (a && b && a->isConstant())
              return scaled(*b, a->constant);
            return std::nullopt;
          })
          .Case([&](CloneOp clone) { return form(clone.getInput()); })
          .Case([&](CatOp cat) { return catForm(cat, *this); })
          .Case([&](CastOp cast) -> std::optional<IndexForm> {
            // Integers of 32 bits or more keep their values (index
            // arithmetic stays far from their limits); booleans are 0 or 1.
            Value input = cast.getInput();
            Type from = typeOf(input).getElementType();
            if (element.getIntOrFloatBitWidth() < 32)
              return std::nullopt;
            if (from.isInteger(1)) {
              std::optional<IndexPredicate> p = predicate(input);
              if (p && (p->isTrue() || p->isFalse()))
                return constantForm(type, p->isTrue() ? 1 : 0);
              return std::nullopt;
            }
            return from.isInteger() ? form(input) : std::nullopt;
          })
          .Case([&](CumsumOp cumsum) -> std::optional<IndexForm> {
            // A running sum of a constant c: c * (x[dim] + 1).
            std::optional<IndexForm> in = form(cumsum.getInput());
            if (!in || !in->isConstant())
              return std::nullopt;
            IndexForm sum = constantForm(type, in->constant);
            sum.coefficients[cumsum.getDim()] = in->constant;
            return sum;
          })
          .Case<IndexSelectOp, GatherOp>(
              [&](auto indexed) -> std::optional<IndexForm> {
                // Every element read from a constant input is the same.
                std::optional<IndexForm> in = form(indexed.getInput());
                if (!in || !in->isConstant())
                  return std::nullopt;
                return constantForm(type, in->constant);
              })
          .Case([&](ViewOpInterface view) -> std::optional<IndexForm> {
            Value source = view.getSource();
            std::optional<IndexForm> in = form(source);
            if (!in)
              return std::nullopt;
            return throughView(value, source, *in);
          })
          .Default([](Operation *) { return std::nullopt; });
  return f ? f : opaque();
}

std::optional<IndexPredicate> IndexFormAnalysis::computePredicate(Value value) {
  StridedTensorType type = typeOf(value);
  if (!type.getElementType().isInteger(1))
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  if (std::optional<int64_t> splat = splatValue(def))
    return IndexPredicate::always(*splat != 0);
  if (!def)
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<IndexPredicate>>(def)
      .Case([&](CmpOp cmp) -> std::optional<IndexPredicate> {
        std::optional<IndexForm> a = form(cmp.getLhs()), b = form(cmp.getRhs());
        if (!a || !b)
          return std::nullopt;
        std::optional<IndexForm> difference = combine(*a, *b, -1);
        if (!difference)
          return std::nullopt;
        return compare(cmp.getPredicate(), *difference);
      })
      .Case([&](AndOp op) -> std::optional<IndexPredicate> {
        std::optional<IndexPredicate> a = predicate(op.getLhs()),
                                      b = predicate(op.getRhs());
        return a && b ? logical(/*isAnd=*/true, *a, *b) : std::nullopt;
      })
      .Case([&](OrOp op) -> std::optional<IndexPredicate> {
        std::optional<IndexPredicate> a = predicate(op.getLhs()),
                                      b = predicate(op.getRhs());
        return a && b ? logical(/*isAnd=*/false, *a, *b) : std::nullopt;
      })
      .Case([&](NotOp op) -> std::optional<IndexPredicate> {
        std::optional<IndexPredicate> a = predicate(op.getInput());
        if (!a || !(a->isTrue() || a->isFalse()))
          return std::nullopt;
        return IndexPredicate::always(a->isFalse());
      })
      .Case([&](CloneOp clone) { return predicate(clone.getInput()); })
      .Case([&](ViewOpInterface view) -> std::optional<IndexPredicate> {
        Value source = view.getSource();
        std::optional<IndexPredicate> in = predicate(source);
        if (!in)
          return std::nullopt;
        if (in->isTrue() || in->isFalse())
          return *in;
        std::optional<IndexForm> f = throughView(value, source, in->form);
        if (!f)
          return std::nullopt;
        return IndexPredicate{in->kind, *f};
      })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace stride
