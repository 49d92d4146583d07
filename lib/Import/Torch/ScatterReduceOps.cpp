//===- ScatterReduceOps.cpp - scatter_reduce and masked_scatter -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's scatter_reduce.two and masked_scatter (issue 42, the rest
// of core ATen), built from Stride's scatters and gathers:
//
// - scatter_reduce sum and mean are scatter_add (duplicates accumulate),
//   the count of writes to each element a scatter_add of ones; without
//   include_self the written elements start at 0. prod, amax and amin
//   compare every index with every target position (a one-hot mask [..,
//   target, source, ..]) and reduce the masked sources, so duplicates
//   combine exactly; a position no index names keeps self.
// - masked_scatter takes source's elements in order: the k-th true
//   element of the mask (row-major) reads source[k], k the running count
//   of the mask (cumsum) minus 1, gathered by index_select.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

#include <limits>

using namespace mlir;

namespace stride::torch {
namespace {

enum class Reduction { Sum, Prod, Mean, Amax, Amin };

std::optional<Reduction> reductionNamed(StringRef name) {
  return llvm::StringSwitch<std::optional<Reduction>>(name)
      .Case("sum", Reduction::Sum)
      .Case("prod", Reduction::Prod)
      .Case("mean", Reduction::Mean)
      .Case("amax", Reduction::Amax)
      .Case("amin", Reduction::Amin)
      .Default(std::nullopt);
}

/// The value that leaves every element unchanged under `r`, as a rank-0
/// tensor: for amax and amin the dtype's lowest and largest (an integer
/// constant, exact where a double is not).
Value identityOf(NodeImporter &n, Reduction r, DType dtype) {
  if (r == Reduction::Prod)
    return n.scalarTensor(1.0, dtype);
  bool largest = r == Reduction::Amin;
  if (isFloat(dtype))
    return n.scalarTensor(largest ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity(),
                          dtype);
  Type element = n.elementType(dtype);
  unsigned width = element.getIntOrFloatBitWidth();
  APInt bound = dtype == DType::I1 ? APInt(1, largest ? 1 : 0)
                : largest          ? APInt::getSignedMaxValue(width)
                                   : APInt::getSignedMinValue(width);
  auto type = RankedTensorType::get({}, element);
  return ConstantOp::create(n.b(), n.location(), n.contiguous({}, dtype),
                            DenseElementsAttr::get(type, bound));
}

/// How many elements of `index` name each element of a tensor of `shape`
/// along `dim` (i64).
Value writeCounts(NodeImporter &n, ArrayRef<int64_t> shape, Value index,
                  int64_t dim) {
  StridedTensorType type = n.contiguous(shape, DType::I64);
  Value zeros =
      FullOp::create(n.b(), n.location(), type, n.b().getF64FloatAttr(0.0));
  Value ones = *n.broadcast(n.scalarTensor(1.0, DType::I64), shapeOf(index));
  return ScatterAddOp::create(n.b(), n.location(), type, zeros, index, ones,
                              uint64_t(dim));
}

/// sum and mean: scatter_add into self (or into 0 where an index writes,
/// without include_self); mean divides by the count of writes (plus self's
/// one), where there is any.
Value scatterSum(NodeImporter &n, Value self, Value index, Value src,
                 int64_t dim, Reduction r, bool includeSelf) {
  ArrayRef<int64_t> shape = shapeOf(self);
  DType dtype = n.outputDType();
  PointwiseBuilder p{n, shape};
  Value counts = writeCounts(n, shape, index, dim);
  Value zero = *p.constant(0.0, DType::I64);
  Value written = p.compare(CmpPredicate::gt, counts, zero);
  Value base = self;
  if (!includeSelf)
    base = p.select(written, *p.constant(0.0, dtype), self);
  Value sum =
      ScatterAddOp::create(n.b(), n.location(), n.contiguous(shape, dtype),
                           base, index, src, uint64_t(dim));
  if (r != Reduction::Mean)
    return sum;
  Value divisor = counts;
  if (includeSelf)
    divisor = p.op<AddOp>(counts, *p.constant(1.0, DType::I64));
  divisor = p.op<MaximumOp>(divisor, *p.constant(1.0, DType::I64));
  return p.op<DivOp>(sum, n.cast(divisor, dtype));
}

/// `x` row-major with a dim of size 1 inserted at `at`, broadcast to
/// `shape`.
Value spreadAlong(NodeImporter &n, Value x, int64_t at,
                  ArrayRef<int64_t> shape) {
  DType dtype = cast<StridedTensorType>(x.getType()).getDType();
  Dims in(shapeOf(x).begin(), shapeOf(x).end());
  Value dense = n.toType(x, n.contiguous(in, dtype));
  in.insert(in.begin() + at, 1);
  Value view =
      ViewOp::create(n.b(), n.location(), n.contiguous(in, dtype), dense);
  return *n.broadcast(view, shape);
}

/// prod, amax and amin: each target position j (along `dim`) against each
/// source position k, [.., j, k, ..]: the sources whose index is j
/// reduced, combined with self where include_self, self where none is.
Value scatterCompared(NodeImporter &n, Value self, Value index, Value src,
                      int64_t dim, Reduction r, bool includeSelf,
                      ArrayRef<int64_t> pairs) {
  DType dtype = n.outputDType();
  ArrayRef<int64_t> shape = shapeOf(self);
  PointwiseBuilder p{n, pairs};
  Value target = IotaOp::create(n.b(), n.location(),
                                n.contiguous(pairs, DType::I64), uint64_t(dim));
  Value named = spreadAlong(n, n.cast(index, DType::I64), dim, pairs);
  Value hit = p.compare(CmpPredicate::eq, named, target);
  Layout l = cast<StridedTensorType>(src.getType()).getLayout();
  l.shape = Dims(shapeOf(index).begin(), shapeOf(index).end());
  Value part = AsStridedOp::create(
      n.b(), n.location(), cast<StridedTensorType>(src.getType()).withLayout(l),
      src);
  Value sources = spreadAlong(n, n.cast(part, dtype), dim, pairs);
  Value identity = *n.broadcast(identityOf(n, r, dtype), pairs);
  Value masked = p.select(hit, sources, identity);
  int64_t dims[] = {dim + 1};
  StridedTensorType type = n.contiguous(shape, dtype);
  Value reduced;
  if (r == Reduction::Prod)
    reduced = ProdOp::create(n.b(), n.location(), type, masked, dims, false);
  else if (r == Reduction::Amax)
    reduced = MaxOp::create(n.b(), n.location(), type, masked, dims, false);
  else
    reduced = MinOp::create(n.b(), n.location(), type, masked, dims, false);
  Value written = AnyOp::create(
      n.b(), n.location(), n.contiguous(shape, DType::I1), hit, dims, false);
  PointwiseBuilder q{n, shape};
  if (includeSelf) {
    if (r == Reduction::Prod)
      reduced = q.op<MulOp>(self, reduced);
    else if (r == Reduction::Amax)
      reduced = q.op<MaximumOp>(self, reduced);
    else
      reduced = q.op<MinimumOp>(self, reduced);
  }
  return q.select(written, reduced, self);
}

/// scatter_reduce.two(self, dim, index, src, reduce, include_self=True).
LogicalResult scatterReduce(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(self) ? n.dim("dim", rankOf(*self), std::nullopt) : Fail();
  FailureOr<Value> index = succeeded(dim) ? n.tensor("index") : Fail();
  FailureOr<Value> src = succeeded(index) ? n.tensor("src") : Fail();
  FailureOr<std::string> name =
      succeeded(src) ? n.string("reduce", "") : Fail();
  FailureOr<bool> includeSelf =
      succeeded(name) ? n.boolean("include_self", true) : Fail();
  if (failed(includeSelf))
    return failure();
  std::optional<Reduction> r = reductionNamed(*name);
  if (!r)
    return n.error() << "scatter_reduce with reduce '" << *name
                     << "'; PyTorch's are sum, prod, mean, amax and amin";
  DType dtype = n.outputDType();
  if (r == Reduction::Mean && !isFloat(dtype))
    return n.error() << "scatter_reduce mean of " << dtypeName(dtype)
                     << " is not imported: Stride takes floating-point mean";
  if (failed(expectOutputShape(n, 0, shapeOf(*self))))
    return failure();
  if (rankOf(*index) != rankOf(*self) || rankOf(*src) != rankOf(*self))
    return n.error() << "scatter_reduce takes self, index and src of one rank";
  Value x = n.cast(*self, dtype);
  Value s = n.cast(*src, dtype);
  Value result;
  if (r == Reduction::Sum || r == Reduction::Mean) {
    result = scatterSum(n, x, *index, s, *dim, *r, *includeSelf);
  } else {
    // The compared form keeps self's shape: index must span self outside dim.
    Dims pairs(shapeOf(*self).begin(), shapeOf(*self).end());
    for (int64_t d = 0; d < rankOf(x); ++d)
      if (d != *dim && shapeOf(*index)[d] != pairs[d])
        return n.error() << "scatter_reduce " << *name
                         << " with an index of shape "
                         << formatDims(Dims(shapeOf(*index).begin(),
                                            shapeOf(*index).end()))
                         << " is not imported: Stride takes an index that "
                            "spans self outside dim "
                         << *dim;
    pairs.insert(pairs.begin() + *dim + 1, shapeOf(*index)[*dim]);
    if (!checkedNumElements(pairs))
      return n.error() << "scatter_reduce " << *name << " compares "
                       << formatDims(pairs)
                       << " pairs, beyond Stride's limit of " << kMaxElements
                       << " elements";
    result = scatterCompared(n, x, *index, s, *dim, *r, *includeSelf, pairs);
  }
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

/// masked_scatter(self, mask, source): self and mask broadcast together;
/// where the mask is true, source's elements in order.
LogicalResult maskedScatter(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<Value> mask = succeeded(self) ? n.tensor("mask") : Fail();
  FailureOr<Value> source = succeeded(mask) ? n.tensor("source") : Fail();
  if (failed(source))
    return failure();
  DType dtype = n.outputDType();
  ArrayRef<int64_t> shape = n.outputShape();
  FailureOr<Value> x = n.conform(*self, dtype, shape);
  FailureOr<Value> m = succeeded(x) ? n.broadcast(*mask, shape) : Fail();
  if (failed(m))
    return failure();
  int64_t available = 1;
  for (int64_t d : shapeOf(*source))
    available *= d;
  if (available == 0) {
    // No element to take: PyTorch requires the mask to be all false.
    n.setOutput(0, n.toType(*x, n.outputType()));
    return success();
  }
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  Dims flatShape{count};
  PointwiseBuilder flat{n, flatShape};
  Value marks = flattened(n, n.cast(*m, DType::I64));
  Value running =
      CumsumOp::create(n.b(), n.location(), n.contiguous({count}, DType::I64),
                       marks, n.b().getI64IntegerAttr(0));
  Value taken = flat.op<SubOp>(running, *flat.constant(1.0, DType::I64));
  // Positions before the first true one read element 0, and PyTorch
  // refuses a mask with more true elements than source has: both clamped.
  taken = flat.op<MaximumOp>(taken, *flat.constant(0.0, DType::I64));
  taken = flat.op<MinimumOp>(taken,
                             *flat.constant(double(available - 1), DType::I64));
  Value elements = flattened(n, n.cast(*source, dtype));
  Value gathered =
      IndexSelectOp::create(n.b(), n.location(), n.contiguous({count}, dtype),
                            elements, taken, uint64_t(0));
  Value placed =
      ViewOp::create(n.b(), n.location(), n.contiguous(shape, dtype), gathered);
  Value result = WhereOp::create(n.b(), n.location(),
                                 n.contiguous(shape, dtype), *m, placed, *x);
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

} // namespace

/// Adds scatter_reduce and masked_scatter to the table.
void addScatterReduceOps(OpTable &ops) {
  ops.insert({
      {"aten.scatter_reduce.two", scatterReduce},
      {"aten.masked_scatter.default", maskedScatter},
  });
}

} // namespace stride::torch
