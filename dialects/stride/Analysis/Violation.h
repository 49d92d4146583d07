//===- Violation.h - A broken rule of the kernel contract -------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// How the kernel contract's checks (KernelContract.cpp, SkinnyProducts.cpp)
// report a broken rule. Private to dialects/stride/Analysis.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_ANALYSIS_VIOLATION_H
#define STRIDE_DIALECTS_STRIDE_ANALYSIS_VIOLATION_H

#include "dialects/stride/Analysis/KernelContract.h"

#include <optional>

namespace stride {

/// A broken rule of the contract. With a reporter, it is an error at the op
/// that broke the rule, into which the rule is streamed and to which notes
/// at related ops are attached; without one, nothing is reported. Either
/// way it converts to failure.
class Violation {
public:
  Violation(ContractReporter report, mlir::Operation *brokenAt) {
    if (report)
      diag.emplace(report(brokenAt));
  }

  template <typename T> Violation &operator<<(T &&value) {
    if (diag)
      *diag << std::forward<T>(value);
    return *this;
  }

  /// A note at an op related to the broken rule (the reduction an epilogue
  /// reads, the other scatter, ...): "<what> ('stride.sum') is here".
  struct Note {
    Note(mlir::Operation *related, llvm::StringRef what) : related(related), what(what) {}
    mlir::Operation *related;
    llvm::StringRef what;
  };
  Violation &operator<<(Note note) {
    if (diag)
      diag->attachNote(note.related->getLoc())
          << note.what << " ('" << note.related->getName() << "') is here";
    return *this;
  }

  operator mlir::LogicalResult() const { return mlir::failure(); }
  template <typename T> operator mlir::FailureOr<T>() const { return mlir::failure(); }

private:
  std::optional<mlir::InFlightDiagnostic> diag;
};

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_ANALYSIS_VIOLATION_H
