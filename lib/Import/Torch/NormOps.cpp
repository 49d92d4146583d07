//===- NormOps.cpp - Batch norm in training -------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The op table's batch norm with batch statistics (a training forward):
// _native_batch_norm_legit_functional (what a functionalized training graph
// records), and _native_batch_norm_legit's .no_stats and .default (the
// latter updates the running statistics in place). Inference batch norm
// is in ConvNetOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "stride/Support/Layout.h"

using namespace mlir;

namespace stride::torch {
namespace {

/// The arguments of a batch norm node.
struct BatchNormArgs {
  Value input, weight, bias, runningMean, runningVar; // stats may be null
  bool training = true;
  double momentum = 0.1, eps = 1e-5;
};

FailureOr<BatchNormArgs> batchNormArgs(NodeImporter &n, bool hasRunningStats) {
  BatchNormArgs a;
  FailureOr<Value> input = n.tensor("input");
  FailureOr<Value> weight = succeeded(input) ? n.optionalTensor("weight") : Fail();
  FailureOr<Value> bias = succeeded(weight) ? n.optionalTensor("bias") : Fail();
  if (failed(bias))
    return failure();
  if (hasRunningStats) {
    FailureOr<Value> mean = n.tensor("running_mean");
    FailureOr<Value> var = succeeded(mean) ? n.tensor("running_var") : Fail();
    if (failed(var))
      return failure();
    a.runningMean = *mean;
    a.runningVar = *var;
  }
  FailureOr<bool> training = n.boolean("training", true);
  FailureOr<double> momentum =
      succeeded(training) ? n.scalar("momentum", std::nullopt) : Fail();
  FailureOr<double> eps = succeeded(momentum) ? n.scalar("eps", std::nullopt) : Fail();
  if (failed(eps))
    return failure();
  a.input = *input;
  a.weight = *weight;
  a.bias = *bias;
  a.training = *training;
  a.momentum = *momentum;
  a.eps = *eps;
  return a;
}

/// What a batch norm computes: the output, the saved mean and rstd [C]
/// and, with running statistics, their updates [C].
struct BatchNormResults {
  Value out, saveMean, saveRstd, newMean, newVar;
};

/// Batch statistics over every dim but the channels (dim 1): the biased
/// variance normalizes; the running variance takes the unbiased one, as
/// PyTorch's.
FailureOr<BatchNormResults> batchNormTraining(NodeImporter &n,
                                              const BatchNormArgs &a,
                                              DType dtype) {
  ArrayRef<int64_t> shape = shapeOf(a.input);
  int64_t channels = shape[1], count = 1;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (d != 1) {
      dims.push_back(d);
      count *= shape[d];
    }
  StridedTensorType type = n.contiguous(shape, dtype);
  StridedTensorType channelType = n.contiguous({channels}, dtype);
  Value x = n.cast(a.input, dtype);
  Value mean = MeanOp::create(n.b(), n.location(), channelType, x, dims, false);
  FailureOr<Value> meanEach = perChannel(n, mean, dtype, shape);
  if (failed(meanEach))
    return failure();
  Value centered = SubOp::create(n.b(), n.location(), type, x, *meanEach);
  Value square = MulOp::create(n.b(), n.location(), type, centered, centered);
  Value variance = MeanOp::create(n.b(), n.location(), channelType, square,
                                  dims, false);
  Value epsilon = *n.broadcast(n.scalarTensor(a.eps, dtype), {channels});
  Value shifted = AddOp::create(n.b(), n.location(), channelType, variance, epsilon);
  Value rstd = RsqrtOp::create(n.b(), n.location(), channelType, shifted);
  FailureOr<Value> rstdEach = perChannel(n, rstd, dtype, shape);
  if (failed(rstdEach))
    return failure();
  Value normalized = MulOp::create(n.b(), n.location(), type, centered, *rstdEach);
  FailureOr<Value> out = affine(n, normalized, a.weight, a.bias, dtype, shape);
  if (failed(out))
    return failure();
  BatchNormResults r{*out, mean, rstd, Value(), Value()};
  if (!a.runningMean)
    return r;
  // running = (1 - momentum) * running + momentum * batch statistic.
  auto blend = [&](Value running, Value batch) {
    Value keep = *n.broadcast(n.scalarTensor(1.0 - a.momentum, dtype), {channels});
    Value take = *n.broadcast(n.scalarTensor(a.momentum, dtype), {channels});
    Value old = MulOp::create(n.b(), n.location(), channelType,
                              n.cast(running, dtype), keep);
    Value fresh = MulOp::create(n.b(), n.location(), channelType, batch, take);
    return AddOp::create(n.b(), n.location(), channelType, old, fresh).getResult();
  };
  double correction = count > 1 ? double(count) / double(count - 1)
                                : std::numeric_limits<double>::infinity();
  Value factor = *n.broadcast(n.scalarTensor(correction, dtype), {channels});
  Value unbiased = MulOp::create(n.b(), n.location(), channelType, variance, factor);
  r.newMean = blend(a.runningMean, mean);
  r.newVar = blend(a.runningVar, unbiased);
  return r;
}

/// Checks the node's input rank and output count.
LogicalResult checkBatchNorm(NodeImporter &n, const BatchNormArgs &a,
                             size_t outputs) {
  if (rankOf(a.input) < 2 || n.numOutputs() != outputs)
    return n.error() << "batch norm takes an input of rank 2 or more and has "
                     << outputs << " outputs; got rank " << rankOf(a.input)
                     << " and " << n.numOutputs();
  if (!a.training)
    return n.error() << "batch norm with training=False in a training "
                        "variant is not imported (export in eval mode: "
                        "_native_batch_norm_legit_no_training)";
  return expectOutputShape(n, 0, shapeOf(a.input));
}

void setStatistics(NodeImporter &n, const BatchNormResults &r) {
  n.setOutput(0, n.toType(r.out, n.outputType(0)));
  n.setOutput(1, n.toType(r.saveMean, n.outputType(1)));
  n.setOutput(2, n.toType(r.saveRstd, n.outputType(2)));
}

/// _native_batch_norm_legit_functional(input, weight, bias, running_mean,
/// running_var, training, momentum, eps) -> (out, save_mean, save_rstd,
/// running_mean, running_var).
LogicalResult batchNormFunctional(NodeImporter &n) {
  FailureOr<BatchNormArgs> a = batchNormArgs(n, true);
  if (failed(a) || failed(checkBatchNorm(n, *a, 5)))
    return failure();
  FailureOr<BatchNormResults> r = batchNormTraining(n, *a, n.outputDType());
  if (failed(r))
    return failure();
  setStatistics(n, *r);
  n.setOutput(3, n.toType(n.cast(r->newMean, n.outputType(3).getDType()),
                          n.outputType(3)));
  n.setOutput(4, n.toType(n.cast(r->newVar, n.outputType(4).getDType()),
                          n.outputType(4)));
  return success();
}

/// _native_batch_norm_legit.no_stats(input, weight, bias, training,
/// momentum, eps) -> (out, save_mean, save_rstd).
LogicalResult batchNormNoStats(NodeImporter &n) {
  FailureOr<BatchNormArgs> a = batchNormArgs(n, false);
  if (failed(a) || failed(checkBatchNorm(n, *a, 3)))
    return failure();
  FailureOr<BatchNormResults> r = batchNormTraining(n, *a, n.outputDType());
  if (failed(r))
    return failure();
  setStatistics(n, *r);
  return success();
}

/// _native_batch_norm_legit.default: .no_stats's results, and the running
/// statistics updated in place (their names bound to the new values, as
/// the importer's other in-place ops do; a running statistic that is a
/// view is not imported).
LogicalResult batchNormInPlace(NodeImporter &n) {
  FailureOr<BatchNormArgs> a = batchNormArgs(n, true);
  if (failed(a) || failed(checkBatchNorm(n, *a, 3)))
    return failure();
  for (Value running : {a->runningMean, a->runningVar})
    if (auto view = running.getDefiningOp<ViewOpInterface>())
      return n.error() << "batch norm's in-place update of a running "
                          "statistic that is a view (a '"
                       << view->getName() << "') is not imported";
  FailureOr<BatchNormResults> r = batchNormTraining(n, *a, n.outputDType());
  if (failed(r))
    return failure();
  setStatistics(n, *r);
  auto kept = [&](Value fresh, Value old) {
    auto type = llvm::cast<StridedTensorType>(old.getType());
    return n.toType(n.cast(fresh, type.getDType()), type);
  };
  n.rebind("running_mean", kept(r->newMean, a->runningMean));
  n.rebind("running_var", kept(r->newVar, a->runningVar));
  return success();
}

} // namespace

/// Adds batch norm with batch statistics to the table.
void addNormOps(OpTable &ops) {
  ops.insert({
      {"aten._native_batch_norm_legit_functional.default", batchNormFunctional},
      {"aten._native_batch_norm_legit.no_stats", batchNormNoStats},
      {"aten._native_batch_norm_legit.default", batchNormInPlace},
  });
}

} // namespace stride::torch
