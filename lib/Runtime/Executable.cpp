//===- Executable.cpp - Loading a module's code on a device ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Loading checks everything that can be checked before a run: the module's
// consistency, the device's arch, each image, each kernel symbol, each
// launch's block size and shared memory. What it builds is never written
// again, so invocations on any threads read it without locks.
//
//===----------------------------------------------------------------------===//

#include "L2Windows.h"
#include "LibraryRegistry.h"
#include "NcclCollective.h"
#include "RuntimeImpl.h"

#include <algorithm>

namespace stride {

Executable::Impl::~Impl() {
  rt.makeCurrent();
  for (size_t i = 0; i < constantAddresses.size(); ++i)
    if (constantAddresses[i])
      constantAllocator->release(constantAddresses[i],
                                 uint64_t(desc.buffers[i].sizeBytes));
  for (CUmodule m : modules)
    if (m)
      cu.cuModuleUnload(m);
}

std::string Executable::Impl::stepName(size_t index) const {
  std::string s = "step " + str(index + 1) + " of " + str(desc.steps.size());
  const Step &step = desc.steps[index];
  if (const auto *d = std::get_if<DispatchStep>(&step))
    return s + " (kernel " + kernelName(*d) + ")";
  if (const auto *call = std::get_if<LibraryCallStep>(&step))
    return s + " (library call " + quoted(call->routine) + ")";
  return s + (std::holds_alternative<FillStep>(step) ? " (fill)" : " (copy)");
}

std::string Executable::Impl::bufferName(size_t index) const {
  const BufferDesc &b = desc.buffers[index];
  std::string s = "buffer " + str(index);
  if (b.kind == BufferKind::Input)
    s += " (input " + quoted(desc.signature.inputs[b.index].name) + ")";
  else if (b.kind == BufferKind::Output)
    s += " (output " + quoted(desc.signature.outputs[b.index].name) + ")";
  else if (b.kind == BufferKind::Constant)
    s += " (constant " + str(b.index) + ")";
  else if (b.kind == BufferKind::State)
    s += " (state " + quoted(desc.states[b.index].tensor.name) + ")";
  else
    s += " (temporary)";
  return s + " of " + name;
}

namespace {

/// Fills an Executable::Impl; each step names the image, kernel or launch
/// that fails.
class Loader {
public:
  explicit Loader(Executable::Impl &exe) : exe(exe), rt(exe.rt), cu(exe.cu) {}

  Status load() {
    const ModuleDesc &desc = exe.desc;
    exe.modules.assign(desc.executables.size(), nullptr);
    exe.functions.resize(desc.executables.size());
    for (size_t e = 0; e < desc.executables.size(); ++e) {
      if (Status s = loadImage(e); !s)
        return s;
      exe.functions[e].assign(desc.executables[e].kernels.size(), nullptr);
      for (size_t k = 0; k < desc.executables[e].kernels.size(); ++k)
        if (Status s = resolveKernel(e, k); !s)
          return s;
    }
    if (Status s = prepareDispatches(); !s)
      return s;
    if (Status s = prepareLibraryCalls(); !s)
      return s;
    if (Status s = uploadConstants(); !s)
      return s;
    Result<L2WindowPlan> windows = prepareL2Windows(rt, desc, exe.constantAddresses);
    if (!windows)
      return prefixError(exe.name + ": ", windows.error());
    exe.l2Windows = std::move(*windows);
    buildArgTemplates();
    return Status::ok();
  }

private:
  Status loadImage(size_t index) {
    const CodeImage &image = exe.desc.executables[index].image;
    std::vector<uint8_t> bytes = image.bytes;
    if (image.kind == CodeKind::Ptx)
      bytes.push_back(0); // cuModuleLoadData reads PTX as a C string.
    char log[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    CUmodule module = nullptr;
    CUresult r =
        cu.cuModuleLoadDataEx(&module, bytes.data(), 2, options, values);
    if (r == CUDA_SUCCESS) {
      exe.modules[index] = module;
      return Status::ok();
    }
    std::string message = exe.name + ": loading executable " + str(index) +
                          " (" +
                          (image.kind == CodeKind::Ptx ? "PTX" : "CUBIN") +
                          " for " + exe.desc.target.arch + ") on " +
                          rt.describeDevice() + " failed: " + cu.errorText(r);
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      message += "; the NVIDIA driver is older than the NVRTC that produced "
                 "the PTX: update the driver, or compile to a CUBIN for "
                 "this GPU with `stridec --arch=sm_" +
                 str(rt.ccMajor * 10 + rt.ccMinor) + "`";
    if (log[0])
      message += "\nJIT log:\n" + std::string(log);
    return makeError(cudaErrorCode(r), message);
  }

  Status resolveKernel(size_t executable, size_t index) {
    const KernelDesc &k = exe.desc.executables[executable].kernels[index];
    CUresult r = cu.cuModuleGetFunction(&exe.functions[executable][index],
                                        exe.modules[executable], k.name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      return makeError(ErrorCode::NotFound,
                       exe.name + ": kernel " + quoted(k.name) +
                           " is not in executable " + str(executable) +
                           " (kernels must be declared extern \"C\" "
                           "__global__)");
    if (r != CUDA_SUCCESS)
      return rt.cudaError(
          exe.name + ": cuModuleGetFunction(" + quoted(k.name) + ")", r);
    return Status::ok();
  }

  Result<int> functionAttribute(const DispatchStep &d,
                                CUfunction_attribute attr) {
    int value = 0;
    if (CUresult r = cu.cuFuncGetAttribute(
            &value, attr, exe.functions[d.executable][d.kernel]))
      return rt.cudaError(
          exe.name + ": cuFuncGetAttribute(" + exe.kernelName(d) + ")", r);
    return value;
  }

  /// Checks a dispatch against what its kernel and the device allow.
  Status checkDispatch(size_t index, const DispatchStep &d) {
    Result<int> maxThreads =
        functionAttribute(d, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    if (!maxThreads)
      return maxThreads.error();
    if (d.block.volume() > uint64_t(*maxThreads))
      return makeError(ErrorCode::Internal,
                       exe.name + ": " + exe.stepName(index) + " uses " +
                           str(d.block.volume()) +
                           " threads per block, but on " + rt.describeDevice() +
                           " the kernel can run at most " + str(*maxThreads) +
                           " (it needs too many registers); this is a "
                           "Stride code generation bug");
    if (d.dynamicSharedBytes > uint32_t(rt.maxSharedOptin))
      return makeError(ErrorCode::Incompatible,
                       exe.name + ": " + exe.stepName(index) + " needs " +
                           str(d.dynamicSharedBytes) +
                           " bytes of dynamic shared memory, but " +
                           rt.describeDevice() + " offers at most " +
                           str(rt.maxSharedOptin) + " per block");
    return Status::ok();
  }

  /// Checks each dispatch, and opts kernels into more than 48 KiB of
  /// dynamic shared memory.
  Status prepareDispatches() {
    const ModuleDesc &desc = exe.desc;
    std::vector<std::vector<uint32_t>> maxShared(desc.executables.size());
    for (size_t e = 0; e < desc.executables.size(); ++e)
      maxShared[e].assign(desc.executables[e].kernels.size(), 0);
    for (size_t i = 0; i < desc.steps.size(); ++i) {
      const auto *d = std::get_if<DispatchStep>(&desc.steps[i]);
      if (!d)
        continue;
      if (Status s = checkDispatch(i, *d); !s)
        return s;
      uint32_t &shared = maxShared[d->executable][d->kernel];
      shared = std::max(shared, d->dynamicSharedBytes);
    }
    for (size_t e = 0; e < desc.executables.size(); ++e)
      for (size_t k = 0; k < desc.executables[e].kernels.size(); ++k) {
        if (maxShared[e][k] <= 48 * 1024)
          continue;
        if (CUresult r = cu.cuFuncSetAttribute(
                exe.functions[e][k],
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(maxShared[e][k])))
          return rt.cudaError(exe.name + ": raising the shared memory limit "
                                         "of kernel " +
                                  quoted(desc.executables[e].kernels[k].name),
                              r);
      }
    return Status::ok();
  }

  /// Prepares each library call through the registry (loading its library,
  /// checking its descriptor): a routine the registry lacks, a missing
  /// library or symbol, or a descriptor the routine refuses fails the load,
  /// naming the step.
  Status prepareLibraryCalls() {
    LibrarySessions loadSessions;
    exe.libraryCalls.resize(exe.desc.steps.size());
    for (size_t i = 0; i < exe.desc.steps.size(); ++i)
      if (const auto *call = std::get_if<LibraryCallStep>(&exe.desc.steps[i]))
        if (Status s = prepareLibraryCall(i, *call, loadSessions); !s)
          return s;
    exe.collectiveGroup = collectiveGroupOf(loadSessions);
    return Status::ok();
  }

  Status prepareLibraryCall(size_t index, const LibraryCallStep &call,
                            LibrarySessions &loadSessions) {
    LibraryCallContext context{cu, call, {}, exe.name + ": " + exe.stepName(index)};
    const RegisteredRoutine *routine = findLibraryRoutine(call.routine);
    if (!routine)
      return makeError(ErrorCode::NotFound,
                       context.where + " calls " + quoted(call.routine) +
                           ", which this runtime does not provide");
    for (uint32_t b : call.buffers)
      context.bufferBytes.push_back(exe.desc.buffers[b].sizeBytes);
    Result<std::unique_ptr<PreparedLibraryCall>> prepared =
        stride::prepareLibraryCall(*routine, context, loadSessions);
    if (!prepared)
      return prepared.error();
    exe.libraryCalls[index] = std::move(*prepared);
    return Status::ok();
  }

  /// Uploads each constant once; its buffer is shared by every invocation.
  Status uploadConstants() {
    const ModuleDesc &desc = exe.desc;
    exe.constantAllocator = exe.runtime.defaultAllocator();
    exe.constantAddresses.assign(desc.buffers.size(), 0);
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      if (b.kind != BufferKind::Constant)
        continue;
      const SharedBytes &data = desc.constants[b.index].data;
      Result<uint64_t> address = exe.constantAllocator->allocate(
          uint64_t(b.sizeBytes), exe.bufferName(i));
      if (!address)
        return address.error();
      exe.constantAddresses[i] = *address;
      if (data.empty())
        continue;
      std::string what = "uploading " + exe.bufferName(i);
      if (CUresult r = cu.cuMemcpyHtoDAsync(exe.constantAddresses[i],
                                            data.data(), data.size(), nullptr))
        return rt.cudaError(what, r);
      if (CUresult r = cu.cuStreamSynchronize(nullptr))
        return rt.cudaError(what, r);
    }
    return Status::ok();
  }

  static ArgSlot scalarSlot(const KernelArg &arg) {
    ArgSlot slot;
    slot.i64 = 0;
    switch (arg.kind) {
    case KernelArg::Kind::Buffer: break;
    case KernelArg::Kind::I32: slot.i32 = int32_t(arg.intValue); break;
    case KernelArg::Kind::I64: slot.i64 = arg.intValue; break;
    case KernelArg::Kind::F32: slot.f32 = float(arg.floatValue); break;
    case KernelArg::Kind::F64: slot.f64 = arg.floatValue; break;
    // A symbol's value is set per bound shape (Invocation::bindInputShapes).
    case KernelArg::Kind::Symbol: break;
    }
    return slot;
  }

  void buildArgTemplates() {
    for (const Step &step : exe.desc.steps) {
      std::vector<ArgSlot> slots;
      if (const auto *d = std::get_if<DispatchStep>(&step))
        for (const KernelArg &arg : d->args)
          slots.push_back(scalarSlot(arg));
      exe.argTemplates.push_back(std::move(slots));
    }
  }

  Executable::Impl &exe;
  const Runtime::Impl &rt;
  const CudaDriver &cu;
};

} // namespace

Executable::Executable(std::unique_ptr<Impl> impl) : pimpl(std::move(impl)) {}
Executable::~Executable() = default;

Result<std::shared_ptr<const Executable>>
Executable::load(Runtime &runtime, ModuleDesc desc, std::string name) {
  const Runtime::Impl &rt = runtime.impl();
  if (Status s = verifyModule(desc, name); !s)
    return s.error();
  if (Status s = checkArchCompatible(desc, name, rt.ccMajor, rt.ccMinor,
                                     rt.describeDevice());
      !s)
    return s.error();
  if (Status s = rt.makeCurrent(); !s)
    return s.error();
  auto impl = std::make_unique<Impl>(runtime, std::move(desc), std::move(name));
  if (Status s = Loader(*impl).load(); !s)
    return s.error();
  return std::shared_ptr<const Executable>(new Executable(std::move(impl)));
}

Result<std::shared_ptr<const Executable>>
Executable::loadBytes(Runtime &runtime, const uint8_t *data, size_t size,
                      std::string name) {
  Result<ModuleDesc> desc = parseModule(data, size, name);
  if (!desc)
    return desc.error();
  return load(runtime, std::move(*desc), std::move(name));
}

Result<std::shared_ptr<const Executable>>
Executable::loadFile(Runtime &runtime, const std::string &path) {
  Result<ModuleDesc> desc = readModuleFile(path);
  if (!desc)
    return desc.error();
  return load(runtime, std::move(*desc), path);
}

const ModuleDesc &Executable::desc() const { return pimpl->desc; }
const std::string &Executable::name() const { return pimpl->name; }
Runtime &Executable::runtime() const { return pimpl->runtime; }

Executable::L2Windows Executable::l2Windows() const {
  L2Windows summary;
  summary.bytes = pimpl->l2Windows.bytes;
  for (const CUaccessPolicyWindow &w : pimpl->l2Windows.perStep)
    if (w.num_bytes > 0) {
      ++summary.launches;
      summary.hitRatio = w.hitRatio;
    }
  return summary;
}

} // namespace stride
