//===- TensorParallelPatterns.cpp - What stride-tensor-parallel splits ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The seeds of the split, recognized from the graph: the products whose
// results reach an attention's query, key or value (the QKV projections),
// the products that feed another product through element-wise ops only
// (the MLP's gate and up projections), and the embedding lookups. The walks
// go through views, element-wise ops, cat and the value an index scatter
// writes (a KV cache's new position: the key and value projections reach
// the attention through the cache); an add or sub of two values
// computed from the graph's inputs through different products (a residual
// connection: the embedding plus a projection) ends a walk, so a product
// after a residual stream is never taken for an MLP's.
//
//===----------------------------------------------------------------------===//

#include "TensorParallel.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace stride::tp {

ConstantOp weightRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto constant = dyn_cast<ConstantOp>(def))
      return constant;
    if (!isa<PermuteOp, ViewOp>(def))
      return nullptr;
    value = def->getOperand(0);
  }
  return nullptr;
}

bool returnedThroughViews(Value value) {
  for (Operation *user : value.getUsers()) {
    if (isa<func::ReturnOp>(user))
      return true;
    if (isa<ViewOpInterface>(user) && returnedThroughViews(user->getResult(0)))
      return true;
  }
  return false;
}

namespace {

using Products = llvm::SmallSetVector<Operation *, 4>;

/// The values computed from the function's arguments (the others are
/// computed from constants only).
llvm::DenseSet<Value> inputDependent(func::FuncOp func) {
  llvm::DenseSet<Value> dependent(func.getArguments().begin(),
                                  func.getArguments().end());
  func.walk([&](Operation *op) {
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return dependent.contains(v); }))
      dependent.insert(op->result_begin(), op->result_end());
  });
  return dependent;
}

/// The products by a weight that `value` is computed from through views,
/// element-wise ops, cat and the values index scatters write (not the
/// tensor they write into: a cache holds what earlier runs wrote); failure
/// at a residual join (an add or sub of
/// two input-dependent values computed from different products).
/// `throughOps` is set when the walk passed an op that is not a view.
LogicalResult productsOf(Value value, const llvm::DenseSet<Value> &dependent,
                         Products &found, bool &throughOps,
                         unsigned depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 64)
    return success();
  if (auto matmul = dyn_cast<MatmulOp>(def)) {
    if (weightRoot(matmul.getRhs()))
      found.insert(def);
    return success();
  }
  if (isa<ViewOpInterface>(def))
    return productsOf(def->getOperand(0), dependent, found, throughOps, depth + 1);
  if (auto scatter = dyn_cast<IndexScatterOpInterface>(def)) {
    throughOps = true;
    return productsOf(scatter.getSrc(), dependent, found, throughOps, depth + 1);
  }
  if (!def->hasTrait<Elementwise>() && !isa<CatOp>(def))
    return success();
  throughOps = true;
  if (isa<AddOp, SubOp>(def)) {
    Products lhs, rhs;
    Value a = def->getOperand(0), b = def->getOperand(1);
    if (failed(productsOf(a, dependent, lhs, throughOps, depth + 1)) ||
        failed(productsOf(b, dependent, rhs, throughOps, depth + 1)))
      return failure();
    if (dependent.contains(a) && dependent.contains(b) && lhs != rhs)
      return failure(); // a residual connection
    found.insert(lhs.begin(), lhs.end());
    found.insert(rhs.begin(), rhs.end());
    return success();
  }
  for (Value operand : def->getOperands())
    if (failed(productsOf(operand, dependent, found, throughOps, depth + 1)))
      return failure();
  return success();
}

/// `value` without the views it is computed through.
Value viewBase(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<ViewOpInterface>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

LogicalResult checkHeads(AttentionOp attention, int64_t parts) {
  int64_t heads = attention.getQuery().getType().getShape()[1];
  int64_t kvHeads = attention.getKey().getType().getShape()[1];
  if (heads % parts == 0 && kvHeads % parts == 0)
    return success();
  return attention.emitOpError()
         << "has " << heads << " query heads and " << kvHeads
         << " key/value heads: the tensor-parallel world size " << parts
         << " must divide both (each rank computes its share of the heads)";
}

/// The projections feeding an attention's query, key and value.
void addAttentionProjections(AttentionOp attention,
                             const llvm::DenseSet<Value> &dependent,
                             Seeds &seeds) {
  for (Value operand :
       {attention.getQuery(), attention.getKey(), attention.getValue()}) {
    Products found;
    bool throughOps = false;
    if (succeeded(productsOf(operand, dependent, found, throughOps)))
      seeds.columns.insert(found.begin(), found.end());
  }
}

/// `down(act(gate(x)) * up(x))`: the products by weights of one input that
/// feed `down`'s lhs through element-wise ops.
void addMlpProjections(MatmulOp down, const llvm::DenseSet<Value> &dependent,
                       Seeds &seeds) {
  if (!weightRoot(down.getRhs()))
    return;
  Products found;
  bool throughOps = false;
  if (failed(productsOf(down.getLhs(), dependent, found, throughOps)) ||
      found.empty() ||
      !throughOps)
    return;
  Value input = viewBase(cast<MatmulOp>(found[0]).getLhs());
  for (Operation *up : found)
    if (viewBase(cast<MatmulOp>(up).getLhs()) != input)
      return;
  seeds.columns.insert(found.begin(), found.end());
}

void addEmbedding(IndexSelectOp lookup, int64_t parts, Seeds &seeds) {
  StridedTensorType table = lookup.getInput().getType();
  if (lookup.getDim() == 0 && table.getRank() == 2 &&
      table.getShape()[1] % parts == 0 && weightRoot(lookup.getInput()))
    seeds.embeddings.insert(lookup);
}

} // namespace

FailureOr<Seeds> findSeeds(func::FuncOp func, int64_t parts) {
  Seeds seeds;
  llvm::DenseSet<Value> dependent = inputDependent(func);
  WalkResult walk = func.walk([&](Operation *op) {
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      if (failed(checkHeads(attention, parts)))
        return WalkResult::interrupt();
      addAttentionProjections(attention, dependent, seeds);
    } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
      addMlpProjections(matmul, dependent, seeds);
    } else if (auto lookup = dyn_cast<IndexSelectOp>(op)) {
      addEmbedding(lookup, parts, seeds);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return seeds;
}

} // namespace stride::tp
