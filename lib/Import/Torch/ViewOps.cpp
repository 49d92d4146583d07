//===- ViewOps.cpp - View and shape ops -----------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's views (view, expand, permute, transpose, unsqueeze,
// squeeze, slice, select, alias, as_strided, split_with_sizes), each a
// stride view op whose result type is the file's, and cat.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

#include <limits>

using namespace mlir;

namespace stride::torch {

int64_t rankOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getRank();
}
llvm::ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getShape();
}
SizeExprs symbolicShapeOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getSymbolicLayout().shape;
}

/// flattened over symbolic sizes: the flat size is the product of the
/// sizes, the view the rule of SymbolicLayout.h.
static Value flattenedSymbolic(NodeImporter &n, Value x) {
  auto type = llvm::cast<StridedTensorType>(x.getType());
  SymbolicLayout layout = type.getSymbolicLayout();
  // A type the verifier accepted has a number of elements below 2^63.
  SizeExprs flat{*numElements(layout.shape)};
  Value base = x;
  if (!inferView(layout, flat))
    base = n.toType(x, n.contiguousOf(layout.shape, type.getDType()));
  auto baseType = llvm::cast<StridedTensorType>(base.getType());
  SymbolicLayout viewed = *inferView(baseType.getSymbolicLayout(), flat).layout;
  return ViewOp::create(n.b(), n.location(),
                        StridedTensorType::get(type.getElementType(), viewed),
                        base);
}

Value flattened(NodeImporter &n, Value x) {
  auto type = llvm::cast<StridedTensorType>(x.getType());
  if (type.getRank() == 1)
    return x;
  if (type.isSymbolic())
    return flattenedSymbolic(n, x);
  std::vector<int64_t> flat{type.getNumElements()};
  Value base = x;
  if (!inferView(type.getLayout(), flat))
    base = n.toType(x, n.contiguous(type.getShape(), type.getDType()));
  auto baseType = llvm::cast<StridedTensorType>(base.getType());
  Layout layout = *inferView(baseType.getLayout(), flat).layout;
  return ViewOp::create(n.b(), n.location(), baseType.withLayout(layout), base);
}

FailureOr<SliceBounds> sliceBounds(NodeImporter &n, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<int64_t> dim = n.dim("dim", rank, 0);
  FailureOr<int64_t> start = succeeded(dim) ? n.integer("start", 0) : Fail();
  FailureOr<int64_t> end = succeeded(start)
      ? n.integer("end", std::numeric_limits<int64_t>::max()) : Fail();
  FailureOr<int64_t> step = succeeded(end) ? n.integer("step", 1) : Fail();
  if (failed(step))
    return failure();
  if (*step < 1)
    return n.error() << "slice step " << *step << " is not positive";
  int64_t size = shapeOf(x)[*dim];
  auto clamp = [&](int64_t i) {
    if (i < 0)
      i = i < -size ? 0 : i + size;
    return std::min(i, size);
  };
  int64_t s = clamp(*start), e = std::max(clamp(*end), clamp(*start));
  return SliceBounds{*dim, s, e, *step};
}

FailureOr<std::pair<int64_t, int64_t>> selectIndex(NodeImporter &n, Value x) {
  FailureOr<int64_t> dim = n.dim("dim", rankOf(x), std::nullopt);
  FailureOr<int64_t> index =
      succeeded(dim) ? n.integer("index", std::nullopt) : Fail();
  if (failed(index))
    return failure();
  SizeExpr symbolicSize = symbolicShapeOf(x)[*dim];
  if (!symbolicSize.isConstant()) {
    // The verifier proves the index within the dim over the ranges.
    if (*index < 0)
      return n.error() << "select index " << *index
                       << " counts from the end of a dim of symbolic size "
                       << symbolicSize.str()
                       << "; Stride selects from the start of such a dim";
    return std::make_pair(*dim, *index);
  }
  int64_t size = shapeOf(x)[*dim];
  int64_t i = *index < 0 ? *index + size : *index;
  if (i < 0 || i >= size)
    return n.error() << "select index " << *index << " is out of range for "
                     << "a dim of size " << size;
  return std::make_pair(*dim, i);
}

namespace {

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

/// A view op whose result type is the file's (its verifier checks it against
/// the layout Stride computes).
template <typename OpTy, typename... Args>
LogicalResult view(NodeImporter &n, Value input, Args... args) {
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), input,
                              args...));
  return success();
}

/// A view whose every parameter is in its result type (view, expand,
/// as_strided).
template <typename OpTy> LogicalResult typedView(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  return view<OpTy>(n, *x);
}

LogicalResult permute(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<std::vector<int64_t>> dims =
      succeeded(x) ? n.integers("dims", std::nullopt) : Fail();
  if (failed(dims))
    return failure();
  int64_t rank = rankOf(*x);
  for (int64_t &d : *dims)
    if (d < 0)
      d += rank;
  return view<PermuteOp>(n, *x, llvm::ArrayRef<int64_t>(*dims));
}

LogicalResult transpose(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> d0 = n.dim("dim0", rank, 0);
  FailureOr<int64_t> d1 = succeeded(d0) ? n.dim("dim1", rank, 1) : Fail();
  if (failed(d1))
    return failure();
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(i == *d0 ? *d1 : i == *d1 ? *d0 : i);
  return view<PermuteOp>(n, *x, llvm::ArrayRef<int64_t>(dims));
}

LogicalResult unsqueeze(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(x) ? n.dim("dim", rankOf(*x) + 1, std::nullopt) : Fail();
  if (failed(dim))
    return failure();
  return view<UnsqueezeOp>(n, *x, static_cast<uint64_t>(*dim));
}

/// squeeze.dims / squeeze.dim / squeeze.default: PyTorch keeps a listed dim
/// whose size is not 1, so only the size-1 ones are removed.
LogicalResult squeeze(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  std::vector<int64_t> all;
  for (int64_t i = 0; i < rank; ++i)
    all.push_back(i);
  FailureOr<std::vector<int64_t>> listed =
      n.arg("dim") ? n.integers("dim", std::nullopt) : all;
  if (failed(listed))
    return failure();
  std::vector<int64_t> dims;
  for (int64_t d : *listed) {
    int64_t nd = d < 0 ? d + std::max<int64_t>(rank, 1) : d;
    if (nd < 0 || nd >= std::max<int64_t>(rank, 1))
      return n.error() << "dim " << d << " is out of range for rank " << rank;
    if (rank > 0 && shapeOf(*x)[nd] == 1 && !llvm::is_contained(dims, nd))
      dims.push_back(nd);
  }
  llvm::sort(dims);
  return view<SqueezeOp>(n, *x, llvm::ArrayRef<int64_t>(dims));
}

/// A bound of a slice of a dim of symbolic size `size`, normalized as
/// PyTorch does: a constant below 0 counts from the end, and the largest
/// int64 (Python's `x[a:]`) is the end.
std::optional<SizeExpr> normalizedBound(const SizeExpr &bound,
                                        const SizeExpr &size) {
  std::optional<int64_t> value = bound.getConstant();
  if (value == std::numeric_limits<int64_t>::max())
    return size;
  if (value && *value < 0)
    return size.plus(bound);
  return bound;
}

/// slice of a dim of symbolic size: the whole dim (start 0, to its end,
/// step 1) is the operand itself; otherwise a stride.slice whose bounds may
/// be expressions (SymInts), which its verifier proves within the dim over
/// the ranges. PyTorch clamps a bound to the dim; Stride does not (a bound
/// outside the dim for some value of the symbols is refused there).
LogicalResult symbolicSlice(NodeImporter &n, Value x, int64_t dim) {
  SizeExpr size = symbolicShapeOf(x)[dim];
  constexpr int64_t kToTheEnd = std::numeric_limits<int64_t>::max();
  FailureOr<SizeExpr> start = n.size("start", 0);
  FailureOr<SizeExpr> end = succeeded(start) ? n.size("end", kToTheEnd) : Fail();
  FailureOr<int64_t> step = succeeded(end) ? n.integer("step", 1) : Fail();
  if (failed(step))
    return failure();
  std::optional<SizeExpr> from = normalizedBound(*start, size);
  std::optional<SizeExpr> to = normalizedBound(*end, size);
  if (!from || !to)
    return n.error() << "slice of dim " << dim << " of symbolic size "
                     << size.str() << ": a bound from the end overflows";
  if (from->getConstant() == 0 && *to == size && *step == 1) {
    n.setOutput(0, n.toType(x, n.outputType()));
    return success();
  }
  n.setOutput(0, SliceOp::create(n.b(), n.location(), n.outputType(), x, dim,
                                 *from, *to, *step));
  return success();
}

/// Whether a bound of a slice is a SymInt of symbolic value (a slice of a
/// static dim then has a symbolic size or offset: symbolicSlice).
FailureOr<bool> hasSymbolicBound(NodeImporter &n) {
  for (llvm::StringRef name : {"start", "end"}) {
    const Argument *bound = n.arg(name);
    if (!bound || bound->kind != Argument::Kind::Int ||
        bound->symbols.empty() || bound->symbols.front().empty())
      continue;
    FailureOr<SizeExpr> value = n.size(name, std::nullopt);
    if (failed(value))
      return failure();
    if (!value->isConstant())
      return true;
  }
  return false;
}

LogicalResult slice(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(x) ? n.dim("dim", rankOf(*x), 0) : Fail();
  if (failed(dim))
    return failure();
  FailureOr<bool> symbolicBound = hasSymbolicBound(n);
  if (failed(symbolicBound))
    return failure();
  if (!symbolicShapeOf(*x)[*dim].isConstant() || *symbolicBound)
    return symbolicSlice(n, *x, *dim);
  FailureOr<SliceBounds> b = sliceBounds(n, *x);
  if (failed(b))
    return failure();
  return view<SliceOp>(n, *x, static_cast<uint64_t>(b->dim),
                       static_cast<uint64_t>(b->start),
                       static_cast<uint64_t>(b->end),
                       static_cast<uint64_t>(b->step));
}

LogicalResult select(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  auto di = succeeded(x) ? selectIndex(n, *x) : Fail();
  if (failed(di))
    return failure();
  return view<SelectOp>(n, *x, static_cast<uint64_t>(di->first),
                        static_cast<uint64_t>(di->second));
}

LogicalResult alias(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  if (!llvm::cast<StridedTensorType>(x->getType()).isEquivalentTo(n.outputType()))
    return n.error() << "alias: the file gives the result the type "
                     << n.outputType() << ", its operand has " << x->getType();
  n.setOutput(0, *x);
  return success();
}

LogicalResult splitWithSizes(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(x) ? n.dim("dim", rankOf(*x), 0) : Fail();
  FailureOr<std::vector<int64_t>> sizes =
      succeeded(dim) ? n.integers("split_sizes", std::nullopt) : Fail();
  if (failed(sizes))
    return failure();
  if (sizes->size() != n.numOutputs())
    return n.error() << sizes->size() << " split sizes for "
                     << n.numOutputs() << " outputs";
  if (!symbolicShapeOf(*x)[*dim].isConstant())
    return n.error() << "split of dim " << *dim << " of symbolic size "
                     << symbolicShapeOf(*x)[*dim].str()
                     << ": Stride splits dims of static size";
  int64_t start = 0;
  for (size_t i = 0; i < sizes->size(); ++i) {
    int64_t end = start + (*sizes)[i];
    if ((*sizes)[i] < 0 || end > shapeOf(*x)[*dim])
      return n.error() << "split sizes exceed the dim's size "
                       << shapeOf(*x)[*dim];
    n.setOutput(i, SliceOp::create(n.b(), n.location(), n.outputType(i), *x,
                                   *dim, start, end, uint64_t(1)));
    start = end;
  }
  return success();
}

/// Whether cat skips `input` for a result of rank `rank`: PyTorch's legacy
/// rule skips 1-D inputs of size 0 whatever the result's rank (transformers'
/// GPT2Model concatenates its empty default cache so); for a result of rank
/// 1 they are ordinary inputs of size 0.
bool skippedByCat(Value input, int64_t rank) {
  return rank != 1 && shapeOf(input) == llvm::ArrayRef<int64_t>{0};
}

/// cat(tensors, dim): each input cast to the result's dtype; 1-D inputs of
/// size 0 dropped (skippedByCat).
LogicalResult concatenate(NodeImporter &n) {
  const Argument *list = n.arg("tensors");
  if (!list || list->kind != Argument::Kind::Tensors || list->names.empty())
    return n.error() << "cat without a list of tensors";
  int64_t rank = n.outputType().getRank();
  FailureOr<int64_t> dim = n.dim("dim", rank, 0);
  if (failed(dim))
    return failure();
  SmallVector<Value> inputs;
  for (const std::string &name : list->names) {
    FailureOr<Value> v = n.value(name);
    if (failed(v))
      return failure();
    if (!skippedByCat(*v, rank))
      inputs.push_back(n.cast(*v, n.outputDType()));
  }
  if (inputs.empty())
    return n.error() << "cat: every input is a 1-D tensor of size 0, which "
                        "cat skips, but the result has rank "
                     << rank;
  n.setOutput(0, CatOp::create(n.b(), n.location(), n.outputType(), inputs,
                               n.b().getI64IntegerAttr(*dim)));
  return success();
}

/// diagonal(self, offset=0, dim1=0, dim2=1): a view of the elements
/// (i, i + offset) of dims dim1 and dim2 (offset < 0: (i - offset, i)) as
/// the last dim, stride dim1's plus dim2's; its layout from the operand's,
/// copied into the file's where that differs.
LogicalResult diagonal(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> offset = n.integer("offset", 0);
  FailureOr<int64_t> dim1 = succeeded(offset) ? n.dim("dim1", rank, 0) : Fail();
  FailureOr<int64_t> dim2 = succeeded(dim1) ? n.dim("dim2", rank, 1) : Fail();
  if (failed(dim2))
    return failure();
  if (*dim1 == *dim2)
    return n.error() << "diagonal dims " << *dim1 << " and " << *dim2
                     << " are the same dim";
  if (std::abs(*offset) > kMaxElements)
    return n.error() << "diagonal offset " << *offset << " is beyond Stride's "
                     << "limit of " << kMaxElements << " elements";
  auto type = llvm::cast<StridedTensorType>(x->getType());
  const Layout &in = type.getLayout();
  Layout out;
  out.offset = in.offset;
  for (int64_t d = 0; d < rank; ++d)
    if (d != *dim1 && d != *dim2) {
      out.shape.push_back(in.shape[d]);
      out.strides.push_back(in.strides[d]);
    }
  int64_t rowStart = std::max<int64_t>(-*offset, 0);
  int64_t columnStart = std::max<int64_t>(*offset, 0);
  int64_t length = std::max<int64_t>(
      0, std::min(in.shape[*dim1] - rowStart, in.shape[*dim2] - columnStart));
  if (length > 0)
    out.offset += rowStart * in.strides[*dim1] + columnStart * in.strides[*dim2];
  out.shape.push_back(length);
  out.strides.push_back(in.strides[*dim1] + in.strides[*dim2]);
  Value view = AsStridedOp::create(n.b(), n.location(), type.withLayout(out), *x);
  n.setOutput(0, view.getType() == n.outputType()
                     ? view
                     : n.toType(view, n.outputType()));
  return success();
}

/// A node's `self` and its integer list argument `name`.
FailureOr<std::pair<Value, std::vector<int64_t>>>
selfAndIntegers(NodeImporter &n, llvm::StringRef name) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<std::vector<int64_t>> list =
      succeeded(x) ? n.integers(name, std::nullopt) : Fail();
  if (failed(list))
    return failure();
  return std::make_pair(*x, *list);
}

/// flip(self, dims): an index_select of each listed dim by the reversed
/// indices size - 1 - i.
LogicalResult flip(NodeImporter &n) {
  auto args = selfAndIntegers(n, "dims");
  if (failed(args))
    return failure();
  Value *x = &args->first;
  std::vector<int64_t> *dims = &args->second;
  int64_t rank = rankOf(*x);
  DType dtype = llvm::cast<StridedTensorType>(x->getType()).getDType();
  Value result = *x;
  for (int64_t d : *dims) {
    if (d < -rank || d >= rank)
      return n.error() << "flip dim " << d << " is out of range for rank " << rank;
    d = d < 0 ? d + rank : d;
    int64_t size = shapeOf(result)[d];
    StridedTensorType indexType = n.contiguous({size}, DType::I64);
    Value iota = IotaOp::create(n.b(), n.location(), indexType, uint64_t(0));
    FailureOr<Value> last = n.broadcast(n.scalarTensor(double(size - 1), DType::I64),
                                        {size});
    if (failed(last))
      return failure();
    Value reversed = SubOp::create(n.b(), n.location(), indexType, *last, iota);
    result = IndexSelectOp::create(n.b(), n.location(),
                                   n.contiguous(shapeOf(result), dtype), result,
                                   reversed, uint64_t(d));
  }
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

/// repeat(self, repeats): the operand (with leading dims of size 1 where
/// repeats is longer) viewed as [1, s0, 1, s1, ...], expanded to
/// [r0, s0, r1, s1, ...], copied row-major and viewed as [r0 s0, r1 s1, ...].
LogicalResult repeat(NodeImporter &n) {
  auto args = selfAndIntegers(n, "repeats");
  if (failed(args))
    return failure();
  Value *x = &args->first;
  std::vector<int64_t> *repeats = &args->second;
  ArrayRef<int64_t> shape = shapeOf(*x);
  if (repeats->size() < shape.size())
    return n.error() << "repeat: " << repeats->size()
                     << " repeats for a tensor of rank " << shape.size();
  DType dtype = llvm::cast<StridedTensorType>(x->getType()).getDType();
  size_t lead = repeats->size() - shape.size();
  std::vector<int64_t> interleaved, expanded, repeated;
  for (size_t i = 0; i < repeats->size(); ++i) {
    if ((*repeats)[i] < 0)
      return n.error() << "repeat: repeats[" << i << "] is " << (*repeats)[i];
    int64_t size = i < lead ? 1 : shape[i - lead];
    interleaved.insert(interleaved.end(), {1, size});
    expanded.insert(expanded.end(), {(*repeats)[i], size});
  }
  if (!checkedNumElements(expanded))
    return n.error() << "repeat: " << formatDims(*repeats) << " copies of "
                     << formatDims(shape) << " are beyond Stride's limit of "
                     << kMaxElements << " elements";
  for (size_t i = 0; i < repeats->size(); ++i)
    repeated.push_back(expanded[2 * i] * expanded[2 * i + 1]);
  // The archive's output must be the repeated shape (a malformed one would
  // not be a view of the copies).
  if (failed(expectOutputShape(n, 0, repeated)))
    return failure();
  Value dense = n.toType(*x, n.contiguous(shape, dtype));
  auto denseType = llvm::cast<StridedTensorType>(dense.getType());
  Value pairs = ViewOp::create(
      n.b(), n.location(),
      denseType.withLayout(*inferView(denseType.getLayout(), interleaved).layout),
      dense);
  FailureOr<Value> broadcast = n.broadcast(pairs, expanded);
  if (failed(broadcast))
    return failure();
  Value copied = CloneOp::create(n.b(), n.location(),
                                 n.contiguous(expanded, dtype), *broadcast);
  auto copiedType = llvm::cast<StridedTensorType>(copied.getType());
  Value result = ViewOp::create(
      n.b(), n.location(),
      copiedType.withLayout(
          *inferView(copiedType.getLayout(), repeated).layout),
      copied);
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

} // namespace

/// Adds the builders of views and cat to the table.
void addViewOps(OpTable &ops) {
  ops.insert({
      // Views.
      {"aten.view.default", typedView<ViewOp>},
      {"aten._unsafe_view.default", typedView<ViewOp>},
      {"aten.expand.default", typedView<ExpandOp>},
      {"aten.permute.default", permute},
      {"aten.transpose.int", transpose},
      {"aten.unsqueeze.default", unsqueeze},
      {"aten.squeeze.dims", squeeze},
      {"aten.squeeze.dim", squeeze},
      {"aten.squeeze.default", squeeze},
      {"aten.slice.Tensor", slice},
      {"aten.select.int", select},
      {"aten.alias.default", alias},
      {"aten.as_strided.default", typedView<AsStridedOp>},
      {"aten.diagonal.default", diagonal},
      {"aten.flip.default", flip},
      {"aten.repeat.default", repeat},
      {"aten.split_with_sizes.default", splitWithSizes},
      {"aten.cat.default", concatenate},
  });
}

} // namespace stride::torch
