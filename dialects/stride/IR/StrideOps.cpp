//===- StrideOps.cpp - Ops of the stride dialect --------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Verifiers (the attention ops' in StrideAttentionOps.cpp). Shape rules live
// here and in ShapeRules.h once; view layouts are computed by the
// shared functions of stride/Support/Layout.h.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideOps.h"
#include "dialects/stride/IR/IndexMaps.h"
#include "dialects/stride/IR/ShapeRules.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "stride/Support/MatmulLayout.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace stride;

#include "dialects/stride/IR/StrideEnums.cpp.inc"
#include "dialects/stride/IR/StrideInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/stride/IR/StrideOps.cpp.inc"

static StridedTensorType tensorType(Value value) {
  return cast<StridedTensorType>(value.getType());
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  return formatDims(shape);
}

static LogicalResult verifyDimInRange(Operation *op, int64_t dim,
                                      int64_t rank, StringRef what = "dim") {
  if (dim >= 0 && dim < rank)
    return success();
  return op->emitOpError() << what << " " << dim << " is out of range [0, "
                           << rank << ")";
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

/// verifyViewOp where the operand or the result has symbolic sizes: the
/// symbolic rule, proven over the function's symbol ranges.
static LogicalResult verifySymbolicView(ViewOpInterface view,
                                        StridedTensorType source,
                                        StridedTensorType result) {
  Operation *op = view.getOperation();
  SymbolicViewResult inferred = view.inferSymbolicResultLayout(
      source.getSymbolicLayout(), enclosingSymbols(op));
  if (!inferred)
    return op->emitOpError() << inferred.error;
  SymbolicLayout declared = result.getSymbolicLayout();
  if (!sameAddressing(*inferred.layout, declared))
    return op->emitOpError()
           << "result type " << result
           << " does not match the layout the view computes from its operand: "
              "expected sizes "
           << formatSizes(inferred.layout->shape) << ", strides "
           << formatSizes(inferred.layout->strides) << ", offset "
           << inferred.layout->offset.str()
           << " (the strides of dims of size 1 may differ)";
  return success();
}

LogicalResult stride::detail::verifyViewOp(Operation *op) {
  auto view = cast<ViewOpInterface>(op);
  StridedTensorType source = view.getSource().getType();
  auto result = cast<StridedTensorType>(op->getResult(0).getType());
  if (source.getElementType() != result.getElementType())
    return op->emitOpError() << "result element type "
                             << result.getElementType()
                             << " differs from the operand's "
                             << source.getElementType()
                             << "; a view never converts elements";
  auto slice = dyn_cast<SliceOp>(op);
  if (source.isSymbolic() || result.isSymbolic() ||
      (slice && slice.hasSymbolicBounds()))
    return verifySymbolicView(view, source, result);
  ViewResult inferred = view.inferResultLayout(source.getLayout());
  if (!inferred)
    return op->emitOpError() << inferred.error;
  // The strides of dims of size 1 are not compared: the type keeps the one
  // its author (an archive) chose.
  if (!sameAddressing(*inferred.layout, result.getLayout()))
    return op->emitOpError()
           << "result type " << result
           << " does not match the layout the view computes from its operand: "
              "expected "
           << source.withLayout(*inferred.layout)
           << " (the strides of dims of size 1 may differ)";
  return success();
}

ViewResult ExpandOp::inferResultLayout(const Layout &source) {
  return inferExpand(source, getResult().getType().getShape());
}

ViewResult UnsqueezeOp::inferResultLayout(const Layout &source) {
  return inferUnsqueeze(source, getDim());
}

ViewResult SqueezeOp::inferResultLayout(const Layout &source) {
  return inferSqueeze(source, getDims());
}

ViewResult PermuteOp::inferResultLayout(const Layout &source) {
  return inferPermute(source, getDims());
}

ViewResult SliceOp::inferResultLayout(const Layout &source) {
  if (hasSymbolicBounds())
    return ViewResult::failure("a slice whose bounds are symbolic has the "
                               "symbolic layout inferSymbolicResultLayout "
                               "gives");
  return inferSlice(source, getDim(), getStart(), getEnd(), getStep());
}

ViewResult SelectOp::inferResultLayout(const Layout &source) {
  return inferSelect(source, getDim(), getIndex());
}

ViewResult ViewOp::inferResultLayout(const Layout &source) {
  return inferView(source, getResult().getType().getShape());
}

ViewResult AsStridedOp::inferResultLayout(const Layout &source) {
  return checkAsStrided(source, getResult().getType().getLayout());
}

//===----------------------------------------------------------------------===//
// Index maps: result coordinates d_0..d_{r-1} to the operand's coordinates
//===----------------------------------------------------------------------===//

/// A map over the result's coordinates of the view `op`.
static AffineMap resultCoordinateMap(Operation *op,
                                     ArrayRef<AffineExpr> operandCoords) {
  return AffineMap::get(tensorType(op->getResult(0)).getRank(), 0,
                        operandCoords, op->getContext());
}

static AffineExpr coordinate(Operation *op, int64_t d) {
  return getAffineDimExpr(d, op->getContext());
}

static AffineExpr constant(Operation *op, int64_t value) {
  return getAffineConstantExpr(value, op->getContext());
}

AffineMap ExpandOp::getIndexMap() {
  // New leading dims are dropped; a broadcast dim of size 1 reads index 0.
  ArrayRef<int64_t> source = getInput().getType().getShape();
  int64_t lead = getType().getRank() - getInput().getType().getRank();
  SmallVector<AffineExpr> coords;
  for (auto [k, size] : llvm::enumerate(source))
    coords.push_back(size == 1 ? constant(*this, 0)
                               : coordinate(*this, lead + k));
  return resultCoordinateMap(*this, coords);
}

AffineMap UnsqueezeOp::getIndexMap() {
  SmallVector<AffineExpr> coords;
  for (int64_t k = 0; k < getType().getRank(); ++k)
    if (k != static_cast<int64_t>(getDim()))
      coords.push_back(coordinate(*this, k));
  return resultCoordinateMap(*this, coords);
}

AffineMap SqueezeOp::getIndexMap() {
  SmallVector<AffineExpr> coords;
  int64_t next = 0;
  for (int64_t k = 0; k < getInput().getType().getRank(); ++k)
    coords.push_back(llvm::is_contained(getDims(), k)
                         ? constant(*this, 0)
                         : coordinate(*this, next++));
  return resultCoordinateMap(*this, coords);
}

AffineMap PermuteOp::getIndexMap() {
  SmallVector<AffineExpr> coords(getDims().size());
  for (auto [i, from] : llvm::enumerate(getDims()))
    coords[from] = coordinate(*this, i);
  return resultCoordinateMap(*this, coords);
}

AffineMap SliceOp::getIndexMap() {
  SmallVector<AffineExpr> coords;
  for (int64_t k = 0; k < getType().getRank(); ++k)
    coords.push_back(coordinate(*this, k));
  coords[getDim()] = coords[getDim()] * getStep() + getStart();
  return resultCoordinateMap(*this, coords);
}

AffineMap SelectOp::getIndexMap() {
  SmallVector<AffineExpr> coords;
  for (int64_t k = 0; k < getType().getRank(); ++k)
    coords.push_back(coordinate(*this, k));
  coords.insert(coords.begin() + getDim(), constant(*this, getIndex()));
  return resultCoordinateMap(*this, coords);
}

AffineMap ViewOp::getIndexMap() {
  // The result's row-major linear index, delinearized in the operand. Over
  // symbolic sizes the divisors are symbolic: no map (the CUDA printer
  // maps such a reshape's coordinates over its size parameters,
  // python-free-docs/symbolic-sizes.md).
  if (getType().isSymbolic() || getInput().getType().isSymbolic())
    return AffineMap();
  ArrayRef<int64_t> result = getType().getShape();
  ArrayRef<int64_t> source = getInput().getType().getShape();
  Dims resultShape(result.begin(), result.end()),
      sourceShape(source.begin(), source.end());
  AffineExpr linear = layoutAddress(
      Layout{resultShape, rowMajorStrides(resultShape), 0}, getContext());
  return resultCoordinateMap(
      *this, delinearizeAddress(linear, sourceShape,
                                rowMajorStrides(sourceShape)));
}

AffineMap AsStridedOp::getIndexMap() {
  // The result's storage address, mapped back to the operand's
  // coordinates: only a dense operand has one element per address.
  Layout source = getInput().getType().getLayout();
  Layout result = getType().getLayout();
  if (!isDense(source.shape, source.strides))
    return AffineMap();
  AffineExpr address = layoutAddress(result, getContext()) +
                       (result.offset - source.offset);
  return resultCoordinateMap(
      *this, delinearizeAddress(address, source.shape, source.strides));
}

//===----------------------------------------------------------------------===//
// Pointwise
//===----------------------------------------------------------------------===//

/// verifyElementwise over symbolic sizes: the shapes are equal
/// expressions.
static LogicalResult verifySymbolicElementwise(Operation *op) {
  SizeExprs shape =
      tensorType(op->getResult(0)).getSymbolicLayout().shape;
  for (OpOperand &operand : op->getOpOperands()) {
    SizeExprs operandShape =
        tensorType(operand.get()).getSymbolicLayout().shape;
    if (operandShape != shape)
      return op->emitOpError()
             << "operand #" << operand.getOperandNumber() << " has shape "
             << formatSizes(operandShape) << " but the result has shape "
             << formatSizes(shape)
             << "; pointwise operands must have the result's shape (there is "
                "no implicit broadcasting: use stride.expand)";
  }
  return success();
}

LogicalResult stride::detail::verifyElementwise(Operation *op) {
  auto symbolic = [](Value value) { return tensorType(value).isSymbolic(); };
  if (symbolic(op->getResult(0)) || llvm::any_of(op->getOperands(), symbolic))
    return verifySymbolicElementwise(op);
  ArrayRef<int64_t> shape = tensorType(op->getResult(0)).getShape();
  for (OpOperand &operand : op->getOpOperands()) {
    ArrayRef<int64_t> operandShape = tensorType(operand.get()).getShape();
    if (operandShape != shape)
      return op->emitOpError()
             << "operand #" << operand.getOperandNumber() << " has shape "
             << shapeString(operandShape) << " but the result has shape "
             << shapeString(shape)
             << "; pointwise operands must have the result's shape (there is "
                "no implicit broadcasting: use stride.expand)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

LogicalResult FullOp::verify() {
  Type elementType = getResult().getType().getElementType();
  auto integer = dyn_cast<IntegerType>(elementType);
  if (!integer)
    return success();
  double value = getValue().convertToDouble();
  double lo = integer.getWidth() == 1 ? 0.0 : -std::ldexp(1.0, integer.getWidth() - 1);
  double hi = integer.getWidth() == 1 ? 1.0 : std::ldexp(1.0, integer.getWidth() - 1) - 1;
  if (value != std::floor(value) || value < lo || value > hi)
    return emitOpError() << "value " << value << " is not representable in "
                         << elementType;
  return success();
}

LogicalResult ConstantOp::verify() {
  StridedTensorType type = getResult().getType();
  auto valueType = cast<ShapedType>(getValue().getType());
  if (valueType.getShape() != type.getShape() ||
      valueType.getElementType() != type.getElementType())
    return emitOpError() << "value of type " << valueType
                         << " does not match the result's shape "
                         << shapeString(type.getShape()) << " and element type "
                         << type.getElementType();
  return success();
}

LogicalResult IotaOp::verify() {
  return verifyDimInRange(*this, getDim(), getResult().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Scatter and gather
//===----------------------------------------------------------------------===//

/// The result of a scatter has the shape of its `input`.
static LogicalResult verifyResultShapeIsInput(Operation *op, Value input) {
  SizeExprs expected = sizesOf(input);
  SizeExprs actual = sizesOf(op->getResult(0));
  if (expected != actual)
    return op->emitOpError() << "result shape " << formatSizes(actual)
                             << " differs from the input's "
                             << formatSizes(expected);
  return success();
}

LogicalResult SliceScatterOp::verify() {
  Layout inputLayout = getInput().getType().getLayout();
  ViewResult slice =
      inferSlice(inputLayout, getDim(), getStart(), getEnd(), getStep());
  if (!slice)
    return emitOpError() << slice.error;
  if (failed(verifyShapeIs(*this, "src", getSrc(), slice.layout->shape,
                           "the shape of the slice it replaces")))
    return failure();
  return verifyResultShapeIsInput(*this, getInput());
}

/// The result of a cat: `inputs`' shape with `dim` the sum of theirs.
LogicalResult CatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  StridedTensorType result = getType();
  SizeExprs shape = sizesOf(getResult());
  if (failed(verifyDimInRange(*this, getDim(), shape.size())))
    return failure();
  int64_t dim = getDim();
  std::optional<SizeExpr> total = SizeExpr::constant(0);
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    StridedTensorType type = tensorType(input);
    if (type.getElementType() != result.getElementType())
      return emitOpError() << "input #" << i << " has element type "
                           << type.getElementType() << ", but the result has "
                           << result.getElementType();
    if (type.getRank() != result.getRank())
      return emitOpError() << "input #" << i << " has rank " << type.getRank()
                           << ", but the result has rank " << result.getRank();
    SizeExprs expected = shape;
    expected[dim] = sizesOf(input)[dim];
    std::string because = "the result's shape but in dim " + std::to_string(dim);
    if (failed(verifyShapeIs(*this, "input #" + std::to_string(i), input,
                             expected, because)))
      return failure();
    total = total ? total->plus(expected[dim]) : std::nullopt;
  }
  if (!total || *total != shape[dim])
    return emitOpError() << "result dim " << dim << " has size "
                         << shape[dim].str()
                         << ", but the inputs' sizes in it add up to "
                         << (total ? total->str() : "more than 2^63");
  return success();
}

LogicalResult SelectScatterOp::verify() {
  Layout inputLayout = getInput().getType().getLayout();
  ViewResult select = inferSelect(inputLayout, getDim(), getIndex());
  if (!select)
    return emitOpError() << select.error;
  if (failed(verifyShapeIs(*this, "src", getSrc(), select.layout->shape,
                           "the input's shape without the selected dim")))
    return failure();
  return verifyResultShapeIsInput(*this, getInput());
}

/// torch.scatter / gather rule: `index` has `input`'s rank, is no larger than
/// `bound` (src for scatters) in any dim, and no larger than `input` in the
/// dims other than `dim`.
static LogicalResult verifyIndexBounds(Operation *op, Value input,
                                       Value index, Value bound,
                                       StringRef boundName, int64_t dim) {
  SizeExprs inputShape = sizesOf(input);
  SizeExprs indexShape = sizesOf(index);
  if (failed(verifyDimInRange(op, dim, inputShape.size())))
    return failure();
  if (indexShape.size() != inputShape.size())
    return op->emitOpError() << "index has rank " << indexShape.size()
                             << " but the input has rank " << inputShape.size();
  // Over symbolic sizes, "larger" reads "may be larger for a value of the
  // symbols".
  for (auto [d, size] : llvm::enumerate(indexShape)) {
    if (bound && !provenAtMost(op, size, sizesOf(bound)[d]))
      return op->emitOpError()
             << "index dim " << d << " has size " << size.str()
             << ", larger than " << boundName << "'s "
             << sizesOf(bound)[d].str();
    if (static_cast<int64_t>(d) != dim && !provenAtMost(op, size, inputShape[d]))
      return op->emitOpError() << "index dim " << d << " has size "
                               << size.str() << ", larger than the input's "
                               << inputShape[d].str();
  }
  return success();
}

template <typename ScatterOp>
static LogicalResult verifyIndexScatter(ScatterOp op) {
  if (tensorType(op.getSrc()).getRank() != op.getInput().getType().getRank())
    return op.emitOpError() << "src has rank " << tensorType(op.getSrc()).getRank()
                            << " but the input has rank "
                            << op.getInput().getType().getRank();
  if (failed(verifyIndexBounds(op, op.getInput(), op.getIndex(), op.getSrc(),
                               "src", op.getDim())))
    return failure();
  return verifyResultShapeIsInput(op, op.getInput());
}

LogicalResult ScatterOp::verify() { return verifyIndexScatter(*this); }
LogicalResult ScatterAddOp::verify() { return verifyIndexScatter(*this); }

/// Shape of `input` with dim `dim` resized to the 1-D index's length.
static LogicalResult verifyOneDimIndex(Operation *op, Value input, Value index,
                                       int64_t dim, SizeExprs &shape) {
  shape = sizesOf(input);
  if (failed(verifyDimInRange(op, dim, shape.size())))
    return failure();
  if (tensorType(index).getRank() != 1)
    return op->emitOpError() << "index must be 1-D, but has shape "
                             << formatSizes(sizesOf(index));
  shape[dim] = sizesOf(index)[0];
  return success();
}

LogicalResult IndexAddOp::verify() {
  SizeExprs srcShape;
  if (failed(verifyOneDimIndex(*this, getInput(), getIndex(), getDim(),
                               srcShape)) ||
      failed(verifyShapeIs(*this, "src", getSrc(), srcShape,
                           "the input's shape with dim " +
                               std::to_string(getDim()) +
                               " of the index's length")))
    return failure();
  return verifyResultShapeIsInput(*this, getInput());
}

LogicalResult GatherOp::verify() {
  if (failed(verifyIndexBounds(*this, getInput(), getIndex(), Value(), "",
                               getDim())))
    return failure();
  return verifyShapeIs(*this, "result", getResult(), sizesOf(getIndex()),
                       "the index's shape");
}

LogicalResult IndexSelectOp::verify() {
  SizeExprs resultShape;
  if (failed(verifyOneDimIndex(*this, getInput(), getIndex(), getDim(),
                               resultShape)))
    return failure();
  return verifyShapeIs(*this, "result", getResult(), resultShape,
                       "the input's shape with dim " +
                           std::to_string(getDim()) + " of the index's length");
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The result shape of reducing `dims` (each checked in range and listed
/// once) of `op`'s input, with `keepdim` or without.
static LogicalResult verifyReducedShape(ReductionOpInterface op,
                                        ArrayRef<int64_t> dims, bool keepdim) {
  SizeExprs inputShape = sizesOf(op.getInput());
  std::vector<bool> reduced(inputShape.size(), false);
  for (int64_t dim : dims) {
    if (failed(verifyDimInRange(op, dim, inputShape.size())))
      return failure();
    if (reduced[dim])
      return op.emitOpError() << "dim " << dim << " is listed twice";
    reduced[dim] = true;
  }
  SizeExprs expected;
  for (auto [dim, size] : llvm::enumerate(inputShape)) {
    if (!reduced[dim])
      expected.push_back(size);
    else if (keepdim)
      expected.push_back(SizeExpr::constant(1));
  }
  return verifyShapeIs(op, "result", op->getResult(0), expected,
                       keepdim ? "the input's shape with the reduced "
                                 "dims of size 1"
                               : "the input's shape without the "
                                 "reduced dims");
}

template <typename ReductionOp>
static LogicalResult verifyReduction(ReductionOp op) {
  return verifyReducedShape(op, op.getDims(), op.getKeepdim());
}

SmallVector<int64_t> stride::detail::sortedDims(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> sorted(dims);
  llvm::sort(sorted);
  return sorted;
}

TypedAttr stride::reductionIdentity(ReductionCombiner combiner,
                                    Type elementType) {
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (combiner) {
    case ReductionCombiner::add:
    case ReductionCombiner::logical_or:
      return FloatAttr::get(floatType, llvm::APFloat::getZero(semantics));
    case ReductionCombiner::mul:
      return FloatAttr::get(floatType, llvm::APFloat::getOne(semantics));
    case ReductionCombiner::max:
    case ReductionCombiner::argmax:
      return FloatAttr::get(floatType,
                            llvm::APFloat::getInf(semantics, /*Negative=*/true));
    case ReductionCombiner::min:
    case ReductionCombiner::argmin:
      return FloatAttr::get(floatType, llvm::APFloat::getInf(semantics));
    }
  }
  auto intType = cast<IntegerType>(elementType);
  unsigned width = intType.getWidth();
  switch (combiner) {
  case ReductionCombiner::add:
  case ReductionCombiner::logical_or:
    return IntegerAttr::get(intType, llvm::APInt(width, 0));
  case ReductionCombiner::mul:
    return IntegerAttr::get(intType, llvm::APInt(width, 1));
  case ReductionCombiner::max:
  case ReductionCombiner::argmax:
    return IntegerAttr::get(intType, llvm::APInt::getSignedMinValue(width));
  case ReductionCombiner::min:
  case ReductionCombiner::argmin:
    return IntegerAttr::get(intType, llvm::APInt::getSignedMaxValue(width));
  }
  llvm_unreachable("unknown reduction combiner");
}

LogicalResult SumOp::verify() { return verifyReduction(*this); }
LogicalResult MeanOp::verify() { return verifyReduction(*this); }
LogicalResult ProdOp::verify() { return verifyReduction(*this); }
LogicalResult MaxOp::verify() { return verifyReduction(*this); }
LogicalResult MinOp::verify() { return verifyReduction(*this); }
LogicalResult AnyOp::verify() { return verifyReduction(*this); }

// argmax and argmin reduce one dim: the same result shape rule as the
// reductions' above, over the list [dim].
LogicalResult ArgmaxOp::verify() {
  return verifyReducedShape(*this, getReducedDims(), getKeepdim());
}
LogicalResult ArgminOp::verify() {
  return verifyReducedShape(*this, getReducedDims(), getKeepdim());
}
SmallVector<int64_t> ArgmaxOp::getReducedDims() {
  return {static_cast<int64_t>(getDim())};
}
SmallVector<int64_t> ArgminOp::getReducedDims() {
  return {static_cast<int64_t>(getDim())};
}
ReductionCombiner ArgmaxOp::getCombiner() { return ReductionCombiner::argmax; }
ReductionCombiner ArgminOp::getCombiner() { return ReductionCombiner::argmin; }
bool ArgmaxOp::isAverage() { return false; }
bool ArgminOp::isAverage() { return false; }

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  if (failed(verifyDimInRange(*this, getDim(), tensorType(getInput()).getRank())))
    return failure();
  return verifyResultShapeIsInput(*this, getInput());
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

namespace {

LogicalResult verifyMatmulElementTypes(MatmulOp op) {
  Type element = op.getLhs().getType().getElementType();
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element))
    return op.emitOpError()
           << "takes f16, bf16, f32 or f64 operands, but lhs has element type "
           << element << "; integer matrix products are not supported";
  return verifyElementTypesMatch(
      op, "lhs", op.getLhs(),
      {{"rhs", op.getRhs()},
       {"bias", op.getBias()},
       {"result", op.getResult()}},
      "both operands and the result have one element type (convert with "
      "stride.cast)");
}

/// The result is rows of consecutive elements at offset 0, matrices one
/// after the other: over symbolic sizes, dense row-major.
bool isMatmulResultLayout(StridedTensorType result) {
  if (!result.isSymbolic())
    return result.getOffset() == 0 && matmulResultLayout(result.getLayout());
  SymbolicLayout layout = result.getSymbolicLayout();
  std::optional<SizeExprs> rowMajor = rowMajorStrides(layout.shape);
  return rowMajor && layout.offset.getConstant() == 0 &&
         sameAddressing(layout, SymbolicLayout{layout.shape, *rowMajor,
                                               layout.offset});
}

LogicalResult verifyMatmulShapes(MatmulOp op) {
  SizeExprs lhs = sizesOf(op.getLhs());
  SizeExprs rhs = sizesOf(op.getRhs());
  for (auto [name, value] : {std::pair<StringRef, Value>{"lhs", op.getLhs()},
                             {"rhs", op.getRhs()}})
    if (tensorType(value).getRank() < 2)
      return errorWithNoteAt(op, value, name)
             << name << " has shape " << formatSizes(sizesOf(value))
             << ", but a matrix product needs operands of rank 2 or more "
                "(unsqueeze a vector into a matrix)";
  if (lhs.size() != rhs.size())
    return errorWithNoteAt(op, op.getRhs(), "rhs")
           << "lhs has rank " << lhs.size() << " but rhs has rank "
           << rhs.size()
           << "; batch dims must be explicit in both operands (broadcast "
              "with stride.expand)";
  size_t rank = lhs.size();
  for (size_t d = 0; d + 2 < rank; ++d)
    if (lhs[d] != rhs[d])
      return errorWithNoteAt(op, op.getRhs(), "rhs")
             << "batch dim " << d << " has size " << lhs[d].str()
             << " in lhs but " << rhs[d].str()
             << " in rhs; batch dims must be equal (broadcast with "
                "stride.expand)";
  if (lhs[rank - 1] != rhs[rank - 2])
    return errorWithNoteAt(op, op.getRhs(), "rhs")
           << "contracts lhs dim " << rank - 1 << " of size "
           << lhs[rank - 1].str() << " with rhs dim " << rank - 2
           << " of size " << rhs[rank - 2].str() << "; the sizes must be equal";
  SizeExprs expected(lhs.begin(), lhs.end() - 1);
  expected.push_back(rhs.back());
  if (failed(verifyShapeIs(op, "result", op.getResult(), expected,
                           "lhs's batch dims and rows, rhs's columns")))
    return failure();
  StridedTensorType result = op.getResult().getType();
  if (!isMatmulResultLayout(result))
    return op.emitOpError()
           << "result type " << result
           << " is not rows of consecutive elements at offset 0, matrices "
              "one after the other; a matrix product writes such a layout "
              "(dense row-major, or with rows padded for the library)";
  return success();
}

LogicalResult verifyMatmulEpilogue(MatmulOp op) {
  Value bias = op.getBias();
  bool hasEpilogue = bias || op.getAddend() ||
                     op.getEpilogue() != MatmulEpilogue::none;
  if (hasEpilogue && op.getLhs().getType().getElementType().isF64())
    return op.emitOpError() << "has a bias, an addend or an epilogue on f64 "
                               "operands; f64 matrix products take none";
  if (op.getAddend() && op.getRowClasses())
    return op.emitOpError()
           << "has an addend and row_classes = " << *op.getRowClasses()
           << "; the library reads the addend with the result's layout, "
              "which row classes split";
  if (!bias)
    return success();
  SizeExprs columns{sizesOf(op.getResult()).back()};
  return verifyShapeIs(op, "bias", bias, columns,
                       "one element per column of the product");
}

/// A recorded operand layout must be the one the operand's type gives.
LogicalResult verifyMatmulOperandLayout(MatmulOp op, StringRef name,
                                        Value operand,
                                        MatmulOperandAttr recorded) {
  if (!recorded)
    return success();
  // Over symbolic sizes the library reads the layout at the largest values
  // (stride-check-symbolic-sizes admits static strides only); a symbol the
  // function does not declare is the DeclaredSymbols trait's error.
  std::optional<Layout> read = layoutAtLargest(tensorType(operand), op);
  if (!read)
    return success();
  std::optional<MatmulOperandLayout> layout = matmulOperandLayout(*read);
  if (!layout)
    return op.emitOpError()
           << name << "_layout " << recorded << " is recorded, but the "
           << name << " layout " << tensorType(operand)
           << " cannot be read in place (stride-matmul-layout copies it)";
  MatmulOperandAttr expected = getMatmulOperandAttr(op.getContext(), *layout);
  if (recorded != expected)
    return op.emitOpError() << name << "_layout " << recorded
                            << " does not match the " << name
                            << " layout: expected " << expected;
  return success();
}

/// A product written in row classes (`row_classes`): each class of rows is
/// a matrix of the lhs's rows `R * ld` apart, written into the result's
/// rows `R * N` apart, so the lhs is read row-major and the result is the
/// dense `[M, N]`.
LogicalResult verifyMatmulRowClasses(MatmulOp op) {
  std::optional<int64_t> classes = op.getRowClasses();
  if (!classes)
    return success();
  StridedTensorType result = op.getResult().getType();
  if (result.getRank() != 2)
    return op.emitOpError()
           << "has row_classes = " << *classes << " on a product of rank "
           << result.getRank() << "; only a 2-D product is written in row "
           << "classes";
  // Until stride-matmul-layout records how the lhs is read, nothing is
  // decided: it reads a transposed lhs through a dense copy then.
  if (MatmulOperandAttr lhs = op.getLhsLayoutAttr(); lhs && lhs.getTransposed())
    return op.emitOpError()
           << "has row_classes = " << *classes << " but its lhs is read "
           << "transposed (" << lhs << "); a class of rows is a row-major "
           << "matrix of every " << *classes << "th row";
  if (!isRowMajor(result.getLayout()))
    return op.emitOpError()
           << "has row_classes = " << *classes << " but its result type "
           << result << " is not dense row-major";
  return success();
}

} // namespace

MatmulOperandAttr stride::getMatmulOperandAttr(MLIRContext *context,
                                               const MatmulOperandLayout &layout) {
  return MatmulOperandAttr::get(context, layout.transposed, layout.ld,
                                layout.batchStride);
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyMatmulElementTypes(*this)) ||
      failed(verifyMatmulShapes(*this)) ||
      failed(verifyMatmulOperandLayout(*this, "lhs", getLhs(),
                                       getLhsLayoutAttr())) ||
      failed(verifyMatmulOperandLayout(*this, "rhs", getRhs(),
                                       getRhsLayoutAttr())) ||
      failed(verifyMatmulRowClasses(*this)))
    return failure();
  return verifyMatmulEpilogue(*this);
}

//===----------------------------------------------------------------------===//
// Speculation
//===----------------------------------------------------------------------===//

/// Float division never fails; integer division by zero is a run-time error.
Speculation::Speculatability DivOp::getSpeculatability() {
  return isa<FloatType>(getResult().getType().getElementType())
             ? Speculation::Speculatable
             : Speculation::NotSpeculatable;
}

//===----------------------------------------------------------------------===//
// Kernel regions
//===----------------------------------------------------------------------===//

YieldOp KernelOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

bool KernelOp::isOutlined() {
  Operation *parent = (*this)->getParentOp();
  return parent && parent->hasTrait<OpTrait::SymbolTable>();
}

/// "tokens = 1, batch = 1".
static std::string describeValues(const SymbolValues &values) {
  std::string text;
  for (const auto &[name, value] : values)
    text += (text.empty() ? "" : ", ") + name + " = " + std::to_string(value);
  return text;
}

SymbolValues KernelOp::pinnedValues() {
  ArrayAttr when = getWhenAttr();
  return when ? pinnedValuesOf(when) : SymbolValues();
}

LogicalResult KernelOp::verify() {
  Block &body = getBodyBlock();
  if (ArrayAttr when = getWhenAttr();
      when && failed(verifySymbolRanges(*this, when, nullptr)))
    return failure();
  // A variant's body sees the kernel at the values its guard pins.
  SymbolValues pinned = pinnedValues();
  auto atPinned = [&](Type type) -> Type {
    auto tensor = dyn_cast<StridedTensorType>(type);
    if (pinned.empty() || !tensor)
      return type;
    StridedTensorType at = typeAtValues(tensor, pinned);
    return at ? Type(at) : type;
  };
  if (isOutlined()) {
    if (!getInputs().empty())
      return emitOpError() << "is outlined (in a symbol table) but has "
                           << getInputs().size()
                           << " inputs; an outlined kernel's parameters are "
                              "its body's arguments";
  } else if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the kernel has "
                         << getInputs().size() << " inputs";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(body.getArgumentTypes(), getInputs().getTypes())))
    if (std::get<0>(pair) != atPinned(std::get<1>(pair)))
      return emitOpError() << "body argument #" << i << " has type "
                           << std::get<0>(pair) << " but input #" << i
                           << " has type " << std::get<1>(pair)
                           << (pinned.empty() ? ""
                                              : " (at the values its 'when' "
                                                "guard pins: "
                                                    + describeValues(pinned)
                                                    + ")");
  YieldOp yield = getYield();
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values but has " << getNumResults()
                         << " results";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(yield.getValues().getTypes(), getResultTypes()))) {
    auto yielded = cast<StridedTensorType>(std::get<0>(pair));
    auto result = cast<StridedTensorType>(std::get<1>(pair));
    if (yielded.getShape() != result.getShape() ||
        yielded.getElementType() != result.getElementType())
      return emitOpError() << "result #" << i << " of type " << result
                           << " differs in shape or element type from the "
                              "yielded value of type "
                           << yielded;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SelectVariantOp
//===----------------------------------------------------------------------===//

LogicalResult SelectVariantOp::verify() {
  SymbolRanges declared = enclosingSymbols(*this);
  if (failed(verifySymbolRanges(*this, getWhen(), &declared)))
    return failure();
  StridedTensorType expected =
      typeAtValues(getOtherwise().getType(), pinnedValuesOf(getWhen()));
  if (getVariant().getType() != expected)
    return emitOpError() << "has a variant of type " << getVariant().getType()
                         << "; expected " << expected
                         << ", the other operand's type at the values its "
                            "'when' guard pins";
  return success();
}
