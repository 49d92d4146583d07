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

/// index.Tensor(self, indices) with k index tensors on the first k dims (no
/// None): the indices broadcast to one shape B and linearized over those
/// dims; an index_select of the rows of self viewed as [n, rest...] by the
/// linear index; viewed back to B + rest.
LogicalResult index(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  if (failed(self))
    return failure();
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
  auto selfType = llvm::cast<StridedTensorType>(self->getType());
  int64_t k = indices.size();
  if (k < 1 || k > selfType.getRank())
    return n.error() << k << " index tensors for a tensor of rank "
                     << selfType.getRank();
  llvm::ArrayRef<int64_t> out = n.outputShape();
  int64_t restRank = selfType.getRank() - k;
  if (static_cast<int64_t>(out.size()) < restRank)
    return n.error() << "index.Tensor's result has rank " << out.size();
  std::vector<int64_t> broadcastShape(out.begin(), out.end() - restRank);
  // The linear index over the first k dims, in i64.
  StridedTensorType linearType = n.contiguous(broadcastShape, DType::I64);
  Value linear;
  int64_t scale = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    FailureOr<Value> idx = n.conform(indices[j], DType::I64, broadcastShape);
    if (failed(idx))
      return failure();
    Value term = *idx;
    if (scale != 1) {
      Value factor = *n.broadcast(n.scalarTensor(scale, DType::I64), broadcastShape);
      term = MulOp::create(n.b(), n.location(), linearType, term, factor);
    }
    linear = linear ? AddOp::create(n.b(), n.location(), linearType, linear, term).getResult()
                    : n.toType(term, linearType);
    scale *= selfType.getShape()[j];
  }
  int64_t count = linearType.getNumElements();
  Value flatIndex = ViewOp::create(n.b(), n.location(),
                                   n.contiguous({count}, DType::I64), linear);
  std::vector<int64_t> rows = {scale};
  rows.insert(rows.end(), selfType.getShape().begin() + k, selfType.getShape().end());
  Value source = n.toType(*self, n.contiguous(selfType.getShape(), selfType.getDType()));
  source = ViewOp::create(n.b(), n.location(),
                          n.contiguous(rows, selfType.getDType()), source);
  rows[0] = count;
  Value selected = IndexSelectOp::create(n.b(), n.location(),
                                         n.contiguous(rows, selfType.getDType()),
                                         source, flatIndex, uint64_t(0));
  Value result = ViewOp::create(n.b(), n.location(),
                                n.contiguous(out, selfType.getDType()), selected);
  n.setOutput(0, n.toType(result, n.outputType()));
  return success();
}

/// `indices` as a 1-D tensor: itself, or a row-major copy viewed flat.
Value flattened(NodeImporter &n, Value indices) {
  auto type = llvm::cast<StridedTensorType>(indices.getType());
  if (type.getRank() == 1)
    return indices;
  Value flat = indices;
  if (!isRowMajor(type.getLayout()))
    flat = CloneOp::create(n.b(), n.location(),
                           n.contiguous(type.getShape(), type.getDType()), flat);
  return ViewOp::create(n.b(), n.location(),
                        n.contiguous({type.getNumElements()}, type.getDType()),
                        flat);
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
  int64_t count = indexType.getNumElements();
  Value flat = flattened(n, *indices);
  int64_t width = shapeOf(*weight)[1];
  DType dtype = n.outputDType();
  Value rows = IndexSelectOp::create(n.b(), n.location(),
                                     n.contiguous({count, width}, dtype),
                                     *weight, flat, uint64_t(0));
  if (indexType.getRank() != 1)
    rows = ViewOp::create(n.b(), n.location(),
                          n.contiguous(n.outputShape(), dtype), rows);
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

/// index_put(self, indices, values, accumulate) (and _unsafe_index_put)
/// with one index tensor, on dim 0: the index flattened to the positions
/// P and values broadcast to [P, rest...]; accumulate=True is an index_add
/// along dim 0 (what embedding_dense_backward decomposes to), False a
/// scatter of the values at the index expanded over the other dims.
LogicalResult indexPut(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<bool> accumulate =
      succeeded(self) ? n.boolean("accumulate", false) : Fail();
  if (failed(accumulate))
    return failure();
  const Argument *list = n.arg("indices");
  if (!list || (list->kind != Argument::Kind::Tensors &&
                list->kind != Argument::Kind::OptionalTensors))
    return n.error() << "index_put without a list of index tensors";
  if (list->names.size() != 1 || list->names[0].empty())
    return n.error() << "index_put with " << list->names.size()
                     << " index tensors (or a None index) is not supported: "
                        "Stride imports one index tensor on dim 0";
  FailureOr<Value> index = n.value(list->names[0]);
  if (failed(index))
    return failure();
  auto indexType = llvm::cast<StridedTensorType>(index->getType());
  if (indexType.getDType() != DType::I64 && indexType.getDType() != DType::I32)
    return n.error() << "index_put with an index of type "
                     << dtypeName(indexType.getDType())
                     << " is not supported: Stride imports an int32 or int64 "
                        "index (a bool mask selects a number of rows known "
                        "only at run time)";
  auto selfType = llvm::cast<StridedTensorType>(self->getType());
  if (selfType.getRank() < 1)
    return n.error() << "index_put into a tensor of rank 0";
  int64_t count = indexType.getNumElements();
  Value flat = flattened(n, *index);
  DType dtype = n.outputDType();
  std::vector<int64_t> sliced(indexType.getShape().begin(),
                              indexType.getShape().end());
  sliced.insert(sliced.end(), selfType.getShape().begin() + 1,
                selfType.getShape().end());
  FailureOr<Value> values = n.tensor("values");
  FailureOr<Value> conformed =
      succeeded(values) ? n.conform(*values, dtype, sliced) : Fail();
  if (failed(conformed))
    return failure();
  std::vector<int64_t> rows = {count};
  rows.insert(rows.end(), selfType.getShape().begin() + 1,
              selfType.getShape().end());
  Value src = n.toType(*conformed, n.contiguous(sliced, dtype));
  src = ViewOp::create(n.b(), n.location(), n.contiguous(rows, dtype), src);
  if (*accumulate) {
    n.setOutput(0, IndexAddOp::create(n.b(), n.location(), n.outputType(),
                                      *self, flat, src, uint64_t(0)));
    return success();
  }
  // scatter's index has the rank of self: [P, 1, ...] expanded to [P, rest...].
  std::vector<int64_t> column(rows.size(), 1);
  column[0] = count;
  Value spread = ViewOp::create(
      n.b(), n.location(), n.contiguous(column, indexType.getDType()), flat);
  FailureOr<Value> expanded = n.broadcast(spread, rows);
  if (failed(expanded))
    return failure();
  n.setOutput(0, ScatterOp::create(n.b(), n.location(), n.outputType(), *self,
                                   *expanded, src, uint64_t(0)));
  return success();
}

} // namespace

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
  });
}

} // namespace stride::torch
