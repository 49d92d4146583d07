//===- Schema.cpp - torch.export's ExportedProgram JSON, read -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Import/Torch/Schema.h"

#include "llvm/Support/JSON.h"

#include <cmath>
#include <limits>
#include <tuple>

namespace json = llvm::json;

namespace stride::torch {

namespace {

/// Walks the JSON and keeps the first error with its path.
class Reader {
public:
  bool failed() const { return !message.empty(); }
  Error error() const {
    return makeError(ErrorCode::InvalidArgument, message);
  }

  bool fail(const std::string &path, const std::string &what) {
    if (message.empty())
      message = (path.empty() ? "(root)" : path) + ": " + what;
    return false;
  }

  const json::Object *object(const json::Value *v, const std::string &path) {
    const json::Object *o = v ? v->getAsObject() : nullptr;
    if (!o)
      fail(path, v ? "expected an object" : "missing");
    return o;
  }
  const json::Array *array(const json::Value *v, const std::string &path) {
    const json::Array *a = v ? v->getAsArray() : nullptr;
    if (!a)
      fail(path, v ? "expected a list" : "missing");
    return a;
  }
  std::optional<int64_t> integer(const json::Value *v, const std::string &path) {
    std::optional<int64_t> i = v ? v->getAsInteger() : std::nullopt;
    if (!i)
      fail(path, v ? "expected an integer" : "missing");
    return i;
  }
  std::optional<std::string> string(const json::Value *v,
                                    const std::string &path) {
    std::optional<llvm::StringRef> s = v ? v->getAsString() : std::nullopt;
    if (!s) {
      fail(path, v ? "expected a string" : "missing");
      return std::nullopt;
    }
    return s->str();
  }
  /// A float: a number, or "Infinity", "-Infinity", "NaN".
  std::optional<double> number(const json::Value *v, const std::string &path) {
    if (v) {
      if (std::optional<double> d = v->getAsNumber())
        return d;
      if (std::optional<llvm::StringRef> s = v->getAsString()) {
        if (*s == "Infinity" || *s == "inf")
          return std::numeric_limits<double>::infinity();
        if (*s == "-Infinity" || *s == "-inf")
          return -std::numeric_limits<double>::infinity();
        if (*s == "NaN" || *s == "nan")
          return std::numeric_limits<double>::quiet_NaN();
      }
    }
    fail(path, v ? "expected a number (or \"Infinity\", \"-Infinity\", "
                   "\"NaN\")"
                 : "missing");
    return std::nullopt;
  }
  /// A one-key object {"key": value}: the key and the value.
  std::optional<std::pair<std::string, const json::Value *>>
  union_(const json::Value *v, const std::string &path) {
    const json::Object *o = object(v, path);
    if (!o)
      return std::nullopt;
    if (o->size() != 1) {
      fail(path, "expected a one-key object such as {\"as_int\": 4}, found " +
                     std::to_string(o->size()) + " keys");
      return std::nullopt;
    }
    auto it = o->begin();
    return std::make_pair(it->first.str(), &it->second);
  }

  /// A SymInt argument ({"as_int": n}, or {"as_name": "sym_numel"}, a
  /// SymInt an earlier node computes: 0, its name in `symbol`).
  std::optional<int64_t> symIntElement(const json::Value *v,
                                       const std::string &path,
                                       std::optional<std::string> &symbol) {
    auto u = union_(v, path);
    if (!u)
      return std::nullopt;
    if (u->first == "as_int")
      return integer(u->second, path + ".as_int");
    if (u->first == "as_name") {
      if (std::optional<llvm::StringRef> name = u->second->getAsString()) {
        symbol = name->str();
        return 0;
      }
    }
    fail(path, "a SymInt Stride cannot read: it reads one written as "
               "'as_int' (a number) or 'as_name' (a SymInt an earlier node "
               "computes)");
    return std::nullopt;
  }
  /// A SymInt ({"as_int": n} or {"as_expr": ...}); records the first
  /// symbolic expression in `symbolic`, this one in `expression`, and
  /// returns 0 for it.
  std::optional<int64_t> symInt(const json::Value *v, const std::string &path,
                                std::optional<std::string> &symbolic,
                                std::string &expression) {
    auto u = union_(v, path);
    if (!u)
      return std::nullopt;
    if (u->first == "as_int")
      return integer(u->second, path + ".as_int");
    if (u->first == "as_expr") {
      const json::Object *expr = object(u->second, path + ".as_expr");
      if (!expr)
        return std::nullopt;
      std::optional<std::string> text =
          string(expr->get("expr_str"), path + ".as_expr.expr_str");
      if (!text)
        return std::nullopt;
      if (!symbolic)
        symbolic = *text;
      expression = *text;
      return 0;
    }
    fail(path, "unknown SymInt kind '" + u->first + "'");
    return std::nullopt;
  }

  /// Parses each element of the list at `path` with `item` (which returns
  /// an optional) into `out`.
  template <typename T, typename ItemFn>
  bool list(const json::Value *v, const std::string &path, std::vector<T> &out,
            ItemFn item) {
    const json::Array *a = array(v, path);
    if (!a)
      return false;
    for (size_t i = 0; i < a->size(); ++i) {
      auto parsed = item(&(*a)[i], path + "[" + std::to_string(i) + "]");
      if (!parsed)
        return false;
      out.push_back(std::move(*parsed));
    }
    return true;
  }

  std::optional<TensorMeta> tensorMeta(const json::Value *v,
                                       const std::string &path);
  std::optional<Argument> argument(const json::Value *v,
                                   const std::string &path);
  /// A node's SymInt, SymFloat or SymBool output, which torch names in the
  /// graph's sym_*_values ({"as_sym_int": {"as_name": "getitem_4"}}, the
  /// max_q of fused attention): an Argument of kind Other; nullopt for
  /// anything else.
  static std::optional<Argument> symbolicOutput(const json::Value *v);
  bool names(const json::Value *v, const std::string &path,
             std::vector<std::string> &out, bool optional);
  std::optional<Node> node(const json::Value *v, const std::string &path);
  std::optional<InputSpec> inputSpec(const json::Value *v,
                                     const std::string &path);
  std::optional<OutputSpec> outputSpec(const json::Value *v,
                                       const std::string &path);
  bool graph(const json::Object &graph, const std::string &path,
             ExportedProgram &program);
  bool signature(const json::Object &signature, const std::string &path,
                 ExportedProgram &program);
  /// range_constraints ({"s0": {"min_val": 1, "max_val": 1024}}; absent
  /// in an archive written by hand: no symbols).
  bool rangeConstraints(const json::Value *v, ExportedProgram &program);

private:
  std::string message;
};

std::string at(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::optional<TensorMeta> Reader::tensorMeta(const json::Value *v,
                                             const std::string &path) {
  const json::Object *o = object(v, path);
  if (!o)
    return std::nullopt;
  TensorMeta meta;
  std::optional<int64_t> dtype = integer(o->get("dtype"), path + ".dtype");
  if (!dtype)
    return std::nullopt;
  meta.dtype = *dtype;
  for (auto [key, dims, exprs] :
       {std::tuple{"sizes", &meta.sizes, &meta.sizeExprs},
        std::tuple{"strides", &meta.strides, &meta.strideExprs}}) {
    std::string p = path + "." + key;
    const json::Array *list = array(o->get(key), p);
    if (!list)
      return std::nullopt;
    for (size_t i = 0; i < list->size(); ++i) {
      exprs->emplace_back();
      std::optional<int64_t> d =
          symInt(&(*list)[i], at(p, i), meta.symbolic, exprs->back());
      if (!d)
        return std::nullopt;
      dims->push_back(*d);
    }
  }
  std::optional<int64_t> offset =
      symInt(o->get("storage_offset"), path + ".storage_offset",
             meta.symbolic, meta.offsetExpr);
  if (!offset)
    return std::nullopt;
  meta.storageOffset = *offset;
  if (meta.sizes.size() != meta.strides.size()) {
    fail(path, std::to_string(meta.sizes.size()) + " sizes but " +
                   std::to_string(meta.strides.size()) + " strides");
    return std::nullopt;
  }
  return meta;
}

bool Reader::names(const json::Value *v, const std::string &path,
                   std::vector<std::string> &out, bool optional) {
  const json::Array *list = array(v, path);
  if (!list)
    return false;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string p = at(path, i);
    const json::Value *item = &(*list)[i];
    if (optional) {
      auto u = union_(item, p);
      if (!u)
        return false;
      if (u->first == "as_none") {
        out.push_back("");
        continue;
      }
      if (u->first != "as_tensor")
        return fail(p, "expected {\"as_tensor\": ...} or {\"as_none\": ...}");
      item = u->second;
      p += ".as_tensor";
    }
    const json::Object *tensor = object(item, p);
    if (!tensor)
      return false;
    std::optional<std::string> name = string(tensor->get("name"), p + ".name");
    if (!name)
      return false;
    out.push_back(*name);
  }
  return true;
}

std::optional<Argument> Reader::argument(const json::Value *v,
                                         const std::string &path) {
  auto u = union_(v, path);
  if (!u)
    return std::nullopt;
  Argument arg;
  arg.key = u->first;
  const json::Value *value = u->second;
  std::string p = path + "." + arg.key;
  using Kind = Argument::Kind;
  auto one = [&](Kind kind, std::optional<int64_t> i) -> std::optional<Argument> {
    if (!i)
      return std::nullopt;
    arg.kind = kind;
    arg.ints.push_back(*i);
    return arg;
  };
  if (arg.key == "as_none")
    return arg;
  if (arg.key == "as_tensor") {
    const json::Object *tensor = object(value, p);
    if (!tensor)
      return std::nullopt;
    std::optional<std::string> name = string(tensor->get("name"), p + ".name");
    if (!name)
      return std::nullopt;
    arg.kind = Kind::Tensor;
    arg.names.push_back(*name);
    return arg;
  }
  if (arg.key == "as_tensors" || arg.key == "as_optional_tensors") {
    bool optional = arg.key == "as_optional_tensors";
    arg.kind = optional ? Kind::OptionalTensors : Kind::Tensors;
    if (!names(value, p, arg.names, optional))
      return std::nullopt;
    return arg;
  }
  if (arg.key == "as_sym_int") {
    std::optional<std::string> symbol;
    std::optional<int64_t> v = symIntElement(value, p, symbol);
    if (!v)
      return std::nullopt;
    arg.kind = Kind::Int;
    arg.ints.push_back(*v);
    if (symbol)
      arg.symbols.push_back(*symbol);
    return arg;
  }
  if (arg.key == "as_sym_bool") {
    // A SymBool an earlier node computes ({"as_name": "ge"}): its name;
    // or a constant ({"as_bool": true}).
    if (std::optional<Argument> named = symbolicOutput(v))
      return named;
    const json::Object *o = value->getAsObject();
    std::optional<bool> b =
        o && o->get("as_bool") ? o->get("as_bool")->getAsBoolean() : std::nullopt;
    if (!b) {
      fail(p, "expected a SymBool ({\"as_name\": ...} or {\"as_bool\": ...})");
      return std::nullopt;
    }
    return one(Kind::Bool, *b ? 1 : 0);
  }
  if (arg.key == "as_int")
    return one(Kind::Int, integer(value, p));
  if (arg.key == "as_scalar_type")
    return one(Kind::ScalarType, integer(value, p));
  if (arg.key == "as_memory_format")
    return one(Kind::MemoryFormat, integer(value, p));
  if (arg.key == "as_layout")
    return one(Kind::Layout, integer(value, p));
  if (arg.key == "as_bool") {
    std::optional<bool> b = value->getAsBoolean();
    if (!b) {
      fail(p, "expected true or false");
      return std::nullopt;
    }
    return one(Kind::Bool, *b ? 1 : 0);
  }
  if (arg.key == "as_float") {
    std::optional<double> d = number(value, p);
    if (!d)
      return std::nullopt;
    arg.kind = Kind::Float;
    arg.floats.push_back(*d);
    return arg;
  }
  if (arg.key == "as_ints" || arg.key == "as_bools" || arg.key == "as_floats" ||
      arg.key == "as_sym_ints") {
    const json::Array *list = array(value, p);
    if (!list)
      return std::nullopt;
    arg.kind = arg.key == "as_floats"  ? Kind::Floats
               : arg.key == "as_bools" ? Kind::Bools
                                       : Kind::Ints;
    for (size_t i = 0; i < list->size(); ++i) {
      const json::Value *item = &(*list)[i];
      std::string pi = at(p, i);
      if (arg.key == "as_floats") {
        std::optional<double> d = number(item, pi);
        if (!d)
          return std::nullopt;
        arg.floats.push_back(*d);
        continue;
      }
      if (arg.key == "as_bools") {
        std::optional<bool> b = item->getAsBoolean();
        if (!b) {
          fail(pi, "expected true or false");
          return std::nullopt;
        }
        arg.ints.push_back(*b);
        continue;
      }
      if (arg.key == "as_sym_ints") {
        std::optional<std::string> symbol;
        std::optional<int64_t> n = symIntElement(item, pi, symbol);
        if (!n)
          return std::nullopt;
        arg.ints.push_back(*n);
        if (symbol || !arg.symbols.empty())
          arg.symbols.resize(arg.ints.size() - 1);
        if (symbol)
          arg.symbols.push_back(*symbol);
        continue;
      }
      std::optional<int64_t> n = integer(item, pi);
      if (!n)
        return std::nullopt;
      arg.ints.push_back(*n);
    }
    if (!arg.symbols.empty())
      arg.symbols.resize(arg.ints.size());
    return arg;
  }
  if (arg.key == "as_string" || arg.key == "as_device") {
    arg.kind = arg.key == "as_string" ? Kind::String : Kind::Device;
    if (arg.key == "as_string") {
      std::optional<std::string> s = string(value, p);
      if (!s)
        return std::nullopt;
      arg.text = *s;
    }
    return arg;
  }
  arg.kind = Kind::Other;
  return arg;
}

std::optional<Argument> Reader::symbolicOutput(const json::Value *v) {
  const json::Object *o = v->getAsObject();
  if (!o || o->size() != 1 || !llvm::StringRef(o->begin()->first).starts_with("as_sym_"))
    return std::nullopt;
  const json::Object *inner = o->begin()->second.getAsObject();
  std::optional<llvm::StringRef> name =
      inner ? inner->getString("as_name") : std::nullopt;
  if (!name)
    return std::nullopt;
  Argument arg;
  arg.kind = Argument::Kind::Other;
  arg.key = o->begin()->first.str();
  arg.names.push_back(name->str());
  return arg;
}

std::optional<Node> Reader::node(const json::Value *v, const std::string &path) {
  const json::Object *o = object(v, path);
  if (!o)
    return std::nullopt;
  Node node;
  node.path = path;
  std::optional<std::string> target = string(o->get("target"), path + ".target");
  if (!target)
    return std::nullopt;
  node.target = *target;
  const json::Array *inputs = array(o->get("inputs"), path + ".inputs");
  if (!inputs)
    return std::nullopt;
  for (size_t i = 0; i < inputs->size(); ++i) {
    std::string p = at(path + ".inputs", i);
    const json::Object *named = object(&(*inputs)[i], p);
    if (!named)
      return std::nullopt;
    std::optional<std::string> name = string(named->get("name"), p + ".name");
    if (!name)
      return std::nullopt;
    std::optional<Argument> arg = argument(named->get("arg"), p + ".arg");
    if (!arg)
      return std::nullopt;
    node.inputs.push_back({*name, std::move(*arg)});
  }
  const json::Array *outputs = array(o->get("outputs"), path + ".outputs");
  if (!outputs)
    return std::nullopt;
  for (size_t i = 0; i < outputs->size(); ++i) {
    if (std::optional<Argument> scalar = symbolicOutput(&(*outputs)[i])) {
      node.outputs.push_back(std::move(*scalar));
      continue;
    }
    std::optional<Argument> arg =
        argument(&(*outputs)[i], at(path + ".outputs", i));
    if (!arg)
      return std::nullopt;
    node.outputs.push_back(std::move(*arg));
  }
  if (const json::Value *name = o->get("name"); name && !name->getAsNull()) {
    std::optional<std::string> s = string(name, path + ".name");
    if (!s)
      return std::nullopt;
    node.name = *s;
  }
  if (node.name.empty() && !node.outputs.empty() &&
      !node.outputs[0].names.empty())
    node.name = node.outputs[0].names[0];
  if (const json::Value *metadata = o->get("metadata")) {
    const json::Object *m = object(metadata, path + ".metadata");
    if (!m)
      return std::nullopt;
    if (const json::Value *trace = m->get("stack_trace")) {
      std::optional<std::string> s =
          string(trace, path + ".metadata.stack_trace");
      if (!s)
        return std::nullopt;
      node.stackTrace = *s;
    }
  }
  return node;
}

std::optional<InputSpec> Reader::inputSpec(const json::Value *v,
                                           const std::string &path) {
  auto u = union_(v, path);
  if (!u)
    return std::nullopt;
  InputSpec spec;
  spec.key = u->first;
  std::string p = path + "." + spec.key;
  const json::Object *o = object(u->second, p);
  if (!o)
    return std::nullopt;
  static const std::pair<const char *, std::pair<InputSpec::Kind, const char *>>
      kinds[] = {
          {"parameter", {InputSpec::Kind::Parameter, "parameter_name"}},
          {"buffer", {InputSpec::Kind::Buffer, "buffer_name"}},
          {"tensor_constant",
           {InputSpec::Kind::TensorConstant, "tensor_constant_name"}},
      };
  if (spec.key == "user_input") {
    std::optional<Argument> arg = argument(o->get("arg"), p + ".arg");
    if (!arg)
      return std::nullopt;
    spec.kind = InputSpec::Kind::UserInput;
    if (arg->kind == Argument::Kind::Tensor)
      spec.arg = arg->names[0];
    else if (arg->kind != Argument::Kind::None)
      spec.kind = InputSpec::Kind::Other;
    return spec;
  }
  for (const auto &[key, kind] : kinds) {
    if (spec.key != key)
      continue;
    const json::Object *arg = object(o->get("arg"), p + ".arg");
    if (!arg)
      return std::nullopt;
    std::optional<std::string> name = string(arg->get("name"), p + ".arg.name");
    std::optional<std::string> target =
        name ? string(o->get(kind.second), p + "." + kind.second)
             : std::nullopt;
    if (!target)
      return std::nullopt;
    spec.kind = kind.first;
    spec.arg = *name;
    spec.target = *target;
    return spec;
  }
  return spec; // Kind::Other: the importer refuses it by key.
}

std::optional<OutputSpec> Reader::outputSpec(const json::Value *v,
                                             const std::string &path) {
  auto u = union_(v, path);
  if (!u)
    return std::nullopt;
  OutputSpec spec;
  spec.key = u->first;
  std::string p = path + "." + spec.key;
  const json::Object *o = object(u->second, p);
  if (!o)
    return std::nullopt;
  const json::Value *arg = o->get("arg");
  const json::Object *argObject = object(arg, p + ".arg");
  if (!argObject)
    return std::nullopt;
  if (spec.key == "user_output") {
    std::optional<Argument> a = argument(arg, p + ".arg");
    if (!a)
      return std::nullopt;
    spec.kind = OutputSpec::Kind::UserOutput;
    if (a->kind == Argument::Kind::Tensor)
      spec.arg = a->names[0];
    return spec;
  }
  std::optional<std::string> name = string(argObject->get("name"), p + ".arg.name");
  if (!name)
    return std::nullopt;
  spec.arg = *name;
  static const std::pair<const char *, std::pair<OutputSpec::Kind, const char *>>
      kinds[] = {
          {"loss_output", {OutputSpec::Kind::LossOutput, nullptr}},
          {"buffer_mutation", {OutputSpec::Kind::BufferMutation, "buffer_name"}},
          {"user_input_mutation",
           {OutputSpec::Kind::UserInputMutation, "user_input_name"}},
      };
  for (const auto &[key, kind] : kinds) {
    if (spec.key != key)
      continue;
    if (kind.second) {
      std::optional<std::string> target =
          string(o->get(kind.second), p + "." + kind.second);
      if (!target)
        return std::nullopt;
      spec.target = *target;
    }
    spec.kind = kind.first;
  }
  return spec; // Kind::Other: the importer refuses it by key.
}

bool Reader::graph(const json::Object &g, const std::string &path,
                   ExportedProgram &program) {
  const json::Array *inputs = array(g.get("inputs"), path + ".inputs");
  if (!inputs)
    return false;
  for (size_t i = 0; i < inputs->size(); ++i) {
    std::optional<Argument> arg = argument(&(*inputs)[i], at(path + ".inputs", i));
    if (!arg)
      return false;
    if (arg->kind != Argument::Kind::Tensor)
      return fail(at(path + ".inputs", i),
                  "a graph input of kind '" + arg->key +
                      "'; Stride imports tensor inputs only");
    program.inputs.push_back(arg->names[0]);
  }
  auto argumentAt = [&](const json::Value *v, const std::string &p) {
    return argument(v, p);
  };
  auto nodeAt = [&](const json::Value *v, const std::string &p) {
    return node(v, p);
  };
  if (!list(g.get("outputs"), path + ".outputs", program.outputs, argumentAt) ||
      !list(g.get("nodes"), path + ".nodes", program.nodes, nodeAt))
    return false;
  const json::Object *values = object(g.get("tensor_values"), path + ".tensor_values");
  if (!values)
    return false;
  for (const auto &[name, meta] : *values) {
    std::optional<TensorMeta> m =
        tensorMeta(&meta, path + ".tensor_values." + name.str());
    if (!m)
      return false;
    program.tensorValues[name.str()] = std::move(*m);
  }
  return true;
}

bool Reader::signature(const json::Object &s, const std::string &path,
                       ExportedProgram &program) {
  return list(s.get("input_specs"), path + ".input_specs", program.inputSpecs,
              [&](const json::Value *v, const std::string &p) {
                return inputSpec(v, p);
              }) &&
         list(s.get("output_specs"), path + ".output_specs",
              program.outputSpecs,
              [&](const json::Value *v, const std::string &p) {
                return outputSpec(v, p);
              });
}

Result<json::Value> parseJson(std::string_view text) {
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value)
    return makeError(ErrorCode::InvalidArgument,
                     "not valid JSON: " + llvm::toString(value.takeError()));
  return std::move(*value);
}

} // namespace

bool Reader::rangeConstraints(const json::Value *v, ExportedProgram &program) {
  if (!v || v->getAsNull())
    return true;
  const json::Object *constraints = object(v, "range_constraints");
  if (!constraints)
    return false;
  for (const auto &[name, entry] : *constraints) {
    std::string path = "range_constraints." + name.str();
    const json::Object *o = object(&entry, path);
    if (!o)
      return false;
    RangeConstraint range;
    for (auto [key, bound] : {std::pair{"min_val", &range.min},
                              std::pair{"max_val", &range.max}}) {
      const json::Value *value = o->get(key);
      if (!value || value->getAsNull())
        continue;
      *bound = integer(value, path + "." + key);
      if (!*bound)
        return false;
    }
    program.rangeConstraints[name.str()] = range;
  }
  return true;
}

Result<ExportedProgram> parseExportedProgram(std::string_view text) {
  Result<json::Value> value = parseJson(text);
  if (!value)
    return value.error();
  Reader reader;
  ExportedProgram program;
  const json::Object *root = reader.object(&*value, "");
  if (root && !root->get("schema_version"))
    return makeError(ErrorCode::InvalidArgument,
                     "(root): not an ExportedProgram of torch.export: it has "
                     "no schema_version");
  const json::Object *version =
      root ? reader.object(root->get("schema_version"), "schema_version")
           : nullptr;
  std::optional<int64_t> major =
      version ? reader.integer(version->get("major"), "schema_version.major")
              : std::nullopt;
  if (!major)
    return reader.error();
  program.major = *major;
  program.minor = version->getInteger("minor").value_or(0);
  if (const json::Value *v = root->get("torch_version"))
    program.torchVersion = v->getAsString().value_or("").str();
  if (program.major != kSchemaMajor)
    return makeError(ErrorCode::InvalidArgument,
                     "schema_version.major: the program uses schema " +
                         std::to_string(program.major) + "." +
                         std::to_string(program.minor) +
                         ", Stride reads major version " +
                         std::to_string(kSchemaMajor) +
                         " (written by torch 2.8 to 2.11)");
  const json::Object *module = reader.object(root->get("graph_module"), "graph_module");
  const json::Object *graph =
      module ? reader.object(module->get("graph"), "graph_module.graph") : nullptr;
  const json::Object *signature =
      graph ? reader.object(module->get("signature"), "graph_module.signature")
            : nullptr;
  if (!signature || !reader.graph(*graph, "graph_module.graph", program) ||
      !reader.signature(*signature, "graph_module.signature", program) ||
      !reader.rangeConstraints(root->get("range_constraints"), program))
    return reader.error();
  return program;
}

Result<std::vector<Payload>> parsePayloadConfig(std::string_view text) {
  Result<json::Value> value = parseJson(text);
  if (!value)
    return value.error();
  Reader reader;
  const json::Object *root = reader.object(&*value, "");
  const json::Object *config =
      root ? reader.object(root->get("config"), "config") : nullptr;
  if (!config)
    return reader.error();
  std::vector<Payload> payloads;
  for (const auto &[name, entry] : *config) {
    std::string path = "config." + name.str();
    const json::Object *o = reader.object(&entry, path);
    if (!o)
      return reader.error();
    Payload payload;
    payload.name = name.str();
    std::optional<std::string> pathName =
        reader.string(o->get("path_name"), path + ".path_name");
    if (!pathName)
      return reader.error();
    payload.pathName = *pathName;
    payload.usePickle = o->getBoolean("use_pickle").value_or(false);
    if (const json::Value *meta = o->get("tensor_meta");
        meta && !meta->getAsNull()) {
      payload.meta = reader.tensorMeta(meta, path + ".tensor_meta");
      if (!payload.meta)
        return reader.error();
    }
    payloads.push_back(std::move(payload));
  }
  return payloads;
}

std::string scalarTypeName(int64_t t) {
  switch (t) {
  case 1: return "uint8";
  case 2: return "int8";
  case 3: return "int16";
  case 4: return "int32";
  case 5: return "int64";
  case 6: return "float16";
  case 7: return "float32";
  case 8: return "float64";
  case 9: return "complex32";
  case 10: return "complex64";
  case 11: return "complex128";
  case 12: return "bool";
  case 13: return "bfloat16";
  case 28: return "uint16";
  case 29: return "float8_e4m3fn";
  case 30: return "float8_e5m2";
  case 31: return "float8_e4m3fnuz";
  case 32: return "float8_e5m2fnuz";
  case 33: return "float8_e8m0fnu";
  case 34: return "uint32";
  case 35: return "uint64";
  default: return "scalar type " + std::to_string(t);
  }
}

} // namespace stride::torch
