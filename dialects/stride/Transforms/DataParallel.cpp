//===- DataParallel.cpp - Gradients averaged across ranks, in buckets -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-data-parallel (Passes.td): the backward graph's gradients, in the
// order they are complete, go into buckets of at least bucket-bytes bytes;
// each bucket is averaged across the ranks by one stride.all_reduce placed
// right after its last gradient is computed.
//
//===----------------------------------------------------------------------===//

#include "OpsBefore.h"
#include "dialects/stride/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>

namespace stride {
#define GEN_PASS_DEF_DATAPARALLEL
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// A gradient: result `result` of the function, complete after `position`
/// ops of the body (0: an argument).
struct Gradient {
  unsigned result;
  Value value;
  size_t position;
};

using Bucket = SmallVector<Gradient>;

int64_t bytesOf(Value v) {
  return typeOf(v).getNumElements() * int64_t(dtypeSize(typeOf(v).getDType()));
}

/// The floating-point results but those written back to an argument, in
/// the order they are complete.
SmallVector<Gradient> gradients(func::FuncOp func) {
  DenseMap<Operation *, size_t> positions;
  for (auto [i, op] : llvm::enumerate(func.getBody().front()))
    positions[&op] = i + 1;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<Gradient> found;
  for (OpOperand &operand : ret->getOpOperands()) {
    unsigned i = operand.getOperandNumber();
    Value v = operand.get();
    if (!isa<FloatType>(typeOf(v).getElementType()) ||
        func.getResultAttr(i, StrideDialect::kWritesAttrName))
      continue;
    Operation *def = v.getDefiningOp();
    found.push_back({i, v, def ? positions.lookup(def) : 0});
  }
  llvm::stable_sort(found, [](const Gradient &a, const Gradient &b) {
    return a.position < b.position;
  });
  return found;
}

/// Buckets of one element type each, in completion order, each closed
/// once it holds `bucketBytes` bytes.
SmallVector<Bucket> buckets(ArrayRef<Gradient> all, int64_t bucketBytes) {
  SmallVector<Bucket> closed;
  std::map<std::string, std::pair<Bucket, int64_t>> open;
  for (const Gradient &g : all) {
    std::string key;
    llvm::raw_string_ostream(key) << typeOf(g.value).getElementType();
    auto &[bucket, bytes] = open[key];
    bucket.push_back(g);
    bytes += bytesOf(g.value);
    if (bytes >= bucketBytes) {
      closed.push_back(std::move(bucket));
      bucket.clear();
      bytes = 0;
    }
  }
  for (auto &[key, held] : open)
    if (!held.first.empty())
      closed.push_back(std::move(held.first));
  return closed;
}

/// Averages `bucket` after its last gradient is computed; returns each
/// gradient's averaged value (of the gradient's type: a copy of its slice
/// of the bucket), in the bucket's order.
SmallVector<Value> averageBucket(func::FuncOp func, const Bucket &bucket,
                                 int64_t worldSize) {
  const Gradient &last = bucket.back();
  OpBuilder b(func.getContext());
  if (Operation *def = last.value.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(&func.getBody().front());
  Location loc = last.value.getLoc();
  Type element = typeOf(last.value).getElementType();
  OpsBefore ops(b, loc, element);
  auto reduce = [&](Value v) -> Value {
    return AllReduceOp::create(b, loc, ops.dense(shapeOf(v), element), v,
                               CollectiveReduction::avg, worldSize);
  };
  // The averaged gradients are only returned: their copies out of the
  // collective's result go at the end of the function, so that no step
  // reads that result before the rest of the backward has run, and the
  // plan can run the all-reduce beside it (stride-overlap-collectives).
  OpBuilder atEnd(func.getContext());
  atEnd.setInsertionPoint(func.getBody().front().getTerminator());
  OpsBefore returned(atEnd, loc, element);
  if (bucket.size() == 1)
    return {returned.into(reduce(last.value), typeOf(last.value))};
  SmallVector<Value> flat;
  int64_t total = 0;
  for (const Gradient &g : bucket) {
    int64_t n = typeOf(g.value).getNumElements();
    flat.push_back(typeOf(g.value).getRank() == 1
                       ? g.value
                       : ops.viewOrCopy(g.value, {n}));
    total += n;
  }
  Value cat = CatOp::create(b, loc, ops.dense({total}, element), flat,
                            b.getI64IntegerAttr(0));
  Value averaged = reduce(cat);
  SmallVector<Value> parts;
  int64_t start = 0;
  for (const Gradient &g : bucket) {
    int64_t n = typeOf(g.value).getNumElements();
    Value part = returned.slice(averaged, 0, start, start + n);
    if (typeOf(g.value).getRank() != 1)
      part = returned.view(part, shapeOf(g.value));
    parts.push_back(returned.into(part, typeOf(g.value)));
    start += n;
  }
  return parts;
}

struct DataParallelPass
    : public stride::impl::DataParallelBase<DataParallelPass> {
  using DataParallelBase::DataParallelBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (worldSize < 1 || bucketBytes < 1) {
      func.emitError() << "stride-data-parallel: world-size and bucket-bytes "
                          "must be at least 1, not "
                       << static_cast<int64_t>(worldSize) << " and "
                       << static_cast<int64_t>(bucketBytes);
      return signalPassFailure();
    }
    if (worldSize == 1 || func.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (const Bucket &bucket : buckets(gradients(func), bucketBytes)) {
      SmallVector<Value> averaged = averageBucket(func, bucket, worldSize);
      for (auto [g, value] : llvm::zip(bucket, averaged))
        ret->setOperand(g.result, value);
    }
  }
};

} // namespace
