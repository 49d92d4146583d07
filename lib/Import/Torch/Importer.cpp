//===- Importer.cpp - A torch.export archive into the stride dialect ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Import/Torch/Importer.h"

#include "NodeImporter.h"
#include "SymbolicImport.h"
#include "stride/Import/GraphParser.h"
#include "stride/Import/Torch/Archive.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "stride/Support/Layout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <cstring>
#include <set>

using namespace mlir;

namespace stride::torch {

bool isTorchArchive(std::string_view bytes, std::string_view path) {
  return looksLikeZip(bytes) || llvm::StringRef(path).ends_with(".pt2");
}

namespace {

/// A graph input that holds a parameter, buffer or constant.
struct Weight {
  std::string name;   // "fc1.weight"
  std::string kind;   // "parameter", "buffer", "tensor_constant"
  const Payload *payload = nullptr;
  std::string entryDir;
};

/// "File "/home/u/model.py", line 12, in forward": the innermost frame
/// outside torch/ (the user's code), else the innermost frame.
std::optional<std::pair<std::string, unsigned>>
userFrame(llvm::StringRef stackTrace) {
  static const llvm::Regex frame(R"re(File "([^"]+)", line ([0-9]+))re");
  std::optional<std::pair<std::string, unsigned>> user, any;
  llvm::SmallVector<llvm::StringRef> lines;
  stackTrace.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef, 3> match;
    if (!frame.match(line, &match))
      continue;
    unsigned number = 0;
    if (match[2].getAsInteger(10, number))
      continue;
    any = {match[1].str(), number};
    bool inTorch = match[1].contains("/torch/") ||
                   match[1].starts_with("torch/") ||
                   match[1].starts_with("<");
    if (!inTorch)
      user = any;
  }
  return user ? user : any;
}

class ProgramImporter {
public:
  ProgramImporter(MLIRContext *context, std::string archiveName,
                  const ImportOptions &options)
      : context(context), archiveName(std::move(archiveName)),
        options(options), builder(context),
        fileLoc(FileLineColLoc::get(context, this->archiveName, 0, 0)) {}

  OwningOpRef<ModuleOp> run(std::string bytes);

private:
  InFlightDiagnostic fail() { return emitError(fileLoc); }
  LogicalResult loadArchive(std::string bytes);
  LogicalResult loadPayloads(const std::optional<std::string> &entry,
                             const std::string &dir);
  LogicalResult checkSupported();
  Location nodeLocation(const Node &node);
  FailureOr<StridedTensorType> typeOf(const std::string &name, Location loc);
  LogicalResult buildSignature(func::FuncOp &func);
  LogicalResult materializeWeights(func::FuncOp func);
  FailureOr<DenseElementsAttr> elementsOf(const Weight &weight,
                                          StridedTensorType type, Location loc);
  Weight weightOf(const InputSpec &spec);
  LogicalResult importNode(const Node &node);
  /// Whether a tensor the node reads or writes has symbolic sizes.
  bool hasSymbolicSizes(const Node &node);
  /// `node` with each SymInt it names (Argument::symbols) whose value an
  /// earlier node computed as a constant replaced by it; a symbolic one
  /// stays named (NodeImporter::size reads it).
  FailureOr<Node> withSymbolsResolved(const Node &node, Location loc);
  FailureOr<std::vector<const OutputSpec *>> outputSpecs();
  FailureOr<Value> writtenValue(Value value, func::FuncOp func,
                                const OutputSpec &spec, unsigned &argument);
  LogicalResult buildReturn(func::FuncOp func);

  MLIRContext *context;
  std::string archiveName;
  const ImportOptions &options;
  OpBuilder builder;
  Location fileLoc;

  std::optional<Pt2Archive> archive;
  ExportedProgram program;
  std::vector<Payload> payloads;
  std::map<std::string, std::string> payloadDirs; // payload name -> dir
  llvm::StringMap<Value> values;
  /// The SymInts and SymBools nodes compute (sym_size, operator.mul, ...).
  SymbolicScalars scalars;
  /// The location of the node that defines each value, by name.
  llvm::StringMap<Location> nodeLocs;
  /// Graph inputs that are weights, materialized as constants.
  std::vector<std::pair<std::string, Weight>> constantInputs;
  /// Graph inputs that are buffers the program mutates: each becomes a
  /// state argument (by index) initialized with the buffer's value.
  std::vector<std::pair<unsigned, Weight>> stateInputs;
};

LogicalResult ProgramImporter::loadPayloads(
    const std::optional<std::string> &entry, const std::string &dir) {
  if (!entry)
    return success();
  Result<std::string> text = archive->read(*entry);
  if (!text)
    return fail() << text.error().message;
  Result<std::vector<Payload>> parsed = parsePayloadConfig(*text);
  if (!parsed)
    return fail() << *entry << ": " << parsed.error().message;
  for (Payload &p : *parsed) {
    if (p.usePickle)
      return fail() << *entry << ": '" << p.name
                    << "' is stored pickled (a tensor subclass or custom "
                       "object); Stride reads weights stored as raw bytes";
    payloadDirs[p.name] = dir;
    payloads.push_back(std::move(p));
  }
  return success();
}

LogicalResult ProgramImporter::loadArchive(std::string bytes) {
  Result<Pt2Archive> opened = Pt2Archive::open(std::move(bytes));
  if (!opened)
    return fail() << opened.error().message;
  archive.emplace(std::move(*opened));
  Result<std::string> json = archive->read(archive->modelEntry());
  if (!json)
    return fail() << json.error().message;
  Result<ExportedProgram> parsed = parseExportedProgram(*json);
  if (!parsed)
    return fail() << archive->modelEntry() << ": " << parsed.error().message;
  program = std::move(*parsed);
  if (failed(loadPayloads(archive->weightsConfigEntry(), archive->weightsDir())) ||
      failed(loadPayloads(archive->constantsConfigEntry(),
                          archive->constantsDir())))
    return failure();
  return success();
}

LogicalResult ProgramImporter::checkSupported() {
  std::map<std::string, int> unsupported;
  for (const Node &node : program.nodes)
    if (!lookupOp(node.target))
      ++unsupported[node.target];
  if (unsupported.empty())
    return success();
  std::string list;
  for (const auto &[target, count] : unsupported)
    list += (list.empty() ? "" : ", ") + target + " (" +
            std::to_string(count) + ")";
  return fail() << "the program uses " << unsupported.size()
                << " op(s) Stride does not import: " << list;
}

Location ProgramImporter::nodeLocation(const Node &node) {
  Location frame = fileLoc;
  if (auto user = userFrame(node.stackTrace))
    frame = FileLineColLoc::get(context, user->first, user->second, 0);
  return NameLoc::get(StringAttr::get(context, node.name), frame);
}

FailureOr<StridedTensorType> ProgramImporter::typeOf(const std::string &name,
                                                     Location loc) {
  auto it = program.tensorValues.find(name);
  if (it == program.tensorValues.end())
    return emitError(loc) << "value '" << name
                          << "' has no entry in graph_module.graph.tensor_values";
  const TensorMeta &meta = it->second;
  std::optional<DType> dtype = dtypeOfScalarType(meta.dtype);
  if (!dtype)
    return emitError(loc) << "value '" << name << "' has dtype "
                          << scalarTypeName(meta.dtype)
                          << ", which Stride lacks (it has float16, bfloat16, "
                             "float32, float64, bool, int8, int32, int64)";
  if (meta.symbolic)
    return symbolicTypeOf(name, meta, elementTypeOf(*dtype, context), program,
                          loc);
  // getChecked reports a bad layout (a negative size, say) and returns a
  // null type.
  StridedTensorType type = StridedTensorType::getChecked(
      [&] { return emitError(loc) << "value '" << name << "': "; }, context,
      llvm::ArrayRef<int64_t>(meta.sizes), elementTypeOf(*dtype, context),
      llvm::ArrayRef<int64_t>(meta.strides), meta.storageOffset);
  if (!type)
    return failure();
  return type;
}

Weight ProgramImporter::weightOf(const InputSpec &spec) {
  Weight weight{spec.target, spec.key, nullptr, ""};
  for (const Payload &p : payloads)
    if (p.name == spec.target)
      weight.payload = &p, weight.entryDir = payloadDirs[p.name];
  return weight;
}

LogicalResult ProgramImporter::buildSignature(func::FuncOp &func) {
  std::map<std::string, const InputSpec *> specs;
  for (const InputSpec &spec : program.inputSpecs)
    if (!spec.arg.empty())
      specs[spec.arg] = &spec;
  std::set<std::string> mutatedBuffers;
  for (const OutputSpec &spec : program.outputSpecs)
    if (spec.kind == OutputSpec::Kind::BufferMutation)
      mutatedBuffers.insert(spec.target);
  // The symbols first: a type's expressions name them.
  FailureOr<ArrayAttr> symbols = symbolsOf(program, context, fileLoc);
  if (failed(symbols))
    return failure();
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames, argValues;
  for (const std::string &input : program.inputs) {
    auto it = specs.find(input);
    if (it == specs.end())
      return fail() << "graph input '" << input
                    << "' has no input spec in graph_module.signature";
    const InputSpec &spec = *it->second;
    if (spec.kind == InputSpec::Kind::Other)
      return fail() << "graph input '" << input << "' is a '" << spec.key
                    << "' input, which Stride does not import";
    FailureOr<StridedTensorType> type = typeOf(input, fileLoc);
    if (failed(type))
      return failure();
    bool isWeight = spec.kind != InputSpec::Kind::UserInput;
    // A mutated buffer is state: an argument initialized with the buffer's
    // value (zeros when the archive does not store it).
    bool isState = spec.kind == InputSpec::Kind::Buffer &&
                   mutatedBuffers.count(spec.target);
    if (isState) {
      stateInputs.emplace_back(argTypes.size(), weightOf(spec));
    } else if (isWeight && !options.weightsAsInputs) {
      Weight weight = weightOf(spec);
      if (!weight.payload)
        return fail() << "the " << spec.key << " '" << spec.target
                      << "' (graph input '" << input
                      << "') is not in the archive's weights or constants";
      constantInputs.emplace_back(input, weight);
      continue;
    }
    argTypes.push_back(*type);
    argNames.push_back(isWeight ? spec.target : input);
    argValues.push_back(input);
  }
  func = func::FuncOp::create(builder, fileLoc, "forward",
                              builder.getFunctionType(argTypes, {}));
  if (*symbols)
    func->setAttr(StrideDialect::kSymbolsAttrName, *symbols);
  scalars.ranges = declaredSymbols(func);
  Block *entry = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, StrideDialect::kNameAttrName,
                    builder.getStringAttr(name));
    values[argValues[i]] = entry->getArgument(i);
  }
  builder.setInsertionPointToEnd(entry);
  return success();
}

/// The tensor's elements in row-major order, gathered from its storage
/// bytes through its layout.
FailureOr<std::vector<char>> gatherElements(const std::string &storage,
                                            const Layout &layout,
                                            size_t elementSize,
                                            const std::function<InFlightDiagnostic()> &error) {
  std::optional<int64_t> extent = storageExtent(layout);
  std::optional<int64_t> count = checkedNumElements(layout.shape);
  if (!extent || !count)
    return error() << "its layout overflows";
  if (static_cast<uint64_t>(*extent) * elementSize > storage.size())
    return error() << "its storage holds " << storage.size()
                   << " bytes, its layout reaches "
                   << static_cast<uint64_t>(*extent) * elementSize;
  std::vector<char> out(static_cast<size_t>(*count) * elementSize);
  std::vector<int64_t> index(layout.rank(), 0);
  for (int64_t i = 0; i < *count; ++i) {
    int64_t address = layout.offset;
    for (int64_t d = 0; d < layout.rank(); ++d)
      address += index[d] * layout.strides[d];
    std::memcpy(out.data() + i * elementSize,
                storage.data() + address * elementSize, elementSize);
    for (int64_t d = layout.rank() - 1; d >= 0; --d) {
      if (++index[d] < layout.shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

/// The weight's elements in row-major order, gathered from its storage in
/// the archive; zeros for a state buffer the archive does not store.
FailureOr<DenseElementsAttr> ProgramImporter::elementsOf(const Weight &weight,
                                                         StridedTensorType type,
                                                         Location loc) {
  auto tensorType = RankedTensorType::get(type.getShape(), type.getElementType());
  if (!weight.payload)
    return DenseElementsAttr::get(
        tensorType, builder.getZeroAttr(type.getElementType()));
  auto error = [&] {
    return emitError(loc) << "the " << weight.kind << " '" << weight.name
                          << "': ";
  };
  const Payload &payload = *weight.payload;
  Result<std::string> storage = archive->read(weight.entryDir + payload.pathName);
  if (!storage)
    return emitError(loc) << storage.error().message;
  Layout layout = type.getLayout();
  if (payload.meta) {
    if (payload.meta->symbolic)
      return error() << "a symbolic size in the weights config";
    if (dtypeOfScalarType(payload.meta->dtype) != type.getDType() ||
        payload.meta->sizes != layout.shape)
      return error() << "the weights config's dtype or sizes differ from "
                        "the graph's";
    layout.strides = payload.meta->strides;
    layout.offset = payload.meta->storageOffset;
  }
  size_t elementSize = dtypeSize(type.getDType());
  FailureOr<std::vector<char>> elements =
      gatherElements(*storage, layout, elementSize, error);
  if (failed(elements))
    return failure();
  if (type.getDType() == DType::I1) {
    SmallVector<bool> bits;
    for (char c : *elements)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(tensorType, bits);
  }
  // All zeros (a fresh KV cache): a splat, not megabytes of zeros.
  if (llvm::all_of(*elements, [](char c) { return c == 0; }))
    return DenseElementsAttr::get(
        tensorType, builder.getZeroAttr(type.getElementType()));
  return DenseElementsAttr::getFromRawBuffer(tensorType, *elements);
}

LogicalResult ProgramImporter::materializeWeights(func::FuncOp func) {
  for (const auto &[input, weight] : constantInputs) {
    Location loc = NameLoc::get(StringAttr::get(context, weight.name), fileLoc);
    FailureOr<StridedTensorType> type = typeOf(input, loc);
    FailureOr<DenseElementsAttr> data =
        succeeded(type) ? elementsOf(weight, *type, loc) : Fail();
    if (failed(data))
      return failure();
    StridedTensorType rowMajor = StridedTensorType::getContiguous(
        type->getShape(), type->getElementType());
    values[input] = ConstantOp::create(builder, loc, rowMajor, *data);
  }
  for (const auto &[argument, weight] : stateInputs) {
    Location loc = NameLoc::get(StringAttr::get(context, weight.name), fileLoc);
    auto type = cast<StridedTensorType>(func.getArgumentTypes()[argument]);
    FailureOr<DenseElementsAttr> init = elementsOf(weight, type, loc);
    if (failed(init))
      return failure();
    func.setArgAttr(argument, StrideDialect::kStateAttrName, *init);
  }
  return success();
}

FailureOr<Node> ProgramImporter::withSymbolsResolved(const Node &node,
                                                     Location loc) {
  Node resolved = node;
  for (NamedArgument &input : resolved.inputs) {
    Argument &arg = input.arg;
    for (size_t i = 0; i < arg.symbols.size(); ++i) {
      if (arg.symbols[i].empty())
        continue;
      auto it = scalars.ints.find(arg.symbols[i]);
      if (it == scalars.ints.end())
        return emitError(loc)
               << "argument '" << input.name << "' is the symbolic integer '"
               << arg.symbols[i] << "', which no earlier node computes";
      if (std::optional<int64_t> constant = it->second.getConstant()) {
        arg.ints[i] = *constant;
        arg.symbols[i].clear();
      }
    }
    if (llvm::all_of(arg.symbols,
                     [](const std::string &s) { return s.empty(); }))
      arg.symbols.clear();
  }
  return resolved;
}

bool ProgramImporter::hasSymbolicSizes(const Node &node) {
  for (const Argument &out : node.outputs)
    for (const std::string &name : out.names) {
      auto it = program.tensorValues.find(name);
      if (it != program.tensorValues.end() && it->second.symbolic)
        return true;
    }
  for (const NamedArgument &input : node.inputs)
    for (const std::string &name : input.arg.names) {
      auto type = values.count(name)
                      ? dyn_cast<StridedTensorType>(values[name].getType())
                      : StridedTensorType();
      if (type && type.isSymbolic())
        return true;
    }
  return false;
}

LogicalResult ProgramImporter::importNode(const Node &original) {
  Location loc = nodeLocation(original);
  // A node of symbolic sizes: only the builders that build symbolic types
  // (importsSymbolicSizes).
  bool symbolic = hasSymbolicSizes(original);
  if (symbolic && !importsSymbolicSizes(original.target))
    return emitError(loc)
           << original.target
           << " over symbolic sizes is not imported yet: Stride imports "
              "symbolic sizes through the ops of an MLP and a transformer "
              "so far (python-free-docs/symbolic-sizes.md, issue 44)";
  FailureOr<Node> resolvedNode = withSymbolsResolved(original, loc);
  if (failed(resolvedNode))
    return failure();
  const Node &node = *resolvedNode;
  // One name per output, in the schema's order; "" for an output that is
  // None or not a tensor (a SymInt).
  std::vector<std::string> outputNames;
  for (const Argument &out : node.outputs)
    if (out.kind == Argument::Kind::Tensor || out.kind == Argument::Kind::Tensors)
      outputNames.insert(outputNames.end(), out.names.begin(), out.names.end());
    else
      outputNames.push_back("");
  // Every op the table maps has tensor outputs, each named (a builder reads
  // the type of each), but _assert_tensor_metadata, which has none, and the
  // ops whose builders pass absent outputs over (fused attention's).
  bool checksOnly = hasNoOutputs(node.target);
  bool absentAllowed = acceptsAbsentOutputs(node.target);
  if (!checksOnly &&
      (outputNames.empty() ||
       (!absentAllowed && llvm::is_contained(outputNames, ""))))
    return emitError(loc) << node.path << ": " << node.target
                          << " needs a named tensor for each output";
  std::vector<StridedTensorType> types;
  for (const std::string &name : outputNames) {
    FailureOr<StridedTensorType> type =
        name.empty() ? StridedTensorType() : typeOf(name, loc);
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  NodeImporter importer(node, builder, loc, values, types, scalars);
  importer.setWorldSize(options.worldSize);
  if (failed((*lookupOp(node.target))(importer)))
    return failure();
  for (auto [i, name] : llvm::enumerate(outputNames)) {
    if (name.empty())
      continue;
    Value v = importer.output(i);
    if (!v)
      return emitError(loc) << "output '" << name << "' of " << node.target
                            << " is not produced by the importer";
    values[name] = v;
    nodeLocs.try_emplace(name, loc);
  }
  // SymInt and SymBool outputs (sym_size, operator.mul, operator.ge).
  for (auto [i, out] : llvm::enumerate(node.outputs)) {
    if (out.names.empty())
      continue;
    if (const SizeExpr *v = importer.symbolicOutput(i);
        v && out.key == "as_sym_int")
      scalars.ints[out.names[0]] = *v;
    if (auto v = importer.symbolicBoolOutput(i); v && out.key == "as_sym_bool")
      scalars.bools[out.names[0]] = *v;
  }
  return success();
}

/// The output spec of each graph output, in order: the signature's, or
/// none (every output a user output) when an archive written by hand has no
/// output specs.
FailureOr<std::vector<const OutputSpec *>> ProgramImporter::outputSpecs() {
  std::vector<const OutputSpec *> specs(program.outputs.size(), nullptr);
  if (program.outputSpecs.empty())
    return specs;
  if (program.outputSpecs.size() != program.outputs.size())
    return fail() << "graph_module.signature.output_specs has "
                  << program.outputSpecs.size() << " entries for "
                  << program.outputs.size() << " graph outputs";
  for (auto [i, spec] : llvm::enumerate(program.outputSpecs)) {
    if (spec.kind == OutputSpec::Kind::Other)
      return fail() << "graph output '" << spec.arg << "' is a '" << spec.key
                    << "' output; Stride imports user outputs, loss outputs, "
                       "buffer mutations and user input mutations";
    specs[i] = &spec;
  }
  return specs;
}

/// The value that a mutation output writes into its argument (returned as
/// `argument`), in the argument's layout.
FailureOr<Value> ProgramImporter::writtenValue(Value value, func::FuncOp func,
                                               const OutputSpec &spec,
                                               unsigned &argument) {
  bool buffer = spec.kind == OutputSpec::Kind::BufferMutation;
  std::string target = spec.target;
  if (!buffer) {
    // A user input is named by its FX name, which is its argument's name.
    auto input = llvm::find_if(program.inputSpecs, [&](const InputSpec &in) {
      return in.kind == InputSpec::Kind::UserInput && in.arg == spec.target;
    });
    if (input == program.inputSpecs.end())
      return fail() << "graph output '" << spec.arg << "' mutates '"
                    << spec.target << "', which is not a user input";
  }
  std::optional<unsigned> found;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (argumentName(func, i) == target &&
        (!buffer || func.getArgAttr(i, StrideDialect::kStateAttrName)))
      found = i;
  if (!found)
    return fail() << "graph output '" << spec.arg << "' mutates "
                  << (buffer ? "buffer" : "input") << " '" << target
                  << "', which no graph input of that kind holds";
  argument = *found;
  auto argType = cast<StridedTensorType>(func.getArgumentTypes()[argument]);
  auto type = cast<StridedTensorType>(value.getType());
  if (type.getShape() != argType.getShape() ||
      type.getDType() != argType.getDType())
    return fail() << "graph output '" << spec.arg << "' of type " << type
                  << " mutates '" << target << "' of type " << argType;
  if (type == argType)
    return value;
  // The new value in the storage's own layout, located at the node that
  // computes it: the node that writes.
  auto node = nodeLocs.find(spec.arg);
  Location loc = node == nodeLocs.end() ? value.getLoc() : node->second;
  return CloneOp::create(builder, loc, argType, value).getResult();
}

LogicalResult ProgramImporter::buildReturn(func::FuncOp func) {
  FailureOr<std::vector<const OutputSpec *>> specs = outputSpecs();
  if (failed(specs))
    return failure();
  SmallVector<Value> results;
  SmallVector<std::string> names;
  SmallVector<int64_t> absent;
  SmallVector<std::optional<unsigned>> writes;
  for (size_t position = 0; position < program.outputs.size(); ++position) {
    const Argument &out = program.outputs[position];
    const OutputSpec *spec = (*specs)[position];
    // A backward graph's gradient of an input that needs none.
    if (out.kind == Argument::Kind::None) {
      absent.push_back(static_cast<int64_t>(position));
      continue;
    }
    if (out.kind != Argument::Kind::Tensor)
      return fail() << "a graph output of kind '" << out.key
                    << "'; Stride returns tensors and None only";
    auto it = values.find(out.names[0]);
    if (it == values.end())
      return fail() << "graph output '" << out.names[0]
                    << "' is not defined by any node or input";
    Value value = it->second;
    std::optional<unsigned> written;
    if (spec && (spec->kind == OutputSpec::Kind::BufferMutation ||
                 spec->kind == OutputSpec::Kind::UserInputMutation)) {
      unsigned argument = 0;
      FailureOr<Value> conformed = writtenValue(value, func, *spec, argument);
      if (failed(conformed))
        return failure();
      value = *conformed;
      written = argument;
    }
    results.push_back(value);
    names.push_back(out.names[0]);
    writes.push_back(written);
  }
  func::ReturnOp::create(builder, fileLoc, results);
  func.setFunctionType(builder.getFunctionType(
      func.getArgumentTypes(), ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(names)) {
    func.setResultAttr(i, StrideDialect::kNameAttrName,
                       builder.getStringAttr(name));
    if (writes[i])
      func.setResultAttr(i, StrideDialect::kWritesAttrName,
                         builder.getStringAttr(argumentName(func, *writes[i])));
  }
  if (!absent.empty())
    func->setAttr(StrideDialect::kAbsentOutputsAttrName,
                  builder.getDenseI64ArrayAttr(absent));
  return success();
}

OwningOpRef<ModuleOp> ProgramImporter::run(std::string bytes) {
  if (failed(loadArchive(std::move(bytes))) || failed(checkSupported()))
    return {};
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  func::FuncOp func;
  if (failed(buildSignature(func)) || failed(materializeWeights(func)))
    return {};
  for (const Node &node : program.nodes)
    if (failed(importNode(node)))
      return {};
  if (failed(buildReturn(func)) || failed(verify(*module)))
    return {};
  return module;
}

} // namespace

OwningOpRef<ModuleOp> importArchive(std::string bytes,
                                    const std::string &archiveName,
                                    MLIRContext *context,
                                    const ImportOptions &options) {
  ProgramImporter importer(context, archiveName, options);
  return importer.run(std::move(bytes));
}

} // namespace stride::torch
