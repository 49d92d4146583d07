//===- RunModule.cpp - stride-run's GPU mode: run a module ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "RunModule.h"

#include "Launcher.h"
#include "StateFiles.h"

#include "Benchmark.h"
#include "Compare.h"
#include "Profile.h"

#include "stride/Module/Module.h"
#include "stride/Module/ModuleSymbols.h"
#include "stride/Runtime/Invocation.h"
#include "stride/Support/Npy.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

namespace stride {
namespace {

int fail(const std::string &program, const std::string &message) {
  std::cerr << program << ": error: " << message << "\n";
  return 1;
}

std::optional<int64_t> parseInt(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end)
    return std::nullopt;
  return v;
}

std::optional<double> parseDouble(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (*end)
    return std::nullopt;
  return v;
}

} // namespace

std::string runModuleUsage(const std::string &program) {
  return "usage: " + program +
         " MODULE.stridemod [--input NAME=FILE.npy]... [--output-dir DIR]\n"
         "       [--state-in DIR] [--state-out DIR]\n"
         "       [--bf16-output=f32|raw]"
         " [--device N] [--poison] [--expect DIR [--rtol X] [--atol X]]\n"
         "       [--bench] [--profile] [--profile-json FILE] [--warmup N]\n"
         "       [--iterations N] [--gpu-memory-limit BYTES]\n"
         "       [--tune-library-calls] [--no-dependent-launch] [--ranks N]\n"
         "\n"
         "Runs a compiled Stride module on the GPU.\n"
         "  --input NAME=FILE.npy  the graph input NAME (see stridec --inspect);\n"
         "                         FILE.npy alone binds the inputs in order; a\n"
         "                         bf16 input reads f32 (rounded to nearest\n"
         "                         bf16, ties to even) or an ml_dtypes bfloat16\n"
         "                         file (descr '<V2', as numpy.save writes it)\n"
         "  --output-dir DIR       write each output as DIR/<name>.npy\n"
         "  --state-in DIR         set the module's states (a KV cache) before\n"
         "                         the run from DIR/<state>.npy, one per state,\n"
         "                         all checked before any is set (default: their\n"
         "                         initial values)\n"
         "  --state-out DIR        write each state after the run as\n"
         "                         DIR/<state>.npy (renamed into place once all\n"
         "                         are written): the next run's --state-in\n"
         "  --bf16-output=f32|raw  bf16 outputs as f32 (exact; the default) or\n"
         "                         as ml_dtypes bfloat16 ('<V2')\n"
         "  --device N             the CUDA device (default 0)\n"
         "  --poison               fill the outputs with 0xFF bytes before the\n"
         "                         run, so an element no kernel writes reads as\n"
         "                         NaN or -1\n"
         "  --expect DIR           compare each output with DIR/<name>.npy:\n"
         "                         integers exactly, floats with relative error\n"
         "                         <= rtol (default 1e-5; 0 means exactly) or\n"
         "                         absolute error <= atol (default 0); a bf16\n"
         "                         output with f32 or '<V2' files\n"
         "  --bench                time the plan, replayed as a CUDA graph: the\n"
         "                         median over --iterations samples (default\n"
         "                         100), each the mean of 10 back-to-back\n"
         "                         replays; then the device's copy bandwidth and\n"
         "                         the module's device memory (constants,\n"
         "                         temporaries, inputs, outputs, and the peak\n"
         "                         the runtime allocated), and the L2 windows\n"
         "                         its launches carry where it has any\n"
         "                         (stridec --l2-resident-bytes)\n"
         "  --profile              run the plan step by step (not as a CUDA\n"
         "                         graph), --iterations times after --warmup\n"
         "                         runs (default 100 and 10), a CUDA event\n"
         "                         around each step; print each step's kind\n"
         "                         (kernel, library call, copy, fill), median\n"
         "                         ms, share and name (a matrix product's\n"
         "                         shape), the totals per kind and the\n"
         "                         device memory\n"
         "  --profile-json FILE    --profile, also written to FILE as JSON\n"
         "  --gpu-memory-limit B   fail allocations beyond B bytes\n"
         "  --tune-library-calls   before the first run, time cuBLASLt's first\n"
         "                         8 candidate algorithms for each distinct\n"
         "                         matrix product, and every execution plan\n"
         "                         cuDNN's heuristics offer for each distinct\n"
         "                         attention, on the run's buffers and keep\n"
         "                         the fastest (for the run, --bench and\n"
         "                         --profile); another process may choose\n"
         "                         another and round differently\n"
         "  --no-dependent-launch  launch every kernel after the one before it\n"
         "                         ends, even the dispatches the module marks\n"
         "                         dependent (--inspect: 'dependent'), to\n"
         "                         measure what their overlap gains\n"
         "  --ranks N              run N ranks of a group, one process per GPU\n"
         "                         (rank r on GPU r) with the environment\n"
         "                         torchrun gives (RANK, WORLD_SIZE,\n"
         "                         LOCAL_RANK), a fresh STRIDE_NCCL_ID_FILE and\n"
         "                         NCCL_NVLS_ENABLE=0; a MODULE path with %d\n"
         "                         names rank r's module (model.rank%d.stridemod),\n"
         "                         else every rank runs MODULE; rank r's outputs\n"
         "                         and states (--output-dir, --state-out) go to\n"
         "                         DIR/rank<r>/, --expect and --state-in read\n"
         "                         DIR/rank<r>/ where it exists, else DIR;\n"
         "                         fails, with the rank's message, if any rank\n"
         "                         fails (a rank that stops ends the others by\n"
         "                         the collective timeout, STRIDE_NCCL_TIMEOUT_MS)\n";
}

Result<RunModuleOptions> parseRunModuleArgs(const std::vector<std::string> &args) {
  RunModuleOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      // --input takes NAME=FILE, so only split the option name off.
      if (eq != std::string::npos && arg.rfind("--input", 0) != 0) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        hasInlineValue = true;
      } else if (arg.rfind("--input=", 0) == 0) {
        value = arg.substr(8);
        arg = "--input";
        hasInlineValue = true;
      }
    }
    auto next = [&]() -> Result<std::string> {
      if (hasInlineValue)
        return value;
      if (i + 1 >= args.size())
        return makeError(ErrorCode::InvalidArgument,
                         "option " + arg + " needs a value");
      return args[++i];
    };
    if (arg == "--input") {
      Result<std::string> v = next();
      if (!v)
        return v.error();
      size_t eq = v->find('=');
      if (eq == std::string::npos)
        o.inputs.push_back({"", *v});
      else
        o.inputs.push_back({v->substr(0, eq), v->substr(eq + 1)});
    } else if (arg == "--output-dir" || arg == "--state-in" ||
               arg == "--state-out") {
      Result<std::string> v = next();
      if (!v)
        return v.error();
      (arg == "--output-dir" ? o.outputDir
       : arg == "--state-in" ? o.stateIn
                             : o.stateOut) = *v;
    } else if (arg == "--bf16-output") {
      Result<std::string> v = next();
      if (!v)
        return v.error();
      std::optional<Bf16Output> encoding = parseBf16Output(*v);
      if (!encoding)
        return makeError(ErrorCode::InvalidArgument,
                         "option --bf16-output expects f32 or raw, not '" + *v +
                             "'");
      o.bf16Output = *encoding;
    } else if (arg == "--profile-json") {
      Result<std::string> v = next();
      if (!v)
        return v.error();
      o.profileJson = *v;
      o.profile = true;
    } else if (arg == "--expect") {
      Result<std::string> v = next();
      if (!v)
        return v.error();
      o.expectDir = *v;
    } else if (arg == "--device" || arg == "--warmup" ||
               arg == "--iterations" || arg == "--gpu-memory-limit" ||
               arg == "--ranks") {
      Result<std::string> v = next();
      if (!v)
        return v.error();
      std::optional<int64_t> n = parseInt(*v);
      if (!n || *n < 0)
        return makeError(ErrorCode::InvalidArgument,
                         "option " + arg +
                             " expects a non-negative integer, not '" + *v +
                             "'");
      if (arg == "--device") {
        o.device = static_cast<int>(*n);
        o.deviceGiven = true;
      } else if (arg == "--ranks") {
        if (*n < 1 || *n > 64)
          return makeError(ErrorCode::InvalidArgument,
                           "option --ranks expects a number of ranks in [1, "
                           "64], not '" + *v + "'");
        o.ranks = static_cast<int>(*n);
      } else if (arg == "--warmup") {
        o.warmup = static_cast<int>(*n);
      } else if (arg == "--iterations") {
        o.iterations = static_cast<int>(*n);
      } else {
        o.gpuMemoryLimitBytes = static_cast<uint64_t>(*n);
      }
    } else if (arg == "--rtol" || arg == "--atol") {
      Result<std::string> v = next();
      if (!v)
        return v.error();
      std::optional<double> x = parseDouble(*v);
      if (!x || *x < 0)
        return makeError(ErrorCode::InvalidArgument,
                         "option " + arg +
                             " expects a non-negative number, not '" + *v +
                             "'");
      (arg == "--rtol" ? o.rtol : o.atol) = *x;
    } else if (arg == "--poison") {
      o.poison = true;
    } else if (arg == "--bench") {
      o.bench = true;
    } else if (arg == "--tune-library-calls") {
      o.tuneLibraryCalls = true;
    } else if (arg == "--no-dependent-launch") {
      o.dependentLaunch = false;
    } else if (arg == "--profile") {
      o.profile = true;
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      return makeError(ErrorCode::InvalidArgument,
                       "unknown option '" + arg + "'");
    } else if (o.modulePath.empty()) {
      o.modulePath = arg;
    } else {
      return makeError(ErrorCode::InvalidArgument,
                       "unexpected argument '" + arg +
                           "' (one module file only; inputs go with --input)");
    }
  }
  if (o.modulePath.empty())
    return makeError(ErrorCode::InvalidArgument, "no module file given");
  return o;
}

Result<std::vector<HostArray>> readModuleInputs(const ModuleDesc &module,
                                                const RunModuleOptions &options) {
  const GraphSignature &signature = module.signature;
  std::vector<HostArray> inputs(signature.inputs.size());
  std::vector<bool> bound(signature.inputs.size(), false);
  size_t nextPositional = 0;
  for (const auto &[name, path] : options.inputs) {
    size_t index = signature.inputs.size();
    if (name.empty()) {
      while (nextPositional < bound.size() && bound[nextPositional])
        ++nextPositional;
      index = nextPositional;
    } else {
      for (size_t i = 0; i < signature.inputs.size(); ++i)
        if (signature.inputs[i].name == name)
          index = i;
    }
    if (index >= signature.inputs.size()) {
      std::string names;
      for (const TensorSignature &t : signature.inputs)
        names += (names.empty() ? "'" : ", '") + t.name + "'";
      return makeError(
          ErrorCode::InvalidArgument,
          (name.empty() ? "too many inputs"
                        : "'" + signature.entryName + "' has no input named '" +
                              name + "'") +
              " (its inputs: " + (names.empty() ? "none" : names) + ")");
    }
    if (bound[index])
      return makeError(ErrorCode::InvalidArgument,
                       "input '" + signature.inputs[index].name +
                           "' is given twice");
    const TensorSignature &t = signature.inputs[index];
    // A symbolic input's shape is checked once its symbols are bound.
    Result<HostArray> array =
        t.symbolic ? readInputNpy(path, t.dtype, std::nullopt, t.name)
                   : readInputNpy(path, t.dtype, t.shape, t.name);
    if (!array)
      return array.error();
    inputs[index] = std::move(*array);
    bound[index] = true;
  }
  for (size_t i = 0; i < bound.size(); ++i)
    if (!bound[i])
      return makeError(ErrorCode::InvalidArgument,
                       "no value for input '" + signature.inputs[i].name +
                           "' (give it with --input " +
                           signature.inputs[i].name + "=FILE.npy)");
  if (module.symbols.empty()) {
    if (Status s = checkInputs(signature, inputs); !s)
      return s.error();
    return inputs;
  }
  // Symbolic sizes: the shapes bind the symbols, and the inputs are
  // checked against the module at their values.
  Result<ModuleDesc> instance = instantiateForInputs(module, inputs);
  if (!instance)
    return instance.error();
  if (Status s = checkInputs(instance->signature, inputs); !s)
    return s.error();
  return inputs;
}

std::string describeAbsentOutputs(const std::vector<uint32_t> &positions,
                                  size_t numProgramOutputs) {
  std::string lines;
  for (uint32_t p : positions)
    lines += "output " + std::to_string(p) + " of " +
             std::to_string(numProgramOutputs) + ": None\n";
  return lines;
}

int finishModuleOutputs(const ModuleDesc &module,
                        const std::vector<HostArray> &outputs,
                        const RunModuleOptions &options,
                        const std::string &program) {
  std::cout << describeAbsentOutputs(module.signature.absentOutputs,
                                     module.signature.numProgramOutputs());
  int status = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string &name = module.signature.outputs[i].name;
    HostArray out = widenForNpy(outputs[i]);
    if (!options.outputDir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(options.outputDir, ec);
      std::string path =
          (std::filesystem::path(options.outputDir) / (name + ".npy")).string();
      if (Status s = writeNpyFile(path, encodeForNpy(outputs[i], options.bf16Output));
          !s)
        return fail(program, s.error().message);
    }
    if (!options.expectDir.empty()) {
      std::string path =
          (std::filesystem::path(options.expectDir) / (name + ".npy")).string();
      Result<HostArray> expected = readNpyFile(path);
      if (!expected)
        return fail(program, expected.error().message);
      Comparison c = compareArrays(out, widenForNpy(*expected), options.rtol,
                                   options.atol);
      std::cout << describeComparison(name, c) << "\n";
      if (!c.ok)
        status = 1;
    }
  }
  return status;
}

namespace {

/// Times the plan replayed as a CUDA graph (Benchmark.h) and prints it with
/// the bandwidth it reaches against the device's copy bandwidth.
Status printBenchmark(Runtime &runtime,
                      const std::shared_ptr<const Executable> &executable,
                      const std::vector<HostArray> &inputs,
                      const RunModuleOptions &options) {
  InvocationOptions replay;
  replay.useCudaGraph = true;
  replay.dependentLaunch = options.dependentLaunch;
  Result<BenchResult> bench =
      benchmarkExecutable(executable, inputs, options.warmup,
                          std::max(1, options.iterations), replay);
  if (!bench)
    return bench.error();
  const GraphSignature &signature = executable->desc().signature;
  int64_t bytes = 0;
  for (const TensorSignature &t : signature.inputs)
    bytes += storageBytes(t).value_or(0);
  for (const TensorSignature &t : signature.outputs)
    bytes += storageBytes(t).value_or(0);
  Result<double> copy = measureCopyBandwidth(
      *runtime.defaultAllocator(),
      std::max<size_t>(size_t(bytes) / 2, size_t(64) << 20));
  double gbps = bytes / (bench->medianMs * 1e-3) / 1e9;
  char line[512];
  std::snprintf(line, sizeof(line),
                "%s on %s: median %.4f ms, min %.4f ms over %d samples of 10 "
                "runs (CUDA graph); %.1f GB/s for %lld bytes of inputs and "
                "outputs",
                options.modulePath.c_str(), runtime.describeDevice().c_str(),
                bench->medianMs, bench->minMs, bench->iterations, gbps,
                static_cast<long long>(bytes));
  std::cout << line;
  if (copy) {
    std::snprintf(line, sizeof(line),
                  " (%.1f%% of the copy bandwidth, %.1f GB/s)",
                  100.0 * gbps * 1e9 / *copy, *copy / 1e9);
    std::cout << line;
  }
  std::cout << std::endl;
  return Status::ok();
}

/// Which variants the inputs select, where the module has any (step
/// guards: python-free-docs/symbolic-sizes.md): "variants: 4 of 12
/// guarded steps run at these inputs: attention_staged (4)", so that a
/// benchmark's figure says which form it timed.
void printVariants(const ModuleDesc &desc, const std::vector<HostArray> &inputs) {
  Result<std::vector<bool>> runs = stepsRunForInputs(desc, inputs);
  if (!runs)
    return;
  size_t guarded = 0, running = 0;
  std::map<std::string, int> ran;
  for (size_t i = 0; i < desc.steps.size(); ++i) {
    const StepGuard *guard = guardOf(desc.steps[i]);
    if (!guard || guard->empty())
      continue;
    ++guarded;
    if (!(*runs)[i])
      continue;
    ++running;
    std::string name = summarizeStep(desc, i).name;
    ++ran[name.substr(0, name.find(' '))];
  }
  if (guarded == 0)
    return;
  std::cout << "variants: " << running << " of " << guarded
            << " guarded steps run at these inputs";
  const char *separator = ": ";
  for (const auto &[name, count] : ran) {
    std::cout << separator << name << " (" << count << ")";
    separator = ", ";
  }
  std::cout << std::endl;
}

/// The L2 windows the launches carry, where the module has any
/// (stridec --l2-resident-bytes), or that the device applies none.
void printL2Windows(const Executable &executable) {
  uint64_t asked = 0;
  for (const Step &step : executable.desc().steps)
    if (const auto *d = std::get_if<DispatchStep>(&step))
      asked = std::max(asked, d->l2ResidentBytes);
  if (asked == 0)
    return;
  Executable::L2Windows applied = executable.l2Windows();
  if (applied.launches == 0) {
    std::cout << "L2 windows: none applied (the device or context sets no L2 "
                 "aside for persisting lines)"
              << std::endl;
    return;
  }
  char line[256];
  std::snprintf(line, sizeof(line),
                "L2 windows: %d launches over %llu bytes of constants, hit ratio %.3f",
                applied.launches, static_cast<unsigned long long>(applied.bytes),
                applied.hitRatio);
  std::cout << line << std::endl;
}

/// Profiles the plan on `invocation` (Benchmark.h), prints it and writes
/// it as JSON where asked.
Status printProfile(Runtime &runtime, Invocation &invocation,
                    const std::vector<HostArray> &inputs,
                    const RunModuleOptions &options,
                    const MemoryReport &memory) {
  Result<ProfileResult> timed = profileInvocation(
      invocation, inputs, options.warmup, std::max(1, options.iterations));
  if (!timed)
    return timed.error();
  ProfileReport report;
  report.module = options.modulePath;
  report.device = runtime.describeDevice();
  report.warmup = options.warmup;
  report.iterations = timed->iterations;
  report.memory = memory;
  const ModuleDesc &desc = invocation.executable().desc();
  for (size_t i = 0; i < desc.steps.size(); ++i) {
    StepSummary step = summarizeStep(desc, i);
    if (!invocation.runsStep(i))
      step.name += " (a variant not run at these values)";
    report.steps.push_back({step, timed->stepMedianMs[i]});
  }
  std::cout << formatProfileText(report) << std::flush;
  if (options.profileJson.empty())
    return Status::ok();
  std::ofstream json(options.profileJson);
  json << formatProfileJson(report);
  if (!json.flush())
    return makeError(ErrorCode::InvalidArgument,
                     options.profileJson + ": cannot write the profile");
  return Status::ok();
}

} // namespace

int runModule(const RunModuleOptions &options, const std::string &program) {
  // Everything that needs no GPU is checked first, so that mistakes are
  // reported on any machine.
  Result<ModuleDesc> module = readModuleFile(options.modulePath);
  if (!module)
    return fail(program, module.error().message);
  Result<std::vector<HostArray>> inputs = readModuleInputs(*module, options);
  if (!inputs)
    return fail(program, inputs.error().message);
  Result<StateValues> states = StateValues{};
  if (!options.stateIn.empty())
    states = readStateFiles(*module, options.stateIn);
  if (!states)
    return fail(program, states.error().message);

  Result<std::unique_ptr<Runtime>> runtime = Runtime::create(options.device);
  if (!runtime)
    return fail(program, runtime.error().message);
  Result<std::shared_ptr<const Executable>> executable =
      Executable::load(**runtime, *module, options.modulePath);
  if (!executable)
    return fail(program, executable.error().message);
  AllocatorOptions allocatorOptions;
  allocatorOptions.poison = options.poison;
  allocatorOptions.limitBytes = options.gpuMemoryLimitBytes;
  InvocationOptions invocationOptions;
  invocationOptions.allocator = Allocator::create(**runtime, allocatorOptions);
  invocationOptions.tuneLibraryCalls = options.tuneLibraryCalls;
  invocationOptions.dependentLaunch = options.dependentLaunch;
  Result<std::unique_ptr<Invocation>> invocation =
      Invocation::create(*executable, invocationOptions);
  if (!invocation)
    return fail(program, invocation.error().message);

  if (Status s = (*invocation)->writeStates(*states); !s)
    return fail(program, s.error().message);
  Result<std::vector<HostArray>> outputs = (*invocation)->run(*inputs);
  if (!outputs)
    return fail(program, outputs.error().message);
  if (!options.stateOut.empty()) {
    StateValues after;
    for (const StateDesc &state : module->states) {
      Result<HostArray> value = (*invocation)->readState(state.tensor.name);
      if (!value)
        return fail(program, value.error().message);
      after.emplace_back(state.tensor.name, std::move(*value));
    }
    if (Status s = writeStateFiles(after, options.stateOut); !s)
      return fail(program, s.error().message);
  }
  // The peak of one run: the constants and one invocation's buffers, before
  // the benchmark's invocation and copy-bandwidth buffers add their own.
  MemoryReport memory{summarizeMemory(*module), (*runtime)->peakDeviceBytes()};
  int status = finishModuleOutputs(*module, *outputs, options, program);

  if (options.profile)
    if (Status s = printProfile(**runtime, **invocation, *inputs, options, memory);
        !s)
      return fail(program, s.error().message);
  if (options.bench) {
    if (Status s = printBenchmark(**runtime, *executable, *inputs, options); !s)
      return fail(program, s.error().message);
    std::cout << formatMemoryLine(memory) << std::endl;
    printL2Windows(**executable);
    printVariants((*executable)->desc(), *inputs);
  }
  return status;
}

int runModuleMain(int argc, char **argv) {
  std::string program = argc > 0 ? std::filesystem::path(argv[0]).filename().string()
                                 : "stride-run";
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") {
      std::cout << runModuleUsage(program);
      return 0;
    }
  Result<RunModuleOptions> options = parseRunModuleArgs(args);
  if (!options) {
    std::cerr << program << ": error: " << options.error().message << "\n"
              << runModuleUsage(program);
    return 1;
  }
  if (options->ranks > 0)
    return launchRanks(*options, args, program);
  return runModule(*options, program);
}

} // namespace stride
