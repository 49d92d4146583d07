//===- SchemaTest.cpp - The ExportedProgram JSON reader ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Import/Torch/Schema.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace stride::torch;

namespace {

std::string meta(const std::string &sizes, const std::string &strides) {
  return R"({"dtype": 7, "sizes": )" + sizes + R"(, "strides": )" + strides +
         R"(, "storage_offset": {"as_int": 0}, "requires_grad": false,
            "device": {"type": "cpu"}, "layout": 7})";
}

/// A program of one node, add(x, other=<otherArg>), with tensor_values
/// sized by `xSizes`.
std::string program(const std::string &otherArg,
                    const std::string &xSizes = R"([{"as_int": 2}, {"as_int": 3}])",
                    int major = 8) {
  return R"({"schema_version": {"major": )" + std::to_string(major) +
         R"(, "minor": 17}, "torch_version": "2.11.0",
  "graph_module": {
    "graph": {
      "inputs": [{"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "w"}}],
      "outputs": [{"as_tensor": {"name": "add"}}],
      "nodes": [{"target": "torch.ops.aten.add.Tensor",
                 "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                            {"name": "other", "arg": )" + otherArg + R"(, "kind": 1}],
                 "outputs": [{"as_tensor": {"name": "add"}}],
                 "metadata": {"stack_trace": "File \"model.py\", line 3, in forward"},
                 "name": "add"}],
      "tensor_values": {"x": )" + meta(xSizes, R"([{"as_int": 3}, {"as_int": 1}])") +
         R"(, "w": )" + meta(R"([{"as_int": 3}])", R"([{"as_int": 1}])") +
         R"(, "add": )" + meta(R"([{"as_int": 2}, {"as_int": 3}])",
                               R"([{"as_int": 3}, {"as_int": 1}])") + R"(},
      "sym_int_values": {}, "sym_bool_values": {}},
    "signature": {
      "input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}},
                      {"parameter": {"arg": {"name": "w"}, "parameter_name": "fc.weight"}}],
      "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "add"}}}}]},
    "module_call_graph": []}})";
}

TEST(Schema, ReadsNodesValuesAndSignature) {
  stride::Result<ExportedProgram> p =
      parseExportedProgram(program(R"({"as_tensor": {"name": "w"}})"));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->major, 8);
  EXPECT_EQ(p->minor, 17);
  EXPECT_EQ(p->inputs, (std::vector<std::string>{"x", "w"}));
  ASSERT_EQ(p->nodes.size(), 1u);
  const Node &node = p->nodes[0];
  EXPECT_EQ(node.target, "torch.ops.aten.add.Tensor");
  EXPECT_EQ(node.name, "add");
  EXPECT_EQ(node.path, "graph_module.graph.nodes[0]");
  EXPECT_EQ(node.stackTrace, "File \"model.py\", line 3, in forward");
  ASSERT_EQ(node.inputs.size(), 2u);
  EXPECT_EQ(node.inputs[1].name, "other");
  EXPECT_EQ(node.inputs[1].arg.kind, Argument::Kind::Tensor);
  EXPECT_EQ(node.inputs[1].arg.names[0], "w");
  const TensorMeta &x = p->tensorValues.at("x");
  EXPECT_EQ(x.dtype, 7);
  EXPECT_EQ(x.sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(x.strides, (std::vector<int64_t>{3, 1}));
  EXPECT_FALSE(x.symbolic);
  ASSERT_EQ(p->inputSpecs.size(), 2u);
  EXPECT_EQ(p->inputSpecs[0].kind, InputSpec::Kind::UserInput);
  EXPECT_EQ(p->inputSpecs[1].kind, InputSpec::Kind::Parameter);
  EXPECT_EQ(p->inputSpecs[1].arg, "w");
  EXPECT_EQ(p->inputSpecs[1].target, "fc.weight");
  ASSERT_EQ(p->outputSpecs.size(), 1u);
  EXPECT_EQ(p->outputSpecs[0].key, "user_output");
  EXPECT_EQ(p->outputSpecs[0].arg, "add");
}

TEST(Schema, ReadsScalarsAndInfinitiesWrittenAsStrings) {
  struct Case { const char *json; double value; };
  for (Case c : {Case{R"({"as_float": 0.5})", 0.5},
                 Case{R"({"as_float": "Infinity"})", INFINITY},
                 Case{R"({"as_float": "-Infinity"})", -INFINITY}}) {
    stride::Result<ExportedProgram> p = parseExportedProgram(program(c.json));
    ASSERT_TRUE(p) << p.error().message;
    const Argument &arg = p->nodes[0].inputs[1].arg;
    EXPECT_EQ(arg.kind, Argument::Kind::Float);
    EXPECT_EQ(arg.floats[0], c.value);
  }
  stride::Result<ExportedProgram> nan =
      parseExportedProgram(program(R"({"as_float": "NaN"})"));
  ASSERT_TRUE(nan);
  EXPECT_TRUE(std::isnan(nan->nodes[0].inputs[1].arg.floats[0]));
  stride::Result<ExportedProgram> ints =
      parseExportedProgram(program(R"({"as_ints": [1, -2]})"));
  ASSERT_TRUE(ints);
  EXPECT_EQ(ints->nodes[0].inputs[1].arg.ints, (std::vector<int64_t>{1, -2}));
}

TEST(Schema, ErrorsNameTheJsonPath) {
  struct Case { std::string json, message; };
  for (const Case &c : {
           Case{program(R"({"as_int": "one"})"),
                "graph_module.graph.nodes[0].inputs[1].arg.as_int: expected an "
                "integer"},
           Case{program(R"({"as_int": 1, "as_float": 2.0})"),
                "graph_module.graph.nodes[0].inputs[1].arg: expected a "
                "one-key object such as {\"as_int\": 4}, found 2 keys"},
           Case{program(R"({"as_float": "lots"})"),
                "graph_module.graph.nodes[0].inputs[1].arg.as_float: expected "
                "a number (or \"Infinity\", \"-Infinity\", \"NaN\")"},
           Case{program(R"([1])"),
                "graph_module.graph.nodes[0].inputs[1].arg: expected an "
                "object"},
           Case{"[1, 2", ""},
           Case{R"({"graph_module": {}})",
                "(root): not an ExportedProgram of torch.export: it has no "
                "schema_version"},
       }) {
    stride::Result<ExportedProgram> p = parseExportedProgram(c.json);
    ASSERT_FALSE(p);
    if (c.message.empty())
      EXPECT_EQ(p.error().message.rfind("not valid JSON: ", 0), 0u)
          << p.error().message;
    else
      EXPECT_EQ(p.error().message, c.message);
  }
}

TEST(Schema, RefusesAnotherMajorVersion) {
  stride::Result<ExportedProgram> p =
      parseExportedProgram(program(R"({"as_int": 1})", R"([{"as_int": 2}])", 7));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message,
            "schema_version.major: the program uses schema 7.17, Stride reads "
            "major version 8 (written by torch 2.8 to 2.11)");
}

TEST(Schema, RecordsSymbolicSizes) {
  stride::Result<ExportedProgram> p = parseExportedProgram(program(
      R"({"as_int": 1})",
      R"([{"as_expr": {"expr_str": "s0", "hint": {"as_int": 2}}}, {"as_int": 3}])"));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->tensorValues.at("x").symbolic, std::optional<std::string>("s0"));
}

TEST(Schema, ReadsNoneAndSymIntOutputsOfANode) {
  // As fused attention has them: None (cum_seq_q), and a SymInt (max_q)
  // that torch names in the graph's sym_int_values.
  std::string json = program(R"({"as_int": 1})");
  std::string outputs = "\"outputs\": [{\"as_tensor\": {\"name\": \"add\"}}],\n" +
                        std::string(17, ' ') + "\"metadata\"";
  size_t at = json.find(outputs);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, outputs.size(),
               R"("outputs": [{"as_tensor": {"name": "add"}}, {"as_none": true},
                              {"as_sym_int": {"as_name": "max_q"}}], "metadata")");
  stride::Result<ExportedProgram> p = parseExportedProgram(json);
  ASSERT_TRUE(p) << p.error().message;
  const std::vector<Argument> &out = p->nodes[0].outputs;
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].kind, Argument::Kind::None);
  EXPECT_EQ(out[2].kind, Argument::Kind::Other);
  EXPECT_EQ(out[2].key, "as_sym_int");
  EXPECT_EQ(out[2].names, std::vector<std::string>{"max_q"});
}

TEST(Schema, ReadsSymBoolArguments) {
  // A SymBool an earlier node computes (_assert_scalar's `self`), by name;
  // a constant one as a bool; anything else is refused at its path.
  stride::Result<ExportedProgram> named = parseExportedProgram(
      program(R"({"as_sym_bool": {"as_name": "ge"}})"));
  ASSERT_TRUE(named) << named.error().message;
  const Argument &ge = named->nodes[0].inputs[1].arg;
  EXPECT_EQ(ge.key, "as_sym_bool");
  EXPECT_EQ(ge.names, std::vector<std::string>{"ge"});
  stride::Result<ExportedProgram> constant = parseExportedProgram(
      program(R"({"as_sym_bool": {"as_bool": true}})"));
  ASSERT_TRUE(constant) << constant.error().message;
  EXPECT_EQ(constant->nodes[0].inputs[1].arg.kind, Argument::Kind::Bool);
  EXPECT_EQ(constant->nodes[0].inputs[1].arg.ints, std::vector<int64_t>{1});
  stride::Result<ExportedProgram> bad = parseExportedProgram(
      program(R"({"as_sym_bool": {"as_int": 3}})"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("graph_module.graph.nodes[0].inputs[1]"
                                     ".arg.as_sym_bool: expected a SymBool"),
            std::string::npos)
      << bad.error().message;
}

TEST(Schema, ReadsAPayloadConfig) {
  stride::Result<std::vector<Payload>> config = parsePayloadConfig(R"({"config": {
      "fc.weight": {"path_name": "weight_0", "is_param": true, "use_pickle": false,
                    "tensor_meta": )" + meta(R"([{"as_int": 4}])", R"([{"as_int": 1}])") + R"(},
      "obj": {"path_name": "custom_obj_0", "is_param": false, "use_pickle": true,
              "tensor_meta": null}}})");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->size(), 2u);
  const Payload &weight = (*config)[0].name == "fc.weight" ? (*config)[0] : (*config)[1];
  const Payload &obj = (*config)[0].name == "obj" ? (*config)[0] : (*config)[1];
  EXPECT_EQ(weight.pathName, "weight_0");
  EXPECT_FALSE(weight.usePickle);
  ASSERT_TRUE(weight.meta.has_value());
  EXPECT_EQ(weight.meta->sizes, (std::vector<int64_t>{4}));
  EXPECT_TRUE(obj.usePickle);
  EXPECT_FALSE(obj.meta.has_value());
  stride::Result<std::vector<Payload>> bad =
      parsePayloadConfig(R"({"config": {"w": {"path_name": 3}}})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "config.w.path_name: expected a string");
}

} // namespace
