//===- KernelContract.h - What a stride.kernel may hold ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one home of the kernel contract (python-free-docs/fusion.md, "Kernel contract"):
// the five forms of kernel the fusion pass forms and the CUDA backend emits.
// The fusion pass decides with these predicates what may join a group;
// `classifyKernel` checks a formed kernel against the same rules and tells
// a backend the kernel's form. `verifyKernel` (run on every kernel by the
// `stride-verify-kernels` pass and by the CUDA backend's entry) reports a
// broken rule as an error at the op that breaks it, so a hand-written,
// imported or outlined kernel is checked exactly like a fused one.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_ANALYSIS_KERNELCONTRACT_H
#define STRIDE_DIALECTS_STRIDE_ANALYSIS_KERNELCONTRACT_H

#include "dialects/stride/IR/StrideOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace stride {

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

// Reductions and index scatters are the ops of ReductionOpInterface and
// IndexScatterOpInterface (StrideInterfaces.td).

/// slice_scatter, select_scatter: coordinate masks.
bool isMaskScatterOp(mlir::Operation *op);
/// cumsum: each output element depends on the elements before it along a
/// dim (form (e)).
bool isScanOp(mlir::Operation *op);
/// Functional ops that compute each output element from operands read at
/// (possibly mapped) coordinates: elementwise ops, cast, clone, creation ops,
/// mask scatters, cat, gather and index_select. Not reductions, index
/// scatters or scans.
bool isPointwiseLikeOp(mlir::Operation *op);
/// full and iota: no operands and no memory reads, so fusion clones them
/// into every kernel that reads them.
bool isReplicableLeafOp(mlir::Operation *op);

/// True when `operand` is read at its user's own output coordinates: every
/// operand of an elementwise op, the `input` of a mask scatter and the
/// `index` of a gather.
bool isIdentityOperand(mlir::OpOperand &operand);

/// The value under a chain of views (the value itself when it is no view's
/// result), and the views from that base up to `value`, outermost last.
mlir::Value viewChainBase(mlir::Value value,
                          llvm::SmallVectorImpl<mlir::Operation *> *chain =
                              nullptr);

/// True when `value` is the result of `reduction` read through views that
/// broadcast it back over the reduction's input shape: element `c` of
/// `value` is element `c` (reduced dims dropped, or 0 with keepdim) of the
/// reduction's result. An empty chain qualifies when the shapes agree.
bool isBroadcastBackOf(mlir::Value value, ReductionOpInterface reduction);

/// The same for `rowValue`, a value of `rows`' result shape computed once
/// per row (a reduction of the same rows, or a per-row op; see
/// isPerRowOp): element `c` of `value` is element `c` of `rowValue` with
/// `rows`' reduced dims dropped (or 0 with keepdim).
bool isBroadcastBackOf(mlir::Value value, mlir::Value rowValue,
                       ReductionOpInterface rows);

/// True when `op`, in a broadcast epilogue of `rows`, computes one value per
/// row: an elementwise op of `rows`' result shape (which is not its input
/// shape), like LayerNorm's `var + eps` and `rsqrt`. Such an op reads the
/// row's reductions and other per-row values directly, and the epilogue
/// reads it broadcast back over the row.
bool isPerRowOp(mlir::Operation *op, ReductionOpInterface rows);

/// True when `a` and `b` are reductions of one input shape over the same
/// dims: a broadcast-reduction kernel computes them row by row together.
bool reducesSameRows(mlir::Operation *a, mlir::Operation *b);

/// True when index scatters `a` and `b` may share a kernel as siblings
/// (form (c)): each a `scatter` or `scatter_add` (an index entry per
/// update, not index_add's slices), along the same dim, into results of
/// one static shape, their `index` operands one expression (one value read
/// through views of one index map, with one type). A backend copies both
/// inputs in one pass and, for each update, reads the index once and
/// writes each source into its own result.
bool areSiblingScatters(IndexScatterOpInterface a, IndexScatterOpInterface b);

/// Membership of a candidate kernel (a fusion group, or a kernel body).
using InGroupFn = llvm::function_ref<bool(mlir::Operation *)>;

/// How a check reports a broken rule. Called with the op that breaks it, a
/// reporter returns an error diagnostic located at that op; the check
/// streams the rule into it ("reads the reduction's result but is not an
/// elementwise op") and attaches notes at the related ops. A null reporter
/// makes the check silent: fusion asks whether a candidate group would be
/// legal, which is no error.
using ContractReporter =
    llvm::function_ref<mlir::InFlightDiagnostic(mlir::Operation *brokenAt)>;

/// True when `op`'s result is computed over the kernel's output iteration
/// space: each use of it by an op of the group is an identity operand read
/// directly (no view between) by an op of the same shape that is itself in
/// that space. An op with no uses in the group is in it (it is an output).
bool isInOutputFrame(mlir::Operation *op, InGroupFn inGroup);

/// isInOutputFrame, where a reduction of the group may also read the value
/// directly as its input over the value's shape: the value is then computed
/// at every element of a broadcast-reduction kernel's rows (form (d)'s
/// iteration space), which may yield it (a residual sum an RMSNorm reads).
bool isInRowFrame(mlir::Operation *op, InGroupFn inGroup);

/// Checks that the ops of the group that depend on `reduction` (through
/// views) form a pointwise epilogue: each is elementwise and has the
/// reduction's result shape (`broadcast` false) or its input shape
/// (`broadcast` true); each reads dependent values directly, except that
/// with `broadcast` it reads the reduction's own result through views that
/// broadcast it back (isBroadcastBackOf). With `broadcast`, ops of the
/// result shape may also compute one value per row (isPerRowOp) from the
/// row's reductions and other per-row values, read directly; the epilogue
/// reads them broadcast back. On failure, `report` (if set) is given the op
/// that broke a rule, with a note at the reduction.
mlir::LogicalResult checkEpilogue(ReductionOpInterface reduction,
                                  InGroupFn inGroup, bool broadcast,
                                  ContractReporter report = nullptr);

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

enum class KernelForm {
  /// (a) An elementwise / mask scatter / gather / creation / clone root;
  /// iteration space = the yielded values' shape.
  Pointwise,
  /// (b) A reduction root, optionally followed by a pointwise epilogue of
  /// the reduced shape; iteration space = the reduction's result shape.
  /// Further reductions of the same rows may share it (one accumulator
  /// each), each with such an epilogue.
  Reduction,
  /// (c) A scatter / scatter_add / index_add root, the only yielded value,
  /// or several sibling scatters (areSiblingScatters), each yielded.
  IndexScatter,
  /// (d) A reduction root whose result is broadcast back into a pointwise
  /// epilogue over the reduction's input shape (softmax's division); one
  /// yielded value of the input shape that depends on the reductions,
  /// possibly values the reductions read as their input (isInRowFrame),
  /// and possibly values computed once per row (KernelClass::rowResults). Further reductions of the same rows
  /// may read it broadcast back (softmax's `sum` of `exp(x - max)`); the
  /// root is then the first of them. Elementwise ops of the first
  /// reduction's result shape that read the row's reductions directly are
  /// per-row ops (isPerRowOp: LayerNorm's `rsqrt(var + eps)`), computed once
  /// per row and read broadcast back like a reduction.
  BroadcastReduction,
  /// (e) A scan (cumsum) root, the only yielded value, with a pointwise
  /// prologue evaluated at its input's coordinates; iteration space = the
  /// scan's shape, one row per element of the other dims.
  Scan,
  /// (f) One attention op (`stride.split_kv`: few query rows against a long
  /// key/value sequence, stride-attention-library), the only yielded value,
  /// its operands read through views; iteration space = its result's shape.
  Attention,
  /// (g) One matrix product of few rows (`stride.skinny_product`, marked
  /// by stride-matmul-layout; checkSkinnyProduct says which), its weight
  /// and bias read through views; its lhs (the rows) read through views or
  /// computed by a prologue of form (a)'s ops and views
  /// (KernelClass::prologueOps), evaluated at the lhs's coordinates, which
  /// may reduce the lhs's rows and read them broadcast back, as form (d)
  /// does (an RMSNorm: checkSkinnyRowPrologue). The product is the yielded
  /// value, or its result is read by an epilogue of elementwise ops
  /// (KernelClass::productEpilogue) whose one result is; beside it, the
  /// kernel may yield values the prologue's reductions read as their input
  /// (KernelClass::prologueResults: the residual sum); iteration space =
  /// the product's (or epilogue's) yielded value's shape.
  SkinnyProduct,
};

/// "pointwise", "reduction", "index-scatter", "broadcast-reduction",
/// "scan", "attention", "skinny-product".
llvm::StringRef stringifyKernelForm(KernelForm form);

/// A read of a skinny product's result by its epilogue (form (g)):
/// `view`, the result or a view of it of the epilogue's shape, whose
/// element at the epilogue's row `r` and column `e` (the epilogue's
/// elements taken row-major as [rows, columns]) is the product's element
/// (`r`, `e` + `columnOffset`).
struct SkinnyEpilogueRead {
  mlir::Value view;
  int64_t columnOffset = 0;
};

/// Form (g)'s epilogue (checkSkinnyEpilogue): elementwise ops of one
/// shape, `rows` x `columns` elements, after a skinny product of `rows`
/// rows. Output column `e` of a row needs the product's columns `e` +
/// each offset of `reads` of that row, so a warp that computes those
/// columns together evaluates the epilogue at `e` from its own sums: the
/// SwiGLU `silu(gate) * up` of a merged gate/up product reads columns `e`
/// and `e` + 14336 (python-free-docs/matmul.md, "Skinny products").
struct SkinnyEpilogue {
  /// The elementwise ops, in block order; the last one's result is the
  /// kernel's only yielded value.
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::SmallVector<SkinnyEpilogueRead> reads;
  /// The epilogue's elements per row of the product.
  int64_t columns = 0;

  bool empty() const { return ops.empty(); }
  /// The distinct column offsets of `reads`, ascending.
  llvm::SmallVector<int64_t> columnOffsets() const;
};

/// What a backend needs to know of a kernel, besides its ops: the one
/// source of a kernel's form (a backend never re-derives it).
struct KernelClass {
  KernelForm form = KernelForm::Pointwise;
  /// The op the form is built around: the reduction (for
  /// BroadcastReduction, the first of the row's reductions), the index
  /// scatter or the scan; for Pointwise, the first yielded value's defining op (null
  /// when that is a kernel argument).
  mlir::Operation *root = nullptr;
  /// The logical shape the kernel iterates over: the yielded values' shape,
  /// all alike. For Reduction, the reduction's result shape (one output
  /// element per reduced row); for BroadcastReduction, the reductions'
  /// input shape (a backend computes the reductions of one row, then the
  /// epilogue over that row); for IndexScatter, the scatter's result shape
  /// (the copy of `input`; the updates iterate over the scatter's `index`,
  /// or `src` for a slice index); for Scan, the scan's shape.
  llvm::SmallVector<int64_t> iterationShape;
  /// The reductions, in block order: for Reduction, the one reduction; for
  /// BroadcastReduction, every reduction of the row, in the order a backend
  /// computes them (a later one may read an earlier one broadcast back, and
  /// block order puts every reduction after those it reads); for
  /// SkinnyProduct, its prologue's reductions of the lhs's rows
  /// (checkSkinnyRowPrologue: an RMSNorm's mean). Empty for the other
  /// forms. All reduce one input shape over the same dims.
  llvm::SmallVector<ReductionOpInterface> reductions;
  /// For BroadcastReduction, and SkinnyProduct's prologue: the per-row ops
  /// (isPerRowOp) that depend on the row's reductions, in block order; a
  /// backend computes each once per row, after the reductions it reads.
  /// Empty for the other forms.
  llvm::SmallVector<mlir::Operation *> rowOps;
  /// For BroadcastReduction: the positions among the yielded values of
  /// those computed once per row (one of the row's reductions, or a per-row
  /// op: LayerNorm's saved mean and rstd), of the reductions' result shape;
  /// a backend stores each once per row. The other yielded values have
  /// the iteration shape: the one that depends on the reductions, and
  /// values the reductions read as their input (isInRowFrame: a residual
  /// sum that an RMSNorm normalizes), stored at each element. Empty for the
  /// other forms.
  llvm::SmallVector<unsigned> rowResults;
  /// The index scatters of an IndexScatter kernel in the order of the
  /// values it yields (scatter i yields result i): the root, then its
  /// siblings (areSiblingScatters). Empty for the other forms.
  llvm::SmallVector<IndexScatterOpInterface> scatters;
  /// For SkinnyProduct: the functional ops that compute the product's lhs
  /// (its prologue, the SwiGLU before a decoder's down projection), in
  /// block order; a backend evaluates them at each lhs element it reads.
  /// Empty where the lhs is a kernel input read through views, and for the
  /// other forms.
  llvm::SmallVector<mlir::Operation *> prologueOps;
  /// For SkinnyProduct: the positions among the yielded values of those
  /// its prologue computes at each element of the rows its row reductions
  /// read (a residual sum that an RMSNorm before the product normalizes);
  /// a backend stores them as it reduces the rows. The kernel's other
  /// yielded value is the product's or its epilogue's. Empty for the other
  /// forms.
  llvm::SmallVector<unsigned> prologueResults;
  /// For SkinnyProduct: the ops that read the product's result (its
  /// epilogue, the SwiGLU after a decoder's merged gate and up
  /// projections); empty where the kernel yields the product.
  SkinnyEpilogue productEpilogue;
};

/// The most rows of activations (the lhs's rows, the tokens of a decode
/// step) a skinny product computes (form (g)); stride-matmul-layout's
/// default policy takes fewer (python-free-docs/matmul.md, "Skinny
/// products").
constexpr int64_t kMaxSkinnyProductRows = 32;

/// The most rows the skinny-products policy `policy` runs as the skinny
/// product kernel: `auto` 1 (measured on an H200, KernelContract.cpp),
/// `generated` kMaxSkinnyProductRows, `library` 0; std::nullopt for an
/// unknown policy. stride-matmul-layout and stride-product-variants read
/// the policy through it.
std::optional<int64_t> skinnyRowBound(llvm::StringRef policy);

/// Checks that `op` is a product form (g) computes, with at most `maxRows`
/// rows: 2-D, f16, bf16 or f32, 1 to `maxRows` rows, `K` >= 1, its weight
/// (`rhs`, `[K, N]`) and its activations (`lhs`, `[M, K]`) each with
/// consecutive elements along `K` (an `nn.Linear` weight `[N, K]` read
/// through a permute), no `row_classes`, and no epilogue but `relu`. The
/// one home of these rules: stride-matmul-layout asks it (silently) which
/// products to mark, the contract checks a marked product in its kernel.
mlir::LogicalResult checkSkinnyProduct(MatmulOp op, int64_t maxRows,
                                       ContractReporter report = nullptr);

/// The most column offsets a skinny product's epilogue may read it at: a
/// warp holds `rows` sums at each (registers), and a SwiGLU or GeGLU reads
/// two.
constexpr size_t kMaxSkinnyEpilogueOffsets = 4;

/// Checks that `ops`, the ops of a form (g) kernel that depend on its
/// skinny `product`'s result, are an epilogue a warp evaluates from its
/// own sums, and describes it in `epilogue`: `yielded` (the kernel's only
/// yielded value) is the result of one of them; each is an elementwise op
/// of `yielded`'s shape; each operand is another of them read directly, a
/// kernel input read through views, or the product's result read through
/// views (a SkinnyEpilogueRead: its layout over the product's row-major
/// result is that of a row-major [rows, columns] block starting at a
/// column of row 0), at most kMaxSkinnyEpilogueOffsets offsets. On failure, `report` (if set) is given the op that
/// broke a rule, with a note at the product.
mlir::LogicalResult checkSkinnyEpilogue(MatmulOp product,
                                        llvm::ArrayRef<mlir::Operation *> ops,
                                        mlir::Value yielded,
                                        ContractReporter report,
                                        SkinnyEpilogue &epilogue);

/// Checks the row reductions of a form (g) kernel's `prologue` (the ops
/// that compute its skinny `product`'s lhs) and fills `result`'s rowOps and
/// prologueResults: each reduction reduces the lhs's rows (as many results
/// as the lhs has rows, as many input elements as the lhs has), all the
/// same rows; what reads them is a broadcast epilogue within the prologue
/// (checkEpilogue), with per-row ops (isPerRowOp: RMSNorm's
/// `rsqrt(mean + eps)`); and each value of the prologue among `yields` is
/// of the reductions' input shape and read by the prologue only at its own
/// coordinates or as their input (isInRowFrame: the residual sum an
/// RMSNorm normalizes). On failure, `report` (if set) is given the op that
/// broke a rule, with a note at the product.
mlir::LogicalResult checkSkinnyRowPrologue(
    MatmulOp product, llvm::ArrayRef<mlir::Operation *> prologue,
    mlir::ValueRange yields, ContractReporter report, KernelClass &result);

/// Classifies `kernel` by the contract. On failure, `report` (if set) is
/// given the op that broke a rule (the kernel itself for a rule about the
/// whole kernel), with notes at the related ops.
mlir::FailureOr<KernelClass> classifyKernel(KernelOp kernel,
                                            ContractReporter report = nullptr);

/// Classifies `kernel` and reports a broken rule as an error at the op that
/// broke it: "'stride.exp' op breaks the contract of kernel "k": ...", with
/// a note at the kernel and at the related ops. The check every kernel
/// passes before emission (stride-verify-kernels, the CUDA backend).
mlir::FailureOr<KernelClass> verifyKernel(KernelOp kernel);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_ANALYSIS_KERNELCONTRACT_H
