//===- ModuleSymbolsFb.cpp - Symbols and size polynomials in the file -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "ModuleSymbolsFb.h"

#include "ModuleInternal.h"

#include <cstring>

namespace stride {

using detail::str;

//===----------------------------------------------------------------------===//
// ModuleDesc -> FlatBuffer
//===----------------------------------------------------------------------===//

flatbuffers::Offset<fb::SizePolynomial>
PolynomialBuilder::build(const SizeExpr &expr) {
  std::vector<int64_t> coefficients;
  std::vector<uint32_t> degrees;
  std::vector<uint32_t> factors;
  for (const auto &[monomial, coefficient] : expr.terms()) {
    coefficients.push_back(coefficient);
    degrees.push_back(static_cast<uint32_t>(monomial.size()));
    for (const std::string &name : monomial) {
      size_t index = 0;
      while (index < symbols.size() && symbols[index].name != name)
        ++index;
      // verifyModule, run before writing, refuses an undeclared symbol.
      factors.push_back(static_cast<uint32_t>(index));
    }
  }
  auto coefficientVector = b.CreateVector(coefficients);
  auto degreeVector = b.CreateVector(degrees);
  auto factorVector = b.CreateVector(factors);
  return fb::CreateSizePolynomial(b, coefficientVector, degreeVector,
                                  factorVector);
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::SizePolynomial>>>
PolynomialBuilder::buildList(const std::vector<SizeExpr> &exprs) {
  if (exprs.empty())
    return 0;
  return buildVector(exprs);
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::SizePolynomial>>>
PolynomialBuilder::buildVector(const std::vector<SizeExpr> &exprs) {
  std::vector<flatbuffers::Offset<fb::SizePolynomial>> built;
  for (const SizeExpr &e : exprs)
    built.push_back(build(e));
  return b.CreateVector(built);
}

PolynomialBuilder::TensorFields
PolynomialBuilder::build(const std::optional<SymbolicLayout> &layout) {
  TensorFields fields;
  if (!layout)
    return fields;
  // Vectors even for a rank-0 layout: a reader takes a layout with some
  // of its three parts absent as corrupt.
  fields.shape = buildVector(layout->shape);
  fields.strides = buildVector(layout->strides);
  fields.offset = build(layout->offset);
  return fields;
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Symbol>>>
PolynomialBuilder::buildSymbols() {
  if (symbols.empty())
    return 0;
  std::vector<flatbuffers::Offset<fb::Symbol>> built;
  for (const SizeSymbol &s : symbols) {
    auto name = b.CreateString(s.name);
    built.push_back(fb::CreateSymbol(b, name, s.min, s.max, s.multipleOf));
  }
  return b.CreateVector(built);
}

flatbuffers::Offset<flatbuffers::Vector<const fb::ValueBinding *>>
buildValueBindings(flatbuffers::FlatBufferBuilder &b,
                   const std::vector<ValueBinding> &bindings) {
  if (bindings.empty())
    return 0;
  std::vector<fb::ValueBinding> built;
  for (const ValueBinding &v : bindings)
    built.emplace_back(v.symbol, v.input);
  return b.CreateVectorOfStructs(built);
}

//===----------------------------------------------------------------------===//
// FlatBuffer -> ModuleDesc
//===----------------------------------------------------------------------===//

namespace {

/// The elements of a verified vector, copied byte-wise (a hostile file may
/// misalign an [int64]: ModuleReader.cpp's toVector).
template <typename T>
std::vector<T> copyOf(const flatbuffers::Vector<T> *v) {
  std::vector<T> out(v ? v->size() : 0);
  if (!out.empty())
    std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

class PolynomialReader {
public:
  PolynomialReader(const std::vector<SizeSymbol> &symbols,
                   const std::string &name)
      : symbols(symbols), name(name) {}

  Result<SizeExpr> read(const fb::SizePolynomial *p, const std::string &what) {
    std::string where = name + ": corrupt Stride module: " + what;
    if (!p)
      return makeError(ErrorCode::InvalidModule,
                       where + " has no size polynomial");
    std::vector<int64_t> coefficients = copyOf(p->coefficients());
    std::vector<uint32_t> degrees = copyOf(p->degrees());
    std::vector<uint32_t> factors = copyOf(p->factors());
    if (coefficients.size() != degrees.size())
      return makeError(ErrorCode::InvalidModule,
                       where + " has " + str(coefficients.size()) +
                           " coefficients but " + str(degrees.size()) +
                           " degrees");
    std::vector<std::pair<int64_t, SizeExpr::Monomial>> terms;
    size_t next = 0;
    for (size_t i = 0; i < coefficients.size(); ++i) {
      if (degrees[i] > factors.size() - next)
        return makeError(ErrorCode::InvalidModule,
                         where + " has fewer factors than its degrees sum to");
      SizeExpr::Monomial monomial;
      for (uint32_t k = 0; k < degrees[i]; ++k, ++next) {
        if (factors[next] >= symbols.size())
          return makeError(ErrorCode::InvalidModule,
                           where + " names symbol " + str(factors[next]) +
                               " of the module's " + str(symbols.size()));
        monomial.push_back(symbols[factors[next]].name);
      }
      terms.emplace_back(coefficients[i], std::move(monomial));
    }
    if (next != factors.size())
      return makeError(ErrorCode::InvalidModule,
                       where + " has more factors than its degrees sum to");
    return SizeExpr::fromTerms(terms);
  }

  Result<std::optional<SymbolicLayout>> read(const fb::TensorSignature *t,
                                             const std::string &what) {
    if (!t || (!t->symbolic_shape() && !t->symbolic_strides() &&
               !t->symbolic_offset()))
      return std::optional<SymbolicLayout>();
    if (!t->symbolic_shape() || !t->symbolic_strides() || !t->symbolic_offset())
      return makeError(ErrorCode::InvalidModule,
                       name + ": corrupt Stride module: " + what +
                           " has part of a symbolic layout (its shape, "
                           "strides and offset come together)");
    SymbolicLayout layout;
    for (auto [list, field] :
         {std::pair{t->symbolic_shape(), &layout.shape},
          std::pair{t->symbolic_strides(), &layout.strides}})
      for (const fb::SizePolynomial *p : *list) {
        Result<SizeExpr> e = read(p, what + " dim " + str(field->size()));
        if (!e)
          return e.error();
        field->push_back(std::move(*e));
      }
    Result<SizeExpr> offset = read(t->symbolic_offset(), what + " offset");
    if (!offset)
      return offset.error();
    layout.offset = std::move(*offset);
    return std::optional<SymbolicLayout>(std::move(layout));
  }

  Status readTensors(
      const flatbuffers::Vector<flatbuffers::Offset<fb::TensorSignature>> *v,
      std::vector<TensorSignature> &tensors, const std::string &kind) {
    for (size_t i = 0; v && i < v->size() && i < tensors.size(); ++i) {
      Result<std::optional<SymbolicLayout>> layout =
          read(v->Get(i), kind + " " + str(i));
      if (!layout)
        return layout.error();
      tensors[i].symbolic = std::move(*layout);
    }
    return Status::ok();
  }

  Status readStep(const fb::Module &m, size_t i, Step &step) {
    const void *table = m.steps()->Get(i);
    std::string what = "step " + str(i + 1);
    if (auto *d = std::get_if<DispatchStep>(&step)) {
      auto *fd = static_cast<const fb::Dispatch *>(table);
      d->gridDivisor = fd->grid_divisor();
      if (!fd->grid_elements())
        return Status::ok();
      Result<SizeExpr> e = read(fd->grid_elements(), what + "'s grid");
      if (!e)
        return e.error();
      d->gridElements = std::move(*e);
    } else if (auto *call = std::get_if<LibraryCallStep>(&step)) {
      return readDescriptor(
          *static_cast<const fb::LibraryCall *>(table), *call, what);
    } else if (auto *c = std::get_if<CopyStep>(&step)) {
      auto *fc = static_cast<const fb::Copy *>(table);
      if (!fc->symbolic_size_bytes())
        return Status::ok();
      Result<SizeExpr> e = read(fc->symbolic_size_bytes(), what + "'s size");
      if (!e)
        return e.error();
      c->symbolicSizeBytes = std::move(*e);
    }
    return Status::ok();
  }

private:
  const std::vector<SizeSymbol> &symbols;
  const std::string &name;

  /// Each descriptor field's symbolic_ints (format version 8).
  Status readDescriptor(const fb::LibraryCall &fc, LibraryCallStep &call,
                        const std::string &what) {
    for (size_t i = 0; fc.descriptor() && i < fc.descriptor()->size() &&
                       i < call.descriptor.size();
         ++i) {
      const fb::DescriptorField *f = fc.descriptor()->Get(i);
      if (!f || !f->symbolic_ints())
        continue;
      DescriptorField &field = call.descriptor[i];
      for (const fb::SizePolynomial *p : *f->symbolic_ints()) {
        Result<SizeExpr> e =
            read(p, what + "'s descriptor field '" + field.name + "' entry " +
                        str(field.symbolicInts.size()));
        if (!e)
          return e.error();
        field.symbolicInts.push_back(std::move(*e));
      }
    }
    return Status::ok();
  }
};

} // namespace

Status decodeSymbolicParts(const fb::Module &m, ModuleDesc &desc,
                           const std::string &name) {
  if (m.symbols())
    for (const fb::Symbol *s : *m.symbols())
      desc.symbols.push_back(
          s ? SizeSymbol{s->name() ? s->name()->str() : std::string(),
                         s->min(), s->max(), s->multiple_of()}
            : SizeSymbol{std::string(), 1, 0, 1});
  if (const auto *bindings = m.value_bindings()) {
    // Byte-wise: a hostile file may misalign the structs (copyOf).
    std::vector<fb::ValueBinding> copied(bindings->size());
    if (!copied.empty())
      std::memcpy(static_cast<void *>(copied.data()), bindings->Data(),
                  copied.size() * sizeof(fb::ValueBinding));
    for (const fb::ValueBinding &v : copied)
      desc.valueBindings.push_back({v.symbol(), v.input()});
  }
  PolynomialReader reader(desc.symbols, name);
  if (const fb::Signature *sig = m.signature()) {
    if (Status s = reader.readTensors(sig->inputs(), desc.signature.inputs,
                                      "input");
        !s)
      return s;
    if (Status s = reader.readTensors(sig->outputs(), desc.signature.outputs,
                                      "output");
        !s)
      return s;
  }
  for (size_t i = 0; m.states() && i < desc.states.size(); ++i) {
    const fb::State *state = m.states()->Get(i);
    Result<std::optional<SymbolicLayout>> layout =
        reader.read(state ? state->tensor() : nullptr, "state " + str(i));
    if (!layout)
      return layout.error();
    desc.states[i].tensor.symbolic = std::move(*layout);
  }
  for (size_t i = 0; i < desc.steps.size(); ++i)
    if (Status s = reader.readStep(m, i, desc.steps[i]); !s)
      return s;
  return Status::ok();
}

} // namespace stride
