//===- MatmulLayout.cpp - How each matmul's library call reads operands ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-matmul-layout (Passes.td): marks the products of few rows that run
// as Stride's skinny product kernel (python-free-docs/matmul.md, "Skinny
// products"); for the others, the library calls, records the in-place
// reading of each operand, or copies the operand into a dense temporary
// first, copies unaligned f16/bf16 operand rows into aligned ones (with
// zeros over a padded K), and pads N (python-free-docs/matmul.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "dialects/stride/Transforms/Passes.h"
#include "dialects/stride/Transforms/SymbolicProducts.h"
#include "stride/Support/MatmulLayout.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace stride {
#define GEN_PASS_DEF_MATMULLAYOUT
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The fewest rows (its dim that is not K) of the operand whose aligned
/// copy is zero-padded along K (padContraction). The other operand is
/// copied with zero rows on every run; the product does 2 * rows flops per
/// element of it, which from 256 rows on keeps that copy (4 bytes moved
/// per bf16 element) within a small multiple of the product's own time at
/// the library's fast rate (an H200 does about 200 bf16 flops per byte it
/// moves), against the several times that rate the unaligned K costs
/// (GPT-2's dX: 2.55 ms where 316 GFLOP take about 0.45 ms).
constexpr int64_t kMinRowsPerZeroPaddedK = 256;

/// Decides the operand layouts of the matmuls of one function, copying
/// each value that needs a copy once (the ops are visited in program
/// order, so the first copy dominates the later readers).
class OperandLayouts {
public:
  OperandLayouts(bool padOperandRows, bool padContractionDim)
      : padOperandRows(padOperandRows), padContractionDim(padContractionDim) {}

  LogicalResult decide(MatmulOp matmul) {
    if (isSymbolicProduct(matmul)) {
      padColumnsOverSymbolicRows(matmul);
      return decideSymbolic(matmul);
    }
    // A `row_classes` already on the op (written by hand, or by an
    // earlier run) stands.
    std::optional<int64_t> classes = matmul.getRowClasses();
    if (!classes && (classes = rowClasses(matmul)))
      matmul.setRowClasses(*classes);
    if (!classes) {
      padColumns(matmul);
      padContraction(matmul);
    }
    // A class of rows is a row-major matrix (MatmulOp's row_classes).
    matmul.setLhsLayoutAttr(decideOperand(matmul, matmul.getLhsMutable(),
                                          /*rowMajor=*/classes.has_value()));
    matmul.setRhsLayoutAttr(decideOperand(matmul, matmul.getRhsMutable()));
    // The library reads a bias of consecutive elements.
    MutableOperandRange bias = matmul.getBiasMutable();
    if (!bias.empty() &&
        !isContiguousVector(
            cast<StridedTensorType>(bias[0].get().getType()).getLayout()))
      copyToDense(matmul, bias[0]);
    if (!classes)
      return decideResult(matmul);
    return success();
  }

private:
  static bool isSymbolicProduct(MatmulOp matmul) {
    return llvm::any_of(matmul->getOperandTypes(), [](Type t) {
      return cast<StridedTensorType>(t).isSymbolic();
    }) || matmul.getResult().getType().isSymbolic();
  }

  /// A product over symbolic sizes (stride-check-symbolic-sizes admits
  /// static strides and offsets only) reads its operands in place and
  /// writes the graph's result layout, at their layouts at the symbols'
  /// largest values, which hold for every value: no row classes and no
  /// aligned or zero-padded copies, whose choice depends on sizes a range
  /// does not fix (python-free-docs/symbolic-sizes.md, "Library calls over
  /// symbolic sizes"). An unaligned N, which depends on the weight alone,
  /// is padded first (padColumnsOverSymbolicRows).
  static LogicalResult decideSymbolic(MatmulOp matmul) {
    if (std::optional<std::string> missing = missingForSymbolicProduct(matmul))
      return matmul.emitOpError()
             << "over symbolic sizes is not built: not yet for " << *missing
             << " (stride-check-symbolic-sizes refuses it first)";
    // The rule makes sure each operand reads in place at the largest values.
    auto readAt = [&](Value operand) {
      Layout layout = *layoutAtLargest(
          cast<StridedTensorType>(operand.getType()), matmul);
      return getMatmulOperandAttr(matmul.getContext(),
                                  *matmulOperandLayout(layout));
    };
    matmul.setLhsLayoutAttr(readAt(matmul.getLhs()));
    matmul.setRhsLayoutAttr(readAt(matmul.getRhs()));
    return success();
  }

  /// The type of `value`'s dense row-major copy (copyToDense).
  static StridedTensorType denseTypeOf(Value value) {
    auto type = cast<StridedTensorType>(value.getType());
    return StridedTensorType::getContiguous(type.getShape(),
                                            type.getElementType());
  }

  /// How the library will read `operand`: in place, or as the dense copy
  /// decideOperand makes; with the element offset it reads from.
  static std::pair<MatmulOperandLayout, int64_t> readLayout(Value operand) {
    auto type = cast<StridedTensorType>(operand.getType());
    if (std::optional<MatmulOperandLayout> layout =
            matmulOperandLayout(type.getLayout()))
      return {*layout, type.getOffset()};
    return {*matmulOperandLayout(denseTypeOf(operand).getLayout()), 0};
  }

  /// An f16/bf16 2-D product whose dense rows are not 16-byte aligned is
  /// written in row classes where its operands allow it
  /// (matmulRowClasses): every call reads and writes aligned rows of the
  /// graph's own buffers, with no padded weight, product or copy. GPT-2's
  /// bf16 logits on the H100: 1.14 ms, against 1.03 + 1.04 for the padded
  /// product and its copy, and 823 MB less memory (bench/NOTES.md
  /// section 24).
  static std::optional<int64_t> rowClasses(MatmulOp matmul) {
    StridedTensorType type = matmul.getResult().getType();
    if (type.getRank() != 2 || !isRowMajor(type.getLayout()) ||
        matmul.getAddend())
      return std::nullopt;
    auto [lhs, lhsOffset] = readLayout(matmul.getLhs());
    auto [rhs, rhsOffset] = readLayout(matmul.getRhs());
    return matmulRowClasses(type.getShape()[0], type.getShape()[1],
                            dtypeSize(type.getDType()),
                            lhs, lhsOffset, rhs, rhsOffset);
  }

  /// Replaces `operand` of `matmul` by a dense row-major copy of it;
  /// returns the copy's layout.
  Layout copyToDense(MatmulOp matmul, OpOperand &operand) {
    Value &copy = copies[operand.get()];
    if (!copy) {
      OpBuilder builder(matmul);
      copy = CloneOp::create(builder, matmul.getLoc(),
                             denseTypeOf(operand.get()), operand.get());
    }
    operand.set(copy);
    return cast<StridedTensorType>(copy.getType()).getLayout();
  }

  /// How the library reads `operand` of `matmul`; an operand it cannot
  /// read in place (or, with `rowMajor`, not row-major) is replaced by a
  /// dense row-major copy first.
  MatmulOperandAttr decideOperand(MatmulOp matmul, OpOperand &operand,
                                  bool rowMajor = false) {
    auto type = cast<StridedTensorType>(operand.get().getType());
    std::optional<MatmulOperandLayout> layout =
        matmulOperandLayout(type.getLayout());
    if (layout && !rowMajor && padOperandRows)
      if (std::optional<Layout> aligned = copyToAlignedRows(matmul, operand))
        layout = matmulOperandLayout(*aligned);
    if (!layout || (rowMajor && layout->transposed))
      layout = matmulOperandLayout(copyToDense(matmul, operand));
    return getMatmulOperandAttr(matmul.getContext(), *layout);
  }

  /// The row-major value under an operand whose rows are copied into
  /// aligned ones (copyToAlignedRows): the operand itself, or the value a
  /// transposing `stride.permute` (kept here) views.
  struct AlignedRowsSource {
    Value rows;
    PermuteOp permute;
  };

  /// The source of `operand`'s aligned copy, or nullopt where its rows in
  /// memory are already a multiple of 16 bytes (f32 and f64 always) or
  /// it is no such view of a row-major value.
  static std::optional<AlignedRowsSource> alignedRowsSource(Value operand) {
    auto type = cast<StridedTensorType>(operand.getType());
    std::optional<MatmulOperandLayout> layout =
        matmulOperandLayout(type.getLayout());
    if (!layout ||
        alignedResultLd(layout->ld, dtypeSize(type.getDType())) == layout->ld)
      return std::nullopt;
    auto permute = operand.getDefiningOp<PermuteOp>();
    if (permute && !swapsLastTwo(permute.getDims()))
      return std::nullopt;
    Value rows = permute ? permute.getInput() : operand;
    std::optional<MatmulOperandLayout> read = matmulOperandLayout(
        cast<StridedTensorType>(rows.getType()).getLayout());
    if (!read || read->transposed)
      return std::nullopt;
    return AlignedRowsSource{rows, permute};
  }

  /// An f16/bf16 operand whose rows in memory are not a multiple of 16
  /// bytes (its leading dimension: GPT-2's 50,257 logits per token, read
  /// by the LM head's two backward products) makes the library run its
  /// slow kernels, as an unaligned result does (alignedResultLd). The
  /// matrix under the operand, a row-major value or the row-major value a
  /// transposing `stride.permute` views, is copied into rows padded to 16
  /// bytes (the fusion pass merges the copy into a pointwise producer,
  /// which then writes the padded rows itself), and the operand becomes
  /// the copy (or the same permute of it). Both products share one copy.
  /// Returns the operand's new layout; nullopt (nothing changed) for other
  /// operands.
  std::optional<Layout> copyToAlignedRows(MatmulOp matmul,
                                          OpOperand &operand) {
    std::optional<AlignedRowsSource> source = alignedRowsSource(operand.get());
    if (!source)
      return std::nullopt;
    Value copy = alignedCopy(matmul, source->rows, /*zeroPad=*/false);
    operand.set(readAsSource(matmul, *source, copy));
    eraseIfUnused(source->permute);
    return cast<StridedTensorType>(operand.get().getType()).getLayout();
  }

  /// The aligned copy of row-major `rows`, made once for all its readers
  /// (before `matmul`, the first): a `stride.clone` into rows padded to
  /// 16 bytes, whose pad is never written; with `zeroPad`, a slice view
  /// of `rows` concatenated with zero columns (zeroPaddedRows), which
  /// replaces a clone made for an earlier reader.
  Value alignedCopy(MatmulOp matmul, Value rows, bool zeroPad) {
    Value &copy = alignedCopies[rows];
    if (copy && (!zeroPad || copy.getDefiningOp<SliceOp>()))
      return copy;
    Operation *at = copy ? copy.getDefiningOp() : matmul.getOperation();
    OpBuilder builder(at);
    auto rowsType = cast<StridedTensorType>(rows.getType());
    StridedTensorType alignedType = rowsType.withLayout(paddedRows(
        rowsType.getShape(), alignedResultLd(rowsType.getShape().back(),
                                             dtypeSize(rowsType.getDType()))));
    Value next =
        zeroPad ? zeroPaddedRows(builder, at->getLoc(), rows, alignedType)
                : CloneOp::create(builder, at->getLoc(), alignedType, rows)
                      .getResult();
    if (copy) {
      Operation *clone = copy.getDefiningOp();
      copy.replaceAllUsesWith(next);
      clone->erase();
    }
    return copy = next;
  }

  /// Row-major 2-D `rows` in rows padded to `alignedType`'s leading
  /// dimension, the pad zeros: a slice view (of type `alignedType`) of
  /// `rows` concatenated with zero columns. The concatenation is the
  /// zero-padded matrix a product over a padded K reads (padContraction).
  static Value zeroPaddedRows(OpBuilder &builder, Location loc, Value rows,
                              StridedTensorType alignedType) {
    ArrayRef<int64_t> shape = alignedType.getShape();
    int64_t last = static_cast<int64_t>(shape.size()) - 1;
    int64_t columns = shape.back();
    Value padded = padWithZeros(builder, loc, rows, last,
                                alignedType.getStrides()[last - 1] - columns);
    return SliceOp::create(builder, loc, alignedType, padded, last,
                           /*start=*/0, /*end=*/columns, /*step=*/1);
  }

  /// `copy`, a copy of `source`'s rows, read as the operand was: itself,
  /// or through the same swap of the last two dims.
  static Value readAsSource(MatmulOp matmul, AlignedRowsSource source,
                            Value copy) {
    if (!source.permute)
      return copy;
    Layout swapped = cast<StridedTensorType>(copy.getType()).getLayout();
    size_t rank = swapped.shape.size();
    std::swap(swapped.shape[rank - 1], swapped.shape[rank - 2]);
    std::swap(swapped.strides[rank - 1], swapped.strides[rank - 2]);
    OpBuilder builder(matmul);
    return PermuteOp::create(builder, matmul.getLoc(),
                             source.permute.getType().withLayout(swapped),
                             copy, source.permute.getDimsAttr());
  }

  static void eraseIfUnused(PermuteOp permute) {
    if (permute && permute->use_empty())
      permute->erase();
  }

  /// An f16/bf16 2-D product whose contraction dim K is not a multiple of
  /// 16 bytes runs the library's slow kernels even when its operands'
  /// rows are aligned: k itself must be aligned, as n must
  /// (padColumns). Where an operand reads K-element rows that are copied
  /// into aligned rows anyway (copyToAlignedRows: GPT-2's logits'
  /// gradient, read by `dX = dlogits W` over K = 50,257), K is padded to
  /// the aligned count with zeros, which add exact zeros to every sum:
  /// that operand reads its copy with the pad columns zero-filled
  /// (zeroPaddedRows), the other gets zero rows (a `stride.cat` with a
  /// `stride.full 0`, padWithZeros), and the product runs over the padded
  /// K. Only where the zero-padded operand has at least
  /// kMinRowsPerZeroPaddedK rows (its dim that is not K), so that the
  /// product's arithmetic hides the other operand's padded copy.
  void padContraction(MatmulOp matmul) {
    StridedTensorType type = matmul.getResult().getType();
    if (!padOperandRows || !padContractionDim || type.getRank() != 2)
      return;
    StridedTensorType lhsType = matmul.getLhs().getType();
    int64_t k = lhsType.getShape()[1];
    int64_t extra = alignedResultLd(k, dtypeSize(lhsType.getDType())) - k;
    std::optional<AlignedRowsSource> lhs =
        contractedRows(matmul.getLhs(), /*rhs=*/false);
    std::optional<AlignedRowsSource> rhs =
        contractedRows(matmul.getRhs(), /*rhs=*/true);
    ArrayRef<int64_t> shape = type.getShape();
    if (extra == 0 || !((lhs && shape[0] >= kMinRowsPerZeroPaddedK) ||
                        (rhs && shape[1] >= kMinRowsPerZeroPaddedK)))
      return;
    OpBuilder builder(matmul);
    Location loc = matmul.getLoc();
    matmul.getLhsMutable().assign(
        lhs ? zeroPaddedOperand(matmul, *lhs)
            : padWithZeros(builder, loc, matmul.getLhs(), 1, extra));
    matmul.getRhsMutable().assign(
        rhs ? zeroPaddedOperand(matmul, *rhs)
            : padWithZeros(builder, loc, matmul.getRhs(), 0, extra));
    eraseIfUnused(lhs ? lhs->permute : PermuteOp());
    eraseIfUnused(rhs ? rhs->permute : PermuteOp());
  }

  /// The source of `operand`'s aligned copy where the operand's rows in
  /// memory are its K elements: an lhs read row-major, an rhs read
  /// transposed.
  static std::optional<AlignedRowsSource> contractedRows(Value operand,
                                                         bool rhs) {
    std::optional<AlignedRowsSource> source = alignedRowsSource(operand);
    if (!source || static_cast<bool>(source->permute) != rhs)
      return std::nullopt;
    return source;
  }

  /// The zero-padded matrix under `source`'s aligned copy (made, or made
  /// zero-padded, here), read as the operand was.
  Value zeroPaddedOperand(MatmulOp matmul, AlignedRowsSource source) {
    Value copy = alignedCopy(matmul, source.rows, /*zeroPad=*/true);
    return readAsSource(matmul, source,
                        copy.getDefiningOp<SliceOp>().getInput());
  }

  /// Whether `dims` swaps the last two dims and keeps the others.
  static bool swapsLastTwo(ArrayRef<int64_t> dims) {
    size_t rank = dims.size();
    if (rank < 2 || dims[rank - 1] != int64_t(rank - 2) ||
        dims[rank - 2] != int64_t(rank - 1))
      return false;
    for (size_t d = 0; d + 2 < rank; ++d)
      if (dims[d] != int64_t(d))
        return false;
    return true;
  }

  /// Row-major `shape` with rows `ld` elements apart, matrices one after
  /// the other.
  static Layout paddedRows(ArrayRef<int64_t> shape, int64_t ld) {
    size_t rank = shape.size();
    Layout layout{Dims(shape.begin(), shape.end()), Dims(rank, 1), 0};
    layout.strides[rank - 2] = ld;
    for (size_t d = rank - 2; d-- > 0;)
      layout.strides[d] = layout.strides[d + 1] * shape[d + 1];
    return layout;
  }

  /// An f16/bf16 product whose rows are not a multiple of 16 bytes runs
  /// the library's slow kernels even at an aligned leading dimension: n
  /// itself must be aligned (an H100 bf16 product [8192,768] x [768,50257]
  /// took 6.67 ms with only ldd padded, 0.95 ms with n padded). A 2-D rhs
  /// (no bias) gets zero columns up to the aligned n (padWeight), the
  /// product computes them, and a slice view drops them before the copy
  /// into the graph's layout. A batched rhs keeps n, and only the rows are
  /// padded (decideResult).
  void padColumns(MatmulOp matmul) {
    StridedTensorType rhsType = matmul.getRhs().getType();
    StridedTensorType type = matmul.getResult().getType();
    ArrayRef<int64_t> shape = type.getShape();
    int64_t columns = shape.back();
    int64_t padded = alignedResultLd(columns, dtypeSize(type.getDType()));
    if (padded == columns || rhsType.getRank() != 2 || matmul.getBias() ||
        matmul.getAddend())
      return;
    Location loc = matmul.getLoc();
    OpBuilder builder(matmul);
    matmul.getRhsMutable().assign(padWithZeros(builder, loc, matmul.getRhs(),
                                               /*dim=*/1, padded - columns));

    Type elementType = type.getElementType();
    Dims productShape(shape.begin(), shape.end());
    productShape.back() = padded;
    Value product = matmul.getResult();
    product.setType(StridedTensorType::getContiguous(productShape, elementType));
    builder.setInsertionPointAfter(matmul);
    int64_t last = static_cast<int64_t>(shape.size()) - 1;
    auto sliced = SliceOp::create(
        builder, loc, type.withLayout(sliceLayout(productShape, columns)),
        product, last, /*start=*/0, /*end=*/columns, /*step=*/1);
    auto copy = CloneOp::create(builder, loc, type, sliced.getResult());
    product.replaceAllUsesExcept(copy, sliced);
  }

  /// padColumns for a 2-D product over symbolic rows: the padding of N
  /// depends on the weight alone (static), so the product is written
  /// [rows, padded] and copied into its result [rows, N] through a slice
  /// of the symbolic rows. Unpadded, GPT-2's LM head (N = 50257) over 1024
  /// symbolic tokens took 0.775 ms on an H200, padded 0.122 ms
  /// (bench/NOTES.md section 60).
  void padColumnsOverSymbolicRows(MatmulOp matmul) {
    StridedTensorType type = matmul.getResult().getType();
    if (type.getRank() != 2 || matmul.getBias() || matmul.getAddend() ||
        matmul.getRhs().getType().isSymbolic() ||
        !isRowMajor(*layoutAtLargest(type, matmul)))
      return;
    int64_t columns = type.getShape().back();
    int64_t padded = alignedResultLd(columns, dtypeSize(type.getDType()));
    if (padded == columns)
      return;
    Location loc = matmul.getLoc();
    OpBuilder builder(matmul);
    matmul.getRhsMutable().assign(padWithZeros(builder, loc, matmul.getRhs(),
                                               /*dim=*/1, padded - columns));
    Type elementType = type.getElementType();
    SymbolicLayout product = type.getSymbolicLayout();
    product.shape[1] = SizeExpr::constant(padded);
    product.strides = {SizeExpr::constant(padded), SizeExpr::constant(1)};
    product.offset = SizeExpr::constant(0);
    Value result = matmul.getResult();
    result.setType(StridedTensorType::get(elementType, product));
    builder.setInsertionPointAfter(matmul);
    SymbolicViewResult slice =
        inferSlice(product, /*dim=*/1, SizeExpr::constant(0),
                   SizeExpr::constant(columns), /*step=*/1,
                   enclosingSymbols(matmul));
    assert(slice && "the first columns of the padded product");
    auto sliced = SliceOp::create(
        builder, loc, StridedTensorType::get(elementType, *slice.layout),
        result, /*dim=*/1, /*start=*/0, /*end=*/columns, /*step=*/1);
    auto copy = CloneOp::create(builder, loc, type, sliced.getResult());
    result.replaceAllUsesExcept(copy, sliced);
  }

  /// 2-D `value` with `extra` zeros after its elements along `dim` (zero
  /// columns for a weight [K, N] of a padded N, zero rows for the weight
  /// of a padded K), as a `stride.cat` with a `stride.full 0` that the
  /// fusion pass makes one copy kernel. A transposed value (a permute of
  /// an `nn.Linear` weight [N, K], whose columns are rows in memory) is
  /// padded in its memory's orientation and permuted back: the copy then
  /// streams the value's memory in order (padding the permuted view
  /// directly wrote with a stride of K: 1.23 ms for GPT-2's 77 MB bf16
  /// embedding on the H100).
  static Value padWithZeros(OpBuilder &builder, Location loc, Value value,
                            int64_t dim, int64_t extra) {
    auto type = cast<StridedTensorType>(value.getType());
    bool transposed = type.getStrides()[0] < type.getStrides()[1];
    Value rows = transposed ? transpose(builder, loc, value) : value;
    auto rowsType = cast<StridedTensorType>(rows.getType());
    int64_t padDim = transposed ? 1 - dim : dim;
    Dims zerosShape(rowsType.getShape().begin(), rowsType.getShape().end());
    zerosShape[padDim] = extra;
    Type elementType = type.getElementType();
    auto zeros = FullOp::create(
        builder, loc, StridedTensorType::getContiguous(zerosShape, elementType),
        builder.getF64FloatAttr(0.0));
    Dims paddedShape(zerosShape);
    paddedShape[padDim] = rowsType.getShape()[padDim] + extra;
    Value padded = CatOp::create(
        builder, loc, StridedTensorType::getContiguous(paddedShape, elementType),
        ValueRange{rows, zeros}, padDim);
    return transposed ? transpose(builder, loc, padded) : padded;
  }

  /// A 2-D `value` with its dims swapped (a view).
  static Value transpose(OpBuilder &builder, Location loc, Value value) {
    Layout layout = cast<StridedTensorType>(value.getType()).getLayout();
    std::swap(layout.shape[0], layout.shape[1]);
    std::swap(layout.strides[0], layout.strides[1]);
    return PermuteOp::create(
        builder, loc,
        cast<StridedTensorType>(value.getType()).withLayout(layout), value,
        builder.getDenseI64ArrayAttr({1, 0}));
  }

  /// The first `columns` columns of a row-major `shape`.
  static Layout sliceLayout(ArrayRef<int64_t> shape, int64_t columns) {
    Layout layout{Dims(shape.begin(), shape.end()),
                  rowMajorStrides(Dims(shape.begin(), shape.end())), 0};
    layout.shape.back() = columns;
    return layout;
  }

  /// Gives `matmul` a result layout the library writes fast: rows at the
  /// aligned leading dimension (alignedResultLd), matrices one after the
  /// other. When that is not the graph's layout (an unaligned f16/bf16
  /// row), the product is written there and copied into the graph's layout
  /// by a clone, which the fusion pass merges into a pointwise reader where
  /// there is one.
  LogicalResult decideResult(MatmulOp matmul) {
    StridedTensorType type = matmul.getResult().getType();
    ArrayRef<int64_t> shape = type.getShape();
    size_t rank = shape.size();
    int64_t ld = alignedResultLd(
        shape[rank - 1], dtypeSize(type.getDType()));
    std::optional<MatmulOperandLayout> written =
        matmulResultLayout(type.getLayout());
    if (written && written->ld == ld)
      return success();
    StridedTensorType aligned = type.withLayout(paddedRows(shape, ld));
    OpBuilder builder(matmul->getContext());
    builder.setInsertionPointAfter(matmul);
    Value product = matmul.getResult();
    auto copy = CloneOp::create(builder, matmul.getLoc(), type, product);
    product.replaceAllUsesExcept(copy, copy);
    product.setType(aligned);
    addAfterTheCopy(matmul, copy);
    return success();
  }

  /// The addend is read with the result's layout, which decideResult has
  /// just changed (stride-fuse folds one only where the result keeps its
  /// layout; a graph file may write one anywhere): the product drops it,
  /// and its epilogue, which the addend precedes, and both are applied to
  /// the copy as ops, which fusion merges with the copy into one kernel.
  static void addAfterTheCopy(MatmulOp matmul, CloneOp copy) {
    Value addend = matmul.getAddend();
    if (!addend)
      return;
    // The copy's readers before the ops below read it.
    SmallVector<OpOperand *> readers;
    for (OpOperand &use : copy.getResult().getUses())
      readers.push_back(&use);
    matmul.getAddendMutable().clear();
    OpBuilder builder(copy->getContext());
    builder.setInsertionPointAfter(copy);
    Location loc = matmul.getLoc();
    Type type = copy.getType();
    Value result = AddOp::create(builder, loc, type, copy, addend);
    switch (matmul.getEpilogue()) {
    case MatmulEpilogue::none:
      break;
    case MatmulEpilogue::relu:
      result = ReluOp::create(builder, loc, type, result);
      break;
    case MatmulEpilogue::gelu_tanh:
      result = GeluTanhOp::create(builder, loc, type, result);
      break;
    }
    matmul.setEpilogue(MatmulEpilogue::none);
    for (OpOperand *reader : readers)
      reader->set(result);
  }

  llvm::DenseMap<Value, Value> copies;
  /// Row-major values copied into rows aligned to 16 bytes.
  llvm::DenseMap<Value, Value> alignedCopies;
  /// Whether unaligned f16/bf16 operand rows are copied into aligned ones
  /// (copyToAlignedRows).
  bool padOperandRows;
  /// Whether an unaligned K read from such rows is padded with zeros
  /// (padContraction).
  bool padContractionDim;
};

void markSkinny(MatmulOp matmul) {
  matmul->setAttr(StrideDialect::kSkinnyProductAttrName,
                  UnitAttr::get(matmul.getContext()));
}

struct MatmulLayoutPass
    : public stride::impl::MatmulLayoutBase<MatmulLayoutPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<int64_t> rows = skinnyRowBound(skinnyProducts);
    if (!rows) {
      getOperation().emitError()
          << "stride-matmul-layout: unknown skinny-products policy '"
          << skinnyProducts << "'; expected auto, library or generated";
      return signalPassFailure();
    }
    OperandLayouts layouts(padOperandRows, padContraction);
    WalkResult walk = getOperation().walk([&](MatmulOp matmul) {
      // A mark already on the op (written by hand, or by an earlier run)
      // stands; the kernel contract checks it.
      if (matmul->hasAttr(StrideDialect::kSkinnyProductAttrName))
        return WalkResult::advance();
      if (*rows > 0 && succeeded(checkSkinnyProduct(matmul, *rows))) {
        markSkinny(matmul);
        return WalkResult::advance();
      }
      return failed(layouts.decide(matmul)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
