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
// emitted, each copy a launch of the copy kernel. Decides nothing: a
// dispatch is a dependent launch when its kernel waits for the grid before
// it (CudaKernel::waitsForPreviousGrid) and the step before it may be a
// dispatch too, the only predecessor whose end a kernel can wait for (past
// variants that may not run: the runtime checks the steps that do).
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/Planner.h"
#include "dialects/plan/IR/PlanOps.h"
#include "dialects/plan/Transforms/Passes.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "stride/Module/ModuleSymbols.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace stride {
namespace {

/// The tensor of `type`; over symbolic sizes its layout at `largest`, the
/// symbols' largest values, and its symbolic layout.
FailureOr<TensorSignature> signatureOf(Type type, std::string name,
                                       Location loc,
                                       const SymbolValues &largest) {
  auto tensor = dyn_cast<StridedTensorType>(type);
  if (!tensor)
    return emitError(loc) << "the graph's signature has the unsupported type "
                          << type;
  TensorSignature t;
  t.name = std::move(name);
  t.dtype = tensor.getDType();
  Layout layout = tensor.getLayout();
  if (tensor.isSymbolic()) {
    t.symbolic = tensor.getSymbolicLayout();
    std::optional<Layout> atLargest = t.symbolic->evaluate(largest);
    if (!atLargest)
      return emitError(loc) << "the layout of " << type
                            << " overflows at the symbols' largest values";
    layout = *atLargest;
  }
  t.shape = layout.shape;
  t.strides = layout.strides;
  t.storageOffset = layout.offset;
  return t;
}

/// Writes `bits` as `bytes` little-endian bytes (an i1 takes one byte).
void storeElement(const APInt &bits, size_t bytes, uint8_t *out) {
  APInt wide = bits.zextOrTrunc(unsigned(bytes * 8));
  for (size_t i = 0; i < bytes; ++i)
    out[i] = static_cast<uint8_t>(wide.extractBitsAsZExtValue(8, 8 * i));
}

/// Row-major data that is already the storage's bytes: copied as a whole.
std::optional<std::vector<uint8_t>>
rawStorage(ElementsAttr value, const Layout &layout, size_t elementBytes) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || dense.isSplat() || !isRowMajor(layout) || layout.offset != 0 ||
      dense.getElementType().getIntOrFloatBitWidth() != elementBytes * 8)
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  return std::vector<uint8_t>(raw.begin(), raw.end());
}

/// The storage of a constant of type `type` with elements `value` (in
/// row-major order): each element at its layout's offset.
FailureOr<std::vector<uint8_t>>
constantStorage(ElementsAttr value, StridedTensorType type, Location loc) {
  Layout layout = type.getLayout();
  std::optional<int64_t> extent = storageExtent(layout);
  size_t elementBytes = dtypeSize(type.getDType());
  if (!extent)
    return emitError(loc) << "the storage of constant " << type
                          << " is too large";
  if (std::optional<std::vector<uint8_t>> raw =
          rawStorage(value, layout, elementBytes))
    return *raw;
  std::vector<uint8_t> data(size_t(*extent) * elementBytes);
  int64_t linear = 0;
  auto store = [&](const APInt &bits) {
    int64_t rest = linear++, offset = layout.offset;
    for (int64_t d = int64_t(layout.shape.size()) - 1; d >= 0; --d) {
      offset += rest % layout.shape[d] * layout.strides[d];
      rest /= layout.shape[d];
    }
    storeElement(bits, elementBytes, data.data() + offset * elementBytes);
  };
  if (isa<FloatType>(type.getElementType()))
    for (const APFloat &v : value.getValues<APFloat>())
      store(v.bitcastToAPInt());
  else
    for (const APInt &v : value.getValues<APInt>())
      store(v);
  return data;
}

/// A library call's descriptor field: integers (an integer, or an array of
/// them), a size expression (its value at the symbols' `largest` values,
/// and the expression for run time), an array of integers and size
/// expressions (each entry so) or text.
FailureOr<DescriptorField> descriptorField(NamedAttribute field,
                                           Operation *call,
                                           const SymbolValues &largest) {
  DescriptorField out;
  out.name = field.getName().str();
  Attribute value = field.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    out.ints.push_back(integer.getInt());
  } else if (auto size = dyn_cast<SizeExprAttr>(value)) {
    std::optional<int64_t> atLargest = size.getValue().evaluate(largest);
    if (!atLargest)
      return call->emitOpError()
             << "has the descriptor field '" << out.name << "' = " << value
             << ", which names a symbol the function does not declare";
    out.ints.push_back(*atLargest);
    out.symbolicInts.push_back(size.getValue());
  } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(value)) {
    out.ints.assign(ints.asArrayRef().begin(), ints.asArrayRef().end());
  } else if (auto entries = dyn_cast<ArrayAttr>(value)) {
    // Integers some of which are size expressions: an expression per
    // entry, a constant one where the entry is an integer.
    for (Attribute entry : entries) {
      std::optional<int64_t> atLargest;
      SizeExpr expr;
      if (auto integer = dyn_cast<IntegerAttr>(entry)) {
        atLargest = integer.getInt();
        expr = SizeExpr::constant(*atLargest);
      } else if (auto size = dyn_cast<SizeExprAttr>(entry)) {
        expr = size.getValue();
        atLargest = expr.evaluate(largest);
      } else {
        return call->emitOpError()
               << "has the descriptor field '" << out.name << "' = " << value
               << "; an array entry is an integer or a size expression";
      }
      if (!atLargest)
        return call->emitOpError()
               << "has the descriptor field '" << out.name << "' = " << value
               << ", which names a symbol the function does not declare";
      out.ints.push_back(*atLargest);
      out.symbolicInts.push_back(std::move(expr));
    }
  } else if (auto text = dyn_cast<StringAttr>(value)) {
    out.text = text.str();
  } else {
    return call->emitOpError()
           << "has the descriptor field '" << out.name << "' = " << value
           << "; a module holds integers, arrays of i64, size expressions, "
              "arrays of integers and size expressions, and strings";
  }
  return out;
}

/// Fills in one ModuleDesc from the plan of `entry`.
class PlanTranslation {
public:
  PlanTranslation(func::FuncOp entry, const CudaSource &source,
                  ModuleDesc &desc)
      : entry(entry), source(source), desc(desc) {}

  LogicalResult run();

private:
  LogicalResult translateSignature();
  /// The index of symbol `name` in the module's symbols (translateSignature
  /// took them all from the entry; a kernel names only those).
  uint32_t symbolIndex(const std::string &name) const {
    uint32_t i = 0;
    while (i < desc.symbols.size() && desc.symbols[i].name != name)
      ++i;
    return i;
  }
  LogicalResult translate(Operation &op);
  /// Whether the step that runs before the next one may be a dispatch:
  /// the last step, or past guarded steps (variants, which may not run),
  /// a dispatch. The runtime launches a dependent dispatch as one only
  /// where the step that runs before it is a dispatch.
  bool followsDispatch() const {
    for (auto step = desc.steps.rbegin(); step != desc.steps.rend(); ++step) {
      if (std::holds_alternative<DispatchStep>(*step))
        return true;
      const StepGuard *guard = guardOf(*step);
      if (!guard || guard->empty())
        return false;
    }
    return false;
  }
  FailureOr<StepGuard> stepGuardOf(Operation *step, ArrayAttr when,
                                   ArrayAttr unless) const;
  LogicalResult translateInput(plan::InputOp input);
  LogicalResult translateAlloc(plan::AllocOp alloc);
  LogicalResult translateConstant(plan::ConstantOp constant);
  LogicalResult translateState(plan::StateOp state);
  LogicalResult translateDispatch(plan::DispatchOp dispatch);
  LogicalResult translateLibraryCall(plan::LibraryCallOp call);
  LogicalResult translateCollective(plan::CollectiveOp collective);
  LogicalResult translateFill(plan::FillOp fill);
  LogicalResult translateCopy(plan::CopyOp copy);
  void translateRecordEvent(plan::RecordEventOp record);
  LogicalResult translateWaitEvent(plan::WaitEventOp wait);
  FailureOr<uint32_t> bufferIndex(Value buffer, Operation *user);
  FailureOr<std::vector<KernelArg>> bufferArgs(ValueRange buffers,
                                               Operation *user);
  void addPlanStatistics();

  func::FuncOp entry;
  const CudaSource &source;
  ModuleDesc &desc;
  SymbolTableCollection symbols;
  llvm::DenseMap<Value, uint32_t> bufferOf;
  /// The module's index of each event a plan.record_event records.
  llvm::DenseMap<Value, uint32_t> eventOf;
  /// The output index of each buffer the entry returns.
  llvm::DenseMap<Value, int32_t> outputOf;
  /// Each emitted kernel, its executable's index and its index there.
  struct EmittedKernel {
    const CudaKernel *kernel;
    uint32_t executable, index;
  };
  llvm::DenseMap<Operation *, EmittedKernel> emitted;
};

LogicalResult PlanTranslation::translateSignature() {
  desc.signature.entryName = entry.getSymName().str();
  SymbolRanges ranges = declaredSymbols(entry);
  for (const auto &[name, symbol] : ranges)
    desc.symbols.push_back(symbol);
  SymbolValues largest = largestValues(ranges);
  for (BlockArgument arg : entry.getArguments()) {
    FailureOr<TensorSignature> t =
        signatureOf(arg.getType(), argumentName(entry, arg.getArgNumber()),
                    arg.getLoc(), largest);
    if (failed(t))
      return failure();
    desc.signature.inputs.push_back(std::move(*t));
    if (auto symbol = entry.getArgAttrOfType<StringAttr>(
            arg.getArgNumber(), StrideDialect::kBindsAttrName))
      desc.valueBindings.push_back(
          {symbolIndex(symbol.str()), arg.getArgNumber()});
  }
  if (auto absent = entry->getAttrOfType<DenseI64ArrayAttr>(
          StrideDialect::kAbsentOutputsAttrName))
    for (int64_t p : absent.asArrayRef())
      desc.signature.absentOutputs.push_back(static_cast<uint32_t>(p));
  auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
  for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
    FailureOr<TensorSignature> t = signatureOf(
        value.getType(), resultName(entry, j), ret.getLoc(), largest);
    if (failed(t))
      return failure();
    auto output = value.getDefiningOp<plan::OutputOp>();
    if (!output)
      return ret.emitOpError() << "returns as result #" << j
                               << " a value that is no plan.output; run "
                                  "stride-outline-executable first";
    // An aliased output is its input's storage: no buffer of its own.
    if (auto input = output.getBuffer().getDefiningOp<plan::InputOp>())
      t->aliasOfInput = static_cast<int32_t>(
          cast<BlockArgument>(input.getTensor()).getArgNumber());
    desc.signature.outputs.push_back(std::move(*t));
    if (desc.signature.outputs.back().isAlias())
      continue;
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
    return input.emitOpError()
           << "binds argument #" << index << ", whose storage is too large";
  bufferOf[input.getBuffer()] = desc.buffers.size();
  desc.buffers.push_back(
      {BufferKind::Input, static_cast<int32_t>(index), *bytes, false});
  desc.signature.inputs[index].mutated = input.getWritten();
  return success();
}

/// Whether `value` is a splat of zero bits: a state the runtime zeroes.
static bool isZeroSplat(ElementsAttr value) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  return dense && dense.isSplat() &&
         llvm::all_of(dense.getRawData(), [](char c) { return c == 0; });
}

LogicalResult PlanTranslation::translateState(plan::StateOp state) {
  // States have static sizes (stride-check-symbolic-sizes).
  FailureOr<TensorSignature> tensor = signatureOf(
      state.getTensorType(), state.getName().str(), state.getLoc(), {});
  std::optional<int64_t> bytes =
      succeeded(tensor) ? storageBytes(*tensor) : std::nullopt;
  if (!bytes)
    return failed(tensor) ? failure()
                          : state.emitOpError() << "has too large a storage";
  StateDesc held{*tensor, {}};
  if (!isZeroSplat(state.getInit())) {
    FailureOr<std::vector<uint8_t>> init = constantStorage(
        state.getInit(), cast<StridedTensorType>(state.getTensorType()),
        state.getLoc());
    if (failed(init))
      return failure();
    held.init = std::move(*init);
  }
  bufferOf[state.getBuffer()] = desc.buffers.size();
  desc.buffers.push_back({BufferKind::State,
                          static_cast<int32_t>(desc.states.size()), *bytes,
                          false});
  desc.states.push_back(std::move(held));
  return success();
}

LogicalResult PlanTranslation::translateAlloc(plan::AllocOp alloc) {
  bufferOf[alloc.getBuffer()] = desc.buffers.size();
  auto size = static_cast<int64_t>(alloc.getSize());
  int64_t arenaOffset = alloc.getArenaOffset().value_or(-1);
  auto output = outputOf.find(alloc.getBuffer());
  if (output != outputOf.end())
    desc.buffers.push_back(
        {BufferKind::Output, output->second, size, false, arenaOffset});
  else
    desc.buffers.push_back(
        {BufferKind::Temp, -1, size, alloc.getZeroed(), arenaOffset});
  return success();
}

LogicalResult PlanTranslation::translateConstant(plan::ConstantOp constant) {
  auto type = cast<StridedTensorType>(constant.getTensorType());
  FailureOr<std::vector<uint8_t>> data =
      constantStorage(constant.getValue(), type, constant.getLoc());
  if (failed(data))
    return failure();
  Layout layout = type.getLayout();
  bufferOf[constant.getBuffer()] = desc.buffers.size();
  desc.buffers.push_back({BufferKind::Constant,
                          static_cast<int32_t>(desc.constants.size()),
                          static_cast<int64_t>(data->size()), false});
  desc.constants.push_back(
      {type.getDType(), layout.shape, layout.strides, std::move(*data)});
  return success();
}

FailureOr<std::vector<KernelArg>>
PlanTranslation::bufferArgs(ValueRange buffers, Operation *user) {
  std::vector<KernelArg> args;
  for (Value buffer : buffers) {
    FailureOr<uint32_t> index = bufferIndex(buffer, user);
    if (failed(index))
      return failure();
    args.push_back(KernelArg::buffer(*index));
  }
  return args;
}

/// A step's guard from its `when` or `unless` ranges (python-free-docs/
/// symbolic-sizes.md, "Variants selected at run time").
FailureOr<StepGuard> PlanTranslation::stepGuardOf(Operation *step,
                                                  ArrayAttr when,
                                                  ArrayAttr unless) const {
  StepGuard guard;
  if (when && unless)
    return step->emitOpError()
           << "has both a 'when' and an 'unless' guard; a step has one";
  ArrayAttr ranges = when ? when : unless;
  if (!ranges)
    return guard;
  std::vector<SymbolBound> &bounds = when ? guard.when : guard.unless;
  for (auto range : ranges.getAsRange<SymbolAttr>()) {
    uint32_t index = symbolIndex(range.getName().str());
    if (index == desc.symbols.size())
      return step->emitOpError()
             << "is guarded by symbol '" << range.getName().getValue()
             << "', which the function does not declare";
    bounds.push_back(SymbolBound{index, range.getMin(), range.getMax()});
  }
  return guard;
}

LogicalResult PlanTranslation::translateDispatch(plan::DispatchOp dispatch) {
  KernelOp kernel = dispatch.lookupKernel(symbols);
  auto found = emitted.find(kernel);
  if (found == emitted.end())
    return dispatch.emitOpError() << "dispatches " << dispatch.getKernel()
                                  << ", which has no emitted CUDA function";
  auto [k, executableIndex, kernelIndex] = found->second;
  FailureOr<std::vector<KernelArg>> args =
      bufferArgs(dispatch.getBuffers(), dispatch);
  FailureOr<StepGuard> guard =
      stepGuardOf(dispatch, dispatch.getWhenAttr(), dispatch.getUnlessAttr());
  if (failed(args) || failed(guard))
    return failure();
  // The L2 window (stride-keep-weights-in-l2), on each of its launches.
  uint32_t l2ResidentBuffer = 0;
  uint64_t l2ResidentBytes = 0;
  if (std::optional<int64_t> operand = dispatch.getL2ResidentOperand()) {
    l2ResidentBuffer = (*args)[*operand].bufferIndex;
    l2ResidentBytes =
        static_cast<uint64_t>(dispatch.getL2ResidentBytes().value_or(0));
  }
  for (const CudaLaunch &l : k->launches) {
    DispatchStep step;
    step.executable = executableIndex;
    step.kernel = kernelIndex;
    step.grid = l.grid;
    step.block = l.block;
    step.dynamicSharedBytes = l.dynamicSharedBytes;
    step.args = *args;
    if (l.phase)
      step.args.push_back(KernelArg::i32(*l.phase));
    for (const std::string &size : k->sizeParameters)
      step.args.push_back(KernelArg::symbol(symbolIndex(size)));
    step.gridElements = l.elements;
    step.gridDivisor = l.perBlock;
    step.dependentLaunch = k->waitsForPreviousGrid && followsDispatch();
    step.guard = *guard;
    step.l2ResidentBuffer = l2ResidentBuffer;
    step.l2ResidentBytes = l2ResidentBytes;
    desc.steps.push_back(std::move(step));
  }
  return success();
}

LogicalResult PlanTranslation::translateLibraryCall(plan::LibraryCallOp call) {
  LibraryCallStep step;
  step.routine = call.getRoutine().str();
  for (Value buffer : call.getBuffers()) {
    FailureOr<uint32_t> index = bufferIndex(buffer, call);
    if (failed(index))
      return failure();
    step.buffers.push_back(*index);
  }
  SymbolValues largest = largestValues(declaredSymbols(entry));
  for (NamedAttribute field : call.getDescriptor()) {
    FailureOr<DescriptorField> translated =
        descriptorField(field, call, largest);
    if (failed(translated))
      return failure();
    step.descriptor.push_back(std::move(*translated));
  }
  FailureOr<StepGuard> guard =
      stepGuardOf(call, call.getWhenAttr(), call.getUnlessAttr());
  if (failed(guard))
    return failure();
  step.guard = std::move(*guard);
  desc.steps.push_back(std::move(step));
  return success();
}

/// A collective step is a call of the runtime's NCCL routine of its kind
/// (python-free-docs/distributed.md, "The plan's collective step"): buffers
/// input, output; descriptor dtype, count, input_offset (bytes),
/// world_size, and reduction but for an all_gather.
LogicalResult
PlanTranslation::translateCollective(plan::CollectiveOp collective) {
  LibraryCallStep step;
  step.routine =
      ("nccl." + stringifyCollectiveOperation(collective.getKind())).str();
  for (Value buffer : {collective.getInput(), collective.getOutput()}) {
    FailureOr<uint32_t> index = bufferIndex(buffer, collective);
    if (failed(index))
      return failure();
    step.buffers.push_back(*index);
  }
  auto text = [&](const char *name, std::string value) {
    step.descriptor.push_back({name, {}, std::move(value), {}});
  };
  auto integer = [&](const char *name, uint64_t value) {
    step.descriptor.push_back({name, {static_cast<int64_t>(value)}, "", {}});
  };
  std::string dtype;
  llvm::raw_string_ostream(dtype) << collective.getElementType();
  text("dtype", std::move(dtype));
  integer("count", collective.getCount());
  integer("input_offset", collective.getInputOffset());
  integer("world_size", collective.getWorldSize());
  if (std::optional<CollectiveReduction> reduction = collective.getReduction())
    text("reduction", stringifyCollectiveReduction(*reduction).str());
  if (collective.getCollectiveStream())
    step.stream = StreamId::Collective;
  desc.steps.push_back(std::move(step));
  return success();
}

StreamId streamOf(bool collectiveStream) {
  return collectiveStream ? StreamId::Collective : StreamId::Main;
}

/// Events are numbered in the order they are recorded.
void PlanTranslation::translateRecordEvent(plan::RecordEventOp record) {
  uint32_t event = desc.events++;
  eventOf[record.getEvent()] = event;
  desc.steps.push_back(EventStep{EventStep::Action::Record, event,
                                 streamOf(record.getCollectiveStream())});
}

LogicalResult PlanTranslation::translateWaitEvent(plan::WaitEventOp wait) {
  auto event = eventOf.find(wait.getEvent());
  if (event == eventOf.end())
    return wait.emitOpError() << "waits for an event not recorded before it";
  desc.steps.push_back(EventStep{EventStep::Action::Wait, event->second,
                                 streamOf(wait.getCollectiveStream())});
  return success();
}

LogicalResult PlanTranslation::translateFill(plan::FillOp fill) {
  FailureOr<uint32_t> index = bufferIndex(fill.getBuffer(), fill);
  if (failed(index))
    return failure();
  desc.steps.push_back(FillStep{*index, static_cast<uint8_t>(fill.getByte())});
  return success();
}

LogicalResult PlanTranslation::translateCopy(plan::CopyOp copy) {
  FailureOr<uint32_t> from = bufferIndex(copy.getSource(), copy);
  FailureOr<uint32_t> to = bufferIndex(copy.getTarget(), copy);
  if (failed(from) || failed(to))
    return failure();
  CopyStep step{*from, *to, static_cast<int64_t>(copy.getSize()), {}};
  if (SizeExprAttr size = copy.getSymbolicSizeAttr())
    step.symbolicSizeBytes = size.getValue();
  desc.steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanTranslation::translate(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](plan::InputOp input) { return translateInput(input); })
      .Case([&](plan::AllocOp alloc) { return translateAlloc(alloc); })
      .Case([&](plan::ConstantOp constant) {
        return translateConstant(constant);
      })
      .Case([&](plan::StateOp state) { return translateState(state); })
      .Case([&](plan::DispatchOp dispatch) {
        return translateDispatch(dispatch);
      })
      .Case(
          [&](plan::LibraryCallOp call) { return translateLibraryCall(call); })
      .Case([&](plan::CollectiveOp collective) {
        return translateCollective(collective);
      })
      .Case([&](plan::FillOp fill) { return translateFill(fill); })
      .Case([&](plan::CopyOp copy) { return translateCopy(copy); })
      .Case([&](plan::RecordEventOp record) {
        translateRecordEvent(record);
        return success();
      })
      .Case([&](plan::WaitEventOp wait) { return translateWaitEvent(wait); })
      .Case<plan::OutputOp, func::ReturnOp>(
          [](Operation *) { return success(); })
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
  for (auto [e, unit] : llvm::enumerate(source.units)) {
    ExecutableDesc &executable = desc.executables[e];
    for (const CudaKernel &k : unit.kernels) {
      emitted[k.op] = {&k, static_cast<uint32_t>(e),
                       static_cast<uint32_t>(executable.kernels.size())};
      executable.kernels.push_back({k.name, k.description});
    }
  }
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
                                    const CudaSource &source,
                                    std::vector<CodeImage> images,
                                    std::string arch, std::string producer) {
  if (images.size() != source.units.size())
    return entry.emitError() << "the plan has " << source.units.size()
                             << " translation units but " << images.size()
                             << " code images (a Stride bug)";
  ModuleDesc desc;
  desc.producer = std::move(producer);
  desc.target = {Backend::Cuda, std::move(arch)};
  for (CodeImage &image : images)
    desc.executables.push_back({std::move(image), {}});
  if (failed(PlanTranslation(entry, source, desc).run()))
    return failure();
  if (Status s = verifyModule(desc, entry.getSymName().str()); !s)
    return entry.emitError() << "the plan translates to an inconsistent "
                                "module (a Stride bug): "
                             << s.error().message;
  return desc;
}

} // namespace stride
