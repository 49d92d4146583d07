//===- stride-run.cpp - Run a stride graph --------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
//   stride-run graph.mlir --reference --input x=x.npy --output-dir out/
//
// main only parses the command line and dispatches on the mode; each mode
// lives in its own function (the reference interpreter here; running compiled
// GPU modules in RunModule.cpp). Every failure prints one clear
// message and exits 1; nothing here aborts on bad input.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "CompareValues.h"
#include "Options.h"
#include "RunModule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "stride/Compiler/PrepareAttention.h"
#include "stride/Interpreter/Interpreter.h"
#include "dialects/stride/Transforms/Passes.h"
#include "stride/Import/GraphParser.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/IR/StrideOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <random>

using namespace mlir;

namespace stride::run {

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

std::string helpText() {
  return R"(USAGE: stride-run GRAPH.mlir [--reference] [options]

Runs the entry function of a stride graph on the reference interpreter (the
CPU oracle: PyTorch semantics, float64 arithmetic rounded to each result's
element type) and writes or prints its results.

The graph is parsed, verified and run through the Stride pipeline first, so a
graph with an illegal layout is rejected exactly as the compiler rejects it;
convolutions stay whole and batch norms unfolded (the compiler's rewrites
are checked against them), except with --compare-values.

OPTIONS:
  --reference             Run on the reference interpreter (the only mode of
                          a graph file, so optional; a compiled .stridemod
                          module runs on the GPU, see below).
  --input NAME=FILE.npy   The value of input NAME (repeatable). Inputs are
                          named by their `stride.name` argument attribute, or
                          arg0, arg1, ... by position. A bf16 input reads f32
                          (rounded to the nearest bf16, ties to even) or an
                          ml_dtypes bfloat16 file (descr '<V2', as numpy.save
                          writes it).
  --random-inputs         Make every input not given with --input: floats
                          uniform in [-1, 1); integers and booleans in {0, 1},
                          except arguments used as the index operand of
                          gather, index_select, scatter, scatter_add or
                          index_add, which are uniform in [0, size of the
                          indexed dim).
  --seed N                Seed of --random-inputs (default 0).
  --save-inputs DIR       Write every input the graph ran with (given or
                          made by --random-inputs) as DIR/<name>.npy, e.g.
                          to run a compiled module on the same inputs.
  --output-dir DIR        Write each result as DIR/<name>.npy (created if
                          missing): its `stride.name` result attribute, or
                          result0, result1, ... by position (the names a
                          compiled module gives its outputs).
  --bf16-output=f32|raw   Write bf16 results and saved inputs as f32 (exact;
                          the default) or as ml_dtypes bfloat16 ('<V2').
  --print                 Print the results as text (NumPy style).
  --entry NAME            The function to run (default: the first one).
  --repair-layouts        Give illegal functional result layouts a dense
                          layout instead of rejecting the graph.
  --instantiate-symbols NAME=N,...
                          Run a graph of symbolic sizes (a stride.symbols
                          function) at these values of its symbols, e.g.
                          batch=7,seq=33: the function instantiated at them
                          (stride-instantiate-symbols), each value within its
                          symbol's range. The interpreter runs static shapes
                          only.
  --expect DIR            Compare each result with DIR/<name>.npy (as
                          --output-dir writes them), printing one line per
                          result; exit status 1 when one differs beyond
                          --rtol.
  --compare-values DIR    Compare every value the module kept with the
                          reference: DIR holds value.K.npy files written by a
                          run of a module compiled with `stridec
                          --keep-values` (stride-run-gpu --output-dir DIR, or
                          the emulator) on the same inputs. Prints each
                          value's error and names the first value, in program
                          order, that differs beyond --rtol: its kernel, op,
                          source location and imported node name, its
                          largest absolute and relative errors and worst
                          element. Exit status 1 when one differs.
  --rtol X                Tolerance of --expect and --compare-values
                          (default 1e-5; the measure is that of the module
                          mode's --expect, below).
  --no-fuse               With --compare-values: the module was compiled with
                          stridec --no-fuse (one kernel per op), so the
                          kernels are formed the same way here.
  --simulate-ranks N      Run the graph as the N ranks of a group, together,
                          its collectives (stride.all_reduce, ...) exchanging
                          the ranks' values; the collectives' world size must
                          be N. With N graph files (GRAPH0.mlir GRAPH1.mlir
                          ...), rank r runs file r (e.g. the rank archives
                          of a tensor-parallel export). Every rank gets the --input files; inputs made
                          by --random-inputs differ by rank (rank r's seed is
                          --seed + r). --output-dir writes rank r's results
                          to DIR/rank<r>/, --print prints them under
                          "rank r:", --expect DIR compares rank r's results
                          with DIR/rank<r>/ where that directory exists,
                          else with DIR.
  --tensor-parallel N     Split the graph for N ranks (stride-tensor-parallel,
                          python-free-docs/distributed.md) and run the N rank
                          programs together on the same inputs. Every rank's
                          results are those of the unsplit graph: --expect
                          compares each rank's with the unsplit graph's
                          (written by a run without this option).
  --state-in DIR          Start the graph's states (stride.state arguments,
                          a KV cache) from DIR/<name>.npy instead of their
                          initial values (one file per state).
  --state-out DIR         Write each state after the run as DIR/<name>.npy
                          (the next run's --state-in). With either option,
                          the results that write a state back are states,
                          not outputs (as in a module): --output-dir,
                          --print and --expect leave them out. With
                          --simulate-ranks or --tensor-parallel, rank r's
                          states are DIR/rank<r>/.
  --help                  Show this text.

Options taking a value accept both `--opt VALUE` and `--opt=VALUE`.

EXAMPLE:
  stride-run examples/seed_backward.mlir --reference --random-inputs \
      --seed 1 --print
  stride-run graph.mlir --reference --input x=x.npy --output-dir out/
  stride-run graph.mlir --input x=x.npy --compare-values gpu-out/

Exit status: 0 on success, 1 on any error (the message says which file,
input, op and source location).
)";
}

Result<Options> parseCommandLine(int argc, char **argv) {
  Options o;
  bool seenSeed = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        hasValue = true;
      }
    }
    auto takeValue = [&]() -> Status {
      if (hasValue)
        return Status::ok();
      if (i + 1 >= argc)
        return makeError(ErrorCode::InvalidArgument,
                         "option '" + name + "' needs a value");
      value = argv[++i];
      return Status::ok();
    };
    auto noValue = [&]() -> Status {
      if (hasValue)
        return makeError(ErrorCode::InvalidArgument,
                         "option '" + name + "' takes no value");
      return Status::ok();
    };
    Status s;
    if (name == "--help" || name == "-h") {
      o.help = true;
    } else if (name == "--reference") {
      if (!(s = noValue())) return s.error();
      o.reference = true;
    } else if (name == "--print") {
      if (!(s = noValue())) return s.error();
      o.print = true;
    } else if (name == "--random-inputs") {
      if (!(s = noValue())) return s.error();
      o.randomInputs = true;
    } else if (name == "--repair-layouts") {
      if (!(s = noValue())) return s.error();
      o.repairLayouts = true;
    } else if (name == "--no-fuse") {
      if (!(s = noValue())) return s.error();
      o.noFuse = true;
    } else if (name == "--expect") {
      if (!(s = takeValue())) return s.error();
      o.expectDir = value;
    } else if (name == "--compare-values") {
      if (!(s = takeValue())) return s.error();
      o.compareValuesDir = value;
    } else if (name == "--rtol") {
      if (!(s = takeValue())) return s.error();
      char *end = nullptr;
      double x = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !(x >= 0))
        return makeError(ErrorCode::InvalidArgument,
                         "--rtol expects a non-negative number, got '" +
                             value + "'");
      o.rtol = x;
      o.rtolGiven = true;
    } else if (name == "--input") {
      if (!(s = takeValue())) return s.error();
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        return makeError(ErrorCode::InvalidArgument,
                         "--input expects NAME=FILE.npy, got '" + value + "'");
      o.inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (name == "--output-dir") {
      if (!(s = takeValue())) return s.error();
      o.outputDir = value;
    } else if (name == "--state-in" || name == "--state-out") {
      if (!(s = takeValue())) return s.error();
      (name == "--state-in" ? o.stateIn : o.stateOut) = value;
    } else if (name == "--bf16-output") {
      if (!(s = takeValue())) return s.error();
      std::optional<Bf16Output> encoding = parseBf16Output(value);
      if (!encoding)
        return makeError(ErrorCode::InvalidArgument,
                         "--bf16-output expects f32 or raw, got '" + value +
                             "'");
      o.bf16Output = *encoding;
    } else if (name == "--instantiate-symbols") {
      if (!(s = takeValue())) return s.error();
      for (llvm::StringRef entry : llvm::split(value, ','))
        o.instantiateSymbols.push_back(entry.str());
    } else if (name == "--save-inputs") {
      if (!(s = takeValue())) return s.error();
      o.saveInputsDir = value;
    } else if (name == "--entry") {
      if (!(s = takeValue())) return s.error();
      o.entry = value;
    } else if (name == "--seed") {
      if (!(s = takeValue())) return s.error();
      char *end = nullptr;
      errno = 0;
      unsigned long long v = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end || errno || value[0] == '-')
        return makeError(ErrorCode::InvalidArgument,
                         "--seed expects a non-negative integer, got '" +
                             value + "'");
      o.seed = v;
      seenSeed = true;
    } else if (name == "--simulate-ranks" || name == "--tensor-parallel") {
      if (!(s = takeValue())) return s.error();
      char *end = nullptr;
      long long n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || n < 1 || n > 64)
        return makeError(ErrorCode::InvalidArgument,
                         name + " expects a number of ranks in [1, 64], got '" +
                             value + "'");
      (name == "--simulate-ranks" ? o.simulateRanks : o.tensorParallel) = n;
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      return makeError(ErrorCode::InvalidArgument,
                       "unknown option '" + arg + "' (see --help)");
    } else {
      if (!o.inputFile.empty())
        o.rankFiles.push_back(arg);
      else
        o.inputFile = arg;
    }
  }
  if (o.help)
    return o;
  if (o.inputFile.empty())
    return makeError(
        ErrorCode::InvalidArgument,
        "no input file: give a graph (.mlir, run on the reference "
        "interpreter) or a compiled module (.stridemod, run on the "
        "GPU); see --help");
  if (o.noFuse && o.compareValuesDir.empty())
    return makeError(ErrorCode::InvalidArgument,
                     "--no-fuse needs --compare-values");
  if (o.rtolGiven && o.compareValuesDir.empty() && o.expectDir.empty())
    return makeError(ErrorCode::InvalidArgument,
                     "--rtol needs --expect or --compare-values");
  if (!o.instantiateSymbols.empty() && (o.simulateRanks || o.tensorParallel))
    return makeError(ErrorCode::InvalidArgument,
                     "--instantiate-symbols runs one graph, not the ranks of "
                     "--simulate-ranks or --tensor-parallel");
  if (!o.rankFiles.empty() &&
      o.simulateRanks != static_cast<int64_t>(o.rankFiles.size()) + 1)
    return makeError(ErrorCode::InvalidArgument,
                     "more than one input file: '" + o.inputFile + "' and '" +
                         o.rankFiles[0] +
                         "' (several graphs are the programs of the ranks "
                         "of --simulate-ranks N: one per rank)");
  if (o.simulateRanks && o.tensorParallel)
    return makeError(ErrorCode::InvalidArgument,
                     "--simulate-ranks and --tensor-parallel exclude each "
                     "other (a split graph runs as its own group)");
  if ((o.simulateRanks > 1 || o.tensorParallel > 1) &&
      (!o.compareValuesDir.empty() || !o.saveInputsDir.empty()))
    return makeError(ErrorCode::InvalidArgument,
                     "--compare-values and --save-inputs run one rank: not "
                     "with --simulate-ranks or --tensor-parallel");
  if (seenSeed && !o.randomInputs)
    return makeError(ErrorCode::InvalidArgument,
                     "--seed needs --random-inputs");
  return o;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// Writes (--output-dir) and prints (--print) each result under its name
/// (resultName: the `stride.name` result attribute, else result<N>), the
/// name a compiled module gives the same output.
Status emitResults(const Options &options, func::FuncOp entry,
                   const std::vector<HostArray> &results) {
  if (auto absent = entry->getAttrOfType<DenseI64ArrayAttr>(
          StrideDialect::kAbsentOutputsAttrName))
    llvm::outs() << describeAbsentOutputs(
        std::vector<uint32_t>(absent.asArrayRef().begin(),
                              absent.asArrayRef().end()),
        results.size() + absent.size());
  if (!options.outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
      return makeError(
          fileErrorCode(ec.value()),
          options.outputDir +
              ": cannot create the output directory: " + ec.message());
    for (size_t r = 0; r < results.size(); ++r) {
      if (isStateOutput(options, entry, r))
        continue;
      llvm::SmallString<256> path(options.outputDir);
      llvm::sys::path::append(path, resultName(entry, r) + ".npy");
      if (Status s = writeNpyFile(path.str().str(),
                                  encodeForNpy(results[r], options.bf16Output));
          !s)
        return s;
    }
  }
  if (options.print) {
    constexpr int64_t kPrintLimit = 10000;
    for (size_t r = 0; r < results.size(); ++r) {
      if (isStateOutput(options, entry, r))
        continue;
      const HostArray &a = results[r];
      llvm::outs() << resultName(entry, r) << ": " << dtypeName(a.dtype) << " "
                   << formatDims(a.shape) << "\n";
      if (a.numElements() > kPrintLimit)
        llvm::outs() << "(" << a.numElements()
                     << " elements, not printed; use --output-dir)\n";
      else
        llvm::outs() << formatHostArray(a) << "\n";
    }
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

namespace {

/// For each argument used (directly, through views or through kernel block
/// arguments) as the index operand of an indexing op, the smallest size of
/// the dims it indexes.
std::map<unsigned, int64_t> indexBounds(func::FuncOp func) {
  std::map<unsigned, int64_t> bounds;
  for (BlockArgument arg : func.getArguments()) {
    std::vector<Value> work{arg};
    std::optional<int64_t> bound;
    while (!work.empty()) {
      Value v = work.back();
      work.pop_back();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (isa<ViewOpInterface>(user)) {
          work.push_back(user->getResult(0));
        } else if (auto k = dyn_cast<KernelOp>(user)) {
          unsigned n = use.getOperandNumber();
          work.push_back(k.getBodyBlock().getArgument(n));
        } else if (auto indexed = dyn_cast<IndexedOpInterface>(user);
                   indexed && &use == &indexed.getIndexMutable()) {
          int64_t size =
              indexed.getInput().getType().getShape()[indexed.getDim()];
          bound = bound ? std::min(*bound, size) : size;
        }
      }
    }
    if (bound)
      bounds[arg.getArgNumber()] = *bound;
  }
  return bounds;
}

/// A random input for argument `type`; see --help for the distributions.
HostArray randomArray(StridedTensorType type, DType dtype,
                      std::optional<int64_t> indexBound, std::mt19937_64 &rng) {
  HostArray a;
  a.dtype = dtype;
  a.shape.assign(type.getShape().begin(), type.getShape().end());
  int64_t n = a.numElements();
  a.data.assign(n * dtypeSize(dtype), 0);
  for (int64_t e = 0; e < n; ++e) {
    uint64_t bits = rng();
    uint8_t *p = a.data.data() + e * dtypeSize(dtype);
    if (isFloat(dtype)) {
      double u = static_cast<double>(bits >> 11) * 0x1.0p-53 * 2.0 - 1.0;
      double d = u;
      if (dtype == DType::F64) {
        std::memcpy(p, &d, 8);
      } else if (dtype == DType::F32) {
        float f = static_cast<float>(d);
        std::memcpy(p, &f, 4);
      } else {
        llvm::APFloat ap(d);
        bool lost = false;
        ap.convert(dtype == DType::F16 ? llvm::APFloat::IEEEhalf()
                                       : llvm::APFloat::BFloat(),
                   llvm::APFloat::rmNearestTiesToEven, &lost);
        uint16_t b = static_cast<uint16_t>(ap.bitcastToAPInt().getZExtValue());
        std::memcpy(p, &b, 2);
      }
    } else {
      int64_t range = indexBound ? *indexBound : 2;
      int64_t v = range > 0 ? static_cast<int64_t>(bits % uint64_t(range)) : 0;
      switch (dtype) {
      case DType::I1:
      case DType::I8: *p = static_cast<uint8_t>(v); break;
      case DType::I32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
      default: std::memcpy(p, &v, 8); break;
      }
    }
  }
  return a;
}

/// A state's initial value (its stride.state elements) as a dense array.
HostArray initialValue(ElementsAttr init, StridedTensorType type) {
  HostArray array{type.getDType(),
                  std::vector<int64_t>(type.getShape().begin(),
                                       type.getShape().end()),
                  {}};
  size_t bytes = dtypeSize(type.getDType());
  auto append = [&](const APInt &bits) {
    for (size_t i = 0; i < bytes; ++i)
      array.data.push_back(static_cast<uint8_t>(
          bits.zextOrTrunc(unsigned(bytes * 8)).extractBitsAsZExtValue(8, 8 * i)));
  };
  if (isa<FloatType>(type.getElementType()))
    for (const APFloat &v : init.getValues<APFloat>())
      append(v.bitcastToAPInt());
  else
    for (const APInt &v : init.getValues<APInt>())
      append(v);
  return array;
}

} // namespace

Result<std::vector<HostArray>> gatherInputs(const Options &options,
                                            func::FuncOp func) {
  // Inputs are made from the argument types' static shapes.
  if (Status s = checkStaticShapes(func); !s)
    return s.error();
  unsigned numArgs = func.getNumArguments();
  std::map<std::string, unsigned> byName;
  for (unsigned a = 0; a < numArgs; ++a)
    byName[argumentName(func, a)] = a;
  std::vector<std::optional<HostArray>> given(numArgs);
  for (const auto &[name, file] : options.inputs) {
    auto it = byName.find(name);
    if (it == byName.end()) {
      std::string known;
      for (unsigned a = 0; a < numArgs; ++a)
        known += (a ? ", " : "") + argumentName(func, a);
      return makeError(
          ErrorCode::InvalidArgument,
          "--input " + name + "=" + file + ": @" + func.getSymName().str() +
              " has no input '" + name +
              "' (its inputs: " + (known.empty() ? "none" : known) + ")");
    }
    unsigned a = it->second;
    if (given[a])
      return makeError(ErrorCode::InvalidArgument,
                       "input '" + name + "' is given twice");
    auto type = dyn_cast<StridedTensorType>(func.getArgument(a).getType());
    if (!type)
      return makeError(ErrorCode::InvalidArgument,
                       "input '" + name +
                           "' has a type stride-run cannot feed");
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    Result<HostArray> array = readInputNpy(file, type.getDType(), shape, name);
    if (!array)
      return array.error();
    given[a] = std::move(*array);
  }
  std::map<unsigned, int64_t> bounds;
  if (options.randomInputs)
    bounds = indexBounds(func);
  std::mt19937_64 rng(options.seed);
  std::vector<HostArray> inputs;
  for (unsigned a = 0; a < numArgs; ++a) {
    auto type = dyn_cast<StridedTensorType>(func.getArgument(a).getType());
    if (!type)
      return makeError(ErrorCode::InvalidArgument,
                       "input '" + argumentName(func, a) +
                           "' has a type stride-run cannot feed");
    if (given[a]) {
      inputs.push_back(std::move(*given[a]));
      continue;
    }
    Result<std::optional<HostArray>> state = readStateInput(options, func, a);
    if (!state)
      return state.error();
    if (*state) {
      inputs.push_back(std::move(**state));
      continue;
    }
    if (auto init = func.getArgAttrOfType<ElementsAttr>(
            a, StrideDialect::kStateAttrName)) {
      inputs.push_back(initialValue(init, type));
      continue;
    }
    if (!options.randomInputs) {
      std::string t;
      llvm::raw_string_ostream os(t);
      os << Type(type);
      return makeError(ErrorCode::InvalidArgument,
                       "missing input '" + argumentName(func, a) +
                           "' (argument " + std::to_string(a) + " of @" +
                           func.getSymName().str() + ", " + t +
                           "): pass --input " + argumentName(func, a) +
                           "=FILE.npy or --random-inputs");
    }
    std::optional<int64_t> bound;
    if (auto it = bounds.find(a); it != bounds.end())
      bound = it->second;
    inputs.push_back(randomArray(type, type.getDType(), bound, rng));
  }
  return inputs;
}

int fail(const std::string &message) {
  llvm::errs() << "stride-run: error: " << message << "\n";
  return 1;
}

/// --expect: each result against DIR/<name>.npy (as emitResults names it),
/// one line each; the exit status.
int expectResults(const Options &options, func::FuncOp entry,
                  const std::vector<HostArray> &results) {
  int status = 0;
  for (size_t r = 0; r < results.size(); ++r) {
    if (isStateOutput(options, entry, r))
      continue;
    std::string name = resultName(entry, r);
    llvm::SmallString<256> path(options.expectDir);
    llvm::sys::path::append(path, name + ".npy");
    Result<HostArray> expected = readNpyFile(path.str().str());
    if (!expected)
      return fail(expected.error().message);
    Comparison c = compareArrays(widenForNpy(results[r]),
                                 widenForNpy(*expected), options.rtol);
    llvm::outs() << describeComparison(name, c) << "\n";
    if (!c.ok)
      status = 1;
  }
  return status;
}

//===----------------------------------------------------------------------===//
// The reference mode
//===----------------------------------------------------------------------===//

int runReference(const Options &options) {
  if (options.tensorParallel > 1 || options.simulateRanks > 1)
    return runRanks(options);
  MLIRContext context(MLIRContext::Threading::DISABLED);
  loadGraphDialects(context);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(options.inputFile, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseGraph(sourceMgr, ParserConfig(&context));
  if (!module || failed(instantiateSymbols(*module, options.instantiateSymbols)))
    return 1; // the diagnostic (file:line:col) is already printed
  PassManager pm(&context);
  PipelineOptions pipeline;
  pipeline.repairLayouts = options.repairLayouts;
  // The interpreter runs each convolution as it is, batch norms unfolded
  // and ops of constants as ops (the oracle of those rewrites), except where the kernels must
  // be the module's.
  pipeline.decomposeConvolutions = !options.compareValuesDir.empty();
  pipeline.foldIntoConvolutions = !options.compareValuesDir.empty();
  pipeline.foldConstants = !options.compareValuesDir.empty();
  if (!options.compareValuesDir.empty()) {
    // The kernels the module runs, each result kept, as stridec
    // --keep-values forms them.
    pipeline.fuse = !options.noFuse;
    pipeline.formKernels = true;
    pipeline.keepValues = true;
    if (failed(prepareAttention(*module, pipeline)))
      return 1;
  }
  buildStridePipeline(pm, pipeline);
  if (failed(pm.run(*module)))
    return 1;

  func::FuncOp entry;
  for (auto f : module->getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue;
    if (options.entry.empty() || f.getSymName() == options.entry) {
      entry = f;
      break;
    }
  }
  if (!entry)
    return fail(options.inputFile + ": " +
                (options.entry.empty() ? std::string("no function to run")
                                       : "no function @" + options.entry));

  Result<std::vector<HostArray>> inputs = gatherInputs(options, entry);
  if (!inputs)
    return fail(inputs.error().message);
  if (!options.saveInputsDir.empty()) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(options.saveInputsDir))
      return fail(options.saveInputsDir +
                  ": cannot create the directory: " + ec.message());
    for (unsigned a = 0; a < entry.getNumArguments(); ++a) {
      llvm::SmallString<256> path(options.saveInputsDir);
      llvm::sys::path::append(path, argumentName(entry, a) + ".npy");
      if (Status s = writeNpyFile(path.str().str(),
                                  encodeForNpy((*inputs)[a], options.bf16Output));
          !s)
        return fail(s.error().message);
    }
  }
  Result<std::vector<HostArray>> results = interpret(entry, *inputs);
  if (!results)
    return fail(results.error().message);
  if (!options.compareValuesDir.empty()) {
    Result<bool> same = compareKeptValues(entry, *results,
                                          options.compareValuesDir,
                                          options.rtol, llvm::outs());
    if (!same)
      return fail(same.error().message);
    return *same ? 0 : 1;
  }
  if (Status s = emitResults(options, entry, *results); !s)
    return fail(s.error().message);
  if (Status s = writeStateOutputs(options, entry, *inputs, *results); !s)
    return fail(s.error().message);
  if (!options.expectDir.empty())
    return expectResults(options, entry, *results);
  return 0;
}

} // namespace stride::run

int main(int argc, char **argv) {
  using namespace stride::run;
  // Mode dispatch. A compiled module runs on the GPU (RunModule.cpp, with
  // its own options); a graph runs on the reference interpreter.
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]).ends_with(".stridemod"))
      return stride::runModuleMain(argc, argv);
  stride::Result<Options> options = parseCommandLine(argc, argv);
  if (!options) {
    llvm::errs() << "stride-run: error: " << options.error().message << "\n";
    return 1;
  }
  if (options->help) {
    llvm::outs() << helpText() << "\n"
                 << stride::runModuleUsage("stride-run");
    return 0;
  }
  return runReference(*options);
}
