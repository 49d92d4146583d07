//===- CallFields.h - Building library-call descriptors --------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to dialects/plan/Transforms: the fields of a library call's
// descriptor (AttentionCalls.cpp, ConvolutionCalls.cpp), in the order they
// are added.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_PLAN_TRANSFORMS_CALLFIELDS_H
#define STRIDE_DIALECTS_PLAN_TRANSFORMS_CALLFIELDS_H

#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/SymbolicLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace stride::plan {

inline StridedTensorType callTensorType(mlir::Value value) {
  return mlir::cast<StridedTensorType>(value.getType());
}

/// Fields of one descriptor, in the order they are added.
class Fields {
public:
  explicit Fields(mlir::MLIRContext *context) : builder(context) {}

  void text(llvm::StringRef name, llvm::StringRef value) {
    fields.push_back(builder.getNamedAttr(name, builder.getStringAttr(value)));
  }
  void ints(llvm::StringRef name, llvm::ArrayRef<int64_t> values) {
    fields.push_back(
        builder.getNamedAttr(name, builder.getDenseI64ArrayAttr(values)));
  }
  void flag(llvm::StringRef name, bool value) { ints(name, {int64_t(value)}); }
  /// Integers that may be size expressions: an array of i64 where every
  /// entry is a constant, else an array of integers and `#stride.size`
  /// (the module holds an expression per entry, python-free-docs/
  /// symbolic-sizes.md).
  void sizes(llvm::StringRef name, const SizeExprs &values) {
    llvm::SmallVector<int64_t> constants;
    for (const SizeExpr &v : values)
      if (std::optional<int64_t> c = v.getConstant())
        constants.push_back(*c);
    if (constants.size() == values.size())
      return ints(name, constants);
    llvm::SmallVector<mlir::Attribute> entries;
    for (const SizeExpr &v : values)
      entries.push_back(v.isConstant()
                            ? mlir::Attribute(builder.getI64IntegerAttr(
                                  *v.getConstant()))
                            : SizeExprAttr::get(builder.getContext(), v));
    fields.push_back(
        builder.getNamedAttr(name, builder.getArrayAttr(entries)));
  }
  void strides(llvm::StringRef name, mlir::Value tensor) {
    sizes(name, callTensorType(tensor).getSymbolicLayout().strides);
  }
  mlir::DictionaryAttr get() { return builder.getDictionaryAttr(fields); }

private:
  mlir::Builder builder;
  llvm::SmallVector<mlir::NamedAttribute> fields;
};

} // namespace stride::plan

#endif // STRIDE_DIALECTS_PLAN_TRANSFORMS_CALLFIELDS_H
