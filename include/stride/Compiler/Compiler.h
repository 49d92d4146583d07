//===- Compiler.h - Graph file to module: the compiler as a library ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The whole compiler behind one call: parse and verify a graph, run the
// Stride pipeline (buildStridePipeline: legalization, kernel formation), emit
// CUDA C++, compile it with NVRTC and plan the module. Options are a struct,
// diagnostics come back as data; nothing here prints or exits. `stridec` is a
// thin client of this API, and so is the C API (stride-c/Stride.h).
//
//   stride::CompileOptions options;          // emit a module for sm_90
//   stride::Compiler compiler(options);
//   stride::CompileResult r = compiler.compileFile("graph.mlir");
//   for (const stride::Diagnostic &d : r.diagnostics)
//     std::cerr << d.format();
//   if (r.success) write(r.moduleBytes);
//
// Threads: every compile builds its own MLIRContext and shares no mutable
// state with another, so one Compiler (or the free functions) may be used
// from several threads at once. Within a compile, NVRTC runs on the
// translation units in parallel (CompileOptions::jobs threads). The callbacks in CompileOptions
// (configurePassManager, timing) are the caller's to make thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_COMPILER_COMPILER_H
#define STRIDE_COMPILER_COMPILER_H

#include "stride/Support/PipelineOptions.h"
#include "stride/Import/Torch/ImportOptions.h"
#include "stride/Module/Module.h"
#include "stride/Target/CUDA/TargetOptions.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mlir {
class PassManager;
class TimingScope;
} // namespace mlir

namespace stride {

/// What the compiler produces.
enum class EmitKind {
  /// The stride IR after the pipeline (kernels formed), as text.
  Mlir,
  /// The generated CUDA C++: one translation unit per plan.executable,
  /// each after a unitHeader line when there are several.
  Cuda,
  /// PTX for the arch's virtual architecture (compute_NN), as text: one
  /// PTX module per translation unit, separated as for Cuda.
  Ptx,
  /// A `.stridemod` module holding a CUBIN for the arch.
  Module,
  /// The kernel graph in Graphviz dot (stride::emitDot).
  Dot,
  /// The graph as read (a .pt2 archive imported), verified, before the
  /// pipeline, as text.
  Graph,
};

/// "mlir", "cuda", "ptx", "module", "dot" or "graph".
std::optional<EmitKind> parseEmitKind(std::string_view name);

/// The line before translation unit `index` (0-based) of `count` in the
/// Cuda and Ptx output when count > 1: "// ==== Stride translation unit 1 of
/// 4: plan.executable @graph_kernels_1 ====\n". Tools split the text there
/// (test/Emu/emulate.sh).
std::string unitHeader(size_t index, size_t count,
                       const std::string &executable);

/// One diagnostic, detached from MLIR.
struct Diagnostic {
  enum class Severity { Error, Warning, Note, Remark };
  Severity severity = Severity::Error;
  /// The source file, or what the diagnostic is about (e.g. the input path)
  /// when it has no source location.
  std::string file;
  /// 1-based; 0 when the diagnostic has no line and column.
  unsigned line = 0, column = 0;
  std::string message;
  /// The graph node the diagnostic is about (an imported op's NameLoc, e.g.
  /// "slice_scatter_1"); empty when none.
  std::string node;
  /// Notes attached to an error or warning.
  std::vector<Diagnostic> notes;

  /// "file:line:col: error: message\n" followed by the notes, each on its
  /// own line; "file: error: message\n" without a line; the message is
  /// prefixed with "node 'NAME': " when `node` is set.
  std::string format() const;
};

/// Each layer's options are held here as that layer's own struct.
struct CompileOptions {
  EmitKind emit = EmitKind::Module;
  /// The pass pipeline: layout repair (`repairLayouts`), fusion (`fuse`,
  /// otherwise one kernel per op). The compiler always forms kernels, so
  /// `formKernels` is ignored.
  PipelineOptions pipeline;
  /// The CUDA target: `arch` ("sm_" + digits, any arch this NVRTC supports;
  /// also the arch NVRTC compiles for), device-side checks of gather/scatter
  /// indices and integer division by zero (`runtimeChecks`), 4-element
  /// vector accesses (`vectorize`).
  CudaTargetOptions cuda;
  /// Where NVRTC's output is cached (see NvrtcCache.h); empty: no cache.
  /// stridec passes defaultNvrtcCacheDir() unless told --no-cache.
  std::string nvrtcCacheDir;
  /// The threads that run NVRTC, one translation unit each; 0: one per
  /// hardware thread. The module is the same for any count.
  unsigned jobs = 0;
  /// Run NVRTC on the translation units in up to `jobs` child processes
  /// (fork) instead of threads, each storing its code in the cache, which
  /// this process then reads: NVRTC compiles units in parallel in processes
  /// but barely in threads (bench/NOTES.md section 20). Without a cache
  /// directory, a private one in the temporary directory carries the code
  /// and is removed. stridec sets it; a host program embedding the
  /// compiler decides whether it may fork.
  bool nvrtcInChildProcesses = false;
  /// The fewest kernel ops per translation unit: stride-outline-executable's
  /// `unit-ops` (0: one unit); unset: the pass's default
  /// (plan::kDefaultUnitOps; at most plan::kMaxUnits units).
  std::optional<int64_t> unitOps;
  /// How a .pt2 archive is imported (weights as constants or inputs).
  torch::ImportOptions import;
  /// The symbols' values (`name=value` each) at which a graph of symbolic
  /// sizes is instantiated as soon as it is read (stride-instantiate-
  /// symbols): a static module of one shape; empty: the graph as it is.
  std::vector<std::string> instantiateSymbols;
  /// Written into the module's producer field.
  std::string producer = "stridec 0.1.0";
  /// Also return the module file's bytes (CompileResult::moduleBytes), a
  /// second copy of its constants in memory beside CompileResult::module.
  /// stridec, which streams `module` to the file (streamModule), turns it
  /// off.
  bool keepModuleBytes = true;
  /// Called on the pass manager before the pipeline runs (stridec applies
  /// MLIR's command-line options, e.g. --mlir-print-ir-after-all, here).
  std::function<void(mlir::PassManager &)> configurePassManager;
  /// When set, each stage is timed as a child of this scope.
  mlir::TimingScope *timing = nullptr;
};

struct CompileResult {
  bool success = false;
  /// Every error, warning and remark, in the order they were reported.
  std::vector<Diagnostic> diagnostics;
  /// The output text for Mlir, Cuda, Ptx and Dot.
  std::string text;
  /// The module file's bytes for Module (when CompileOptions::
  /// keepModuleBytes).
  std::vector<uint8_t> moduleBytes;
  /// The module for Module.
  ModuleDesc module;
};

/// Compiles the graph file at `path` ("-" reads standard input): stride IR
/// text, or a torch.export archive (.pt2: zip magic or the suffix).
CompileResult compileFile(const std::string &path,
                          const CompileOptions &options);

/// A training step's forward and backward graphs (AOTAutograd's, as the
/// export helper's `train` mode writes them: the forward's results that
/// the backward reads are its arguments of the same name) compiled
/// together: between import and the pipeline, stride-pair-training-
/// attention fuses eager attention across the two, changing the saved
/// tensors both modules name (python-free-docs/attention.md, "Training
/// graphs spelled out"). Each graph is then compiled as compileFile does,
/// the backward only once the forward succeeds; an error before the
/// pipeline (reading, parsing, pairing) is in `forward`.
struct TrainingCompileResult {
  CompileResult forward, backward;
};
TrainingCompileResult compileTrainingStep(const std::string &forwardPath,
                                          const std::string &backwardPath,
                                          const CompileOptions &options);

/// Compiles a graph held in memory; `bufferName` names it in diagnostics.
CompileResult compileSource(const std::string &source,
                            const std::string &bufferName,
                            const CompileOptions &options);

/// The compiler with fixed options, for embedders: compile as many graphs
/// as needed, from any number of threads at once.
class Compiler {
public:
  explicit Compiler(CompileOptions options = {})
      : opts(std::move(options)) {}

  const CompileOptions &options() const { return opts; }
  CompileOptions &options() { return opts; }

  /// Compiles graph text; `name` stands for the file in diagnostics.
  CompileResult compile(const std::string &source,
                        const std::string &name = "<graph>") const {
    return compileSource(source, name, opts);
  }

  /// Compiles the graph file at `path` ("-" reads standard input).
  CompileResult compileFile(const std::string &path) const {
    return stride::compileFile(path, opts);
  }

private:
  CompileOptions opts;
};

} // namespace stride

#endif // STRIDE_COMPILER_COMPILER_H
