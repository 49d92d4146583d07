//===- RandomGraph.cpp - Random valid stride graphs for tests -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "RandomGraph.h"

#include "stride/Support/Layout.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>

using namespace stride;
using namespace stride::test;

uint64_t SplitMix64::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

std::string joinDims(const Dims &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::string typeText(DType dtype, const Layout &layout) {
  std::string text = "!stride.tensor<";
  for (int64_t d : layout.shape)
    text += std::to_string(d) + "x";
  text += std::string(dtypeName(dtype)) + ", strides = " +
          joinDims(layout.strides) +
          ", offset = " + std::to_string(layout.offset) + ">";
  return text;
}

struct Value {
  std::string name;
  DType dtype;
  Layout layout;
  bool functional; // the result of a functional op (may be returned)
  const Dims &shape() const { return layout.shape; }
};

class Generator {
public:
  Generator(uint64_t seed, const RandomGraphOptions &options)
      : rng(seed), options(options) {
    graph.seed = seed;
  }

  RandomGraph run();

private:
  // Values.
  int addArg(DType dtype, const Dims &shape, int64_t bound = 0);
  int emit(const std::string &rhs, DType dtype, const Layout &layout,
           bool functional = true);
  int emitFunctional(const std::string &op, const std::string &operands,
                     const std::vector<int> &types, const Dims &shape,
                     std::optional<DType> dtype = std::nullopt,
                     const std::string &suffix = "");
  int emitView(int source, const std::string &op, const std::string &attrs,
               const ViewResult &view);
  const Value &at(int i) const { return values[i]; }

  // Choices.
  Dims randomShape();
  int64_t randomWideLength();
  Dims wideShape(size_t rank);
  Layout resultLayout(const Dims &shape);
  int pickData();
  int operandOfShape(Dims shape);
  int broadcastTo(Dims shape);
  int permutedTo(Dims shape);
  int slicedTo(Dims shape);
  int full(Dims shape);
  std::vector<int64_t> randomPermutation(int64_t n);

  // Ops.
  bool unary();
  bool binary();
  bool cmpWhere(bool castToFloat);
  bool sliceScatter();
  bool selectScatter();
  bool cat();
  bool reduction();
  bool cumsum();
  Dims reducedShape(const Dims &shape, Dims &dims, bool &keepdim);
  std::string reductionAttrs(const Dims &dims, bool keepdim);
  int reductionOf(int x, Dims &dims, bool &keepdim);
  bool normalize();
  bool indexSelect();
  bool gather();
  bool indexAdd();
  bool scatterAdd();
  /// index_add and scatter_add of bf16 data add in an order atomics choose,
  /// each sum rounded to bf16: a few ulps from the reference by design
  /// (python-free-docs/determinism.md), more than the bf16 tolerance of a comparison
  /// allows, so bf16 graphs have none.
  bool accumulatesOutOfOrderInBf16() const { return data == DType::BF16; }
  bool matmul();
  bool randomView();

  SplitMix64 rng;
  RandomGraphOptions options;
  /// The element type of the graph's data values: f32, or in a wide graph
  /// bf16 at times (options.wide).
  DType data = DType::F32;
  /// A wide graph's long length and medium length (options.wide).
  int64_t wideLength = 0, wideMedium = 0;
  RandomGraph graph;
  std::vector<Value> values;
  std::vector<std::string> argDecls;
  std::string body;
  int counter = 0;
};

int Generator::addArg(DType dtype, const Dims &shape, int64_t bound) {
  Layout layout{shape, rowMajorStrides(shape), 0};
  std::string name = "%a" + std::to_string(argDecls.size());
  argDecls.push_back(name + ": " + typeText(dtype, layout));
  graph.inputs.push_back(GraphInput{dtype, shape, bound});
  values.push_back(Value{name, dtype, layout, false});
  return static_cast<int>(values.size()) - 1;
}

int Generator::emit(const std::string &rhs, DType dtype, const Layout &layout,
                    bool functional) {
  std::string name = "%v" + std::to_string(counter++);
  body += "  " + name + " = " + rhs + "\n";
  values.push_back(Value{name, dtype, layout, functional});
  return static_cast<int>(values.size()) - 1;
}

/// "stride.<op> <operands> <suffix> : <operand types> -> <result type>".
int Generator::emitFunctional(const std::string &op,
                              const std::string &operands,
                              const std::vector<int> &types, const Dims &shape,
                              std::optional<DType> dtype,
                              const std::string &suffix) {
  Layout layout = resultLayout(shape);
  std::string rhs = "stride." + op + " " + operands + suffix + " : ";
  for (size_t i = 0; i < types.size(); ++i)
    rhs += (i ? ", " : "") + typeText(at(types[i]).dtype, at(types[i]).layout);
  DType type = dtype.value_or(data);
  rhs += " -> " + typeText(type, layout);
  return emit(rhs, type, layout);
}

int Generator::emitView(int source, const std::string &op,
                        const std::string &attrs, const ViewResult &view) {
  const Value &v = at(source);
  if (!view) {
    std::fprintf(stderr, "RandomGraph: seed %llu: invalid %s of %s: %s\n",
                 static_cast<unsigned long long>(graph.seed), op.c_str(),
                 typeText(v.dtype, v.layout).c_str(), view.error.c_str());
    std::abort();
  }
  std::string rhs = "stride." + op + " " + v.name + attrs + " : " +
                    typeText(v.dtype, v.layout) + " -> " +
                    typeText(v.dtype, *view.layout);
  return emit(rhs, v.dtype, *view.layout, /*functional=*/false);
}

Dims Generator::randomShape() {
  Dims shape(rng.range(1, options.maxRank));
  if (options.wide)
    return wideShape(shape.size());
  for (int64_t &d : shape)
    d = rng.range(1, options.maxDim);
  return shape;
}

/// The long length of a wide graph: lengths where the backend changes
/// form (a thread, a warp, a block, a cluster or shared memory per row)
/// and odd ones beside them.
int64_t Generator::randomWideLength() {
  static const int64_t lengths[] = {8,     64,    100,   255,   768,
                                    1024,  1025,  4096,  4099,  8191,
                                    32768, 40000, 40000, 65536, 65536,
                                    70001};
  return lengths[rng.below(std::size(lengths))];
}

/// A shape of `rank` dims for a wide graph: the graph's long length at a
/// random dim, the others short or, at times, one of them the graph's
/// medium length (so that values of shapes [L, M] and [M, L] meet, and a
/// permute between them is tiled), within kMaxWideElements.
Dims Generator::wideShape(size_t rank) {
  Dims shape(rank, 1);
  size_t longDim = rng.below(rank);
  shape[longDim] = wideLength;
  int64_t budget = kMaxWideElements / wideLength;
  bool medium = budget >= wideMedium && rng.chance(30);
  for (size_t d = 0; d < rank; ++d) {
    if (d == longDim)
      continue;
    shape[d] = medium ? wideMedium
                      : rng.range(1, std::min<int64_t>(budget, options.maxDim));
    budget = std::max<int64_t>(budget / shape[d], 1);
    medium = false;
  }
  return shape;
}

std::vector<int64_t> Generator::randomPermutation(int64_t n) {
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(perm[i], perm[rng.below(i + 1)]);
  return perm;
}

/// Row-major mostly; sometimes a permuted dense order, or row-major with a
/// gap after each innermost row. All are non-overlapping (legal).
Layout Generator::resultLayout(const Dims &shape) {
  Layout layout{shape, rowMajorStrides(shape), 0};
  int64_t roll = rng.below(100);
  if (roll < 70 || shape.empty())
    return layout;
  if (roll < 85) {
    layout.strides = denseStridesInOrder(shape, randomPermutation(shape.size()));
    return layout;
  }
  Dims padded = shape;
  padded.back() += 1;
  layout.strides = rowMajorStrides(padded);
  return layout;
}

/// A float value, preferably a recent one (to grow chains).
int Generator::pickData() {
  std::vector<int> candidates;
  for (int i = 0, e = values.size(); i < e; ++i)
    if (at(i).dtype == data && !at(i).shape().empty())
      candidates.push_back(i);
  if (candidates.empty())
    return addArg(data, randomShape());
  if (rng.chance(60)) {
    size_t recent = std::min<size_t>(4, candidates.size());
    return candidates[candidates.size() - 1 - rng.below(recent)];
  }
  return candidates[rng.below(candidates.size())];
}

int Generator::full(Dims shape) {
  static const char *literals[] = {"0.0", "1.0", "-1.5", "0.5", "2.0", "3.0"};
  Layout layout = resultLayout(shape);
  std::string rhs = std::string("stride.full ") + literals[rng.below(6)] +
                    " : " + typeText(data, layout);
  return emit(rhs, data, layout);
}

/// An existing value expanded (after an unsqueeze where one dim is
/// missing) to `shape`: zero strides, and broadcasts of reduction results.
int Generator::broadcastTo(Dims shape) {
  std::vector<std::pair<int, int64_t>> candidates; // value, dim to unsqueeze
  for (int i = 0, e = values.size(); i < e; ++i) {
    const Value &v = at(i);
    if (v.dtype != data || v.shape() == shape || v.shape().empty())
      continue;
    if (static_cast<int64_t>(v.shape().size()) <= static_cast<int64_t>(shape.size()) &&
        inferExpand(v.layout, shape))
      candidates.push_back({i, -1});
    else if (v.shape().size() + 1 == shape.size())
      for (int64_t d = 0, r = shape.size(); d < r; ++d) {
        ViewResult u = inferUnsqueeze(v.layout, d);
        if (u && inferExpand(*u.layout, shape)) {
          candidates.push_back({i, d});
          break;
        }
      }
  }
  if (candidates.empty())
    return -1;
  auto [source, dim] = candidates[rng.below(candidates.size())];
  if (dim >= 0)
    source = emitView(source, "unsqueeze", " dim " + std::to_string(dim),
                      inferUnsqueeze(at(source).layout, dim));
  return emitView(source, "expand", "", inferExpand(at(source).layout, shape));
}

/// An existing value whose shape is a permutation of `shape`, permuted.
int Generator::permutedTo(Dims shape) {
  if (shape.size() < 2)
    return -1;
  Dims sorted = shape;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> candidates;
  for (int i = 0, e = values.size(); i < e; ++i) {
    Dims other = at(i).shape();
    std::sort(other.begin(), other.end());
    if (at(i).dtype == data && other == sorted)
      candidates.push_back(i);
  }
  if (candidates.empty())
    return -1;
  int source = candidates[rng.below(candidates.size())];
  // Result dim i takes an unused source dim of the same size.
  Dims perm;
  std::vector<bool> used(shape.size(), false);
  for (int64_t size : shape)
    for (size_t d = 0; d < shape.size(); ++d)
      if (!used[d] && at(source).shape()[d] == size) {
        used[d] = true;
        perm.push_back(d);
        break;
      }
  return emitView(source, "permute", " dims " + joinDims(perm),
                  inferPermute(at(source).layout, perm));
}

/// An existing value that is larger than `shape` in exactly one dim, sliced
/// there with a step.
int Generator::slicedTo(Dims shape) {
  std::vector<std::pair<int, int64_t>> candidates;
  for (int i = 0, e = values.size(); i < e; ++i) {
    const Value &v = at(i);
    if (v.dtype != data || v.shape().size() != shape.size())
      continue;
    int64_t differing = -1, count = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (v.shape()[d] != shape[d]) {
        differing = d;
        ++count;
      }
    if (count == 1 && v.shape()[differing] > shape[differing])
      candidates.push_back({i, differing});
  }
  if (candidates.empty())
    return -1;
  auto [source, dim] = candidates[rng.below(candidates.size())];
  int64_t size = at(source).shape()[dim], want = shape[dim];
  int64_t maxStep = want > 1 ? (size - 1) / (want - 1) : 1;
  int64_t step = rng.range(1, std::min<int64_t>(maxStep, 3));
  int64_t start = rng.range(0, size - 1 - (want - 1) * step);
  int64_t end = std::min(size, start + (want - 1) * step + 1 + rng.below(step));
  return emitView(source, "slice",
                  " dim " + std::to_string(dim) + " start " +
                      std::to_string(start) + " end " + std::to_string(end) +
                      " step " + std::to_string(step),
                  inferSlice(at(source).layout, dim, start, end, step));
}

/// A float operand of `shape`: an existing value (the same, broadcast,
/// permuted or sliced), a full, or a new argument.
int Generator::operandOfShape(Dims shape) {
  int64_t roll = rng.below(100);
  if (roll < 40) {
    std::vector<int> same;
    for (int i = 0, e = values.size(); i < e; ++i)
      if (at(i).dtype == data && at(i).shape() == shape)
        same.push_back(i);
    if (!same.empty())
      return same[rng.below(same.size())];
  }
  int result = -1;
  if (roll < 65)
    result = broadcastTo(shape);
  else if (roll < 73)
    result = full(shape);
  else if (roll < 83)
    result = permutedTo(shape);
  else if (roll < 92)
    result = slicedTo(shape);
  return result >= 0 ? result : addArg(data, shape);
}

bool Generator::unary() {
  static const char *ops[] = {"neg",  "abs",  "exp", "tanh", "sigmoid",
                              "relu", "gelu", "sin", "cos",  "erf"};
  int x = pickData();
  emitFunctional(ops[rng.below(10)], at(x).name, {x}, at(x).shape());
  return true;
}

bool Generator::binary() {
  static const char *ops[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  int a = pickData();
  int b = operandOfShape(at(a).shape());
  if (rng.chance(50))
    std::swap(a, b);
  emitFunctional(ops[rng.below(6)], at(a).name + ", " + at(b).name, {a, b},
                 at(a).shape());
  return true;
}

bool Generator::cmpWhere(bool castToFloat) {
  static const char *predicates[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  int a = pickData();
  Dims shape = at(a).shape();
  int b = operandOfShape(shape);
  int c = emitFunctional("cmp", std::string(predicates[rng.below(6)]) + ", " +
                                    at(a).name + ", " + at(b).name,
                         {a, b}, shape, DType::I1);
  if (castToFloat) {
    if (!shape.empty() && rng.chance(50)) { // a mask reduced with any
      Dims dims;
      bool keepdim;
      shape = reducedShape(shape, dims, keepdim);
      c = emitFunctional("any", at(c).name, {c}, shape, DType::I1,
                         reductionAttrs(dims, keepdim));
    }
    emitFunctional("cast", at(c).name, {c}, shape);
    return true;
  }
  int x = operandOfShape(shape);
  int y = operandOfShape(shape);
  emitFunctional("where", at(c).name + ", " + at(x).name + ", " + at(y).name,
                 {c, x, y}, shape);
  return true;
}

bool Generator::sliceScatter() {
  int input = pickData();
  Dims shape = at(input).shape();
  int64_t dim = rng.below(shape.size());
  int64_t size = shape[dim];
  int64_t step = rng.range(1, 3);
  int64_t start = rng.below(size);
  int64_t end = rng.range(start + 1, size);
  ViewResult slice = inferSlice(at(input).layout, dim, start, end, step);
  int src = operandOfShape(slice.layout->shape);
  emitFunctional("slice_scatter", at(input).name + ", " + at(src).name,
                 {input, src}, shape, data,
                 " dim " + std::to_string(dim) + " start " +
                     std::to_string(start) + " end " + std::to_string(end) +
                     " step " + std::to_string(step));
  return true;
}

bool Generator::selectScatter() {
  int input = pickData();
  Dims shape = at(input).shape();
  if (shape.size() < 2)
    return false;
  int64_t dim = rng.below(shape.size());
  int64_t index = rng.below(shape[dim]);
  Dims srcShape = shape;
  srcShape.erase(srcShape.begin() + dim);
  int src = operandOfShape(srcShape);
  emitFunctional("select_scatter", at(input).name + ", " + at(src).name,
                 {input, src}, shape, data,
                 " dim " + std::to_string(dim) + " index " +
                     std::to_string(index));
  return true;
}

/// A cat along a random dim of a value and one or two operands that differ
/// from it in that dim only, in a random order.
bool Generator::cat() {
  int first = pickData();
  Dims shape = at(first).shape();
  if (shape.empty())
    return false;
  int64_t dim = rng.below(shape.size());
  std::vector<int> inputs = {first};
  Dims result = shape;
  for (int64_t k = rng.range(1, 2); k > 0; --k) {
    Dims other = shape;
    other[dim] = rng.range(1, options.maxDim);
    inputs.push_back(operandOfShape(other));
    result[dim] += other[dim];
  }
  std::swap(inputs[0], inputs[rng.below(inputs.size())]);
  std::string operands;
  for (int i : inputs)
    operands += (operands.empty() ? "" : ", ") + at(i).name;
  emitFunctional("cat", operands, inputs, result, data,
                 " dim " + std::to_string(dim));
  return true;
}

/// The shape of a random reduction of `shape`; sets the reduced dims and
/// keepdim.
Dims Generator::reducedShape(const Dims &shape, Dims &dims, bool &keepdim) {
  Dims result;
  dims.clear();
  // A wide graph reduces its long dim alone half the time (rows).
  auto longDim = std::find(shape.begin(), shape.end(), wideLength);
  if (options.wide && longDim != shape.end() && rng.chance(50))
    dims.push_back(longDim - shape.begin());
  else
    for (int64_t d = 0, r = shape.size(); d < r; ++d)
      if (rng.chance(50))
        dims.push_back(d);
  if (dims.empty())
    dims.push_back(rng.below(shape.size()));
  keepdim = rng.chance(50) || dims.size() == shape.size();
  for (int64_t d = 0, r = shape.size(); d < r; ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced)
      result.push_back(shape[d]);
    else if (keepdim)
      result.push_back(1);
  }
  return result;
}

std::string Generator::reductionAttrs(const Dims &dims, bool keepdim) {
  return " dims " + joinDims(dims) + (keepdim ? " keepdim" : "");
}

/// A random reduction of value `x`; sets the reduced dims and keepdim.
int Generator::reductionOf(int x, Dims &dims, bool &keepdim) {
  static const char *ops[] = {"sum", "sum", "max", "max", "min", "mean"};
  Dims result = reducedShape(at(x).shape(), dims, keepdim);
  return emitFunctional(ops[rng.below(6)], at(x).name, {x}, result,
                        data, reductionAttrs(dims, keepdim));
}

bool Generator::reduction() {
  Dims dims;
  bool keepdim;
  reductionOf(pickData(), dims, keepdim);
  return true;
}

/// A cumsum of a value along a random dim.
bool Generator::cumsum() {
  int x = pickData();
  Dims shape = at(x).shape();
  if (shape.empty())
    return false;
  emitFunctional("cumsum", at(x).name, {x}, shape, data,
                 " dim " + std::to_string(rng.below(shape.size())));
  return true;
}

/// The normalization pattern (softmax, layer norm): a reduction broadcast
/// back over its input and combined with (a function of) the input.
bool Generator::normalize() {
  static const char *ops[] = {"sub", "div", "mul", "add"};
  int x = pickData();
  Dims shape = at(x).shape();
  Dims dims;
  bool keepdim;
  int back = reductionOf(x, dims, keepdim);
  if (!keepdim)
    for (int64_t d : dims) // ascending: each lands where it was reduced
      back = emitView(back, "unsqueeze", " dim " + std::to_string(d),
                      inferUnsqueeze(at(back).layout, d));
  back = emitView(back, "expand", "", inferExpand(at(back).layout, shape));
  int lhs = x;
  if (rng.chance(50))
    lhs = emitFunctional("exp", at(x).name, {x}, shape);
  emitFunctional(ops[rng.below(4)], at(lhs).name + ", " + at(back).name,
                 {lhs, back}, shape);
  return true;
}

bool Generator::indexSelect() {
  int input = pickData();
  Dims shape = at(input).shape();
  int64_t dim = rng.below(shape.size());
  int64_t length = rng.range(1, options.maxDim);
  int index = addArg(DType::I64, {length}, shape[dim]);
  shape[dim] = length;
  emitFunctional("index_select", at(input).name + ", " + at(index).name,
                 {input, index}, shape, data,
                 " dim " + std::to_string(dim));
  return true;
}

bool Generator::gather() {
  int input = pickData();
  Dims shape = at(input).shape();
  int64_t dim = rng.below(shape.size());
  Dims indexShape = shape;
  for (int64_t d = 0, r = shape.size(); d < r; ++d)
    indexShape[d] = d == dim ? rng.range(1, options.maxDim)
                             : rng.range(1, shape[d]);
  int index = addArg(DType::I64, indexShape, shape[dim]);
  emitFunctional("gather", at(input).name + ", " + at(index).name,
                 {input, index}, indexShape, data,
                 " dim " + std::to_string(dim));
  return true;
}

bool Generator::indexAdd() {
  if (accumulatesOutOfOrderInBf16())
    return false;
  int input = pickData();
  Dims shape = at(input).shape();
  int64_t dim = rng.below(shape.size());
  int64_t length = rng.range(1, options.maxDim);
  int index = addArg(DType::I64, {length}, shape[dim]);
  Dims sourceShape = shape;
  sourceShape[dim] = length;
  int source = operandOfShape(sourceShape);
  emitFunctional("index_add",
                 at(input).name + ", " + at(index).name + ", " + at(source).name,
                 {input, index, source}, shape, data,
                 " dim " + std::to_string(dim));
  return true;
}

bool Generator::scatterAdd() {
  if (accumulatesOutOfOrderInBf16())
    return false;
  int input = pickData();
  Dims shape = at(input).shape();
  int64_t dim = rng.below(shape.size());
  Dims indexShape = shape;
  for (int64_t d = 0, r = shape.size(); d < r; ++d)
    indexShape[d] = d == dim ? rng.range(1, options.maxDim)
                             : rng.range(1, shape[d]);
  int index = addArg(DType::I64, indexShape, shape[dim]);
  int src = operandOfShape(indexShape);
  emitFunctional("scatter_add",
                 at(input).name + ", " + at(index).name + ", " + at(src).name,
                 {input, index, src}, shape, data,
                 " dim " + std::to_string(dim));
  return true;
}

/// [B?, M, K] @ [B?, K, N] with operands of random layouts, sometimes with a
/// bias of [N] and a relu or gelu_tanh epilogue, on the op or as the
/// separate ops that fusion folds into it (an add of the expanded bias,
/// then the activation).
bool Generator::matmul() {
  static const char *activations[] = {"relu", "gelu_tanh"};
  int64_t m = rng.range(1, options.maxDim), k = rng.range(1, options.maxDim),
          n = rng.range(1, options.maxDim);
  Dims batch;
  if (options.maxRank >= 3 && rng.chance(40))
    batch.push_back(rng.range(1, options.maxDim));
  auto withBatch = [&](int64_t rows, int64_t columns) {
    Dims shape = batch;
    shape.push_back(rows);
    shape.push_back(columns);
    return shape;
  };
  int lhs = operandOfShape(withBatch(m, k));
  int rhs = operandOfShape(withBatch(k, n));
  int bias = rng.chance(30) ? operandOfShape({n}) : -1;
  const char *activation = rng.chance(30) ? activations[rng.below(2)] : nullptr;
  bool onTheOp = rng.chance(50);
  std::vector<int> operands{lhs, rhs};
  std::string text = at(lhs).name + ", " + at(rhs).name;
  if (bias >= 0 && onTheOp) {
    operands.push_back(bias);
    text += " bias " + at(bias).name;
  }
  if (activation && onTheOp)
    text += std::string(" epilogue ") + activation;
  Dims shape = withBatch(m, n);
  Layout layout{shape, rowMajorStrides(shape), 0};
  std::string rhsText = "stride.matmul " + text + " : ";
  for (size_t i = 0; i < operands.size(); ++i)
    rhsText += (i ? ", " : "") + typeText(DType::F32, at(operands[i]).layout);
  rhsText += " -> " + typeText(DType::F32, layout);
  int product = emit(rhsText, DType::F32, layout);
  if (onTheOp)
    return true;
  if (bias >= 0) {
    int broadcast = emitView(bias, "expand", "", inferExpand(at(bias).layout, shape));
    product = emitFunctional("add", at(product).name + ", " + at(broadcast).name,
                             {product, broadcast}, shape);
  }
  if (activation)
    emitFunctional(activation, at(product).name, {product}, shape);
  return true;
}

/// A view of a random value, left in the pool for later ops to read.
bool Generator::randomView() {
  int x = pickData();
  Layout layout = at(x).layout;
  Dims shape = layout.shape;
  int64_t rank = shape.size();
  switch (rng.below(8)) {
  case 0: { // permute
    if (rank < 2)
      return false;
    Dims perm = randomPermutation(rank);
    emitView(x, "permute", " dims " + joinDims(perm), inferPermute(layout, perm));
    return true;
  }
  case 1: { // slice with a step
    int64_t dim = rng.below(rank);
    int64_t step = rng.range(1, 3);
    int64_t start = rng.below(shape[dim]);
    int64_t end = rng.range(start + 1, shape[dim]);
    emitView(x, "slice",
             " dim " + std::to_string(dim) + " start " + std::to_string(start) +
                 " end " + std::to_string(end) + " step " + std::to_string(step),
             inferSlice(layout, dim, start, end, step));
    return true;
  }
  case 2: { // select
    if (rank < 2)
      return false;
    int64_t dim = rng.below(rank);
    int64_t index = rng.below(shape[dim]);
    emitView(x, "select",
             " dim " + std::to_string(dim) + " index " + std::to_string(index),
             inferSelect(layout, dim, index));
    return true;
  }
  case 3: { // expand: size-1 dims and maybe a new leading dim
    Dims target = shape;
    bool changed = false;
    for (int64_t &d : target)
      if (d == 1 && rng.chance(70)) {
        d = rng.range(2, options.maxDim);
        changed = true;
      }
    if (rank < options.maxRank && (!changed || rng.chance(40)))
      target.insert(target.begin(), rng.range(2, options.maxDim));
    if (target == shape)
      return false;
    emitView(x, "expand", "", inferExpand(layout, target));
    return true;
  }
  case 4: { // unsqueeze
    if (rank >= options.maxRank)
      return false;
    int64_t dim = rng.range(0, rank);
    emitView(x, "unsqueeze", " dim " + std::to_string(dim),
             inferUnsqueeze(layout, dim));
    return true;
  }
  case 5: { // squeeze
    Dims ones;
    for (int64_t d = 0; d < rank; ++d)
      if (shape[d] == 1 && rng.chance(70))
        ones.push_back(d);
    if (ones.empty() || static_cast<int64_t>(ones.size()) == rank)
      return false;
    emitView(x, "squeeze", " dims " + joinDims(ones), inferSqueeze(layout, ones));
    return true;
  }
  case 6: { // view: merge two adjacent dims, or split one
    Dims target = shape;
    if (rank >= 2 && rng.chance(50)) {
      int64_t d = rng.below(rank - 1);
      target[d] *= target[d + 1];
      target.erase(target.begin() + d + 1);
    } else {
      int64_t d = rng.below(rank);
      if (rank >= options.maxRank || shape[d] % 2 != 0)
        return false;
      target[d] /= 2;
      target.insert(target.begin() + d + 1, 2);
    }
    ViewResult view = inferView(layout, target);
    if (!view)
      return false; // the strides do not allow it without a copy
    emitView(x, "view", "", view);
    return true;
  }
  default: { // as_strided: overlapping sliding windows over a 1-D value
    if (rank != 1 || shape[0] < 2 || rank >= options.maxRank)
      return false;
    int64_t window = rng.range(1, shape[0]);
    Layout result{{shape[0] - window + 1, window},
                  {layout.strides[0], layout.strides[0]},
                  layout.offset};
    ViewResult view = checkAsStrided(layout, result);
    if (!view)
      return false;
    emitView(x, "as_strided", "", view);
    return true;
  }
  }
}

RandomGraph Generator::run() {
  if (options.wide) {
    wideLength = randomWideLength();
    wideMedium = rng.range(64, 300);
    if (rng.chance(40))
      data = DType::BF16;
  }
  addArg(data, randomShape());
  if (rng.chance(50))
    addArg(data, randomShape());
  int target = rng.range(options.minOps, options.maxOps);
  int functionalOps = 0;
  for (int attempt = 0; functionalOps < target && attempt < 500; ++attempt) {
    int64_t roll = rng.below(100);
    bool made;
    if (roll < 15)
      made = unary();
    else if (roll < 33)
      made = binary();
    else if (roll < 48) {
      randomView();
      continue; // views are not counted
    } else if (roll < 55)
      made = cmpWhere(/*castToFloat=*/false);
    else if (roll < 58)
      made = cmpWhere(/*castToFloat=*/true);
    else if (roll < 65)
      made = sliceScatter();
    else if (roll < 67)
      made = selectScatter();
    else if (roll < 70)
      made = cat();
    else if (roll < 80)
      // Wide graphs take more normalizations: the row forms are theirs.
      made = options.wide && rng.chance(50) ? normalize()
             : rng.chance(20)                ? cumsum()
                                             : reduction();
    else if (roll < 85)
      made = options.matmulOps && rng.chance(60) ? matmul() : normalize();
    else if (!options.indexOps)
      made = unary();
    else if (roll < 89)
      made = indexSelect();
    else if (roll < 92)
      made = gather();
    else if (roll < 96)
      made = indexAdd();
    else
      made = scatterAdd();
    functionalOps += made;
  }

  // Return the last functional value and, sometimes, another one.
  std::vector<int> results;
  for (int i = values.size() - 1; i >= 0; --i)
    if (at(i).functional) {
      results.push_back(i);
      break;
    }
  if (results.empty())
    results.push_back(emitFunctional("neg", at(0).name, {0}, at(0).shape()));
  std::vector<int> others;
  for (int i = 0, e = values.size(); i < e; ++i)
    if (at(i).functional && i != results[0])
      others.push_back(i);
  if (!others.empty() && rng.chance(40))
    results.push_back(others[rng.below(others.size())]);

  std::string text = "func.func @graph(";
  for (size_t i = 0; i < argDecls.size(); ++i)
    text += (i ? ", " : "") + argDecls[i];
  text += ") -> (";
  std::string names, types;
  for (size_t i = 0; i < results.size(); ++i) {
    const Value &v = at(results[i]);
    names += (i ? ", " : "") + v.name;
    types += (i ? ", " : "") + typeText(v.dtype, v.layout);
  }
  text += types + ") {\n" + body + "  return " + names + " : " + types + "\n}\n";
  graph.text = std::move(text);
  return graph;
}

} // namespace

RandomGraph stride::test::generateRandomGraph(uint64_t seed,
                                              const RandomGraphOptions &options) {
  return Generator(seed, options).run();
}
