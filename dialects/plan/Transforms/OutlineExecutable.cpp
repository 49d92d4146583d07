//===- OutlineExecutable.cpp - Kernels out, the entry becomes a plan ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-outline-executable (Passes.td): each stride.kernel of the entry
// moves into a plan.executable (one, or several translation units of about
// equal size, each of at least `unit-ops` ops), and the entry becomes steps
// over buffers.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

#include "AttentionCalls.h"
#include "ConvolutionCalls.h"
#include "CollectiveSteps.h"
#include "StateWrites.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/IR/StrideAttrs.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "stride/Support/MatmulLayout.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace stride::plan {
#define GEN_PASS_DEF_OUTLINEEXECUTABLE
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {

int64_t allocationBytes(int64_t bytes) {
  return std::max<int64_t>(16, (bytes + 15) / 16 * 16);
}

namespace {

/// A tensor's storage: its bytes at the symbols' largest values (what the
/// plan allocates, and the arena is planned for) and, over symbolic sizes,
/// its bytes at run time (python-free-docs/symbolic-sizes.md).
struct Storage {
  int64_t bytes = 0;
  SizeExprAttr symbolic;
};

/// `type`'s storage over `ranges`; nullopt when it overflows.
std::optional<Storage> storageOf(StridedTensorType type,
                                 const SymbolRanges &ranges) {
  if (!type.isSymbolic()) {
    std::optional<int64_t> bytes = storageBytesOf(type);
    return bytes ? std::optional<Storage>(Storage{*bytes, nullptr})
                 : std::nullopt;
  }
  SymbolicLayout layout = type.getSymbolicLayout();
  std::optional<Layout> atLargest = layout.evaluate(largestValues(ranges));
  std::optional<int64_t> extent =
      atLargest ? storageExtent(*atLargest) : std::nullopt;
  std::optional<SizeExpr> symbolicExtent = storageExtent(layout);
  int64_t elementBytes = int64_t(dtypeSize(type.getDType()));
  std::optional<SizeExpr> bytes =
      symbolicExtent ? symbolicExtent->times(SizeExpr::constant(elementBytes))
                     : std::nullopt;
  if (!extent || !bytes ||
      *extent > std::numeric_limits<int64_t>::max() / elementBytes)
    return std::nullopt;
  return Storage{*extent * elementBytes,
                 SizeExprAttr::get(type.getContext(), *bytes)};
}

/// Whether a type of `kernel` or its body names a symbol.
bool kernelNamesSymbols(KernelOp kernel) {
  auto symbolic = [](Type t) {
    auto tensor = dyn_cast<StridedTensorType>(t);
    return tensor && tensor.isSymbolic();
  };
  WalkResult found = kernel.walk([&](Operation *op) {
    return llvm::any_of(op->getResultTypes(), symbolic) ||
                   llvm::any_of(op->getOperandTypes(), symbolic)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// cuBLASLt's name of a matmul epilogue, with or without a bias (the
/// descriptor contract, python-free-docs/matmul.md).
StringRef cublasLtEpilogue(MatmulEpilogue epilogue, bool bias) {
  switch (epilogue) {
  case MatmulEpilogue::none:
    return bias ? "bias" : "default";
  case MatmulEpilogue::relu:
    return bias ? "relu_bias" : "relu";
  case MatmulEpilogue::gelu_tanh:
    return bias ? "gelu_bias" : "gelu";
  }
  llvm_unreachable("unknown matmul epilogue");
}

/// The parts of `matmul`'s product that its library calls compute: the
/// whole product, or its row classes (python-free-docs/matmul.md, "Row classes").
std::vector<MatmulPart> matmulParts(MatmulOp matmul) {
  StridedTensorType result = matmul.getResult().getType();
  // Over symbolic sizes the one call's rows are an expression
  // (matmulDescriptor); stride-matmul-layout writes no row classes there.
  if (result.isSymbolic())
    return {MatmulPart{0, 1, 0, 0, result.getShape().back()}};
  ArrayRef<int64_t> shape = result.getShape();
  int64_t rows = shape[shape.size() - 2], columns = shape.back();
  if (std::optional<int64_t> classes = matmul.getRowClasses())
    return matmulRowClassParts(rows, columns, *classes,
                               dtypeSize(result.getDType()));
  return {MatmulPart{0, 1, rows, 0, columns}};
}

/// The descriptor of the `cublaslt.matmul` call that computes `part` of
/// `matmul`'s product (python-free-docs/matmul.md). The row-major product
/// C[M, N] = lhs[M, K] @ rhs[K, N] is cuBLASLt's column-major
/// D (N x M) = A (N x K) * B (K x M), so cuBLASLt's A is the op's rhs and
/// its B the op's lhs; a row-major operand is a column-major one of the
/// transposed shape, so each operand's `transposed` is its transpose flag
/// as it stands. A part's rows `rowStep` apart multiply the leading
/// dimensions of the lhs (row-major: the verifier makes sure) and the
/// result; its first row and column move the offsets. Over symbolic sizes
/// (stride-check-symbolic-sizes: symbolic rows and leading batch dim,
/// static strides) the rows, the batch count and D's stride between
/// calls are `#stride.size` expressions, evaluated per shape at run time.
DictionaryAttr matmulDescriptor(MatmulOp matmul, const MatmulPart &part,
                                bool allowTf32) {
  StridedTensorType lhs = matmul.getLhs().getType(),
                    rhs = matmul.getRhs().getType(),
                    result = matmul.getResult().getType();
  SizeExprs shape = result.getSymbolicLayout().shape;
  int64_t rank = shape.size(), k = lhs.getShape()[rank - 1];
  SizeExpr batch = SizeExpr::constant(1);
  for (const SizeExpr &d : ArrayRef<SizeExpr>(shape).drop_back(2))
    batch = *batch.times(d);
  SizeExpr rows = result.isSymbolic() ? shape[rank - 2]
                                      : SizeExpr::constant(part.rows);
  DType dtype = result.getDType();
  StringRef compute = dtype == DType::F64               ? "64f"
                      : dtype == DType::F32 && allowTf32 ? "32f_fast_tf32"
                                                         : "32f";
  MatmulOperandAttr a = matmul.getRhsLayoutAttr(), b = matmul.getLhsLayoutAttr();
  Value bias = matmul.getBias();
  Builder builder(matmul.getContext());
  SmallVector<NamedAttribute> fields;
  auto text = [&](StringRef name, StringRef value) {
    fields.push_back(builder.getNamedAttr(name, builder.getStringAttr(value)));
  };
  auto number = [&](StringRef name, int64_t value) {
    fields.push_back(builder.getNamedAttr(name, builder.getI64IntegerAttr(value)));
  };
  auto size = [&](StringRef name, const SizeExpr &value) {
    if (std::optional<int64_t> constant = value.getConstant())
      return number(name, *constant);
    fields.push_back(builder.getNamedAttr(
        name, SizeExprAttr::get(matmul.getContext(), value)));
  };
  text("dtype", dtypeName(dtype));
  text("compute", compute);
  number("m", part.columns);
  size("n", rows);
  number("k", k);
  size("batch", batch);
  number("transa", a.getTransposed());
  number("transb", b.getTransposed());
  number("lda", a.getLd());
  number("ldb", b.getTransposed() ? b.getLd() : b.getLd() * part.rowStep);
  // The verifier makes sure the library can write the result's layout;
  // over symbolic sizes, stride-matmul-layout that it can at the largest
  // sizes, where the static strides hold for the whole range.
  MatmulOperandLayout d =
      *matmulResultLayout(*layoutAtLargest(result, matmul));
  int64_t ldd = d.ld * part.rowStep;
  number("ldd", ldd);
  number("stride_a", a.getBatchStride());
  number("stride_b", b.getBatchStride());
  // One matrix (a batch of 1 for every value): D's stride is its size.
  if (batch.isConstant() && *batch.getConstant() == 1)
    size("stride_d", *rows.times(SizeExpr::constant(ldd)));
  else
    number("stride_d", d.batchStride);
  // A column of the rhs is a row of cuBLASLt's A: `lda` apart when A is
  // transposed; a row of the lhs is a column of B: `ldb` apart unless B is.
  number("offset_a", rhs.getOffset() + part.firstColumn *
                                           (a.getTransposed() ? a.getLd() : 1));
  number("offset_b", lhs.getOffset() + part.firstRow *
                                           (b.getTransposed() ? 1 : b.getLd()));
  number("offset_bias",
         bias ? cast<StridedTensorType>(bias.getType()).getOffset() +
                    part.firstColumn
              : 0);
  int64_t offsetD = result.getOffset() + part.firstRow * d.ld + part.firstColumn;
  // The addend has the result's type (MatmulOp): C is read as D is written.
  if (matmul.getAddend())
    number("offset_c", offsetD);
  number("offset_d", offsetD);
  text("epilogue", cublasLtEpilogue(matmul.getEpilogue(), bool(bias)));
  number("workspace_bytes", kMatmulWorkspaceBytes);
  return builder.getDictionaryAttr(fields);
}

/// The ops in a kernel's body, terminators excluded: what NVRTC's time
/// grows with.
int64_t kernelOps(KernelOp kernel) {
  int64_t count = 0;
  kernel.getBody().walk([&](Operation *op) {
    if (!op->hasTrait<OpTrait::IsTerminator>())
      ++count;
  });
  return count;
}

/// The translation unit of each kernel of `entry`, in program order (see
/// Passes.td): the T kernel ops make k = T / unitOps units (at least 1, at
/// most kMaxUnits). Each unit is filled in turn until it holds its share of
/// the ops left, ceil(left / units left); a kernel is never split, so a unit
/// may hold more, and there may be fewer than k. All in unit 0 when
/// `unitOps` is 0.
SmallVector<unsigned> assignUnits(func::FuncOp entry, int64_t unitOps) {
  SmallVector<int64_t> ops;
  for (auto kernel : entry.getBody().front().getOps<KernelOp>())
    ops.push_back(kernelOps(kernel));
  SmallVector<unsigned> units(ops.size(), 0);
  int64_t left = 0;
  for (int64_t n : ops)
    left += n;
  if (unitOps <= 0 || left == 0)
    return units;
  int64_t count = std::clamp<int64_t>(left / unitOps, 1, kMaxUnits);
  auto share = [&](int64_t unit) {
    return (left + count - unit - 1) / (count - unit);
  };
  int64_t unit = 0, held = 0, target = share(0);
  for (auto [i, n] : llvm::enumerate(ops)) {
    if (held >= target && unit + 1 < count) {
      left -= held;
      held = 0;
      target = share(++unit);
    }
    units[i] = unit;
    held += n;
  }
  return units;
}

/// Rewrites one entry function; the i-th kernel goes into
/// `executables[units[i]]`.
class Outliner {
public:
  Outliner(func::FuncOp entry, ArrayRef<ExecutableOp> executables,
           ArrayRef<unsigned> units, bool allowTf32)
      : entry(entry), symbols(declaredSymbols(entry)),
        executables(executables), units(units),
        allowTf32(allowTf32), builder(entry.getContext()) {}

  LogicalResult run();

private:
  LogicalResult outlineKernel(KernelOp kernel, ExecutableOp executable);
  LogicalResult lowerMatmul(MatmulOp matmul);
  LogicalResult lowerAttention(AttentionOp op);
  LogicalResult lowerAttentionBackward(AttentionBackwardOp op);
  LogicalResult lowerConvolution(ConvolutionOp op);
  LogicalResult lowerWeightGradient(ConvolutionWeightGradientOp op);
  LogicalResult lowerConvolutionCall(Operation *op, ArrayRef<Value> tensors,
                                     DictionaryAttr descriptor);
  LogicalResult lowerCollective(Operation *collective);
  FailureOr<SmallVector<Value>> callBuffers(Operation *call,
                                            ArrayRef<Value> tensors);
  LogicalResult bindView(ViewOpInterface view);
  LogicalResult bindSelect(SelectVariantOp select);
  FailureOr<Value> allocFor(Value tensor, Location loc);
  FailureOr<Value> allocForType(StridedTensorType type, Location loc);
  void bindArguments();
  LogicalResult rewriteReturn(func::ReturnOp ret);
  LogicalResult writeBack(func::ReturnOp ret);
  Value bufferOfOrError(Value tensor, Operation *user);

  func::FuncOp entry;
  /// The entry's symbols (python-free-docs/symbolic-sizes.md).
  SymbolRanges symbols;
  ArrayRef<ExecutableOp> executables;
  ArrayRef<unsigned> units;
  bool allowTf32;
  OpBuilder builder;
  /// The library calls' workspace, allocated at the first call.
  Value workspace;
  /// Kernel names, unique across all executables.
  KernelNameTable names;
  /// The buffer that holds each tensor value (a view: its root's).
  llvm::DenseMap<Value, Value> bufferOf;
  /// The kernel results written in place into an argument's storage
  /// (StateWrites.h), by kernel and result: the argument.
  llvm::DenseMap<std::pair<Operation *, unsigned>, unsigned> inPlace;
};

Value Outliner::bufferOfOrError(Value tensor, Operation *user) {
  Value buffer = bufferOf.lookup(tensor);
  if (!buffer)
    user->emitOpError() << "uses a value that has no buffer (not an "
                           "argument, a kernel result or a view of one)";
  return buffer;
}

LogicalResult Outliner::bindView(ViewOpInterface view) {
  Value buffer = bufferOfOrError(view.getSource(), view);
  if (!buffer)
    return failure();
  bufferOf[view->getResult(0)] = buffer;
  return success();
}

/// The stride.select_variant that reads `tensor`, its one user; else null.
static SelectVariantOp selectReading(Value tensor) {
  return tensor.hasOneUse()
             ? dyn_cast<SelectVariantOp>(*tensor.getUsers().begin())
             : SelectVariantOp();
}

FailureOr<Value> Outliner::allocFor(Value tensor, Location loc) {
  // The two operands of a select_variant share one buffer, of the
  // selected value's type: the plan runs one of their ops.
  SelectVariantOp select = selectReading(tensor);
  if (!select)
    return allocForType(cast<StridedTensorType>(tensor.getType()), loc);
  if (Value shared = bufferOf.lookup(select.getResult()))
    return shared;
  FailureOr<Value> buffer = allocForType(select.getType(), loc);
  if (succeeded(buffer))
    bufferOf[select.getResult()] = *buffer;
  return buffer;
}

/// The guard under which an op's steps run (python-free-docs/
/// symbolic-sizes.md, "Variants selected at run time"): `when` or
/// `unless`, and whether the op has it from the ops that read its results.
struct VariantGuard {
  ArrayAttr when, unless;
  bool inherited = false;

  bool sameAs(const VariantGuard &other) const {
    return when == other.when && unless == other.unless;
  }
};

/// The users of `value`'s, through views.
static void collectReaders(Value value, SmallVectorImpl<Operation *> &readers) {
  for (Operation *user : value.getUsers()) {
    if (isa<ViewOpInterface>(user))
      collectReaders(user->getResult(0), readers);
    else
      readers.push_back(user);
  }
}

/// The guard of each op of `body` whose steps run at some values only: a
/// guarded kernel's where its `when` holds; those of the value a
/// select_variant takes otherwise where it does not; and a kernel whose
/// results only ops of one guard read (a cuDNN call's bias, computed from
/// the position for it alone) under that guard, unless it writes an
/// argument in place (`writesInPlace`).
static llvm::DenseMap<Operation *, VariantGuard>
guardsOf(Block &body, llvm::function_ref<bool(Operation *)> writesInPlace) {
  llvm::DenseMap<Operation *, VariantGuard> guards;
  for (Operation &op : body) {
    VariantGuard guard;
    if (auto kernel = dyn_cast<KernelOp>(op))
      guard.when = kernel.getWhenAttr();
    for (Value result : op.getResults())
      if (SelectVariantOp select = selectReading(result);
          select && select.getOtherwise() == result)
        guard.unless = select.getWhen();
    if (guard.when || guard.unless)
      guards[&op] = guard;
  }
  for (Operation &op : llvm::reverse(body)) {
    if (!isa<KernelOp>(op) || guards.count(&op) || writesInPlace(&op))
      continue;
    SmallVector<Operation *> readers;
    for (Value result : op.getResults())
      collectReaders(result, readers);
    std::optional<VariantGuard> common;
    for (Operation *reader : readers) {
      auto found = guards.find(reader);
      if (found == guards.end() || (common && !common->sameAs(found->second))) {
        common.reset();
        break;
      }
      common = found->second;
    }
    if (common) {
      common->inherited = true;
      guards[&op] = *common;
    }
  }
  return guards;
}

/// Guards the steps before `op` from `first` on (those that compute its
/// results) with `guard`. A variant's plan has dispatches and library
/// calls only; an op that inherited its guard and has other steps runs
/// always.
static LogicalResult guardSteps(Operation *op, Block::iterator first,
                                const VariantGuard &guard) {
  auto steps = llvm::make_range(first, op->getIterator());
  for (Operation &step : steps) {
    if (isa<DispatchOp, LibraryCallOp, AllocOp>(step))
      continue;
    if (guard.inherited)
      return success();
    return op->emitOpError()
           << "is one variant of a value, and its plan has a "
           << step.getName()
           << " step; only dispatches and library calls run as variants";
  }
  for (Operation &step : steps) {
    if (!isa<DispatchOp, LibraryCallOp>(step))
      continue;
    if (guard.when)
      step.setAttr("when", guard.when);
    if (guard.unless)
      step.setAttr("unless", guard.unless);
  }
  return success();
}

/// A select_variant's value is the buffer its operands share.
LogicalResult Outliner::bindSelect(SelectVariantOp select) {
  Value buffer = bufferOf.lookup(select.getResult());
  if (!buffer || bufferOf.lookup(select.getVariant()) != buffer ||
      bufferOf.lookup(select.getOtherwise()) != buffer)
    return select.emitOpError()
           << "selects between values of different buffers; each operand "
              "must be the one result of a kernel or a library call that "
              "only the select reads";
  return success();
}

FailureOr<Value> Outliner::allocForType(StridedTensorType type,
                                        Location loc) {
  std::optional<Storage> storage = storageOf(type, symbols);
  if (!storage)
    return emitError(loc) << "the storage of " << type << " is too large";
  return AllocOp::create(builder, loc, allocationBytes(storage->bytes),
                         storage->symbolic)
      .getResult();
}

LogicalResult Outliner::outlineKernel(KernelOp kernel,
                                      ExecutableOp executable) {
  builder.setInsertionPoint(kernel);
  SmallVector<Value> buffers;
  for (Value input : kernel.getInputs()) {
    Value buffer = bufferOfOrError(input, kernel);
    if (!buffer)
      return failure();
    buffers.push_back(buffer);
  }
  for (OpResult result : kernel->getResults()) {
    auto argument = inPlace.find({kernel, result.getResultNumber()});
    FailureOr<Value> buffer =
        argument != inPlace.end()
            ? FailureOr<Value>(bufferOf.lookup(entry.getArgument(argument->second)))
            : allocFor(result, kernel.getLoc());
    if (failed(buffer))
      return failure();
    bufferOf[result] = *buffer;
    buffers.push_back(*buffer);
  }
  // Scratch starts zeroed and the kernel leaves it zeroed (Passes.td).
  if (auto schedule = kernel->getAttrOfType<KernelScheduleAttr>(
          KernelScheduleAttr::kAttrName))
    if (DenseI64ArrayAttr scratch = schedule.getScratch())
      for (int64_t bytes : scratch.asArrayRef())
        buffers.push_back(AllocOp::create(builder, kernel.getLoc(),
                                          allocationBytes(bytes),
                                          /*zeroed=*/true));

  std::string name = names.insert(kernel.getSymName());
  DispatchOp::create(
      builder, kernel.getLoc(),
      SymbolRefAttr::get(executable.getSymNameAttr(),
                         {FlatSymbolRefAttr::get(builder.getStringAttr(name))}),
      buffers);

  OpBuilder inExecutable = OpBuilder::atBlockEnd(&executable.getBodyBlock());
  auto outlined = KernelOp::create(inExecutable, kernel.getLoc(),
                                   kernel.getResultTypes(),
                                   inExecutable.getStringAttr(name),
                                   ValueRange(), kernel.getWhenAttr());
  outlined->setDiscardableAttrs(kernel->getDiscardableAttrDictionary());
  // Over symbolic sizes the kernel's types name its function's symbols,
  // which it keeps outside the function (enclosingSymbols).
  if (Attribute symbols = entry->getAttr(StrideDialect::kSymbolsAttrName);
      symbols && kernelNamesSymbols(kernel))
    outlined->setAttr(StrideDialect::kSymbolsAttrName, symbols);
  outlined.getBody().takeBody(kernel.getBody());
  return success();
}

LogicalResult Outliner::lowerMatmul(MatmulOp matmul) {
  if (!matmul.getLhsLayoutAttr() || !matmul.getRhsLayoutAttr())
    return matmul.emitOpError()
           << "has no recorded operand layouts; the plan needs "
              "stride-matmul-layout first";
  if (Value bias = matmul.getBias();
      bias && !isContiguousVector(cast<StridedTensorType>(bias.getType()).getLayout()))
    return matmul.emitOpError()
           << "has a bias of type " << bias.getType()
           << "; the library reads a contiguous bias (stride-matmul-layout "
              "copies one that is not)";
  builder.setInsertionPoint(matmul);
  // cuBLASLt's operand order: A (the rhs), B (the lhs), bias, C (the
  // addend), D, workspace.
  SmallVector<Value> buffers;
  SmallVector<Value> operands{matmul.getRhs(), matmul.getLhs()};
  if (Value bias = matmul.getBias())
    operands.push_back(bias);
  if (Value addend = matmul.getAddend())
    operands.push_back(addend);
  for (Value operand : operands) {
    Value buffer = bufferOfOrError(operand, matmul);
    if (!buffer)
      return failure();
    buffers.push_back(buffer);
  }
  FailureOr<Value> result = allocFor(matmul.getResult(), matmul.getLoc());
  if (failed(result))
    return failure();
  bufferOf[matmul.getResult()] = *result;
  buffers.push_back(*result);
  // A product with no elements writes nothing; one over K = 0 is zeros
  // (every epilogue maps 0 to 0), and cuBLASLt takes no K of 0.
  if (matmul.getResult().getType().getNumElements() == 0)
    return success();
  if (matmul.getLhs().getType().getShape().back() == 0) {
    if (matmul.getBias() || matmul.getAddend())
      return matmul.emitOpError()
             << "adds a bias or an addend to a product over K = 0; the "
                "library call takes K >= 1 (add it in a kernel)";
    FillOp::create(builder, matmul.getLoc(), *result, uint64_t(0));
    return success();
  }
  // The steps run in order on one stream: every call uses one workspace.
  if (!workspace)
    workspace = AllocOp::create(builder, matmul.getLoc(),
                                kMatmulWorkspaceBytes, /*zeroed=*/false);
  buffers.push_back(workspace);
  for (const MatmulPart &part : matmulParts(matmul))
    LibraryCallOp::create(builder, matmul.getLoc(), "cublaslt.matmul",
                          matmulDescriptor(matmul, part, allowTf32), buffers);
  return success();
}

/// The buffers of a library call's tensors in order: those it reads (bound
/// already) and those it writes (allocated here).
FailureOr<SmallVector<Value>>
Outliner::callBuffers(Operation *call, ArrayRef<Value> tensors) {
  SmallVector<Value> buffers;
  for (Value tensor : tensors) {
    if (tensor.getDefiningOp() == call) {
      FailureOr<Value> buffer = allocFor(tensor, call->getLoc());
      if (failed(buffer))
        return failure();
      bufferOf[tensor] = *buffer;
      buffers.push_back(*buffer);
      continue;
    }
    Value buffer = bufferOfOrError(tensor, call);
    if (!buffer)
      return failure();
    buffers.push_back(buffer);
  }
  return buffers;
}

/// A library-call op that its library pass (`library`) did not keep fused
/// has no library call: its decomposition (`decompose`) rewrites it into
/// `rewritten` first.
static LogicalResult requireKeptFused(Operation *op, StringRef library,
                                      StringRef decompose,
                                      StringRef rewritten) {
  if (op->hasAttr(StrideDialect::kKeepFusedAttrName))
    return success();
  return op->emitOpError()
         << "has no library call in the plan; " << library
         << " keeps the ones cuDNN takes fused (marked '"
         << StrideDialect::kKeepFusedAttrName << "') and " << decompose
         << " rewrites the others into " << rewritten;
}

/// An attention op's (stride-attention-library, stride-decompose-attention).
static LogicalResult requireKeptAttention(Operation *op) {
  return requireKeptFused(op, "stride-attention-library",
                          "stride-decompose-attention",
                          "products and kernels");
}

/// A convolution's or weight gradient's (stride-convolution-library,
/// stride-decompose-convolution).
static LogicalResult requireKeptConvolution(Operation *op) {
  return requireKeptFused(op, "stride-convolution-library",
                          "stride-decompose-convolution",
                          "windows and products");
}

LogicalResult Outliner::lowerAttention(AttentionOp op) {
  if (failed(requireKeptAttention(op)))
    return failure();
  builder.setInsertionPoint(op);
  FailureOr<SmallVector<Value>> buffers =
      callBuffers(op, sdpaForwardTensors(op));
  if (failed(buffers))
    return failure();
  // cuDNN writes the statistics always: into the logsumexp result, or a
  // scratch buffer of its size.
  if (Value logsumexp = op.getLogsumexp()) {
    FailureOr<Value> stats = allocFor(logsumexp, op.getLoc());
    if (failed(stats))
      return failure();
    bufferOf[logsumexp] = *stats;
    buffers->push_back(*stats);
  } else {
    // Dense f32 [b, h_q, s_q], symbolic where the query is.
    SizeExprs q = op.getQuery().getType().getSymbolicLayout().shape;
    SizeExprs rows(q.begin(), q.begin() + 3);
    auto stats = StridedTensorType::get(
        builder.getF32Type(),
        SymbolicLayout{rows, *rowMajorStrides(rows), SizeExpr::constant(0)});
    FailureOr<Value> scratch = allocForType(stats, op.getLoc());
    if (failed(scratch))
      return failure();
    buffers->push_back(*scratch);
  }
  LibraryCallOp::create(builder, op.getLoc(), "cudnn.sdpa_forward",
                        sdpaForwardDescriptor(op), *buffers);
  return success();
}

LogicalResult Outliner::lowerAttentionBackward(AttentionBackwardOp op) {
  if (failed(requireKeptAttention(op)))
    return failure();
  builder.setInsertionPoint(op);
  FailureOr<SmallVector<Value>> buffers =
      callBuffers(op, sdpaBackwardTensors(op));
  if (failed(buffers))
    return failure();
  LibraryCallOp::create(builder, op.getLoc(), "cudnn.sdpa_backward",
                        sdpaBackwardDescriptor(op), *buffers);
  return success();
}

LogicalResult Outliner::lowerConvolution(ConvolutionOp op) {
  if (failed(requireKeptConvolution(op)))
    return failure();
  if (op.getTransposed() && op.getBias())
    return op.emitOpError()
           << "is transposed and has a bias, which cuDNN's data gradient "
              "does not add; stride-convolution-library adds it after the "
              "call";
  if (op.getTransposed() && op.getRelu())
    return op.emitOpError()
           << "is transposed and has a relu, which cuDNN's data gradient "
              "does not apply; stride-convolution-library applies it after "
              "the call";
  return lowerConvolutionCall(op, convolutionTensors(op),
                              convolutionDescriptor(op, allowTf32));
}

LogicalResult
Outliner::lowerWeightGradient(ConvolutionWeightGradientOp op) {
  if (failed(requireKeptConvolution(op)))
    return failure();
  return lowerConvolutionCall(op, weightGradientTensors(op),
                              weightGradientDescriptor(op, allowTf32));
}

/// One cudnn.convolution step over the buffers of `tensors` (buffer order).
LogicalResult Outliner::lowerConvolutionCall(Operation *op,
                                             ArrayRef<Value> tensors,
                                             DictionaryAttr descriptor) {
  builder.setInsertionPoint(op);
  FailureOr<SmallVector<Value>> buffers = callBuffers(op, tensors);
  if (failed(buffers))
    return failure();
  LibraryCallOp::create(builder, op->getLoc(), "cudnn.convolution",
                        descriptor, *buffers);
  return success();
}

/// A collective becomes a plan.collective step (CollectiveSteps.h) from
/// its input's buffer into a buffer of its own; one with no elements
/// exchanges nothing.
LogicalResult Outliner::lowerCollective(Operation *collective) {
  FailureOr<CollectiveStepShape> shape = collectiveStepShape(collective);
  if (failed(shape))
    return failure();
  builder.setInsertionPoint(collective);
  Value result = collective->getResult(0);
  FailureOr<SmallVector<Value>> buffers =
      callBuffers(collective, {collective->getOperand(0), result});
  if (failed(buffers))
    return failure();
  if (shape->count == 0)
    return success();
  CollectiveReductionAttr reductionAttr =
      shape->reduction ? CollectiveReductionAttr::get(builder.getContext(),
                                                      *shape->reduction)
                       : CollectiveReductionAttr();
  CollectiveOp::create(builder, collective->getLoc(), shape->kind,
                       reductionAttr, (*buffers)[0], shape->inputOffsetBytes,
                       (*buffers)[1], shape->count, shape->elementType,
                       shape->worldSize);
  return success();
}

/// Each argument's buffer: its state's, or the caller's storage (marked
/// written when a result writes it back).
void Outliner::bindArguments() {
  llvm::SmallDenseSet<unsigned> written;
  for (ArgumentWrite write : argumentWrites(entry))
    written.insert(write.argument);
  for (BlockArgument arg : entry.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto init = entry.getArgAttrOfType<ElementsAttr>(
        i, StrideDialect::kStateAttrName);
    bufferOf[arg] =
        init ? StateOp::create(builder, arg.getLoc(), argumentName(entry, i),
                               init, arg.getType(), written.contains(i))
                   .getResult()
             : InputOp::create(builder, arg.getLoc(), arg, written.contains(i))
                   .getResult();
  }
}

/// The results that write an argument back leave the return: a kernel
/// wrote them in place, or a copy at the end puts them into the
/// argument's storage.
LogicalResult Outliner::writeBack(func::ReturnOp ret) {
  builder.setInsertionPoint(ret);
  llvm::BitVector erased(ret.getNumOperands());
  for (ArgumentWrite write : argumentWrites(entry)) {
    Value value = ret.getOperand(write.result);
    Value target = bufferOf.lookup(entry.getArgument(write.argument));
    Value buffer = bufferOf.lookup(value);
    erased.set(write.result);
    if (buffer == target)
      continue;
    if (!buffer)
      return ret.emitOpError()
             << "writes back as result #" << write.result
             << " a value that has no buffer (not a kernel result or a view "
                "of one)";
    Storage storage =
        *storageOf(cast<StridedTensorType>(value.getType()), symbols);
    CopyOp::create(builder, ret.getLoc(), buffer, target,
                   builder.getI64IntegerAttr(storage.bytes), storage.symbolic);
  }
  ret->eraseOperands(erased);
  if (failed(entry.eraseResults(erased)))
    return ret.emitOpError() << "cannot drop the written-back results";
  return success();
}

LogicalResult Outliner::rewriteReturn(func::ReturnOp ret) {
  if (failed(writeBack(ret)))
    return failure();
  builder.setInsertionPoint(ret);
  llvm::SmallPtrSet<Value, 8> returnedBuffers;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get();
    Value buffer = bufferOf.lookup(value);
    // An input that no step writes, or a view of one, is returned as the
    // caller's own storage: an aliased output, no copy.
    auto input = buffer ? buffer.getDefiningOp<InputOp>() : InputOp();
    if (input && !input.getWritten()) {
      operand.set(
          OutputOp::create(builder, ret.getLoc(), value.getType(), buffer));
      continue;
    }
    Operation *def = value.getDefiningOp();
    bool written = def && (isa<KernelOp, SelectVariantOp>(def) ||
                           isLibraryCall(def));
    if (!written && !isReshapeOfFreshBuffer(value))
      return ret.emitOpError()
             << "returns as result #" << operand.getOperandNumber()
             << " a value that no kernel or library call writes (a state, "
                "an input the graph writes, or a view of part of a buffer); "
                "stride-legalize-layouts copies such results, and "
                "stride-outline-kernels puts the copy into a kernel";
    if (!returnedBuffers.insert(buffer).second || !buffer.getDefiningOp<AllocOp>()) {
      // The buffer is returned before (the same value, or another shape of
      // it), or is an argument's storage that a kernel wrote in place: this
      // result gets a buffer of its own, filled by a byte copy.
      Storage storage =
          *storageOf(cast<StridedTensorType>(value.getType()), symbols);
      Value source = buffer;
      buffer = AllocOp::create(builder, ret.getLoc(),
                               allocationBytes(storage.bytes),
                               storage.symbolic);
      CopyOp::create(builder, ret.getLoc(), source, buffer,
                     builder.getI64IntegerAttr(storage.bytes),
                     storage.symbolic);
    }
    operand.set(OutputOp::create(builder, ret.getLoc(), value.getType(), buffer));
  }
  return success();
}

LogicalResult Outliner::run() {
  Block &body = entry.getBody().front();
  for (InPlaceWrite write : inPlaceWrites(entry)) {
    inPlace[{write.kernel, write.result}] = write.argument;
    if (write.scatter)
      dropInputCopy(cast<KernelOp>(write.kernel));
  }
  builder.setInsertionPointToStart(&body);
  bindArguments();

  llvm::DenseMap<Operation *, VariantGuard> guards =
      guardsOf(body, [&](Operation *op) {
        for (unsigned r = 0; r < op->getNumResults(); ++r)
          if (inPlace.count({op, r}))
            return true;
        return false;
      });
  SmallVector<Operation *> replaced;
  size_t kernelIndex = 0;
  for (Operation &op : body) {
    LogicalResult done = success();
    // The steps the op becomes go before it, after `before`.
    Operation *before = op.getPrevNode();
    if (auto view = dyn_cast<ViewOpInterface>(op))
      done = bindView(view);
    else if (auto select = dyn_cast<SelectVariantOp>(op))
      done = bindSelect(select);
    else if (auto kernel = dyn_cast<KernelOp>(op))
      done = outlineKernel(kernel, executables[units[kernelIndex++]]);
    else if (auto matmul = dyn_cast<MatmulOp>(op))
      done = lowerMatmul(matmul);
    else if (auto attention = dyn_cast<AttentionOp>(op))
      done = lowerAttention(attention);
    else if (auto backward = dyn_cast<AttentionBackwardOp>(op))
      done = lowerAttentionBackward(backward);
    else if (auto convolution = dyn_cast<ConvolutionOp>(op))
      done = lowerConvolution(convolution);
    else if (auto weightGradient = dyn_cast<ConvolutionWeightGradientOp>(op))
      done = lowerWeightGradient(weightGradient);
    else if (collectiveWorldSize(&op))
      done = lowerCollective(&op);
    else if (isFunctional(&op))
      done = op.emitOpError() << "is outside a stride.kernel; the plan needs "
                                 "kernel formation (stride-outline-kernels) "
                                 "first";
    else
      continue;
    if (failed(done))
      return failure();
    if (auto guard = guards.find(&op);
        guard != guards.end() &&
        failed(guardSteps(&op,
                          before ? std::next(before->getIterator())
                                 : body.begin(),
                          guard->second)))
      return failure();
    replaced.push_back(&op);
  }
  if (failed(rewriteReturn(cast<func::ReturnOp>(body.getTerminator()))))
    return failure();
  for (Operation *op : llvm::reverse(replaced))
    op->erase();
  // A state is no argument of the plan: its plan.state holds it.
  llvm::BitVector states(entry.getNumArguments());
  for (BlockArgument arg : entry.getArguments())
    if (entry.getArgAttr(arg.getArgNumber(), StrideDialect::kStateAttrName))
      states.set(arg.getArgNumber());
  if (failed(entry.eraseArguments(states)))
    return entry.emitOpError() << "cannot drop the state arguments";
  return success();
}

struct OutlineExecutablePass
    : impl::OutlineExecutableBase<OutlineExecutablePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> entry = findEntryFunction(module);
    if (failed(entry))
      return signalPassFailure();
    SmallVector<unsigned> units = assignUnits(*entry, unitOps);
    unsigned count = units.empty() ? 1 : units.back() + 1;
    // Each detached, then inserted by the symbol table (which renames it if
    // the module already has the name), in order at the module's start.
    OpBuilder builder(module.getContext());
    SymbolTable symbols(module);
    SmallVector<ExecutableOp> executables;
    for (unsigned unit = 0; unit < count; ++unit) {
      std::string name = (entry->getSymName() + "_kernels").str();
      if (count > 1)
        name += "_" + std::to_string(unit);
      auto executable = ExecutableOp::create(builder, entry->getLoc(), name);
      symbols.insert(executable,
                     executables.empty()
                         ? module.getBody()->begin()
                         : std::next(executables.back()->getIterator()));
      executables.push_back(executable);
    }
    if (failed(Outliner(*entry, executables, units, allowTf32).run()))
      signalPassFailure();
  }
};

} // namespace
} // namespace stride::plan
