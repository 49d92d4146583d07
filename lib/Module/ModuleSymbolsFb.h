//===- ModuleSymbolsFb.h - Symbols and size polynomials in the file -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Format version 7's symbolic section (python-free-docs/module-format.md,
// "Symbols"): the module's symbols, and each size expression as a
// `SizePolynomial` whose factors are indices into them. The writer builds
// them beside the static fields; the reader decodes them after the rest of
// the module (decodeSymbolicParts), refusing a factor that names no symbol
// or a tensor whose symbolic layout is incomplete. Private to lib/Module.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_MODULE_MODULESYMBOLSFB_H
#define STRIDE_LIB_MODULE_MODULESYMBOLSFB_H

#include "ModuleSchema.h"

namespace stride {

/// Builds size polynomials over `symbols` (ModuleWriter.cpp).
class PolynomialBuilder {
public:
  PolynomialBuilder(flatbuffers::FlatBufferBuilder &b,
                    const std::vector<SizeSymbol> &symbols)
      : b(b), symbols(symbols) {}

  flatbuffers::Offset<fb::SizePolynomial> build(const SizeExpr &expr);
  /// The three fields of a tensor's symbolic layout; all null for a
  /// static tensor.
  struct TensorFields {
    flatbuffers::Offset<flatbuffers::Vector<
        flatbuffers::Offset<fb::SizePolynomial>>>
        shape, strides;
    flatbuffers::Offset<fb::SizePolynomial> offset;
  };
  TensorFields build(const std::optional<SymbolicLayout> &layout);
  /// Module.symbols; null when there are none (a static module).
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Symbol>>>
  buildSymbols();
  /// A list of polynomials; null for an empty list.
  flatbuffers::Offset<
      flatbuffers::Vector<flatbuffers::Offset<fb::SizePolynomial>>>
  buildList(const std::vector<SizeExpr> &exprs);
  /// A list of polynomials, an empty vector for an empty list.
  flatbuffers::Offset<
      flatbuffers::Vector<flatbuffers::Offset<fb::SizePolynomial>>>
  buildVector(const std::vector<SizeExpr> &exprs);
  flatbuffers::Offset<fb::SizePolynomial>
  buildOptional(const std::optional<SizeExpr> &expr) {
    return expr ? build(*expr) : flatbuffers::Offset<fb::SizePolynomial>();
  }

private:
  flatbuffers::FlatBufferBuilder &b;
  const std::vector<SizeSymbol> &symbols;
};

/// Module.value_bindings; null when there are none.
flatbuffers::Offset<flatbuffers::Vector<const fb::ValueBinding *>>
buildValueBindings(flatbuffers::FlatBufferBuilder &b,
                   const std::vector<ValueBinding> &bindings);

/// Decodes Module.symbols, Module.value_bindings and every size polynomial of `m` into `desc`,
/// whose other fields convert() decoded. Messages start with `name`.
Status decodeSymbolicParts(const fb::Module &m, ModuleDesc &desc,
                           const std::string &name);

} // namespace stride

#endif // STRIDE_LIB_MODULE_MODULESYMBOLSFB_H
