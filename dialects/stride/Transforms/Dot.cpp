//===- Dot.cpp - Stride graphs as Graphviz DOT ----------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A read-only walk of the IR. Every op is a node (a box; views dashed), every
// SSA use an edge from the node that produced the value. A kernel's inputs
// are drawn as edges straight from the outer producer to the op inside the
// kernel that reads them, and a kernel's results as edges from the op that
// computed the yielded value, so the clusters show exactly what each kernel
// reads and writes.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Dot.h"

#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/Strings.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace stride;

namespace {

std::string typeLabel(Type type) {
  auto tensor = dyn_cast<StridedTensorType>(type);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!tensor) {
    os << type;
    return text;
  }
  for (int64_t d : tensor.getShape())
    os << d << "x";
  os << tensor.getElementType();
  Layout layout = tensor.getLayout();
  if (!isRowMajor(layout)) {
    os << "\n" << formatDims(layout.strides);
    if (layout.offset)
      os << " +" << layout.offset;
  }
  return text;
}

std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::isfinite(value) && value == std::floor(value) &&
      std::fabs(value) < 1e15)
    os << static_cast<int64_t>(value);
  else
    os << value;
  return text;
}

/// "slice_scatter\ndim 1 start 0 end 6 step 1".
std::string opLabel(Operation *op) {
  std::string text = op->getName().stripDialect().str();
  if (auto kernel = dyn_cast<KernelOp>(op))
    return text + " " + kernel.getSymName().str();
  std::string attrs;
  llvm::raw_string_ostream os(attrs);
  // The attributes in the order the ops' syntax reads them.
  SmallVector<NamedAttribute> named(op->getAttrs().begin(),
                                    op->getAttrs().end());
  static constexpr StringRef order[] = {"predicate", "value", "dim",  "dims",
                                        "start",     "end",   "step", "index",
                                        "keepdim"};
  auto rank = [](NamedAttribute attr) {
    return llvm::find(order, attr.getName().getValue()) - std::begin(order);
  };
  llvm::stable_sort(named, [&](NamedAttribute a, NamedAttribute b) {
    return rank(a) < rank(b);
  });
  for (NamedAttribute attr : named) {
    StringRef name = attr.getName().getValue();
    Attribute value = attr.getValue();
    os << (attrs.empty() ? "" : " ");
    if (auto cmp = dyn_cast<CmpOp>(op); cmp && name == "predicate")
      os << stringifyCmpPredicate(cmp.getPredicate());
    else if (isa<UnitAttr>(value))
      os << name;
    else if (auto i = dyn_cast<IntegerAttr>(value))
      os << name << " " << i.getInt();
    else if (auto f = dyn_cast<FloatAttr>(value))
      os << formatNumber(f.getValueAsDouble());
    else if (auto dims = dyn_cast<DenseI64ArrayAttr>(value))
      os << name << " " << formatDims(dims.asArrayRef());
    else if (auto s = dyn_cast<StringAttr>(value))
      os << name << " " << s.getValue();
    else
      os << name << " ...";
  }
  return attrs.empty() ? text : text + "\n" + attrs;
}

class DotEmitter {
public:
  explicit DotEmitter(llvm::raw_ostream &os) : os(os) {}

  LogicalResult emitModule(ModuleOp module);

private:
  LogicalResult emitFunction(func::FuncOp func);
  void emitBlock(Block &block, const std::string &indent);
  void emitKernel(KernelOp kernel, const std::string &indent);
  std::string node(Operation *op, const std::string &indent);
  void edge(Value value, const std::string &to);

  llvm::raw_ostream &os;
  std::string prefix; // "f0_"
  unsigned counter = 0;
  unsigned kernelCounter = 0;
  /// The node each value comes from.
  llvm::DenseMap<Value, std::string> source;
  /// A function's edges, written after all its nodes: in DOT, an edge
  /// written inside a cluster would pull both of its nodes into it.
  std::vector<std::string> edges;
};

std::string DotEmitter::node(Operation *op, const std::string &indent) {
  std::string id = prefix + "n" + std::to_string(counter++);
  os << indent << id << " [label=\"" << escapeQuoted(opLabel(op)) << "\"";
  if (isa<ViewOpInterface>(op))
    os << ", style=\"rounded,dashed\"";
  os << "];\n";
  return id;
}

void DotEmitter::edge(Value value, const std::string &to) {
  auto it = source.find(value);
  if (it == source.end())
    return; // defined outside the function (cannot happen in valid IR)
  edges.push_back(it->second + " -> " + to + " [label=\"" +
                  escapeQuoted(typeLabel(value.getType())) + "\"];");
}

void DotEmitter::emitKernel(KernelOp kernel, const std::string &indent) {
  Block &body = kernel.getBodyBlock();
  for (auto [arg, input] : llvm::zip(body.getArguments(), kernel.getInputs()))
    source[arg] = source.lookup(input);
  std::string inner = indent + "  ";
  os << indent << "subgraph cluster_" << prefix << "k" << kernelCounter++
     << " {\n"
     << inner << "label=\"kernel " << escapeQuoted(kernel.getSymName()) << "\";\n"
     << inner << "style=\"rounded,filled\"; fillcolor=\"#eef3fb\";\n";
  emitBlock(body, inner);
  os << indent << "}\n";
  for (auto [result, yielded] :
       llvm::zip(kernel.getResults(), kernel.getYield().getValues()))
    source[result] = source.lookup(yielded);
}

void DotEmitter::emitBlock(Block &block, const std::string &indent) {
  for (Operation &op : block) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      emitKernel(kernel, indent);
      continue;
    }
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue; // yield: the kernel's results; return: below
    std::string id = node(&op, indent);
    for (Value operand : op.getOperands())
      edge(operand, id);
    for (Value result : op.getResults())
      source[result] = id;
  }
}

LogicalResult DotEmitter::emitFunction(func::FuncOp func) {
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError("--emit=dot supports function bodies of one block");
  std::string indent = "    ";
  os << "  subgraph cluster_" << prefix << "func {\n"
     << indent << "label=\"func @" << escapeQuoted(func.getSymName()) << "\";\n"
     << indent << "style=dashed;\n";
  Block &block = func.getBody().front();
  for (BlockArgument arg : block.getArguments()) {
    std::string id = prefix + "arg" + std::to_string(arg.getArgNumber());
    std::string name = "arg " + std::to_string(arg.getArgNumber());
    os << indent << id << " [label=\"" << escapeQuoted(name) << "\", shape=ellipse];\n";
    source[arg] = id;
  }
  emitBlock(block, indent);
  Operation *terminator = block.getTerminator();
  for (OpOperand &operand : terminator->getOpOperands()) {
    std::string id = prefix + "result" + std::to_string(operand.getOperandNumber());
    os << indent << id << " [label=\"result "
       << operand.getOperandNumber() << "\", shape=ellipse];\n";
    edge(operand.get(), id);
  }
  for (const std::string &line : edges)
    os << indent << line << "\n";
  edges.clear();
  os << "  }\n";
  return success();
}

LogicalResult DotEmitter::emitModule(ModuleOp module) {
  os << "digraph \"" << escapeQuoted(module.getSymName().value_or("stride"))
     << "\" {\n"
     << "  graph [fontname=\"Helvetica\", fontsize=11];\n"
     << "  node [shape=box, style=rounded, fontname=\"Helvetica\", "
        "fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  unsigned index = 0;
  for (auto func : module.getOps<func::FuncOp>()) {
    prefix = "f" + std::to_string(index++) + "_";
    counter = kernelCounter = 0;
    if (failed(emitFunction(func)))
      return failure();
  }
  os << "}\n";
  return success();
}

} // namespace

LogicalResult stride::emitDot(ModuleOp module, llvm::raw_ostream &os) {
  // Emit into a buffer first, so a failure writes nothing.
  std::string text;
  llvm::raw_string_ostream buffer(text);
  DotEmitter emitter(buffer);
  if (failed(emitter.emitModule(module)))
    return failure();
  os << text;
  return success();
}
