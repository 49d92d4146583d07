//===- Planner.cpp - The launch plan and signature of a compiled graph ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Walks the entry function in program order (read-only) and fills in a
// ModuleDesc: one Input buffer per argument, one buffer per kernel result
// (Output when the function returns it, Temp otherwise), and the kernels'
// launches with their arguments. Views outside kernels allocate nothing: a
// kernel input that is a view gets the buffer of the view's root, and the
// kernel reads it through the view's layout (absolute in that buffer).
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/Planner.h"
#include "stride/Dialect/Stride/IR/Graph.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace stride {
namespace {

/// Bytes of device memory for a buffer Stride allocates itself: the storage
/// extent, rounded up to 16 bytes (so byte-wide atomics may touch the whole
/// aligned word, and no buffer has size 0).
int64_t allocationBytes(int64_t bytes) {
  return std::max<int64_t>(16, (bytes + 15) / 16 * 16);
}

} // namespace

FailureOr<ModuleDesc> planModule(func::FuncOp entry, const CudaSource &source,
                                 CodeImage image, std::string arch,
                                 std::string producer) {
  ModuleDesc desc;
  desc.producer = std::move(producer);
  desc.targetArch = std::move(arch);
  desc.images.push_back(std::move(image));
  desc.signature.entryName = entry.getSymName().str();

  auto signatureOf = [&](Type type, std::string name,
                         Location loc) -> FailureOr<TensorSignature> {
    auto tensor = dyn_cast<StridedTensorType>(type);
    std::optional<DType> dtype = dtypeOf(type);
    if (!tensor || !dtype)
      return emitError(loc) << "the graph's signature has the unsupported type "
                            << type;
    TensorSignature t;
    t.name = std::move(name);
    t.dtype = *dtype;
    Layout layout = tensor.getLayout();
    t.shape = layout.shape;
    t.strides = layout.strides;
    t.storageOffset = layout.offset;
    return t;
  };

  llvm::DenseMap<Value, uint32_t> bufferOf;
  for (BlockArgument arg : entry.getArguments()) {
    FailureOr<TensorSignature> t = signatureOf(
        arg.getType(), argumentName(entry, arg.getArgNumber()), arg.getLoc());
    if (failed(t))
      return failure();
    std::optional<int64_t> bytes = storageBytes(*t);
    if (!bytes)
      return emitError(arg.getLoc()) << "the storage of argument #"
                                     << arg.getArgNumber() << " is too large";
    bufferOf[arg] = desc.buffers.size();
    desc.buffers.push_back(
        {BufferKind::Input, static_cast<int32_t>(arg.getArgNumber()), *bytes});
    desc.signature.inputs.push_back(std::move(*t));
  }

  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  llvm::DenseMap<Value, unsigned> returnedAt;
  // (result index, the result index of the value's first return).
  SmallVector<std::pair<unsigned, unsigned>> duplicates;
  for (auto [j, type] : llvm::enumerate(entry.getResultTypes())) {
    FailureOr<TensorSignature> t = signatureOf(
        type, resultName(entry, j), ret.getLoc());
    if (failed(t))
      return failure();
    desc.signature.outputs.push_back(std::move(*t));
    Value v = ret.getOperand(j);
    auto [it, inserted] = returnedAt.try_emplace(v, j);
    if (!inserted) {
      if (!source.copyKernel)
        return ret.emitError() << "returns one value twice, but the emitted "
                                  "source has no copy kernel";
      duplicates.push_back({static_cast<unsigned>(j), it->second});
    }
    if (!isa_and_nonnull<KernelOp>(v.getDefiningOp()))
      return ret.emitError()
             << "result #" << j
             << " is not written by a kernel (an argument or a view); "
                "stride-legalize-layouts copies such results, and "
                "stride-outline-kernels puts the copy into a kernel";
  }

  llvm::DenseMap<Operation *, const CudaKernel *> emitted;
  for (const CudaKernel &k : source.kernels)
    emitted[KernelOp(k.op).getOperation()] = &k;

  for (Operation &op : entry.getBody().front()) {
    if (auto view = dyn_cast<ViewOpInterface>(op)) {
      auto it = bufferOf.find(view.getSource());
      if (it == bufferOf.end())
        return op.emitError() << "a view of a value with no buffer";
      bufferOf[op.getResult(0)] = it->second;
      continue;
    }
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel) {
      if (isFunctional(&op))
        return op.emitError()
               << "functional op outside a stride.kernel; the CUDA backend "
                  "needs kernel formation (stride-outline-kernels) first";
      continue;
    }
    auto found = emitted.find(kernel.getOperation());
    if (found == emitted.end())
      return kernel.emitError() << "kernel '" << kernel.getSymName()
                                << "' has no emitted CUDA function";
    const CudaKernel &k = *found->second;

    uint32_t kernelIndex = desc.kernels.size();
    desc.kernels.push_back({k.name, 0, k.description});

    std::vector<KernelArg> args;
    for (Value input : kernel.getInputs()) {
      auto it = bufferOf.find(input);
      if (it == bufferOf.end())
        return kernel.emitError() << "a kernel input with no buffer";
      args.push_back(KernelArg::buffer(it->second));
    }
    for (OpResult result : kernel.getResults()) {
      auto type = cast<StridedTensorType>(result.getType());
      std::optional<int64_t> extent = storageExtent(type.getLayout());
      if (!extent)
        return kernel.emitError() << "result #" << result.getResultNumber()
                                  << " has an unsupported type " << type;
      int64_t bytes =
          allocationBytes(*extent * int64_t(dtypeSize(type.getDType())));
      uint32_t index = desc.buffers.size();
      auto returned = returnedAt.find(result);
      if (returned != returnedAt.end())
        desc.buffers.push_back({BufferKind::Output,
                                static_cast<int32_t>(returned->second), bytes});
      else
        desc.buffers.push_back({BufferKind::Temp, -1, bytes});
      bufferOf[result] = index;
      args.push_back(KernelArg::buffer(index));
    }
    // Scratch of the kernel (the segmented index_add's inverse index): a
    // temporary buffer each, after the results.
    for (int64_t bytes : k.scratchBytes) {
      uint32_t index = desc.buffers.size();
      desc.buffers.push_back({BufferKind::Temp, -1, allocationBytes(bytes)});
      args.push_back(KernelArg::buffer(index));
    }
    for (const CudaLaunch &l : k.launches) {
      LaunchDesc launch;
      launch.kernelIndex = kernelIndex;
      launch.grid = l.grid;
      launch.block = l.block;
      launch.dynamicSharedBytes = l.dynamicSharedBytes;
      launch.args = args;
      if (l.phase)
        launch.args.push_back(KernelArg::i32(*l.phase));
      desc.launches.push_back(std::move(launch));
    }
  }

  // Outputs that repeat an earlier result: a buffer of their own, filled by
  // a byte copy once every kernel has run.
  if (!duplicates.empty()) {
    uint32_t copyIndex = desc.kernels.size();
    desc.kernels.push_back(
        {*source.copyKernel, 0, "copy of a value returned more than once"});
    for (auto [j, first] : duplicates) {
      const TensorSignature &t = desc.signature.outputs[j];
      int64_t bytes = storageBytes(t).value_or(0);
      uint32_t dst = desc.buffers.size();
      desc.buffers.push_back({BufferKind::Output, static_cast<int32_t>(j),
                              allocationBytes(bytes)});
      uint32_t src = bufferOf.lookup(ret.getOperand(first));
      if (bytes == 0)
        continue;
      LaunchDesc launch;
      launch.kernelIndex = copyIndex;
      launch.block = {256, 1, 1};
      launch.grid = {static_cast<uint32_t>(
                         std::min<int64_t>((bytes + 255) / 256, 4096)),
                     1, 1};
      launch.args = {KernelArg::buffer(src), KernelArg::buffer(dst),
                     KernelArg::i64(bytes)};
      desc.launches.push_back(std::move(launch));
    }
  }

  if (Status s = verifyModule(desc, entry.getSymName().str()); !s)
    return entry.emitError() << "the CUDA backend planned an inconsistent "
                                "module (a Stride bug): "
                             << s.error().message;
  return desc;
}

} // namespace stride
