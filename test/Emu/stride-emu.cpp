//===- stride-emu.cpp - Run a module's plan with CPU-emulated kernels -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-run for machines without a GPU, for tests only: the same command
// line plus `--kernels lib.so` once per executable of the module (one per
// translation unit, in order), shared libraries that emulate.sh builds from
// the module's CUDA source with CudaEmulation.h (kernels-0.so, ...). The plan (buffers,
// constants, steps in order: dispatches with their grids, blocks and
// arguments, fills, copies, cublaslt.matmul calls: EmuMatmul.h, cudnn.sdpa_*
// calls: EmuAttention.h, cudnn.convolution calls: EmuConvolution.h,
// nccl.all_reduce calls among a group of stride-emu processes:
// EmuCollective.h; event steps are no-ops, the steps running in order, but
// for the variants the inputs' shapes do not select) is the
// module's own, so everything but the GPU itself is exercised. Outputs and temporaries are poisoned (0xFF) before
// the plan runs; zeroed temporaries start zeroed, as on the GPU. With
// --trace-library-calls it prints each library call of the first run as
// the module at the inputs' shapes states it ("library call:
// cublaslt.matmul f32 m=256 n=7 ...", summarizeStep), so a test sees the
// problem each shape calls.
//
//===----------------------------------------------------------------------===//

#include "EmuAttention.h"
#include "EmuCollective.h"
#include "EmuConvolution.h"
#include "EmuMatmul.h"
#include "RunModule.h"
#include "StateFiles.h"

#include "stride/Module/Module.h"
#include "stride/Runtime/Runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

using namespace stride;

namespace {
int fail(const std::string &message) {
  std::cerr << "stride-emu: error: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args;
  std::vector<std::string> kernelsPaths;
  int runs = 1;
  bool traceCalls = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc)
      kernelsPaths.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--trace-library-calls"))
      traceCalls = true;
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else
      args.push_back(argv[i]);
  }
  if (kernelsPaths.empty())
    return fail("--kernels LIB.so is required (once per executable)");
  Result<RunModuleOptions> options = parseRunModuleArgs(args);
  if (!options)
    return fail(options.error().message);
  Result<ModuleDesc> module = readModuleFile(options->modulePath);
  if (!module)
    return fail(module.error().message);
  Result<std::vector<HostArray>> inputs = readModuleInputs(*module, *options);
  if (!inputs)
    return fail(inputs.error().message);

  // A module with symbolic sizes runs at the values the inputs bind.
  Result<ModuleDesc> instance = instantiateForInputs(*module, *inputs);
  if (!instance)
    return fail(instance.error().message);
  const ModuleDesc &desc = *instance;
  // A variant the values do not select runs no step (a step guard).
  Result<std::vector<bool>> stepsRun = stepsRunForInputs(*module, *inputs);
  if (!stepsRun)
    return fail(stepsRun.error().message);
  if (kernelsPaths.size() != desc.executables.size())
    return fail("the module has " + std::to_string(desc.executables.size()) +
                " executables (translation units) but " +
                std::to_string(kernelsPaths.size()) +
                " kernel libraries were given: pass --kernels once per "
                "executable, in order (emulate.sh builds kernels-0.so, "
                "kernels-1.so, ...)");
  // Each library in its own namespace (RTLD_LOCAL): every unit defines the
  // prelude's functions and stride_emu_launch.
  using LaunchFn = int (*)(const char *, const unsigned *, const unsigned *,
                           unsigned, const uint64_t *, int);
  std::vector<LaunchFn> launches;
  for (const std::string &path : kernelsPaths) {
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return fail(std::string("cannot load the kernels: ") + dlerror());
    auto launch =
        reinterpret_cast<LaunchFn>(dlsym(library, "stride_emu_launch"));
    if (!launch)
      return fail("the kernel library " + path + " has no stride_emu_launch");
    launches.push_back(launch);
  }

  // Each buffer's bytes: a vector of its own, or its part of the arena.
  // Zeroed temporaries start zeroed, as the runtime allocates them; the
  // others, the arena, inputs and outputs are poisoned, so a plan that
  // reads a buffer before writing it shows (16 bytes of slack each, for
  // vector accesses at the end).
  std::vector<std::vector<uint8_t>> own(desc.buffers.size());
  std::vector<uint8_t> arena(size_t(desc.arenaBytes()) + 16, 0xFF);
  std::vector<uint8_t *> buffers;
  for (size_t i = 0; i < desc.buffers.size(); ++i) {
    const BufferDesc &b = desc.buffers[i];
    if (b.inArena()) {
      buffers.push_back(arena.data() + b.arenaOffset);
      continue;
    }
    std::vector<uint8_t> &bytes = own[i];
    bytes.assign(size_t(b.sizeBytes) + 16, b.zeroed ? 0 : 0xFF);
    if (b.kind == BufferKind::Input) {
      Result<std::vector<uint8_t>> packed = packToStorage(
          (*inputs)[b.index], desc.signature.inputs[b.index], b.sizeBytes);
      if (!packed)
        return fail(packed.error().message);
      std::memcpy(bytes.data(), packed->data(), packed->size());
    }
    if (b.kind == BufferKind::Constant) {
      const SharedBytes &data = desc.constants[b.index].data;
      std::copy(data.begin(), data.end(), bytes.begin());
    }
    if (b.kind == BufferKind::State) {
      std::vector<uint8_t> init = initialStateStorage(desc, b.index);
      std::copy(init.begin(), init.end(), bytes.begin());
    }
    buffers.push_back(bytes.data());
  }
  // --state-in: every state from its file, all checked before any is set,
  // as Invocation::writeStates does.
  auto stateBuffer = [&](size_t state) {
    for (size_t i = 0; i < desc.buffers.size(); ++i)
      if (desc.buffers[i].kind == BufferKind::State &&
          size_t(desc.buffers[i].index) == state)
        return buffers[i];
    return static_cast<uint8_t *>(nullptr);
  };
  if (!options->stateIn.empty()) {
    Result<StateValues> values = readStateFiles(desc, options->stateIn);
    if (!values)
      return fail(values.error().message);
    auto packed = packStates(desc, *values);
    if (!packed)
      return fail(packed.error().message);
    for (const auto &[state, storage] : *packed)
      std::copy(storage.begin(), storage.end(), stateBuffer(state));
  }
  auto dispatch = [&](const DispatchStep &d, size_t i) -> std::string {
    std::vector<uint64_t> values;
    for (const KernelArg &a : d.args) {
      switch (a.kind) {
      case KernelArg::Kind::Buffer:
        values.push_back(
            reinterpret_cast<uintptr_t>(buffers[a.bufferIndex]));
        break;
      case KernelArg::Kind::I32:
      case KernelArg::Kind::I64:
        values.push_back(static_cast<uint64_t>(a.intValue));
        break;
      default:
        return "floating-point immediates are not emulated";
      }
    }
    unsigned grid[3] = {d.grid.x, d.grid.y, d.grid.z};
    unsigned block[3] = {d.block.x, d.block.y, d.block.z};
    const std::string &name = desc.executables[d.executable].kernels[d.kernel].name;
    int rc = launches[d.executable](name.c_str(), grid, block,
                                    d.dynamicSharedBytes, values.data(),
                                    static_cast<int>(values.size()));
    if (rc == 1)
      return "kernel '" + name + "' is not in the kernel library of "
             "executable " + std::to_string(d.executable);
    if (rc == 2)
      return "kernel '" + name + "' takes another number of arguments than "
             "step " + std::to_string(i + 1) + " passes";
    if (rc == 3)
      return "kernel '" + name + "' is launched on a grid of " +
             std::to_string(grid[0]) +
             " blocks, not a multiple of its thread-block cluster's";
    return "";
  };
  // --runs N: the plan N times on the same buffers, as a loaded module runs
  // it again (zeroed scratch keeps what the last run left, other
  // temporaries too; outputs and the arena, where nothing lives across
  // runs, are poisoned again), so a plan that relies on its own scratch
  // being restored is checked.
  // nccl.all_reduce among stride-emu processes (EmuCollective.h).
  emu::EmuGroup group = emu::EmuGroup::fromEnvironment();
  for (int run = 0; run < runs; ++run) {
    if (run > 0) {
      std::fill(arena.begin(), arena.end(), 0xFF);
      for (size_t i = 0; i < desc.buffers.size(); ++i)
        if (desc.buffers[i].kind == BufferKind::Output)
          std::fill(own[i].begin(), own[i].end(), 0xFF);
    }
    for (size_t i = 0; i < desc.steps.size(); ++i) {
      if (!(*stepsRun)[i])
        continue;
      std::string problem;
      const Step &step = desc.steps[i];
      if (traceCalls && run == 0 && std::holds_alternative<LibraryCallStep>(step))
        std::cout << "library call: " << summarizeStep(desc, i).name << "\n";
      if (const auto *d = std::get_if<DispatchStep>(&step)) {
        problem = dispatch(*d, i);
      } else if (const auto *f = std::get_if<FillStep>(&step)) {
        std::fill_n(buffers[f->buffer],
                    size_t(desc.buffers[f->buffer].sizeBytes), f->value);
      } else if (const auto *c = std::get_if<CopyStep>(&step)) {
        std::memcpy(buffers[c->target], buffers[c->source],
                    size_t(c->sizeBytes));
      } else if (std::holds_alternative<EventStep>(step)) {
        // The steps run one after the other here, which keeps every order
        // the events ask for between the two streams.
      } else if (const auto *call = std::get_if<LibraryCallStep>(&step);
                 call && call->routine == "cublaslt.matmul") {
        problem = emu::runMatmul(*call, buffers);
      } else if (call && call->routine == "cudnn.sdpa_forward") {
        problem = emu::runSdpaForward(*call, buffers);
      } else if (call && call->routine == "cudnn.sdpa_backward") {
        problem = emu::runSdpaBackward(*call, buffers);
      } else if (call && call->routine == "cudnn.convolution") {
        problem = emu::runConvolution(*call, buffers);
      } else if (call && call->routine == "nccl.all_reduce") {
        problem = emu::runAllReduce(*call, buffers, group);
      } else {
        problem = "library call '" + std::get<LibraryCallStep>(step).routine +
                  "' is not emulated";
      }
      if (!problem.empty())
        return fail(problem);
    }
  }
  std::vector<HostArray> outputs;
  std::vector<uint32_t> sources = outputSourceBuffers(desc);
  for (size_t o = 0; o < sources.size(); ++o)
    outputs.push_back(
        unpackFromStorage(buffers[sources[o]], desc.signature.outputs[o]));
  if (!options->stateOut.empty()) {
    StateValues after;
    for (size_t i = 0; i < desc.states.size(); ++i)
      after.emplace_back(desc.states[i].tensor.name,
                         unpackFromStorage(stateBuffer(i), desc.states[i].tensor));
    if (Status s = writeStateFiles(after, options->stateOut); !s)
      return fail(s.error().message);
  }
  return finishModuleOutputs(desc, outputs, *options, "stride-emu");
}
