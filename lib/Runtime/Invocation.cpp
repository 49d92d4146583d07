//===- Invocation.cpp - Running an Executable ------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// An invocation copies the executable's argument templates, fills in its own
// buffer addresses and runs the steps on its own stream (or the caller's, for
// runOnDevice), and the plan's collectives on a second stream of its own
// where the plan says so, forked and joined by the plan's event steps.
// Nothing here writes to the Executable, so invocations of one executable
// run concurrently.
//
// Over 1,000 lines for one reason: Invocation::Impl is one class whose
// members all read its buffer addresses, argument slots and captured
// graph; split across files, its definition would move into a header that
// every part includes, which hides more than the length does.
//
//===----------------------------------------------------------------------===//

#include "stride/Runtime/Invocation.h"

#include "NcclCollective.h"
#include "RuntimeImpl.h"
#include "ShapeGraphs.h"
#include "StateStorage.h"
#include "stride/Module/ModuleSymbols.h"
#include "stride/Support/Layout.h"

#include <algorithm>
#include <utility>

namespace stride {

struct Invocation::Impl {
  std::shared_ptr<const Executable> executable;
  const Executable::Impl &exe;
  const Runtime::Impl &rt;
  const CudaDriver &cu;
  InvocationOptions options;
  CUstream stream = nullptr;
  /// The collective stream (StreamId::Collective) and the plan's events:
  /// created with the invocation when its plan has steps on that stream,
  /// else null and none.
  CUstream collectiveStream = nullptr;
  std::vector<CUevent> events;
  /// Per buffer of the plan: memory owned by the invocation (all buffers
  /// for run(), temporaries only for runOnDevice()), except the buffers in
  /// the arena and the states.
  std::vector<DeviceBuffer> owned;
  /// The states' buffers, the invocation's own or shared with other
  /// invocations (InvocationOptions::shareStatesWith), and per state of the
  /// module the index of its buffer there.
  std::shared_ptr<StateStorage> states;
  std::vector<size_t> stateSlots;
  /// The buffers that share bytes by lifetime (BufferDesc::arenaOffset).
  DeviceBuffer arena;
  /// Per step: a dispatch's argument values and the pointers to them.
  std::vector<std::vector<ArgSlot>> argSlots;
  std::vector<std::vector<void *>> argPointers;
  /// The buffer addresses the argument slots hold now.
  std::vector<CUdeviceptr> boundAddresses;
  /// runOnDevice's buffer addresses, kept to spare an allocation per call.
  std::vector<CUdeviceptr> scratchAddresses;
  /// Packed storage of the non-row-major inputs of the last upload.
  std::vector<std::vector<uint8_t>> staged;
  /// Per step: a library call's state in this invocation (null for other
  /// steps), and what its library keeps for the invocation (a cuBLASLt
  /// handle).
  std::vector<std::unique_ptr<LibraryCallInstance>> libraryCalls;
  /// Whether tuneLibraryCalls ran (InvocationOptions::tuneLibraryCalls).
  bool tuned = false;
  LibrarySessions librarySessions;
  /// A library call's buffer addresses, kept to spare an allocation per call.
  std::vector<uint64_t> callBuffers;
  /// The plan captured over `captured.addresses` (useCudaGraph).
  CapturedGraph captured;
  /// A module with symbols (format version 7): the plan at the values the
  /// last inputs bound (without the code, which `exe` loaded), those
  /// values, and the graphs captured for other recent values.
  std::optional<ModuleDesc> instance;
  SymbolValues boundValues;
  /// Per step, whether it runs at the bound values (its guard: a variant
  /// selected at run time, python-free-docs/symbolic-sizes.md); empty
  /// before a binding, and for a module without symbols, where every
  /// step runs.
  std::vector<bool> stepsRun;
  ShapeGraphs shapeGraphs{cu};
  /// The shapes bound last, and per signature input the value a symbol is
  /// bound from (ModuleDesc::valueBindings), where known.
  std::vector<std::vector<int64_t>> boundShapes;
  std::vector<std::optional<int64_t>> inputValues;

  Impl(std::shared_ptr<const Executable> executable, InvocationOptions options)
      : executable(std::move(executable)), exe(this->executable->impl()),
        rt(exe.rt), cu(exe.cu), options(std::move(options)) {
    if (!this->options.allocator)
      this->options.allocator = exe.runtime.defaultAllocator();
    owned.resize(exe.desc.buffers.size());
    argSlots = exe.argTemplates;
    // Pointers only once every slot vector has its final address.
    for (std::vector<ArgSlot> &slots : argSlots) {
      std::vector<void *> pointers;
      for (ArgSlot &slot : slots)
        pointers.push_back(&slot);
      argPointers.push_back(std::move(pointers));
    }
  }

  ~Impl() {
    rt.makeCurrent();
    destroyGraph();
    owned.clear();
    arena = DeviceBuffer();
    states.reset(); // the last invocation that holds them frees them
    for (CUevent event : events)
      cu.cuEventDestroy(event);
    if (collectiveStream)
      cu.cuStreamDestroy(collectiveStream);
    if (stream)
      cu.cuStreamDestroy(stream);
  }

  /// Whether any step runs on the collective stream.
  bool usesCollectiveStream() const {
    for (const Step &step : desc().steps) {
      const auto *call = std::get_if<LibraryCallStep>(&step);
      const auto *event = std::get_if<EventStep>(&step);
      if ((call && call->stream == StreamId::Collective) ||
          (event && event->stream == StreamId::Collective))
        return true;
    }
    return false;
  }

  /// The collective stream and the plan's events (without timing, which
  /// a CUDA graph capture cannot record).
  Status createCollectiveStream() {
    if (!usesCollectiveStream())
      return Status::ok();
    if (CUresult r =
            cu.cuStreamCreate(&collectiveStream, CU_STREAM_NON_BLOCKING))
      return rt.cudaError(exe.name + ": creating the collective stream", r);
    events.assign(desc().events, nullptr);
    for (CUevent &event : events)
      if (CUresult r = cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING))
        return rt.cudaError(exe.name + ": creating the plan's events", r);
    return Status::ok();
  }

  /// The CUDA stream of `id` when the plan runs on `target`.
  CUstream streamFor(StreamId id, CUstream target) const {
    return id == StreamId::Collective ? collectiveStream : target;
  }

  const ModuleDesc &desc() const { return instance ? *instance : exe.desc; }

  /// Binds the module's symbols from the inputs' shapes and takes the plan
  /// at their values (and its captured graph, if one is kept); a module
  /// without symbols has nothing to bind.
  Status bindShapes(const std::vector<std::vector<int64_t>> &shapes) {
    if (exe.desc.symbols.empty())
      return Status::ok();
    Result<SymbolValues> values = bindModuleSymbols(exe.desc, shapes);
    if (!values)
      return prefixError(exe.name + ": ", values.error());
    bindValueSymbols(exe.desc, inputValues, *values);
    boundShapes = shapes;
    if (instance && *values == boundValues)
      return Status::ok();
    ModuleDesc next = instantiateModule(exe.desc, *values, /*withCode=*/false);
    if (Status s = bindLibraryCalls(next, *values); !s) {
      // Some calls may have taken the new shape: none is bound until a
      // binding succeeds.
      stashGraph();
      instance.reset();
      return s;
    }
    stashGraph();
    stepsRun.clear();
    for (const Step &step : exe.desc.steps)
      stepsRun.push_back(stepRuns(step, exe.desc, *values));
    captured = shapeGraphs.take(*values);
    instance = std::move(next);
    boundValues = std::move(*values);
    for (size_t i = 0; i < exe.desc.steps.size(); ++i)
      if (const auto *d = std::get_if<DispatchStep>(&exe.desc.steps[i]))
        for (size_t a = 0; a < d->args.size(); ++a)
          if (d->args[a].kind == KernelArg::Kind::Symbol)
            argSlots[i][a].i64 =
                boundValues.at(exe.desc.symbols[d->args[a].bufferIndex].name);
    // The slots changed: a launch binds the buffer addresses anew.
    boundAddresses.clear();
    return Status::ok();
  }

  /// Keeps the current shape's captured graph, if any, for its values.
  void stashGraph() {
    if (instance)
      shapeGraphs.stash(boundValues, std::exchange(captured, {}));
    else
      destroyGraph();
  }

  /// Gives each library call whose descriptor has size expressions its
  /// step in `next`, the plan at `values`; an error names the step and
  /// the values.
  Status bindLibraryCalls(const ModuleDesc &next, const SymbolValues &values) {
    for (size_t i = 0; i < exe.desc.steps.size(); ++i) {
      const auto *call = std::get_if<LibraryCallStep>(&exe.desc.steps[i]);
      if (!call || !libraryCalls[i] || !hasSizeExpressions(*call) ||
          !stepRuns(exe.desc.steps[i], exe.desc, values))
        continue;
      if (Status s = libraryCalls[i]->bindShape(
              std::get<LibraryCallStep>(next.steps[i]));
          !s)
        return prefixError(exe.name + ": " + exe.stepName(i) + " at " +
                               describeSymbolValues(exe.desc, values) + ": ",
                           s.error());
    }
    return Status::ok();
  }

  static bool hasSizeExpressions(const LibraryCallStep &call) {
    for (const DescriptorField &f : call.descriptor)
      if (!f.symbolicInts.empty())
        return true;
    return false;
  }

  /// Whether every symbol of the module is bound from an input's value: no
  /// shape to bind, so the invocation binds them (as unknown) when created.
  bool onlyValueSymbols() const {
    for (const SizeSymbol &s : exe.desc.symbols)
      if (!isValueSymbol(exe.desc, s.name))
        return false;
    return true;
  }

  /// A dispatch may be a dependent launch only where the step that runs
  /// before it is a dispatch (the planner marks a dispatch whose
  /// predecessor may be one, past steps that may not run).
  bool followsRunningDispatch(size_t index) const {
    for (size_t j = index; j-- > 0;)
      if (runsStep(j))
        return std::holds_alternative<DispatchStep>(desc().steps[j]);
    return false;
  }

  /// The plan needs bound symbols: refused before a first binding.
  Status checkBound() const {
    if (exe.desc.symbols.empty() || instance)
      return Status::ok();
    return makeError(ErrorCode::InvalidArgument,
                     exe.name + ": the module has symbolic sizes, and no "
                                "inputs bound them yet: give the inputs' "
                                "shapes (Invocation::bindInputShapes) before "
                                "running on device buffers");
  }

  //--- Buffers -----------------------------------------------------------===//

  /// Buffer `index`'s address in the invocation's memory: its own
  /// allocation, its bytes of the arena, or its state's buffer.
  CUdeviceptr ownedAddress(size_t index) const {
    const BufferDesc &b = desc().buffers[index];
    if (b.kind == BufferKind::State)
      return states->buffers[stateSlots[b.index]].address();
    return b.inArena() ? arena.address() + uint64_t(b.arenaOffset)
                       : owned[index].address();
  }

  /// Binds the states to `shared`'s buffers, or to a storage of their own.
  Status bindStates(const Invocation *shared) {
    if (!shared) {
      states = makeStateStorage(desc(), exe.name, options.allocator);
      for (size_t i = 0; i < desc().states.size(); ++i)
        stateSlots.push_back(i);
      return Status::ok();
    }
    const Impl &other = *shared->pimpl;
    if (&other.rt != &rt)
      return makeError(ErrorCode::InvalidArgument,
                       exe.name + " cannot share the states of " +
                           other.exe.name + ": its invocation runs on " +
                           other.rt.describeDevice() + ", this one on " +
                           rt.describeDevice() +
                           " (states are device memory of one runtime)");
    Result<std::vector<size_t>> slots =
        matchStates(*other.states, desc(), exe.name);
    if (!slots)
      return slots.error();
    states = other.states;
    stateSlots = std::move(*slots);
    return Status::ok();
  }

  /// Allocates state buffer `index` (in the states' storage, perhaps shared)
  /// and writes its initial value, unless it is allocated already.
  Status ensureState(size_t index) {
    const BufferDesc &b = desc().buffers[index];
    size_t slot = stateSlots[b.index];
    if (states->buffers[slot].allocated())
      return Status::ok();
    uint64_t bytes = uint64_t(states->bytes[slot]);
    Result<uint64_t> address =
        states->allocator->allocate(bytes, exe.bufferName(index));
    if (!address)
      return address.error();
    states->buffers[slot] =
        DeviceBuffer(states->allocator.get(), *address, bytes);
    return initializeState(index, size_t(b.index));
  }

  Status ensureArena() {
    // Checked before the size, which is a pass over every buffer: this runs
    // once per arena buffer on every launch (ensureOwnedBuffers), and
    // computing the size each time made a profile's launchStep quadratic in
    // the buffer count (0.8 ms a step on ResNet-50's 540-step backward).
    if (arena.allocated())
      return Status::ok();
    uint64_t bytes = uint64_t(desc().arenaBytes());
    if (bytes == 0)
      return Status::ok();
    Result<uint64_t> address = options.allocator->allocate(
        bytes, "the arena (temporaries and outputs sharing bytes by "
               "lifetime) of " + exe.name);
    if (!address)
      return address.error();
    arena = DeviceBuffer(options.allocator.get(), *address, bytes);
    return Status::ok();
  }

  Status ensureOwned(size_t index) {
    const BufferDesc &b = desc().buffers[index];
    if (b.kind == BufferKind::State)
      return ensureState(index);
    if (b.inArena())
      return ensureArena();
    if (owned[index].allocated())
      return Status::ok();
    uint64_t bytes = uint64_t(b.sizeBytes);
    Result<uint64_t> address =
        options.allocator->allocate(bytes, exe.bufferName(index));
    if (!address)
      return address.error();
    owned[index] = DeviceBuffer(options.allocator.get(), *address, bytes);
    // Zeroed temporaries start zeroed (python-free-docs/module-format.md,
    // "Buffer"), once, at allocation.
    return b.zeroed ? zeroAndWait(*address, bytes, index) : Status::ok();
  }

  /// Sets `bytes` bytes at `address`, buffer `index`'s, to zero and waits,
  /// so that a plan on any stream sees them.
  Status zeroAndWait(CUdeviceptr address, uint64_t bytes, size_t index) {
    const std::string what = "zeroing " + exe.bufferName(index);
    if (bytes == 0)
      return Status::ok();
    if (CUresult r = cu.cuMemsetD8Async(address, 0, bytes, stream))
      return rt.cudaError(what, r);
    if (CUresult r = cu.cuStreamSynchronize(stream))
      return rt.cudaError(what, r);
    return Status::ok();
  }

  /// Writes `storage` into state buffer `index`, synchronously (a state
  /// is written between runs, never during one).
  Status writeState(size_t index, const std::vector<uint8_t> &storage) {
    return writeState(index, storage.data(), storage.size());
  }

  /// Copies `bytes` bytes at `data` into state buffer `index` and waits.
  Status writeState(size_t index, const uint8_t *data, uint64_t bytes) {
    const std::string what = "writing " + exe.bufferName(index);
    if (bytes == 0)
      return Status::ok();
    if (CUresult r = cu.cuMemcpyHtoDAsync(ownedAddress(index), data, bytes,
                                          stream))
      return rt.cudaError(what, r);
    if (CUresult r = cu.cuStreamSynchronize(stream))
      return rt.cudaError(what, r);
    return Status::ok();
  }

  /// Sets state buffer `index` (state `state`) to its initial value: the
  /// module's stored bytes, copied from the module (mapped from its file),
  /// or zeros set on the device, so that a cache of gigabytes needs no
  /// host buffer of zeros.
  Status initializeState(size_t index, size_t state) {
    const StateDesc &s = desc().states[state];
    if (!s.init.empty())
      return writeState(index, s.init.data(), s.init.size());
    return zeroAndWait(ownedAddress(index), uint64_t(*storageBytes(s.tensor)),
                       index);
  }

  /// The buffer of state `state`.
  size_t stateBuffer(size_t state) const {
    for (size_t i = 0; i < desc().buffers.size(); ++i)
      if (desc().buffers[i].kind == BufferKind::State &&
          size_t(desc().buffers[i].index) == state)
        return i;
    return desc().buffers.size(); // verifyModule binds each state once
  }

  /// Allocates the buffers the invocation owns: every one but the
  /// constants (the executable's), or only the temporaries and states.
  Status ensureOwnedBuffers(bool temporariesOnly) {
    for (size_t i = 0; i < desc().buffers.size(); ++i) {
      BufferKind kind = desc().buffers[i].kind;
      if (kind == BufferKind::Constant ||
          (temporariesOnly && kind != BufferKind::Temp &&
           kind != BufferKind::State))
        continue;
      if (Status s = ensureOwned(i); !s)
        return s;
    }
    return Status::ok();
  }

  /// Each buffer's address: the invocation's own, or the executable's for a
  /// constant.
  std::vector<CUdeviceptr> ownedAddresses() const {
    std::vector<CUdeviceptr> addresses;
    for (size_t i = 0; i < owned.size(); ++i)
      addresses.push_back(exe.constantAddresses[i] ? exe.constantAddresses[i]
                                                   : ownedAddress(i));
    return addresses;
  }

  void bindArgs(const std::vector<CUdeviceptr> &bufferAddresses) {
    if (bufferAddresses == boundAddresses)
      return;
    for (size_t i = 0; i < desc().steps.size(); ++i) {
      const auto *d = std::get_if<DispatchStep>(&desc().steps[i]);
      if (!d)
        continue;
      for (size_t a = 0; a < d->args.size(); ++a)
        if (d->args[a].kind == KernelArg::Kind::Buffer)
          argSlots[i][a].pointer = bufferAddresses[d->args[a].bufferIndex];
    }
    boundAddresses = bufferAddresses;
  }

  //--- Launching ---------------------------------------------------------===//

  Error stepFailure(size_t step, CUresult r) const {
    std::string message = exe.name + ": " + exe.stepName(step) +
                          " failed: " + cu.errorText(r);
    // A device-side assertion is how the run-time checks (on unless the
    // module was compiled with --no-runtime-checks) stop on a bad index or an
    // integer division by zero: an error of the graph's data, not of Stride.
    if (r == CUDA_ERROR_ASSERT)
      message += " (a run-time check failed: an index operand out of range or "
                 "an integer division by zero; the assertion message the "
                 "driver printed names the op and its location; the CUDA "
                 "context is now unusable)";
    else if (isStickyCudaError(r))
      message += " (the fault is inside the generated kernel, a Stride code "
                 "generation bug; the CUDA context is now unusable)";
    return makeError(cudaErrorCode(r), message);
  }

  CUresult enqueueStep(const DispatchStep &d, size_t index, CUstream target) {
    CUfunction function = exe.functions[d.executable][d.kernel];
    bool dependent = d.dependentLaunch && options.dependentLaunch &&
                     followsRunningDispatch(index);
    if (dependent || exe.l2Windows.perStep[index].num_bytes > 0)
      return launchWithAttributes(d, function, index, target, dependent);
    return cu.cuLaunchKernel(function, d.grid.x, d.grid.y, d.grid.z,
                             d.block.x, d.block.y, d.block.z,
                             d.dynamicSharedBytes, target,
                             argPointers[index].data(), nullptr);
  }
  /// A launch with attributes, kept by a captured graph. With `dependent`,
  /// programmatic dependent launch: the kernel may be launched once every
  /// block of the grid before it has exited (or asked for it, with
  /// griddepcontrol.launch_dependents), before that grid has ended; it
  /// waits for the grid itself (in a graph, a programmatic edge). With the
  /// step's L2 window (L2Windows.h), its constant's lines persist in L2.
  CUresult launchWithAttributes(const DispatchStep &d, CUfunction function,
                                size_t index, CUstream target, bool dependent) {
    CUlaunchAttribute attributes[2] = {};
    unsigned count = 0;
    if (dependent) {
      attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attributes[count++].value.programmaticStreamSerializationAllowed = 1;
    }
    if (exe.l2Windows.perStep[index].num_bytes > 0) {
      attributes[count].id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
      attributes[count++].value.accessPolicyWindow = exe.l2Windows.perStep[index];
    }
    CUlaunchConfig config = {};
    config.gridDimX = d.grid.x;
    config.gridDimY = d.grid.y;
    config.gridDimZ = d.grid.z;
    config.blockDimX = d.block.x;
    config.blockDimY = d.block.y;
    config.blockDimZ = d.block.z;
    config.sharedMemBytes = d.dynamicSharedBytes;
    config.hStream = target;
    config.attrs = attributes;
    config.numAttrs = count;
    return cu.cuLaunchKernelEx(&config, function, argPointers[index].data(),
                               nullptr);
  }
  CUresult enqueueStep(const FillStep &f, size_t, CUstream target) {
    return cu.cuMemsetD8Async(boundAddresses[f.buffer], f.value,
                              size_t(desc().buffers[f.buffer].sizeBytes),
                              target);
  }
  CUresult enqueueStep(const CopyStep &c, size_t, CUstream target) {
    if (c.sizeBytes == 0)
      return CUDA_SUCCESS;
    return cu.cuMemcpyDtoDAsync(boundAddresses[c.target],
                                boundAddresses[c.source], size_t(c.sizeBytes),
                                target);
  }
  /// The fork and join of the collective stream: legal inside a capture,
  /// where a stream that waits for an event recorded in the capture joins
  /// it (and must rejoin the capturing stream before it ends, which the
  /// plan's last wait does).
  CUresult enqueueStep(const EventStep &e, size_t, CUstream target) {
    CUstream on = streamFor(e.stream, target);
    if (e.action == EventStep::Action::Record)
      return cu.cuEventRecord(events[e.event], on);
    return cu.cuStreamWaitEvent(on, events[e.event], 0);
  }

  /// Each library call's state in this invocation; an error names the step.
  Status instantiateLibraryCalls() {
    libraryCalls.resize(desc().steps.size());
    for (size_t i = 0; i < desc().steps.size(); ++i) {
      if (!exe.libraryCalls[i])
        continue;
      Result<std::unique_ptr<LibraryCallInstance>> instance =
          exe.libraryCalls[i]->instantiate(librarySessions);
      if (!instance)
        return prefixError(exe.name + ": " + exe.stepName(i) + ": ",
                           instance.error());
      libraryCalls[i] = std::move(*instance);
    }
    return Status::ok();
  }

  /// The bound addresses of a library call's buffers, in its order.
  const uint64_t *libraryCallBuffers(const LibraryCallStep &c) {
    callBuffers.clear();
    for (uint32_t b : c.buffers)
      callBuffers.push_back(boundAddresses[b]);
    return callBuffers.data();
  }

  /// Enqueues a library call through its instance, which enqueues its work
  /// on `target`.
  Status enqueueLibraryCall(const LibraryCallStep &c, size_t index,
                            CUstream target) {
    if (Status s = libraryCalls[index]->enqueue(libraryCallBuffers(c), target);
        !s)
      return prefixError(exe.name + ": " + exe.stepName(index) + " failed: ",
                         s.error());
    return Status::ok();
  }

  /// InvocationOptions::tuneLibraryCalls: each library call, in plan order,
  /// chooses over the bound buffers. Whatever the calls write is written
  /// again by the run that follows (no step reads a buffer before a step
  /// of the run writes it).
  Status tuneLibraryCalls(CUstream target) {
    for (size_t i = 0; i < desc().steps.size(); ++i) {
      const auto *c = std::get_if<LibraryCallStep>(&desc().steps[i]);
      if (!c || !runsStep(i))
        continue;
      if (Status s = libraryCalls[i]->tune(libraryCallBuffers(*c), target); !s)
        return prefixError(exe.name + ": tuning " + exe.stepName(i) + ": ",
                           s.error());
    }
    return Status::ok();
  }

  /// Whether step `index` runs at the bound values.
  bool runsStep(size_t index) const {
    return stepsRun.empty() || stepsRun[index];
  }

  /// Enqueues step `index` on `target`; nothing for a step that does not
  /// run at the bound values.
  Status enqueueStep(size_t index, CUstream target) {
    if (!runsStep(index))
      return Status::ok();
    const Step &step = desc().steps[index];
    CUresult r = CUDA_SUCCESS;
    if (const auto *d = std::get_if<DispatchStep>(&step))
      r = enqueueStep(*d, index, target);
    else if (const auto *f = std::get_if<FillStep>(&step))
      r = enqueueStep(*f, index, target);
    else if (const auto *c = std::get_if<CopyStep>(&step))
      r = enqueueStep(*c, index, target);
    else if (const auto *e = std::get_if<EventStep>(&step))
      r = enqueueStep(*e, index, target);
    else {
      const auto &call = std::get<LibraryCallStep>(step);
      return enqueueLibraryCall(call, index, streamFor(call.stream, target));
    }
    if (r != CUDA_SUCCESS)
      return stepFailure(index, r);
    return Status::ok();
  }

  /// Whether `s` has finished its work (or failed: the wait that follows
  /// reports it).
  bool idle(CUstream s) const {
    return cu.cuStreamQuery(s) != CUDA_ERROR_NOT_READY;
  }

  /// With collectives in the plan, waits until `target` and the collective
  /// stream are idle, bounded by the group's timeout (NcclCollective.h):
  /// another rank's failure, or a rank that stopped, ends the wait with a
  /// message, never a hang. A captured plan is waited for after its replay.
  Status waitForCollectives(CUstream target) {
    if (!exe.collectiveGroup)
      return Status::ok();
    return exe.collectiveGroup->wait(exe.name + ": the plan's collectives", [&] {
      return idle(target) && (!collectiveStream || idle(collectiveStream));
    });
  }

  /// Waits for the collective stream, where there is one (the plan joins it
  /// into the invocation's stream, but a plan stopped by an error may not
  /// have reached the join).
  CUresult synchronizeCollectiveStream() {
    return collectiveStream ? cu.cuStreamSynchronize(collectiveStream)
                            : CUDA_SUCCESS;
  }

  /// Enqueues the plan's steps in order on `target`; with `syncEach`, waits
  /// for each step that does work (an event step has no fault to attribute)
  /// so that a fault is attributed to the right one.
  Status launchEach(CUstream target, bool syncEach) {
    for (size_t i = 0; i < desc().steps.size(); ++i) {
      if (Status s = enqueueStep(i, target); !s)
        return s;
      if (!syncEach || std::holds_alternative<EventStep>(desc().steps[i]))
        continue;
      if (Status s = waitForCollectives(target); !s)
        return s;
      if (CUresult r = cu.cuStreamSynchronize(target))
        return stepFailure(i, r);
      if (CUresult r = synchronizeCollectiveStream())
        return stepFailure(i, r);
    }
    return Status::ok();
  }

  void destroyGraph() { destroyCapturedGraph(cu, captured); }

  /// Captures the plan over the bound addresses on the invocation's stream
  /// (a capture needs a stream of its own; the graph may then be launched
  /// on any stream). A graph already instantiated over other addresses is
  /// updated in place (cuGraphExecUpdate: the plan's nodes are the same,
  /// only their pointers differ), which costs the capture but not a new
  /// instantiation; it is instantiated anew only where the update fails.
  Status captureGraph() {
    CUgraph graph = nullptr;
    if (CUresult r = cu.cuStreamBeginCapture(
            stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))
      return rt.cudaError(exe.name + ": cuStreamBeginCapture", r);
    Status launched = launchEach(stream, /*syncEach=*/false);
    // Always end the capture, or the stream stays in capture mode.
    CUresult r = cu.cuStreamEndCapture(stream, &graph);
    if (!launched || r != CUDA_SUCCESS) {
      if (graph)
        cu.cuGraphDestroy(graph);
      destroyGraph();
      return !launched
                 ? launched
                 : rt.cudaError(exe.name + ": capturing the plan into a CUDA "
                                           "graph",
                                r);
    }
    if (captured.exec && updateGraph(graph))
      return Status::ok();
    destroyGraph();
    captured.graph = graph;
    if (CUresult r = cu.cuGraphInstantiate(&captured.exec, graph, 0)) {
      destroyGraph();
      return rt.cudaError(exe.name + ": instantiating the CUDA graph", r);
    }
    captured.addresses = boundAddresses;
    return Status::ok();
  }

  /// Points the instantiated graph at `graph`'s addresses; false (and
  /// `graph` kept for a new instantiation) where the driver refuses.
  bool updateGraph(CUgraph graph) {
    CUgraphExecUpdateResultInfo info{};
    if (cu.cuGraphExecUpdate(captured.exec, graph, &info) != CUDA_SUCCESS)
      return false;
    cu.cuGraphDestroy(captured.graph);
    captured.graph = graph;
    captured.addresses = boundAddresses;
    return true;
  }

  /// Enqueues the plan over `addresses` on `target`: the CUDA graph with
  /// useCudaGraph (captured again if the addresses changed), else kernel by
  /// kernel.
  Status enqueue(const std::vector<CUdeviceptr> &addresses, CUstream target,
                 bool syncEach) {
    bindArgs(addresses);
    // A deterministic module keeps the heuristic's choice: a choice by
    // timing could differ from process to process.
    if (options.tuneLibraryCalls && !tuned && !desc().deterministic) {
      if (Status s = tuneLibraryCalls(target); !s)
        return s;
      tuned = true;
    }
    if (!options.useCudaGraph)
      return launchEach(target, syncEach);
    if (!captured.exec || captured.addresses != boundAddresses)
      if (Status s = captureGraph(); !s)
        return s;
    if (CUresult r = cu.cuGraphLaunch(captured.exec, target))
      return rt.cudaError(exe.name + ": cuGraphLaunch", r);
    return Status::ok();
  }

  /// Waits for `target`; an error here is a fault of some kernel of the
  /// plan that was not synchronized individually.
  Status synchronize(CUstream target, bool launchedEachSynced) {
    if (Status s = waitForCollectives(target); !s)
      return s;
    CUresult r = cu.cuStreamSynchronize(target);
    if (r == CUDA_SUCCESS)
      r = synchronizeCollectiveStream();
    if (r == CUDA_SUCCESS)
      return Status::ok();
    if (launchedEachSynced || desc().steps.empty())
      return rt.cudaError(exe.name + ": synchronizing after the plan", r);
    std::string kernels;
    for (const Step &step : desc().steps)
      if (const auto *d = std::get_if<DispatchStep>(&step))
        kernels += (kernels.empty() ? "" : ", ") + exe.kernelName(*d);
    return makeError(cudaErrorCode(r),
                     exe.name + ": one of steps 1 to " +
                         str(desc().steps.size()) + " (kernels " + kernels +
                         ") failed: " + cu.errorText(r) +
                         "; run with per-launch synchronization to find which");
  }

  //--- Host data ---------------------------------------------------------===//

  /// Copies the inputs into their buffers, asynchronously on the stream. A
  /// row-major input is copied straight from the caller's array, which must
  /// outlive the copy; any other layout is packed into `staged` first, which
  /// lives until the next upload.
  Status uploadInputs(const std::vector<HostArray> &inputs) {
    staged.clear();
    for (size_t i = 0; i < desc().buffers.size(); ++i) {
      const BufferDesc &b = desc().buffers[i];
      if (b.kind != BufferKind::Input || b.sizeBytes == 0)
        continue;
      const TensorSignature &t = desc().signature.inputs[b.index];
      const HostArray &array = inputs[b.index];
      CUdeviceptr destination = ownedAddress(i);
      const void *source = array.data.data();
      size_t bytes = array.data.size();
      if (isRowMajor(Layout{t.shape, t.strides, 0})) {
        destination += uint64_t(t.storageOffset) * dtypeSize(t.dtype);
      } else {
        Result<std::vector<uint8_t>> storage =
            packToStorage(array, t, b.sizeBytes);
        if (!storage)
          return prefixError(exe.name + ": ", storage.error());
        staged.push_back(std::move(*storage));
        source = staged.back().data();
        bytes = staged.back().size();
      }
      if (bytes == 0)
        continue;
      if (CUresult r = cu.cuMemcpyHtoDAsync(destination, source, bytes, stream))
        return rt.cudaError("copying input " + quoted(t.name) + " to the GPU",
                            r);
    }
    return Status::ok();
  }

  /// Each output's storage, from its buffer (an aliased output's from the
  /// input it aliases).
  Result<std::vector<HostArray>> downloadOutputs() {
    const GraphSignature &sig = desc().signature;
    std::vector<std::vector<uint8_t>> storage(sig.outputs.size());
    std::vector<uint32_t> sources = outputSourceBuffers(desc());
    for (size_t o = 0; o < sig.outputs.size(); ++o) {
      std::vector<uint8_t> &bytes = storage[o];
      bytes.resize(size_t(*storageBytes(sig.outputs[o])));
      if (bytes.empty())
        continue;
      if (CUresult r = cu.cuMemcpyDtoHAsync(
              bytes.data(), ownedAddress(sources[o]), bytes.size(), stream))
        return rt.cudaError("copying output " + quoted(sig.outputs[o].name) +
                                " from the GPU",
                            r);
    }
    if (CUresult r = cu.cuStreamSynchronize(stream))
      return rt.cudaError(exe.name + ": copying the outputs from the GPU", r);
    std::vector<HostArray> outputs;
    for (size_t o = 0; o < storage.size(); ++o)
      outputs.push_back(unpackFromStorage(storage[o].data(), sig.outputs[o]));
    return outputs;
  }

  //--- runOnDevice -------------------------------------------------------===//

  /// The caller's pointers for inputs and outputs, the invocation's for
  /// temporaries, into scratchAddresses.
  Status gatherDeviceAddresses(const std::vector<uint64_t> &inputs,
                               const std::vector<uint64_t> &outputs) {
    const GraphSignature &sig = desc().signature;
    if (inputs.size() != sig.inputs.size() ||
        outputs.size() != sig.outputs.size())
      return makeError(ErrorCode::InvalidArgument,
                       exe.name + ": runOnDevice got " + str(inputs.size()) +
                           " input and " + str(outputs.size()) +
                           " output pointers, but '" + sig.entryName +
                           "' has " + str(sig.inputs.size()) + " inputs and " +
                           str(sig.outputs.size()) + " outputs");
    scratchAddresses.assign(desc().buffers.size(), 0);
    for (size_t i = 0; i < desc().buffers.size(); ++i) {
      const BufferDesc &b = desc().buffers[i];
      if (b.kind == BufferKind::Temp || b.kind == BufferKind::State) {
        scratchAddresses[i] = ownedAddress(i);
        continue;
      }
      if (b.kind == BufferKind::Constant) {
        scratchAddresses[i] = exe.constantAddresses[i];
        continue;
      }
      bool isInput = b.kind == BufferKind::Input;
      scratchAddresses[i] = isInput ? inputs[b.index] : outputs[b.index];
      if (scratchAddresses[i] == 0 && b.sizeBytes > 0)
        return makeError(ErrorCode::InvalidArgument,
                         exe.name + ": runOnDevice got a null pointer for " +
                             (isInput ? "input " : "output ") +
                             quoted(isInput ? sig.inputs[b.index].name
                                            : sig.outputs[b.index].name));
    }
    return Status::ok();
  }
};

Invocation::Invocation(std::unique_ptr<Impl> impl) : pimpl(std::move(impl)) {}
Invocation::~Invocation() = default;

Result<std::unique_ptr<Invocation>>
Invocation::create(std::shared_ptr<const Executable> executable,
                   InvocationOptions options) {
  if (!executable)
    return makeError(ErrorCode::InvalidArgument,
                     "Invocation::create needs an executable, got null");
  const Invocation *shared = options.shareStatesWith;
  options.shareStatesWith = nullptr; // read here only: never kept
  auto impl = std::make_unique<Impl>(std::move(executable), std::move(options));
  if (Status s = impl->bindStates(shared); !s)
    return s.error();
  if (Status s = impl->rt.makeCurrent(); !s)
    return s.error();
  if (CUresult r =
          impl->cu.cuStreamCreate(&impl->stream, CU_STREAM_NON_BLOCKING))
    return impl->rt.cudaError("cuStreamCreate", r);
  if (Status s = impl->createCollectiveStream(); !s)
    return s.error();
  if (Status s = impl->instantiateLibraryCalls(); !s)
    return s.error();
  impl->inputValues.resize(impl->exe.desc.signature.inputs.size());
  if (!impl->exe.desc.symbols.empty() && impl->onlyValueSymbols())
    if (Status s = impl->bindShapes({}); !s)
      return s.error();
  return std::unique_ptr<Invocation>(new Invocation(std::move(impl)));
}

const Executable &Invocation::executable() const { return *pimpl->executable; }
void *Invocation::stream() const { return pimpl->stream; }

Status Invocation::bindInputShapes(
    const std::vector<std::vector<int64_t>> &shapes) {
  return pimpl->bindShapes(shapes);
}

Status Invocation::bindInputValue(size_t input, int64_t value) {
  Impl &m = *pimpl;
  if (input >= m.inputValues.size())
    return makeError(ErrorCode::InvalidArgument,
                     m.exe.name + ": bindInputValue(" + str(input) +
                         ") past the signature's " +
                         str(m.inputValues.size()) + " inputs");
  if (m.inputValues[input] == value)
    return Status::ok();
  m.inputValues[input] = value;
  bool bindsSymbol = false;
  for (const ValueBinding &v : m.exe.desc.valueBindings)
    bindsSymbol |= v.input == input;
  // Before any binding of the shapes, the next one reads the value.
  if (!bindsSymbol || !m.instance)
    return Status::ok();
  return m.bindShapes(m.boundShapes);
}

Status Invocation::upload(const std::vector<HostArray> &inputs) {
  Impl &m = *pimpl;
  std::vector<std::vector<int64_t>> shapes;
  for (const HostArray &a : inputs)
    shapes.push_back(a.shape);
  m.inputValues = boundInputValues(m.exe.desc, inputs);
  if (Status s = m.bindShapes(shapes); !s)
    return s;
  if (Status s = checkInputs(m.desc().signature, inputs); !s)
    return prefixError(m.exe.name + ": ", s.error());
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/false); !s)
    return s;
  return m.uploadInputs(inputs);
}

Status Invocation::launch() {
  Impl &m = *pimpl;
  if (Status s = m.checkBound(); !s)
    return s;
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/false); !s)
    return s;
  return m.enqueue(m.ownedAddresses(), m.stream, /*syncEach=*/false);
}

Status Invocation::launchStep(size_t index) {
  Impl &m = *pimpl;
  if (Status s = m.checkBound(); !s)
    return s;
  if (index >= m.desc().steps.size())
    return makeError(ErrorCode::InvalidArgument,
                     m.exe.name + ": launchStep(" + str(index) +
                         ") past the plan's " + str(m.desc().steps.size()) +
                         " steps");
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/false); !s)
    return s;
  m.bindArgs(m.ownedAddresses());
  return m.enqueueStep(index, m.stream);
}

bool Invocation::runsStep(size_t index) const {
  return index < pimpl->desc().steps.size() && pimpl->runsStep(index);
}

Status Invocation::synchronize() {
  Impl &m = *pimpl;
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  return m.synchronize(m.stream, /*launchedEachSynced=*/false);
}

Result<std::vector<HostArray>> Invocation::download() {
  Impl &m = *pimpl;
  if (Status s = m.rt.makeCurrent(); !s)
    return s.error();
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/false); !s)
    return s.error();
  return m.downloadOutputs();
}

Result<std::vector<HostArray>>
Invocation::run(const std::vector<HostArray> &inputs) {
  Impl &m = *pimpl;
  if (Status s = upload(inputs); !s)
    return s.error();
  bool syncEach = m.options.syncEachLaunch && !m.options.useCudaGraph;
  if (Status s = m.enqueue(m.ownedAddresses(), m.stream, syncEach); !s)
    return s.error();
  if (Status s = m.synchronize(m.stream, syncEach); !s)
    return s.error();
  return m.downloadOutputs();
}

Status Invocation::runOnDevice(const std::vector<uint64_t> &inputs,
                               const std::vector<uint64_t> &outputs,
                               void *stream) {
  Impl &m = *pimpl;
  if (Status s = m.checkBound(); !s)
    return s;
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/true); !s)
    return s;
  if (Status s = m.gatherDeviceAddresses(inputs, outputs); !s)
    return s;
  return m.enqueue(m.scratchAddresses, static_cast<CUstream>(stream),
                   /*syncEach=*/false);
}

Result<HostArray> Invocation::readState(const std::string &name) {
  Impl &m = *pimpl;
  const std::vector<StateDesc> &states = m.desc().states;
  auto state = std::find_if(states.begin(), states.end(),
                            [&](const StateDesc &s) { return s.tensor.name == name; });
  if (state == states.end())
    return packStates(m.desc(), {{name, HostArray{}}}).error();
  if (Status s = m.rt.makeCurrent(); !s)
    return s.error();
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/true); !s)
    return s.error();
  size_t buffer = m.stateBuffer(size_t(state - states.begin()));
  std::vector<uint8_t> storage(size_t(*storageBytes(state->tensor)));
  std::string what = "reading " + m.exe.bufferName(buffer);
  if (!storage.empty()) {
    if (CUresult r = m.cu.cuMemcpyDtoHAsync(storage.data(),
                                            m.ownedAddress(buffer),
                                            storage.size(), m.stream))
      return m.rt.cudaError(what, r);
    if (CUresult r = m.cu.cuStreamSynchronize(m.stream))
      return m.rt.cudaError(what, r);
  }
  return unpackFromStorage(storage.data(), state->tensor);
}

Status Invocation::writeStates(const StateValues &values) {
  Impl &m = *pimpl;
  auto packed = packStates(m.desc(), values);
  if (!packed)
    return prefixError(m.exe.name + ": ", packed.error());
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/true); !s)
    return s;
  for (const auto &[state, storage] : *packed)
    if (Status s = m.writeState(m.stateBuffer(state), storage); !s)
      return s;
  return Status::ok();
}

Status Invocation::resetStates() {
  Impl &m = *pimpl;
  if (Status s = m.rt.makeCurrent(); !s)
    return s;
  if (Status s = m.ensureOwnedBuffers(/*temporariesOnly=*/true); !s)
    return s;
  for (size_t i = 0; i < m.desc().states.size(); ++i)
    if (Status s = m.initializeState(m.stateBuffer(i), i); !s)
      return s;
  return Status::ok();
}

} // namespace stride
