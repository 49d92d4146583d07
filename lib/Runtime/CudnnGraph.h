//===- CudnnGraph.h - Building cuDNN backend graphs -----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. The few pieces of cuDNN's backend API that the
// attention routines (CudnnSdpa.cpp) are made of, each a thin wrapper over
// cudnnBackendCreateDescriptor / SetAttribute / Finalize:
//
//   - CudnnGraph: 4-D tensors (in the variant pack, passed by value, or
//     virtual) and the operations between them (matmul, pointwise,
//     reduction, reshape), finalized as one operation graph;
//   - buildExecutionPlan: the engine heuristics' configurations for the
//     graph, the first that finalizes as an execution plan, and the
//     workspace it needs (buildExecutionPlans: every one that finalizes,
//     for tuning);
//   - executePlan: a variant pack (each tensor's uid and address, the
//     workspace) and cudnnBackendExecute.
//
// Every call is checked; a graph keeps its first failure and ignores what
// follows, so a builder reads straight and asks for status() once.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_CUDNNGRAPH_H
#define STRIDE_LIB_RUNTIME_CUDNNGRAPH_H

#include "Cudnn.h"

#include <array>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace stride {

/// A backend descriptor, destroyed with the object.
class BackendDescriptor {
public:
  BackendDescriptor() = default;
  BackendDescriptor(const Cudnn &dnn, cudnnBackendDescriptor_t descriptor)
      : dnn(&dnn), descriptor(descriptor) {}
  BackendDescriptor(BackendDescriptor &&other) noexcept
      : dnn(other.dnn), descriptor(other.descriptor) {
    other.descriptor = nullptr;
  }
  BackendDescriptor &operator=(BackendDescriptor &&other) noexcept {
    std::swap(dnn, other.dnn);
    std::swap(descriptor, other.descriptor);
    return *this;
  }
  BackendDescriptor(const BackendDescriptor &) = delete;
  BackendDescriptor &operator=(const BackendDescriptor &) = delete;
  ~BackendDescriptor() {
    if (descriptor)
      dnn->cudnnBackendDestroyDescriptor(descriptor);
  }

  cudnnBackendDescriptor_t get() const { return descriptor; }

private:
  const Cudnn *dnn = nullptr;
  cudnnBackendDescriptor_t descriptor = nullptr;
};

/// A tensor's dimensions or strides (4-D for attention, 3-D to 5-D for
/// convolutions).
using Dims = std::vector<int64_t>;

/// One attribute of a descriptor to set (CudnnGraph.cpp).
struct CudnnAttribute;

/// The dense strides of `dims`, last dimension fastest.
Dims denseStrides(const Dims &dims);

/// "[2, 3, 4]".
std::string listDims(const Dims &dims);

/// The bytes from the start of a buffer through the last element of a
/// tensor at element `offset` in it, or nullopt if that overflows.
std::optional<int64_t> tensorReachBytes(const Dims &dims, const Dims &strides,
                                        int64_t offset, int64_t elementBytes);

/// A convolution's parameters, one entry per spatial dim.
struct ConvolutionParameters {
  Dims stride, prePadding, postPadding, dilation;
};

/// A tensor of a graph.
struct GraphTensor {
  int64_t uid = 0;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  Dims dims{}, strides{};
  bool isVirtual = false;
  BackendDescriptor descriptor;
};

/// An operation graph being built. Tensors and operations are owned by the
/// graph; operations are added in the order they compute (each one's inputs
/// before it).
class CudnnGraph {
public:
  explicit CudnnGraph(const Cudnn &dnn) : dnn(dnn) {}

  /// A tensor the variant pack gives an address to, under `uid`.
  const GraphTensor *tensor(int64_t uid, cudnnDataType_t type, const Dims &dims,
                            const Dims &strides);
  /// A float scalar passed by value under `uid` (broadcast to any shape);
  /// its value is in scalars() for the variant pack.
  const GraphTensor *scalar(int64_t uid, float value);
  /// An intermediate that only the engine sees (dense unless `strides`).
  const GraphTensor *intermediate(cudnnDataType_t type, const Dims &dims,
                                  std::optional<Dims> strides = std::nullopt);

  /// c = a b over the last two dimensions (a [.., m, k], b [.., k, n]); a
  /// batch dimension of a or b may be a divisor of c's (GQA's heads).
  /// Returns c.
  const GraphTensor *matmul(const GraphTensor *a, const GraphTensor *b,
                            const GraphTensor *c);
  /// y = mode(x, b) (b null for a unary mode); `math` is the compute type.
  /// A dimension of x or b of 1 is broadcast. Returns y.
  const GraphTensor *pointwise(cudnnPointwiseMode_t mode, const GraphTensor *x,
                               const GraphTensor *b, const GraphTensor *y,
                               cudnnDataType_t math = CUDNN_DATA_FLOAT);
  /// y = t ? x : b. Returns y.
  const GraphTensor *select(const GraphTensor *x, const GraphTensor *b,
                            const GraphTensor *t, const GraphTensor *y);
  /// y = the index of each element of x along `axis` (an int32 tensor of
  /// x's shape). Returns y.
  const GraphTensor *index(const GraphTensor *x, int64_t axis);
  /// y = the sum or maximum of x over the dimensions where y has 1 (or a
  /// divisor of x's, summing groups: GQA's heads). Returns y.
  const GraphTensor *reduction(cudnnReduceTensorOp_t op, const GraphTensor *x,
                               const GraphTensor *y);
  /// y = x's elements viewed as y's dimensions and strides. Returns y.
  const GraphTensor *reshape(const GraphTensor *x, const GraphTensor *y);
  /// One of cuDNN's three convolution operations (cross-correlation,
  /// accumulated in floats): `x` [N, C, X..], `w` [K, C/G, R..] (the groups
  /// follow from C and w's dim 1), `y` [N, K, Y..]. `kind` says which one
  /// the operation writes: y (fprop), x (dgrad) or w (wgrad).
  const GraphTensor *convolution(cudnnBackendDescriptorType_t kind,
                                 const GraphTensor *x, const GraphTensor *w,
                                 const GraphTensor *y,
                                 const ConvolutionParameters &parameters);

  /// The finalized operation graph of every operation added, for `handle`
  /// (none: a graph no plan can be made of, which cuDNN 9 still checks).
  Result<BackendDescriptor> finalize(cudnnHandle_t handle);

  /// The scalars passed by value: uid and value.
  const std::vector<std::pair<int64_t, float>> &scalars() const {
    return byValue;
  }
  /// The first failure, if any.
  Status status() const;

private:
  /// Creates a descriptor of `type` with `attributes` set and finalizes it.
  BackendDescriptor make(cudnnBackendDescriptorType_t type,
                         std::initializer_list<CudnnAttribute> attributes);
  void addOperation(cudnnBackendDescriptorType_t type,
                    std::initializer_list<CudnnAttribute> attributes);
  GraphTensor *newTensor(int64_t uid, cudnnDataType_t type, const Dims &dims,
                         const Dims &strides, bool isVirtual, bool byValue);

  const Cudnn &dnn;
  std::deque<GraphTensor> tensors;
  std::vector<BackendDescriptor> operations;
  /// Descriptors the operations refer to (pointwise, matmul and reduction
  /// descriptors).
  std::vector<BackendDescriptor> kept;
  std::vector<std::pair<int64_t, float>> byValue;
  int64_t nextVirtualUid = 1000;
  std::optional<Error> error;
};

/// An execution plan and the workspace it needs.
struct ExecutionPlan {
  BackendDescriptor plan;
  int64_t workspaceBytes = 0;
};

/// The first configuration of cuDNN's engine heuristics (mode A, then
/// FALLBACK) that finalizes as an execution plan for `graph`. Incompatible,
/// naming `problem` and the last failure, if none does. With `refuseTf32`
/// (float convolutions without TF32), engines whose numerical notes say
/// they use tensor cores or convert their inputs down are skipped, as
/// PyTorch skips them when TF32 is off.
Result<ExecutionPlan> buildExecutionPlan(const Cudnn &dnn, cudnnHandle_t handle,
                                         const BackendDescriptor &graph,
                                         const std::string &problem,
                                         bool refuseTf32 = false);

/// Every configuration of the same heuristics that finalizes as an
/// execution plan for `graph`, each with its workspace, in the heuristics'
/// order (the first is buildExecutionPlan's): the candidates that tuning
/// times. Incompatible, as buildExecutionPlan, if none does.
Result<std::vector<ExecutionPlan>>
buildExecutionPlans(const Cudnn &dnn, cudnnHandle_t handle,
                    const BackendDescriptor &graph, const std::string &problem,
                    bool refuseTf32 = false);

/// Runs `plan` on the handle's stream over the tensors `uids` at
/// `addresses` (device addresses, or host addresses of by-value scalars)
/// and `workspace`.
Status executePlan(const Cudnn &dnn, cudnnHandle_t handle,
                   const ExecutionPlan &plan, const std::vector<int64_t> &uids,
                   const std::vector<void *> &addresses, void *workspace);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_CUDNNGRAPH_H
