//===- Views.cpp - The interpreter's views and copies ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The ops of the reference interpreter that move elements without computing
// on them: views (a new layout over the same storage), clone, cat, and the
// slice and select scatters (a copy of the input with a slice replaced).
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

using namespace mlir;

namespace stride::interp {

Status Interpreter::view(Operation *op) {
  Tensor t = get(op->getOperand(0));
  t.layout = typeOf(op->getResult(0)).getLayout();
  values[op->getResult(0)] = t;
  return Status::ok();
}

Status Interpreter::clone(CloneOp op) {
  Tensor out = allocate(typeOf(op.getResult()));
  copyElements(get(op.getInput()), out);
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

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

} // namespace stride::interp
