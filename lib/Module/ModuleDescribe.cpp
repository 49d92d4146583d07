//===- ModuleDescribe.cpp - Describe modules in words ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The readable side of a module: describeModule's dump (stride-run
// --inspect), the one-line summaries of steps and memory, and
// describeTensor, which the verifier's messages use too.
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "ModuleInternal.h"

#include "stride/Support/Layout.h"

#include <sstream>

namespace stride {

using detail::str;

namespace {

//===----------------------------------------------------------------------===//
// describeModule helpers
//===----------------------------------------------------------------------===//

/// "1 input", "2 inputs".
std::string counted(size_t n, const std::string &noun) {
  return str(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string counted(size_t n, const std::string &noun,
                    const std::string &plural) {
  return str(n) + " " + (n == 1 ? noun : plural);
}

std::string formatDim3(const Dim3 &d) {
  // Appending (rather than "(" + str(...)) avoids a GCC 12 -Wrestrict false
  // positive.
  std::string s = "(";
  s += str(d.x);
  s += ", ";
  s += str(d.y);
  s += ", ";
  s += str(d.z);
  return s + ")";
}

std::string formatDouble(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string describeArg(const KernelArg &a) {
  switch (a.kind) {
  case KernelArg::Kind::Buffer:
    return "buffer " + str(a.bufferIndex);
  case KernelArg::Kind::I32:
    return "i32 " + str(a.intValue);
  case KernelArg::Kind::I64:
    return "i64 " + str(a.intValue);
  case KernelArg::Kind::F32:
    return "f32 " + formatDouble(a.floatValue);
  case KernelArg::Kind::F64:
    return "f64 " + formatDouble(a.floatValue);
  case KernelArg::Kind::Symbol:
    return "symbol " + str(a.bufferIndex);
  }
  return "?";
}

const char *codeKindName(CodeKind k) {
  switch (k) {
  case CodeKind::Cubin:
    return "CUBIN";
  case CodeKind::Ptx:
    return "PTX";
  }
  return "unknown";
}

/// Name of what a buffer holds, when the index is valid.
std::string bufferRole(const ModuleDesc &desc, const BufferDesc &b) {
  auto named = [&](const std::vector<TensorSignature> &list, const char *kind) {
    std::string s = std::string(kind) + " " + str(b.index);
    if (b.index >= 0 && size_t(b.index) < list.size())
      s += " '" + list[b.index].name + "'";
    return s;
  };
  switch (b.kind) {
  case BufferKind::Input:
    return named(desc.signature.inputs, "input");
  case BufferKind::Output:
    return named(desc.signature.outputs, "output");
  case BufferKind::Temp:
    return b.zeroed ? "temporary, zeroed" : "temporary";
  case BufferKind::Constant:
    return "constant " + str(b.index);
  case BufferKind::State: {
    std::string role = "state " + str(b.index);
    if (b.index >= 0 && size_t(b.index) < desc.states.size())
      role += " '" + desc.states[b.index].tensor.name + "'";
    return role;
  }
  }
  return "unknown kind";
}

} // namespace

std::string describeTensor(const TensorSignature &t) {
  std::string text = std::string(dtypeName(t.dtype)) + " " +
                     formatDims(t.shape) + " strides " + formatDims(t.strides) +
                     " offset " + str(t.storageOffset);
  if (t.symbolic)
    text += " (at the largest sizes of " + formatSizes(t.symbolic->shape) +
            " strides " + formatSizes(t.symbolic->strides) + " offset " +
            t.symbolic->offset.str() + ")";
  return text;
}

namespace {
void describeExecutables(std::ostream &os, const ModuleDesc &desc) {
  os << "executables: " << desc.executables.size() << "\n";
  for (size_t e = 0; e < desc.executables.size(); ++e) {
    const ExecutableDesc &exe = desc.executables[e];
    os << "  executable " << e << ": " << codeKindName(exe.image.kind) << ", "
       << exe.image.bytes.size() << " bytes, "
       << counted(exe.kernels.size(), "kernel") << "\n";
    for (size_t i = 0; i < exe.kernels.size(); ++i) {
      os << "    kernel " << i << " '" << exe.kernels[i].name << "'";
      if (!exe.kernels[i].description.empty())
        os << ": " << exe.kernels[i].description;
      os << "\n";
    }
  }
}

/// " at data offset 8192" for an entry of the data section that has bytes.
std::string dataOffset(uint64_t size, uint64_t offset) {
  return size == 0 ? std::string()
                   : " at data offset " + str(int64_t(offset));
}

/// Where the file's parts lie: the FlatBuffer, then the data section.
void describeFileLayout(std::ostream &os, const ModuleFileLayout &layout) {
  os << "file: " << layout.fileBytes() << " bytes: the FlatBuffer, "
     << layout.flatBufferBytes << " bytes, then the data section, "
     << layout.dataSectionBytes << " bytes from file offset "
     << layout.dataSectionOffset << "\n";
}

/// Constants are summarized: layout, size and place, never the data.
void describeConstants(std::ostream &os, const ModuleDesc &desc,
                       const ModuleFileLayout &layout) {
  uint64_t bytes = 0;
  for (const ConstantDesc &c : desc.constants)
    bytes += c.data.size();
  os << "constants: " << desc.constants.size() << " (" << bytes
     << " bytes)\n";
  for (size_t i = 0; i < desc.constants.size(); ++i) {
    const ConstantDesc &c = desc.constants[i];
    os << "  constant " << i << ": "
       << describeTensor({"", c.dtype, c.shape, c.strides, 0}) << ", "
       << c.data.size() << " bytes"
       << dataOffset(c.data.size(), layout.constantOffsets[i]) << "\n";
  }
}

/// The persistent buffers, with where their first values come from.
void describeStates(std::ostream &os, const ModuleDesc &desc,
                    const ModuleFileLayout &layout) {
  if (desc.states.empty())
    return;
  os << "states: " << desc.states.size()
     << " (persistent across runs, owned by each invocation, updated in "
        "place)\n";
  for (size_t i = 0; i < desc.states.size(); ++i) {
    const StateDesc &s = desc.states[i];
    os << "  state " << i << " '" << s.tensor.name
       << "': " << describeTensor(s.tensor) << ", initially "
       << (s.init.empty() ? "zeros"
                          : "the module's " + str(int64_t(s.init.size())) +
                                " bytes" +
                                dataOffset(s.init.size(),
                                           layout.stateOffsets[i]))
       << "\n";
  }
}

/// " when tokens in [1, 1]", " unless batch in [1, 1] and tokens in
/// [1, 1]"; nothing for a step that runs always.
void describeGuard(std::ostream &os, const ModuleDesc &desc,
                   const StepGuard &guard) {
  if (guard.empty())
    return;
  bool when = !guard.when.empty();
  os << (when ? " when " : " unless ");
  const std::vector<SymbolBound> &bounds = when ? guard.when : guard.unless;
  for (size_t k = 0; k < bounds.size(); ++k) {
    const SymbolBound &b = bounds[k];
    os << (k ? " and " : "")
       << (b.symbol < desc.symbols.size() ? desc.symbols[b.symbol].name
                                          : "<symbol " + str(b.symbol) + ">")
       << " in [" << b.min << ", " << b.max << "]";
  }
}

void describeStep(std::ostream &os, const ModuleDesc &desc,
                  const DispatchStep &d) {
  os << "dispatch kernel " << d.kernel;
  if (d.executable < desc.executables.size() &&
      d.kernel < desc.executables[d.executable].kernels.size())
    os << " '" << desc.executables[d.executable].kernels[d.kernel].name << "'";
  os << " of executable " << d.executable << " grid " << formatDim3(d.grid)
     << " block " << formatDim3(d.block) << " shared " << d.dynamicSharedBytes
     << " args (";
  for (size_t a = 0; a < d.args.size(); ++a)
    os << (a ? ", " : "") << describeArg(d.args[a]);
  os << ")";
  if (d.dependentLaunch)
    os << " dependent";
  if (d.gridElements)
    os << " (grid x at run time: ceil((" << d.gridElements->str() << ") / "
       << d.gridDivisor << "), at most " << d.grid.x << ")";
  if (d.l2ResidentBytes > 0)
    os << " l2-resident " << d.l2ResidentBytes << " bytes of buffer "
       << d.l2ResidentBuffer;
  describeGuard(os, desc, d.guard);
}

/// "main", "collective", or the code of a stream the format lacks.
std::string streamName(StreamId stream) {
  switch (stream) {
  case StreamId::Main:
    return "main";
  case StreamId::Collective:
    return "collective";
  }
  return "<stream " + str(static_cast<uint8_t>(stream)) + ">";
}

/// "record event 0 on the main stream", "wait for event 1 on the
/// collective stream".
std::string describeEvent(const EventStep &e) {
  bool record = e.action == EventStep::Action::Record;
  return std::string(record ? "record event " : "wait for event ") +
         str(e.event) + " on the " + streamName(e.stream) + " stream";
}

void describeStep(std::ostream &os, const ModuleDesc &desc,
                  const LibraryCallStep &call) {
  os << "library call '" << call.routine << "' buffers (";
  for (size_t i = 0; i < call.buffers.size(); ++i)
    os << (i ? ", " : "") << call.buffers[i];
  os << ") descriptor {";
  for (size_t i = 0; i < call.descriptor.size(); ++i) {
    const DescriptorField &f = call.descriptor[i];
    os << (i ? ", " : "") << f.name << " = ";
    if (!f.text.empty() || f.ints.empty())
      os << "\"" << f.text << "\"";
    else
      os << formatDims(f.ints);
    if (!f.symbolicInts.empty())
      os << " (at run time " << formatSizes(f.symbolicInts) << ")";
  }
  os << "}";
  if (call.stream != StreamId::Main)
    os << " on the " << streamName(call.stream) << " stream";
  describeGuard(os, desc, call.guard);
}

void describeStep(std::ostream &os, const ModuleDesc &, const FillStep &f) {
  os << "fill buffer " << f.buffer << " with byte " << int(f.value);
}

void describeStep(std::ostream &os, const ModuleDesc &, const CopyStep &c) {
  os << "copy " << c.sizeBytes << " bytes from buffer " << c.source
     << " to buffer " << c.target;
  if (c.symbolicSizeBytes)
    os << " (at run time " << c.symbolicSizeBytes->str() << " bytes)";
}

void describeStep(std::ostream &os, const ModuleDesc &, const EventStep &e) {
  os << describeEvent(e);
}

/// "temporaries: 20 buffers, 20480 bytes" and, when buffers share an arena,
/// "arena: 4096 bytes for 20 temporaries and 1 output of 22528 bytes
/// (18432 bytes saved)". A module without an arena (from an older stridec)
/// says what buffer reuse started from, when it recorded it.
void describeTemporaries(std::ostream &os, const ModuleDesc &desc) {
  size_t count = 0, inArena = 0, outputsInArena = 0;
  int64_t bytes = 0, arenaMembersBytes = 0;
  for (const BufferDesc &b : desc.buffers) {
    if (b.kind == BufferKind::Temp) {
      ++count;
      bytes += b.sizeBytes;
    }
    if (b.inArena()) {
      ++inArena;
      outputsInArena += b.kind == BufferKind::Output;
      arenaMembersBytes += b.sizeBytes;
    }
  }
  os << "temporaries: " << counted(count, "buffer") << ", " << bytes
     << " bytes";
  if (inArena == 0 && desc.temporariesBeforeReuse != 0)
    os << " (before buffer reuse: "
       << counted(desc.temporariesBeforeReuse, "buffer") << ", "
       << desc.temporaryBytesBeforeReuse << " bytes; "
       << desc.temporaryBytesBeforeReuse - bytes << " bytes saved)";
  os << "\n";
  if (inArena == 0)
    return;
  int64_t arena = desc.arenaBytes();
  int64_t saved = arenaMembersBytes - arena;
  os << "arena: " << arena << " bytes for "
     << counted(inArena - outputsInArena, "temporary", "temporaries")
     << " and " << counted(outputsInArena, "output") << " of "
     << arenaMembersBytes << " bytes ("
     << (saved >= 0 ? str(saved) + " bytes saved"
                    : str(-saved) + " bytes of alignment")
     << ")\n";
}
} // namespace

const char *stepKindName(StepKind kind) {
  switch (kind) {
  case StepKind::Kernel:
    return "kernel";
  case StepKind::LibraryCall:
    return "library call";
  case StepKind::Copy:
    return "copy";
  case StepKind::Event:
    return "event";
  case StepKind::Fill:
    return "fill";
  }
  return "?";
}

namespace {
/// "cublaslt.matmul f32 m=768 n=8192 k=3072 batch=1 epilogue=gelu_bias",
/// "cudnn.sdpa_forward bf16 b=2 h=12/12 s=128/128 d=64/64 causal",
/// "cudnn.convolution bf16 fprop 'conv1' x=64x3x224x224 w=64x3x7x7 bias".
std::string summarizeLibraryCall(const LibraryCallStep &call) {
  auto field = [&](const char *name) -> const DescriptorField * {
    for (const DescriptorField &f : call.descriptor)
      if (f.name == name)
        return &f;
    return nullptr;
  };
  std::string s = call.routine;
  if (const DescriptorField *dtype = field("dtype"))
    s += " " + dtype->text;
  for (const char *name : {"m", "n", "k", "batch"})
    if (const DescriptorField *f = field(name); f && f->ints.size() == 1)
      s += std::string(" ") + name + "=" + str(f->ints[0]);
  if (const DescriptorField *epilogue = field("epilogue");
      epilogue && epilogue->text != "default")
    s += " epilogue=" + epilogue->text;
  // Attention (python-free-docs/attention.md): dims [b, h_q, h_kv, s_q,
  // s_kv, d_qk, d_v].
  if (const DescriptorField *dims = field("dims"); dims && dims->ints.size() == 7) {
    const std::vector<int64_t> &d = dims->ints;
    s += " b=" + str(d[0]) + " h=" + str(d[1]) + "/" + str(d[2]) +
         " s=" + str(d[3]) + "/" + str(d[4]) + " d=" + str(d[5]) + "/" +
         str(d[6]);
  }
  // Convolution (python-free-docs/convolution.md): the kind, the node and
  // the forward's x and w.
  if (const DescriptorField *kind = field("kind"))
    s += " " + kind->text;
  if (const DescriptorField *name = field("name"))
    s += " '" + name->text + "'";
  for (const char *tensor : {"x_dims", "w_dims"})
    if (const DescriptorField *f = field(tensor)) {
      s += std::string(" ") + tensor[0] + "=";
      for (size_t i = 0; i < f->ints.size(); ++i)
        s += (i ? "x" : "") + str(f->ints[i]);
    }
  for (const char *flag : {"causal", "bias"})
    if (const DescriptorField *f = field(flag);
        f && f->ints.size() == 1 && f->ints[0] == 1)
      s += std::string(" ") + flag;
  return s;
}
} // namespace

StepSummary summarizeStep(const ModuleDesc &desc, size_t index) {
  const Step &step = desc.steps[index];
  if (const auto *d = std::get_if<DispatchStep>(&step))
    return {StepKind::Kernel,
            desc.executables[d->executable].kernels[d->kernel].name};
  if (const auto *call = std::get_if<LibraryCallStep>(&step))
    return {StepKind::LibraryCall, summarizeLibraryCall(*call)};
  if (const auto *c = std::get_if<CopyStep>(&step))
    return {StepKind::Copy, str(c->sizeBytes) + " bytes"};
  if (const auto *e = std::get_if<EventStep>(&step))
    return {StepKind::Event, describeEvent(*e)};
  const auto &f = std::get<FillStep>(step);
  return {StepKind::Fill, str(desc.buffers[f.buffer].sizeBytes) + " bytes"};
}

MemorySummary summarizeMemory(const ModuleDesc &desc) {
  MemorySummary m;
  m.arenaBytes = desc.arenaBytes();
  for (const BufferDesc &b : desc.buffers) {
    if (b.inArena())
      continue;
    switch (b.kind) {
    case BufferKind::Constant:
      m.constantBytes += b.sizeBytes;
      break;
    case BufferKind::Temp:
      m.temporaryBytes += b.sizeBytes;
      break;
    case BufferKind::Input:
      m.inputBytes += b.sizeBytes;
      break;
    case BufferKind::Output:
      m.outputBytes += b.sizeBytes;
      break;
    case BufferKind::State:
      m.stateBytes += b.sizeBytes;
      break;
    }
  }
  return m;
}

/// "  absent (None): program outputs 0, 2 of 3; the outputs above are the
/// others, in order".
static void describeAbsentOutputs(std::ostream &os, const GraphSignature &sig) {
  if (sig.absentOutputs.empty())
    return;
  os << "  absent (None): program output"
     << (sig.absentOutputs.size() == 1 ? " " : "s ");
  for (size_t i = 0; i < sig.absentOutputs.size(); ++i)
    os << (i ? ", " : "") << sig.absentOutputs[i];
  os << " of " << sig.numProgramOutputs()
     << "; the outputs above are the others, in order\n";
}

/// ", aliases input 1 'w': no buffer, no copy" (an index the verifier
/// would refuse is printed as it is).
static std::string describeAlias(const GraphSignature &sig,
                                 const TensorSignature &output) {
  std::string s = ", aliases input " + str(output.aliasOfInput);
  if (size_t(output.aliasOfInput) < sig.inputs.size())
    s += " '" + sig.inputs[output.aliasOfInput].name + "'";
  return s + ": no buffer, no copy";
}

/// ", the value of input 3 'cache_position'" for a symbol bound from a
/// value (ValueBinding); empty for a size.
static std::string boundFromValue(const ModuleDesc &desc, size_t symbol) {
  for (const ValueBinding &v : desc.valueBindings)
    if (v.symbol == symbol && v.input < desc.signature.inputs.size())
      return ", the value of input " + std::to_string(v.input) + " '" +
             desc.signature.inputs[v.input].name + "'";
  return "";
}

std::string describeModule(const ModuleDesc &desc) {
  std::ostringstream os;
  os << "Stride module, format version " << desc.formatVersion
     << ", produced by " << (desc.producer.empty() ? "?" : desc.producer) << "\n";
  ModuleFileLayout layout = moduleFileLayout(desc);
  describeFileLayout(os, layout);
  os << "target: "
     << (desc.target.backend == Backend::Cuda ? "CUDA " : "unknown backend ")
     << desc.target.arch << "\n";
  if (desc.deterministic)
    os << "deterministic: float index_add sums in source order (stridec "
          "--deterministic)\n";
  const GraphSignature &sig = desc.signature;
  for (size_t i = 0; i < desc.symbols.size(); ++i)
    os << (i ? ", " : "symbols (size arguments in this order): ")
       << desc.symbols[i].describe() << boundFromValue(desc, i)
       << (i + 1 == desc.symbols.size() ? "\n" : "");
  os << "entry: " << sig.entryName << " ("
     << counted(sig.inputs.size(), "input") << ", "
     << counted(sig.outputs.size(), "output") << ")\n";
  for (size_t i = 0; i < sig.inputs.size(); ++i)
    os << "  input " << i << " '" << sig.inputs[i].name
       << "': " << describeTensor(sig.inputs[i])
       << (sig.inputs[i].mutated ? ", mutated: the plan writes it in place"
                                 : "")
       << "\n";
  for (size_t i = 0; i < sig.outputs.size(); ++i)
    os << "  output " << i << " '" << sig.outputs[i].name
       << "': " << describeTensor(sig.outputs[i])
       << (sig.outputs[i].isAlias() ? describeAlias(sig, sig.outputs[i]) : "")
       << "\n";
  describeAbsentOutputs(os, sig);
  describeExecutables(os, desc);
  describeConstants(os, desc, layout);
  describeStates(os, desc, layout);
  os << "buffers: " << desc.buffers.size() << "\n";
  for (size_t i = 0; i < desc.buffers.size(); ++i)
    os << "  buffer " << i << ": " << bufferRole(desc, desc.buffers[i]) << ", "
       << desc.buffers[i].sizeBytes << " bytes"
       << (desc.buffers[i].inArena()
               ? " at arena " + str(desc.buffers[i].arenaOffset)
               : std::string())
       << "\n";
  describeTemporaries(os, desc);
  os << "steps: " << desc.steps.size() << "\n";
  for (size_t i = 0; i < desc.steps.size(); ++i) {
    os << "  step " << i + 1 << " of " << desc.steps.size() << ": ";
    std::visit([&](const auto &step) { describeStep(os, desc, step); },
               desc.steps[i]);
    os << "\n";
  }
  return os.str();
}

} // namespace stride
