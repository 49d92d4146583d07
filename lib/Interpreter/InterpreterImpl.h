//===- InterpreterImpl.h - The interpreter's shared internals ---*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the files of the reference interpreter share: the element
// conversions, Tensor (shared storage + layout + dtype) with address
// enumeration, and the Interpreter, whose op implementations are in one file
// per op family: Pointwise.cpp, Views.cpp, IndexOps.cpp, Reductions.cpp,
// Matmul.cpp, Attention.cpp and Convolution.cpp; Interpreter.cpp holds the
// rest and the driver. Private to lib/Interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_INTERPRETER_INTERPRETERIMPL_H
#define STRIDE_LIB_INTERPRETER_INTERPRETERIMPL_H

#include "stride/Interpreter/Interpreter.h"

#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/Diagnostics.h"
#include "stride/Support/Layout.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>
#include <vector>

namespace stride::interp {

//===----------------------------------------------------------------------===//
// Element conversions (Interpreter.cpp)
//===----------------------------------------------------------------------===//

double apToDouble(llvm::APFloat a);

/// `v` rounded to nearest even in the floating-point type `t`.
double roundFloat(DType t, double v);

/// `v` wrapped (two's complement) to the integer type `t`; i1 is `v != 0`.
int64_t wrapInt(DType t, int64_t v);

/// An integer converted to the floating-point type `t`, rounded once.
double intToFloat(DType t, int64_t v);

/// A float converted to an integer type: truncation toward zero; NaN gives 0,
/// values beyond int64 saturate, then the value wraps to the type's width.
int64_t floatToInt(DType t, double v);

/// GELU's tanh approximation (PyTorch's approximate='tanh').
double geluTanh(double x);

//===----------------------------------------------------------------------===//
// Tensors (Interpreter.cpp)
//===----------------------------------------------------------------------===//

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
std::vector<int64_t> addressesOf(const Layout &layout);

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
Tensor allocate(StridedTensorType type);

/// Copies every logical element of `src` into `dst` (same shape and dtype).
void copyElements(const Tensor &src, Tensor &dst);

std::string formatIndex(const Dims &index);

//===----------------------------------------------------------------------===//
// Shared by the op families (nanMax, nanMin: Pointwise.cpp; setFrom: Views.cpp)
//===----------------------------------------------------------------------===//

/// max/min with NaN propagation (the first NaN wins).
double nanMax(double a, double b);
double nanMin(double a, double b);

/// out[to] = src[from] with rounding/wrapping to out's type.
void setFrom(Tensor &out, int64_t to, const Tensor &src, int64_t from);

//===----------------------------------------------------------------------===//
// The interpreter: one method per op family
//===----------------------------------------------------------------------===//

class Interpreter {
public:
  llvm::DenseMap<mlir::Value, Tensor> values;

  Status run(mlir::Block &block, std::vector<Tensor> *returned);

  /// Executes the ops from `next` on, stopping at (and leaving `next` at)
  /// the first collective of a world size above 1 or the terminator
  /// (Collectives.cpp runs the ranks of a group together this way).
  Status runUntilCollective(mlir::Block::iterator &next);

private:
  Status fail(mlir::Operation *op, const std::string &what) {
    return makeError(ErrorCode::InvalidArgument,
                     what + " in '" + op->getName().getStringRef().str() +
                         "' at " + formatLocation(op->getLoc()));
  }
  const Tensor &get(mlir::Value v) { return values.find(v)->second; }
  StridedTensorType typeOf(mlir::Value v) { return llvm::cast<StridedTensorType>(v.getType()); }

  Status execute(mlir::Operation *op);
  Status view(mlir::Operation *op);
  Status unary(mlir::Operation *op);
  Status castOp(CastOp op);
  Status binary(mlir::Operation *op);
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
  Status checkSortedIndex(IndexScatterOpInterface op, const Tensor &index);
  Status gather(GatherOp op);
  Status indexSelect(IndexSelectOp op);
  Status reduce(ReductionOpInterface op);
  /// argmax and argmin (reduce's share for their combiners).
  Status argReduce(ReductionOpInterface op);
  Status matmul(MatmulOp op);
  Status attention(AttentionOp op);
  Status attentionBackward(AttentionBackwardOp op);
  Status convolution(ConvolutionOp op);
  Status convolutionWeightGradient(ConvolutionWeightGradientOp op);
  Status kernel(KernelOp op);
  /// A collective on one rank: the identity in a group of one, an error
  /// otherwise (Collectives.cpp simulates groups of several ranks).
  Status singleRankCollective(mlir::Operation *op);

  /// Reads index tensor element at `addr` and checks it against [0, size).
  Status checkIndex(mlir::Operation *op, int64_t value, int64_t size,
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
  Status forEachCheckedIndex(mlir::Operation *op, const Tensor &index,
                             int64_t size, int64_t dim, Visit &&visit) {
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
  Status checkSliceIndices(mlir::Operation *op, const Tensor &index,
                           int64_t size, int64_t dim) {
    for (int64_t k = 0; k < index.layout.shape[0]; ++k)
      if (Status s =
              checkIndex(op, index.getI(index.address({k})), size, {k}, dim);
          !s)
        return s;
    return Status::ok();
  }
};

/// A collective's world size above 1 (the ops the ranks meet at).
bool needsOtherRanks(mlir::Operation *op);

/// Binds `inputs` to the arguments of `func` (checked against their types).
Status bindArguments(Interpreter &interp, mlir::func::FuncOp func,
                     const std::vector<HostArray> &inputs);

/// The dense, C-order arrays of the returned tensors.
std::vector<HostArray> toHostArrays(const std::vector<Tensor> &results);

} // namespace stride::interp

#endif // STRIDE_LIB_INTERPRETER_INTERPRETERIMPL_H
