//===- ModuleVerifier.cpp - The semantic checks of modules ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// verifyModule: the checks the runtime relies on, run on every parsed
// module (the last layer of ModuleReader.cpp) and on every module before it
// is written. Each problem reads "what: problem"; the first one found is
// reported.
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "ModuleInternal.h"

#include "stride/Support/Layout.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

namespace stride {

using detail::isIdentifier;
using detail::str;

namespace {

//===----------------------------------------------------------------------===//
// Semantic verification
//===----------------------------------------------------------------------===//

/// Collects the first problem found; each check reads "what: problem".
class ModuleVerifier {
public:
  ModuleVerifier(const ModuleDesc &desc, const std::string &name)
      : desc(desc), name(name) {}

  Status run() {
    checkHeaderFields();
    // The symbols and symbolic layouts first: the rest reads the layouts
    // at the symbols' largest values.
    if (std::string symbols = findSymbolProblem(desc); !symbols.empty())
      fail(symbols);
    checkSignature();
    checkExecutables();
    checkConstants();
    checkStates();
    checkBuffers();
    checkSteps();
    checkReuseStatistics();
    if (problem.empty())
      return Status::ok();
    return makeError(ErrorCode::InvalidModule,
                     name + ": inconsistent module: " + problem);
  }

private:
  const ModuleDesc &desc;
  const std::string &name;
  std::string problem;

  /// Records the first failure only: later ones may be consequences.
  bool fail(std::string message) {
    if (problem.empty())
      problem = std::move(message);
    return false;
  }

  /// Names and descriptions are printed one per line: no control characters
  /// (this also keeps embedded NULs out of names passed to CUDA).
  static bool isPrintable(const std::string &s) {
    for (char c : s)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return false;
    return true;
  }

  void checkPrintable(const std::string &s, const std::string &what) {
    if (!isPrintable(s))
      fail(what + " contains control characters");
  }

  void checkHeaderFields() {
    checkPrintable(desc.producer, "the producer string");
    if (desc.formatVersion < kOldestModuleFormatVersion ||
        desc.formatVersion > kModuleFormatVersion)
      fail("format version " + str(desc.formatVersion) + ", expected " +
           str(kOldestModuleFormatVersion) + " to " +
           str(kModuleFormatVersion));
    if (desc.target.backend != Backend::Cuda)
      fail("the target has an unknown backend (code " +
           str(static_cast<uint8_t>(desc.target.backend)) + ")");
    else if (!parseSmArch(desc.target.arch))
      fail("target arch \"" + desc.target.arch +
           "\" is not of the form sm_NN (e.g. sm_90)");
  }


  bool checkTensor(const TensorSignature &t, const std::string &what) {
    if (t.name.empty())
      return fail(what + " has no name");
    if (!isPrintable(t.name))
      return fail(what + "'s name contains control characters");
    std::string where = what + " '" + t.name + "'";
    if (static_cast<uint8_t>(t.dtype) > static_cast<uint8_t>(DType::I64))
      return fail(where + " has an unknown element type (code " +
                  str(static_cast<uint8_t>(t.dtype)) + ")");
    if (static_cast<int64_t>(t.shape.size()) > kMaxRank)
      return fail(where + " has rank " + str(t.shape.size()) +
                  ", more than the maximum " + str(kMaxRank));
    if (t.strides.size() != t.shape.size())
      return fail(where + " has shape " + formatDims(t.shape) + " of rank " +
                  str(t.shape.size()) + " but " + str(t.strides.size()) +
                  " strides " + formatDims(t.strides));
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < 0)
        return fail(where + " has negative size " + str(t.shape[d]) +
                    " in dim " + str(d));
      if (t.strides[d] < 0)
        return fail(where + " has negative stride " + str(t.strides[d]) +
                    " in dim " + str(d));
    }
    if (t.storageOffset < 0)
      return fail(where + " has negative storage offset " +
                  str(t.storageOffset));
    if (!checkedNumElements(t.shape) || !storageBytes(t))
      return fail(where + " of shape " + formatDims(t.shape) + " and strides " +
                  formatDims(t.strides) + " is too large");
    return true;
  }

  void checkTensorList(const std::vector<TensorSignature> &list,
                       const std::string &kind) {
    std::set<std::string> names;
    for (size_t i = 0; i < list.size(); ++i) {
      if (!checkTensor(list[i], kind + " " + str(i)))
        return;
      if (!names.insert(list[i].name).second)
        fail(kind + " name '" + list[i].name + "' is used twice");
    }
  }

  /// Strictly increasing positions below the number of program outputs.
  void checkAbsentOutputs(const GraphSignature &sig) {
    int64_t previous = -1;
    for (uint32_t p : sig.absentOutputs) {
      if (int64_t(p) <= previous || p >= sig.numProgramOutputs()) {
        fail("the absent outputs " + formatDims(std::vector<int64_t>(
                                         sig.absentOutputs.begin(),
                                         sig.absentOutputs.end())) +
             " are not increasing positions below " +
             str(sig.numProgramOutputs()) + " (" +
             str(sig.outputs.size()) + " outputs and " +
             str(sig.absentOutputs.size()) + " absent ones)");
        return;
      }
      previous = p;
    }
  }

  void checkSignature() {
    const GraphSignature &sig = desc.signature;
    if (sig.entryName.empty())
      fail("the signature has no entry function name");
    checkPrintable(sig.entryName, "the entry function name");
    checkTensorList(sig.inputs, "input");
    checkTensorList(sig.outputs, "output");
    checkAbsentOutputs(sig);
    // A functional output needs one address per element, or a kernel's
    // stores would collide (the layout bug Stride exists to prevent).
    // An aliased output is no plan's write: it may overlap (an expanded
    // input), and must lie within the input it aliases.
    for (size_t i = 0; i < sig.outputs.size() && problem.empty(); ++i) {
      if (sig.outputs[i].isAlias())
        checkAlias(sig.outputs[i], "output " + str(i));
      else
        checkWrittenLayout(sig.outputs[i], "output " + str(i));
      if (sig.outputs[i].mutated)
        fail("output " + str(i) + " '" + sig.outputs[i].name +
             "' is marked mutated (only inputs are)");
    }
    // The plan writes a mutated input in place: the same rule.
    for (size_t i = 0; i < sig.inputs.size() && problem.empty(); ++i) {
      if (sig.inputs[i].mutated)
        checkWrittenLayout(sig.inputs[i], "mutated input " + str(i));
      checkNoAlias(sig.inputs[i], "input " + str(i));
    }
  }

  /// Only outputs alias an input.
  void checkNoAlias(const TensorSignature &t, const std::string &what) {
    if (t.aliasOfInput != -1)
      fail(what + " '" + t.name + "' is marked as an alias of input " +
           str(t.aliasOfInput) + " (only outputs alias inputs)");
  }

  /// An aliased output (python-free-docs/module-format.md, "Aliased
  /// outputs") is input K's storage read at the output's layout: K exists,
  /// has the same element type, is not written by the plan, and its
  /// storage holds every element the output's layout reaches.
  void checkAlias(const TensorSignature &t, const std::string &what) {
    const GraphSignature &sig = desc.signature;
    std::string where = what + " '" + t.name + "'";
    if (size_t(t.aliasOfInput) >= sig.inputs.size()) {
      fail(where + " aliases input " + str(t.aliasOfInput) +
           ", but the signature has " + str(sig.inputs.size()) + " inputs");
      return;
    }
    const TensorSignature &input = sig.inputs[t.aliasOfInput];
    std::string aliased = "input " + str(t.aliasOfInput) + " '" + input.name +
                          "' (" + describeTensor(input) + ")";
    if (input.dtype != t.dtype)
      fail(where + " (" + describeTensor(t) + ") aliases " + aliased +
           ", of another element type");
    else if (input.mutated)
      fail(where + " aliases " + aliased +
           ", which the plan mutates; an aliased output is the input as the "
           "caller passed it");
    else if (storageBytes(t) > storageBytes(input))
      fail(where + " (" + describeTensor(t) + ") reaches " +
           str(*storageBytes(t)) + " bytes of the storage of " + aliased +
           ", past its end at " + str(*storageBytes(input)) + " bytes");
  }

  /// A tensor the plan writes needs one address per element, or a kernel's
  /// stores would collide (the layout bug Stride exists to prevent).
  void checkWrittenLayout(const TensorSignature &t, const std::string &what) {
    if (!checkNonOverlapping(t.shape, t.strides).ok())
      fail(what + " '" + t.name + "' has the overlapping layout " +
           formatDims(t.shape) + " strides " + formatDims(t.strides) +
           "; a tensor the plan writes must give every element its own "
           "address");
  }

  void checkStates() {
    std::set<std::string> names;
    for (size_t i = 0; i < desc.states.size() && problem.empty(); ++i) {
      const StateDesc &s = desc.states[i];
      std::string what = "state " + str(i);
      if (!checkTensor(s.tensor, what))
        return;
      if (!names.insert(s.tensor.name).second)
        fail("state name '" + s.tensor.name + "' is used twice");
      if (s.tensor.mutated)
        fail(what + " '" + s.tensor.name + "' is marked mutated (only inputs "
                    "are)");
      checkNoAlias(s.tensor, what);
      checkWrittenLayout(s.tensor, what);
      std::optional<int64_t> bytes = storageBytes(s.tensor);
      if (!s.init.empty() && bytes && static_cast<uint64_t>(*bytes) != s.init.size())
        fail(what + " '" + s.tensor.name + "' (" + describeTensor(s.tensor) +
             ") has " + str(s.init.size()) +
             " bytes of initial data, but its layout needs " + str(*bytes) +
             " (or none: zeros)");
    }
  }

  void checkImage(const CodeImage &img, const std::string &what) {
    if (img.kind != CodeKind::Cubin && img.kind != CodeKind::Ptx)
      fail(what + " has an unknown format (code " +
           str(static_cast<uint8_t>(img.kind)) + ")");
    else if (img.bytes.empty())
      fail(what + " is empty");
    else if (img.kind == CodeKind::Cubin &&
             (img.bytes.size() < 4 ||
              std::memcmp(img.bytes.data(), "\x7f" "ELF", 4) != 0))
      fail(what + " is marked CUBIN but does not start with the ELF magic");
    else if (img.kind == CodeKind::Ptx &&
             std::memchr(img.bytes.data(), 0, img.bytes.size()))
      fail(what + " is marked PTX but contains a NUL byte");
  }

  void checkExecutables() {
    uint64_t codeBytes = 0;
    for (const ExecutableDesc &exe : desc.executables)
      codeBytes += exe.image.bytes.size();
    if (codeBytes > kMaxExecutableBytes)
      fail("the executables have " + str(int64_t(codeBytes)) +
           " bytes, more than the " + str(int64_t(kMaxExecutableBytes)) +
           " that the module's FlatBuffer holds (the constants, in the data "
           "section, have no such limit)");
    for (size_t e = 0; e < desc.executables.size(); ++e) {
      const ExecutableDesc &exe = desc.executables[e];
      std::string what = "executable " + str(e);
      checkImage(exe.image, what);
      for (size_t i = 0; i < exe.kernels.size(); ++i) {
        const KernelDesc &k = exe.kernels[i];
        std::string kernel = "kernel " + str(i) + " of " + what;
        checkPrintable(k.description, "the description of " + kernel);
        if (!isIdentifier(k.name))
          fail(kernel + " has the name \"" + k.name +
               "\", which is not a C identifier");
      }
    }
  }

  void checkConstants() {
    for (size_t i = 0; i < desc.constants.size(); ++i) {
      const ConstantDesc &c = desc.constants[i];
      TensorSignature layout{"constant " + str(i), c.dtype, c.shape, c.strides,
                             0};
      if (!checkTensor(layout, "constant " + str(i)))
        return;
      std::optional<int64_t> bytes = storageBytes(layout);
      if (bytes && static_cast<uint64_t>(*bytes) != c.data.size())
        fail("constant " + str(i) + " (" + describeTensor(layout) + ") has " +
             str(c.data.size()) + " bytes of data, but its layout needs " +
             str(*bytes));
    }
  }

  void checkBufferBinding(size_t index, const BufferDesc &b,
                          const std::vector<TensorSignature> &list,
                          const std::string &kind,
                          std::vector<int> &boundCount) {
    std::string what = "buffer " + str(index) + " (" + kind + ")";
    if (b.index < 0 || size_t(b.index) >= list.size()) {
      fail(what + " refers to " + kind + " " + str(b.index) +
           ", but the signature has " + str(list.size()) + " " + kind + "s");
      return;
    }
    const TensorSignature &t = list[b.index];
    ++boundCount[b.index];
    std::optional<int64_t> needed = storageBytes(t);
    if (needed && b.sizeBytes < *needed)
      fail(what + " has " + str(b.sizeBytes) + " bytes, but " + kind + " '" +
           t.name + "' (" + describeTensor(t) + ") needs " + str(*needed));
  }

  void checkReuseStatistics() {
    if (desc.temporaryBytesBeforeReuse < 0 ||
        desc.temporaryBytesBeforeReuse > kMaxBufferBytes)
      fail("the temporaries' bytes before reuse, " +
           str(desc.temporaryBytesBeforeReuse) + ", are outside [0, 2^48]");
  }

  void checkArenaOffset(const std::string &what, const BufferDesc &b) {
    if (b.arenaOffset == -1)
      return;
    if (b.arenaOffset < 0 || b.arenaOffset % kArenaAlignment != 0 ||
        b.arenaOffset > kMaxBufferBytes - b.sizeBytes)
      fail(what + " has the arena offset " + str(b.arenaOffset) +
           ", which is not -1 (none) or a multiple of " +
           str(kArenaAlignment) + " that ends within 2^48 bytes");
    else if (b.zeroed ||
             (b.kind != BufferKind::Temp && b.kind != BufferKind::Output))
      fail(what + " is in the arena but is no temporary or output that "
                  "is not zeroed (only those share the arena)");
  }

  void checkBuffers() {
    const GraphSignature &sig = desc.signature;
    std::vector<int> inputBound(sig.inputs.size()), outputBound(sig.outputs.size());
    std::vector<int> constantBound(desc.constants.size());
    std::vector<int> stateBound(desc.states.size());
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      std::string what = "buffer " + str(i);
      if (b.sizeBytes < 0 || b.sizeBytes > kMaxBufferBytes) {
        fail(what + " has the size " + str(b.sizeBytes) +
             " bytes, outside [0, 2^48]");
        continue;
      }
      if (b.zeroed && b.kind != BufferKind::Temp)
        fail(what + " is marked zeroed but is no temporary (only the plan's "
                    "own buffers start zeroed)");
      checkArenaOffset(what, b);
      switch (b.kind) {
      case BufferKind::Input:
        checkBufferBinding(i, b, sig.inputs, "input", inputBound);
        break;
      case BufferKind::Output:
        checkBufferBinding(i, b, sig.outputs, "output", outputBound);
        break;
      case BufferKind::Temp:
        if (b.index != -1)
          fail(what + " is a temporary but has the index " + str(b.index) +
               " (expected -1)");
        break;
      case BufferKind::Constant:
        checkConstantBinding(i, b, constantBound);
        break;
      case BufferKind::State: {
        std::vector<TensorSignature> tensors;
        for (const StateDesc &s : desc.states)
          tensors.push_back(s.tensor);
        checkBufferBinding(i, b, tensors, "state", stateBound);
        break;
      }
      default:
        fail(what + " has an unknown kind (code " +
             str(static_cast<uint8_t>(b.kind)) + ")");
      }
    }
    checkEachBoundOnce(inputBound, sig.inputs, "input");
    checkEachBoundOnce(outputBound, sig.outputs, "output");
    for (size_t i = 0; i < stateBound.size(); ++i)
      if (stateBound[i] != 1)
        fail("state " + str(i) + " '" + desc.states[i].tensor.name +
             "' is bound to " + str(stateBound[i]) +
             " buffers (expected exactly 1)");
    for (size_t i = 0; i < constantBound.size(); ++i)
      if (constantBound[i] != 1)
        fail("constant " + str(i) + " is bound to " + str(constantBound[i]) +
             " buffers (expected exactly 1)");
  }

  void checkConstantBinding(size_t index, const BufferDesc &b,
                            std::vector<int> &boundCount) {
    std::string what = "buffer " + str(index) + " (constant)";
    if (b.index < 0 || size_t(b.index) >= desc.constants.size()) {
      fail(what + " refers to constant " + str(b.index) +
           ", but the module has " + str(desc.constants.size()) +
           " constants");
      return;
    }
    ++boundCount[b.index];
    uint64_t needed = desc.constants[b.index].data.size();
    if (static_cast<uint64_t>(b.sizeBytes) < needed)
      fail(what + " has " + str(b.sizeBytes) + " bytes, but constant " +
           str(b.index) + " has " + str(needed));
  }

  /// Each tensor has exactly one buffer, an aliased output none (it is
  /// its input's).
  void checkEachBoundOnce(const std::vector<int> &bound,
                          const std::vector<TensorSignature> &list,
                          const std::string &kind) {
    for (size_t i = 0; i < bound.size(); ++i) {
      bool alias = list[i].isAlias();
      if (bound[i] != (alias ? 0 : 1))
        fail(kind + " " + str(i) + " '" + list[i].name + "' is bound to " +
             str(bound[i]) + " buffers (expected " +
             (alias ? "none: it aliases input " + str(list[i].aliasOfInput)
                    : std::string("exactly 1")) +
             ")");
    }
  }

  void checkDim3(const Dim3 &d, uint32_t maxX, uint32_t maxY, uint32_t maxZ,
                 const std::string &what) {
    if (d.x == 0 || d.y == 0 || d.z == 0)
      fail(what + " (" + str(d.x) + ", " + str(d.y) + ", " + str(d.z) +
           ") has a zero dimension");
    else if (d.x > maxX || d.y > maxY || d.z > maxZ)
      fail(what + " (" + str(d.x) + ", " + str(d.y) + ", " + str(d.z) +
           ") exceeds CUDA's limits (" + str(maxX) + ", " + str(maxY) + ", " +
           str(maxZ) + ")");
  }

  static size_t argBytes(const KernelArg &a) {
    switch (a.kind) {
    case KernelArg::Kind::I32:
    case KernelArg::Kind::F32:
      return 4;
    default:
      return 8;
    }
  }

  void checkArgs(const DispatchStep &d, const std::string &what) {
    size_t paramBytes = 0;
    for (size_t a = 0; a < d.args.size(); ++a) {
      const KernelArg &arg = d.args[a];
      paramBytes = (paramBytes + argBytes(arg) - 1) / argBytes(arg) * argBytes(arg) +
                   argBytes(arg);
      if (arg.kind == KernelArg::Kind::Buffer)
        checkBufferIndex(arg.bufferIndex, what + " argument " + str(a));
      else if (arg.kind == KernelArg::Kind::I32 &&
               arg.intValue != static_cast<int32_t>(arg.intValue))
        fail(what + " argument " + str(a) + " is an i32 holding " +
             str(arg.intValue) + ", which does not fit in 32 bits");
      else if (static_cast<uint8_t>(arg.kind) >
               static_cast<uint8_t>(KernelArg::Kind::Symbol))
        fail(what + " argument " + str(a) + " has an unknown kind");
    }
    if (paramBytes > kMaxKernelParamBytes)
      fail(what + " passes " + str(paramBytes) +
           " bytes of parameters, more than CUDA's limit of " +
           str(kMaxKernelParamBytes));
  }

  bool checkBufferIndex(uint32_t buffer, const std::string &what) {
    if (buffer < desc.buffers.size())
      return true;
    return fail(what + " refers to buffer " + str(buffer) +
                ", but the module has " + str(desc.buffers.size()) +
                " buffers");
  }

  /// The steps may write only buffers the plan owns (temporaries, outputs,
  /// states) and the inputs the graph mutates.
  void checkWritable(uint32_t buffer, const std::string &what) {
    if (!checkBufferIndex(buffer, what))
      return;
    const BufferDesc &b = desc.buffers[buffer];
    bool mutatedInput = b.kind == BufferKind::Input && b.index >= 0 &&
                        size_t(b.index) < desc.signature.inputs.size() &&
                        desc.signature.inputs[b.index].mutated;
    if (b.kind == BufferKind::Input ? !mutatedInput
                                    : b.kind == BufferKind::Constant)
      fail(what + " writes buffer " + str(buffer) +
           ", which is a constant or an input the graph does not mutate");
  }

  std::string stepName(size_t i) const {
    return "step " + str(i + 1) + " of " + str(desc.steps.size());
  }

  void checkStep(const DispatchStep &d, const std::string &step) {
    if (d.executable >= desc.executables.size()) {
      fail(step + " dispatches from executable " + str(d.executable) +
           ", but the module has " + str(desc.executables.size()) +
           " executables");
      return;
    }
    const ExecutableDesc &exe = desc.executables[d.executable];
    if (d.kernel >= exe.kernels.size()) {
      fail(step + " dispatches kernel " + str(d.kernel) + " of executable " +
           str(d.executable) + ", which has " + str(exe.kernels.size()) +
           " kernels");
      return;
    }
    std::string what = step + " (kernel '" + exe.kernels[d.kernel].name + "')";
    checkDim3(d.grid, kMaxGridX, kMaxGridYZ, kMaxGridYZ, what + " grid");
    checkDim3(d.block, kMaxBlockXY, kMaxBlockXY, kMaxBlockZ, what + " block");
    if (d.block.volume() > kMaxThreadsPerBlock)
      fail(what + " block has " + str(d.block.volume()) +
           " threads, more than CUDA's limit of " + str(kMaxThreadsPerBlock));
    if (d.dynamicSharedBytes > kMaxDynamicSharedBytes)
      fail(what + " asks for " + str(d.dynamicSharedBytes) +
           " bytes of dynamic shared memory, more than any GPU has (" +
           str(kMaxDynamicSharedBytes) + ")");
    if (d.dependentLaunch && !supportsDependentLaunch(desc.target.arch))
      fail(what + " is a dependent launch, which needs sm_90 or later, but "
                  "the module's target is " +
           desc.target.arch);
    checkArgs(d, what);
    checkL2Window(d, what);
  }

  /// An L2 window covers bytes of a constant that the dispatch passes.
  void checkL2Window(const DispatchStep &d, const std::string &what) {
    if (d.l2ResidentBytes == 0)
      return;
    const std::string window = what + " keeps " + str(d.l2ResidentBytes) +
                               " bytes of buffer " + str(d.l2ResidentBuffer) +
                               " in L2";
    if (d.l2ResidentBuffer >= desc.buffers.size()) {
      fail(window + ", but the module has " + str(desc.buffers.size()) +
           " buffers");
      return;
    }
    const BufferDesc &buffer = desc.buffers[d.l2ResidentBuffer];
    if (buffer.kind != BufferKind::Constant)
      fail(window + ", which is no constant");
    else if (d.l2ResidentBytes > uint64_t(buffer.sizeBytes))
      fail(window + ", which has " + str(buffer.sizeBytes) + " bytes");
    else if (std::none_of(d.args.begin(), d.args.end(), [&](const KernelArg &a) {
               return a.kind == KernelArg::Kind::Buffer &&
                      a.bufferIndex == d.l2ResidentBuffer;
             }))
      fail(window + ", which it does not pass to the kernel");
  }

  void checkStep(const LibraryCallStep &call, const std::string &step) {
    size_t dot = call.routine.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == call.routine.size() ||
        !isIdentifier(call.routine.substr(0, dot)) ||
        !isIdentifier(call.routine.substr(dot + 1)))
      fail(step + " calls the routine \"" + call.routine +
           "\", which is not of the form library.routine");
    for (size_t i = 0; i < call.buffers.size(); ++i)
      checkBufferIndex(call.buffers[i], step + " buffer " + str(i));
    for (const DescriptorField &f : call.descriptor) {
      if (!isIdentifier(f.name))
        fail(step + " has the descriptor field \"" + f.name +
             "\", which is not an identifier");
      checkPrintable(f.text, step + " descriptor field '" + f.name + "'");
    }
  }

  void checkStep(const FillStep &f, const std::string &step) {
    checkWritable(f.buffer, step + " (fill)");
  }

  void checkStep(const CopyStep &c, const std::string &step) {
    std::string what = step + " (copy)";
    if (!checkBufferIndex(c.source, what))
      return;
    checkWritable(c.target, what);
    if (c.target >= desc.buffers.size())
      return;
    if (c.source == c.target)
      fail(what + " copies buffer " + str(c.source) + " onto itself");
    int64_t limit = std::min(desc.buffers[c.source].sizeBytes,
                             desc.buffers[c.target].sizeBytes);
    if (c.sizeBytes < 0 || c.sizeBytes > limit)
      fail(what + " copies " + str(c.sizeBytes) + " bytes, outside [0, " +
           str(limit) + "] (the smaller buffer's size)");
  }

  /// Event steps are checked with the streams (findStreamProblem).
  void checkStep(const EventStep &, const std::string &) {}

  void checkSteps() {
    for (size_t i = 0; i < desc.steps.size() && problem.empty(); ++i)
      std::visit([&](const auto &step) { checkStep(step, stepName(i)); },
                 desc.steps[i]);
    if (std::string streams = findStreamProblem(desc); !streams.empty())
      fail(streams);
  }
};

} // namespace

Status verifyModule(const ModuleDesc &desc, const std::string &name) {
  return ModuleVerifier(desc, name).run();
}

} // namespace stride
