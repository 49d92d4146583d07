//===- Ops.cpp - The op table: aten targets to stride ops -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One builder per aten overload. Omitted arguments take the overload's
// default (torch writes only the arguments that differ from it). PyTorch's
// implicit broadcasting and type promotion become stride.expand and
// stride.cast; scalars become rank-0 stride.full. The last op of a node's
// output gets the type the file gives that output.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "stride/Support/Layout.h"

#include <limits>
#include <map>

using namespace mlir;

namespace stride::torch {

namespace {

using Fn = LogicalResult (*)(NodeImporter &);

//===----------------------------------------------------------------------===//
// Type promotion
//===----------------------------------------------------------------------===//

int category(DType t) { return t == DType::I1 ? 0 : isFloat(t) ? 2 : 1; }

/// torch.result_type of two operands of a binary op: a dimensioned tensor's
/// dtype wins over a rank-0 tensor's and a scalar's unless they are of a
/// higher category (bool < integer < float), where a rank-0 tensor gives its
/// dtype and a scalar the default (f32 for a float, i64 for an int).
DType promote(NodeImporter &n, llvm::StringRef lhs, llvm::StringRef rhs) {
  struct Operand { DType dtype; int priority; }; // 2 dimensioned, 1 rank-0, 0 scalar
  auto describe = [&](llvm::StringRef name) -> Operand {
    if (n.isTensor(name)) {
      FailureOr<Value> v = n.tensor(name);
      if (failed(v)) // operands() reports it
        return {DType::F32, 2};
      auto type = llvm::cast<StridedTensorType>(v->getType());
      return {type.getDType(), type.getRank() > 0 ? 2 : 1};
    }
    if (n.isFloatScalar(name))
      return {DType::F32, 0};
    const Argument *a = n.arg(name);
    bool isBool = a && a->kind == Argument::Kind::Bool;
    return {isBool ? DType::I1 : DType::I64, 0};
  };
  Operand a = describe(lhs), b = describe(rhs);
  if (a.priority < b.priority)
    std::swap(a, b);
  if (a.priority == b.priority) {
    if (a.dtype == b.dtype) return a.dtype;
    if (category(a.dtype) != category(b.dtype))
      return category(a.dtype) > category(b.dtype) ? a.dtype : b.dtype;
    return dtypeSize(a.dtype) >= dtypeSize(b.dtype) ? a.dtype : b.dtype;
  }
  return category(b.dtype) > category(a.dtype) ? b.dtype : a.dtype;
}

//===----------------------------------------------------------------------===//
// Pointwise
//===----------------------------------------------------------------------===//

template <typename OpTy> LogicalResult unary(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  Value input = n.cast(*x, n.outputDType());
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), input));
  return success();
}

LogicalResult logicalNot(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  Value input = n.cast(*x, DType::I1);
  Value result = NotOp::create(n.b(), n.location(),
                               n.contiguous(n.outputShape(), DType::I1), input);
  n.setOutput(0, n.toType(n.cast(result, n.outputDType()), n.outputType()));
  return success();
}

LogicalResult gelu(NodeImporter &n) {
  FailureOr<std::string> approximate = n.string("approximate", "none");
  if (failed(approximate))
    return failure();
  if (*approximate == "tanh")
    return unary<GeluTanhOp>(n);
  if (*approximate != "none")
    return n.error() << "gelu approximate='" << *approximate
                     << "' is not 'none' or 'tanh'";
  return unary<GeluOp>(n);
}

/// Both operands cast to `dtype` and broadcast to the output's shape.
FailureOr<std::pair<Value, Value>> operands(NodeImporter &n,
                                            llvm::StringRef lhs,
                                            llvm::StringRef rhs, DType dtype) {
  FailureOr<Value> a = n.tensorOrScalar(lhs, dtype);
  FailureOr<Value> b = succeeded(a) ? n.tensorOrScalar(rhs, dtype) : Fail();
  if (failed(b))
    return failure();
  FailureOr<Value> ca = n.conform(*a, dtype, n.outputShape());
  FailureOr<Value> cb = succeeded(ca) ? n.conform(*b, dtype, n.outputShape())
                                      : Fail();
  if (failed(cb))
    return failure();
  return std::make_pair(*ca, *cb);
}

/// The `alpha` of add and sub, multiplied into `other`.
FailureOr<Value> scaledByAlpha(NodeImporter &n, Value other, DType dtype) {
  FailureOr<double> alpha = n.scalar("alpha", 1.0);
  if (failed(alpha))
    return failure();
  if (*alpha == 1.0)
    return other;
  FailureOr<Value> factor =
      n.broadcast(n.scalarTensor(*alpha, dtype),
                  llvm::cast<StridedTensorType>(other.getType()).getShape());
  if (failed(factor))
    return failure();
  return MulOp::create(
             n.b(), n.location(),
             n.contiguous(
                 llvm::cast<StridedTensorType>(other.getType()).getShape(),
                 dtype),
             other, *factor)
      .getResult();
}

/// The names of a binary op's second operand: `other`, and pow's
/// `exponent`.
constexpr char kOther[] = "other";
constexpr char kExponent[] = "exponent";

template <typename OpTy, bool hasAlpha = false, const char *rhsName = kOther>
LogicalResult binary(NodeImporter &n) {
  DType dtype = n.outputDType();
  auto ops = operands(n, "self", rhsName, dtype);
  if (failed(ops))
    return failure();
  Value rhs = ops->second;
  if constexpr (hasAlpha) {
    FailureOr<Value> scaled = scaledByAlpha(n, rhs, dtype);
    if (failed(scaled))
      return failure();
    rhs = *scaled;
  }
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), ops->first,
                              rhs));
  return success();
}

LogicalResult divide(NodeImporter &n) {
  FailureOr<std::string> mode = n.string("rounding_mode", "");
  if (failed(mode))
    return failure();
  if (!mode->empty() && (*mode != "trunc" || isFloat(n.outputDType())))
    return n.error() << "div with rounding_mode='" << *mode
                     << "' on " << dtypeName(n.outputDType())
                     << " is not supported (Stride's div is true division "
                        "on floats, truncating on integers)";
  if (mode->empty() && !isFloat(n.outputDType()))
    return n.error() << "true division with an integer result";
  return binary<DivOp>(n);
}

template <CmpPredicate predicate> LogicalResult compare(NodeImporter &n) {
  DType dtype = promote(n, "self", "other");
  auto ops = operands(n, "self", "other", dtype);
  if (failed(ops))
    return failure();
  Value result = CmpOp::create(n.b(), n.location(),
                               n.contiguous(n.outputShape(), DType::I1),
                               predicate, ops->first, ops->second);
  n.setOutput(0, n.toType(n.cast(result, n.outputDType()), n.outputType()));
  return success();
}

LogicalResult where(NodeImporter &n) {
  FailureOr<Value> condition = n.tensor("condition");
  if (failed(condition))
    return failure();
  FailureOr<Value> c = n.conform(*condition, DType::I1, n.outputShape());
  auto ops = succeeded(c) ? operands(n, "self", "other", n.outputDType())
                          : Fail();
  if (failed(ops))
    return failure();
  n.setOutput(0, WhereOp::create(n.b(), n.location(), n.outputType(), *c,
                                 ops->first, ops->second));
  return success();
}

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

int64_t rankOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getRank();
}
llvm::ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<StridedTensorType>(v.getType()).getShape();
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

/// PyTorch's slice bounds (None, negative, past the end) made explicit.
struct SliceBounds { int64_t dim, start, end, step; };

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

LogicalResult slice(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<SliceBounds> b = succeeded(x) ? sliceBounds(n, *x) : Fail();
  if (failed(b))
    return failure();
  return view<SliceOp>(n, *x, static_cast<uint64_t>(b->dim),
                       static_cast<uint64_t>(b->start),
                       static_cast<uint64_t>(b->end),
                       static_cast<uint64_t>(b->step));
}

/// A select index, negative ones counted from the end.
FailureOr<std::pair<int64_t, int64_t>> selectIndex(NodeImporter &n, Value x) {
  FailureOr<int64_t> dim = n.dim("dim", rankOf(x), std::nullopt);
  FailureOr<int64_t> index =
      succeeded(dim) ? n.integer("index", std::nullopt) : Fail();
  if (failed(index))
    return failure();
  int64_t size = shapeOf(x)[*dim];
  int64_t i = *index < 0 ? *index + size : *index;
  if (i < 0 || i >= size)
    return n.error() << "select index " << *index << " is out of range for "
                     << "a dim of size " << size;
  return std::make_pair(*dim, i);
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
  if (x->getType() != n.outputType())
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

//===----------------------------------------------------------------------===//
// Copies and creation
//===----------------------------------------------------------------------===//

LogicalResult clone(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  n.setOutput(0, CloneOp::create(n.b(), n.location(), n.outputType(), *x));
  return success();
}

LogicalResult toCopy(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  if (failed(x))
    return failure();
  if (llvm::cast<StridedTensorType>(x->getType()).getDType() ==
      n.outputDType())
    return clone(n);
  n.setOutput(0, CastOp::create(n.b(), n.location(), n.outputType(), *x));
  return success();
}

LogicalResult fill(NodeImporter &n, double value) {
  n.setOutput(0, FullOp::create(n.b(), n.location(), n.outputType(),
                                n.b().getF64FloatAttr(value)));
  return success();
}

template <const char *argName> LogicalResult fullWith(NodeImporter &n) {
  FailureOr<double> value = n.scalar(argName, std::nullopt);
  if (failed(value))
    return failure();
  return fill(n, *value);
}
constexpr char kFillValue[] = "fill_value";
constexpr char kScalarArg[] = "s";

LogicalResult zeros(NodeImporter &n) { return fill(n, 0.0); }
LogicalResult ones(NodeImporter &n) { return fill(n, 1.0); }

/// arange(start, end, step): iota scaled by step, plus start.
LogicalResult arange(NodeImporter &n) {
  FailureOr<double> start = n.scalar("start", 0.0);
  FailureOr<double> step = succeeded(start) ? n.scalar("step", 1.0) : Fail();
  if (failed(step))
    return failure();
  if (n.outputType().getRank() != 1)
    return n.error() << "arange's result has rank "
                     << n.outputType().getRank();
  DType dtype = n.outputDType();
  StridedTensorType type = n.contiguous(n.outputShape(), dtype);
  bool plain = *start == 0.0 && *step == 1.0;
  Value result = IotaOp::create(n.b(), n.location(),
                                plain ? n.outputType() : type, uint64_t(0));
  if (*step != 1.0) {
    Value factor = *n.broadcast(n.scalarTensor(*step, dtype), n.outputShape());
    result = MulOp::create(n.b(), n.location(),
                           *start == 0.0 ? n.outputType() : type, result, factor);
  }
  if (*start != 0.0) {
    Value offset = *n.broadcast(n.scalarTensor(*start, dtype), n.outputShape());
    result = AddOp::create(n.b(), n.location(), n.outputType(), result, offset);
  }
  n.setOutput(0, result);
  return success();
}

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

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The reduced dims: the listed ones normalized, or every dim for an
/// absent or empty list.
FailureOr<std::vector<int64_t>> reducedDims(NodeImporter &n, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<std::vector<int64_t>> listed = n.integers("dim", std::vector<int64_t>{});
  if (failed(listed))
    return failure();
  std::vector<int64_t> dims;
  for (int64_t d : *listed) {
    int64_t bound = std::max<int64_t>(rank, 1);
    if (d < -bound || d >= bound)
      return n.error() << "dim " << d << " is out of range for rank " << rank;
    d = d < 0 ? d + bound : d;
    if (rank > 0 && !llvm::is_contained(dims, d))
      dims.push_back(d);
  }
  if (listed->empty())
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(i);
  llvm::sort(dims);
  return dims;
}

template <typename OpTy> LogicalResult reduce(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  FailureOr<std::vector<int64_t>> dims =
      succeeded(x) ? reducedDims(n, *x) : Fail();
  FailureOr<bool> keepdim = succeeded(dims) ? n.boolean("keepdim", false)
                                            : Fail();
  if (failed(keepdim))
    return failure();
  Value input = n.cast(*x, n.outputDType());
  n.setOutput(0, OpTy::create(n.b(), n.location(), n.outputType(), input,
                              llvm::ArrayRef<int64_t>(*dims), *keepdim));
  return success();
}

/// `x` reduced over `dims` with keepdim, row-major.
template <typename OpTy>
Value reduceKeep(NodeImporter &n, Value x, llvm::ArrayRef<int64_t> dims,
                 StridedTensorType type = {}) {
  auto xType = llvm::cast<StridedTensorType>(x.getType());
  std::vector<int64_t> shape(xType.getShape());
  for (int64_t d : dims)
    shape[d] = 1;
  if (!type)
    type = n.contiguous(shape, xType.getDType());
  return OpTy::create(n.b(), n.location(), type, x, dims, true);
}

/// cat(tensors, dim): each input cast to the result's dtype.
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
    inputs.push_back(n.cast(*v, n.outputDType()));
  }
  n.setOutput(0, CatOp::create(n.b(), n.location(), n.outputType(), inputs,
                               n.b().getI64IntegerAttr(*dim)));
  return success();
}

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

/// cumsum(self, dim, dtype): the input cast to the result's dtype (int64
/// for integer and boolean inputs, or `dtype`), summed along dim. A rank-0
/// tensor is its own cumsum (dim 0 or -1, as in PyTorch).
LogicalResult cumsum(NodeImporter &n) {
  FailureOr<Value> x = n.tensor("self");
  int64_t rank = succeeded(x) ? rankOf(*x) : 0;
  FailureOr<int64_t> dim = succeeded(x)
                               ? n.dim("dim", std::max<int64_t>(rank, 1),
                                       std::nullopt)
                               : Fail();
  if (failed(dim))
    return failure();
  Value input = n.cast(*x, n.outputDType());
  if (rank == 0) {
    n.setOutput(0, input);
    return success();
  }
  n.setOutput(0, CumsumOp::create(n.b(), n.location(), n.outputType(), input,
                                  n.b().getI64IntegerAttr(*dim)));
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

LogicalResult matmulOf(NodeImporter &n, llvm::StringRef lhs,
                       llvm::StringRef rhs) {
  FailureOr<Value> a = n.tensor(lhs);
  FailureOr<Value> b = succeeded(a) ? n.tensor(rhs) : Fail();
  if (failed(b))
    return failure();
  Value product = MatmulOp::create(
      n.b(), n.location(), n.contiguous(n.outputShape(), n.outputDType()), *a,
      *b, Value(), MatmulEpilogue::none, MatmulOperandAttr(),
      MatmulOperandAttr(), IntegerAttr());
  n.setOutput(0, product);
  return success();
}

LogicalResult mm(NodeImporter &n) {
  if (failed(matmulOf(n, "self", "mat2")))
    return failure();
  n.setOutput(0, n.toType(n.output(0), n.outputType()));
  return success();
}

/// addmm(bias, mat1, mat2): the product plus the broadcast bias.
LogicalResult addmm(NodeImporter &n) {
  FailureOr<double> beta = n.scalar("beta", 1.0);
  FailureOr<double> alpha = succeeded(beta) ? n.scalar("alpha", 1.0) : Fail();
  if (failed(alpha))
    return failure();
  if (*beta != 1.0 || *alpha != 1.0)
    return n.error() << "addmm with beta=" << *beta << ", alpha=" << *alpha
                     << " (Stride imports beta = alpha = 1)";
  FailureOr<Value> bias = n.tensor("self");
  if (failed(bias) || failed(matmulOf(n, "mat1", "mat2")))
    return failure();
  FailureOr<Value> b = n.conform(*bias, n.outputDType(), n.outputShape());
  if (failed(b))
    return failure();
  n.setOutput(0, AddOp::create(n.b(), n.location(), n.outputType(),
                               n.output(0), *b));
  return success();
}

//===----------------------------------------------------------------------===//
// Expansions: softmax, layer norm
//===----------------------------------------------------------------------===//

/// Fails with an error unless output `i` has shape `shape` (expansions
/// broadcast between the two).
LogicalResult expectOutputShape(NodeImporter &n, size_t i,
                                llvm::ArrayRef<int64_t> shape) {
  if (n.outputShape(i) == shape)
    return success();
  return n.error() << "output #" << i << " has shape "
                   << formatDims(Dims(n.outputShape(i).begin(),
                                      n.outputShape(i).end()))
                   << ", expected " << formatDims(Dims(shape.begin(), shape.end()));
}

LogicalResult softmax(NodeImporter &n) {
  FailureOr<Value> self = n.tensor("self");
  FailureOr<int64_t> dim =
      succeeded(self) ? n.dim("dim", rankOf(*self), std::nullopt) : Fail();
  if (failed(dim) || failed(expectOutputShape(n, 0, shapeOf(*self))))
    return failure();
  DType dtype = n.outputDType();
  Value x = n.cast(*self, dtype);
  llvm::ArrayRef<int64_t> shape = n.outputShape();
  StridedTensorType type = n.contiguous(shape, dtype);
  int64_t dims[] = {*dim};
  Value max = *n.broadcast(reduceKeep<MaxOp>(n, x, dims), shape);
  Value shifted = SubOp::create(n.b(), n.location(), type, x, max);
  Value e = ExpOp::create(n.b(), n.location(), type, shifted);
  Value sum = *n.broadcast(reduceKeep<SumOp>(n, e, dims), shape);
  n.setOutput(0, DivOp::create(n.b(), n.location(), n.outputType(), e, sum));
  return success();
}

/// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out,
/// mean, rstd), over the last len(normalized_shape) dims.
LogicalResult layerNorm(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<std::vector<int64_t>> normalized =
      succeeded(input) ? n.integers("normalized_shape", std::nullopt) : Fail();
  FailureOr<Value> weight = succeeded(normalized) ? n.optionalTensor("weight") : Fail();
  FailureOr<Value> bias = succeeded(weight) ? n.optionalTensor("bias") : Fail();
  FailureOr<double> eps = succeeded(bias) ? n.scalar("eps", std::nullopt) : Fail();
  if (failed(eps))
    return failure();
  if (n.numOutputs() != 3)
    return n.error() << "native_layer_norm has " << n.numOutputs()
                     << " outputs, expected 3";
  int64_t rank = rankOf(*input);
  int64_t k = normalized->size();
  if (k < 1 || k > rank)
    return n.error() << "normalized_shape has " << k << " dims for an input "
                     << "of rank " << rank;
  std::vector<int64_t> dims;
  std::vector<int64_t> statShape(shapeOf(*input));
  for (int64_t d = rank - k; d < rank; ++d) {
    dims.push_back(d);
    statShape[d] = 1;
  }
  if (failed(expectOutputShape(n, 0, shapeOf(*input))) ||
      failed(expectOutputShape(n, 1, statShape)) ||
      failed(expectOutputShape(n, 2, statShape)))
    return failure();
  DType dtype = n.outputDType();
  llvm::ArrayRef<int64_t> shape = n.outputShape();
  StridedTensorType type = n.contiguous(shape, dtype);
  Value x = n.cast(*input, dtype);
  Value mean = reduceKeep<MeanOp>(n, x, dims, n.outputType(1));
  Value centered = SubOp::create(n.b(), n.location(), type, x,
                                 *n.broadcast(mean, shape));
  Value square = MulOp::create(n.b(), n.location(), type, centered, centered);
  Value variance = reduceKeep<MeanOp>(n, square, dims);
  auto statType = llvm::cast<StridedTensorType>(variance.getType());
  Value epsilon = *n.broadcast(n.scalarTensor(*eps, dtype), statType.getShape());
  Value shiftedVariance =
      AddOp::create(n.b(), n.location(), statType, variance, epsilon);
  Value rstd = RsqrtOp::create(n.b(), n.location(), n.outputType(2),
                               shiftedVariance);
  bool last = !*weight && !*bias;
  Value y = MulOp::create(n.b(), n.location(), last ? n.outputType() : type,
                          centered, *n.broadcast(rstd, shape));
  for (auto [param, isLast] :
       {std::pair{*weight, !*bias}, std::pair{*bias, true}}) {
    if (!param)
      continue;
    FailureOr<Value> p = n.conform(param, dtype, shape);
    if (failed(p))
      return failure();
    StridedTensorType t = isLast ? n.outputType() : type;
    y = param == *weight
            ? MulOp::create(n.b(), n.location(), t, y, *p).getResult()
            : AddOp::create(n.b(), n.location(), t, y, *p).getResult();
  }
  n.setOutput(0, y);
  n.setOutput(1, mean);
  n.setOutput(2, rstd);
  return success();
}

/// _assert_tensor_metadata(a, size, stride, dtype): checked, then dropped.
LogicalResult assertMetadata(NodeImporter &n) {
  FailureOr<Value> a = n.tensor("a");
  if (failed(a))
    return failure();
  auto type = llvm::cast<StridedTensorType>(a->getType());
  if (const Argument *size = n.arg("size");
      size && size->kind == Argument::Kind::Ints &&
      llvm::ArrayRef<int64_t>(size->ints) != type.getShape())
    return n.error() << "_assert_tensor_metadata: the tensor has shape "
                     << formatDims(type.getLayout().shape)
                     << ", the assertion expects " << formatDims(size->ints);
  if (const Argument *dtype = n.arg("dtype");
      dtype && dtype->kind == Argument::Kind::ScalarType &&
      dtypeOfScalarType(dtype->ints[0]) != type.getDType())
    return n.error() << "_assert_tensor_metadata: the tensor is "
                     << dtypeName(type.getDType()) << ", the assertion expects "
                     << scalarTypeName(dtype->ints[0]);
  return success();
}

const std::map<std::string, Fn, std::less<>> &table() {
  static const std::map<std::string, Fn, std::less<>> ops = {
      // Pointwise unary.
      {"aten.neg.default", unary<NegOp>},
      {"aten.abs.default", unary<AbsOp>},
      {"aten.exp.default", unary<ExpOp>},
      {"aten.log.default", unary<LogOp>},
      {"aten.sqrt.default", unary<SqrtOp>},
      {"aten.rsqrt.default", unary<RsqrtOp>},
      {"aten.tanh.default", unary<TanhOp>},
      {"aten.sigmoid.default", unary<SigmoidOp>},
      {"aten.relu.default", unary<ReluOp>},
      {"aten.sin.default", unary<SinOp>},
      {"aten.cos.default", unary<CosOp>},
      {"aten.erf.default", unary<ErfOp>},
      {"aten.gelu.default", gelu},
      {"aten.logical_not.default", logicalNot},
      {"aten.bitwise_not.default", unary<NotOp>},
      // Pointwise binary (a Scalar overload's `other` becomes a rank-0 full).
      {"aten.add.Tensor", binary<AddOp, true>},
      {"aten.add.Scalar", binary<AddOp, true>},
      {"aten.sub.Tensor", binary<SubOp, true>},
      {"aten.sub.Scalar", binary<SubOp, true>},
      {"aten.mul.Tensor", binary<MulOp>},
      {"aten.mul.Scalar", binary<MulOp>},
      {"aten.div.Tensor", divide},
      {"aten.div.Scalar", divide},
      {"aten.div.Tensor_mode", divide},
      {"aten.pow.Tensor_Tensor", binary<PowOp, false, kExponent>},
      {"aten.pow.Tensor_Scalar", binary<PowOp, false, kExponent>},
      {"aten.maximum.default", binary<MaximumOp>},
      {"aten.minimum.default", binary<MinimumOp>},
      {"aten.logical_and.default", binary<AndOp>},
      {"aten.logical_or.default", binary<OrOp>},
      {"aten.bitwise_and.Tensor", binary<AndOp>},
      {"aten.bitwise_or.Tensor", binary<OrOp>},
      {"aten.eq.Tensor", compare<CmpPredicate::eq>},
      {"aten.eq.Scalar", compare<CmpPredicate::eq>},
      {"aten.ne.Tensor", compare<CmpPredicate::ne>},
      {"aten.ne.Scalar", compare<CmpPredicate::ne>},
      {"aten.lt.Tensor", compare<CmpPredicate::lt>},
      {"aten.lt.Scalar", compare<CmpPredicate::lt>},
      {"aten.le.Tensor", compare<CmpPredicate::le>},
      {"aten.le.Scalar", compare<CmpPredicate::le>},
      {"aten.gt.Tensor", compare<CmpPredicate::gt>},
      {"aten.gt.Scalar", compare<CmpPredicate::gt>},
      {"aten.ge.Tensor", compare<CmpPredicate::ge>},
      {"aten.ge.Scalar", compare<CmpPredicate::ge>},
      {"aten.where.self", where},
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
      {"aten.split_with_sizes.default", splitWithSizes},
      // Copies and creation.
      {"aten.clone.default", clone},
      {"aten.lift_fresh_copy.default", clone},
      {"aten._to_copy.default", toCopy},
      {"aten.full.default", fullWith<kFillValue>},
      {"aten.full_like.default", fullWith<kFillValue>},
      {"aten.scalar_tensor.default", fullWith<kScalarArg>},
      {"aten.zeros.default", zeros},
      {"aten.zeros_like.default", zeros},
      {"aten.ones.default", ones},
      {"aten.ones_like.default", ones},
      {"aten.arange.default", arange},
      {"aten.arange.start", arange},
      {"aten.arange.start_step", arange},
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
      // Reductions.
      {"aten.sum.dim_IntList", reduce<SumOp>},
      {"aten.sum.default", reduce<SumOp>},
      {"aten.mean.dim", reduce<MeanOp>},
      {"aten.mean.default", reduce<MeanOp>},
      {"aten.amax.default", reduce<MaxOp>},
      {"aten.amin.default", reduce<MinOp>},
      {"aten.prod.dim_int", reduce<ProdOp>},
      {"aten.any.dim", reduce<AnyOp>},
      {"aten.any.dims", reduce<AnyOp>},
      {"aten.any.default", reduce<AnyOp>},
      {"aten.cat.default", concatenate},
      // Scans.
      {"aten.cumsum.default", cumsum},
      // Matrix products.
      {"aten.mm.default", mm},
      {"aten.bmm.default", mm},
      {"aten.addmm.default", addmm},
      // Expansions.
      {"aten._softmax.default", softmax},
      {"aten.native_layer_norm.default", layerNorm},
      {"aten._assert_tensor_metadata.default", assertMetadata},
  };
  return ops;
}

/// "torch.ops.aten.add.Tensor" -> "aten.add.Tensor".
llvm::StringRef shortTarget(llvm::StringRef target) {
  target.consume_front("torch.ops.");
  return target;
}

} // namespace

const OpBuilderFn *lookupOp(llvm::StringRef target) {
  static std::map<std::string, OpBuilderFn, std::less<>> wrapped = [] {
    std::map<std::string, OpBuilderFn, std::less<>> m;
    for (const auto &[name, fn] : table())
      m.emplace(name, fn);
    return m;
  }();
  auto it = wrapped.find(shortTarget(target));
  return it == wrapped.end() ? nullptr : &it->second;
}

std::vector<std::string> supportedTargets() {
  std::vector<std::string> names;
  for (const auto &entry : table())
    names.push_back("torch.ops." + entry.first);
  return names;
}

} // namespace stride::torch
