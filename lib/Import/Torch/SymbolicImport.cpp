//===- SymbolicImport.cpp - An archive's symbolic sizes -------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "SymbolicImport.h"
#include "OpTable.h"

#include "dialects/stride/IR/StrideAttrs.h"
#include "stride/Support/SymbolicLayout.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace stride::torch {

FailureOr<ArrayAttr> symbolsOf(const ExportedProgram &program,
                               MLIRContext *context, Location loc) {
  if (program.rangeConstraints.empty())
    return ArrayAttr();
  SmallVector<Attribute> symbols;
  for (const auto &[name, range] : program.rangeConstraints) {
    if (!range.max)
      return emitError(loc)
             << "range_constraints: symbol '" << name
             << "' has no maximum; Stride needs a bound for every symbolic "
                "size: export with torch.export.Dim(..., max=N)";
    auto error = [&, name = name] {
      return emitError(loc) << "range_constraints: ";
    };
    SymbolAttr symbol = SymbolAttr::getChecked(
        error, context, StringAttr::get(context, name), range.min.value_or(0),
        *range.max, /*multipleOf=*/int64_t(1));
    if (!symbol)
      return failure();
    symbols.push_back(symbol);
  }
  return ArrayAttr::get(context, symbols);
}

/// The expression of one entry: the archive's text read, or the static
/// value.
static FailureOr<SizeExpr> entryOf(const std::string &name,
                                   const std::string &what, int64_t value,
                                   const std::string &text,
                                   const ExportedProgram &program,
                                   Location loc) {
  if (text.empty())
    return SizeExpr::constant(value);
  std::optional<SizeExpr> expr = parseSizeExprText(text);
  if (!expr)
    return emitError(loc) << "value '" << name << "' has the " << what
                          << " '" << text
                          << "', which Stride cannot read (it reads sums and "
                             "products of integers and symbols)";
  for (const std::string &symbol : expr->symbols())
    if (!program.rangeConstraints.count(symbol))
      return emitError(loc) << "value '" << name << "' has the symbolic "
                            << what << " '" << text << "', whose symbol '"
                            << symbol
                            << "' the program's range_constraints do not "
                               "bound";
  return *expr;
}

FailureOr<StridedTensorType>
symbolicTypeOf(const std::string &name, const TensorMeta &meta,
               Type elementType, const ExportedProgram &program,
               Location loc) {
  SymbolicLayout layout;
  for (size_t i = 0; i < meta.sizes.size(); ++i) {
    FailureOr<SizeExpr> size =
        entryOf(name, "size", meta.sizes[i], meta.sizeExprs[i], program, loc);
    if (failed(size))
      return failure();
    layout.shape.push_back(*size);
  }
  for (size_t i = 0; i < meta.strides.size(); ++i) {
    FailureOr<SizeExpr> stride = entryOf(name, "stride", meta.strides[i],
                                         meta.strideExprs[i], program, loc);
    if (failed(stride))
      return failure();
    layout.strides.push_back(*stride);
  }
  FailureOr<SizeExpr> offset = entryOf(name, "storage offset",
                                       meta.storageOffset, meta.offsetExpr,
                                       program, loc);
  if (failed(offset))
    return failure();
  layout.offset = *offset;
  // The importer builds row-major types of these sizes (and of sizes 1
  // in some dims, or their product): the number of elements must fit.
  if (!numElements(layout.shape))
    return emitError(loc) << "value '" << name << "' has the sizes "
                          << formatSizes(layout.shape)
                          << ", whose product overflows int64";
  StridedTensorType type = StridedTensorType::getChecked(
      [&] { return emitError(loc) << "value '" << name << "': "; },
      elementType, layout);
  if (!type)
    return failure();
  return type;
}

bool importsSymbolicSizes(llvm::StringRef target) {
  // Builders that build symbolic types: from the file's types, or through
  // NodeImporter's building blocks over SizeExprs.
  static const llvm::StringSet<> targets = {
      // Views.
      "aten.view.default", "aten._unsafe_view.default", "aten.expand.default",
      "aten.permute.default",
      // Unary pointwise ops and copies.
      "aten.relu.default", "aten.neg.default", "aten.exp.default",
      "aten.tanh.default", "aten.sigmoid.default", "aten.clone.default",
      // The other unary ops of the one unary builder (PointwiseOps.cpp):
      // LLaMA's rotary angles take cos and sin over symbolic tokens.
      "aten.abs.default", "aten.sin.default", "aten.cos.default",
      "aten.tan.default", "aten.asin.default", "aten.acos.default",
      "aten.atan.default", "aten.sinh.default", "aten.cosh.default",
      "aten.asinh.default", "aten.acosh.default", "aten.atanh.default",
      "aten.expm1.default", "aten.log1p.default", "aten.log2.default",
      "aten.log10.default", "aten.sign.default",
      // Size queries and SymInt arithmetic (SymIntOps.cpp).
      "aten.sym_size.int", "aten.sym_stride.int", "aten.sym_numel.default",
      "aten.sym_storage_offset.default",
      // Matrix products.
      "aten.mm.default", "aten.bmm.default", "aten.addmm.default",
      // Pointwise: unary, binary with broadcasting, comparisons, where.
      "aten.gelu.default", "aten.rsqrt.default", "aten.sqrt.default",
      "aten.log.default", "aten.erf.default", "aten.reciprocal.default",
      "aten.logical_not.default", "aten.bitwise_not.default",
      "aten.add.Tensor", "aten.add.Scalar", "aten.sub.Tensor",
      "aten.sub.Scalar", "aten.mul.Tensor", "aten.mul.Scalar",
      "aten.div.Tensor", "aten.div.Scalar", "aten.pow.Tensor_Scalar",
      "aten.maximum.default", "aten.minimum.default",
      "aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor",
      "aten.logical_and.default", "aten.logical_or.default",
      "aten.eq.Tensor", "aten.eq.Scalar", "aten.ne.Tensor", "aten.ne.Scalar",
      "aten.lt.Tensor", "aten.lt.Scalar", "aten.le.Tensor", "aten.le.Scalar",
      "aten.gt.Tensor", "aten.gt.Scalar", "aten.ge.Tensor", "aten.ge.Scalar",
      "aten.where.self",
      // Copies and creation.
      "aten._to_copy.default", "aten.full.default", "aten.full_like.default",
      "aten.zeros.default", "aten.zeros_like.default", "aten.ones.default",
      "aten.ones_like.default", "aten.empty.memory_format",
      "aten.arange.default", "aten.arange.start", "aten.arange.start_step",
      "aten._assert_tensor_metadata.default",
      // Views and cat.
      "aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.dims",
      "aten.transpose.int", "aten.slice.Tensor", "aten.select.int",
      "aten.alias.default", "aten.split_with_sizes.default", "aten.cat.default",
      // Reductions, scans, softmax, normalization.
      "aten.sum.dim_IntList", "aten.sum.default", "aten.mean.dim",
      "aten.mean.default", "aten.amax.default", "aten.amin.default",
      "aten.cumsum.default",
      "aten._softmax.default", "aten._log_softmax.default",
      "aten.native_layer_norm.default",
      // Gathers: embedding, index_select, gather, index.Tensor.
      "aten.embedding.default", "aten.index_select.default",
      "aten.gather.default", "aten.index.Tensor",
      // Attention.
      "aten.scaled_dot_product_attention.default",
      "aten._scaled_dot_product_flash_attention.default",
      "aten._scaled_dot_product_efficient_attention.default",
      "aten._scaled_dot_product_cudnn_attention.default",
      "aten._scaled_dot_product_flash_attention_for_cpu.default",
  };
  target.consume_front("torch.ops.");
  return targets.contains(target) || isSymbolicScalarOp(target) ||
         isSymbolicCheck(target);
}

} // namespace stride::torch
