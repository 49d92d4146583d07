//===- ProductVariants.cpp - The skinny kernel at one row, over symbols ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-product-variants (Passes.td): a product over symbolic rows gets
// the skinny product kernel at one row as a variant beside its library
// call, and a stride.select_variant between the two, which the plan turns
// into two guarded steps writing one buffer
// (python-free-docs/symbolic-sizes.md, "Variants selected at run time").
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"
#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "mlir/IR/Builders.h"

namespace stride {
#define GEN_PASS_DEF_PRODUCTVARIANTS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The values that make `rows` one: each symbol of a product of symbols
/// (coefficient 1, each to the first power) at 1, where each symbol takes
/// the value 1; nullopt otherwise.
std::optional<SymbolValues> oneRow(const SizeExpr &rows,
                                   const SymbolRanges &ranges) {
  if (rows.terms().size() != 1 || rows.terms().begin()->second != 1)
    return std::nullopt;
  const SizeExpr::Monomial &factors = rows.terms().begin()->first;
  SymbolValues values;
  for (const std::string &name : factors) {
    auto range = ranges.find(name);
    if (range == ranges.end() || range->second.min > 1 ||
        range->second.multipleOf != 1 || !values.emplace(name, 1).second)
      return std::nullopt;
  }
  if (values.empty())
    return std::nullopt;
  return values;
}

/// Whether `type` names only symbols of `values`.
bool namesOnly(Type type, const SymbolValues &values) {
  auto tensor = cast<StridedTensorType>(type);
  if (!tensor.isSymbolic())
    return true;
  SymbolicLayout layout = tensor.getSymbolicLayout();
  for (const SizeExprs *list : {&layout.shape, &layout.strides})
    for (const SizeExpr &size : *list)
      for (const std::string &name : size.symbols())
        if (!values.count(name))
          return false;
  for (const std::string &name : layout.offset.symbols())
    if (!values.count(name))
      return false;
  return true;
}

/// The values at which `product` runs as the skinny product kernel: its
/// rows at one; nullopt where it takes no variant (Passes.td).
std::optional<SymbolValues> variantValues(MatmulOp product,
                                          const SymbolRanges &ranges) {
  StridedTensorType lhs = product.getLhs().getType();
  if (!lhs.isSymbolic() || lhs.getRank() != 2 ||
      product->hasAttr(StrideDialect::kSkinnyProductAttrName))
    return std::nullopt;
  std::optional<SymbolValues> values =
      oneRow(lhs.getSymbolicLayout().shape[0], ranges);
  if (!values)
    return std::nullopt;
  for (Type type : product->getOperandTypes())
    if (!namesOnly(type, *values))
      return std::nullopt;
  if (!namesOnly(product.getType(), *values))
    return std::nullopt;
  return values;
}

/// The guard of `values`: each symbol's range the one value.
ArrayAttr pinsOf(MLIRContext *context, const SymbolValues &values) {
  SmallVector<Attribute> ranges;
  for (const auto &[name, value] : values)
    ranges.push_back(SymbolAttr::get(context, StringAttr::get(context, name),
                                     value, value, 1));
  return ArrayAttr::get(context, ranges);
}

/// The kernel of `product` at `values` as the skinny product kernel,
/// before `product`; null (nothing left) where the kernel does not
/// compute it there.
KernelOp buildVariant(MatmulOp product, const SymbolValues &values,
                      KernelNameTable &names) {
  SmallVector<Type> argumentTypes;
  for (Value operand : product->getOperands())
    argumentTypes.push_back(
        typeAtValues(cast<StridedTensorType>(operand.getType()), values));
  StridedTensorType result = typeAtValues(product.getType(), values);
  if (!result || llvm::is_contained(argumentTypes, Type()))
    return {};
  MLIRContext *context = product.getContext();
  Operation *clone = nullptr;
  KernelOp kernel = variantKernelOf(product, "matmul_skinny",
                                    pinsOf(context, values), names,
                                    argumentTypes, TypeRange{result}, clone);
  auto skinny = cast<MatmulOp>(clone);
  // The library's decisions are the library call's; the kernel reads its
  // operands through their own layouts.
  skinny.removeLhsLayoutAttr();
  skinny.removeRhsLayoutAttr();
  skinny->setAttr(StrideDialect::kSkinnyProductAttrName, UnitAttr::get(context));
  if (succeeded(checkSkinnyProduct(skinny, kMaxSkinnyProductRows)))
    return kernel;
  kernel.erase();
  return {};
}

struct ProductVariantsPass
    : public stride::impl::ProductVariantsBase<ProductVariantsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::optional<int64_t> rows = skinnyRowBound(skinnyProducts);
    if (!rows) {
      func.emitError() << "stride-product-variants: unknown skinny-products "
                          "policy '"
                       << skinnyProducts
                       << "'; expected auto, library or generated";
      return signalPassFailure();
    }
    SymbolRanges ranges = declaredSymbols(func);
    if (ranges.empty() || *rows == 0)
      return;
    KernelNameTable names(func);
    SmallVector<MatmulOp> products;
    for (auto product : func.getBody().getOps<MatmulOp>())
      products.push_back(product);
    for (MatmulOp product : products) {
      std::optional<SymbolValues> values = variantValues(product, ranges);
      if (!values)
        continue;
      KernelOp variant = buildVariant(product, *values, names);
      if (!variant)
        continue;
      OpBuilder builder(product->getContext());
      builder.setInsertionPointAfter(product);
      auto select = SelectVariantOp::create(
          builder, product.getLoc(), product.getType(), variant.getResult(0),
          product.getResult(), variant.getWhenAttr());
      product.getResult().replaceAllUsesExcept(select.getResult(), select);
    }
  }
};

} // namespace
