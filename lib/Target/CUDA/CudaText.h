//===- CudaText.h - Pieces of CUDA C++ text the printers share -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The text every kernel printer writes with: an indented buffer of lines,
// C++ names of element types, literals, index expressions, names, and
// the accumulators and combines of reductions. Private to lib/Target/CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_TARGET_CUDA_CUDATEXT_H
#define STRIDE_LIB_TARGET_CUDA_CUDATEXT_H

#include "KernelFacts.h"

#include "stride/Support/Diagnostics.h"
#include "stride/Support/Layout.h"
#include "stride/Support/Strings.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <fmt/format.h>

#include <string>

namespace stride {

/// Lines of C++ at an indentation level.
class Code {
public:
  template <typename... Args>
  void line(fmt::format_string<Args...> format, Args &&...args) {
    text.append(indent * 2, ' ');
    fmt::format_to(std::back_inserter(text), format,
                   std::forward<Args>(args)...);
    text += '\n';
  }
  void raw(const std::string &lineText) {
    text.append(indent * 2, ' ');
    text += lineText;
    text += '\n';
  }
  /// "header {" and indent.
  void open(const std::string &header) {
    raw(header + " {");
    ++indent;
  }
  void close(const std::string &trailer = "}") {
    --indent;
    raw(trailer);
  }

  std::string text;
  int indent = 0;
};

/// Coordinates: one C++ index expression per dim.
using Coords = llvm::SmallVector<std::string>;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// The C++ type of an element in memory.
const char *storageType(DType t);
/// The C++ type values of an element type are computed in.
const char *computeType(DType t);
/// The C++ type a reduction of `kind` over a result of `t` accumulates in:
/// float, double or long long by `t`; for argmax and argmin, unsigned long
/// long, a (value, index) pair packed so that the larger key wins
/// (Prelude.h, stride_argmax_key: the value's order above the index
/// inverted; 0 is no element).
const char *accumulatorType(ReduceKind kind, DType t);
bool isHalfLike(DType t);
/// Wraps a float-valued expression so that it is rounded to `t` (f16/bf16).
std::string roundTo(DType t, const std::string &expr);

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

/// A C++ literal of compute type float (f16/bf16/f32, rounded to `t` first)
/// or double (f64) that denotes exactly `value` rounded to `t`.
std::string floatLiteral(double value, DType t);
std::string intLiteral(int64_t value, DType t);
/// A literal of `t`'s compute type for a value given as a double (integers
/// are exact in it up to 2^53; full's verifier keeps integer values in
/// range).
std::string literalOf(double value, DType t);

//===----------------------------------------------------------------------===//
// Names (locations: formatLocation in stride/Support/Diagnostics.h; C
// string literals: quoted in stride/Support/Strings.h)
//===----------------------------------------------------------------------===//

/// The op's name without its dialect: "add".
std::string opName(mlir::Operation *op);
/// `name` as a C identifier that is not a keyword or a prelude name.
std::string cIdentifier(llvm::StringRef name);

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

/// `expr`, parenthesized unless it is a name or a number.
std::string paren(const std::string &expr);
/// c * k + b with the trivial cases folded.
std::string affine(const std::string &c, int64_t k, int64_t b);
/// `expr` as a C++ index expression, dim k printed as `dims[k]` (each a
/// coordinate's expression, non-negative where it is evaluated). Quotients
/// and remainders of a dividend that may be negative go through the
/// prelude's floor-rounding helpers; others are C++'s `/` and `%`.
std::string indexText(mlir::AffineExpr expr,
                      llvm::ArrayRef<std::string> dims);
/// The coordinates `map` (an index map, IndexMaps.h) gives for `coords`,
/// each a C++ expression of a coordinate within `shape`: integer literals
/// fold into the map, which is simplified within `shape` and printed.
Coords applyIndexMap(mlir::AffineMap map, llvm::ArrayRef<std::string> coords,
                     llvm::ArrayRef<int64_t> shape);
/// The storage address of the element at `coords` under `layout` (each
/// coordinate within layout.shape), folded and printed like an index map.
std::string addressText(const Layout &layout,
                        llvm::ArrayRef<std::string> coords,
                        mlir::MLIRContext *context);
/// "c0, c1, c2".
std::string joinCoords(llvm::ArrayRef<std::string> coords);
/// "0, 2": a list of dims.
std::string dimsText(llvm::ArrayRef<int64_t> dims);
/// "4x13x33", or "scalar".
std::string shapeText(llvm::ArrayRef<int64_t> shape);

/// A size over symbols as C++ of a kernel's size parameters, parenthesized
/// where it is a sum or product: "(size_rows * 64)"; a constant is its
/// value (python-free-docs/symbolic-sizes.md).
std::string sizeText(const SizeExpr &size);
/// The C++ name of the size parameter of symbol `name`: "size_rows".
std::string sizeParameterName(llvm::StringRef name);
/// The address of element `coords` of a symbolic `layout`: `offset +
/// sum_k coords[k] * strides[k]`, dims of the constant size 1 left out.
std::string symbolicAddressText(const SymbolicLayout &layout,
                                llvm::ArrayRef<std::string> coords);

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The identity of `kind` in the accumulator type of `t`.
std::string identityOf(ReduceKind kind, DType t);
/// `a` combined with `b` by `kind`.
std::string combineOf(ReduceKind kind, const std::string &a,
                      const std::string &b);
/// The accumulator `info.acc` combined with `value`, the reduction's input
/// at `inputCoords` (converted to the accumulator type; for argmax and
/// argmin, packed with its coordinate along the reduced dim).
std::string accumulated(const ReductionInfo &info, const std::string &value,
                        llvm::ArrayRef<std::string> inputCoords);

} // namespace stride

#endif // STRIDE_LIB_TARGET_CUDA_CUDATEXT_H
