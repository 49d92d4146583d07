//===- SymbolicSizes.h - Symbols of a function and their expressions -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The dialect's side of symbolic sizes (python-free-docs/symbolic-sizes.md):
// the symbols a function declares in `stride.symbols`, the grammar of a size
// expression in the printed tensor type, and the checks that every symbol a
// type names is declared.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_SYMBOLICSIZES_H
#define STRIDE_DIALECT_SYMBOLICSIZES_H

#include "dialects/stride/IR/StrideAttrs.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace stride {

/// Parses `size-expr ::= term ((+|-) term)*`, `term ::= factor (* factor)*`,
/// `factor ::= integer | name | ( size-expr ) | - factor`.
mlir::ParseResult parseSizeExpr(mlir::AsmParser &parser, SizeExpr &expr);

/// `stride.slice`'s bound (`custom<SliceBound>`): an integer, or a size
/// expression of symbols held in `symbolic` with `bound` ShapedType::kDynamic.
mlir::ParseResult parseSliceBound(mlir::OpAsmParser &parser,
                                  mlir::IntegerAttr &bound,
                                  SizeExprAttr &symbolic);
void printSliceBound(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                     mlir::IntegerAttr bound, SizeExprAttr symbolic);

/// The symbols `func` declares in `stride.symbols` (empty when it has
/// none; the attribute's own verifier has checked each one).
SymbolRanges declaredSymbols(mlir::FunctionOpInterface func);
/// The symbols of `op` if it is a function, else of the function that
/// holds it.
SymbolRanges enclosingSymbols(mlir::Operation *op);

/// `type` with the symbols of `values` replaced by their values (a static
/// type where `values` binds every symbol it names); null where a size
/// overflows there.
StridedTensorType typeAtValues(StridedTensorType type,
                               const SymbolValues &values);

/// The symbols of `ranges` (a `when` guard: #stride.symbol attributes)
/// whose range is one value, at that value.
SymbolValues pinnedValuesOf(mlir::ArrayAttr ranges);

/// Checks `ranges` (a `when` guard: #stride.symbol attributes) on `op`:
/// at least one, each naming a symbol once; with `declared`, each a
/// symbol of it whose range holds the one given.
mlir::LogicalResult verifySymbolRanges(mlir::Operation *op,
                                       mlir::ArrayAttr ranges,
                                       const SymbolRanges *declared);

/// The layout of `type` at the largest values of the symbols of `scope`
/// (enclosingSymbols): the layout a library call over symbolic sizes is
/// planned at (python-free-docs/symbolic-sizes.md, "Library calls over
/// symbolic sizes"). A static type's layout; nullopt where `type` names a
/// symbol the function does not declare.
std::optional<Layout> layoutAtLargest(StridedTensorType type,
                                      mlir::Operation *scope);

/// The first symbolic size of a function's value: an argument or an op's
/// result, for stride-check-symbolic-sizes.
struct SymbolicValue {
  mlir::Value value;
  /// The symbol that makes it symbolic (the first its layout names).
  std::string symbol;
};
std::optional<SymbolicValue> firstSymbolicValue(mlir::FunctionOpInterface func);

/// Checks `stride.symbols` on `op`: a function, an array of
/// #stride.symbol with distinct names, and every symbol its argument and
/// result types name among them.
mlir::LogicalResult verifySymbolsAttr(mlir::Operation *op,
                                      mlir::Attribute attr);

namespace detail {
/// The symbolic half of StridedTensorType's verifier, parser and printer.
mlir::LogicalResult verifySymbolicTensorType(
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
    llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> strides,
    int64_t offset, llvm::ArrayRef<SizeExprAttr> symbolicShape,
    llvm::ArrayRef<SizeExprAttr> symbolicStrides, SizeExprAttr symbolicOffset);
/// Parses the tail of a tensor type, `(, strides = ...)? (, offset =
/// ...)? >` (each at most once, in either order), the lists and values by
/// the given readers (StrideDialect.cpp).
mlir::ParseResult
parseStridesAndOffset(mlir::AsmParser &parser,
                      llvm::function_ref<mlir::ParseResult()> parseStrides,
                      llvm::function_ref<mlir::ParseResult()> parseOffset);
/// Parses the type after `<` and its `[` (a symbolic shape).
mlir::Type parseSymbolicTensorType(mlir::AsmParser &parser, llvm::SMLoc loc);
void printSymbolicTensorType(mlir::AsmPrinter &printer,
                             StridedTensorType type);
} // namespace detail

} // namespace stride

#endif // STRIDE_DIALECT_SYMBOLICSIZES_H
