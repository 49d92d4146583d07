//===- InstantiateSymbols.cpp - Symbolic sizes at given values ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-instantiate-symbols (Passes.td): a function of symbolic sizes at
// given values of its symbols, so that a static tool (the reference
// interpreter, a module of one shape) can take a graph exported with
// dynamic shapes (python-free-docs/symbolic-sizes.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideOps.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "dialects/stride/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Verifier.h"

#include <charconv>

namespace stride {
#define GEN_PASS_DEF_INSTANTIATESYMBOLS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The values of `entries` (`name=value` each), each a value of the symbol
/// `func` declares under that name; a located error otherwise.
FailureOr<SymbolValues> readValues(func::FuncOp func,
                                   ArrayRef<std::string> entries,
                                   const SymbolRanges &table) {
  SymbolValues values;
  for (StringRef entry : entries) {
    auto [name, text] = entry.split('=');
    int64_t value = 0;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (name.empty() || text.empty() || ec != std::errc() ||
        end != text.data() + text.size())
      return func.emitError() << "stride-instantiate-symbols: '" << entry
                              << "' is not name=value (an integer value)";
    auto symbol = table.find(name.str());
    if (symbol == table.end())
      return func.emitError() << "stride-instantiate-symbols: the function "
                                 "declares no symbol '"
                              << name << "'";
    const SizeSymbol &range = symbol->second;
    if (value < range.min || value > range.max || value % range.multipleOf)
      return func.emitError()
             << "stride-instantiate-symbols: " << name << " = " << value
             << " is not a value of the symbol: " << range.describe();
    if (!values.emplace(name.str(), value).second)
      return func.emitError() << "stride-instantiate-symbols: the symbol '"
                              << name << "' is given twice";
  }
  return values;
}

/// Every type and size expression of `func` at `values`; false where an
/// expression overflows int64 there.
bool substituteSizes(func::FuncOp func, const SymbolValues &values) {
  bool overflow = false;
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [&](StridedTensorType type) -> std::pair<Type, WalkResult> {
        if (!type.isSymbolic())
          return {type, WalkResult::skip()};
        std::optional<SymbolicLayout> layout =
            type.getSymbolicLayout().substitute(values);
        overflow |= !layout;
        if (!layout)
          return {type, WalkResult::skip()};
        return {StridedTensorType::get(type.getElementType(), *layout),
                WalkResult::skip()};
      });
  replacer.addReplacement([&](SizeExprAttr attr) -> std::optional<Attribute> {
    std::optional<SizeExpr> expr = attr.getValue().substitute(values);
    overflow |= !expr;
    if (!expr)
      return std::nullopt;
    return SizeExprAttr::get(attr.getContext(), *expr);
  });
  replacer.recursivelyReplaceElementsIn(func, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  // A slice bound that became a constant is the static bound.
  func.walk([](SliceOp slice) {
    if (slice.hasSymbolicBounds())
      slice.setBounds(slice.getStartExpr(), slice.getEndExpr());
  });
  return !overflow;
}

/// `stride.symbols` of `func` (and of a kernel in it, which keeps its
/// function's) without the symbols of `values`; removed where none is left.
void dropSymbols(func::FuncOp func, const SymbolValues &values) {
  StringRef name = StrideDialect::kSymbolsAttrName;
  func->walk([&](Operation *op) {
    auto symbols = op->getAttrOfType<ArrayAttr>(name);
    if (!symbols)
      return;
    SmallVector<Attribute> kept;
    for (Attribute symbol : symbols)
      if (!values.count(cast<SymbolAttr>(symbol).getName().str()))
        kept.push_back(symbol);
    if (kept.empty())
      op->removeAttr(name);
    else
      op->setAttr(name, ArrayAttr::get(op->getContext(), kept));
  });
}

/// A guard's ranges at `values`: false where a given symbol lies outside
/// its range, else the ranges of the symbols `values` does not give.
std::optional<SmallVector<Attribute>> guardAt(ArrayAttr when,
                                              const SymbolValues &values) {
  SmallVector<Attribute> left;
  for (auto range : when.getAsRange<SymbolAttr>()) {
    auto given = values.find(range.getName().str());
    if (given == values.end())
      left.push_back(range);
    else if (given->second < range.getMin() || given->second > range.getMax())
      return std::nullopt;
  }
  return left;
}

/// Each stride.select_variant whose guard `values` decides becomes the
/// operand selected; a guarded kernel that computed the other is erased,
/// and one selected runs always (its body is the kernel at the values).
void selectVariants(func::FuncOp func, const SymbolValues &values) {
  SmallVector<SelectVariantOp> selects;
  func.walk([&](SelectVariantOp op) { selects.push_back(op); });
  for (SelectVariantOp select : selects) {
    std::optional<SmallVector<Attribute>> left =
        guardAt(select.getWhen(), values);
    if (left && !left->empty()) {
      select.setWhenAttr(ArrayAttr::get(select.getContext(), *left));
      continue;
    }
    Value chosen = left ? select.getVariant() : select.getOtherwise();
    Value dropped = left ? select.getOtherwise() : select.getVariant();
    select.replaceAllUsesWith(chosen);
    select.erase();
    if (auto kernel = dropped.getDefiningOp<KernelOp>();
        kernel && kernel.getWhen() && kernel->use_empty())
      kernel.erase();
    if (auto kernel = chosen.getDefiningOp<KernelOp>())
      kernel.removeWhenAttr();
  }
}

struct InstantiateSymbolsPass
    : public stride::impl::InstantiateSymbolsBase<InstantiateSymbolsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(StrideDialect::kSymbolsAttrName))
      return;
    FailureOr<SymbolValues> given =
        readValues(func, values, declaredSymbols(func));
    if (failed(given))
      return signalPassFailure();
    selectVariants(func, *given);
    if (!substituteSizes(func, *given)) {
      func.emitError() << "stride-instantiate-symbols: a size, stride or "
                          "offset overflows int64 at the given values";
      return signalPassFailure();
    }
    dropSymbols(func, *given);
    // The views' rules, proven over the ranges, are checked at the values.
    if (failed(verify(func)))
      return signalPassFailure();
  }
};

} // namespace
