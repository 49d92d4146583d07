//===- SkinnyProducts.cpp - What the skinny product kernel computes -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (g) of the kernel contract (KernelContract.h): which products the
// skinny product kernel computes, how many rows each policy gives it, and
// the epilogue it evaluates from a warp's own sums
// (python-free-docs/matmul.md, "Skinny products").
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/Analysis/Violation.h"
#include "stride/Support/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

using namespace mlir;
using namespace stride;

LogicalResult stride::checkSkinnyProduct(MatmulOp op, int64_t maxRows,
                                         ContractReporter report) {
  StridedTensorType lhs = op.getLhs().getType(), rhs = op.getRhs().getType();
  Type element = lhs.getElementType();
  if (lhs.isSymbolic() || rhs.isSymbolic())
    return Violation(report, op)
           << "is over symbolic sizes; the skinny product kernel computes "
              "static shapes";
  if (lhs.getRank() != 2)
    return Violation(report, op)
           << "is a product of rank " << lhs.getRank()
           << "; the skinny product kernel computes 2-D products";
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return Violation(report, op)
           << "has element type " << element
           << "; the skinny product kernel computes f16, bf16 and f32";
  int64_t rows = lhs.getShape()[0], depth = lhs.getShape()[1];
  if (rows < 1 || rows > maxRows)
    return Violation(report, op)
           << "has " << rows << " rows; the skinny product kernel computes 1 "
           << "to " << maxRows;
  if (depth == 0)
    return Violation(report, op)
           << "sums over no elements (K = 0); the skinny product kernel "
              "needs K >= 1";
  // A dim of size 1 addresses nothing: its stride is never compared.
  if (rhs.getStrides()[0] != 1 && depth > 1)
    return Violation(report, op)
           << "reads its weight (rhs) with a stride of "
           << rhs.getStrides()[0]
           << " along K; the skinny product kernel streams a weight whose K "
              "elements are consecutive (an nn.Linear weight [N, K] read "
              "through a permute)";
  if (lhs.getStrides()[1] != 1 && depth > 1)
    return Violation(report, op)
           << "reads its lhs with a stride of " << lhs.getStrides()[1]
           << " along K; the skinny product kernel reads rows whose K "
              "elements are consecutive";
  if (op.getRowClasses())
    return Violation(report, op)
           << "is written in row classes; the skinny product kernel writes "
              "the whole result";
  if (op.getEpilogue() != MatmulEpilogue::none &&
      op.getEpilogue() != MatmulEpilogue::relu)
    return Violation(report, op)
           << "has epilogue " << stringifyMatmulEpilogue(op.getEpilogue())
           << "; the skinny product kernel applies relu only";
  return success();
}


/// The default policy (`auto`) runs a product as the skinny product kernel
/// up to this many rows. Measured on an H200 (bench/decode/skinny_sweep.py,
/// bench/NOTES.md section 50): at 1 row the kernel streams every decode
/// product at 3.3-4.3 TB/s, level with or ahead of cuBLASLt; at 8 rows it
/// takes 1.6-2x cuBLASLt's time (it multiplies each weight element with
/// every row on the CUDA cores, converting the activations at each step).
/// `generated` takes up to kMaxSkinnyProductRows, to measure
/// (python-free-docs/matmul.md, "Skinny products").
constexpr int64_t kAutoSkinnyProductRows = 1;

std::optional<int64_t> stride::skinnyRowBound(llvm::StringRef policy) {
  if (policy == "auto")
    return kAutoSkinnyProductRows;
  if (policy == "generated")
    return kMaxSkinnyProductRows;
  if (policy == "library")
    return 0;
  return std::nullopt;
}

SmallVector<int64_t> SkinnyEpilogue::columnOffsets() const {
  SmallVector<int64_t> offsets;
  for (const SkinnyEpilogueRead &read : reads)
    offsets.push_back(read.columnOffset);
  llvm::sort(offsets);
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

/// The column of the product's row 0 at which `read` starts, where `read`
/// (of `columns` elements per row of the product, taken row-major) lies
/// over the product's row-major `[rows, width]` result as a row-major
/// `[rows, columns]` block: its innermost dims, `columns` elements in all,
/// consecutive; its outer dims a row of the product apart; its offset
/// (the block's first column) at most `width` - `columns`. A dim of size 1
/// addresses nothing, so its stride is never compared.
static std::optional<int64_t> blockColumnOffset(StridedTensorType read,
                                                int64_t columns,
                                                int64_t width) {
  ArrayRef<int64_t> shape = read.getShape(), strides = read.getStrides();
  int64_t inner = 1, outer = width;
  for (int64_t d = read.getRank() - 1; d >= 0; --d) {
    if (shape[d] == 1)
      continue;
    bool inRow = inner < columns;
    int64_t &expected = inRow ? inner : outer;
    if (strides[d] != expected)
      return std::nullopt;
    expected *= shape[d];
    if (inRow && inner > columns)
      return std::nullopt;
  }
  if (inner != columns || read.getOffset() < 0 ||
      read.getOffset() + columns > width)
    return std::nullopt;
  return read.getOffset();
}

LogicalResult stride::checkSkinnyEpilogue(MatmulOp product,
                                          ArrayRef<Operation *> ops,
                                          Value yielded,
                                          ContractReporter report,
                                          SkinnyEpilogue &epilogue) {
  Value result = product.getResult();
  auto resultType = cast<StridedTensorType>(result.getType());
  int64_t rows = resultType.getShape()[0], width = resultType.getShape()[1];
  Operation *last = yielded.getDefiningOp();
  if (!last || !llvm::is_contained(ops, last))
    return Violation(report, product)
           << "is read by ops of its kernel, but the kernel yields a value "
              "they do not compute; a skinny product with an epilogue yields "
              "only the epilogue's result";
  auto shapeType = cast<StridedTensorType>(yielded.getType());
  ArrayRef<int64_t> shape = shapeType.getShape();
  std::optional<int64_t> elements = checkedNumElements(shape);
  if (!elements || rows == 0 || *elements % rows != 0)
    return Violation(report, last)
           << "is the epilogue's result, of " << formatDims(shape)
           << ", which is no whole number of elements per row of the "
              "skinny product's " << rows << " rows"
           << Violation::Note(product, "the product");
  epilogue.columns = *elements / rows;
  if (resultType.getStrides()[1] != 1 ||
      (rows > 1 && resultType.getStrides()[0] != width) ||
      resultType.getOffset() != 0)
    return Violation(report, product)
           << "has a result that is not row-major; an epilogue reads the "
              "skinny product's row-major result";
  for (Operation *op : ops) {
    if (!op->hasTrait<Elementwise>() || op->getNumResults() != 1 ||
        cast<StridedTensorType>(op->getResult(0).getType()).getShape() !=
            shape)
      return Violation(report, op)
             << "reads the skinny product's result but is no elementwise op "
                "of the epilogue's shape " << formatDims(shape)
             << "; a skinny product's epilogue holds elementwise ops of one "
                "shape"
             << Violation::Note(product, "the product");
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && llvm::is_contained(ops, def))
        continue;
      Value base = viewChainBase(operand);
      if (isa<BlockArgument>(base))
        continue;
      std::optional<int64_t> offset;
      if (base == result &&
          cast<StridedTensorType>(operand.getType()).getShape() == shape)
        offset = blockColumnOffset(cast<StridedTensorType>(operand.getType()),
                                   epilogue.columns, width);
      if (!offset)
        return Violation(report, op)
               << "reads a value that is neither another epilogue op's "
                  "result read directly, a kernel input, nor the skinny "
                  "product's result read as a block of "
               << epilogue.columns
               << " consecutive columns of each row; a warp evaluates the "
                  "epilogue at its own columns"
               << Violation::Note(product, "the product");
      epilogue.reads.push_back({operand, *offset});
    }
  }
  if (epilogue.columnOffsets().size() > kMaxSkinnyEpilogueOffsets)
    return Violation(report, product)
           << "is read by its epilogue at "
           << epilogue.columnOffsets().size()
           << " column offsets; a warp holds its columns' sums at each, and "
              "the skinny product kernel holds at most "
           << kMaxSkinnyEpilogueOffsets;
  epilogue.ops.assign(ops.begin(), ops.end());
  return success();
}

LogicalResult stride::checkSkinnyRowPrologue(MatmulOp product,
                                             ArrayRef<Operation *> prologue,
                                             ValueRange yields,
                                             ContractReporter report,
                                             KernelClass &result) {
  auto inPrologue = [&](Operation *op) {
    return llvm::is_contained(prologue, op);
  };
  SmallVector<ReductionOpInterface> reductions;
  for (Operation *op : prologue)
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      reductions.push_back(reduction);
  ArrayRef<int64_t> lhs = product.getLhs().getType().getShape();
  int64_t rows = lhs[0], depth = lhs[1];
  for (ReductionOpInterface reduction : reductions) {
    auto input = cast<StridedTensorType>(reduction.getInput().getType());
    auto output = cast<StridedTensorType>(reduction->getResult(0).getType());
    if (!reducesSameRows(reduction, reductions.front()))
      return Violation(report, reduction)
             << "reduces other rows than another reduction of the skinny "
                "product's prologue; a prologue's reductions reduce the "
                "same rows"
             << Violation::Note(reductions.front(), "the other reduction")
             << Violation::Note(product, "the product");
    std::optional<int64_t> inputElements =
        checkedNumElements(input.getShape());
    std::optional<int64_t> outputElements =
        checkedNumElements(output.getShape());
    if (input.isSymbolic() || outputElements != rows ||
        inputElements != rows * depth)
      return Violation(report, reduction)
             << "reduces " << formatDims(input.getShape()) << " to "
             << formatDims(output.getShape())
             << "; a skinny product's prologue reduces its lhs's rows, "
             << rows << " of " << depth
             << " elements (each block reduces every row before it stages "
                "them)"
             << Violation::Note(product, "the product");
    if (failed(checkEpilogue(reduction, inPrologue, /*broadcast=*/true,
                             report)))
      return failure();
  }
  // The per-row ops: those of the reductions' result shape that depend on
  // them; and every op that depends on them (the prologue is in block
  // order, so operands come first).
  llvm::SmallPtrSet<Operation *, 8> dependents;
  for (ReductionOpInterface reduction : reductions)
    dependents.insert(reduction);
  auto readsRowValue = [&](Operation *op) { return dependents.contains(op); };
  for (Operation *op : prologue) {
    bool reads = llvm::any_of(op->getOperands(), [&](Value operand) {
      return dependents.contains(viewChainBase(operand).getDefiningOp());
    });
    if (!reads)
      continue;
    dependents.insert(op);
    if (isPerRowOp(op, reductions.front()))
      result.rowOps.push_back(op);
  }
  // Values of the prologue the kernel yields beside the product: only
  // those its reductions read as their input, at each element of the rows
  // (a residual sum that an RMSNorm normalizes), computed before them.
  for (auto [i, value] : llvm::enumerate(yields)) {
    Operation *def = value.getDefiningOp();
    if (!def || !inPrologue(def))
      continue;
    if (reductions.empty() || readsRowValue(def) ||
        cast<StridedTensorType>(value.getType()).getShape() !=
            cast<StridedTensorType>(reductions.front().getInput().getType())
                .getShape() ||
        !isInRowFrame(def, inPrologue))
      return Violation(report, def)
             << "is computed by the skinny product's prologue and yielded; "
                "a skinny product's kernel yields a prologue value only "
                "where the prologue's row reductions read it at each "
                "element of their rows (a residual sum an RMSNorm "
                "normalizes)"
             << Violation::Note(product, "the product");
    result.prologueResults.push_back(static_cast<unsigned>(i));
  }
  return success();
}
