//===- Stride.cpp - The C API over the C++ compiler and runtime -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each handle wraps the C++ object it names; each function checks its
// pointers, forwards to the C++ API and turns an Error into a status code
// plus a thread-local message. No logic of the compiler or runtime lives
// here.
//
//===----------------------------------------------------------------------===//

#include "stride-c/Stride.h"

#include "stride/Compiler/Compiler.h"
#include "stride/Compiler/ModuleCache.h"
#include "stride/Module/Module.h"
#include "stride/Runtime/Invocation.h"
#include "stride/Target/CUDA/NvrtcCache.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

using namespace stride;

struct stride_compiler {
  Compiler compiler;
};

struct stride_compile_result {
  CompileResult result;
  std::string formatted;
};

struct stride_module {
  ModuleDesc desc;
  std::string name;
  std::string description;
};

struct stride_runtime {
  std::unique_ptr<Runtime> runtime;
  std::string description;
  std::string arch;
};

struct stride_invocation {
  std::unique_ptr<Invocation> invocation;
};

struct stride_executable {
  std::shared_ptr<const Executable> executable;
  /// The invocation behind stride_executable_run_host/_run_device.
  stride_invocation own;
};

// The C enums mirror the C++ ones value for value.
static_assert(STRIDE_DTYPE_F16 == int(DType::F16) &&
              STRIDE_DTYPE_BF16 == int(DType::BF16) &&
              STRIDE_DTYPE_F32 == int(DType::F32) &&
              STRIDE_DTYPE_F64 == int(DType::F64) &&
              STRIDE_DTYPE_I1 == int(DType::I1) &&
              STRIDE_DTYPE_I8 == int(DType::I8) &&
              STRIDE_DTYPE_I32 == int(DType::I32) &&
              STRIDE_DTYPE_I64 == int(DType::I64));
static_assert(STRIDE_INVALID_ARGUMENT == int(ErrorCode::InvalidArgument) &&
              STRIDE_INVALID_MODULE == int(ErrorCode::InvalidModule) &&
              STRIDE_UNAVAILABLE == int(ErrorCode::Unavailable) &&
              STRIDE_INTERNAL == int(ErrorCode::Internal) &&
              STRIDE_NOT_FOUND == int(ErrorCode::NotFound) &&
              STRIDE_RESOURCE_EXHAUSTED == int(ErrorCode::ResourceExhausted) &&
              STRIDE_INCOMPATIBLE == int(ErrorCode::Incompatible) &&
              STRIDE_DEVICE_FAULT == int(ErrorCode::DeviceFault));
static_assert(STRIDE_SEVERITY_ERROR == int(Diagnostic::Severity::Error) &&
              STRIDE_SEVERITY_WARNING == int(Diagnostic::Severity::Warning) &&
              STRIDE_SEVERITY_NOTE == int(Diagnostic::Severity::Note) &&
              STRIDE_SEVERITY_REMARK == int(Diagnostic::Severity::Remark));

namespace {

thread_local std::string lastError;

stride_status fail(stride_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

/// The status of an Error: its code, one to one.
stride_status fail(const Error &error) {
  return fail(static_cast<stride_status>(error.code), error.message);
}

stride_status ok() {
  lastError.clear();
  return STRIDE_OK;
}

/// Fails with STRIDE_INVALID_ARGUMENT naming `what` when `p` is NULL.
#define STRIDE_CHECK_ARG(p)                                                    \
  do {                                                                         \
    if (!(p))                                                                  \
      return fail(STRIDE_INVALID_ARGUMENT,                                     \
                  std::string(__func__) + ": '" #p "' must not be NULL");      \
  } while (false)

/// Sets the flag `field` selects in the compiler's options.
stride_status setFlag(stride_compiler *compiler,
                      bool &(*field)(CompileOptions &), int enable) {
  STRIDE_CHECK_ARG(compiler);
  field(compiler->compiler.options()) = enable != 0;
  return ok();
}

/// `what` names the graph in the error ("the backward graph" of a
/// training step).
stride_status finishCompile(CompileResult result, stride_compile_result **out,
                            const char *what = "the graph") {
  bool succeeded = result.success;
  *out = new stride_compile_result{std::move(result), {}};
  if (succeeded)
    return ok();
  std::string first = std::string(what) + " did not compile";
  for (const Diagnostic &d : (*out)->result.diagnostics)
    if (d.severity == Diagnostic::Severity::Error) {
      first += ": " + d.format();
      first.pop_back(); // the newline
      break;
    }
  return fail(STRIDE_COMPILE_FAILED, first);
}

void fillDiagnostic(const Diagnostic &d, stride_diagnostic *out) {
  out->severity = static_cast<stride_severity>(d.severity);
  out->file = d.file.c_str();
  out->line = d.line;
  out->column = d.column;
  out->message = d.message.c_str();
  out->num_notes = d.notes.size();
}

stride_status newModule(ModuleDesc desc, std::string name,
                        stride_module **out) {
  auto *module = new stride_module{std::move(desc), std::move(name), {}};
  module->description = describeModule(module->desc);
  *out = module;
  return ok();
}

void fillTensorInfo(const TensorSignature &t, stride_tensor_info *out);

/// STRIDE_OK when `index` is below `count`, the number of the signature's
/// `what`s ("input", "absent output"); otherwise the failure that says so.
stride_status checkSignatureIndex(const GraphSignature &sig, size_t index,
                                  size_t count, const std::string &what) {
  if (index < count)
    return STRIDE_OK;
  return fail(STRIDE_INVALID_ARGUMENT,
              what + " index " + std::to_string(index) +
                  " is out of range: '" + sig.entryName + "' has " +
                  std::to_string(count) + " " + what + "s");
}

stride_status getTensor(const stride_module *module, size_t index, bool input,
                        stride_tensor_info *out) {
  STRIDE_CHECK_ARG(module);
  STRIDE_CHECK_ARG(out);
  const GraphSignature &sig = module->desc.signature;
  const std::vector<TensorSignature> &list = input ? sig.inputs : sig.outputs;
  if (stride_status s = checkSignatureIndex(sig, index, list.size(),
                                            input ? "input" : "output");
      s != STRIDE_OK)
    return s;
  fillTensorInfo(list[index], out);
  return ok();
}

/// `t` as a stride_tensor_info whose pointers live as long as `t`.
void fillTensorInfo(const TensorSignature &t, stride_tensor_info *out) {
  out->name = t.name.c_str();
  out->dtype = static_cast<stride_dtype>(t.dtype);
  out->rank = t.shape.size();
  out->shape = t.shape.data();
  out->strides = t.strides.data();
  out->storage_offset = t.storageOffset;
  // A loaded module is verified, so its layouts are well formed.
  out->storage_bytes = storageBytes(t).value_or(0);
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  out->num_elements = n;
}

stride_status runHost(Invocation &invocation, const void *const *inputs,
                      size_t num_inputs, void *const *outputs,
                      size_t num_outputs) {
  const GraphSignature &sig = invocation.executable().desc().signature;
  if (num_inputs != sig.inputs.size() || num_outputs != sig.outputs.size())
    return fail(STRIDE_INVALID_ARGUMENT,
                "'" + sig.entryName + "' takes " +
                    std::to_string(sig.inputs.size()) + " inputs and " +
                    std::to_string(sig.outputs.size()) + " outputs, given " +
                    std::to_string(num_inputs) + " and " +
                    std::to_string(num_outputs));
  if (num_inputs)
    STRIDE_CHECK_ARG(inputs);
  if (num_outputs)
    STRIDE_CHECK_ARG(outputs);
  std::vector<HostArray> arrays(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    const TensorSignature &t = sig.inputs[i];
    arrays[i].dtype = t.dtype;
    arrays[i].shape = t.shape;
    const auto *bytes = static_cast<const uint8_t *>(inputs[i]);
    arrays[i].data.assign(bytes,
                          bytes + arrays[i].numElements() * dtypeSize(t.dtype));
  }
  Result<std::vector<HostArray>> results = invocation.run(arrays);
  if (!results)
    return fail(results.error());
  for (size_t o = 0; o < num_outputs; ++o)
    std::memcpy(outputs[o], (*results)[o].data.data(),
                (*results)[o].data.size());
  return ok();
}

stride_status runDevice(Invocation &invocation, const uint64_t *inputs,
                        size_t num_inputs, const uint64_t *outputs,
                        size_t num_outputs, void *stream) {
  if (num_inputs)
    STRIDE_CHECK_ARG(inputs);
  if (num_outputs)
    STRIDE_CHECK_ARG(outputs);
  Status s = invocation.runOnDevice(
      std::vector<uint64_t>(inputs, inputs + num_inputs),
      std::vector<uint64_t>(outputs, outputs + num_outputs), stream);
  if (!s)
    return fail(s.error());
  return ok();
}

stride_status newInvocation(const std::shared_ptr<const Executable> &executable,
                            int flags, stride_invocation &out,
                            Invocation *shareStatesWith = nullptr) {
  constexpr int known =
      STRIDE_INVOCATION_CUDA_GRAPH | STRIDE_INVOCATION_TUNE_LIBRARY_CALLS;
  if (flags & ~known)
    return fail(STRIDE_INVALID_ARGUMENT,
                "unknown invocation flags " + std::to_string(flags & ~known) +
                    ": the flags are STRIDE_INVOCATION_CUDA_GRAPH (1) and "
                    "STRIDE_INVOCATION_TUNE_LIBRARY_CALLS (2)");
  InvocationOptions options;
  options.useCudaGraph = (flags & STRIDE_INVOCATION_CUDA_GRAPH) != 0;
  options.tuneLibraryCalls = (flags & STRIDE_INVOCATION_TUNE_LIBRARY_CALLS) != 0;
  options.shareStatesWith = shareStatesWith;
  Result<std::unique_ptr<Invocation>> invocation =
      Invocation::create(executable, options);
  if (!invocation)
    return fail(invocation.error());
  out.invocation = std::move(*invocation);
  return ok();
}

/// A new stride_invocation of `executable` into `out` (stride_invocation_create).
stride_status createInvocation(stride_executable &executable, int flags,
                               Invocation *shareStatesWith,
                               stride_invocation *&out) {
  auto invocation = std::make_unique<stride_invocation>();
  if (stride_status s = newInvocation(executable.executable, flags,
                                      *invocation, shareStatesWith))
    return s;
  out = invocation.release();
  return ok();
}

/// STRIDE_INVALID_ARGUMENT unless `module` has a state `index`.
stride_status checkStateIndex(const stride_module &module, size_t index) {
  if (index < module.desc.states.size())
    return ok();
  return fail(STRIDE_INVALID_ARGUMENT,
              "state index " + std::to_string(index) +
                  " is out of range: the module has " +
                  std::to_string(module.desc.states.size()) + " states");
}

/// The state of `desc` named `name`, or null.
const StateDesc *findState(const ModuleDesc &desc, const char *name) {
  auto state = std::find_if(
      desc.states.begin(), desc.states.end(),
      [&](const StateDesc &s) { return s.tensor.name == name; });
  return state == desc.states.end() ? nullptr : &*state;
}

/// `array` holding a copy of the `size` bytes at `data`.
HostArray withBytes(HostArray array, const void *data, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  array.data.assign(bytes, bytes + size);
  return array;
}

/// Invocation::writeStates (all or nothing), as a status.
stride_status writeStates(stride_invocation &invocation,
                          const StateValues &values) {
  if (Status s = invocation.invocation->writeStates(values); !s)
    return fail(s.error());
  return ok();
}

} // namespace

extern "C" {

const char *stride_status_name(stride_status status) {
  switch (status) {
  case STRIDE_OK: return "STRIDE_OK";
  case STRIDE_INVALID_ARGUMENT: return "STRIDE_INVALID_ARGUMENT";
  case STRIDE_COMPILE_FAILED: return "STRIDE_COMPILE_FAILED";
  case STRIDE_INVALID_MODULE: return "STRIDE_INVALID_MODULE";
  case STRIDE_UNAVAILABLE: return "STRIDE_UNAVAILABLE";
  case STRIDE_INTERNAL: return "STRIDE_INTERNAL";
  case STRIDE_NOT_FOUND: return "STRIDE_NOT_FOUND";
  case STRIDE_RESOURCE_EXHAUSTED: return "STRIDE_RESOURCE_EXHAUSTED";
  case STRIDE_INCOMPATIBLE: return "STRIDE_INCOMPATIBLE";
  case STRIDE_DEVICE_FAULT: return "STRIDE_DEVICE_FAULT";
  }
  return "STRIDE_UNKNOWN_STATUS";
}

const char *stride_last_error_message(void) { return lastError.c_str(); }

const char *stride_version(void) { return STRIDE_VERSION; }

const char *stride_default_cache_dir(void) {
  static const std::string dir = defaultNvrtcCacheDir();
  return dir.c_str();
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

stride_status stride_compiler_create(stride_compiler **out) {
  STRIDE_CHECK_ARG(out);
  *out = new stride_compiler();
  return ok();
}

void stride_compiler_destroy(stride_compiler *compiler) { delete compiler; }

stride_status stride_compiler_set_arch(stride_compiler *compiler,
                                       const char *arch) {
  STRIDE_CHECK_ARG(compiler);
  STRIDE_CHECK_ARG(arch);
  // Checked by the compile, which reports it as a diagnostic.
  compiler->compiler.options().cuda.arch = arch;
  return ok();
}

stride_status stride_compiler_set_emit(stride_compiler *compiler,
                                       stride_emit_kind emit) {
  STRIDE_CHECK_ARG(compiler);
  EmitKind kind;
  switch (emit) {
  case STRIDE_EMIT_MODULE: kind = EmitKind::Module; break;
  case STRIDE_EMIT_MLIR: kind = EmitKind::Mlir; break;
  case STRIDE_EMIT_CUDA: kind = EmitKind::Cuda; break;
  case STRIDE_EMIT_PTX: kind = EmitKind::Ptx; break;
  case STRIDE_EMIT_DOT: kind = EmitKind::Dot; break;
  default:
    return fail(STRIDE_INVALID_ARGUMENT,
                "unknown emit kind " + std::to_string(int(emit)) +
                    ": expected one of the STRIDE_EMIT_* values");
  }
  compiler->compiler.options().emit = kind;
  return ok();
}

stride_status stride_compiler_set_repair_layouts(stride_compiler *compiler,
                                                 int enable) {
  return setFlag(
      compiler,
      [](CompileOptions &o) -> bool & { return o.pipeline.repairLayouts; },
      enable);
}

stride_status stride_compiler_set_fuse(stride_compiler *compiler, int enable) {
  return setFlag(
      compiler, [](CompileOptions &o) -> bool & { return o.pipeline.fuse; },
      enable);
}

stride_status stride_compiler_set_vectorize(stride_compiler *compiler,
                                            int enable) {
  return setFlag(
      compiler, [](CompileOptions &o) -> bool & { return o.cuda.vectorize; },
      enable);
}

stride_status stride_compiler_set_runtime_checks(stride_compiler *compiler,
                                                 int enable) {
  return setFlag(
      compiler,
      [](CompileOptions &o) -> bool & { return o.cuda.runtimeChecks; },
      enable);
}

stride_status stride_compiler_set_deterministic(stride_compiler *compiler,
                                                int enable) {
  return setFlag(
      compiler,
      [](CompileOptions &o) -> bool & { return o.cuda.deterministic; },
      enable);
}

stride_status stride_compiler_set_dependent_launch(stride_compiler *compiler,
                                                   int enable) {
  return setFlag(
      compiler,
      [](CompileOptions &o) -> bool & { return o.cuda.dependentLaunch; },
      enable);
}

stride_status stride_compiler_set_allow_tf32(stride_compiler *compiler,
                                            int enable) {
  return setFlag(
      compiler, [](CompileOptions &o) -> bool & { return o.cuda.allowTf32; },
      enable);
}

stride_status stride_compiler_set_multiprocessors(stride_compiler *compiler,
                                                  unsigned count) {
  STRIDE_CHECK_ARG(compiler);
  if (count > static_cast<unsigned>(std::numeric_limits<int>::max()))
    return fail(STRIDE_INVALID_ARGUMENT,
                "stride_compiler_set_multiprocessors: " +
                    std::to_string(count) + " multiprocessors is too many");
  compiler->compiler.options().cuda.multiprocessorCount =
      static_cast<int>(count);
  return ok();
}

stride_status stride_compiler_set_cache_dir(stride_compiler *compiler,
                                            const char *dir) {
  STRIDE_CHECK_ARG(compiler);
  STRIDE_CHECK_ARG(dir);
  compiler->compiler.options().nvrtcCacheDir = dir;
  return ok();
}

stride_status stride_compiler_set_jobs(stride_compiler *compiler,
                                       unsigned jobs) {
  STRIDE_CHECK_ARG(compiler);
  compiler->compiler.options().jobs = jobs;
  return ok();
}

stride_status stride_compiler_compile(const stride_compiler *compiler,
                                      const char *source, size_t length,
                                      const char *name,
                                      stride_compile_result **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(compiler);
  STRIDE_CHECK_ARG(source);
  return finishCompile(compiler->compiler.compile(std::string(source, length),
                                                  name ? name : "<graph>"),
                       out);
}

stride_status stride_compiler_compile_file(const stride_compiler *compiler,
                                           const char *path,
                                           stride_compile_result **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(compiler);
  STRIDE_CHECK_ARG(path);
  return finishCompile(compileFileCached(path, compiler->compiler.options()),
                       out);
}

stride_status stride_compiler_compile_training_step(
    const stride_compiler *compiler, const char *forward_path,
    const char *backward_path, stride_compile_result **forward_out,
    stride_compile_result **backward_out) {
  STRIDE_CHECK_ARG(forward_out);
  STRIDE_CHECK_ARG(backward_out);
  *forward_out = *backward_out = nullptr;
  STRIDE_CHECK_ARG(compiler);
  STRIDE_CHECK_ARG(forward_path);
  STRIDE_CHECK_ARG(backward_path);
  TrainingCompileResult both = compileTrainingStep(
      forward_path, backward_path, compiler->compiler.options());
  // The backward's status first, so that the last error is the forward's
  // where both failed (the backward then never compiled).
  stride_status backward = finishCompile(std::move(both.backward), backward_out,
                                         "the backward graph");
  std::string backwardError = lastError;
  stride_status forward = finishCompile(std::move(both.forward), forward_out);
  if (forward != STRIDE_OK || backward == STRIDE_OK)
    return forward;
  return fail(backward, backwardError);
}

void stride_compile_result_destroy(stride_compile_result *result) {
  delete result;
}

int stride_compile_result_succeeded(const stride_compile_result *result) {
  return result && result->result.success;
}

const char *stride_compile_result_text(const stride_compile_result *result) {
  return result ? result->result.text.c_str() : "";
}

const uint8_t *
stride_compile_result_module_bytes(const stride_compile_result *result,
                                   size_t *size) {
  const std::vector<uint8_t> *bytes =
      result ? &result->result.moduleBytes : nullptr;
  if (size)
    *size = bytes ? bytes->size() : 0;
  return bytes && !bytes->empty() ? bytes->data() : nullptr;
}

size_t
stride_compile_result_num_diagnostics(const stride_compile_result *result) {
  return result ? result->result.diagnostics.size() : 0;
}

stride_status
stride_compile_result_get_diagnostic(const stride_compile_result *result,
                                     size_t index, stride_diagnostic *out) {
  STRIDE_CHECK_ARG(result);
  STRIDE_CHECK_ARG(out);
  const std::vector<Diagnostic> &all = result->result.diagnostics;
  if (index >= all.size())
    return fail(STRIDE_INVALID_ARGUMENT,
                "diagnostic index " + std::to_string(index) +
                    " is out of range: the result has " +
                    std::to_string(all.size()) + " diagnostics");
  fillDiagnostic(all[index], out);
  return ok();
}

const char *
stride_compile_result_diagnostic_node(const stride_compile_result *result,
                                      size_t index) {
  if (!result || index >= result->result.diagnostics.size())
    return "";
  return result->result.diagnostics[index].node.c_str();
}

stride_status stride_compile_result_get_note(const stride_compile_result *result,
                                             size_t index, size_t note,
                                             stride_diagnostic *out) {
  stride_diagnostic parent;
  if (stride_status s = stride_compile_result_get_diagnostic(result, index,
                                                             &parent))
    return s;
  const std::vector<Diagnostic> &notes =
      result->result.diagnostics[index].notes;
  if (note >= notes.size())
    return fail(STRIDE_INVALID_ARGUMENT,
                "note index " + std::to_string(note) +
                    " is out of range: diagnostic " + std::to_string(index) +
                    " has " + std::to_string(notes.size()) + " notes");
  fillDiagnostic(notes[note], out);
  return ok();
}

const char *
stride_compile_result_format_diagnostics(const stride_compile_result *result) {
  if (!result)
    return "";
  auto *mutableResult = const_cast<stride_compile_result *>(result);
  mutableResult->formatted.clear();
  for (const Diagnostic &d : result->result.diagnostics)
    mutableResult->formatted += d.format();
  return result->formatted.c_str();
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

stride_status stride_compile_result_get_module(const stride_compile_result *result,
                                               stride_module **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(result);
  if (!result->result.success || result->result.moduleBytes.empty())
    return fail(STRIDE_INVALID_ARGUMENT,
                "the compile result holds no module: it "
                "failed, or emitted text (see stride_compiler_set_emit)");
  return newModule(result->result.module, "module", out);
}

stride_status stride_module_load(const void *data, size_t size,
                                 const char *name, stride_module **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(data);
  std::string moduleName = name ? name : "module";
  Result<ModuleDesc> desc =
      parseModule(static_cast<const uint8_t *>(data), size, moduleName);
  if (!desc)
    return fail(desc.error());
  return newModule(std::move(*desc), std::move(moduleName), out);
}

stride_status stride_module_load_file(const char *path, stride_module **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(path);
  Result<ModuleDesc> desc = readModuleFile(path);
  if (!desc)
    return fail(desc.error());
  return newModule(std::move(*desc), path, out);
}

void stride_module_destroy(stride_module *module) { delete module; }

const char *stride_module_arch(const stride_module *module) {
  return module ? module->desc.target.arch.c_str() : "";
}

const char *stride_module_entry_name(const stride_module *module) {
  return module ? module->desc.signature.entryName.c_str() : "";
}

size_t stride_module_num_inputs(const stride_module *module) {
  return module ? module->desc.signature.inputs.size() : 0;
}

size_t stride_module_num_outputs(const stride_module *module) {
  return module ? module->desc.signature.outputs.size() : 0;
}

size_t stride_module_num_absent_outputs(const stride_module *module) {
  return module ? module->desc.signature.absentOutputs.size() : 0;
}

stride_status stride_module_get_absent_output(const stride_module *module,
                                              size_t index, size_t *position) {
  STRIDE_CHECK_ARG(module);
  STRIDE_CHECK_ARG(position);
  const GraphSignature &sig = module->desc.signature;
  if (stride_status s = checkSignatureIndex(sig, index,
                                            sig.absentOutputs.size(),
                                            "absent output");
      s != STRIDE_OK)
    return s;
  *position = sig.absentOutputs[index];
  return ok();
}

const char *stride_module_describe(const stride_module *module) {
  return module ? module->description.c_str() : "";
}

const char *stride_dtype_name(stride_dtype dtype) {
  if (dtype < STRIDE_DTYPE_F16 || dtype > STRIDE_DTYPE_I64)
    return "?";
  // dtypeName views a string literal, so it is NUL-terminated.
  return dtypeName(static_cast<DType>(dtype)).data();
}

size_t stride_dtype_size(stride_dtype dtype) {
  if (dtype < STRIDE_DTYPE_F16 || dtype > STRIDE_DTYPE_I64)
    return 0;
  return dtypeSize(static_cast<DType>(dtype));
}

stride_status stride_module_get_input(const stride_module *module,
                                      size_t index, stride_tensor_info *out) {
  return getTensor(module, index, /*input=*/true, out);
}

stride_status stride_module_get_output(const stride_module *module,
                                       size_t index, stride_tensor_info *out) {
  return getTensor(module, index, /*input=*/false, out);
}

stride_status stride_module_get_output_alias(const stride_module *module,
                                             size_t index, int64_t *input) {
  STRIDE_CHECK_ARG(module);
  STRIDE_CHECK_ARG(input);
  const GraphSignature &sig = module->desc.signature;
  if (stride_status s =
          checkSignatureIndex(sig, index, sig.outputs.size(), "output");
      s != STRIDE_OK)
    return s;
  *input = sig.outputs[index].aliasOfInput;
  return ok();
}

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

stride_status stride_runtime_create(int device, stride_runtime **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  Result<std::unique_ptr<Runtime>> runtime = Runtime::create(device);
  if (!runtime)
    return fail(runtime.error());
  std::string description = (*runtime)->describeDevice();
  std::string arch = (*runtime)->deviceArch();
  *out = new stride_runtime{std::move(*runtime), std::move(description),
                            std::move(arch)};
  return ok();
}

void stride_runtime_destroy(stride_runtime *runtime) { delete runtime; }

const char *stride_runtime_describe_device(const stride_runtime *runtime) {
  return runtime ? runtime->description.c_str() : "";
}

const char *stride_runtime_device_arch(const stride_runtime *runtime) {
  return runtime ? runtime->arch.c_str() : "";
}

stride_status stride_executable_create(stride_runtime *runtime,
                                       const stride_module *module,
                                       stride_executable **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(runtime);
  STRIDE_CHECK_ARG(module);
  Result<std::shared_ptr<const Executable>> loaded =
      Executable::load(*runtime->runtime, module->desc, module->name);
  if (!loaded)
    return fail(loaded.error());
  auto executable = std::make_unique<stride_executable>();
  executable->executable = std::move(*loaded);
  if (stride_status s = newInvocation(executable->executable,
                                      /*flags=*/0, executable->own))
    return s;
  *out = executable.release();
  return ok();
}

void stride_executable_destroy(stride_executable *executable) {
  delete executable;
}

stride_status stride_executable_run_host(stride_executable *executable,
                                         const void *const *inputs,
                                         size_t num_inputs,
                                         void *const *outputs,
                                         size_t num_outputs) {
  STRIDE_CHECK_ARG(executable);
  return runHost(*executable->own.invocation, inputs, num_inputs, outputs,
                 num_outputs);
}

stride_status stride_executable_run_device(stride_executable *executable,
                                           const uint64_t *inputs,
                                           size_t num_inputs,
                                           const uint64_t *outputs,
                                           size_t num_outputs, void *stream) {
  STRIDE_CHECK_ARG(executable);
  return runDevice(*executable->own.invocation, inputs, num_inputs, outputs,
                   num_outputs, stream);
}

//===----------------------------------------------------------------------===//
// Invocation
//===----------------------------------------------------------------------===//

stride_status stride_invocation_create(stride_executable *executable,
                                       int flags, stride_invocation **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(executable);
  return createInvocation(*executable, flags, nullptr, *out);
}

stride_status stride_invocation_create_sharing_states(
    stride_executable *executable, int flags,
    stride_invocation *share_states_with, stride_invocation **out) {
  STRIDE_CHECK_ARG(out);
  *out = nullptr;
  STRIDE_CHECK_ARG(executable);
  STRIDE_CHECK_ARG(share_states_with);
  return createInvocation(*executable, flags,
                          share_states_with->invocation.get(), *out);
}

void stride_invocation_destroy(stride_invocation *invocation) {
  delete invocation;
}

stride_status stride_invocation_run_host(stride_invocation *invocation,
                                         const void *const *inputs,
                                         size_t num_inputs,
                                         void *const *outputs,
                                         size_t num_outputs) {
  STRIDE_CHECK_ARG(invocation);
  return runHost(*invocation->invocation, inputs, num_inputs, outputs,
                 num_outputs);
}

stride_status stride_invocation_run_device(stride_invocation *invocation,
                                           const uint64_t *inputs,
                                           size_t num_inputs,
                                           const uint64_t *outputs,
                                           size_t num_outputs, void *stream) {
  STRIDE_CHECK_ARG(invocation);
  return runDevice(*invocation->invocation, inputs, num_inputs, outputs,
                   num_outputs, stream);
}

stride_status stride_invocation_bind_input_value(stride_invocation *invocation,
                                                 size_t input, int64_t value) {
  STRIDE_CHECK_ARG(invocation);
  if (Status s = invocation->invocation->bindInputValue(input, value); !s)
    return fail(s.error());
  return ok();
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

size_t stride_module_num_states(const stride_module *module) {
  return module ? module->desc.states.size() : 0;
}

stride_status stride_module_get_state(const stride_module *module,
                                      size_t index, stride_tensor_info *out) {
  STRIDE_CHECK_ARG(module);
  STRIDE_CHECK_ARG(out);
  if (stride_status s = checkStateIndex(*module, index))
    return s;
  fillTensorInfo(module->desc.states[index].tensor, out);
  return ok();
}

stride_status stride_module_input_is_mutated(const stride_module *module,
                                             size_t index, int *out) {
  STRIDE_CHECK_ARG(module);
  STRIDE_CHECK_ARG(out);
  const std::vector<TensorSignature> &inputs = module->desc.signature.inputs;
  if (index >= inputs.size())
    return fail(STRIDE_INVALID_ARGUMENT,
                "input index " + std::to_string(index) +
                    " is out of range: the module has " +
                    std::to_string(inputs.size()) + " inputs");
  *out = inputs[index].mutated ? 1 : 0;
  return ok();
}

stride_status stride_module_state_starts_zeroed(const stride_module *module,
                                                size_t index, int *out) {
  STRIDE_CHECK_ARG(module);
  STRIDE_CHECK_ARG(out);
  if (stride_status s = checkStateIndex(*module, index))
    return s;
  *out = module->desc.states[index].init.empty() ? 1 : 0;
  return ok();
}

stride_status stride_invocation_read_state(stride_invocation *invocation,
                                           const char *name, void *data,
                                           size_t size) {
  STRIDE_CHECK_ARG(invocation);
  STRIDE_CHECK_ARG(name);
  Result<HostArray> value = invocation->invocation->readState(name);
  if (!value)
    return fail(value.error());
  if (size != value->data.size())
    return fail(STRIDE_INVALID_ARGUMENT,
                std::string("state '") + name + "' holds " +
                    std::to_string(value->data.size()) + " bytes, given room "
                    "for " + std::to_string(size));
  if (size)
    STRIDE_CHECK_ARG(data);
  std::memcpy(data, value->data.data(), size);
  return ok();
}

stride_status stride_invocation_write_states(stride_invocation *invocation,
                                             size_t count,
                                             const char *const *names,
                                             const void *const *data,
                                             const size_t *sizes) {
  STRIDE_CHECK_ARG(invocation);
  if (count) {
    STRIDE_CHECK_ARG(names);
    STRIDE_CHECK_ARG(data);
    STRIDE_CHECK_ARG(sizes);
  }
  const ModuleDesc &desc = invocation->invocation->executable().desc();
  StateValues values;
  for (size_t i = 0; i < count; ++i) {
    STRIDE_CHECK_ARG(names[i]);
    if (sizes[i])
      STRIDE_CHECK_ARG(data[i]);
    // Only the size is given: the array takes its state's dtype and shape.
    HostArray array;
    if (const StateDesc *state = findState(desc, names[i])) {
      array.dtype = state->tensor.dtype;
      array.shape = state->tensor.shape;
    }
    values.emplace_back(names[i], withBytes(std::move(array), data[i], sizes[i]));
  }
  return writeStates(*invocation, values);
}

stride_status
stride_invocation_write_state_values(stride_invocation *invocation,
                                     size_t count,
                                     const stride_state_value *values) {
  STRIDE_CHECK_ARG(invocation);
  if (count)
    STRIDE_CHECK_ARG(values);
  StateValues arrays;
  for (size_t i = 0; i < count; ++i) {
    const stride_state_value &v = values[i];
    STRIDE_CHECK_ARG(v.name);
    if (v.rank)
      STRIDE_CHECK_ARG(v.shape);
    if (v.size)
      STRIDE_CHECK_ARG(v.data);
    if (v.dtype < STRIDE_DTYPE_F16 || v.dtype > STRIDE_DTYPE_I64)
      return fail(STRIDE_INVALID_ARGUMENT,
                  std::string("the value of state '") + v.name +
                      "' has an unknown dtype " + std::to_string(int(v.dtype)));
    HostArray array;
    array.dtype = static_cast<DType>(v.dtype);
    array.shape.assign(v.shape, v.shape + v.rank);
    arrays.emplace_back(v.name, withBytes(std::move(array), v.data, v.size));
  }
  return writeStates(*invocation, arrays);
}

stride_status stride_invocation_reset_states(stride_invocation *invocation) {
  STRIDE_CHECK_ARG(invocation);
  if (Status s = invocation->invocation->resetStates(); !s)
    return fail(s.error());
  return ok();
}

} // extern "C"
