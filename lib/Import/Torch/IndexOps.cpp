//===- IndexOps.cpp - Scatter and gather ops ------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's scatters and gathers: slice_scatter, select_scatter,
// index_select, gather, embedding, index.Tensor, index_add, scatter,
// scatter_add and index_put, the last ones as index_select, index_add or
// scatter over flattened indices.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"
#include "stride/Support/SymbolicLayout.h"

using namespace mlir;

namespace stride::torch {

namespace {

//===----------------------------------------------------------------------===//
// Scatters and gathers
//===----------------------------------------------------------------------===//

LogicalResult sliceScatter(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<Value> src = succeeded(x) ? n.tensor("src") : Fail();
  FailureOr<SliceBounds> b = succeeded(src) ? sliceBounds(n, *x) : Fail();
  if (failed(b))
    return failure();
  n.setOutput(0, SliceScatterOp::create(n.b(), n.location(), n.outputType(),
                                        *x, *src, b->dim, b->start, b->end,
                                        b->step));
  return success();
}

LogicalResult selectScatter(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<Value> src = succeeded(x) ? n.tensor("src") : Fail();
  auto di = succeeded(src) ? selectIndex(n, *x) : Fail();
  if (failed(di))
    return failure();
  n.setOutput(0, SelectScatterOp::create(n.b(), n.location(), n.outputType(),
                                         *x, *src, di->first, di->second));
  return success();
}

/// The `self`, `index` and `dim` arguments of a gather or scatter.
struct IndexedArgs {
  Value self, index;
  uint64_t dim;
};
FailureOr<IndexedArgs> indexedArgs(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<Value> index = succeeded(x) ? n.tensor("index") : Fail();
  FailureOr<int64_t> dim =
      succeeded(index) ? n.dim("dim", rankOf(*x), std::nullopt) : Fail();
  if (failed(dim))
    return failure();
  return IndexedArgs{*x, *index, static_cast<uint64_t>(*dim)};
}

template <typename OpTy> LogicalResult indexed(NodeImporter &n) {
  FailureOr<IndexedArgs> a = indexedArgs(n);
  if (failed(a))
    return failure();
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), a->self,
                              a->index, a->dim));
  return success();
}

SizeExprs constants(ArrayRef<int64_t> sizes) {
  SizeExprs exprs;
  for (int64_t size : sizes)
    exprs.push_back(SizeExpr::constant(size));
  return exprs;
}

/// The size `size` as an i64 tensor of shape []: the constant, or for an
/// expression of symbols the sum of a [size] tensor of ones (the dialect
/// has no op that makes a tensor of a symbol's value).
Value sizeTensor(NodeImporter &n, const SizeExpr &size) {
  if (std::optional<int64_t> value = size.getConstant())
    return n.scalarTensor(static_cast<double>(*value), DType::I64);
  Value ones = FullOp::create(n.b(), n.location(),
                              n.contiguousOf({size}, DType::I64),
                              n.b().getF64FloatAttr(1.0));
  int64_t dims[] = {0};
  return SumOp::create(n.b(), n.location(), n.contiguousOf({}, DType::I64),
                       ones, dims, false);
}

/// The index tensors, each broadcast to `broadcastShape`, linearized
/// row-major over dims of sizes `sizes` (one per index), in i64.
FailureOr<Value> linearize(NodeImporter &n, ArrayRef<Value> indices,
                           ArrayRef<SizeExpr> sizes,
                           const SizeExprs &broadcastShape) {
  StridedTensorType linearType = n.contiguousOf(broadcastShape, DType::I64);
  Value linear;
  SizeExpr scale = SizeExpr::constant(1);
  for (int64_t j = indices.size() - 1; j >= 0; --j) {
    FailureOr<Value> idx = n.conformTo(indices[j], DType::I64, broadcastShape);
    if (failed(idx))
      return failure();
    Value term = *idx;
    if (scale != SizeExpr::constant(1)) {
      FailureOr<Value> factor =
          n.broadcastTo(sizeTensor(n, scale), broadcastShape);
      if (failed(factor))
        return failure();
      term = MulOp::create(n.b(), n.location(), linearType, term, *factor);
    }
    linear = linear ? AddOp::create(n.b(), n.location(), linearType, linear, term).getResult()
                    : n.toType(term, linearType);
    std::optional<SizeExpr> next = scale.times(sizes[j]);
    if (!next)
      return n.error() << "index.Tensor: the number of indexed elements "
                          "overflows int64";
    scale = *next;
  }
  return linear;
}

/// The index tensors of index.Tensor (no None).
FailureOr<std::vector<Value>> indexTensors(NodeImporter &n) {
  const Argument *list = n.arg("indices");
  if (!list || (list->kind != Argument::Kind::Tensors &&
                list->kind != Argument::Kind::OptionalTensors))
    return n.error() << "index.Tensor without a list of index tensors";
  std::vector<Value> indices;
  for (const std::string &name : list->names) {
    FailureOr<Value> v = name.empty() ? FailureOr<Value>(Value())
                                      : n.value(name);
    if (failed(v))
      return failure();
    if (!*v)
      return n.error() << "index.Tensor with a None index (indexing a "
                          "dim after a skipped one) is not supported";
    indices.push_back(*v);
  }
  return indices;
}

/// index.Tensor(self, indices) with k index tensors on the first k dims (no
/// None): the indices broadcast to one shape B and linearized over those
/// dims; an index_select of the rows of self viewed as [n, rest...] by the
/// linear index; viewed back to B + rest. Over symbolic sizes the same, the
/// linearization's factors tensors of the sizes (sizeTensor).
LogicalResult index(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<std::vector<Value>> indices =
      succeeded(self) ? indexTensors(n) : Fail();
  if (failed(indices))
    return failure();
  auto selfType = llvm::cast<StridedTensorType>(self->getType());
  SizeExprs selfShape = symbolicShapeOf(*self);
  int64_t k = indices->size();
  if (k < 1 || k > selfType.getRank())
    return n.error() << k << " index tensors for a tensor of rank "
                     << selfType.getRank();
  SizeExprs out = n.outputSizes();
  int64_t restRank = selfType.getRank() - k;
  if (static_cast<int64_t>(out.size()) < restRank)
    return n.error() << "index.Tensor's result has rank " << out.size();
  SizeExprs broadcastShape(out.begin(), out.end() - restRank);
  ArrayRef<SizeExpr> indexed = ArrayRef<SizeExpr>(selfShape).take_front(k);
  // The linear index over the first k dims, in i64.
  FailureOr<Value> linear = linearize(n, *indices, indexed, broadcastShape);
  std::optional<SizeExpr> count = numElements(broadcastShape);
  std::optional<SizeExpr> scale = numElements(SizeExprs(indexed));
  if (failed(linear) || !count || !scale)
    return failed(linear) ? failure()
                          : n.error() << "index.Tensor: the number of "
                                         "elements overflows int64";
  Value flatIndex = ViewOp::create(
      n.b(), n.location(), n.contiguousOf({*count}, DType::I64), *linear);
  SizeExprs rows = {*scale};
  rows.insert(rows.end(), selfShape.begin() + k, selfShape.end());
  DType dtype = selfType.getDType();
  Value source = n.toType(*self, n.contiguousOf(selfShape, dtype));
  source = ViewOp::create(n.b(), n.location(), n.contiguousOf(rows, dtype),
                          source);
  rows[0] = *count;
  Value selected = IndexSelectOp::create(n.b(), n.location(),
                                         n.contiguousOf(rows, dtype), source,
                                         flatIndex, uint64_t(0));
  Value result = ViewOp::create(n.b(), n.location(),
                                n.contiguousOf(out, dtype), selected);
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

/// embedding(weight, indices): index_select of the weight's rows by the
/// indices, flattened, and viewed back to indices.shape + [dim].
LogicalResult embedding(NodeImporter &n) {
  FailureOr<Value> weight = n.tensor("weight");
  FailureOr<Value> indices = succeeded(weight) ? n.tensor("indices") : Fail();
  if (failed(indices))
    return failure();
  if (rankOf(*weight) != 2)
    return n.error() << "embedding's weight has rank " << rankOf(*weight)
                     << ", expected 2";
  auto indexType = llvm::cast<StridedTensorType>(indices->getType());
  Value flat = flattened(n, *indices);
  SizeExprs rowsShape{symbolicShapeOf(flat)[0], symbolicShapeOf(*weight)[1]};
  DType dtype = n.outputDType();
  Value rows = IndexSelectOp::create(n.b(), n.location(),
                                     n.contiguousOf(rowsShape, dtype),
                                     *weight, flat, uint64_t(0));
  if (indexType.getRank() != 1)
    rows = ViewOp::create(n.b(), n.location(),
                          n.contiguousOf(n.outputSizes(), dtype), rows);
  n.setOutput(0, n.toType(rows, n.outputType()));
  return success();
}

/// index_add(self, dim, index, source, alpha): source times alpha (when not
/// 1) added into the slices of self that index selects along dim.
LogicalResult indexAdd(NodeImporter &n) {
  FailureOr<IndexedArgs> a = indexedArgs(n);
  FailureOr<Value> src = succeeded(a) ? n.tensor("source") : Fail();
  FailureOr<Value> scaled =
      succeeded(src) ? scaledByAlpha(n, *src, n.outputDType()) : Fail();
  if (failed(scaled))
    return failure();
  n.setOutput(0, IndexAddOp::create(n.b(), n.location(), n.outputType(),
                                    a->self, a->index, *scaled, a->dim));
  return success();
}

/// scatter.src / scatter_add (self, dim, index, src), and scatter.value
/// (self, dim, index, value): the value as a full of index's shape.
template <typename OpTy> LogicalResult scatter(NodeImporter &n) {
  FailureOr<IndexedArgs> a = indexedArgs(n);
  if (failed(a))
    return failure();
  FailureOr<Value> src = Fail();
  if (n.arg("value")) {
    FailureOr<double> value = n.scalar("value", std::nullopt);
    if (failed(value))
      return failure();
    src = n.broadcast(n.scalarTensor(*value, n.outputDType()),
                      shapeOf(a->index));
  } else {
    src = n.tensor("src");
  }
  if (failed(src))
    return failure();
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), a->self,
                              a->index, *src, a->dim));
  return success();
}

/// A 1-D i32/i64 index of `count` positions scattered along `dim` of
/// `self`: `src` has self's shape with `dim` of size `count`. accumulate is
/// an index_add along dim (duplicates sum); otherwise a scatter at the index
/// expanded over the other dims (of duplicates, one write wins: PyTorch
/// leaves which undefined). The result has `type`.
Value scatterAlong(NodeImporter &n, Value self, int64_t dim, Value flat,
                   Value src, bool accumulate, StridedTensorType type) {
  if (accumulate)
    return IndexAddOp::create(n.b(), n.location(), type, self, flat, src,
                              uint64_t(dim));
  auto srcType = cast<StridedTensorType>(src.getType());
  auto indexType = cast<StridedTensorType>(flat.getType());
  std::vector<int64_t> column(srcType.getRank(), 1);
  column[dim] = indexType.getNumElements();
  Value spread = ViewOp::create(
      n.b(), n.location(), n.contiguous(column, indexType.getDType()), flat);
  Value expanded = *n.broadcast(spread, srcType.getShape());
  return ScatterOp::create(n.b(), n.location(), type, self, expanded, src,
                           uint64_t(dim));
}

/// The index tensors of index_put: one per leading dim, null for None.
FailureOr<std::vector<Value>> indexList(NodeImporter &n, int64_t rank) {
  const Argument *list = n.arg("indices");
  if (!list || (list->kind != Argument::Kind::Tensors &&
                list->kind != Argument::Kind::OptionalTensors))
    return n.error() << "index_put without a list of index tensors";
  if (list->names.size() > static_cast<size_t>(rank))
    return n.error() << "index_put with " << list->names.size()
                     << " indices into a tensor of rank " << rank;
  std::vector<Value> indices;
  for (const std::string &name : list->names) {
    FailureOr<Value> v = name.empty() ? FailureOr<Value>(Value()) : n.value(name);
    if (failed(v))
      return failure();
    if (*v) {
      DType dtype = cast<StridedTensorType>(v->getType()).getDType();
      if (dtype != DType::I64 && dtype != DType::I32)
        return n.error() << "index_put with an index of type "
                         << dtypeName(dtype)
                         << " is not supported: Stride imports an int32 or "
                            "int64 index (a bool mask selects a number of "
                            "rows known only at run time)";
    }
    indices.push_back(*v);
  }
  return indices;
}

/// The index tensors `indices[first, first + k)` broadcast together and
/// linearized over those dims of `shape` (row-major), flattened to 1-D.
FailureOr<Value> linearIndex(NodeImporter &n, ArrayRef<Value> indices,
                             ArrayRef<int64_t> shape, int64_t first,
                             std::vector<int64_t> &broadcastShape) {
  for (Value index : indices) {
    ArrayRef<int64_t> s = shapeOf(index);
    std::vector<int64_t> merged = broadcastShape;
    if (s.size() > merged.size())
      merged.insert(merged.begin(), s.size() - merged.size(), 1);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &m = merged[merged.size() - s.size() + i];
      if (m != 1 && s[i] != 1 && m != s[i])
        return n.error() << "index_put's index tensors do not broadcast "
                            "together: "
                         << formatDims(broadcastShape) << " and "
                         << formatDims(s);
      m = m == 1 ? s[i] : m;
    }
    broadcastShape = merged;
  }
  if (indices.size() == 1)
    return flattened(n, indices[0]);
  FailureOr<Value> linear =
      linearize(n, indices, constants(shape.slice(first, indices.size())),
                constants(broadcastShape));
  if (failed(linear))
    return failure();
  return flattened(n, *linear);
}

/// index_put(self, indices, values, accumulate) (and _unsafe_index_put):
/// PyTorch's advanced indexing, for index tensors on adjacent dims
/// [d, d + k) (None, a whole dim, before and after them). The index tensors
/// broadcast to B, and self[indices] has the shape s[:d] + B + s[d+k:].
/// Several index tensors are linearized over their dims, which a view of
/// self merges into one (self is copied row-major first when its layout
/// cannot merge them); the values, broadcast to self[indices], are
/// scattered along dim d (scatterAlong) and the result viewed back.
LogicalResult indexPut(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<bool> accumulate =
      succeeded(self) ? n.boolean("accumulate", false) : Fail();
  if (failed(accumulate))
    return failure();
  auto selfType = cast<StridedTensorType>(self->getType());
  FailureOr<std::vector<Value>> list = indexList(n, selfType.getRank());
  if (failed(list))
    return failure();
  std::vector<int64_t> positions;
  for (auto [i, v] : llvm::enumerate(*list))
    if (v)
      positions.push_back(i);
  if (positions.empty())
    return n.error() << "index_put without an index tensor (every index is "
                        "None) is not supported";
  int64_t first = positions.front(), k = positions.size();
  if (positions.back() - first + 1 != k)
    return n.error() << "index_put with index tensors on dims "
                     << formatDims(positions)
                     << ", which a None (whole) dim separates, is not "
                        "supported: Stride imports index tensors on adjacent "
                        "dims";
  ArrayRef<int64_t> shape = selfType.getShape();
  std::vector<int64_t> broadcastShape;
  FailureOr<Value> flat =
      linearIndex(n, ArrayRef<Value>(*list).slice(first, k), shape, first,
                  broadcastShape);
  if (failed(flat))
    return failure();
  int64_t count = 1, merged = 1;
  for (int64_t size : broadcastShape)
    count *= size;
  for (int64_t j = 0; j < k; ++j)
    merged *= shape[first + j];
  // self with dims [first, first + k) merged into one of `merged` elements.
  std::vector<int64_t> mergedShape(shape.begin(), shape.begin() + first);
  mergedShape.push_back(merged);
  mergedShape.insert(mergedShape.end(), shape.begin() + first + k, shape.end());
  Value base = *self;
  if (k > 1) {
    if (!inferView(selfType.getLayout(), mergedShape))
      base = n.toType(base, n.contiguous(shape, selfType.getDType()));
    auto baseType = cast<StridedTensorType>(base.getType());
    Layout view = *inferView(baseType.getLayout(), mergedShape).layout;
    base = ViewOp::create(n.b(), n.location(), baseType.withLayout(view), base);
  }
  // The values broadcast to self[indices], row-major, viewed with the
  // positions as one dim.
  DType dtype = n.outputDType();
  std::vector<int64_t> indexed(shape.begin(), shape.begin() + first);
  indexed.insert(indexed.end(), broadcastShape.begin(), broadcastShape.end());
  indexed.insert(indexed.end(), shape.begin() + first + k, shape.end());
  FailureOr<Value> values = n.tensor("values");
  FailureOr<Value> conformed =
      succeeded(values) ? n.conform(*values, dtype, indexed) : Fail();
  if (failed(conformed))
    return failure();
  std::vector<int64_t> rows = mergedShape;
  rows[first] = count;
  Value src = n.toType(*conformed, n.contiguous(indexed, dtype));
  src = ViewOp::create(n.b(), n.location(), n.contiguous(rows, dtype), src);
  // One index: the scatter gives the node's result as the file lays it out
  // (self's layout, for an update of a state in place). Several: the
  // merged view's layout where it is dense, else row-major, viewed back.
  auto baseType = cast<StridedTensorType>(base.getType());
  StridedTensorType resultType =
      k == 1 ? n.outputType()
      : isDense(baseType.getShape(), baseType.getStrides())
          ? baseType
          : n.contiguous(mergedShape, dtype);
  Value result = scatterAlong(n, base, first, *flat, src, *accumulate,
                              resultType);
  if (k > 1) {
    auto type = cast<StridedTensorType>(result.getType());
    ViewResult back = inferView(type.getLayout(), shape);
    result = back ? ViewOp::create(n.b(), n.location(),
                                   type.withLayout(*back.layout), result)
                        .getResult()
                  : result;
  }
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

/// index_copy(self, dim, index, source): the slices of source written at
/// the positions `index` (1-D, or a scalar) of `dim`: a scatter along dim.
LogicalResult indexCopy(NodeImporter &n) {
  FailureOr<IndexedArgs> a = indexedArgs(n);
  FailureOr<Value> source = succeeded(a) ? n.tensor("source") : Fail();
  if (failed(source))
    return failure();
  auto indexType = cast<StridedTensorType>(a->index.getType());
  if (indexType.getRank() > 1)
    return n.error() << "index_copy with an index of rank "
                     << indexType.getRank() << ", expected 1 (or a scalar)";
  ArrayRef<int64_t> shape = shapeOf(a->self);
  std::vector<int64_t> rows(shape.begin(), shape.end());
  if (!rows.empty())
    rows[a->dim] = indexType.getNumElements();
  DType dtype = n.outputDType();
  FailureOr<Value> src = n.conform(*source, dtype, rows);
  if (rows.empty())
    return n.error() << "index_copy into a tensor of rank 0";
  if (failed(src))
    return failure();
  Value flat = flattened(n, a->index);
  n.setOutput(0, scatterAlong(n, a->self, a->dim, flat, *src,
                              /*accumulate=*/false, n.outputType()));
  return success();
}

/// copy(self, src): src broadcast to self's shape and cast to its dtype, in
/// the layout the file gives the result (self's own values are not read).
LogicalResult copy(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<Value> src = succeeded(self) ? n.tensor("src") : Fail();
  FailureOr<Value> conformed =
      succeeded(src) ? n.conform(*src, n.outputDType(), n.outputShape())
                     : Fail();
  if (failed(conformed))
    return failure();
  n.setOutput(0, n.toType(*conformed, n.outputType()));
  return success();
}

/// Says why the positions of `type` overlap (checkNonOverlapping's
/// verdict), for an in-place write through it.
void explainOverlap(InFlightDiagnostic &diag, StridedTensorType type,
                    const OverlapVerdict &verdict) {
  if (verdict.kind == OverlapVerdict::Kind::ZeroStride)
    diag << "dim " << verdict.dim << " has size "
         << type.getShape()[verdict.dim] << " and stride 0, so all "
         << type.getShape()[verdict.dim]
         << " indices of that dim share one address";
  else if (verdict.kind == OverlapVerdict::Kind::Overlapping)
    diag << "logical indices " << formatDims(verdict.first) << " and "
         << formatDims(verdict.second) << " share one address";
  else
    diag << "Stride cannot prove that its positions are distinct";
}

/// The in-place forms of copy, index_copy and index_put (writtenInPlace).
template <LogicalResult (*functional)(NodeImporter &)>
LogicalResult inPlace(NodeImporter &n) {
  return writtenInPlace(n, "self", functional);
}

} // namespace

LogicalResult writtenInPlace(NodeImporter &n, StringRef written,
                             LogicalResult (*functional)(NodeImporter &)) {
  FailureOr<Value> target = n.tensor(written);
  if (failed(target))
    return failure();
  if (auto view = target->getDefiningOp<ViewOpInterface>()) {
    auto type = cast<StridedTensorType>(target->getType());
    OverlapVerdict verdict =
        checkNonOverlapping(type.getShape(), type.getStrides());
    if (!verdict.ok()) {
      InFlightDiagnostic diag = n.error();
      diag << "in-place write through a view whose positions overlap: ";
      explainOverlap(diag, type, verdict);
      diag << " (a '" << view->getName()
           << "'); an in-place write needs a distinct address for every "
              "element it writes";
      diag.attachNote(view->getLoc()) << "the view written through";
      return diag;
    }
    return n.error() << "in-place write through a view (a '"
                     << view->getName()
                     << "') is not imported: export with "
                        "run_decompositions, which makes the write functional";
  }
  if (failed(functional(n)))
    return failure();
  n.rebind(written, n.output(0));
  return success();
}

/// Adds the builders of scatters and gathers to the table.
void addIndexOps(OpTable &ops) {
  ops.insert({
      // Scatters and gathers.
      {"aten.slice_scatter.default", sliceScatter},
      {"aten.select_scatter.default", selectScatter},
      {"aten.index_select.default", indexed<IndexSelectOp>},
      {"aten.gather.default", indexed<GatherOp>},
      {"aten.embedding.default", embedding},
      {"aten.index.Tensor", index},
      {"aten.index_add.default", indexAdd},
      {"aten.scatter_add.default", scatter<ScatterAddOp>},
      {"aten.scatter.src", scatter<ScatterOp>},
      {"aten.scatter.value", scatter<ScatterOp>},
      {"aten.index_put.default", indexPut},
      {"aten._unsafe_index_put.default", indexPut},
      {"aten.index_copy.default", indexCopy},
      {"aten.copy.default", copy},
      {"aten.copy_.default", inPlace<copy>},
      {"aten.index_copy_.default", inPlace<indexCopy>},
      {"aten.index_put_.default", inPlace<indexPut>},
  });
}

} // namespace stride::torch
