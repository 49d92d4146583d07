//===- Collectives.cpp - The ranks of a group, simulated together --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride.all_reduce, stride.all_gather and stride.reduce_scatter in the
// reference interpreter: on one rank (a group of one: the identity), and
// across the N ranks of interpretRanks, which runs each rank's program up
// to its next collective, checks that all ranks meet at the same one, and
// exchanges their values. Reductions combine the ranks in rank order in
// f64 (int64 for integers) and round once.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace stride {

using namespace interp;

bool interp::needsOtherRanks(Operation *op) {
  std::optional<int64_t> worldSize = collectiveWorldSize(op);
  return worldSize && *worldSize > 1;
}

Status Interpreter::singleRankCollective(Operation *op) {
  if (needsOtherRanks(op))
    return fail(op, "a collective of world size " +
                        std::to_string(*collectiveWorldSize(op)) +
                        " needs the other ranks: run the group together "
                        "(stride-run --simulate-ranks)");
  Tensor out = allocate(typeOf(op->getResult(0)));
  copyElements(get(op->getOperand(0)), out);
  values[op->getResult(0)] = std::move(out);
  return Status::ok();
}

namespace {

std::optional<CollectiveReduction> reductionOf(Operation *op) {
  if (auto reduce = dyn_cast<AllReduceOp>(op))
    return reduce.getReduction();
  if (auto scatter = dyn_cast<ReduceScatterOp>(op))
    return scatter.getReduction();
  return std::nullopt;
}

std::optional<int64_t> dimOf(Operation *op) {
  if (auto gather = dyn_cast<AllGatherOp>(op))
    return gather.getDim();
  if (auto scatter = dyn_cast<ReduceScatterOp>(op))
    return scatter.getDim();
  return std::nullopt;
}

template <typename T>
T combine(CollectiveReduction reduction, T a, T b) {
  switch (reduction) {
  case CollectiveReduction::max:
    if constexpr (std::is_floating_point_v<T>)
      return nanMax(a, b);
    else
      return std::max(a, b);
  case CollectiveReduction::min:
    if constexpr (std::is_floating_point_v<T>)
      return nanMin(a, b);
    else
      return std::min(a, b);
  default:
    return a + b;
  }
}

/// Rank r's element at `index` of the collective's result.
struct Exchange {
  Operation *op;
  std::vector<const Tensor *> inputs; // one per rank

  void elementFor(int64_t rank, const Dims &index, Tensor &out) const {
    std::optional<CollectiveReduction> reduction = reductionOf(op);
    std::optional<int64_t> dim = dimOf(op);
    Dims at = index;
    if (!reduction) { // all_gather: the rank that holds that slice
      int64_t part = inputs[0]->layout.shape[*dim];
      const Tensor &from = *inputs[at[*dim] / part];
      at[*dim] %= part;
      setFrom(out, out.address(index), from, from.address(at));
      return;
    }
    if (dim) // reduce_scatter: this rank's part of the reduced input
      at[*dim] += rank * out.layout.shape[*dim];
    if (out.isF()) {
      double acc = inputs[0]->getF(inputs[0]->address(at));
      for (size_t r = 1; r < inputs.size(); ++r)
        acc = combine(*reduction, acc, inputs[r]->getF(inputs[r]->address(at)));
      if (*reduction == CollectiveReduction::avg)
        acc /= static_cast<double>(inputs.size());
      out.setF(out.address(index), acc);
      return;
    }
    int64_t acc = inputs[0]->getI(inputs[0]->address(at));
    for (size_t r = 1; r < inputs.size(); ++r)
      acc = combine(*reduction, acc, inputs[r]->getI(inputs[r]->address(at)));
    out.setI(out.address(index), acc);
  }
};

std::string describe(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "' at " +
         formatLocation(op->getLoc());
}

/// Every rank stands at a collective of the same kind and attributes, with
/// inputs of one shape, and of the group's size.
Status checkRanksMeet(ArrayRef<Operation *> at) {
  Operation *first = at[0];
  for (size_t r = 0; r < at.size(); ++r) {
    Operation *op = at[r];
    bool terminator = op->hasTrait<OpTrait::IsTerminator>();
    if (!terminator && collectiveWorldSize(op) != int64_t(at.size()))
      return makeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(r) + " reached " +
                           describe(op) + " of world size " +
                           std::to_string(*collectiveWorldSize(op)) +
                           ", but the group has " +
                           std::to_string(at.size()) + " ranks");
    if (op->getName() != first->getName() ||
        op->getAttrDictionary() != first->getAttrDictionary() ||
        (!terminator && op->getOperand(0).getType() !=
                            first->getOperand(0).getType()))
      return makeError(ErrorCode::InvalidArgument,
                       "the ranks do not meet at one collective: rank 0 "
                       "reached " +
                           describe(first) + ", rank " + std::to_string(r) +
                           " reached " + describe(op) +
                           " (a group would hang here)");
  }
  return Status::ok();
}

} // namespace

Result<std::vector<std::vector<HostArray>>>
interpretRanks(ArrayRef<func::FuncOp> funcs,
               const std::vector<std::vector<HostArray>> &inputs) {
  size_t ranks = funcs.size();
  std::vector<Interpreter> interps(ranks);
  std::vector<Block::iterator> next;
  for (size_t r = 0; r < ranks; ++r) {
    if (Status s = bindArguments(interps[r], funcs[r], inputs[r]); !s)
      return makeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(r) + ": " + s.error().message);
    func::FuncOp func = funcs[r];
    next.push_back(func.getBody().front().begin());
  }
  while (true) {
    std::vector<Operation *> at;
    for (size_t r = 0; r < ranks; ++r) {
      if (Status s = interps[r].runUntilCollective(next[r]); !s)
        return makeError(s.error().code, "rank " + std::to_string(r) + ": " +
                                             s.error().message);
      at.push_back(&*next[r]);
    }
    if (Status s = checkRanksMeet(at); !s)
      return s.error();
    if (at[0]->hasTrait<OpTrait::IsTerminator>())
      break;
    Exchange exchange{at[0], {}};
    for (size_t r = 0; r < ranks; ++r)
      exchange.inputs.push_back(&interps[r].values.find(at[r]->getOperand(0))->second);
    std::vector<Tensor> outs;
    for (size_t r = 0; r < ranks; ++r) {
      Tensor out =
          allocate(cast<StridedTensorType>(at[r]->getResult(0).getType()));
      forEachIndex(out.layout.shape, [&](const Dims &index) {
        exchange.elementFor(r, index, out);
      });
      outs.push_back(std::move(out));
    }
    for (size_t r = 0; r < ranks; ++r) {
      interps[r].values[at[r]->getResult(0)] = std::move(outs[r]);
      ++next[r];
    }
  }
  std::vector<std::vector<HostArray>> results;
  for (size_t r = 0; r < ranks; ++r) {
    std::vector<Tensor> returned;
    for (Value v : next[r]->getOperands())
      returned.push_back(interps[r].values.find(v)->second);
    results.push_back(toHostArrays(returned));
  }
  return results;
}

} // namespace stride
