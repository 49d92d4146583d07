//===- Invocation.h - Running an Executable -------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// An Invocation holds everything that one caller of an Executable mutates:
// the device buffers (from its Allocator), a CUDA stream of its own, the
// kernels' argument values and, with useCudaGraph, the plan captured as a
// CUDA graph. One Invocation is used by one thread at a time; two
// Invocations of one Executable run concurrently, each on its own stream.
//
//   std::shared_ptr<const Executable> exe = ...;
//   auto inv = Invocation::create(exe);           // per thread or request
//   auto outputs = (*inv)->run(inputs);           // host arrays in and out
//   (*inv)->runOnDevice(inPtrs, outPtrs, stream); // zero-copy, asynchronous
//
// Two invocations may share their states (a KV cache written by a prefill
// module and read by a decode module): InvocationOptions::shareStatesWith.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_RUNTIME_INVOCATION_H
#define STRIDE_RUNTIME_INVOCATION_H

#include "stride/Runtime/Executable.h"

namespace stride {

class Invocation;

struct InvocationOptions {
  /// Where the invocation's buffers come from; null: the runtime's default
  /// allocator.
  std::shared_ptr<Allocator> allocator;
  /// In run(), synchronize after every launch so that a fault inside a
  /// kernel is attributed to that kernel. Costs a few microseconds per
  /// launch; launch() and runOnDevice() never synchronize per launch, nor
  /// does run() with useCudaGraph.
  bool syncEachLaunch = true;
  /// Capture the plan into a CUDA graph on the first launch and replay the
  /// graph afterwards: one driver call per run instead of one per kernel.
  /// The graph is captured again when the buffer addresses change (a
  /// runOnDevice with other pointers), and the instantiated graph updated
  /// in place (cuGraphExecUpdate); instantiated anew only if that fails.
  bool useCudaGraph = false;
  /// Before the first run, time the candidate algorithms of each library
  /// call (cuBLASLt's heuristic's first 8; for cuDNN's attention, every
  /// execution plan its engine heuristics' configurations finalize as)
  /// over the invocation's own buffers and keep the fastest: a product's
  /// for every later run of any invocation of the executable (an
  /// invocation without this option uses what another chose once it is
  /// chosen), an attention plan for the invocation's own runs (its plans
  /// belong to its cuDNN handle). Costs a few calls of each distinct
  /// problem once and waits for the stream (do not enable it for a stream
  /// being captured into a graph). Off by default: the choice follows
  /// timings, so two processes may choose different algorithms and round
  /// differently; a module compiled with --deterministic is never tuned
  /// (python-free-docs/embedding.md, "Tuning library calls").
  bool tuneLibraryCalls = false;
  /// Launch the dispatches the module marks dependent (python-free-docs/module-format.md,
  /// "Dispatch") with programmatic stream serialization, so that each may
  /// start while the kernel before it drains. Off: every dispatch waits for
  /// the one before it to end, as a plain launch does (the kernels' waits
  /// are then no-ops); for measuring what the overlap gains.
  bool dependentLaunch = true;
  /// Use the states of this other invocation (of this executable or
  /// another, on the same Runtime) instead of states of its own: both read
  /// and write the same device storage, with no copy, so the prefill
  /// module of a language model fills the KV cache that the decode module
  /// goes on with (python-free-docs/state.md, "Sharing states"). Both
  /// modules must declare the same states: the same names, dtypes, shapes
  /// and layouts, in any order; otherwise create() fails with
  /// InvalidArgument naming the first difference and shares nothing. The
  /// storage lives as long as the last invocation that uses it (either may
  /// be destroyed first), comes from the first invocation's allocator, and
  /// holds the initial values of the module that first uses it, until a
  /// run writes it; readState, writeStates and resetStates of either
  /// invocation read and write it. Invocations that share states must not
  /// run at the same time: launch them on one stream, or synchronize one
  /// before launching the other. Read only by create(); null: states of
  /// its own.
  Invocation *shareStatesWith = nullptr;
};

class Invocation {
public:
  /// Creates the invocation's stream; buffers are allocated on first use.
  static Result<std::unique_ptr<Invocation>>
  create(std::shared_ptr<const Executable> executable,
         InvocationOptions options = {});
  ~Invocation();
  Invocation(const Invocation &) = delete;
  Invocation &operator=(const Invocation &) = delete;

  const Executable &executable() const;
  /// The invocation's own stream (a CUstream), on which run(), upload(),
  /// launch() and download() work.
  void *stream() const;

  /// Runs the plan on host arrays: checks them against the signature
  /// (InvalidArgument), copies them into device storage laid out as the
  /// signature says, launches, synchronizes and returns the outputs as
  /// dense C-order arrays. Device buffers are allocated on the first call
  /// and reused.
  Result<std::vector<HostArray>> run(const std::vector<HostArray> &inputs);

  /// Zero-copy entry point: `inputs` and `outputs` are CUdeviceptr values,
  /// one per signature input/output, each the address of storage element 0
  /// of a buffer laid out as the signature says (the caller owns them).
  /// Launches on `stream` (a CUstream; nullptr is the legacy default stream)
  /// and returns without synchronizing. Temporaries are the invocation's, so
  /// runs of one invocation on different streams must not overlap; use one
  /// invocation per stream.
  Status runOnDevice(const std::vector<uint64_t> &inputs,
                     const std::vector<uint64_t> &outputs, void *stream);

  /// A module with symbolic sizes (python-free-docs/symbolic-sizes.md):
  /// binds its symbols from the inputs' shapes, one per signature input, as
  /// run() and upload() do from their arrays; runOnDevice and launch run
  /// at the shapes bound last. InvalidArgument for a shape outside a
  /// symbol's range or inconsistent, naming the input, its dim and the
  /// symbol. Nothing to do for a module without symbols.
  Status bindInputShapes(const std::vector<std::vector<int64_t>> &shapes);

  /// A module with a symbol bound from an input's value (format version
  /// 10; python-free-docs/symbolic-sizes.md, "Symbols bound from a value":
  /// a decode step's position choosing its attention): the value input
  /// `input` holds for the next runs on device buffers, which cannot be
  /// read on the host. run() and upload() read it from their arrays. The
  /// value only chooses among variants that compute the same results, so a
  /// value that differs from the buffer's, or none given, costs time, never
  /// a result. InvalidArgument for an input index past the signature;
  /// nothing to do where no symbol is bound from the input.
  Status bindInputValue(size_t input, int64_t value);

  //--- The steps of run(), for tools that time or repeat them ------------===//

  /// Checks `inputs` and copies them into the invocation's buffers
  /// (allocating them if needed), asynchronously on its stream; `inputs`
  /// must live until the next synchronize().
  Status upload(const std::vector<HostArray> &inputs);
  /// Enqueues the plan over the invocation's buffers on its stream (the
  /// CUDA graph with useCudaGraph); does not wait.
  Status launch();
  /// Enqueues step `index` of the plan alone (0-based, in the order of the
  /// module's steps; never as a CUDA graph) over the invocation's buffers
  /// on its stream; does not wait. Enqueuing every step in order is one
  /// launch(): a tool times the steps one by one this way
  /// (stride-run --profile). InvalidArgument for an index past the plan.
  /// A step that does not run at the bound sizes (runsStep) enqueues
  /// nothing.
  Status launchStep(size_t index);
  /// Whether step `index` runs at the sizes the inputs bound: false only
  /// for a variant the plan does not select there (a step guard,
  /// python-free-docs/symbolic-sizes.md, "Variants selected at run time").
  bool runsStep(size_t index) const;
  /// Waits for the invocation's stream; a failure here is a fault of some
  /// kernel of the plan (DeviceFault).
  Status synchronize();
  /// Copies the outputs from the invocation's buffers and waits for them.
  Result<std::vector<HostArray>> download();

  //--- State (python-free-docs/state.md) ---------------------------------===//

  /// The invocation's states (ModuleDesc::states: a KV cache, say) persist
  /// from one run to the next; each holds its initial value (the module's,
  /// or zeros) until the first run writes it.
  /// State `name`'s value now, as a dense C-order array (waits for the
  /// invocation's stream). InvalidArgument for a name the module lacks.
  Result<HostArray> readState(const std::string &name);
  /// Sets the named states (any subset) to `values`, all or nothing: every
  /// array is checked (name, dtype, shape) before any state is written.
  /// Waits for the invocation's stream.
  Status writeStates(const StateValues &values);
  /// Sets every state back to its initial value (the module's: for
  /// states shared with another invocation, this invocation's module's);
  /// waits for the stream.
  Status resetStates();

  struct Impl;

private:
  explicit Invocation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> pimpl;
};

} // namespace stride

#endif // STRIDE_RUNTIME_INVOCATION_H
