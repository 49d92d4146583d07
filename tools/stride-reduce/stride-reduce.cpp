//===- stride-reduce.cpp - Reduce a graph that shows a problem ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
//   stride-reduce graph.mlir --test=differs --stridec-arg=--no-fuse -o small.mlir
//
// MLIR's reducer with Stride's dialect and reduction patterns: the search
// lives in the library (stride/Reduce/Reduce.h), the ready-made tests in
// stride-reduce-test (a script beside this binary); MLIR's Tester runs the
// test on each candidate. This file parses the command line, runs the search
// and writes the reduced graph with a comment saying how it was found.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideDialect.h"
#include "stride/Import/GraphParser.h"
#include "stride/Reduce/Reduce.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

using namespace llvm;

namespace {

cl::OptionCategory category("stride-reduce options");

cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                               cl::desc("<graph.mlir>"), cl::cat(category));
cl::opt<std::string> outputPath("o", cl::value_desc("file"), cl::init("-"),
                                cl::desc("Where to write the reduced graph "
                                         "(default: standard output)"),
                                cl::cat(category));
cl::opt<std::string> test(
    "test", cl::Required, cl::value_desc("name|script"),
    cl::desc("What makes a graph interesting: compile-fails, "
             "reference-fails, differs, or the path of your own script "
             "(run as SCRIPT TEST-ARG... FILE; exit status 1 means "
             "interesting)"),
    cl::cat(category));
cl::list<std::string> testArgs(
    "test-arg", cl::value_desc("arg"),
    cl::desc("An argument of your own --test script (repeatable)"),
    cl::cat(category));
cl::opt<std::string> match(
    "match", cl::value_desc("text"),
    cl::desc("compile-fails, reference-fails: the text the error must "
             "contain"),
    cl::cat(category));
cl::list<std::string> stridecArgs(
    "stridec-arg", cl::value_desc("option"),
    cl::desc("compile-fails, differs: an option of stridec (repeatable), "
             "e.g. --stridec-arg=--no-fuse"),
    cl::cat(category));
cl::opt<std::string> runner(
    "runner", cl::value_desc("ir|emulator|gpu"), cl::init("emulator"),
    cl::desc("differs: what runs the compiled graph: ir (stridec "
             "--emit=mlir on the reference interpreter: finds miscompiles "
             "in the passes, fast), emulator (the CUDA source on the CPU, "
             "as test/Emu does; needs the source tree; default), gpu (the "
             "module on the GPU with stride-run)"),
    cl::cat(category));
cl::opt<double> rtol("rtol", cl::init(1e-5),
                     cl::desc("differs: the tolerance (default 1e-5)"),
                     cl::cat(category));
cl::opt<unsigned> seed(
    "seed", cl::init(1),
    cl::desc("differs, reference-fails: the seed of the random inputs "
             "(default 1)"),
    cl::cat(category));
cl::opt<bool> quiet("quiet", cl::desc("Print no progress"), cl::init(false),
                    cl::cat(category));

constexpr const char *kOverview = R"(Stride's test-case reducer: graph -> the smallest graph that still shows a problem

Runs a test of interest on ever smaller variants of the graph, keeping each
that still shows the problem: kernels unfused, ops cut (replaced by fresh
inputs, what they read made outputs), outputs dropped, ops nobody reads
removed, shapes shrunk (dims that must have one size together: to 1, else
half). Writes the smallest graph found, with a leading comment saying how
it was found (the date is $SOURCE_DATE_EPOCH when set).

Tests (--test):
  compile-fails    stridec fails, with --match TEXT in its messages
  reference-fails  the reference interpreter fails on random inputs, with
                   --match TEXT in its message
  differs          the compiled graph's outputs differ from the reference
                   interpreter's beyond --rtol (--runner: ir, emulator, gpu)
  SCRIPT           your own: SCRIPT --test-arg... FILE exits 1 when FILE is
                   interesting

Worked example: stridec miscompiles stride.add on purpose (a test-only
option) in a graph of 210 ops; the reference interpreter runs the compiled IR
(--runner=ir):

  $ stride-reduce test/Tools/Inputs/layers.mlir --test=differs --runner=ir \
      --stridec-arg=--test-inject-fault=add -o small.mlir
  stride-reduce: 116 ops, 26 inputs and outputs, 3572 elements (test 3)
  ...
  stride-reduce: 1 op, 3 inputs and outputs, 3 elements (test 34)
  stride-reduce: 210 ops, 6196 elements -> 1 op, 3 elements in 36 tests; wrote small.mlir
  $ head -2 small.mlir
  // Reduced by stride-reduce on 2026-11-24 from test/Tools/Inputs/layers.mlir: 210 ops, 6196 elements -> 1 op, 3 elements (36 tests).
  // Test: stride-reduce-test differs ir 1e-05 1 --test-inject-fault=add FILE

small.mlir is one stride.add of two 1x1 inputs; the comment's command, with
the file, exits 1 on it. python-free-docs/debugging.md walks through the whole way from a
wrong output to a reduced graph.

Exit status: 0 when a reduced graph is written, 1 on an error (including a
graph that does not show the problem to begin with).
)";

/// The test's program and its arguments before the file.
struct TestCommand {
  std::string program;
  std::vector<std::string> args;
};

/// stride-reduce-test beside this binary.
std::string builtInTestPath(const char *argv0) {
  std::string self =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&builtInTestPath));
  SmallString<256> path(sys::path::parent_path(self));
  sys::path::append(path, "stride-reduce-test");
  return std::string(path);
}

std::optional<TestCommand> testCommand(const char *argv0, std::string &error) {
  TestCommand command;
  if (test == "compile-fails" || test == "reference-fails") {
    if (match.empty()) {
      error = "--test=" + test + " needs --match TEXT (the error it shows)";
      return std::nullopt;
    }
    command.program = builtInTestPath(argv0);
    command.args = {test, match};
    if (test == "reference-fails")
      command.args.push_back(std::to_string(seed));
    else
      llvm::append_range(command.args, stridecArgs);
    return command;
  }
  if (test == "differs") {
    if (runner != "ir" && runner != "emulator" && runner != "gpu") {
      error = "--runner must be ir, emulator or gpu, not '" + runner + "'";
      return std::nullopt;
    }
    command.program = builtInTestPath(argv0);
    char tolerance[32];
    std::snprintf(tolerance, sizeof(tolerance), "%g", rtol.getValue());
    command.args = {"differs", runner, tolerance, std::to_string(seed)};
    llvm::append_range(command.args, stridecArgs);
    return command;
  }
  if (!sys::fs::can_execute(test)) {
    error = "--test: '" + test +
            "' is neither compile-fails, reference-fails, differs nor an "
            "executable script";
    return std::nullopt;
  }
  command.program = test;
  command.args.assign(testArgs.begin(), testArgs.end());
  return command;
}

/// "2026-11-24", from $SOURCE_DATE_EPOCH when set (reproducible output).
std::string today() {
  std::time_t now = std::time(nullptr);
  if (const char *epoch = std::getenv("SOURCE_DATE_EPOCH"))
    now = static_cast<std::time_t>(std::strtoll(epoch, nullptr, 10));
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
  return text;
}

std::string quoteForShell(const std::string &arg) {
  if (!arg.empty() && arg.find_first_of(" \t'\"$\\*?;&|<>()") == std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// "210 ops, 6196 elements"
std::string describe(const stride::GraphSize &size) {
  return std::to_string(size.ops) + (size.ops == 1 ? " op, " : " ops, ") +
         std::to_string(size.elements) +
         (size.elements == 1 ? " element" : " elements");
}

void writeHeader(raw_ostream &os, const TestCommand &command,
                 const stride::ReduceStats &stats) {
  os << "// Reduced by stride-reduce on " << today() << " from "
     << inputPath << ": " << describe(stats.before) << " -> "
     << describe(stats.after) << " (" << stats.tests << " tests).\n";
  os << "// Test: " << sys::path::filename(command.program);
  for (const std::string &arg : command.args)
    os << " " << quoteForShell(arg);
  os << " FILE\n// (exit status 1: the graph shows the problem)\n";
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  std::string error;
  std::optional<TestCommand> command = testCommand(argv[0], error);
  if (!command) {
    errs() << "stride-reduce: error: " << error << "\n";
    return 1;
  }

  mlir::DialectRegistry registry;
  stride::registerStrideReductionInterface(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  stride::loadGraphDialects(context);

  std::unique_ptr<MemoryBuffer> file = mlir::openInputFile(inputPath, &error);
  if (!file) {
    errs() << "stride-reduce: error: " << error << "\n";
    return 1;
  }
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      stride::parseGraph(sourceMgr, mlir::ParserConfig(&context));
  if (!module)
    return 1;

  mlir::Tester tester(command->program, command->args);
  mlir::FailureOr<stride::ReduceStats> stats =
      stride::reduceGraph(*module, tester, quiet ? nullptr : &errs());
  if (failed(stats))
    return 1;

  auto output = mlir::openOutputFile(outputPath, &error);
  if (!output) {
    errs() << "stride-reduce: error: " << error << "\n";
    return 1;
  }
  writeHeader(output->os(), *command, *stats);
  module->print(output->os(), mlir::OpPrintingFlags().enableDebugInfo(
                                  /*enable=*/true, /*prettyForm=*/false));
  output->os() << "\n";
  output->keep();
  if (!quiet)
    errs() << "stride-reduce: " << describe(stats->before) << " -> "
           << describe(stats->after) << " in " << stats->tests
           << " tests; wrote " << outputPath << "\n";
  return 0;
}
