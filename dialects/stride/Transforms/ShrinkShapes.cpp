//===- ShrinkShapes.cpp - Resizing the dims of a graph --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Dims are tied into classes by union-find over (value, dim) pairs: each op
// ties the dims its shape rules make equal (only dims of one size are ever
// tied, so a class has one size). A class is resized as a whole and the
// function verified: what the ties miss (a slice's bounds, a select's index,
// a view's new shape, a cat's sizes) the op verifiers reject, and the resize
// is undone. So the ties decide only which dims move together, never whether
// a resize is sound.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/ShrinkShapes.h"
#include "dialects/stride/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/IntEqClasses.h"
#include "llvm/ADT/TypeSwitch.h"

namespace stride {
#define GEN_PASS_DEF_SHRINKSHAPES
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

StridedTensorType tensorTypeOf(Value value) {
  return cast<StridedTensorType>(value.getType());
}

//===----------------------------------------------------------------------===//
// Tying dims
//===----------------------------------------------------------------------===//

/// True when `slice` takes all of its dim, of size `size`: start 0, end
/// `size`, step 1.
bool isWholeDimOf(SliceOp slice, int64_t size) {
  return slice.getStart() == 0 && slice.getStep() == 1 &&
         static_cast<int64_t>(slice.getEnd()) == size;
}

/// The splat value of `constant` (every element the same), or null: the
/// only constants whose shape may change.
DenseElementsAttr splatValue(ConstantOp constant) {
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat() ? dense : DenseElementsAttr();
}

/// Every dim of every value of a graph function, numbered in program order,
/// and the classes the ops tie them into.
class DimTies {
public:
  /// Numbers the dims of `func`'s values; fails (with an error) at the
  /// first value that is not a !stride.tensor.
  LogicalResult collect(func::FuncOp func) {
    if (func.isExternal())
      return func.emitOpError()
             << "is a declaration; stride-shrink-shapes resizes the values "
                "of a graph function's body";
    for (BlockArgument arg : func.getArguments())
      if (failed(add(arg, [&] {
            return func.emitOpError() << "argument #" << arg.getArgNumber();
          })))
        return failure();
    WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == func)
        return WalkResult::advance();
      for (OpResult result : op->getResults())
        if (failed(add(result, [&] {
              return op->emitOpError() << "result #" << result.getResultNumber();
            })))
          return WalkResult::interrupt();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (failed(add(arg, [&] {
                  return op->emitOpError() << "body argument #"
                                           << arg.getArgNumber();
                })))
              return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  /// Ties the dims each op of `func` makes equal.
  void tieOps(func::FuncOp func) {
    func.walk([&](Operation *op) {
      if (op != func)
        tieOp(op);
    });
  }

  /// The classes of size > 1 without a dim of a non-splat constant, in
  /// program order of their first dim.
  SmallVector<DimClass> shrinkableClasses() {
    classes.compress();
    SmallVector<DimClass> all(classes.getNumClasses());
    SmallVector<bool> pinned(classes.getNumClasses(), false);
    for (auto [id, dim] : llvm::enumerate(dims)) {
      DimClass &dimClass = all[classes[id]];
      dimClass.size = tensorTypeOf(dim.first).getShape()[dim.second];
      dimClass.dims.push_back(dim);
      auto constant = dim.first.getDefiningOp<ConstantOp>();
      if (constant && !splatValue(constant))
        pinned[classes[id]] = true;
    }
    // IntEqClasses numbers classes in the order of their smallest member,
    // which is program order.
    SmallVector<DimClass> shrinkable;
    for (auto [index, dimClass] : llvm::enumerate(all))
      if (dimClass.size > 1 && !pinned[index])
        shrinkable.push_back(std::move(dimClass));
    return shrinkable;
  }

private:
  LogicalResult add(Value value, function_ref<InFlightDiagnostic()> emit) {
    auto type = dyn_cast<StridedTensorType>(value.getType());
    if (!type)
      return emit() << " has type " << value.getType()
                    << ", but stride-shrink-shapes resizes graphs, whose "
                       "values are all !stride.tensor";
    firstDim[value] = dims.size();
    for (unsigned d = 0; d < type.getRank(); ++d)
      dims.push_back({value, d});
    classes.grow(dims.size());
    return success();
  }

  /// Ties dim `da` of `a` to dim `db` of `b` when they have one size.
  void tie(Value a, int64_t da, Value b, int64_t db) {
    if (tensorTypeOf(a).getShape()[da] == tensorTypeOf(b).getShape()[db])
      classes.join(firstDim.at(a) + da, firstDim.at(b) + db);
  }

  /// Ties the dims of `a` and `b` one to one, except `skip` of both.
  void tieAll(Value a, Value b, int64_t skip = -1) {
    for (int64_t d = 0; d < tensorTypeOf(a).getRank(); ++d)
      if (d != skip && d < tensorTypeOf(b).getRank())
        tie(a, d, b, d);
  }

  /// Ties the dims of `part`, which is `full` without dim `dim`, to
  /// theirs in `full`.
  void tieAllBut(Value full, int64_t dim, Value part) {
    for (int64_t d = 0; d < tensorTypeOf(full).getRank(); ++d)
      if (d != dim)
        tie(full, d, part, d < dim ? d : d - 1);
  }

  void tieOp(Operation *op) {
    if (op->hasTrait<Elementwise>()) {
      for (Value operand : op->getOperands())
        tieAll(operand, op->getResult(0));
      return;
    }
    TypeSwitch<Operation *>(op)
        .Case([&](ExpandOp expand) {
          int64_t lead = expand.getType().getRank() -
                         expand.getInput().getType().getRank();
          for (int64_t d = 0; d < expand.getInput().getType().getRank(); ++d)
            tie(expand.getInput(), d, expand.getResult(), lead + d);
        })
        .Case([&](UnsqueezeOp unsqueeze) {
          tieAllBut(unsqueeze.getResult(), unsqueeze.getDim(),
                    unsqueeze.getInput());
        })
        .Case([&](SqueezeOp squeeze) {
          int64_t next = 0;
          for (int64_t d = 0; d < squeeze.getInput().getType().getRank(); ++d)
            if (!llvm::is_contained(squeeze.getDims(), d))
              tie(squeeze.getInput(), d, squeeze.getResult(), next++);
        })
        .Case([&](PermuteOp permute) {
          for (auto [d, from] : llvm::enumerate(permute.getDims()))
            tie(permute.getResult(), d, permute.getInput(), from);
        })
        .Case([&](SliceOp slice) {
          // A slice of the whole dim follows it (resizeDimClass moves its
          // end); other bounds pin the sliced dim.
          tieAll(slice.getInput(), slice.getResult(),
                 isWholeDimOf(slice, slice.getInput().getType().getShape()
                                         [slice.getDim()])
                     ? -1
                     : slice.getDim());
        })
        .Case([&](SelectOp select) {
          tieAllBut(select.getInput(), select.getDim(), select.getResult());
        })
        .Case([&](ViewOp view) { tieViewEnds(view); })
        .Case([&](ReductionOpInterface reduction) {
          Value input = reduction.getInput(), result = op->getResult(0);
          SmallVector<int64_t> reduced = reduction.getReducedDims();
          int64_t next = 0;
          for (int64_t d = 0; d < tensorTypeOf(input).getRank(); ++d) {
            if (!llvm::is_contained(reduced, d))
              tie(input, d, result, next);
            if (!llvm::is_contained(reduced, d) || reduction.getKeepdim())
              ++next;
          }
        })
        .Case([&](SliceScatterOp scatter) {
          tieAll(scatter.getInput(), scatter.getResult());
          tieAll(scatter.getInput(), scatter.getSrc(), scatter.getDim());
        })
        .Case([&](SelectScatterOp scatter) {
          tieAll(scatter.getInput(), scatter.getResult());
          tieAllBut(scatter.getInput(), scatter.getDim(), scatter.getSrc());
        })
        .Case([&](CatOp cat) {
          for (Value input : cat.getInputs())
            tieAll(input, cat.getResult(), cat.getDim());
        })
        .Case([&](IndexScatterOpInterface scatter) {
          Value input = scatter.getInput(), index = scatter.getIndex(),
                src = scatter.getSrc();
          tieAll(input, op->getResult(0));
          if (scatter.isSliceIndex()) {
            tieAll(input, src, scatter.getDim());
            tie(index, 0, src, scatter.getDim());
            return;
          }
          // The index may be smaller than src and input; where it is not,
          // the dims must shrink together to stay within bounds.
          tieAll(index, src);
          tieAll(index, input, scatter.getDim());
        })
        .Case([&](GatherOp gather) {
          tieAll(gather.getIndex(), gather.getResult());
          tieAll(gather.getIndex(), gather.getInput(), gather.getDim());
        })
        .Case([&](IndexSelectOp select) {
          tieAll(select.getInput(), select.getResult(), select.getDim());
          tie(select.getIndex(), 0, select.getResult(), select.getDim());
        })
        .Case([&](CumsumOp cumsum) {
          tieAll(cumsum.getInput(), cumsum.getResult());
        })
        .Case([&](MatmulOp matmul) { tieMatmul(matmul); })
        .Case([&](KernelOp kernel) {
          if (!kernel.isOutlined())
            for (auto [input, arg] : llvm::zip(
                     kernel.getInputs(), kernel.getBodyBlock().getArguments()))
              tieAll(input, arg);
        })
        .Case([&](YieldOp yield) {
          for (auto [value, result] :
               llvm::zip(yield.getValues(), op->getParentOp()->getResults()))
            tieAll(value, result);
        });
  }

  /// A view that keeps a prefix and a suffix of equal dims and regroups
  /// the dims between them: the prefix and suffix scale both element
  /// counts alike, so they are tied (4x6 -> 4x2x3 ties the 4s).
  void tieViewEnds(ViewOp view) {
    ArrayRef<int64_t> from = view.getInput().getType().getShape();
    ArrayRef<int64_t> to = view.getType().getShape();
    size_t common = std::min(from.size(), to.size()), prefix = 0, suffix = 0;
    while (prefix < common && from[prefix] == to[prefix]) {
      tie(view.getInput(), prefix, view.getResult(), prefix);
      ++prefix;
    }
    while (prefix + suffix < common &&
           from[from.size() - 1 - suffix] == to[to.size() - 1 - suffix]) {
      tie(view.getInput(), from.size() - 1 - suffix, view.getResult(),
          to.size() - 1 - suffix);
      ++suffix;
    }
  }

  /// [B..., M, K] x [B..., K, N] -> [B..., M, N], a bias of [N] and an
  /// addend of the result's shape.
  void tieMatmul(MatmulOp matmul) {
    Value lhs = matmul.getLhs(), rhs = matmul.getRhs(),
          result = matmul.getResult();
    int64_t rank = tensorTypeOf(lhs).getRank();
    if (rank < 2 || tensorTypeOf(rhs).getRank() != rank)
      return;
    for (int64_t d = 0; d + 2 < rank; ++d) {
      tie(lhs, d, rhs, d);
      tie(lhs, d, result, d);
    }
    tie(lhs, rank - 1, rhs, rank - 2);
    tie(lhs, rank - 2, result, rank - 2);
    tie(rhs, rank - 1, result, rank - 1);
    if (Value bias = matmul.getBias())
      tie(bias, 0, result, rank - 1);
    if (Value addend = matmul.getAddend())
      for (int64_t d = 0; d < rank; ++d)
        tie(addend, d, result, d);
  }

  DenseMap<Value, unsigned> firstDim;
  SmallVector<std::pair<Value, unsigned>> dims;
  llvm::IntEqClasses classes;
};

//===----------------------------------------------------------------------===//
// Resizing a class
//===----------------------------------------------------------------------===//

/// A dense layout of `shape` with the dims in the order of `old`'s strides
/// and `old`'s zero strides kept, so a resized value keeps the kind of
/// layout it had: row-major stays row-major, a transposed input stays
/// transposed, a broadcast result stays broadcast.
Layout denseLike(const Layout &old, ArrayRef<int64_t> shape) {
  Layout layout{Dims(shape.begin(), shape.end()), Dims(shape.size(), 0), 0};
  Dims order = dimOrderByStride(old.strides);
  int64_t running = 1;
  for (int64_t d : llvm::reverse(order)) {
    if (old.strides[d] == 0)
      continue;
    layout.strides[d] = running;
    running *= std::max<int64_t>(shape[d], 1);
  }
  return layout;
}

/// One resize of a class, recording every change so that a refused resize
/// can be undone.
class Resize {
public:
  Resize(func::FuncOp func, const DimClass &dimClass, int64_t size)
      : func(func), dimClass(dimClass), size(size) {
    for (auto [value, dim] : dimClass.dims)
      resizedDims[value].push_back(dim);
  }

  /// Resizes the class; on failure, `refusal` says why and nothing has
  /// changed.
  LogicalResult run(ResizeRefusal &refusal) {
    FunctionType oldFunctionType = func.getFunctionType();
    if (failed(resizeValues(refusal)) || failed(verifyQuietly(refusal))) {
      undo();
      func.setFunctionType(oldFunctionType);
      return failure();
    }
    return success();
  }

private:
  LogicalResult resizeValues(ResizeRefusal &refusal) {
    for (BlockArgument arg : func.getArguments())
      resizeFresh(arg);
    WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == func)
        return WalkResult::advance();
      return failed(resizeOp(op, refusal)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    func.setFunctionType(FunctionType::get(func.getContext(),
                                           func.getBody().getArgumentTypes(),
                                           ret.getOperandTypes()));
    return success();
  }

  LogicalResult resizeOp(Operation *op, ResizeRefusal &refusal) {
    if (auto view = dyn_cast<ViewOpInterface>(op))
      return resizeView(view, refusal);
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      if (!newShape(constant.getResult()))
        return success();
      DenseElementsAttr dense = splatValue(constant);
      if (!dense) {
        refusal = {"a constant of more than one value pins its shape",
                   constant.getLoc()};
        return failure();
      }
      setAttr(op, constant.getValueAttrName(),
              dense.resizeSplat(RankedTensorType::get(
                  *newShape(constant.getResult()), dense.getElementType())));
    }
    for (OpResult result : op->getResults())
      resizeFresh(result);
    if (auto kernel = dyn_cast<KernelOp>(op); kernel && !kernel.isOutlined())
      for (auto [input, arg] : llvm::zip(kernel.getInputs(),
                                         kernel.getBodyBlock().getArguments()))
        if (arg.getType() != input.getType())
          setType(arg, input.getType());
    return success();
  }

  /// The shape `value` gets, or nullopt when it keeps its own.
  std::optional<Dims> newShape(Value value) {
    auto it = resizedDims.find(value);
    if (it == resizedDims.end())
      return std::nullopt;
    ArrayRef<int64_t> shape = tensorTypeOf(value).getShape();
    Dims resized(shape.begin(), shape.end());
    for (unsigned d : it->second)
      resized[d] = size;
    return resized;
  }

  /// An argument or a fresh buffer: a dense layout of its new shape.
  void resizeFresh(Value value) {
    if (std::optional<Dims> shape = newShape(value)) {
      StridedTensorType type = tensorTypeOf(value);
      setType(value, type.withLayout(denseLike(type.getLayout(), *shape)));
    }
  }

  /// A view takes its layout from its operand's (as_strided, expand and
  /// view read their result's shape, or layout, from the result type, so
  /// that is resized first).
  LogicalResult resizeView(ViewOpInterface view, ResizeRefusal &refusal) {
    Value source = view.getSource(), result = view->getResult(0);
    if (!changed.contains(source) && !resizedDims.count(result))
      return success();
    auto slice = dyn_cast<SliceOp>(view.getOperation());
    if (slice && isWholeDimOf(slice, dimClass.size) &&
        llvm::is_contained(dimClass.dims,
                           std::pair<Value, unsigned>(source, slice.getDim())))
      setAttr(slice, slice.getEndAttrName(),
              IntegerAttr::get(slice.getEndAttr().getType(), size));
    std::optional<Dims> wanted = newShape(result);
    resizeFresh(result);
    ViewResult inferred = view.inferResultLayout(tensorTypeOf(source).getLayout());
    std::string op =
        (Twine("'") + view->getName().getStringRef() + "' op ").str();
    if (!inferred) {
      refusal = {op + inferred.error, view.getLoc()};
      return failure();
    }
    // A dim the view computes from its operand and attributes (a partial
    // slice's) does not follow the class.
    if (wanted && inferred.layout->shape != *wanted) {
      refusal = {op + "result would have shape " + formatDims(*wanted) +
                     ", but its operand and attributes give it " +
                     formatDims(inferred.layout->shape),
                 view.getLoc()};
      return failure();
    }
    setType(result, tensorTypeOf(result).withLayout(*inferred.layout));
    return success();
  }

  /// Verifies the function; the first error, if any, becomes the refusal.
  LogicalResult verifyQuietly(ResizeRefusal &refusal) {
    std::optional<ResizeRefusal> first;
    ScopedDiagnosticHandler handler(func.getContext(), [&](Diagnostic &diag) {
      if (!first && diag.getSeverity() == DiagnosticSeverity::Error)
        first = ResizeRefusal{diag.str(), diag.getLocation()};
      return success();
    });
    if (succeeded(verify(func)))
      return success();
    refusal = first.value_or(ResizeRefusal{"the function does not verify", {}});
    return failure();
  }

  void setType(Value value, Type type) {
    oldTypes.push_back({value, value.getType()});
    changed.insert(value);
    value.setType(type);
  }

  void setAttr(Operation *op, StringAttr name, Attribute value) {
    oldAttrs.push_back({op, name, op->getAttr(name)});
    op->setAttr(name, value);
  }

  void undo() {
    for (auto [value, type] : llvm::reverse(oldTypes))
      value.setType(type);
    for (auto [op, name, value] : llvm::reverse(oldAttrs))
      op->setAttr(name, value);
  }

  func::FuncOp func;
  const DimClass &dimClass;
  int64_t size;
  DenseMap<Value, SmallVector<unsigned, 4>> resizedDims;
  DenseSet<Value> changed;
  SmallVector<std::pair<Value, Type>> oldTypes;
  SmallVector<std::tuple<Operation *, StringAttr, Attribute>> oldAttrs;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ShrinkShapesPass
    : public stride::impl::ShrinkShapesBase<ShrinkShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (size < 0) {
      func.emitOpError() << "cannot shrink dims to size " << int64_t(size)
                         << ": expected a size of at least 1, or 0 for "
                            "size 1, else half";
      return signalPassFailure();
    }
    FailureOr<SmallVector<DimClass>> classes = findShrinkableDimClasses(func);
    if (failed(classes))
      return signalPassFailure();
    if (dimClass < 0)
      return shrinkEveryClass(func);
    if (dimClass >= static_cast<int64_t>(classes->size())) {
      func.emitOpError() << "has no dim class " << int64_t(dimClass)
                         << " to shrink: it has " << classes->size()
                         << " classes of dims that can shrink (numbered from "
                            "0 in program order)";
      return signalPassFailure();
    }
    if (failed(shrinkOneClass(func, (*classes)[dimClass])))
      signalPassFailure();
  }

  /// The sizes to try for a class of size `classSize`.
  SmallVector<int64_t, 2> sizesFor(int64_t classSize) {
    if (size == 0)
      return shrunkSizes(classSize);
    if (size < classSize)
      return {int64_t(size)};
    return {};
  }

  /// Every class in turn, each to the first of its sizes that verifies.
  void shrinkEveryClass(func::FuncOp func) {
    for (size_t index = 0;;) {
      SmallVector<DimClass> classes = *findShrinkableDimClasses(func);
      if (index >= classes.size())
        return;
      bool vanished = false;
      for (int64_t newSize : sizesFor(classes[index].size))
        if (succeeded(resizeDimClass(func, classes[index], newSize))) {
          vanished = newSize == 1;
          break;
        }
      // A class resized to 1 can shrink no further: the next one takes its
      // number.
      if (!vanished)
        ++index;
    }
  }

  LogicalResult shrinkOneClass(func::FuncOp func, const DimClass &current) {
    SmallVector<int64_t, 2> sizes = sizesFor(current.size);
    if (sizes.empty())
      return func.emitOpError()
             << "cannot shrink dim class " << int64_t(dimClass) << " of size "
             << current.size << " to " << int64_t(size)
             << ": expected a smaller size";
    ResizeRefusal refusal;
    for (int64_t newSize : sizes)
      if (succeeded(resizeDimClass(func, current, newSize, &refusal)))
        return success();
    InFlightDiagnostic diag = func.emitOpError()
                              << "cannot shrink dim class " << int64_t(dimClass)
                              << " of size " << current.size << " to "
                              << sizes.back() << ": " << refusal.message;
    diag.attachNote(current.dims.front().first.getLoc())
        << "the class's first dim is dim " << current.dims.front().second
        << " of this value";
    if (refusal.loc)
      diag.attachNote(*refusal.loc) << "the error is here";
    return diag;
  }
};

} // namespace

FailureOr<SmallVector<DimClass>>
stride::findShrinkableDimClasses(func::FuncOp func) {
  DimTies ties;
  if (failed(ties.collect(func)))
    return failure();
  ties.tieOps(func);
  return ties.shrinkableClasses();
}

LogicalResult stride::resizeDimClass(func::FuncOp func,
                                     const DimClass &dimClass, int64_t size,
                                     ResizeRefusal *refusal) {
  ResizeRefusal ignored;
  return Resize(func, dimClass, size).run(refusal ? *refusal : ignored);
}

SmallVector<int64_t, 2> stride::shrunkSizes(int64_t size) {
  SmallVector<int64_t, 2> sizes{1};
  if (int64_t half = size - size / 2; half > 1)
    sizes.push_back(half);
  return sizes;
}
