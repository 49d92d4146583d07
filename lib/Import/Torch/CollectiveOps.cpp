//===- CollectiveOps.cpp - PyTorch's functional collectives ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's collectives: torch.export records a tensor-parallel
// model's communication as the ops of `_c10d_functional`
// (torch/csrc/distributed/c10d/Functional.cpp):
//
//   all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor
//   all_gather_into_tensor(Tensor input, int group_size, str group_name)
//   reduce_scatter_tensor(Tensor input, str reduce_op, int group_size,
//                         str group_name) -> Tensor
//   wait_tensor(Tensor tensor) -> Tensor
//
// They become stride.all_reduce, stride.all_gather (dim 0) and
// stride.reduce_scatter (dim 0); wait_tensor, which only orders the
// asynchronous collective before its first use, is the identity (each
// stride collective's result is complete when it is read). all_reduce names
// no group size: it is the import's world size (stridec --world-size).
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace stride::torch {

namespace {

FailureOr<CollectiveReduction> reduction(NodeImporter &n) {
  FailureOr<std::string> name = n.string("reduce_op", "");
  if (failed(name))
    return failure();
  std::optional<CollectiveReduction> kind =
      llvm::StringSwitch<std::optional<CollectiveReduction>>(
          llvm::StringRef(*name).lower())
          .Case("sum", CollectiveReduction::sum)
          .Case("avg", CollectiveReduction::avg)
          .Case("max", CollectiveReduction::max)
          .Case("min", CollectiveReduction::min)
          .Default(std::nullopt);
  if (kind)
    return *kind;
  return n.error() << "reduce_op '" << *name
                   << "': Stride's collectives reduce by sum, avg, max or min";
}

/// The group's size: the node's group_size where it has one (checked
/// against the import's world size), else the import's world size.
FailureOr<int64_t> groupSize(NodeImporter &n, bool named) {
  FailureOr<std::string> group = n.string("group_name", "");
  if (failed(group))
    return failure();
  if (!named) {
    if (n.worldSize() > 0)
      return n.worldSize();
    return n.error() << "all_reduce of group '" << *group
                     << "' does not record the group's size: give it with "
                        "stridec --world-size N";
  }
  FailureOr<int64_t> size = n.integer("group_size", std::nullopt);
  if (failed(size))
    return failure();
  if (*size < 1)
    return n.error() << "group_size " << *size << " of group '" << *group
                     << "': a group has at least one rank";
  if (n.worldSize() > 0 && *size != n.worldSize())
    return n.error() << "group '" << *group << "' has size " << *size
                     << ", but the import's world size (--world-size) is "
                     << n.worldSize()
                     << "; Stride's collectives span every rank";
  return *size;
}

/// The op built and verified, its result in the file's layout.
template <typename OpTy>
LogicalResult finish(NodeImporter &n, OpTy op) {
  if (failed(mlir::verify(op.getOperation()))) {
    op->erase();
    return failure();
  }
  n.setOutput(0, n.toType(op.getResult(), n.outputType()));
  return success();
}

LogicalResult allReduce(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<CollectiveReduction> kind =
      succeeded(input) ? reduction(n) : Fail();
  FailureOr<int64_t> size = succeeded(kind) ? groupSize(n, false) : Fail();
  if (failed(size))
    return failure();
  auto op = AllReduceOp::create(
      n.b(), n.location(), n.contiguous(n.outputShape(), n.outputDType()),
      *input, *kind, *size);
  return finish(n, op);
}

LogicalResult allGather(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<int64_t> size = succeeded(input) ? groupSize(n, true) : Fail();
  if (failed(size))
    return failure();
  auto op = AllGatherOp::create(
      n.b(), n.location(), n.contiguous(n.outputShape(), n.outputDType()),
      *input, /*dim=*/0, *size);
  return finish(n, op);
}

LogicalResult reduceScatter(NodeImporter &n) {
  FailureOr<Value> input = n.tensor("input");
  FailureOr<CollectiveReduction> kind =
      succeeded(input) ? reduction(n) : Fail();
  FailureOr<int64_t> size = succeeded(kind) ? groupSize(n, true) : Fail();
  if (failed(size))
    return failure();
  auto op = ReduceScatterOp::create(
      n.b(), n.location(), n.contiguous(n.outputShape(), n.outputDType()),
      *input, *kind, /*dim=*/0, *size);
  return finish(n, op);
}

/// The collective's value, complete when read: the tensor itself.
LogicalResult waitTensor(NodeImporter &n) {
  FailureOr<Value> tensor = n.tensor("tensor");
  if (failed(tensor))
    return failure();
  n.setOutput(0, n.toType(*tensor, n.outputType()));
  return success();
}

} // namespace

void addCollectiveOps(OpTable &ops) {
  ops.insert({
      {"_c10d_functional.all_reduce.default", allReduce},
      {"_c10d_functional.all_gather_into_tensor.default", allGather},
      {"_c10d_functional.reduce_scatter_tensor.default", reduceScatter},
      {"_c10d_functional.wait_tensor.default", waitTensor},
  });
}

} // namespace stride::torch
