//===- Reduce.cpp - Reducing a graph that shows a problem -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The search is delta debugging over the graph function's ops: try the
// reduction patterns on the ops of one chunk (the whole graph, then halves,
// quarters, ... down to single ops), keep the candidate when the tester
// still finds it interesting and it is smaller, start over at the same chunk
// size when it was, halve the chunk size when no chunk helped. Then the same
// over the outputs (dropping them), then the shapes (one class of dims that
// must have one size at a time: size 1, else half), and again from the top
// until none helps. After each candidate is formed, ops whose results
// nobody reads and inputs nobody reads are removed, so a cut takes
// everything before it that only it needed.
//
// Why not MLIR's reduction-tree pass: it first applies the patterns to every
// op of the region at once and, for patterns that always apply, an
// uninteresting result there ends the search (python-free-docs/debugging.md). The
// patterns are still offered through the dialect interface, so
// `reduction-tree` sees them too.
//
//===----------------------------------------------------------------------===//

#include "stride/Reduce/Reduce.h"

#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/IR/StrideOps.h"
#include "dialects/stride/Transforms/Passes.h"
#include "dialects/stride/Transforms/ShrinkShapes.h"
#include "stride/Support/Layout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Reducer/ReductionPatternInterface.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace stride;

namespace {

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// A stride.kernel in a graph function becomes its ops again.
struct UnfuseKernel : public OpRewritePattern<KernelOp> {
  UnfuseKernel(MLIRContext *context)
      : OpRewritePattern<KernelOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(KernelOp kernel,
                                PatternRewriter &rewriter) const override {
    if (!isa<func::FuncOp>(kernel->getParentOp()))
      return failure();
    inlineKernel(rewriter, kernel);
    return success();
  }
};

/// True for a value a graph input can stand for: a strided tensor whose
/// elements have addresses of their own.
bool canBeInput(Type type) {
  auto tensor = dyn_cast<StridedTensorType>(type);
  if (!tensor)
    return false;
  Layout layout = tensor.getLayout();
  return checkNonOverlapping(layout.shape, layout.strides).ok();
}

/// An op of a graph function becomes fresh inputs of its result types (a
/// view too, where its layout gives every element an address of its own);
/// the values it read that ops computed become outputs.
struct CutOp : public RewritePattern {
  CutOp(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto func = dyn_cast<func::FuncOp>(op->getParentOp());
    if (!func || !isa<StrideDialect>(op->getDialect()) ||
        op->getNumResults() == 0 ||
        !llvm::all_of(op->getResultTypes(), canBeInput))
      return failure();
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    SmallVector<Value> newOutputs;
    for (Value operand : op->getOperands())
      if (operand.getDefiningOp() && !llvm::is_contained(ret.getOperands(), operand) &&
          !llvm::is_contained(newOutputs, operand))
        newOutputs.push_back(operand);
    rewriter.modifyOpInPlace(func, [&] {
      for (Value output : newOutputs)
        (void)func.insertResult(func.getNumResults(), output.getType(),
                                DictionaryAttr());
    });
    rewriter.modifyOpInPlace(
        ret, [&] { ret->insertOperands(ret->getNumOperands(), newOutputs); });
    SmallVector<Value> inputs;
    rewriter.modifyOpInPlace(func, [&] {
      for (Type type : op->getResultTypes()) {
        (void)func.insertArgument(func.getNumArguments(), type,
                                  DictionaryAttr(), op->getLoc());
        inputs.push_back(func.getArguments().back());
      }
    });
    rewriter.replaceOp(op, inputs);
    return success();
  }
};

struct StrideReductionInterface : public DialectReductionPatternInterface {
  StrideReductionInterface(Dialect *dialect)
      : DialectReductionPatternInterface(dialect) {}

  void populateReductionPatterns(RewritePatternSet &patterns) const override {
    patterns.add<UnfuseKernel, CutOp>(patterns.getContext());
  }
};

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

func::FuncOp graphFunction(ModuleOp module) {
  auto funcs = module.getOps<func::FuncOp>();
  return funcs.empty() ? func::FuncOp() : *funcs.begin();
}

/// Removes ops nobody reads (last to first, so chains go at once), then
/// inputs nobody reads.
void removeDeadCode(func::FuncOp func) {
  Block &body = func.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (!op.hasTrait<OpTrait::IsTerminator>() && op.use_empty())
      op.erase();
  llvm::BitVector unused(func.getNumArguments());
  for (BlockArgument arg : func.getArguments())
    if (arg.use_empty())
      unused.set(arg.getArgNumber());
  (void)func.eraseArguments(unused);
}

/// The ops of the graph function the patterns try, in program order.
SmallVector<Operation *> reducibleOps(func::FuncOp func) {
  return llvm::to_vector(llvm::make_pointer_range(
      func.getBody().front().without_terminator()));
}

class Reducer {
public:
  Reducer(ModuleOp module, const Tester &tester, llvm::raw_ostream *progress)
      : module(module), tester(tester), progress(progress) {
    RewritePatternSet set(module.getContext());
    for (const DialectReductionPatternInterface &interface :
         DialectInterfaceCollection<DialectReductionPatternInterface>(
             module.getContext()))
      interface.populateReductionPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
  }

  ReduceStats &stats() { return statistics; }

  /// Reduces until neither ops, outputs nor shapes shrink further.
  void run() {
    bool changed = true;
    while (changed) {
      changed = false;
      changed |= reduceChunks(
          [](ModuleOp m) { return unsigned(reducibleOps(graphFunction(m)).size()); },
          [&](ModuleOp m, unsigned begin, unsigned end) { applyPatterns(m, begin, end); });
      changed |= reduceChunks(
          [](ModuleOp m) { return graphFunction(m).getNumResults(); },
          [](ModuleOp m, unsigned begin, unsigned end) { dropOutputs(m, begin, end); });
      changed |= reduceShapes();
    }
  }

private:
  using CountFn = llvm::function_ref<unsigned(ModuleOp)>;
  using ChangeFn = llvm::function_ref<void(ModuleOp, unsigned, unsigned)>;

  /// Delta debugging over the items `count` counts: `change` on chunks of
  /// them. Returns whether any candidate was kept.
  bool reduceChunks(CountFn count, ChangeFn change) {
    bool changedAny = false;
    unsigned n = count(module);
    for (unsigned chunk = n; chunk >= 1 && n > 0;) {
      bool changed = false;
      for (unsigned begin = 0; begin < count(module); begin += chunk) {
        if (tryCandidate([&](ModuleOp m) {
              change(m, begin, std::min(begin + chunk, count(m)));
            })) {
          changed = changedAny = true;
          break;
        }
      }
      if (!changed)
        chunk /= 2;
      else
        chunk = std::min(chunk, std::max(1u, count(module)));
    }
    return changedAny;
  }

  /// Shrinks the classes of dims that must have one size, one at a time in
  /// program order (ShrinkShapes.h): size 1, else half, again at the same
  /// class while halving helps (without retrying 1, which it refused at a
  /// larger size). Returns whether any candidate was kept.
  bool reduceShapes() {
    bool changedAny = false, halving = false;
    for (unsigned index = 0;;) {
      std::optional<DimClass> current = shrinkableClass(module, index);
      if (!current)
        return changedAny;
      SmallVector<int64_t, 2> sizes = shrunkSizes(current->size);
      if (halving && sizes.size() == 2)
        sizes.erase(sizes.begin());
      std::optional<int64_t> kept;
      for (int64_t size : sizes)
        if (tryCandidate([&](ModuleOp m) {
              if (std::optional<DimClass> dims = shrinkableClass(m, index))
                (void)resizeDimClass(graphFunction(m), *dims, size);
            })) {
          kept = size;
          break;
        }
      changedAny |= kept.has_value();
      halving = kept && *kept > 1;
      // A class kept at a smaller size is tried again; one shrunk to 1 can
      // shrink no further, and the next class takes its number.
      if (!kept)
        ++index;
    }
  }

  /// Class `index` of the graph's shrinkable dim classes, if it has one.
  /// A function with values that are not stride tensors has none (its
  /// shapes are not shrunk; the error saying so is not the user's problem).
  static std::optional<DimClass> shrinkableClass(ModuleOp m, unsigned index) {
    ScopedDiagnosticHandler quiet(m.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<SmallVector<DimClass>> classes =
        findShrinkableDimClasses(graphFunction(m));
    if (failed(classes) || index >= classes->size())
      return std::nullopt;
    return (*classes)[index];
  }

  /// Forms a candidate from a copy of the module; keeps it when it verifies,
  /// is smaller and is still interesting.
  bool tryCandidate(llvm::function_ref<void(ModuleOp)> change) {
    OwningOpRef<ModuleOp> candidate = module.clone();
    change(*candidate);
    removeDeadCode(graphFunction(*candidate));
    GraphSize size = measureGraph(*candidate);
    if (!(size < measureGraph(module)) || failed(verify(*candidate)))
      return false;
    ++statistics.tests;
    if (tester.isInteresting(*candidate).first !=
        Tester::Interestingness::True)
      return false;
    if (progress)
      *progress << "stride-reduce: " << size.ops
                << (size.ops == 1 ? " op, " : " ops, ") << size.interface
                << " inputs and outputs, " << size.elements
                << (size.elements == 1 ? " element" : " elements") << " (test "
                << statistics.tests << ")\n";
    module.getBody()->getOperations().clear();
    module.getBody()->getOperations().splice(
        module.getBody()->end(), candidate->getBody()->getOperations());
    return true;
  }

  void applyPatterns(ModuleOp m, unsigned begin, unsigned end) {
    SmallVector<Operation *> ops = reducibleOps(graphFunction(m));
    // One op at a time, in program order (as MLIR's reduction-tree pass
    // applies its patterns), so that a cut op's readers, cut next, find
    // inputs.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps)
        .enableFolding(false)
        .enableConstantCSE(false);
    for (Operation *op : ArrayRef(ops).slice(begin, end - begin))
      (void)applyOpPatternsGreedily(op, patterns, config);
  }

  static void dropOutputs(ModuleOp m, unsigned begin, unsigned end) {
    func::FuncOp func = graphFunction(m);
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    llvm::BitVector drop(func.getNumResults());
    drop.set(begin, end);
    ret->eraseOperands(drop);
    (void)func.eraseResults(drop);
  }

  ModuleOp module;
  const Tester &tester;
  llvm::raw_ostream *progress;
  FrozenRewritePatternSet patterns;
  ReduceStats statistics;
};

} // namespace

void stride::registerStrideReductionInterface(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, StrideDialect *dialect) {
    dialect->addInterfaces<StrideReductionInterface>();
  });
}

GraphSize stride::measureGraph(ModuleOp module) {
  GraphSize size;
  func::FuncOp func = graphFunction(module);
  if (!func)
    return size;
  func.walk([&](Operation *op) {
    if (op != func && !op->hasTrait<OpTrait::IsTerminator>())
      ++size.ops;
  });
  size.interface = func.getNumArguments() + func.getNumResults();
  auto count = [&](Value value) {
    if (auto tensor = dyn_cast<StridedTensorType>(value.getType()))
      size.elements += tensor.getNumElements();
  };
  llvm::for_each(func.getArguments(), count);
  func.walk([&](Operation *op) {
    if (op != func)
      llvm::for_each(op->getResults(), count);
  });
  return size;
}

FailureOr<ReduceStats> stride::reduceGraph(ModuleOp module,
                                           const Tester &tester,
                                           llvm::raw_ostream *progress) {
  if (!graphFunction(module))
    return module.emitError("the graph has no function to reduce");
  if (tester.isInteresting(module).first != Tester::Interestingness::True)
    return module.emitError(
        "the graph is not interesting to the test: it does not show the "
        "problem to begin with, so there is nothing to reduce");
  Reducer reducer(module, tester, progress);
  reducer.stats().before = measureGraph(module);
  reducer.stats().tests = 1;
  reducer.run();
  reducer.stats().after = measureGraph(module);
  return reducer.stats();
}
