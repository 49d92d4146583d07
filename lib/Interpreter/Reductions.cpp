//===- Reductions.cpp - The interpreter's reductions and scans ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The reductions of the reference interpreter (sum, mean, prod, max, min,
// any: floats summed in f64, max and min propagating NaN; argmax and
// argmin, the first NaN or extreme element of each row) and cumsum.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace stride::interp {

/// Whether `x` beats the best value so far, `best`, in argmax (`isMax`) or
/// argmin: a NaN beats any number, and no value beats a NaN or an equal
/// value, so each row's first NaN or extreme element wins.
static bool beats(double x, double best, bool isMax) {
  if (std::isnan(best))
    return false;
  if (std::isnan(x))
    return true;
  return isMax ? x > best : x < best;
}

/// argmax and argmin along their one dim, in the order of the row.
Status Interpreter::argReduce(ReductionOpInterface op) {
  const Tensor &in = get(op.getInput());
  int64_t dim = op.getReducedDims().front();
  bool isMax = op.getCombiner() == ReductionCombiner::argmax;
  Tensor out = allocate(typeOf(op->getResult(0)));
  std::vector<int64_t> to = addressesOf(out.layout);
  Dims rows = in.layout.shape;
  int64_t length = rows[dim];
  rows[dim] = 1;
  if (length == 0 && !to.empty())
    return fail(op, std::string(isMax ? "argmax" : "argmin") +
                        " of no elements (reduced dim " + std::to_string(dim) +
                        " has size 0)");
  auto wins = [&](const Dims &a, const Dims &b) {
    if (in.isF())
      return beats(in.getF(in.address(a)), in.getF(in.address(b)), isMax);
    int64_t x = in.getI(in.address(a)), y = in.getI(in.address(b));
    return isMax ? x > y : x < y;
  };
  size_t next = 0;
  forEachIndex(rows, [&](const Dims &row) {
    Dims index = row, bestIndex = row;
    int64_t best = 0;
    for (int64_t k = 1; k < length; ++k) {
      index[dim] = k;
      bestIndex[dim] = best;
      if (wins(index, bestIndex))
        best = k;
    }
    out.setI(to[next++], best);
  });
  values[op->getResult(0)] = std::move(out);
  return Status::ok();
}

Status Interpreter::reduce(ReductionOpInterface op) {
  ReductionCombiner combiner = op.getCombiner();
  if (combiner == ReductionCombiner::argmax ||
      combiner == ReductionCombiner::argmin)
    return argReduce(op);
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

} // namespace stride::interp
