//===- CompareValues.cpp - Per-value comparison with the reference --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CompareValues.h"

#include "Compare.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/StrideOps.h"
#include "dialects/stride/Transforms/Passes.h"
#include "stride/Support/Diagnostics.h"

#include "llvm/Support/Path.h"

#include <cstdio>

using namespace mlir;

namespace stride::run {
namespace {

/// `x` in 3 significant digits, e.g. "2.18", "1.2e-07".
std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", x);
  return text;
}

/// "stride.add at graph.mlir:12:8, node 'add_1'".
std::string describeOp(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (std::optional<FileLineColLoc> file = firstFileLocation(op->getLoc()))
    text += " at " + file->getFilename().str() + ":" +
            std::to_string(file->getLine()) + ":" +
            std::to_string(file->getColumn());
  if (std::optional<std::string> node = nodeName(op->getLoc()))
    text += ", node '" + *node + "'";
  return text;
}

/// The op that computes `value`: inside a kernel, the op whose result the
/// kernel yields.
Operation *computingOp(OpResult value) {
  auto kernel = dyn_cast<KernelOp>(value.getOwner());
  if (!kernel)
    return value.getOwner();
  Value yielded = kernel.getYield().getValues()[value.getResultNumber()];
  Operation *def = yielded.getDefiningOp();
  return def ? def : kernel.getOperation();
}

/// What wrote kept value `value`: "result 0 of kernel 'add_1'".
std::string describeProducer(OpResult value) {
  std::string which = "result " + std::to_string(value.getResultNumber());
  if (auto kernel = dyn_cast<KernelOp>(value.getOwner()))
    return which + " of kernel '" + kernel.getSymName().str() + "'";
  return which + " of " + value.getOwner()->getName().getStringRef().str();
}

void printMismatch(OpResult value, const std::string &name,
                   const HostArray &reference, const Comparison &c,
                   double rtol, llvm::raw_ostream &os) {
  os << "first value that differs: " << name << ", "
     << describeProducer(value) << " (" << dtypeName(reference.dtype) << " "
     << formatDims(reference.shape) << ")\n";
  os << "  computed by: " << describeOp(computingOp(value)) << "\n";
  if (auto kernel = dyn_cast<KernelOp>(value.getOwner())) {
    os << "  the kernel's ops:\n";
    for (Operation &op : kernel.getBodyBlock().without_terminator())
      if (!isa<ViewOpInterface>(op))
        os << "    " << describeOp(&op) << "\n";
  }
  os << "  " << c.mismatches << " of " << reference.numElements()
     << " elements differ beyond rtol " << shortNumber(rtol)
     << "; max absolute error " << shortNumber(c.maxAbsoluteError)
     << ", max relative error " << shortNumber(c.maxRelativeError) << "\n";
  os << "  worst: "
     << (c.worstElement.empty() ? c.firstMismatch : c.worstElement) << "\n";
}

} // namespace

Result<bool> compareKeptValues(func::FuncOp entry,
                               const std::vector<HostArray> &results,
                               const std::string &dir, double rtol,
                               llvm::raw_ostream &os) {
  auto ret = cast<func::ReturnOp>(entry.getBody().back().getTerminator());
  unsigned matched = 0;
  double largestError = 0;
  for (unsigned r = 0; r < entry.getNumResults(); ++r) {
    std::string name = resultName(entry, r);
    if (!llvm::StringRef(name).starts_with(kKeptValuePrefix))
      continue;
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name + ".npy");
    Result<HostArray> actual = readNpyFile(path.str().str());
    if (!actual)
      return makeError(actual.error().code,
                       actual.error().message +
                           " (a run of a module compiled with stridec "
                           "--keep-values, with the same fusion options, "
                           "writes it)");
    HostArray reference = widenForNpy(results[r]);
    Comparison c = compareArrays(widenForNpy(*actual), reference, rtol);
    auto value = cast<OpResult>(ret.getOperand(r));
    if (!c.ok) {
      os << matched << " kept value" << (matched == 1 ? "" : "s")
         << " before it match the reference (largest relative error "
         << shortNumber(largestError) << ")\n";
      printMismatch(value, name, reference, c, rtol, os);
      return false;
    }
    ++matched;
    largestError = std::max(largestError, c.maxRelativeError);
  }
  os << "all " << matched << " kept values match the reference (largest "
     << "relative error " << shortNumber(largestError) << ")\n";
  return true;
}

} // namespace stride::run
