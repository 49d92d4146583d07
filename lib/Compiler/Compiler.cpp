//===- Compiler.cpp - Graph file to module --------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Compiler/Compiler.h"
#include "stride/Compiler/PrepareAttention.h"

#include "stride/Import/GraphParser.h"
#include "stride/Import/Torch/Importer.h"
#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/plan/Transforms/Passes.h"
#include "stride/Target/CUDA/Emitter.h"
#include "stride/Target/CUDA/Planner.h"
#include "stride/Target/CUDA/NvrtcCache.h"
#include "stride/Target/CUDA/NVRTC.h"
#include "stride/Target/CUDA/Schedule.h"
#include "stride/Module/Module.h"
#include "dialects/stride/Transforms/Dot.h"
#include "dialects/stride/Transforms/Passes.h"
#include "stride/Support/Diagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <deque>
#include <optional>

#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;

namespace stride {

std::optional<EmitKind> parseEmitKind(std::string_view name) {
  if (name == "mlir") return EmitKind::Mlir;
  if (name == "cuda") return EmitKind::Cuda;
  if (name == "ptx") return EmitKind::Ptx;
  if (name == "module") return EmitKind::Module;
  if (name == "dot") return EmitKind::Dot;
  if (name == "graph") return EmitKind::Graph;
  return std::nullopt;
}

std::string unitHeader(size_t index, size_t count,
                       const std::string &executable) {
  return "// ==== Stride translation unit " + std::to_string(index) + " of " +
         std::to_string(count) + ": plan.executable @" + executable +
         " ====\n";
}

std::string Diagnostic::format() const {
  const char *kind = "error";
  switch (severity) {
  case Severity::Error: kind = "error"; break;
  case Severity::Warning: kind = "warning"; break;
  case Severity::Note: kind = "note"; break;
  case Severity::Remark: kind = "remark"; break;
  }
  std::string text = file;
  if (line != 0)
    text += ":" + std::to_string(line) + ":" + std::to_string(column);
  text += text.empty() ? "" : ": ";
  text += std::string(kind) + ": ";
  if (!node.empty())
    text += "node '" + node + "': ";
  text += message + "\n";
  for (const Diagnostic &note : notes)
    text += note.format();
  return text;
}

namespace {

Diagnostic::Severity severityOf(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error: return Diagnostic::Severity::Error;
  case DiagnosticSeverity::Warning: return Diagnostic::Severity::Warning;
  case DiagnosticSeverity::Note: return Diagnostic::Severity::Note;
  case DiagnosticSeverity::Remark: return Diagnostic::Severity::Remark;
  }
  return Diagnostic::Severity::Error;
}

Diagnostic convert(mlir::Diagnostic &d, const std::string &fallbackFile) {
  Diagnostic out;
  out.severity = severityOf(d.getSeverity());
  out.message = d.str();
  out.file = fallbackFile;
  if (std::optional<FileLineColLoc> file =
          firstFileLocation(d.getLocation())) {
    out.file = file->getFilename().str();
    out.line = file->getLine();
    out.column = file->getColumn();
  }
  if (std::optional<std::string> node = nodeName(d.getLocation()))
    out.node = *node;
  for (mlir::Diagnostic &note : d.getNotes())
    out.notes.push_back(convert(note, fallbackFile));
  return out;
}

/// The units' texts (`text(i)` for unit i) one after another; with several
/// units, each after a line naming it (unitHeader).
template <typename TextFn>
std::string joinUnits(const CudaSource &source, TextFn text) {
  if (source.units.size() == 1)
    return text(0);
  std::string joined;
  for (auto [i, unit] : llvm::enumerate(source.units)) {
    if (i)
      joined += "\n";
    joined += unitHeader(i, source.units.size(), unit.executable);
    joined += text(i);
  }
  return joined;
}

/// A stage timer that is a no-op without a parent scope.
struct StageTimer {
  StageTimer(TimingScope *parent, const char *name) {
    if (parent)
      scope = parent->nest(name);
  }
  TimingScope scope;
};

class Compilation {
public:
  Compilation(const CompileOptions &options, std::string bufferName)
      : options(options), bufferName(std::move(bufferName)),
        context(MLIRContext::Threading::DISABLED) {
    loadGraphDialects(context);
    context.loadDialect<plan::PlanDialect>();
  }

  CompileResult run(std::unique_ptr<llvm::MemoryBuffer> buffer);
  TrainingCompileResult
  runTrainingStep(std::unique_ptr<llvm::MemoryBuffer> forward,
                  std::unique_ptr<llvm::MemoryBuffer> backward,
                  std::string backwardName);

private:
  /// The graph read, its symbols instantiated where asked; null after an
  /// error (in `result`).
  OwningOpRef<ModuleOp> parse(std::unique_ptr<llvm::MemoryBuffer> buffer);
  /// The pipeline and the emitters on a parsed graph; leaves `result`.
  CompileResult compile(ModuleOp module);
  LogicalResult pairTrainingAttention(ModuleOp forward, ModuleOp backward);

  void error(std::string message) {
    Diagnostic d;
    d.file = bufferName;
    d.message = std::move(message);
    result.diagnostics.push_back(std::move(d));
  }
  /// Whether the output is code for the arch (a module, CUDA or PTX), so
  /// that a bad --arch is refused before the graph is read.
  bool emitsCode() const {
    return options.emit != EmitKind::Mlir && options.emit != EmitKind::Dot &&
           options.emit != EmitKind::Graph;
  }
  LogicalResult checkArch();
  Result<std::vector<CodeImage>> compileUnits(const CudaSource &source);
  void compileInChildProcesses(size_t count,
                               llvm::function_ref<void(size_t)> compile);
  OwningOpRef<ModuleOp> readGraph(std::unique_ptr<llvm::MemoryBuffer> buffer);
  LogicalResult emitModule(ModuleOp module);

  const CompileOptions &options;
  std::string bufferName;
  MLIRContext context;
  CompileResult result;
};

/// The arch's form only: whether NVRTC supports it is checked when NVRTC
/// runs, so that a compile served from the cache never loads NVRTC.
LogicalResult Compilation::checkArch() {
  Result<int> arch = parseGpuArch(options.cuda.arch);
  if (!arch) {
    error(arch.error().message);
    return failure();
  }
  return success();
}

LogicalResult Compilation::emitModule(ModuleOp module) {
  FailureOr<func::FuncOp> entry = findEntryFunction(module);
  if (failed(entry))
    return failure();

  FailureOr<CudaSource> source;
  {
    StageTimer timer(options.timing, "Emit CUDA");
    source = emitCuda(module, options.cuda);
  }
  if (failed(source))
    return failure();
  if (options.emit == EmitKind::Cuda) {
    result.text = joinUnits(
        *source, [&](size_t i) { return source->units[i].source; });
    return success();
  }

  std::vector<CodeImage> images;
  {
    StageTimer timer(options.timing, "NVRTC");
    Result<std::vector<CodeImage>> compiled = compileUnits(*source);
    if (!compiled) {
      error(compiled.error().message);
      return failure();
    }
    images = std::move(*compiled);
  }
  if (options.emit == EmitKind::Ptx) {
    result.text = joinUnits(*source, [&](size_t i) {
      return std::string(images[i].bytes.begin(), images[i].bytes.end());
    });
    return success();
  }

  StageTimer timer(options.timing, "Plan module");
  FailureOr<ModuleDesc> desc =
      translatePlan(*entry, *source, std::move(images), options.cuda.arch,
                    options.producer);
  if (failed(desc))
    return failure();
  desc->deterministic = options.cuda.deterministic;
  if (options.keepModuleBytes)
    result.moduleBytes = serializeModule(*desc);
  result.module = std::move(*desc);
  return success();
}

/// Runs `compile` on units 0 to count - 1 in child processes, up to
/// `options.jobs` at a time (0: one per hardware thread), and waits for
/// them; what a child computes reaches this process only through the
/// cache. Where fork fails, the unit is left to the caller.
void Compilation::compileInChildProcesses(
    size_t count, llvm::function_ref<void(size_t)> compile) {
  unsigned limit = llvm::hardware_concurrency(options.jobs)
                       .compute_thread_count();
  std::deque<pid_t> running;
  auto waitOldest = [&] {
    int status = 0;
    while (waitpid(running.front(), &status, 0) < 0 && errno == EINTR) {
    }
    running.pop_front();
  };
  for (size_t i = 0; i < count; ++i) {
    if (running.size() >= std::max(1u, limit))
      waitOldest();
    pid_t pid = fork();
    if (pid == 0) {
      compile(i);
      _exit(0);
    }
    if (pid > 0)
      running.push_back(pid);
  }
  while (!running.empty())
    waitOldest();
}

/// NVRTC on each translation unit, through the cache, on up to
/// `options.jobs` threads; the images in unit order, or the first failing
/// unit's error.
Result<std::vector<CodeImage>>
Compilation::compileUnits(const CudaSource &source) {
  size_t count = source.units.size();
  std::string stem = llvm::sys::path::stem(bufferName).str();
  std::vector<std::optional<Result<CodeImage>>> compiled(count);
  std::string cacheDir = options.nvrtcCacheDir;
  auto compile = [&](size_t i) {
    NvrtcOptions nvrtc;
    nvrtc.arch = options.cuda.arch;
    nvrtc.emitPtx = options.emit == EmitKind::Ptx;
    // NVRTC prints the program name in diagnostics and PTX headers.
    nvrtc.programName = count == 1 ? stem + ".cu"
                                   : stem + "." + source.units[i].executable +
                                         ".cu";
    compiled[i] = compileCudaSourceCached(source.units[i].source, nvrtc,
                                          cacheDir);
  };
  if (count > 1 && options.jobs != 1 && options.nvrtcInChildProcesses) {
    // Without a cache, the children hand their code over through a
    // private one, removed afterwards.
    llvm::SmallString<128> scratch;
    if (cacheDir.empty() &&
        !llvm::sys::fs::createUniqueDirectory("stride-units", scratch))
      cacheDir = scratch.str().str();
    compileInChildProcesses(count, compile);
    // Every unit from the cache now; a unit whose child failed compiles
    // here and reports its error.
    for (size_t i = 0; i < count; ++i)
      compile(i);
    if (!scratch.empty())
      llvm::sys::fs::remove_directories(scratch);
  } else if (count == 1 || options.jobs == 1) {
    for (size_t i = 0; i < count; ++i)
      compile(i);
  } else {
    // 0 jobs: one thread per hardware thread.
    llvm::StdThreadPool pool(llvm::hardware_concurrency(options.jobs));
    for (size_t i = 0; i < count; ++i)
      pool.async([&compile, i] { compile(i); });
    pool.wait();
  }
  std::vector<CodeImage> images;
  for (std::optional<Result<CodeImage>> &image : compiled) {
    if (!*image)
      return image->error();
    images.push_back(std::move(**image));
  }
  return images;
}

OwningOpRef<ModuleOp>
Compilation::readGraph(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  if (torch::isTorchArchive(buffer->getBuffer(), bufferName))
    return torch::importArchive(buffer->getBuffer().str(), bufferName,
                                &context, options.import);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  return parseGraph(sourceMgr, ParserConfig(&context));
}

OwningOpRef<ModuleOp>
Compilation::parse(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  OwningOpRef<ModuleOp> module;
  {
    StageTimer timer(options.timing, "Parse");
    module = readGraph(std::move(buffer));
  }
  if (!module || failed(instantiateSymbols(*module, options.instantiateSymbols)))
    return {};
  return module;
}

CompileResult Compilation::run(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    result.diagnostics.push_back(convert(d, bufferName));
    return success();
  });
  if (emitsCode() && failed(checkArch()))
    return std::move(result);
  OwningOpRef<ModuleOp> module = parse(std::move(buffer));
  if (!module)
    return std::move(result);
  return compile(*module);
}

/// Moves `func` to the end of `module` under the name `name`.
static void moveFunction(func::FuncOp func, ModuleOp module, StringRef name) {
  func->remove();
  func.setSymName(name);
  module.getBody()->push_back(func);
}

LogicalResult Compilation::pairTrainingAttention(ModuleOp forward,
                                                 ModuleOp backward) {
  FailureOr<func::FuncOp> forwardEntry = findEntryFunction(forward);
  FailureOr<func::FuncOp> backwardEntry = findEntryFunction(backward);
  if (failed(forwardEntry) || failed(backwardEntry))
    return failure();
  std::string forwardName = forwardEntry->getSymName().str();
  std::string backwardName = backwardEntry->getSymName().str();
  // One module of both functions for the pass, then each back in its own.
  forwardEntry->setSymName("forward");
  moveFunction(*backwardEntry, forward, "backward");
  PassManager pm(&context);
  pm.addPass(createPairTrainingAttention());
  if (options.configurePassManager)
    options.configurePassManager(pm);
  LogicalResult paired = pm.run(forward);
  moveFunction(*backwardEntry, backward, backwardName);
  forwardEntry->setSymName(forwardName);
  return paired;
}

TrainingCompileResult
Compilation::runTrainingStep(std::unique_ptr<llvm::MemoryBuffer> forward,
                             std::unique_ptr<llvm::MemoryBuffer> backward,
                             std::string backwardName) {
  ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    result.diagnostics.push_back(convert(d, bufferName));
    return success();
  });
  TrainingCompileResult both;
  auto failedHere = [&] {
    both.forward = std::move(result);
    return both;
  };
  if (emitsCode() && failed(checkArch()))
    return failedHere();
  OwningOpRef<ModuleOp> forwardModule = parse(std::move(forward));
  if (!forwardModule)
    return failedHere();
  std::string forwardName = std::exchange(bufferName, backwardName);
  OwningOpRef<ModuleOp> backwardModule = parse(std::move(backward));
  if (!backwardModule)
    return failedHere();
  bufferName = forwardName;
  if (failed(pairTrainingAttention(*forwardModule, *backwardModule)))
    return failedHere();
  both.forward = compile(*forwardModule);
  if (!both.forward.success)
    return both;
  result = CompileResult();
  bufferName = backwardName;
  both.backward = compile(*backwardModule);
  return both;
}

CompileResult Compilation::compile(ModuleOp module) {
  if (options.emit == EmitKind::Graph) {
    llvm::raw_string_ostream os(result.text);
    module->print(os);
    result.success = true;
    return std::move(result);
  }

  // Attention spelled out as ops recognized, constant masks folded
  // (stride/Compiler/PrepareAttention.h).
  PipelineOptions pipeline = options.pipeline;
  {
    StageTimer timer(options.timing, "Recognize attention");
    auto configure = [&](PassManager &pm) {
      if (options.configurePassManager)
        options.configurePassManager(pm);
      if (options.timing)
        pm.enableTiming(timer.scope);
    };
    if (failed(prepareAttention(module, pipeline, configure)))
      return std::move(result);
  }

  PassManager pm(&context);
  pipeline.formKernels = true;
  // cuDNN's flash-attention engines need sm_80 or later (checkArch has
  // checked the arch's form).
  if (Result<int> arch = parseGpuArch(options.cuda.arch); arch && *arch < 80)
    pipeline.attentionLibrary = "none";
  buildStridePipeline(pm, pipeline);
  if (options.emit != EmitKind::Mlir && options.emit != EmitKind::Dot) {
    ScheduleKernelsOptions schedule;
    schedule.arch = options.cuda.arch;
    schedule.multiprocessors = options.cuda.multiprocessorCount;
    schedule.vectorize = options.cuda.vectorize;
    schedule.deterministic = options.cuda.deterministic;
    schedule.skinnyColumnsPerWarp = options.cuda.skinnyColumnsPerWarp;
    schedule.skinnyLoadsPerLane = options.cuda.skinnyLoadsPerLane;
    schedule.skinnyColumnWarps = options.cuda.skinnyColumnWarps;
    // --decode-attention=staged asks for the staged scheme too.
    schedule.stagedKvAttention = options.cuda.stagedKvAttention ||
                                 pipeline.decodeAttention == "staged";
    schedule.stagedKvTensorCores = options.cuda.stagedKvTensorCores;
    pm.addNestedPass<func::FuncOp>(createScheduleKernels(schedule));
    plan::OutlineExecutableOptions outline;
    outline.allowTf32 = options.cuda.allowTf32;
    if (options.unitOps)
      outline.unitOps = *options.unitOps;
    std::optional<plan::GroupLaunchesOptions> groupLaunches;
    if (options.cuda.launchGroups) {
      groupLaunches.emplace();
      groupLaunches->maxBlocks = multiprocessorsFor(
          options.cuda.arch, options.cuda.multiprocessorCount);
    }
    bool triggerSmallSuccessors =
        options.cuda.triggerSmallSuccessors && options.cuda.dependentLaunch &&
        supportsDependentLaunch(options.cuda.arch);
    plan::buildHostPlanPipeline(pm, outline, pipeline.overlapCollectives,
                                groupLaunches, triggerSmallSuccessors,
                                options.cuda.l2ResidentBytes);
  }
  if (options.configurePassManager)
    options.configurePassManager(pm);
  std::optional<StageTimer> pipelineTimer;
  if (options.timing) {
    pipelineTimer.emplace(options.timing, "Pipeline");
    pm.enableTiming(pipelineTimer->scope);
  }
  if (failed(pm.run(module)))
    return std::move(result);
  pipelineTimer.reset();

  if (options.emit == EmitKind::Mlir) {
    llvm::raw_string_ostream os(result.text);
    module->print(os);
    result.success = true;
    return std::move(result);
  }
  if (options.emit == EmitKind::Dot) {
    llvm::raw_string_ostream os(result.text);
    result.success = succeeded(emitDot(module, os));
    return std::move(result);
  }
  result.success = succeeded(emitModule(module));
  return std::move(result);
}

} // namespace

CompileResult compileSource(const std::string &source,
                            const std::string &bufferName,
                            const CompileOptions &options) {
  Compilation compilation(options, bufferName);
  return compilation.run(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName));
}

/// The file's contents, or a diagnostic in `result` naming it.
static std::unique_ptr<llvm::MemoryBuffer> readInput(const std::string &name,
                                                     CompileResult &result) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(name == "<stdin>" ? "-" : name);
  if (buffer)
    return std::move(*buffer);
  Diagnostic d;
  d.file = name;
  d.message = "cannot read the graph file: " + buffer.getError().message();
  result.diagnostics.push_back(std::move(d));
  return nullptr;
}

TrainingCompileResult compileTrainingStep(const std::string &forwardPath,
                                          const std::string &backwardPath,
                                          const CompileOptions &options) {
  TrainingCompileResult both;
  std::unique_ptr<llvm::MemoryBuffer> forward =
      readInput(forwardPath, both.forward);
  std::unique_ptr<llvm::MemoryBuffer> backward =
      readInput(backwardPath, both.forward);
  if (!forward || !backward)
    return both;
  Compilation compilation(options, forwardPath);
  return compilation.runTrainingStep(std::move(forward), std::move(backward),
                                     backwardPath);
}

CompileResult compileFile(const std::string &path,
                          const CompileOptions &options) {
  std::string name = path == "-" ? "<stdin>" : path;
  CompileResult result;
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInput(name, result);
  if (!buffer)
    return result;
  Compilation compilation(options, name);
  return compilation.run(std::move(buffer));
}

} // namespace stride
