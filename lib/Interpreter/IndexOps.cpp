//===- IndexOps.cpp - The interpreter's index ops -------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The ops of the reference interpreter that read an index tensor: scatter,
// scatter_add and index_add (through one accumulator, rounding once per
// element), gather and index_select. Every index is checked against its dim
// first, and a `sorted_index` index_add's index for its order.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

using namespace mlir;

namespace stride::interp {

namespace {

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

} // namespace

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
      status = checkSortedIndex(op, index);
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

/// An index_add marked `sorted_index` claims an index that never
/// decreases; the run checks the claim, as the kernels do.
Status Interpreter::checkSortedIndex(IndexScatterOpInterface op,
                                     const Tensor &index) {
  auto add = dyn_cast<IndexAddOp>(op.getOperation());
  if (!add || !add.getSortedIndex())
    return Status::ok();
  for (int64_t k = 1; k < index.layout.shape[0]; ++k) {
    int64_t before = index.getI(index.address({k - 1}));
    int64_t at = index.getI(index.address({k}));
    if (at < before)
      return fail(op, "the index is marked sorted_index but decreases at "
                      "position " +
                          std::to_string(k) + ": " + std::to_string(at) +
                          " after " + std::to_string(before));
  }
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

} // namespace stride::interp
