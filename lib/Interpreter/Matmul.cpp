//===- Matmul.cpp - The interpreter's matrix product ----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride.matmul in the reference interpreter: sums in f64 over the
// contracted dim, the bias added before the one rounding, then the
// epilogue.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "llvm/Support/ErrorHandling.h"

#include <cmath>

using namespace mlir;

namespace stride::interp {

namespace {

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

} // namespace

/// Each element of the product is a sum in double over the contracted dim
/// of the operands' values plus the addend and the bias, rounded once to
/// the result type
/// (as PyTorch's `addmm` and `F.linear`, and cuBLASLt, which adds the bias
/// to its accumulator), then the epilogue applies as the separate `relu` /
/// `gelu_tanh` would (rounded). A separate `add` of a bias in f16 or bf16
/// rounds the product first, so folding it into the op changes the result
/// by at most that rounding (python-free-docs/matmul.md, "Accuracy").
Status Interpreter::matmul(MatmulOp op) {
  const Tensor &lhs = get(op.getLhs()), &rhs = get(op.getRhs());
  const Tensor *bias = op.getBias() ? &get(op.getBias()) : nullptr;
  const Tensor *addend = op.getAddend() ? &get(op.getAddend()) : nullptr;
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
    if (addend)
      sum += addend->getF(addend->address(index));
    if (bias)
      sum += bias->getF(bias->address({index[rank - 1]}));
    double biased = roundFloat(out.dtype, sum);
    out.setF(out.address(index),
             roundFloat(out.dtype, applyEpilogue(op.getEpilogue(), biased)));
  });
  values[op.getResult()] = std::move(out);
  return Status::ok();
}

} // namespace stride::interp
