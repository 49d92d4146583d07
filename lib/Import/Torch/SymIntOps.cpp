//===- SymIntOps.cpp - Size queries and arithmetic on SymInts -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's nodes that compute SymInts and SymBools rather than
// tensors, as torch.export writes them for dynamic shapes
// (python-free-docs/symbolic-sizes.md): the size queries (sym_size,
// sym_stride, sym_numel, sym_storage_offset), Python's arithmetic and
// comparisons on them (operator.mul, operator.floordiv, operator.ge), and
// the checks torch inserts (_assert_scalar, sym_constrain_range_for_size).
// Each builds no op: its value is an expression that later nodes read
// where they take a size (NodeImporter::size).
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace stride::torch {

namespace {

SymbolicLayout layoutOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getSymbolicLayout();
}

//===----------------------------------------------------------------------===//
// Size queries
//===----------------------------------------------------------------------===//

/// sym_size(self, dim) and sym_stride(self, dim): the entry of the type.
template <bool strides> LogicalResult entryQuery(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(self) ? n.dim("dim", rankOf(*self), std::nullopt) : Fail();
  if (failed(dim))
    return failure();
  SymbolicLayout layout = layoutOf(*self);
  n.setSymbolicOutput(0, strides ? layout.strides[*dim] : layout.shape[*dim]);
  return success();
}

/// sym_numel(self): the product of the sizes.
LogicalResult numelQuery(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  if (failed(self))
    return failure();
  std::optional<SizeExpr> product = numElements(layoutOf(*self).shape);
  if (!product)
    return n.error() << "sym_numel overflows";
  n.setSymbolicOutput(0, *product);
  return success();
}

/// sym_storage_offset(self).
LogicalResult offsetQuery(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  if (failed(self))
    return failure();
  n.setSymbolicOutput(0, layoutOf(*self).offset);
  return success();
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// Python's `a OP b` on SymInts (operator.mul/add/sub): the polynomial.
template <std::optional<SizeExpr> (SizeExpr::*op)(const SizeExpr &) const>
LogicalResult arithmetic(NodeImporter &n) {
  FailureOr<SizeExpr> a = n.size("a", std::nullopt);
  FailureOr<SizeExpr> b = succeeded(a) ? n.size("b", std::nullopt) : Fail();
  if (failed(b))
    return failure();
  std::optional<SizeExpr> result = ((*a).*op)(*b);
  if (!result)
    return n.error() << "the SymInt arithmetic on " << a->str() << " and "
                     << b->str() << " overflows";
  n.setSymbolicOutput(0, *result);
  return success();
}

/// `a` divided by `b` where the quotient is a polynomial with integer
/// coefficients: a constant divisor of every coefficient (`(s0*64)//8` is
/// `s0*8`), or a monomial that divides `a`'s one term (`(s0*s1)//s1`).
std::optional<SizeExpr> exactQuotient(const SizeExpr &a, const SizeExpr &b) {
  std::optional<int64_t> divisor = b.getConstant();
  if (!divisor)
    return b.dividedInto(a);
  if (*divisor <= 0)
    return std::nullopt;
  std::vector<std::pair<int64_t, SizeExpr::Monomial>> terms;
  for (const auto &[monomial, coefficient] : a.terms()) {
    if (coefficient % *divisor != 0)
      return std::nullopt;
    terms.push_back({coefficient / *divisor, monomial});
  }
  return SizeExpr::fromTerms(terms);
}

/// operator.floordiv(a, b): exact divisions only (a size is a polynomial;
/// `s0 // 2` is not one).
LogicalResult floordiv(NodeImporter &n) {
  FailureOr<SizeExpr> a = n.size("a", std::nullopt);
  FailureOr<SizeExpr> b = succeeded(a) ? n.size("b", std::nullopt) : Fail();
  if (failed(b))
    return failure();
  std::optional<SizeExpr> quotient = exactQuotient(*a, *b);
  if (!quotient)
    return n.error() << "operator.floordiv: " << a->str() << " // "
                     << b->str()
                     << " does not divide exactly for every value of the "
                        "symbols; Stride's sizes are polynomials of the "
                        "symbols (export a dim that is a multiple of "
                     << b->str() << " as Dim * " << b->str() << ")";
  n.setSymbolicOutput(0, *quotient);
  return success();
}

//===----------------------------------------------------------------------===//
// Comparisons and checks
//===----------------------------------------------------------------------===//

enum class Relation { eq, ne, lt, le, gt, ge };

/// `a - b` compared with 0 over the symbols' ranges: the relation's value
/// where the bounds of the difference decide it, nullopt otherwise.
std::optional<bool> decide(Relation relation, const SizeExpr &a,
                           const SizeExpr &b, const SymbolRanges &ranges) {
  std::optional<SizeExpr> difference = a.minus(b);
  std::optional<SizeInterval> d =
      difference ? difference->bounds(ranges) : std::nullopt;
  if (!d)
    return std::nullopt;
  auto decided = [](bool always, bool never) -> std::optional<bool> {
    if (always)
      return true;
    if (never)
      return false;
    return std::nullopt;
  };
  switch (relation) {
  case Relation::eq: return decided(d->lo == 0 && d->hi == 0, d->lo > 0 || d->hi < 0);
  case Relation::ne: return decided(d->lo > 0 || d->hi < 0, d->lo == 0 && d->hi == 0);
  case Relation::lt: return decided(d->hi < 0, d->lo >= 0);
  case Relation::le: return decided(d->hi <= 0, d->lo > 0);
  case Relation::gt: return decided(d->lo > 0, d->hi <= 0);
  case Relation::ge: return decided(d->lo >= 0, d->hi < 0);
  }
  return std::nullopt;
}

/// operator.eq/ne/lt/le/gt/ge on SymInts: a SymBool, decided over the
/// ranges where it can be.
template <Relation relation> LogicalResult comparison(NodeImporter &n) {
  FailureOr<SizeExpr> a = n.size("a", std::nullopt);
  FailureOr<SizeExpr> b = succeeded(a) ? n.size("b", std::nullopt) : Fail();
  if (failed(b))
    return failure();
  n.setSymbolicBoolOutput(0, decide(relation, *a, *b, n.symbolRanges()));
  return success();
}

/// _assert_scalar(self, assert_msg): nothing where the SymBool holds or
/// depends on the symbols (the ranges are the run time's check); an error
/// where it fails for every value.
LogicalResult assertScalar(NodeImporter &n) {
  FailureOr<std::optional<bool>> holds = n.symbolicBool("self");
  FailureOr<std::string> message =
      succeeded(holds) ? n.string("assert_msg", "") : Fail();
  if (failed(message))
    return failure();
  if (*holds == std::optional<bool>(false))
    return n.error() << "_assert_scalar fails for every value of the symbols "
                        "in their ranges: "
                     << *message;
  return success();
}

/// sym_constrain_range(_for_size)(size, min, max): nothing where the size's
/// bounds over the ranges may lie in [min, max]; an error where they never
/// do.
LogicalResult constrainRange(NodeImporter &n) {
  FailureOr<SizeExpr> size = n.size("size", std::nullopt);
  FailureOr<SizeExpr> min = succeeded(size) ? n.size("min", 0) : Fail();
  FailureOr<SizeExpr> max =
      succeeded(min) ? n.size("max", std::numeric_limits<int64_t>::max())
                     : Fail();
  if (failed(max))
    return failure();
  std::optional<bool> below = decide(Relation::lt, *size, *min, n.symbolRanges());
  std::optional<bool> above = decide(Relation::gt, *size, *max, n.symbolRanges());
  if (below == std::optional<bool>(true) || above == std::optional<bool>(true))
    return n.error() << "the size " << size->str() << " lies outside ["
                     << min->str() << ", " << max->str()
                     << "] for every value of the symbols in their ranges";
  return success();
}

const llvm::StringSet<> &checks() {
  static const llvm::StringSet<> ops = {
      "aten._assert_scalar.default",
      "aten.sym_constrain_range.default",
      "aten.sym_constrain_range_for_size.default",
  };
  return ops;
}

const llvm::StringSet<> &scalarOps() {
  static const llvm::StringSet<> ops = {
      "aten.sym_size.int",       "aten.sym_stride.int",
      "aten.sym_numel.default",  "aten.sym_storage_offset.default",
      "_operator.mul",           "_operator.add",
      "_operator.sub",           "_operator.floordiv",
      "_operator.eq",            "_operator.ne",
      "_operator.lt",            "_operator.le",
      "_operator.gt",            "_operator.ge",
  };
  return ops;
}

} // namespace

bool isSymbolicScalarOp(llvm::StringRef op) {
  return scalarOps().contains(op);
}

bool isSymbolicCheck(llvm::StringRef op) { return checks().contains(op); }

/// Adds the SymInt and SymBool nodes to the table.
void addSymIntOps(OpTable &ops) {
  ops.insert({
      {"aten.sym_size.int", entryQuery<false>},
      {"aten.sym_stride.int", entryQuery<true>},
      {"aten.sym_numel.default", numelQuery},
      {"aten.sym_storage_offset.default", offsetQuery},
      {"_operator.mul", arithmetic<&SizeExpr::times>},
      {"_operator.add", arithmetic<&SizeExpr::plus>},
      {"_operator.sub", arithmetic<&SizeExpr::minus>},
      {"_operator.floordiv", floordiv},
      {"_operator.eq", comparison<Relation::eq>},
      {"_operator.ne", comparison<Relation::ne>},
      {"_operator.lt", comparison<Relation::lt>},
      {"_operator.le", comparison<Relation::le>},
      {"_operator.gt", comparison<Relation::gt>},
      {"_operator.ge", comparison<Relation::ge>},
      {"aten._assert_scalar.default", assertScalar},
      {"aten.sym_constrain_range.default", constrainRange},
      {"aten.sym_constrain_range_for_size.default", constrainRange},
  });
}

} // namespace stride::torch
