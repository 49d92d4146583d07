//===- GraphBuilder.cpp - Text of one-op random graphs --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

namespace stride::test {

GraphValue GraphBuilder::argument(const Dims &shape, const std::string &dtype) {
  GraphValue v{"%arg" + std::to_string(arguments.size()), shape,
               rowMajor(shape), 0, dtype};
  arguments.push_back(v.name + ": " + type(v));
  return v;
}

GraphValue GraphBuilder::view(const GraphValue &from, const std::string &op,
                              const std::string &attributes, Dims shape,
                              Dims strides, int64_t offset) {
  GraphValue v{"%v" + std::to_string(values++), std::move(shape),
               std::move(strides), offset, from.dtype};
  body += "  " + v.name + " = stride." + op + " " + from.name + attributes +
          " : " + type(from) + " -> " + type(v) + "\n";
  return v;
}

GraphValue GraphBuilder::pointwise(const std::string &op,
                                   const std::vector<GraphValue> &operands,
                                   const Dims &shape) {
  GraphValue v{"%v" + std::to_string(values++), shape, rowMajor(shape), 0,
               operands.front().dtype};
  std::string names, types;
  for (const GraphValue &operand : operands) {
    names += (names.empty() ? "" : ", ") + operand.name;
    types += (types.empty() ? "" : ", ") + type(operand);
  }
  body += "  " + v.name + " = stride." + op + " " + names + " : " + types +
          " -> " + type(v) + "\n";
  return v;
}

std::string GraphBuilder::function(const std::vector<GraphValue> &results) const {
  std::string signature, names, types;
  for (size_t i = 0; i < arguments.size(); ++i)
    signature += (i ? ", " : "") + arguments[i];
  for (size_t i = 0; i < results.size(); ++i) {
    names += (i ? ", " : "") + results[i].name;
    types += (i ? ", " : "") + type(results[i]);
  }
  std::string resultTypes = results.size() == 1 ? types : "(" + types + ")";
  return "func.func @graph(" + signature + ") -> " + resultTypes + " {\n" +
         body + "  return " + names + " : " + types + "\n}\n";
}

} // namespace stride::test
