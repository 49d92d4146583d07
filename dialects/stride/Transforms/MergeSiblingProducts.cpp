//===- MergeSiblingProducts.cpp - One product over concatenated weights ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-merge-sibling-products (ProductPasses.td): 2-D products that read
// the same activations against constant weights of one K and element type
// (a transformer's q/k/v projections, an MLP's gate and up) become one
// product over the weights concatenated along N at compile time, and each
// former product a `stride.slice` view of its columns
// (python-free-docs/matmul.md, "Sibling products").
//
//===----------------------------------------------------------------------===//

#include "OpsBefore.h"
#include "dialects/stride/Transforms/Passes.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <vector>

namespace stride {
#define GEN_PASS_DEF_MERGESIBLINGPRODUCTS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// Whether `a` and `b` hold the same elements at the same addresses: the
/// same value, or like views of the same value (torch.export gives each
/// linear layer a `view` of its own of the shared activations).
bool sameValue(Value a, Value b) {
  if (a == b)
    return true;
  auto viewA = a.getDefiningOp<ViewOpInterface>();
  auto viewB = b.getDefiningOp<ViewOpInterface>();
  if (!viewA || !viewB || a.getType() != b.getType())
    return false;
  Operation *opA = viewA, *opB = viewB;
  return opA->getName() == opB->getName() &&
         opA->getAttrDictionary() == opB->getAttrDictionary() &&
         sameValue(viewA.getSource(), viewB.getSource());
}

/// The dense row-major constant `value` is, read by `user` alone (a weight
/// that another op also reads would then be stored twice); null otherwise.
ConstantOp exclusiveConstant(Value value, Operation *user) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant || !value.hasOneUse() || *value.user_begin() != user ||
      !isRowMajor(typeOf(value).getLayout()) ||
      !isa<DenseElementsAttr>(constant.getValue()))
    return nullptr;
  unsigned bits = typeOf(value).getElementType().getIntOrFloatBitWidth();
  return bits % 8 == 0 ? constant : nullptr;
}

/// A product's constant weight: a `[K, N]` constant, or an `nn.Linear`
/// weight `[N, K]` read through `permute [1, 0]` (`permute` set); the
/// concatenation is along N, the constant's dim `dim()`.
struct Weight {
  ConstantOp constant;
  PermuteOp permute;
  int64_t dim() const { return permute ? 0 : 1; }
};

std::optional<Weight> weightOf(MatmulOp product) {
  Value rhs = product.getRhs();
  if (ConstantOp constant = exclusiveConstant(rhs, product))
    return Weight{constant, nullptr};
  auto permute = rhs.getDefiningOp<PermuteOp>();
  if (!permute || !rhs.hasOneUse() ||
      permute.getDims() != ArrayRef<int64_t>{1, 0})
    return std::nullopt;
  if (ConstantOp constant = exclusiveConstant(permute.getInput(), permute))
    return Weight{constant, permute};
  return std::nullopt;
}

/// The `stride.add` of a constant bias that is `product`'s only reader
/// (`F.linear` with a bias, as torch.export writes it: the product, then
/// an add of the `[N]` bias broadcast by `stride.expand`, which
/// stride-fuse folds into the call); null otherwise. Siblings with one
/// each merge it too: one add of the biases concatenated, which folds
/// into the merged call.
AddOp biasAddOf(MatmulOp product) {
  Value result = product.getResult();
  if (product.getBias() || product.getAddend() || !result.hasOneUse())
    return nullptr;
  auto add = dyn_cast<AddOp>(*result.user_begin());
  if (!add || add.getLhs() == add.getRhs() ||
      add.getResult().getType() != result.getType())
    return nullptr;
  Value bias = add.getLhs() == result ? add.getRhs() : add.getLhs();
  auto expand = bias.getDefiningOp<ExpandOp>();
  if (!expand || !bias.hasOneUse() ||
      !exclusiveConstant(expand.getInput(), expand) ||
      expand.getInput().getType().getRank() != 1)
    return nullptr;
  return add;
}

/// The value a slice of the merged product replaces: the bias add's
/// result where the product has one, otherwise the product's.
Value slicedValueOf(MatmulOp product) {
  if (AddOp add = biasAddOf(product))
    return add.getResult();
  return product.getResult();
}

/// Whether a reader of `value`, directly or through views, needs its
/// layout as it is: the graph's output (a slice would need a copy into a
/// buffer of its own) or a collective (stride-prepare-collectives made its
/// operand contiguous).
bool layoutIsFixed(Value value) {
  bool fixed = false;
  forEachSink(value, [&](OpOperand &use) {
    fixed |= isa<func::ReturnOp, AllReduceOp, AllGatherOp, ReduceScatterOp>(
        use.getOwner());
  });
  return fixed;
}

/// Whether `product` can be merged with others at all: 2-D, a constant
/// weight only it reads, a bias (if any) likewise, no decision of a later
/// pass on it yet, and a result whose layout may change.
bool isCandidate(MatmulOp product) {
  StridedTensorType result = product.getResult().getType();
  if (result.getRank() != 2 || !weightOf(product) ||
      product.getLhsLayout() || product.getRhsLayout() ||
      product.getRowClasses() || product->hasAttr(StrideDialect::kSkinnyProductAttrName))
    return false;
  Value bias = product.getBias();
  if (bias && !exclusiveConstant(bias, product))
    return false;
  return !layoutIsFixed(slicedValueOf(product));
}

/// Whether `a` and `b` are siblings: candidates with the same activations,
/// one K, element type, weight form and epilogue, in one block.
bool areSiblings(MatmulOp a, MatmulOp b) {
  StridedTensorType rhsA = typeOf(a.getRhs()), rhsB = typeOf(b.getRhs());
  return a->getBlock() == b->getBlock() && sameValue(a.getLhs(), b.getLhs()) &&
         rhsA.getShape()[0] == rhsB.getShape()[0] &&
         rhsA.getElementType() == rhsB.getElementType() &&
         weightOf(a)->dim() == weightOf(b)->dim() &&
         a.getEpilogue() == b.getEpilogue() &&
         bool(a.getBias()) == bool(b.getBias()) && !a.getAddend() &&
         !b.getAddend() &&
         bool(biasAddOf(a)) == bool(biasAddOf(b));
}

/// The layout `view` computes from a source of layout `source`, static or
/// over the symbols of `ranges` (proven for every value of them); nullopt
/// where there is none.
std::optional<SymbolicLayout> viewLayout(ViewOpInterface view,
                                         const SymbolicLayout &source,
                                         const SymbolRanges &ranges) {
  if (source.symbols().empty()) {
    ViewResult inferred = view.inferResultLayout(*source.evaluate({}));
    return inferred ? std::optional(SymbolicLayout::fromLayout(*inferred.layout))
                    : std::nullopt;
  }
  SymbolicViewResult inferred = view.inferSymbolicResultLayout(source, ranges);
  return inferred ? inferred.layout : std::nullopt;
}

/// Whether the views built on `value` (transitively) still exist when
/// `value` gets layout `layout`.
bool viewsAccept(Value value, const SymbolicLayout &layout,
                 const SymbolRanges &ranges) {
  for (Operation *user : value.getUsers()) {
    auto view = dyn_cast<ViewOpInterface>(user);
    if (!view || view.getSource() != value)
      continue;
    std::optional<SymbolicLayout> inferred = viewLayout(view, layout, ranges);
    if (!inferred || !viewsAccept(user->getResult(0), *inferred, ranges))
      return false;
  }
  return true;
}

/// Gives the views built on `value` (transitively) the layouts its layout
/// now implies (viewsAccept said they exist).
void reinferViews(Value value, const SymbolRanges &ranges) {
  for (Operation *user : value.getUsers()) {
    auto view = dyn_cast<ViewOpInterface>(user);
    if (!view || view.getSource() != value)
      continue;
    SymbolicLayout inferred =
        *viewLayout(view, typeOf(value).getSymbolicLayout(), ranges);
    Value result = user->getResult(0);
    result.setType(StridedTensorType::get(typeOf(value).getElementType(),
                                          inferred));
    reinferViews(result, ranges);
  }
}

int64_t columnsOf(MatmulOp product) {
  return product.getResult().getType().getShape()[1];
}

/// The layout of `columns` columns from `start` of the merged `[rows,
/// total]` product, rows static or a size expression.
SymbolicLayout sliceLayout(const SizeExpr &rows, int64_t total, int64_t start,
                           int64_t columns, const SymbolRanges &ranges) {
  SymbolicLayout merged{{rows, SizeExpr::constant(total)},
                        {SizeExpr::constant(total), SizeExpr::constant(1)},
                        SizeExpr::constant(0)};
  return *inferSlice(merged, 1, SizeExpr::constant(start),
                     SizeExpr::constant(start + columns), 1, ranges)
              .layout;
}

/// Drops from `group` the products whose views would not exist as slices
/// of the merged product, until the rest all fit.
void dropMisfits(SmallVector<MatmulOp> &group) {
  SymbolRanges ranges = enclosingSymbols(group[0]);
  bool dropped = true;
  while (dropped && group.size() > 1) {
    SizeExpr rows = group[0].getResult().getType().getSymbolicLayout().shape[0];
    int64_t total = 0;
    for (MatmulOp product : group)
      total += columnsOf(product);
    dropped = false;
    int64_t start = 0;
    for (MatmulOp &product : group) {
      SymbolicLayout slice =
          sliceLayout(rows, total, start, columnsOf(product), ranges);
      start += columnsOf(product);
      if (viewsAccept(slicedValueOf(product), slice, ranges))
        continue;
      product = nullptr;
      dropped = true;
    }
    llvm::erase(group, nullptr);
  }
}

/// The bytes of `elements`, every element written out (a splat too).
std::vector<char> bytesOf(DenseElementsAttr elements) {
  ArrayRef<char> raw = elements.getRawData();
  if (!elements.isSplat())
    return std::vector<char>(raw.begin(), raw.end());
  std::vector<char> bytes;
  bytes.reserve(raw.size() * elements.getNumElements());
  for (int64_t i = 0; i < elements.getNumElements(); ++i)
    bytes.insert(bytes.end(), raw.begin(), raw.end());
  return bytes;
}

/// The constants of `parts` concatenated along `dim` (0, or 1 of a
/// matrix), as one constant's type and elements.
std::pair<StridedTensorType, DenseElementsAttr>
concatenate(ArrayRef<ConstantOp> parts, int64_t dim) {
  ConstantOp head = parts[0];
  StridedTensorType first = head.getResult().getType();
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  SmallVector<std::vector<char>> bytes;
  for (ConstantOp part : parts) {
    shape[dim] += part.getResult().getType().getShape()[dim];
    bytes.push_back(bytesOf(cast<DenseElementsAttr>(part.getValue())));
  }
  int64_t rows = dim == 0 ? 1 : shape[0];
  std::vector<char> merged;
  for (int64_t row = 0; row < rows; ++row)
    for (const std::vector<char> &part : bytes) {
      size_t rowBytes = part.size() / rows;
      merged.insert(merged.end(), part.begin() + row * rowBytes,
                    part.begin() + (row + 1) * rowBytes);
    }
  Type elementType = first.getElementType();
  auto tensorType = RankedTensorType::get(shape, elementType);
  return {StridedTensorType::getContiguous(shape, elementType),
          DenseElementsAttr::getFromRawBuffer(tensorType, merged)};
}

/// A constant of `parts` concatenated along `dim`, built at `builder`.
Value concatenatedConstant(OpBuilder &builder, Location loc,
                           ArrayRef<ConstantOp> parts, int64_t dim) {
  auto [type, elements] = concatenate(parts, dim);
  return ConstantOp::create(builder, loc, type, elements);
}

/// The merged product's weight: the constants concatenated, read as the
/// first product's weight is (through `permute [1, 0]` or as it is).
Value mergedWeight(OpBuilder &builder, Location loc, ArrayRef<MatmulOp> group) {
  SmallVector<ConstantOp> constants;
  for (MatmulOp product : group)
    constants.push_back(weightOf(product)->constant);
  Weight first = *weightOf(group[0]);
  Value weight = concatenatedConstant(builder, loc, constants, first.dim());
  if (!first.permute)
    return weight;
  Layout layout =
      *inferPermute(typeOf(weight).getLayout(), first.permute.getDims())
           .layout;
  return PermuteOp::create(builder, loc, typeOf(weight).withLayout(layout),
                           weight, first.permute.getDimsAttr());
}

/// The add of the biases concatenated to `product` (the merged one), as
/// the first of `group` adds its bias; `product` itself without.
Value mergedBiasAdd(OpBuilder &builder, Location loc, MatmulOp product,
                    ArrayRef<MatmulOp> group) {
  MatmulOp head = group[0];
  AddOp first = biasAddOf(head);
  if (!first)
    return product.getResult();
  SmallVector<ConstantOp> constants;
  for (MatmulOp sibling : group) {
    AddOp add = biasAddOf(sibling);
    Value bias = add.getLhs() == sibling.getResult() ? add.getRhs()
                                                      : add.getLhs();
    constants.push_back(bias.getDefiningOp<ExpandOp>()
                            .getInput()
                            .getDefiningOp<ConstantOp>());
  }
  Value biases = concatenatedConstant(builder, loc, constants, /*dim=*/0);
  StridedTensorType type = product.getResult().getType();
  Layout broadcast =
      *inferExpand(typeOf(biases).getLayout(), type.getShape()).layout;
  Value expanded = ExpandOp::create(builder, loc, type.withLayout(broadcast),
                                    biases);
  bool productFirst = first.getLhs() == head.getResult();
  return AddOp::create(builder, loc, type,
                       productFirst ? product.getResult() : expanded,
                       productFirst ? expanded : product.getResult());
}

/// The merged product's bias: the biases concatenated; null without.
Value mergedBias(OpBuilder &builder, Location loc, ArrayRef<MatmulOp> group) {
  MatmulOp first = group[0];
  if (!first.getBias())
    return nullptr;
  SmallVector<ConstantOp> constants;
  for (MatmulOp product : group)
    constants.push_back(product.getBias().getDefiningOp<ConstantOp>());
  return concatenatedConstant(builder, loc, constants, /*dim=*/0);
}

/// Removes `op` and the constants and views only it read.
void eraseWithOperands(Operation *op) {
  SmallVector<Value> operands(op->getOperands());
  op->erase();
  while (!operands.empty()) {
    Operation *def = operands.pop_back_val().getDefiningOp();
    if (!def || !def->use_empty() ||
        !isa<ViewOpInterface, ConstantOp>(def))
      continue;
    operands.append(def->operand_begin(), def->operand_end());
    def->erase();
  }
}

/// Replaces the products of `group` (program order, in one block) by one
/// product over their weights concatenated, at the first's place, and a
/// slice of its columns for each.
void merge(ArrayRef<MatmulOp> group) {
  MatmulOp first = group[0];
  SmallVector<Location> locs;
  int64_t total = 0;
  for (MatmulOp product : group) {
    locs.push_back(product.getLoc());
    total += columnsOf(product);
  }
  OpBuilder builder(first);
  Location loc = builder.getFusedLoc(locs);
  Value weight = mergedWeight(builder, loc, group);
  Value bias = mergedBias(builder, loc, group);
  StridedTensorType resultType = first.getResult().getType();
  Type element = resultType.getElementType();
  // [rows, total], rows static or a size expression.
  SymbolicLayout mergedLayout = resultType.getSymbolicLayout();
  mergedLayout.shape[1] = SizeExpr::constant(total);
  mergedLayout.strides = {SizeExpr::constant(total), SizeExpr::constant(1)};
  mergedLayout.offset = SizeExpr::constant(0);
  auto merged = MatmulOp::create(
      builder, loc, StridedTensorType::get(element, mergedLayout),
      first.getLhs(), weight, bias, /*addend=*/Value(), first.getEpilogue(),
      /*lhs_layout=*/nullptr, /*rhs_layout=*/nullptr,
      /*row_classes=*/nullptr);
  Value sliced = mergedBiasAdd(builder, loc, merged, group);
  // The slices follow; the products go last (the builder inserts before
  // the first).
  int64_t start = 0;
  for (MatmulOp product : group) {
    int64_t columns = columnsOf(product);
    SymbolicViewResult layout =
        inferSlice(mergedLayout, /*dim=*/1, SizeExpr::constant(start),
                   SizeExpr::constant(start + columns), /*step=*/1,
                   enclosingSymbols(first));
    assert(layout && "columns of the merged product");
    auto slice = SliceOp::create(
        builder, product.getLoc(), StridedTensorType::get(element, *layout.layout),
        sliced, /*dim=*/1, start, start + columns, /*step=*/1);
    start += columns;
    slicedValueOf(product).replaceAllUsesWith(slice.getResult());
    reinferViews(slice.getResult(), enclosingSymbols(first));
  }
  for (MatmulOp product : group) {
    if (AddOp add = biasAddOf(product))
      eraseWithOperands(add);
    eraseWithOperands(product);
  }
}

/// The groups of siblings of `func`, each in program order, of two or
/// more products.
SmallVector<SmallVector<MatmulOp>> siblingGroups(func::FuncOp func) {
  SmallVector<SmallVector<MatmulOp>> groups;
  func.walk([&](MatmulOp product) {
    if (!isCandidate(product))
      return;
    for (SmallVector<MatmulOp> &group : groups)
      if (areSiblings(group[0], product)) {
        group.push_back(product);
        return;
      }
    groups.push_back({product});
  });
  for (SmallVector<MatmulOp> &group : groups)
    dropMisfits(group);
  llvm::erase_if(groups, [](const SmallVector<MatmulOp> &group) {
    return group.size() < 2;
  });
  return groups;
}

struct MergeSiblingProductsPass
    : stride::impl::MergeSiblingProductsBase<MergeSiblingProductsPass> {
  void runOnOperation() override {
    for (SmallVector<MatmulOp> &group : siblingGroups(getOperation()))
      merge(group);
  }
};

} // namespace
