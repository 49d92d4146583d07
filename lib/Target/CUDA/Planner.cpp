//===- Planner.cpp - The module of a planned graph ------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Translates the host plan (the plan dialect: stride-outline-executable and
// the passes after it) into a ModuleDesc, step by step: each buffer op
// becomes a buffer, each dispatch the launches of its kernel's schedule as
// emitted, each copy a launch of the copy kernel. Decides nothing.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/Planner.h"
#include "stride/Dialect/Plan/IR/PlanOps.h"
#include "stride/Dialect/Plan/Transforms/Passes.h"
#include "stride/Dialect/Stride/IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace stride {
namespace {

FailureOr<TensorSignature> signatureOf(Type type, std::string name,
                                       Location loc) {
  auto tensor = dyn_cast<StridedTensorType>(type);
  if (!tensor)
    return emitError(loc) << "the graph's signature has the unsupported type "
                          << type;
  TensorSignature t;
  t.name = std::move(name);
  t.dtype = tensor.getDType();
  Layout layout = tensor.getLayout();
  t.shape = layout.shape;
  t.strides = layout.strides;
  t.storageOffset = layout.offset;
  return t;
}

/// Fills in one ModuleDesc from the plan of `entry`.
class PlanTranslation {
public:
  PlanTranslation(func::FuncOp entry, const CudaSource &source, ModuleDesc &desc)
      : entry(entry), source(source), desc(desc) {}

  LogicalResult run();

private:
  LogicalResult translateSignature();
  LogicalResult translate(Operation &op);
  LogicalResult translateInput(plan::InputOp input);
  LogicalResult translateAlloc(plan::AllocOp alloc);
  LogicalResult translateDispatch(plan::DispatchOp dispatch);
  LogicalResult translateCopy(plan::CopyOp copy);
  FailureOr<uint32_t> bufferIndex(Value buffer, Operation *user);
  void addPlanStatistics();

  func::FuncOp entry;
  const CudaSource &source;
  ModuleDesc &desc;
  SymbolTableCollection symbols;
  llvm::DenseMap<Value, uint32_t> bufferOf;
  /// The output index of each buffer the entry returns.
  llvm::DenseMap<Value, int32_t> outputOf;
  llvm::DenseMap<Operation *, const CudaKernel *> emitted;
  llvm::DenseMap<Operation *, uint32_t> kernelIndexOf;
  std::optional<uint32_t> copyKernelIndex;
};

LogicalResult PlanTranslation::translateSignature() {
  desc.signature.entryName = entry.getSymName().str();
  for (BlockArgument arg : entry.getArguments()) {
    FailureOr<TensorSignature> t = signatureOf(
        arg.getType(), argumentName(entry, arg.getArgNumber()), arg.getLoc());
    if (failed(t))
      return failure();
    desc.signature.inputs.push_back(std::move(*t));
  }
  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
    FailureOr<TensorSignature> t =
        signatureOf(value.getType(), resultName(entry, j), ret.getLoc());
    if (failed(t))
      return failure();
    desc.signature.outputs.push_back(std::move(*t));
    auto output = value.getDefiningOp<plan::OutputOp>();
    if (!output)
      return ret.emitOpError() << "returns as result #" << j
                               << " a value that is no plan.output; run "
                                  "stride-outline-executable first";
    if (!outputOf.try_emplace(output.getBuffer(), j).second)
      return ret.emitOpError() << "returns the buffer of result #"
                               << outputOf.lookup(output.getBuffer())
                               << " again as result #" << j;
  }
  return success();
}

FailureOr<uint32_t> PlanTranslation::bufferIndex(Value buffer,
                                                 Operation *user) {
  auto it = bufferOf.find(buffer);
  if (it == bufferOf.end())
    return user->emitOpError() << "uses a buffer the module does not hold";
  return it->second;
}

LogicalResult PlanTranslation::translateInput(plan::InputOp input) {
  unsigned index = cast<BlockArgument>(input.getTensor()).getArgNumber();
  std::optional<int64_t> bytes = storageBytes(desc.signature.inputs[index]);
  if (!bytes)
    return input.emitOpError() << "binds argument #" << index
                               << ", whose storage is too large";
  bufferOf[input.getBuffer()] = desc.buffers.size();
  desc.buffers.push_back(
      {BufferKind::Input, static_cast<int32_t>(index), *bytes});
  return success();
}

LogicalResult PlanTranslation::translateAlloc(plan::AllocOp alloc) {
  bufferOf[alloc.getBuffer()] = desc.buffers.size();
  auto size = static_cast<int64_t>(alloc.getSize());
  auto output = outputOf.find(alloc.getBuffer());
  if (output != outputOf.end())
    desc.buffers.push_back({BufferKind::Output, output->second, size});
  else
    desc.buffers.push_back({BufferKind::Temp, -1, size});
  return success();
}

LogicalResult PlanTranslation::translateDispatch(plan::DispatchOp dispatch) {
  KernelOp kernel = dispatch.lookupKernel(symbols);
  auto found = emitted.find(kernel);
  if (found == emitted.end())
    return dispatch.emitOpError() << "dispatches " << dispatch.getKernel()
                                  << ", which has no emitted CUDA function";
  const CudaKernel &k = *found->second;
  auto [it, inserted] = kernelIndexOf.try_emplace(kernel, desc.kernels.size());
  if (inserted)
    desc.kernels.push_back({k.name, 0, k.description});

  std::vector<KernelArg> args;
  for (Value buffer : dispatch.getBuffers()) {
    FailureOr<uint32_t> index = bufferIndex(buffer, dispatch);
    if (failed(index))
      return failure();
    args.push_back(KernelArg::buffer(*index));
  }
  for (const CudaLaunch &l : k.launches) {
    LaunchDesc launch;
    launch.kernelIndex = it->second;
    launch.grid = l.grid;
    launch.block = l.block;
    launch.dynamicSharedBytes = l.dynamicSharedBytes;
    launch.args = args;
    if (l.phase)
      launch.args.push_back(KernelArg::i32(*l.phase));
    desc.launches.push_back(std::move(launch));
  }
  return success();
}

/// Module format 1 has no copy step: a copy is a launch of the emitted
/// byte-copy kernel.
LogicalResult PlanTranslation::translateCopy(plan::CopyOp copy) {
  if (!source.copyKernel)
    return copy.emitOpError() << "needs the byte-copy kernel, which the "
                                 "emitted source lacks";
  FailureOr<uint32_t> from = bufferIndex(copy.getSource(), copy);
  FailureOr<uint32_t> to = bufferIndex(copy.getTarget(), copy);
  if (failed(from) || failed(to))
    return failure();
  int64_t bytes = copy.getSize();
  if (bytes == 0)
    return success();
  if (!copyKernelIndex) {
    copyKernelIndex = desc.kernels.size();
    desc.kernels.push_back(
        {*source.copyKernel, 0, "copy of a value returned more than once"});
  }
  LaunchDesc launch;
  launch.kernelIndex = *copyKernelIndex;
  launch.block = {256, 1, 1};
  launch.grid = {
      static_cast<uint32_t>(std::min<int64_t>((bytes + 255) / 256, 4096)), 1,
      1};
  launch.args = {KernelArg::buffer(*from), KernelArg::buffer(*to),
                 KernelArg::i64(bytes)};
  desc.launches.push_back(std::move(launch));
  return success();
}

LogicalResult PlanTranslation::translate(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](plan::InputOp input) { return translateInput(input); })
      .Case([&](plan::AllocOp alloc) { return translateAlloc(alloc); })
      .Case([&](plan::DispatchOp dispatch) {
        return translateDispatch(dispatch);
      })
      .Case([&](plan::CopyOp copy) { return translateCopy(copy); })
      .Case<plan::OutputOp, func::ReturnOp>(
          [](Operation *) { return success(); })
      .Case<plan::ConstantOp, plan::FillOp, plan::LibraryCallOp>(
          [](Operation *op) {
            return op->emitOpError()
                   << "has no form in module format " << kModuleFormatVersion;
          })
      .Default([](Operation *op) {
        return op->emitOpError() << "is no step of a host plan; run "
                                    "stride-outline-executable first";
      });
}

void PlanTranslation::addPlanStatistics() {
  auto reuse = entry->getAttrOfType<DictionaryAttr>(plan::kReuseAttrName);
  if (!reuse)
    return;
  auto get = [&](StringRef name) -> int64_t {
    auto value = reuse.getAs<IntegerAttr>(name);
    return value ? value.getInt() : 0;
  };
  desc.temporariesBeforeReuse = get("temporaries");
  desc.temporaryBytesBeforeReuse = get("bytes");
}

LogicalResult PlanTranslation::run() {
  for (const CudaKernel &k : source.kernels)
    emitted[k.op] = &k;
  if (failed(translateSignature()))
    return failure();
  for (Operation &op : entry.getBody().front())
    if (failed(translate(op)))
      return failure();
  addPlanStatistics();
  return success();
}

} // namespace

FailureOr<ModuleDesc> translatePlan(func::FuncOp entry,
                                    const CudaSource &source, CodeImage image,
                                    std::string arch, std::string producer) {
  ModuleDesc desc;
  desc.producer = std::move(producer);
  desc.targetArch = std::move(arch);
  desc.images.push_back(std::move(image));
  if (failed(PlanTranslation(entry, source, desc).run()))
    return failure();
  if (Status s = verifyModule(desc, entry.getSymName().str()); !s)
    return entry.emitError() << "the plan translates to an inconsistent "
                                "module (a Stride bug): "
                             << s.error().message;
  return desc;
}

} // namespace stride
