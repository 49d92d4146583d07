//===- OpsBefore.h - Building stride ops before an op -----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to dialects/stride/Transforms: what the passes that rewrite an
// attention or convolution op around it (stride-decompose-attention,
// stride-attention-library, stride-recognize-attention,
// stride-decompose-convolution) build before it: views whose layouts
// Layout.h infers, and functional ops with dense row-major results.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_OPSBEFORE_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_OPSBEFORE_H

#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/Layout.h"
#include "stride/Support/SymbolicLayout.h"

#include "mlir/IR/Builders.h"

#include <limits>

namespace stride {

inline StridedTensorType typeOf(mlir::Value value) {
  return mlir::cast<StridedTensorType>(value.getType());
}

inline Dims shapeOf(mlir::Value value) { return typeOf(value).getShape().vec(); }

/// `type`'s sizes dense row-major from element 0 in `element`: over
/// symbolic sizes too, its strides then products of the sizes.
inline StridedTensorType denseOf(StridedTensorType type, mlir::Type element) {
  if (!type.isSymbolic())
    return StridedTensorType::getContiguous(type.getShape(), element);
  SizeExprs shape = type.getSymbolicLayout().shape;
  std::optional<SizeExprs> strides = rowMajorStrides(shape);
  assert(strides && "a verified type's row-major strides do not overflow");
  return StridedTensorType::get(
      element, SymbolicLayout{shape, *strides, SizeExpr::constant(0)});
}

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Makes the op write `result` as `wanted` (a layout a library writes)
/// where its type differs: the op then produces `wanted`, and a copy after
/// it gives the other uses the layout they had.
inline void writeResultAs(mlir::OpResult result, StridedTensorType wanted) {
  StridedTensorType had = typeOf(result);
  if (had == wanted)
    return;
  mlir::Operation *op = result.getOwner();
  result.setType(wanted);
  mlir::OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  mlir::Value copy = CloneOp::create(b, op->getLoc(), had, result);
  result.replaceAllUsesExcept(copy, copy.getDefiningOp());
}

/// Builds ops before one attention op, at its location. Values are computed
/// in `compute` (f32 for f16, bf16 and f32; f64 for f64), and every
/// functional result is dense row-major.
class OpsBefore {
  using Value = mlir::Value;
  using Type = mlir::Type;
  using Location = mlir::Location;
  using OpBuilder = mlir::OpBuilder;
  using IntegerAttr = mlir::IntegerAttr;
  template <typename T> using ArrayRef = llvm::ArrayRef<T>;

public:
  OpsBefore(mlir::Operation *op, mlir::Type compute)
      : b(op), loc(op->getLoc()), compute(compute) {}
  /// At `builder`'s insertion point, through its listener (a pattern's
  /// rewriter).
  OpsBefore(const OpBuilder &builder, Location loc, mlir::Type compute)
      : b(builder), loc(loc), compute(compute) {}

  StridedTensorType dense(ArrayRef<int64_t> shape, Type element = {}) {
    return StridedTensorType::getContiguous(shape, element ? element : compute);
  }

  /// `value` in the compute type.
  Value widen(Value value) {
    if (typeOf(value).getElementType() == compute)
      return value;
    return CastOp::create(b, loc, dense(typeOf(value).getShape()), value);
  }

  /// `value` with exactly the type `type` (a result of the decomposed op):
  /// itself, or a cast or a copy into that type.
  Value into(Value value, StridedTensorType type) {
    if (value.getType() == type)
      return value;
    if (typeOf(value).getElementType() != type.getElementType())
      return CastOp::create(b, loc, type, value);
    return CloneOp::create(b, loc, type, value);
  }

  Value full(double x, ArrayRef<int64_t> shape) {
    return FullOp::create(b, loc, dense(shape), b.getF64FloatAttr(x));
  }
  /// A full of `x` with `like`'s sizes (symbolic or not), dense in
  /// `element`.
  Value fullLike(double x, StridedTensorType like, Type element) {
    return FullOp::create(b, loc, denseOf(like, element), b.getF64FloatAttr(x));
  }

  //===--- Views (Layout.h computes each result layout) -------------------===//

  Value view(Value value, ArrayRef<int64_t> shape) {
    return make<ViewOp>(value, inferView(typeOf(value).getLayout(), shape));
  }
  Value expand(Value value, ArrayRef<int64_t> shape) {
    if (typeOf(value).getShape() == shape)
      return value;
    return make<ExpandOp>(value, inferExpand(typeOf(value).getLayout(), shape));
  }
  /// `value` expanded to `like`'s sizes, symbolic or not.
  Value expandTo(Value value, StridedTensorType like) {
    if (!typeOf(value).isSymbolic() && !like.isSymbolic())
      return expand(value, like.getShape());
    SizeExprs shape = like.getSymbolicLayout().shape;
    if (typeOf(value).getSymbolicLayout().shape == shape)
      return value;
    return makeSymbolic<ExpandOp>(
        value, stride::inferExpand(typeOf(value).getSymbolicLayout(), shape));
  }
  Value unsqueeze(Value value, int64_t dim) {
    return make<UnsqueezeOp>(value,
                             inferUnsqueeze(typeOf(value).getLayout(), dim),
                             b.getI64IntegerAttr(dim));
  }
  Value squeeze(Value value, int64_t dim) {
    int64_t dims[] = {dim};
    return make<SqueezeOp>(value, inferSqueeze(typeOf(value).getLayout(), dims),
                           b.getDenseI64ArrayAttr(dims));
  }
  /// Indices [start, end) of `dim`.
  Value slice(Value value, int64_t dim, int64_t start, int64_t end) {
    return make<SliceOp>(
        value, inferSlice(typeOf(value).getLayout(), dim, start, end, 1),
        b.getI64IntegerAttr(dim), b.getI64IntegerAttr(start),
        b.getI64IntegerAttr(end), b.getI64IntegerAttr(1));
  }
  /// Indices [start, end) of `dim` of a value of symbolic sizes: the
  /// bounds hold for every value of the symbols in `table`.
  Value sliceSymbolic(Value value, int64_t dim, int64_t start, int64_t end,
                      const SymbolRanges &table) {
    return makeSymbolic<SliceOp>(
        value,
        stride::inferSlice(typeOf(value).getSymbolicLayout(), dim,
                           SizeExpr::constant(start), SizeExpr::constant(end),
                           1, table),
        b.getI64IntegerAttr(dim), b.getI64IntegerAttr(start),
        b.getI64IntegerAttr(end), b.getI64IntegerAttr(1));
  }
  Value permute(Value value, ArrayRef<int64_t> dims) {
    return make<PermuteOp>(value, inferPermute(typeOf(value).getLayout(), dims),
                           b.getDenseI64ArrayAttr(dims));
  }
  /// `value`'s storage read through `layout` (absolute in the storage).
  Value asStrided(Value value, const Layout &layout) {
    return make<AsStridedOp>(
        value, checkAsStrided(typeOf(value).getLayout(), layout));
  }
  /// `value` as `shape`: a view where its layout allows one, else a view of
  /// a dense row-major copy.
  Value viewOrCopy(Value value, ArrayRef<int64_t> shape) {
    if (!inferView(typeOf(value).getLayout(), shape))
      value = CloneOp::create(b, loc,
                              dense(typeOf(value).getShape(),
                                    typeOf(value).getElementType()),
                              value);
    return view(value, shape);
  }
  /// The last two dims swapped.
  Value transpose(Value value) {
    Dims dims(typeOf(value).getRank());
    for (size_t d = 0; d < dims.size(); ++d)
      dims[d] = static_cast<int64_t>(d);
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    return make<PermuteOp>(value, inferPermute(typeOf(value).getLayout(), dims),
                           b.getDenseI64ArrayAttr(dims));
  }

  //===--- Functional ops -------------------------------------------------===//

  template <typename OpTy> Value unary(Value x) {
    return OpTy::create(b, loc, dense(typeOf(x).getShape()), x);
  }
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(b, loc, dense(typeOf(lhs).getShape()), lhs, rhs);
  }
  /// `binary` over symbolic sizes too: the result dense in lhs's sizes.
  template <typename OpTy> Value binaryLike(Value lhs, Value rhs) {
    return OpTy::create(b, loc, denseOf(typeOf(lhs), compute), lhs, rhs);
  }
  /// `value` converted to `element`, dense in its sizes (symbolic or not).
  Value castLike(Value value, Type element) {
    return CastOp::create(b, loc, denseOf(typeOf(value), element), value);
  }
  Value matmul(Value lhs, Value rhs) {
    Dims shape = shapeOf(lhs);
    shape.back() = shapeOf(rhs).back();
    return MatmulOp::create(b, loc, dense(shape), lhs, rhs, Value(),
                            /*addend=*/Value(), MatmulEpilogue::none, MatmulOperandAttr(),
                            MatmulOperandAttr(), IntegerAttr());
  }
  /// `x` reduced over its last dim, kept as a dim of size 1.
  template <typename OpTy> Value reduceRow(Value x) {
    Dims shape = shapeOf(x);
    int64_t dims[] = {static_cast<int64_t>(shape.size()) - 1};
    shape.back() = 1;
    return OpTy::create(b, loc, dense(shape), x, dims, /*keepdim=*/true);
  }
  Value sum(Value x, int64_t dim) {
    Dims shape = shapeOf(x);
    shape.erase(shape.begin() + dim);
    int64_t dims[] = {dim};
    return SumOp::create(b, loc, dense(shape), x, dims, /*keepdim=*/false);
  }
  /// Whether any element of each row of the i1 `x` is true: its last dim
  /// reduced, kept as a dim of size 1.
  Value anyRow(Value x) {
    Dims shape = shapeOf(x);
    int64_t dims[] = {static_cast<int64_t>(shape.size()) - 1};
    shape.back() = 1;
    return AnyOp::create(b, loc, dense(shape, b.getI1Type()), x, dims,
                         /*keepdim=*/true);
  }
  /// Each element's index along `dim` of `shape` (i64).
  Value iota(ArrayRef<int64_t> shape, int64_t dim) {
    return IotaOp::create(b, loc, dense(shape, b.getI64Type()),
                          b.getI64IntegerAttr(dim));
  }
  /// `lhs predicate rhs` (one shape), i1.
  Value compare(CmpPredicate predicate, Value lhs, Value rhs) {
    return CmpOp::create(b, loc, dense(shapeOf(lhs), b.getI1Type()),
                         predicate, lhs, rhs);
  }
  /// `lhs and rhs`, both i1 of one shape.
  Value both(Value lhs, Value rhs) {
    return AndOp::create(b, loc, dense(shapeOf(lhs), b.getI1Type()), lhs,
                         rhs);
  }
  /// `lhs` where `keep`, `rhs` elsewhere (all of one shape).
  Value select(Value keep, Value lhs, Value rhs) {
    return WhereOp::create(b, loc, dense(typeOf(lhs).getShape()), keep, lhs,
                           rhs);
  }
  /// Where `x` equals `test`, `replacement`; elsewhere `x`.
  Value replace(Value x, double test, double replacement) {
    Dims shape = shapeOf(x);
    Value hit = CmpOp::create(b, loc, dense(shape, b.getI1Type()),
                              CmpPredicate::eq, x, full(test, shape));
    return WhereOp::create(b, loc, dense(shape), hit, full(replacement, shape),
                           x);
  }
  /// `x` where `keep` (i1, broadcast to x's shape), -inf elsewhere.
  Value maskOut(Value keep, Value x) {
    Dims shape = shapeOf(x);
    // Operands built one statement each: C++ leaves the order of argument
    // evaluation open, and the order ops are created in is the IR's order.
    Value kept = expand(keep, shape);
    Value minusInf = full(-kInf, shape);
    return WhereOp::create(b, loc, dense(shape), kept, x, minusInf);
  }
  /// The i1 [Sq, Skv] that is true where key j <= query i (top left).
  Value causal(int64_t queries, int64_t keys) {
    Dims shape{queries, keys};
    StridedTensorType index = dense(shape, b.getI64Type());
    Value row = IotaOp::create(b, loc, index, b.getI64IntegerAttr(0));
    Value column = IotaOp::create(b, loc, index, b.getI64IntegerAttr(1));
    return CmpOp::create(b, loc, dense(shape, b.getI1Type()), CmpPredicate::le,
                         column, row);
  }

  /// The i1 [B, 1, 1, Skv] that is true where key j < lengths[b] (an
  /// attention's kv_length, [B] integers).
  Value validKeys(Value lengths, int64_t keys) {
    int64_t batch = typeOf(lengths).getShape()[0];
    Dims shape{batch, keys};
    Value column = IotaOp::create(b, loc, dense(shape, b.getI64Type()),
                                  b.getI64IntegerAttr(1));
    Value wide = lengths;
    if (!typeOf(lengths).getElementType().isInteger(64))
      wide = CastOp::create(b, loc, dense({batch}, b.getI64Type()), lengths);
    Value perRow = expand(unsqueeze(wide, 1), shape);
    Value keep = CmpOp::create(b, loc, dense(shape, b.getI1Type()),
                               CmpPredicate::lt, column, perRow);
    return unsqueeze(unsqueeze(keep, 1), 1);
  }

private:
  template <typename OpTy, typename... Args>
  Value make(Value input, const ViewResult &inferred, Args &&...args) {
    assert(inferred && "the decomposition builds legal views only");
    return OpTy::create(b, loc, typeOf(input).withLayout(*inferred.layout),
                        input, std::forward<Args>(args)...);
  }

  template <typename OpTy, typename... Args>
  Value makeSymbolic(Value input, const SymbolicViewResult &inferred,
                     Args &&...args) {
    assert(inferred && "the preparation builds legal views only");
    return OpTy::create(
        b, loc,
        StridedTensorType::get(typeOf(input).getElementType(), *inferred.layout),
        input, std::forward<Args>(args)...);
  }

  OpBuilder b;
  Location loc;
  Type compute;
};

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_OPSBEFORE_H
