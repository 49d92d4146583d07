//===- IndexForms.h - Integer tensors as affine functions of indices ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Models build attention masks from index arithmetic: `arange`s, a
// position read at run time, additions, broadcasts, comparisons (key index
// <= query position), and checks that hold for every element (transformers'
// packed-sequence test of positions that are an arange). Over symbolic
// sizes, or with a position that is an input, the reference interpreter
// cannot evaluate such a mask at compile time (stride/Interpreter/
// FoldMasks.h); this analysis reads it from the ops instead, for every
// size and every value of the inputs it depends on:
//
// - an integer tensor as an *index form*: its element at coordinates `x`
//   is `sum_d coefficients[d] * x[d] + constant + scalarCoefficient *
//   scalar`, where `scalar` is one integer value read at run time (a
//   tensor whose every dim has size 1: a decode step's position);
// - a boolean tensor as an *index predicate*: true everywhere, false
//   everywhere, or one comparison of an index form with 0.
//
// A value the rules below do not cover has no form (std::nullopt), and a
// mask built from it is left as it is. python-free-docs/attention.md,
// "Masks read from their ops", lists the rules.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_ANALYSIS_INDEXFORMS_H
#define STRIDE_ANALYSIS_INDEXFORMS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace stride {

/// `value(x) = sum_d coefficients[d] * x[d] + constant + scalarCoefficient *
/// scalar`. A dim of static size 1 has coefficient 0 (its coordinate is 0).
struct IndexForm {
  llvm::SmallVector<int64_t> coefficients;
  int64_t constant = 0;
  /// An integer tensor whose every dim has size 1, read at run time; null
  /// when the form has none.
  mlir::Value scalar;
  int64_t scalarCoefficient = 0;

  /// Whether every element has the value `constant`.
  bool isConstant() const;
  /// Whether the form reads no coordinate (it may read the scalar).
  bool isUniform() const;
};

/// A boolean tensor: true or false everywhere, or `form(x) <= 0`,
/// `form(x) == 0` or `form(x) != 0` at each element.
struct IndexPredicate {
  enum class Kind { True, False, AtMostZero, Zero, NonZero };
  Kind kind = Kind::True;
  IndexForm form;

  static IndexPredicate always(bool value) {
    return {value ? Kind::True : Kind::False, {}};
  }
  bool isTrue() const { return kind == Kind::True; }
  bool isFalse() const { return kind == Kind::False; }
};

/// Index forms and predicates of the values of one function, each computed
/// once.
class IndexFormAnalysis {
public:
  /// The index form of an integer tensor, if the rules give one.
  std::optional<IndexForm> form(mlir::Value value);
  /// The index predicate of a boolean (i1) tensor, if the rules give one.
  std::optional<IndexPredicate> predicate(mlir::Value value);

private:
  std::optional<IndexForm> computeForm(mlir::Value value);
  std::optional<IndexPredicate> computePredicate(mlir::Value value);
  /// `source`'s form read through the view that defines `value`.
  std::optional<IndexForm> throughView(mlir::Value value, mlir::Value source,
                                       const IndexForm &sourceForm);

  llvm::DenseMap<mlir::Value, std::optional<IndexForm>> forms;
  llvm::DenseMap<mlir::Value, std::optional<IndexPredicate>> predicates;
};

} // namespace stride

#endif // STRIDE_ANALYSIS_INDEXFORMS_H
