//===- Schema.h - torch.export's ExportedProgram JSON, read ---*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The part of torch.export's serialization schema (torch/_export/serde/
// schema.py, major version 8) that Stride imports, read from JSON with
// llvm/Support/JSON.h into plain structs. Unions are one-key objects
// ({"as_int": 4}); infinities and NaN are strings; arguments equal to their
// default are omitted (the importer fills them). Every error names the JSON
// path of the offending value, e.g. graph_module.graph.nodes[12].inputs[0].
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_IMPORT_TORCH_SCHEMA_H
#define STRIDE_IMPORT_TORCH_SCHEMA_H

#include "stride/Support/Result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stride::torch {

/// The schema major version Stride reads.
inline constexpr int64_t kSchemaMajor = 8;

/// One argument or output: the union's key and its value.
struct Argument {
  enum class Kind {
    None, Tensor, Tensors, OptionalTensors, Int, Ints, Float, Floats, Bool,
    Bools, String, ScalarType, MemoryFormat, Layout, Device, Other
  };
  Kind kind = Kind::None;
  /// The union's key as written ("as_tensor", ...).
  std::string key;
  /// Tensor: one name; Tensors and OptionalTensors: the names ("" for None);
  /// Other, for a node's SymInt, SymFloat or SymBool output: its name.
  std::vector<std::string> names;
  /// Int, Bool (0/1), ScalarType, MemoryFormat, Layout: one value; Ints,
  /// Bools: the list.
  std::vector<int64_t> ints;
  /// Int and Ints read from as_sym_int(s), where an element names a SymInt
  /// that an earlier node computes ({"as_name": "sym_numel"}): each
  /// element's name ("" for a static one), its entry of `ints` 0 until the
  /// importer resolves it. Empty otherwise.
  std::vector<std::string> symbols;
  /// Float: one value; Floats: the list.
  std::vector<double> floats;
  /// String, Device: the text.
  std::string text;
};

struct NamedArgument {
  std::string name;
  Argument arg;
};

struct Node {
  /// "torch.ops.aten.add.Tensor".
  std::string target;
  /// The FX node's name ("add_1"); the first output's name when absent.
  std::string name;
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  /// metadata["stack_trace"], where present.
  std::string stackTrace;
  /// "graph_module.graph.nodes[3]", for messages.
  std::string path;
};

/// A size, stride or offset: static, or a symbolic expression.
struct TensorMeta {
  int64_t dtype = 0; // ScalarType
  std::vector<int64_t> sizes, strides;
  int64_t storageOffset = 0;
  /// The first symbolic expression among the sizes, strides and offset.
  std::optional<std::string> symbolic;
  /// The expression of each size and stride ({"as_expr": {"expr_str":
  /// "768*s31"}}), "" for a static one; and of the offset.
  std::vector<std::string> sizeExprs, strideExprs;
  std::string offsetExpr;
};

/// A symbol's range in the program's range_constraints; a bound torch
/// leaves open (int_oo) is nullopt.
struct RangeConstraint {
  std::optional<int64_t> min, max;
};

struct InputSpec {
  enum class Kind { UserInput, Parameter, Buffer, TensorConstant, Other };
  Kind kind = Kind::Other;
  /// The union's key ("user_input", "parameter", ...).
  std::string key;
  /// The graph input's name.
  std::string arg;
  /// The parameter, buffer or constant's name in the module ("fc1.weight").
  std::string target;
};

struct OutputSpec {
  enum class Kind { UserOutput, LossOutput, BufferMutation, UserInputMutation,
                    Other };
  Kind kind = Kind::Other;
  std::string key; // "user_output", "loss_output", "buffer_mutation", ...
  /// The output's name; empty for a non-tensor output.
  std::string arg;
  /// BufferMutation: the buffer's name in the module ("k_cache");
  /// UserInputMutation: the graph input's name.
  std::string target;
};

struct ExportedProgram {
  int64_t major = 0, minor = 0;
  std::string torchVersion;
  std::vector<std::string> inputs; // graph input names, in order
  std::vector<Argument> outputs;
  std::vector<Node> nodes;
  std::map<std::string, TensorMeta> tensorValues;
  std::vector<InputSpec> inputSpecs;
  std::vector<OutputSpec> outputSpecs;
  /// range_constraints: each symbol's range ("s31" -> [1, 1024]).
  std::map<std::string, RangeConstraint> rangeConstraints;
};

/// One weight or constant of the weights config.
struct Payload {
  std::string name; // "fc1.weight"
  std::string pathName; // "weight_0", in data/weights/
  bool usePickle = false;
  std::optional<TensorMeta> meta;
};

/// Parses model.json. Errors read "<json path>: <what is wrong>".
Result<ExportedProgram> parseExportedProgram(std::string_view json);

/// Parses a weights or constants config ({"config": {name: PayloadMeta}}).
Result<std::vector<Payload>> parsePayloadConfig(std::string_view json);

/// torch's name of a ScalarType ("float32", "complex64", ...).
std::string scalarTypeName(int64_t scalarType);

} // namespace stride::torch

#endif // STRIDE_IMPORT_TORCH_SCHEMA_H
