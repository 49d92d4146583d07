//===- Describe.cpp - A .pt2 archive's signature, for a person ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Import/Torch/Importer.h"

#include "NodeImporter.h"
#include "stride/Import/Torch/Archive.h"
#include "stride/Support/Layout.h"

#include <map>
#include <sstream>

namespace stride::torch {

namespace {

/// "[s0, 64]": each entry's expression as the archive writes it, or its
/// value.
std::string formatEntries(const std::vector<int64_t> &values,
                          const std::vector<std::string> &exprs) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    bool symbolic = i < exprs.size() && !exprs[i].empty();
    text += (i ? ", " : "") +
            (symbolic ? exprs[i] : std::to_string(values[i]));
  }
  return text + "]";
}

std::string describeMeta(const TensorMeta &meta) {
  std::optional<DType> dtype = dtypeOfScalarType(meta.dtype);
  std::string text = dtype ? std::string(dtypeName(*dtype))
                           : scalarTypeName(meta.dtype);
  std::string offset = !meta.offsetExpr.empty() ? meta.offsetExpr
                       : meta.storageOffset
                           ? std::to_string(meta.storageOffset)
                           : "";
  return text + " " + formatEntries(meta.sizes, meta.sizeExprs) +
         " strides " + formatEntries(meta.strides, meta.strideExprs) +
         (offset.empty() ? "" : " offset " + offset);
}

/// "  s0: 1 to 1024": the program's symbols and their ranges (nothing for
/// a static program).
std::string describeSymbols(const ExportedProgram &program) {
  std::string text;
  for (const auto &[name, range] : program.rangeConstraints)
    text += "  " + name + ": " +
            (range.min ? std::to_string(*range.min) : "unbounded") + " to " +
            (range.max ? std::to_string(*range.max) : "unbounded") + "\n";
  return text.empty() ? "" : "symbols (range_constraints):\n" + text;
}

std::string metaOf(const ExportedProgram &program, const std::string &name) {
  auto it = program.tensorValues.find(name);
  return it == program.tensorValues.end() ? "(no tensor_values entry)"
                                          : describeMeta(it->second);
}

} // namespace

Result<std::string> describeArchive(std::string bytes) {
  Result<Pt2Archive> archive = Pt2Archive::open(std::move(bytes));
  if (!archive)
    return archive.error();
  Result<std::string> json = archive->read(archive->modelEntry());
  if (!json)
    return json.error();
  Result<ExportedProgram> program = parseExportedProgram(*json);
  if (!program)
    return makeError(ErrorCode::InvalidArgument,
                     archive->modelEntry() + ": " + program.error().message);
  std::map<std::string, std::string> stored; // weight name -> entry
  for (const std::optional<std::string> &config :
       {archive->weightsConfigEntry(), archive->constantsConfigEntry()}) {
    if (!config)
      continue;
    Result<std::string> text = archive->read(*config);
    Result<std::vector<Payload>> payloads =
        text ? parsePayloadConfig(*text) : Result<std::vector<Payload>>(text.error());
    if (!payloads)
      return makeError(ErrorCode::InvalidArgument,
                       *config + ": " + payloads.error().message);
    for (const Payload &p : *payloads)
      stored[p.name] = (config == archive->weightsConfigEntry()
                            ? archive->weightsDir()
                            : archive->constantsDir()) +
                       p.pathName + (p.usePickle ? " (pickled)" : "");
  }
  std::ostringstream os;
  os << "model: " << archive->modelEntry() << " (schema " << program->major
     << "." << program->minor << ", torch " << program->torchVersion << ")\n"
     << "nodes: " << program->nodes.size() << "\n"
     << describeSymbols(*program);
  std::ostringstream inputs, weights;
  for (const InputSpec &spec : program->inputSpecs) {
    if (spec.kind == InputSpec::Kind::UserInput) {
      inputs << "  " << spec.arg << ": " << metaOf(*program, spec.arg) << "\n";
      continue;
    }
    weights << "  " << (spec.target.empty() ? spec.arg : spec.target) << ": "
            << spec.key;
    if (!spec.target.empty())
      weights << " " << metaOf(*program, spec.arg) << ", "
              << (stored.count(spec.target) ? stored[spec.target]
                                            : "not stored in the archive");
    weights << "\n";
  }
  os << "inputs:\n" << inputs.str();
  std::string weightList = weights.str();
  os << "weights (module constants; graph inputs with --weights-as-inputs):\n"
     << (weightList.empty() ? "  (none)\n" : weightList);
  os << "outputs:\n";
  for (const OutputSpec &spec : program->outputSpecs)
    os << "  "
       << (spec.arg.empty()
               ? "None: " + spec.key
               : spec.arg + ": " + spec.key +
                     (spec.target.empty() ? "" : " of '" + spec.target + "'") +
                     " " + metaOf(*program, spec.arg))
       << "\n";
  return os.str();
}

} // namespace stride::torch
