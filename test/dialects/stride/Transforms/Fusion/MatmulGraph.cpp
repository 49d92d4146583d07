//===- MatmulGraph.cpp - Random one-matmul graphs for the GPU check -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each graph is one stride.matmul whose operands reach it through the views
// a model's graph gives them: a transposed weight (permute), every other row
// or a column window (slice), a batch broadcast (expand, batch stride 0), or
// both strides > 1 (which the compiler must copy). Sizes are odd on purpose
// (1, 17, 33, 65, ...) and the dtype is any of f32, f16, bf16 and f64; a
// bias, an addend and a relu or tanh-GELU epilogue come on top, except in
// f64. A residual add may follow the product (and a relu the add), its other
// operand row-major (which stride-fuse folds into the call as its addend
// where the call has no epilogue yet), transposed or broadcast over the
// rows (which stay a kernel).
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include <string>
#include <vector>

namespace stride::test {

namespace {

using Value = GraphValue;

/// Builds the text of one graph: arguments, views, the matmul.
class MatmulGraphBuilder : GraphBuilder {
public:
  explicit MatmulGraphBuilder(uint64_t seed) : GraphBuilder(seed) {}

  std::string build();

private:
  int64_t pickSize() {
    static const int64_t sizes[] = {1, 2, 7, 16, 17, 33, 64, 65, 100, 128};
    return sizes[rng.below(std::size(sizes))];
  }
  Value argument(const Dims &shape) {
    return GraphBuilder::argument(shape, dtype);
  }
  Value operand(int64_t rows, int64_t columns, const Dims &batch);
  Value residual(const Dims &shape);
  Value transposed(const Dims &shape);

  std::string dtype;
};

/// A [batch..., rows, columns] operand in one of five layouts; a batched
/// operand is sometimes one matrix expanded over the batch.
Value MatmulGraphBuilder::operand(int64_t rows, int64_t columns,
                                  const Dims &batch) {
  bool broadcast = !batch.empty() && rng.chance(30);
  Dims stored = broadcast ? Dims{} : batch;
  int64_t rank = int64_t(stored.size()) + 2;
  Value v;
  switch (rng.below(5)) {
  case 0: // row-major
    stored.insert(stored.end(), {rows, columns});
    v = argument(stored);
    break;
  case 1: // transposed: a permute of a [columns, rows] tensor
    stored.insert(stored.end(), {rows, columns});
    v = transposed(stored);
    break;
  case 2: { // every other row
    stored.insert(stored.end(), {2 * rows, columns});
    Value t = argument(stored);
    Dims strides = t.strides;
    strides[rank - 2] *= 2;
    Dims shape = t.shape;
    shape[rank - 2] = rows;
    v = view(t, "slice",
             " dim " + std::to_string(rank - 2) + " start 1 end " +
                 std::to_string(2 * rows) + " step 2",
             shape, strides, t.strides[rank - 2]);
    break;
  }
  case 3: { // a column window
    stored.insert(stored.end(), {rows, columns + 3});
    Value t = argument(stored);
    Dims shape = t.shape;
    shape[rank - 1] = columns;
    v = view(t, "slice",
             " dim " + std::to_string(rank - 1) + " start 2 end " +
                 std::to_string(columns + 2) + " step 1",
             shape, t.strides, 2);
    break;
  }
  default: { // both strides > 1: every other column (not representable)
    stored.insert(stored.end(), {rows, 2 * columns});
    Value t = argument(stored);
    Dims strides = t.strides, shape = t.shape;
    strides[rank - 1] = 2;
    shape[rank - 1] = columns;
    v = view(t, "slice",
             " dim " + std::to_string(rank - 1) + " start 0 end " +
                 std::to_string(2 * columns) + " step 2",
             shape, strides, 0);
    break;
  }
  }
  if (!broadcast)
    return v;
  Dims shape = batch, strides(batch.size(), 0);
  shape.insert(shape.end(), v.shape.begin(), v.shape.end());
  strides.insert(strides.end(), v.strides.begin(), v.strides.end());
  return view(v, "expand", "", shape, strides, v.offset);
}

/// A value of `shape` that is the permute of a new argument whose last two
/// dims are swapped.
Value MatmulGraphBuilder::transposed(const Dims &shape) {
  int64_t rank = int64_t(shape.size());
  Dims perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d < rank - 2 ? d : (d == rank - 2 ? rank - 1 : rank - 2));
  Value t = argument(permuted(shape, perm));
  return view(t, "permute", " dims [" + joinDims(perm, ", ") + "]", shape,
              permuted(t.strides, perm), 0);
}

/// The other operand of a residual add to a product of `shape`: row-major,
/// a transposed tensor's permute, or a row vector expanded over the rows.
Value MatmulGraphBuilder::residual(const Dims &shape) {
  switch (rng.below(3)) {
  case 0:
    return argument(shape);
  case 1:
    return transposed(shape);
  default: {
    Value row = argument({shape.back()});
    Dims strides(shape.size(), 0);
    strides.back() = 1;
    return view(row, "expand", "", shape, strides, 0);
  }
  }
}

std::string MatmulGraphBuilder::build() {
  static const char *dtypes[] = {"f32", "f16", "bf16", "f64"};
  dtype = dtypes[rng.below(4)];
  int64_t m = pickSize(), k = pickSize(), n = pickSize();
  Dims batch;
  for (int64_t d = 0, rank = rng.below(3); d < rank; ++d)
    batch.push_back(rng.range(1, 3));
  Value lhs = operand(m, k, batch);
  Value rhs = operand(k, n, batch);
  std::string operands = lhs.name + ", " + rhs.name;
  std::string types = type(lhs) + ", " + type(rhs);
  if (dtype != "f64" && rng.chance(40)) {
    Value bias = argument({n});
    operands += " bias " + bias.name;
    types += ", " + type(bias);
  }
  Dims shape = batch;
  shape.insert(shape.end(), {m, n});
  // The addend is read with the result's layout; its type is not written.
  if (dtype != "f64" && rng.chance(20))
    operands += " addend " + argument(shape).name;
  if (dtype != "f64" && rng.chance(40))
    operands += rng.chance(50) ? " epilogue relu" : " epilogue gelu_tanh";
  Value result{"%p", shape, rowMajor(shape), 0, dtype};
  body += "  %p = stride.matmul " + operands + " : " + types + " -> " +
          type(result) + "\n";
  if (rng.chance(35)) {
    result = pointwise("add", {result, residual(shape)}, shape);
    if (rng.chance(40))
      result = pointwise("relu", {result}, shape);
  }
  return function({result});
}

} // namespace

std::string generateMatmulGraph(uint64_t seed) {
  return MatmulGraphBuilder(seed).build();
}

} // namespace stride::test
