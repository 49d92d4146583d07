//===- ModuleSymbols.cpp - A module's symbols bound at run time -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The checks of format version 7's symbolic section (findSymbolProblem, run
// by verifyModule), the binding of the symbols from the inputs' shapes at
// run time, and the module instantiated at their values.
//
//===----------------------------------------------------------------------===//

#include "stride/Module/ModuleSymbols.h"

#include "ModuleInternal.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace stride {

using detail::str;

namespace {

/// The largest size a symbol may take: a tensor's size limit (2^40
/// elements), as the dialect's #stride.symbol.
constexpr int64_t kMaxSymbolValue = int64_t(1) << 40;

/// "1 to 1024" (", multiples of 8").
std::string describeRange(const SizeSymbol &s) {
  std::string text = str(s.min) + " to " + str(s.max);
  if (s.multipleOf > 1)
    text += ", multiples of " + str(s.multipleOf);
  return text;
}

bool inRange(const SizeSymbol &s, int64_t v) {
  return v >= s.min && v <= s.max && v % s.multipleOf == 0;
}

class SymbolChecker {
public:
  explicit SymbolChecker(const ModuleDesc &desc) : desc(desc) {
    for (const SizeSymbol &s : desc.symbols)
      table[s.name] = s;
  }

  std::string run() {
    if (desc.formatVersion < 7 && usesSymbols())
      return "format version " + str(desc.formatVersion) +
             " has symbolic sizes, which version 7 added";
    if (desc.formatVersion < 8 && hasSymbolicDescriptor())
      return "format version " + str(desc.formatVersion) +
             " has symbolic library-call descriptor fields, which version 8 "
             "added";
    if (desc.formatVersion < 9 && hasGuards())
      return "format version " + str(desc.formatVersion) +
             " has steps that run at some values of the symbols only (step "
             "guards), which version 9 added";
    if (desc.formatVersion < 10 && !desc.valueBindings.empty())
      return "format version " + str(desc.formatVersion) +
             " has symbols bound from an input's value, which version 10 "
             "added";
    for (size_t i = 0; i < desc.symbols.size() && problem.empty(); ++i)
      checkSymbol(i);
    for (size_t i = 0; i < desc.valueBindings.size() && problem.empty(); ++i)
      checkValueBinding(i);
    if (!problem.empty())
      return problem;
    for (const SizeSymbol &s : desc.symbols)
      largest[s.name] = *s.largest();
    checkTensors(desc.signature.inputs, "input");
    checkTensors(desc.signature.outputs, "output");
    for (size_t i = 0; i < desc.states.size(); ++i)
      if (desc.states[i].tensor.symbolic)
        fail("state " + str(i) + " '" + desc.states[i].tensor.name +
             "' has a symbolic layout; states have static sizes");
    for (size_t i = 0; i < desc.steps.size() && problem.empty(); ++i)
      checkStep(i);
    if (problem.empty())
      checkBound();
    return problem;
  }

private:
  const ModuleDesc &desc;
  SymbolRanges table;
  SymbolValues largest;
  std::string problem;

  void fail(std::string message) {
    if (problem.empty())
      problem = std::move(message);
  }

  bool usesSymbols() const {
    if (!desc.symbols.empty())
      return true;
    for (const auto *list : {&desc.signature.inputs, &desc.signature.outputs})
      for (const TensorSignature &t : *list)
        if (t.symbolic)
          return true;
    for (const Step &step : desc.steps) {
      if (const auto *d = std::get_if<DispatchStep>(&step)) {
        if (d->gridElements)
          return true;
        for (const KernelArg &a : d->args)
          if (a.kind == KernelArg::Kind::Symbol)
            return true;
      }
      if (const auto *c = std::get_if<CopyStep>(&step))
        if (c->symbolicSizeBytes)
          return true;
    }
    return hasSymbolicDescriptor() || hasGuards();
  }

  bool hasGuards() const {
    for (const Step &step : desc.steps)
      if (const StepGuard *guard = guardOf(step); guard && !guard->empty())
        return true;
    return false;
  }

  /// A guard names symbols of the module, each once, with a range inside
  /// the symbol's; a step has `when` or `unless`, not both.
  void checkGuard(const StepGuard &guard, const std::string &step) {
    if (!guard.when.empty() && !guard.unless.empty())
      return fail(step + " has both a 'when' and an 'unless' guard; a step "
                         "has one of them");
    const std::vector<SymbolBound> &bounds =
        guard.when.empty() ? guard.unless : guard.when;
    std::set<uint32_t> named;
    for (size_t k = 0; k < bounds.size(); ++k) {
      const SymbolBound &b = bounds[k];
      std::string what = step + "'s guard bound " + str(k);
      if (b.symbol >= desc.symbols.size())
        return fail(what + " names symbol " + str(b.symbol) +
                    " of the module's " + str(desc.symbols.size()));
      const SizeSymbol &s = desc.symbols[b.symbol];
      if (!named.insert(b.symbol).second)
        return fail(what + " names symbol '" + s.name +
                    "' a second time");
      if (b.min > b.max || b.min < s.min || b.max > s.max)
        return fail(what + " is " + s.name + " in [" + str(b.min) + ", " +
                    str(b.max) + "], which is not a range within the "
                    "symbol's: " + describeRange(s));
    }
  }

  bool hasSymbolicDescriptor() const {
    for (const Step &step : desc.steps)
      if (const auto *call = std::get_if<LibraryCallStep>(&step))
        for (const DescriptorField &f : call->descriptor)
          if (!f.symbolicInts.empty())
            return true;
    return false;
  }

  void checkSymbol(size_t i) {
    const SizeSymbol &s = desc.symbols[i];
    std::string what = "symbol " + str(i);
    if (!detail::isIdentifier(s.name))
      return fail(what + " has the name '" + s.name +
                  "', which is not an identifier");
    what += " '" + s.name + "'";
    for (size_t k = 0; k < i; ++k)
      if (desc.symbols[k].name == s.name)
        return fail(what + " is declared twice (symbols " + str(k) + " and " +
                    str(i) + ")");
    if (s.min < 0 || s.min > s.max || s.max > kMaxSymbolValue)
      return fail(what + " has the range [" + str(s.min) + ", " + str(s.max) +
                  "]; a range is 0 <= min <= max <= 2^40");
    if (s.multipleOf < 1 || !s.smallest())
      return fail(what + " takes no value: multiple_of " + str(s.multipleOf) +
                  " in [" + str(s.min) + ", " + str(s.max) + "]");
  }

  /// A symbol bound from an input's value: a symbol of the module, bound
  /// once, from an input that holds one i32 or i64.
  void checkValueBinding(size_t i) {
    const ValueBinding &v = desc.valueBindings[i];
    std::string what = "value binding " + str(i);
    if (v.symbol >= desc.symbols.size())
      return fail(what + " names symbol " + str(v.symbol) +
                  " of the module's " + str(desc.symbols.size()));
    what += " (symbol '" + desc.symbols[v.symbol].name + "')";
    for (size_t k = 0; k < i; ++k)
      if (desc.valueBindings[k].symbol == v.symbol)
        return fail(what + " binds the symbol a second time (value "
                           "binding " + str(k) + " binds it)");
    if (v.input >= desc.signature.inputs.size())
      return fail(what + " reads input " + str(v.input) + " of the module's " +
                  str(desc.signature.inputs.size()));
    const TensorSignature &t = desc.signature.inputs[v.input];
    // One element: every dim of size 1 (the signature's sizes are checked
    // after the symbols, so no product of them here).
    bool oneElement = std::all_of(t.shape.begin(), t.shape.end(),
                                  [](int64_t size) { return size == 1; });
    if (t.symbolic || !oneElement ||
        (t.dtype != DType::I32 && t.dtype != DType::I64))
      fail(what + " reads input " + str(v.input) + " '" + t.name +
           "'; a symbol is bound from the value of an input of one i32 or "
           "i64");
  }

  /// The bounds of `e` over the ranges, which must lie in [0, limit].
  bool checkExpr(const SizeExpr &e, const std::string &what, int64_t limit) {
    for (const std::string &name : e.symbols()) {
      if (!table.count(name)) {
        fail(what + " names '" + name + "', which is not a symbol of the "
                                        "module");
        return false;
      }
      if (isValueSymbol(desc, name)) {
        fail(what + " names '" + name + "', which is bound from an input's "
                                        "value and is no size");
        return false;
      }
    }
    std::optional<SizeInterval> b = e.bounds(table);
    if (!b || b->lo < 0 || b->hi > limit) {
      fail(what + " (" + e.str() + ") is not within [0, " + str(limit) +
           "] over the symbols' ranges");
      return false;
    }
    return true;
  }

  void checkTensors(const std::vector<TensorSignature> &tensors,
                    const std::string &kind) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const TensorSignature &t = tensors[i];
      if (!t.symbolic)
        continue;
      std::string what = kind + " " + str(i) + " '" + t.name + "'";
      const SymbolicLayout &s = *t.symbolic;
      if (s.shape.size() != t.shape.size() ||
          s.strides.size() != t.shape.size()) {
        fail(what + " has a symbolic layout of rank " + str(s.shape.size()) +
             " with " + str(s.strides.size()) + " strides; its shape has " +
             str(t.shape.size()) + " dims");
        continue;
      }
      for (const SizeExprs *list : {&s.shape, &s.strides})
        for (const SizeExpr &e : *list)
          if (!checkExpr(e, what + "'s size or stride", kMaxSymbolValue))
            return;
      if (!checkExpr(s.offset, what + "'s offset", kMaxBufferBytes))
        return;
      std::optional<Layout> atMax = s.evaluate(largest);
      if (!atMax || atMax->shape != t.shape || atMax->strides != t.strides ||
          atMax->offset != t.storageOffset)
        fail(what + " has a symbolic layout that is not its layout at the "
                    "symbols' largest values");
    }
  }

  /// Each symbolic descriptor field: an expression per entry, bounded over
  /// the ranges, whose value at the largest values is the entry.
  void checkDescriptor(const LibraryCallStep &call, const std::string &step) {
    for (const DescriptorField &f : call.descriptor) {
      if (f.symbolicInts.empty())
        continue;
      std::string what = step + " descriptor field '" + f.name + "'";
      if (f.symbolicInts.size() != f.ints.size())
        return fail(what + " has " + str(f.symbolicInts.size()) +
                    " size expressions for its " + str(f.ints.size()) +
                    " integers");
      for (size_t k = 0; k < f.ints.size(); ++k) {
        const SizeExpr &e = f.symbolicInts[k];
        if (!checkExpr(e, what + " entry " + str(k), kMaxBufferBytes))
          return;
        if (*e.evaluate(largest) != f.ints[k])
          return fail(what + " entry " + str(k) + " is " + str(f.ints[k]) +
                      ", but its size expression " + e.str() + " is " +
                      str(*e.evaluate(largest)) +
                      " at the symbols' largest values");
      }
    }
  }

  void checkStep(size_t i) {
    std::string what = "step " + str(i + 1) + " of " + str(desc.steps.size());
    if (const StepGuard *guard = guardOf(desc.steps[i])) {
      checkGuard(*guard, what);
      if (!problem.empty())
        return;
    }
    if (const auto *call = std::get_if<LibraryCallStep>(&desc.steps[i]))
      return checkDescriptor(*call, what);
    if (const auto *c = std::get_if<CopyStep>(&desc.steps[i])) {
      if (c->symbolicSizeBytes)
        checkExpr(*c->symbolicSizeBytes, what + "'s size", c->sizeBytes);
      return;
    }
    const auto *d = std::get_if<DispatchStep>(&desc.steps[i]);
    if (!d)
      return;
    if (d->gridElements) {
      if (d->gridDivisor < 1)
        return fail(what + " has the grid divisor " + str(d->gridDivisor) +
                    "; it is at least 1");
      checkExpr(*d->gridElements, what + "'s grid elements", kMaxBufferBytes);
    }
    for (size_t a = 0; a < d->args.size(); ++a) {
      if (d->args[a].kind != KernelArg::Kind::Symbol)
        continue;
      if (d->args[a].bufferIndex >= desc.symbols.size())
        return fail(what + " argument " + str(a) + " is symbol " +
                    str(d->args[a].bufferIndex) + " of the module's " +
                    str(desc.symbols.size()));
      const std::string &name = desc.symbols[d->args[a].bufferIndex].name;
      if (isValueSymbol(desc, name))
        return fail(what + " argument " + str(a) + " is symbol '" + name +
                    "', which is bound from an input's value and is no "
                    "size");
    }
  }

  /// Every symbol is the size of some input dim, so a run can bind it.
  void checkBound() {
    std::set<std::string> bound;
    for (const TensorSignature &t : desc.signature.inputs)
      if (t.symbolic)
        for (const SizeExpr &size : t.symbolic->shape)
          if (std::optional<std::string> name = size.getSymbol())
            bound.insert(*name);
    for (const SizeSymbol &s : desc.symbols)
      if (!bound.count(s.name) && !isValueSymbol(desc, s.name))
        return fail("symbol '" + s.name +
                    "' is the size of no input dim and no input's value, so "
                    "a run cannot bind it");
  }
};

/// The value a symbol bound from a value takes where the value is unknown
/// or outside its range: one below the range, where no guard holds.
int64_t outsideRange(const SizeSymbol &s) { return s.min - 1; }

/// The smallest value of `s`'s range at which every guard bound over
/// symbol `symbol` holds or fails as it does at `v` (within the range).
int64_t guardClassOf(const ModuleDesc &desc, uint32_t symbol, int64_t v) {
  int64_t smallest = desc.symbols[symbol].min;
  for (const Step &step : desc.steps) {
    const StepGuard *guard = guardOf(step);
    if (!guard)
      continue;
    for (const auto *bounds : {&guard->when, &guard->unless})
      for (const SymbolBound &b : *bounds) {
        if (b.symbol != symbol)
          continue;
        if (b.min <= v)
          smallest = std::max(smallest, b.min);
        if (b.max < v)
          smallest = std::max(smallest, b.max + 1);
      }
  }
  return smallest;
}

} // namespace

bool isValueSymbol(const ModuleDesc &desc, const std::string &name) {
  for (const ValueBinding &v : desc.valueBindings)
    if (v.symbol < desc.symbols.size() && desc.symbols[v.symbol].name == name)
      return true;
  return false;
}

void bindValueSymbols(const ModuleDesc &desc,
                      const std::vector<std::optional<int64_t>> &inputValues,
                      SymbolValues &values) {
  for (const ValueBinding &v : desc.valueBindings) {
    const SizeSymbol &s = desc.symbols[v.symbol];
    std::optional<int64_t> value =
        v.input < inputValues.size() ? inputValues[v.input] : std::nullopt;
    values[s.name] = value && inRange(s, *value)
                         ? guardClassOf(desc, v.symbol, *value)
                         : outsideRange(s);
  }
}

bool detail::isIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

std::string findSymbolProblem(const ModuleDesc &desc) {
  return SymbolChecker(desc).run();
}

Result<SymbolValues>
bindModuleSymbols(const ModuleDesc &desc,
                  const std::vector<std::vector<int64_t>> &inputShapes) {
  const std::vector<TensorSignature> &inputs = desc.signature.inputs;
  SymbolValues values;
  std::map<std::string, std::string> boundBy;
  auto refuse = [](std::string message) {
    return makeError(ErrorCode::InvalidArgument, std::move(message));
  };
  for (size_t i = 0; i < inputs.size() && i < inputShapes.size(); ++i) {
    const TensorSignature &t = inputs[i];
    if (!t.symbolic)
      continue;
    std::string input = "input '" + t.name + "'";
    if (inputShapes[i].size() != t.symbolic->shape.size())
      return refuse(input + " has rank " + str(inputShapes[i].size()) +
                    "; the module takes rank " +
                    str(t.symbolic->shape.size()) + " " +
                    formatSizes(t.symbolic->shape));
    for (size_t d = 0; d < inputShapes[i].size(); ++d) {
      std::optional<std::string> name = t.symbolic->shape[d].getSymbol();
      if (!name)
        continue;
      int64_t v = inputShapes[i][d];
      std::string where = input + " dim " + str(d);
      const SizeSymbol *s = nullptr;
      for (const SizeSymbol &candidate : desc.symbols)
        if (candidate.name == *name)
          s = &candidate;
      auto found = values.find(*name);
      if (found != values.end() && found->second != v)
        return refuse(where + " is " + str(v) + " but symbol '" + *name +
                      "' is " + str(found->second) + " (" + boundBy[*name] +
                      ")");
      if (!inRange(*s, v))
        return refuse(where + " is " + str(v) + "; symbol '" + *name +
                      "' takes " + describeRange(*s));
      values[*name] = v;
      boundBy.emplace(*name, where);
    }
  }
  // Every other symbolic dim (batch*seq) must be its value there.
  for (size_t i = 0; i < inputs.size() && i < inputShapes.size(); ++i) {
    if (!inputs[i].symbolic)
      continue;
    for (size_t d = 0; d < inputShapes[i].size(); ++d) {
      const SizeExpr &size = inputs[i].symbolic->shape[d];
      std::optional<int64_t> v = size.evaluate(values);
      if (v && *v != inputShapes[i][d])
        return refuse("input '" + inputs[i].name + "' dim " + str(d) +
                      " is " + str(inputShapes[i][d]) + "; its size " +
                      size.str() + " is " + str(*v) + " at " +
                      describeSymbolValues(desc, values));
    }
  }
  bindValueSymbols(desc, {}, values);
  return values;
}

namespace {

void instantiateTensor(TensorSignature &t, const SymbolValues &values) {
  if (!t.symbolic)
    return;
  // verifyModule bounds every expression, and the values are in range.
  Layout layout = *t.symbolic->evaluate(values);
  t.shape = layout.shape;
  t.strides = layout.strides;
  t.storageOffset = layout.offset;
  t.symbolic.reset();
}

int64_t valueOf(const SizeExpr &e, const SymbolValues &values) {
  return *e.evaluate(values);
}

/// The dispatch at `values`.
void instantiateDispatch(DispatchStep &d, const ModuleDesc &desc,
                         const SymbolValues &values) {
  for (KernelArg &a : d.args)
    if (a.kind == KernelArg::Kind::Symbol)
      a = KernelArg::i64(values.at(desc.symbols[a.bufferIndex].name));
  if (!d.gridElements)
    return;
  int64_t blocks =
      (valueOf(*d.gridElements, values) + d.gridDivisor - 1) / d.gridDivisor;
  d.gridElements.reset();
  d.gridDivisor = 1;
  d.grid.x = static_cast<uint32_t>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, d.grid.x)));
}

void instantiateStep(Step &step, const ModuleDesc &desc,
                     const SymbolValues &values) {
  if (auto *d = std::get_if<DispatchStep>(&step))
    instantiateDispatch(*d, desc, values);
  if (auto *call = std::get_if<LibraryCallStep>(&step))
    for (DescriptorField &f : call->descriptor) {
      for (size_t k = 0; k < f.symbolicInts.size(); ++k)
        f.ints[k] = valueOf(f.symbolicInts[k], values);
      f.symbolicInts.clear();
    }
  if (auto *c = std::get_if<CopyStep>(&step); c && c->symbolicSizeBytes) {
    c->sizeBytes = valueOf(*c->symbolicSizeBytes, values);
    c->symbolicSizeBytes.reset();
  }
}

} // namespace

ModuleDesc instantiateModule(const ModuleDesc &desc, const SymbolValues &values,
                             bool withCode) {
  if (desc.symbols.empty())
    return desc;
  ModuleDesc out;
  out.formatVersion = desc.formatVersion;
  out.producer = desc.producer;
  out.target = desc.target;
  for (const ExecutableDesc &e : desc.executables)
    out.executables.push_back(
        withCode ? e : ExecutableDesc{CodeImage{e.image.kind, {}}, e.kernels});
  out.constants = desc.constants;
  out.states = desc.states;
  out.buffers = desc.buffers;
  out.steps = desc.steps;
  out.events = desc.events;
  out.signature = desc.signature;
  out.temporariesBeforeReuse = desc.temporariesBeforeReuse;
  out.temporaryBytesBeforeReuse = desc.temporaryBytesBeforeReuse;
  out.deterministic = desc.deterministic;
  for (auto *list : {&out.signature.inputs, &out.signature.outputs})
    for (TensorSignature &t : *list)
      instantiateTensor(t, values);
  for (Step &step : out.steps)
    instantiateStep(step, desc, values);
  return out;
}

const StepGuard *guardOf(const Step &step) {
  if (const auto *d = std::get_if<DispatchStep>(&step))
    return &d->guard;
  if (const auto *call = std::get_if<LibraryCallStep>(&step))
    return &call->guard;
  return nullptr;
}

bool stepRuns(const Step &step, const ModuleDesc &desc,
              const SymbolValues &values) {
  const StepGuard *guard = guardOf(step);
  if (!guard || guard->empty())
    return true;
  auto allHold = [&](const std::vector<SymbolBound> &bounds) {
    for (const SymbolBound &b : bounds) {
      int64_t v = values.at(desc.symbols[b.symbol].name);
      if (v < b.min || v > b.max)
        return false;
    }
    return true;
  };
  return guard->when.empty() ? !allHold(guard->unless) : allHold(guard->when);
}

std::string describeSymbolValues(const ModuleDesc &desc,
                                 const SymbolValues &values) {
  std::string text;
  for (const SizeSymbol &s : desc.symbols) {
    auto found = values.find(s.name);
    if (found == values.end())
      continue;
    text += (text.empty() ? "" : ", ") + s.name + " = " + str(found->second);
  }
  return text;
}

} // namespace stride
