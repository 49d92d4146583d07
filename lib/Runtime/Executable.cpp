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

#include "RuntimeImpl.h"

#include <algorithm>

namespace stride {

Executable::Impl::~Impl() {
  rt.makeCurrent();
  for (CUmodule m : modules)
    if (m)
      cu.cuModuleUnload(m);
}

std::string Executable::Impl::bufferName(size_t index) const {
  const BufferDesc &b = desc.buffers[index];
  std::string s = "buffer " + str(index);
  if (b.kind == BufferKind::Input)
    s +=
        " (input " + quoted(desc.signature.inputs[b.signatureIndex].name) + ")";
  else if (b.kind == BufferKind::Output)
    s += " (output " + quoted(desc.signature.outputs[b.signatureIndex].name) +
         ")";
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
    exe.modules.assign(desc.images.size(), nullptr);
    exe.functions.assign(desc.kernels.size(), nullptr);
    for (size_t i = 0; i < desc.images.size(); ++i)
      if (Status s = loadImage(i); !s)
        return s;
    for (size_t k = 0; k < desc.kernels.size(); ++k)
      if (Status s = resolveKernel(k); !s)
        return s;
    if (Status s = prepareLaunches(); !s)
      return s;
    buildArgTemplates();
    return Status::ok();
  }

private:
  Status loadImage(size_t index) {
    const CodeImage &image = exe.desc.images[index];
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
    std::string message = exe.name + ": loading code image " + str(index) +
                          " (" +
                          (image.kind == CodeKind::Ptx ? "PTX" : "CUBIN") +
                          " for " + exe.desc.targetArch + ") on " +
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

  Status resolveKernel(size_t index) {
    const KernelDesc &k = exe.desc.kernels[index];
    CUresult r = cu.cuModuleGetFunction(
        &exe.functions[index], exe.modules[k.imageIndex], k.name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      return makeError(ErrorCode::NotFound,
                       exe.name + ": kernel " + exe.kernelName(index) +
                           " is not in code image " + str(k.imageIndex) +
                           " (kernels must be declared extern \"C\" "
                           "__global__)");
    if (r != CUDA_SUCCESS)
      return rt.cudaError(
          exe.name + ": cuModuleGetFunction(" + exe.kernelName(index) + ")", r);
    return Status::ok();
  }

  Result<int> functionAttribute(size_t kernel, CUfunction_attribute attr) {
    int value = 0;
    if (CUresult r = cu.cuFuncGetAttribute(&value, attr, exe.functions[kernel]))
      return rt.cudaError(
          exe.name + ": cuFuncGetAttribute(" + exe.kernelName(kernel) + ")", r);
    return value;
  }

  /// Checks each launch against what its kernel and the device allow, and
  /// opts kernels into more than 48 KiB of dynamic shared memory.
  Status prepareLaunches() {
    const ModuleDesc &desc = exe.desc;
    std::vector<uint32_t> maxShared(desc.kernels.size(), 0);
    for (size_t i = 0; i < desc.launches.size(); ++i) {
      const LaunchDesc &l = desc.launches[i];
      Result<int> maxThreads = functionAttribute(
          l.kernelIndex, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
      if (!maxThreads)
        return maxThreads.error();
      if (l.block.volume() > uint64_t(*maxThreads))
        return makeError(ErrorCode::Internal,
                         exe.name + ": " + exe.launchName(i) + " uses " +
                             str(l.block.volume()) +
                             " threads per block, but on " +
                             rt.describeDevice() +
                             " the kernel can run at most " + str(*maxThreads) +
                             " (it needs too many registers); this is a "
                             "Stride code generation bug");
      if (l.dynamicSharedBytes > uint32_t(rt.maxSharedOptin))
        return makeError(ErrorCode::Incompatible,
                         exe.name + ": " + exe.launchName(i) + " needs " +
                             str(l.dynamicSharedBytes) +
                             " bytes of dynamic shared memory, but " +
                             rt.describeDevice() + " offers at most " +
                             str(rt.maxSharedOptin) + " per block");
      maxShared[l.kernelIndex] =
          std::max(maxShared[l.kernelIndex], l.dynamicSharedBytes);
    }
    for (size_t k = 0; k < desc.kernels.size(); ++k) {
      if (maxShared[k] <= 48 * 1024)
        continue;
      if (CUresult r = cu.cuFuncSetAttribute(
              exe.functions[k], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(maxShared[k])))
        return rt.cudaError(exe.name + ": raising the shared memory limit of " +
                                exe.kernelName(k),
                            r);
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
    }
    return slot;
  }

  void buildArgTemplates() {
    for (const LaunchDesc &l : exe.desc.launches) {
      std::vector<ArgSlot> slots;
      for (const KernelArg &arg : l.args)
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

} // namespace stride
