//===- CudnnGraph.cpp - Building cuDNN backend graphs ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CudnnGraph.h"

#include "RuntimeImpl.h"

#include <limits>

namespace stride {

/// One attribute to set: `count` values at `data`.
struct CudnnAttribute {
  cudnnBackendAttributeName_t name;
  cudnnBackendAttributeType_t type;
  int64_t count;
  const void *data;
};

namespace {

/// What a descriptor of `type` is, for messages.
const char *describeType(cudnnBackendDescriptorType_t type) {
  switch (type) {
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return "a tensor";
  case CUDNN_BACKEND_POINTWISE_DESCRIPTOR: return "a pointwise descriptor";
  case CUDNN_BACKEND_MATMUL_DESCRIPTOR: return "a matmul descriptor";
  case CUDNN_BACKEND_REDUCTION_DESCRIPTOR: return "a reduction descriptor";
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
    return "a pointwise operation";
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: return "a matmul operation";
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
    return "a reduction operation";
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: return "a reshape operation";
  case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: return "a convolution descriptor";
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    return "a convolution forward operation";
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    return "a convolution data-gradient operation";
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    return "a convolution weight-gradient operation";
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return "the operation graph";
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return "the engine heuristics";
  case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: return "an engine configuration";
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: return "an execution plan";
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: return "the variant pack";
  default: return "a descriptor";
  }
}

// The backend's type tag of each C++ type an attribute is set from.
constexpr cudnnBackendAttributeType_t tagOf(int64_t) { return CUDNN_TYPE_INT64; }
constexpr cudnnBackendAttributeType_t tagOf(float) { return CUDNN_TYPE_FLOAT; }
constexpr cudnnBackendAttributeType_t tagOf(bool) { return CUDNN_TYPE_BOOLEAN; }
constexpr cudnnBackendAttributeType_t tagOf(cudnnDataType_t) {
  return CUDNN_TYPE_DATA_TYPE;
}
constexpr cudnnBackendAttributeType_t tagOf(cudnnPointwiseMode_t) {
  return CUDNN_TYPE_POINTWISE_MODE;
}
constexpr cudnnBackendAttributeType_t tagOf(cudnnReduceTensorOp_t) {
  return CUDNN_TYPE_REDUCTION_OPERATOR_TYPE;
}
constexpr cudnnBackendAttributeType_t tagOf(cudnnBackendHeurMode_t) {
  return CUDNN_TYPE_HEUR_MODE;
}
constexpr cudnnBackendAttributeType_t tagOf(cudnnConvolutionMode_t) {
  return CUDNN_TYPE_CONVOLUTION_MODE;
}
constexpr cudnnBackendAttributeType_t tagOf(cudnnHandle_t) {
  return CUDNN_TYPE_HANDLE;
}

/// An attribute of one value (which must outlive the call it is passed to:
/// a temporary of the same full-expression does).
template <typename T>
CudnnAttribute one(cudnnBackendAttributeName_t name, const T &value) {
  return {name, tagOf(T()), 1, &value};
}
CudnnAttribute integers(cudnnBackendAttributeName_t name,
                        const std::vector<int64_t> &values) {
  return {name, CUDNN_TYPE_INT64, int64_t(values.size()), values.data()};
}
// Descriptors and addresses are both `void *`: each has a function of its own.
CudnnAttribute descriptor(cudnnBackendAttributeName_t name,
                          const cudnnBackendDescriptor_t &value) {
  return {name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &value};
}
CudnnAttribute descriptors(cudnnBackendAttributeName_t name,
                           const std::vector<cudnnBackendDescriptor_t> &values) {
  return {name, CUDNN_TYPE_BACKEND_DESCRIPTOR, int64_t(values.size()),
          values.data()};
}
CudnnAttribute address(cudnnBackendAttributeName_t name, void *const &value) {
  return {name, CUDNN_TYPE_VOID_PTR, 1, &value};
}
CudnnAttribute addresses(cudnnBackendAttributeName_t name,
                         const std::vector<void *> &values) {
  return {name, CUDNN_TYPE_VOID_PTR, int64_t(values.size()), values.data()};
}

/// Creates a descriptor, sets attributes and finalizes it, keeping the
/// first failure.
class DescriptorMaker {
public:
  explicit DescriptorMaker(const Cudnn &dnn) : dnn(dnn) {}

  /// A new descriptor of `type` with `attributes`, finalized unless
  /// `finalize` is false; empty after a failure.
  BackendDescriptor make(cudnnBackendDescriptorType_t type,
                         std::initializer_list<CudnnAttribute> attributes,
                         bool finalize = true) {
    if (error)
      return {};
    cudnnBackendDescriptor_t raw = nullptr;
    if (cudnnStatus_t s = dnn.cudnnBackendCreateDescriptor(type, &raw)) {
      fail("cudnnBackendCreateDescriptor", type, s);
      return {};
    }
    BackendDescriptor owned(dnn, raw);
    for (const CudnnAttribute &a : attributes)
      if (cudnnStatus_t s = dnn.cudnnBackendSetAttribute(raw, a.name, a.type,
                                                         a.count, a.data)) {
        fail("cudnnBackendSetAttribute", type, s);
        return {};
      }
    if (finalize)
      if (cudnnStatus_t s = dnn.cudnnBackendFinalize(raw)) {
        fail("cudnnBackendFinalize", type, s);
        return {};
      }
    return owned;
  }

  void fail(const char *function, cudnnBackendDescriptorType_t type,
            cudnnStatus_t s) {
    if (!error)
      error = makeError(cudnnErrorCode(s),
                        dnn.failure(std::string(function) + " (" +
                                        describeType(type) + ")",
                                    s));
  }

  const Cudnn &dnn;
  std::optional<Error> error;
};

} // namespace

Dims denseStrides(const Dims &d) {
  Dims strides(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;)
    strides[i - 1] = strides[i] * d[i];
  return strides;
}

std::string listDims(const Dims &d) {
  std::string text = "[";
  for (size_t i = 0; i < d.size(); ++i)
    text.append(i ? ", " : "").append(str(d[i]));
  return text + "]";
}

std::optional<int64_t> tensorReachBytes(const Dims &dims, const Dims &strides,
                                        int64_t offset, int64_t elementBytes) {
  int64_t elements = 1 + offset, term = 0, bytes = 0;
  for (size_t i = 0; i < dims.size() && i < strides.size(); ++i)
    if (__builtin_mul_overflow(dims[i] - 1, strides[i], &term) ||
        __builtin_add_overflow(elements, term, &elements))
      return std::nullopt;
  if (__builtin_mul_overflow(elements, elementBytes, &bytes))
    return std::nullopt;
  return bytes;
}

//--- CudnnGraph ----------------------------------------------------------===//

GraphTensor *CudnnGraph::newTensor(int64_t uid, cudnnDataType_t type,
                                   const Dims &dims, const Dims &strides,
                                   bool isVirtual, bool byValue) {
  GraphTensor &t = tensors.emplace_back();
  t.uid = uid;
  t.type = type;
  t.dims = dims;
  t.strides = strides;
  t.isVirtual = isVirtual;
  if (error)
    return &t;
  DescriptorMaker maker(dnn);
  int64_t alignment = 16;
  if (byValue)
    t.descriptor = maker.make(
        CUDNN_BACKEND_TENSOR_DESCRIPTOR,
        {one(CUDNN_ATTR_TENSOR_DATA_TYPE, type),
         integers(CUDNN_ATTR_TENSOR_DIMENSIONS, t.dims),
         integers(CUDNN_ATTR_TENSOR_STRIDES, t.strides),
         one(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid),
         one(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, alignment),
         one(CUDNN_ATTR_TENSOR_IS_VIRTUAL, false),
         one(CUDNN_ATTR_TENSOR_IS_BY_VALUE, true)});
  else
    t.descriptor = maker.make(
        CUDNN_BACKEND_TENSOR_DESCRIPTOR,
        {one(CUDNN_ATTR_TENSOR_DATA_TYPE, type),
         integers(CUDNN_ATTR_TENSOR_DIMENSIONS, t.dims),
         integers(CUDNN_ATTR_TENSOR_STRIDES, t.strides),
         one(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid),
         one(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, alignment),
         one(CUDNN_ATTR_TENSOR_IS_VIRTUAL, isVirtual)});
  if (maker.error)
    error = maker.error;
  return &t;
}

const GraphTensor *CudnnGraph::tensor(int64_t uid, cudnnDataType_t type,
                                      const Dims &dims, const Dims &strides) {
  return newTensor(uid, type, dims, strides, false, false);
}

const GraphTensor *CudnnGraph::scalar(int64_t uid, float value) {
  byValue.emplace_back(uid, value);
  return newTensor(uid, CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, false,
                   true);
}

const GraphTensor *CudnnGraph::intermediate(cudnnDataType_t type,
                                            const Dims &dims,
                                            std::optional<Dims> strides) {
  return newTensor(nextVirtualUid++, type, dims,
                   strides ? *strides : denseStrides(dims), true, false);
}

BackendDescriptor
CudnnGraph::make(cudnnBackendDescriptorType_t type,
                 std::initializer_list<CudnnAttribute> attributes) {
  if (error)
    return {};
  DescriptorMaker maker(dnn);
  BackendDescriptor made = maker.make(type, attributes);
  if (maker.error)
    error = maker.error;
  return made;
}

void CudnnGraph::addOperation(cudnnBackendDescriptorType_t type,
                              std::initializer_list<CudnnAttribute> attributes) {
  BackendDescriptor op = make(type, attributes);
  if (!error)
    operations.push_back(std::move(op));
}

const GraphTensor *CudnnGraph::matmul(const GraphTensor *a,
                                      const GraphTensor *b,
                                      const GraphTensor *c) {
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  BackendDescriptor desc =
      make(CUDNN_BACKEND_MATMUL_DESCRIPTOR,
           {one(CUDNN_ATTR_MATMUL_COMP_TYPE, compute)});
  cudnnBackendDescriptor_t raw[] = {a->descriptor.get(), b->descriptor.get(),
                                    c->descriptor.get(), desc.get()};
  addOperation(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR,
               {descriptor(CUDNN_ATTR_OPERATION_MATMUL_ADESC, raw[0]),
                descriptor(CUDNN_ATTR_OPERATION_MATMUL_BDESC, raw[1]),
                descriptor(CUDNN_ATTR_OPERATION_MATMUL_CDESC, raw[2]),
                descriptor(CUDNN_ATTR_OPERATION_MATMUL_DESC, raw[3])});
  kept.push_back(std::move(desc));
  return c;
}

const GraphTensor *CudnnGraph::pointwise(cudnnPointwiseMode_t mode,
                                         const GraphTensor *x,
                                         const GraphTensor *b,
                                         const GraphTensor *y,
                                         cudnnDataType_t math) {
  BackendDescriptor desc = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR,
              {one(CUDNN_ATTR_POINTWISE_MODE, mode),
               one(CUDNN_ATTR_POINTWISE_MATH_PREC, math)});
  float alpha = 1;
  cudnnBackendDescriptor_t d = desc.get(), xd = x->descriptor.get(),
                           yd = y->descriptor.get();
  if (b) {
    cudnnBackendDescriptor_t bd = b->descriptor.get();
    addOperation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
                 {descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, d),
                  descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, xd),
                  descriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, bd),
                  descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, yd),
                  one(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, alpha),
                  one(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, alpha)});
  } else {
    addOperation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
                 {descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, d),
                  descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, xd),
                  descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, yd),
                  one(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, alpha)});
  }
  kept.push_back(std::move(desc));
  return y;
}

const GraphTensor *CudnnGraph::select(const GraphTensor *x,
                                      const GraphTensor *b,
                                      const GraphTensor *t,
                                      const GraphTensor *y) {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_BINARY_SELECT;
  cudnnDataType_t math = CUDNN_DATA_FLOAT;
  BackendDescriptor desc =
      make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR,
           {one(CUDNN_ATTR_POINTWISE_MODE, mode),
            one(CUDNN_ATTR_POINTWISE_MATH_PREC, math)});
  float alpha = 1;
  cudnnBackendDescriptor_t d = desc.get(), xd = x->descriptor.get(),
                           bd = b->descriptor.get(), td = t->descriptor.get(),
                           yd = y->descriptor.get();
  addOperation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
               {descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, d),
                descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, xd),
                descriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, bd),
                descriptor(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, td),
                descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, yd),
                one(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, alpha),
                one(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, alpha)});
  kept.push_back(std::move(desc));
  return y;
}

const GraphTensor *CudnnGraph::index(const GraphTensor *x, int64_t axis) {
  const GraphTensor *y = intermediate(CUDNN_DATA_INT32, x->dims);
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_GEN_INDEX;
  cudnnDataType_t math = CUDNN_DATA_FLOAT;
  BackendDescriptor desc =
      make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR,
           {one(CUDNN_ATTR_POINTWISE_MODE, mode),
            one(CUDNN_ATTR_POINTWISE_MATH_PREC, math),
            one(CUDNN_ATTR_POINTWISE_AXIS, axis)});
  float alpha = 1;
  cudnnBackendDescriptor_t d = desc.get(), xd = x->descriptor.get(),
                           yd = y->descriptor.get();
  addOperation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
               {descriptor(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, d),
                descriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, xd),
                descriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, yd),
                one(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, alpha)});
  kept.push_back(std::move(desc));
  return y;
}

const GraphTensor *CudnnGraph::reduction(cudnnReduceTensorOp_t op,
                                         const GraphTensor *x,
                                         const GraphTensor *y) {
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  BackendDescriptor desc =
      make(CUDNN_BACKEND_REDUCTION_DESCRIPTOR,
           {one(CUDNN_ATTR_REDUCTION_OPERATOR, op),
            one(CUDNN_ATTR_REDUCTION_COMP_TYPE, compute)});
  cudnnBackendDescriptor_t d = desc.get(), xd = x->descriptor.get(),
                           yd = y->descriptor.get();
  addOperation(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR,
               {descriptor(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, xd),
                descriptor(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, yd),
                descriptor(CUDNN_ATTR_OPERATION_REDUCTION_DESC, d)});
  kept.push_back(std::move(desc));
  return y;
}

const GraphTensor *CudnnGraph::reshape(const GraphTensor *x,
                                       const GraphTensor *y) {
  cudnnBackendDescriptor_t xd = x->descriptor.get(), yd = y->descriptor.get();
  addOperation(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR,
               {descriptor(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, xd),
                descriptor(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, yd)});
  return y;
}

const GraphTensor *
CudnnGraph::convolution(cudnnBackendDescriptorType_t kind,
                        const GraphTensor *x, const GraphTensor *w,
                        const GraphTensor *y,
                        const ConvolutionParameters &parameters) {
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int64_t spatialDims = int64_t(parameters.stride.size());
  BackendDescriptor desc = make(
      CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR,
      {one(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, compute),
       one(CUDNN_ATTR_CONVOLUTION_CONV_MODE, mode),
       one(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, spatialDims),
       integers(CUDNN_ATTR_CONVOLUTION_DILATIONS, parameters.dilation),
       integers(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, parameters.stride),
       integers(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, parameters.prePadding),
       integers(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, parameters.postPadding)});
  // Each operation's attributes: the descriptor, w, x (dx), y (dy), alpha
  // and beta; wgrad's w is dw.
  struct Names {
    cudnnBackendDescriptorType_t kind;
    cudnnBackendAttributeName_t conv, w, x, y, alpha, beta;
  };
  static constexpr Names kNames[] = {
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
      {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA}};
  const Names *names = &kNames[0];
  for (const Names &n : kNames)
    if (n.kind == kind)
      names = &n;
  float alpha = 1, beta = 0;
  cudnnBackendDescriptor_t d = desc.get(), xd = x->descriptor.get(),
                           wd = w->descriptor.get(), yd = y->descriptor.get();
  addOperation(names->kind, {descriptor(names->conv, d),
                             descriptor(names->w, wd),
                             descriptor(names->x, xd),
                             descriptor(names->y, yd),
                             one(names->alpha, alpha), one(names->beta, beta)});
  kept.push_back(std::move(desc));
  return kind == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
             ? x
             : kind == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR
                   ? w
                   : y;
}

Result<BackendDescriptor> CudnnGraph::finalize(cudnnHandle_t handle) {
  std::vector<cudnnBackendDescriptor_t> ops;
  for (const BackendDescriptor &op : operations)
    ops.push_back(op.get());
  BackendDescriptor graph =
      handle ? make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
                    {descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS, ops),
                     one(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, handle)})
             : make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
                    {descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS, ops)});
  if (error)
    return *error;
  return graph;
}

Status CudnnGraph::status() const {
  if (error)
    return *error;
  return Status::ok();
}

//--- Plans and execution -------------------------------------------------===//

namespace {

/// Whether the engine of `config` rounds float inputs (TF32 tensor cores,
/// or inputs converted down), by its numerical notes; true where they
/// cannot be read.
bool roundsFloatInputs(const Cudnn &dnn, cudnnBackendDescriptor_t config) {
  DescriptorMaker maker(dnn);
  BackendDescriptor engine =
      maker.make(CUDNN_BACKEND_ENGINE_DESCRIPTOR, {}, /*finalize=*/false);
  if (maker.error)
    return true;
  cudnnBackendDescriptor_t raw = engine.get();
  int64_t count = 0;
  if (dnn.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count,
                                   &raw) != CUDNN_STATUS_SUCCESS)
    return true;
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT] = {};
  if (dnn.cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                   CUDNN_TYPE_NUMERICAL_NOTE,
                                   CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count,
                                   notes) != CUDNN_STATUS_SUCCESS)
    return true;
  for (int64_t i = 0; i < count && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i)
    if (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE ||
        notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)
      return true;
  return false;
}

/// The configurations of the engine heuristics (mode A, then FALLBACK) that
/// finalize as execution plans for `graph`, in that order, at most `most`
/// of them (buildExecutionPlan, buildExecutionPlans).
Result<std::vector<ExecutionPlan>>
finalizedPlans(const Cudnn &dnn, cudnnHandle_t handle,
               const BackendDescriptor &graph, const std::string &problem,
               bool refuseTf32, size_t most) {
  std::vector<ExecutionPlan> plans;
  std::string lastFailure = "the heuristics gave no configuration";
  int64_t tried = 0;
  for (cudnnBackendHeurMode_t mode :
       {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    if (plans.size() >= most)
      break;
    DescriptorMaker maker(dnn);
    cudnnBackendDescriptor_t g = graph.get();
    BackendDescriptor heuristics =
        maker.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR,
                   {descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, g),
                    one(CUDNN_ATTR_ENGINEHEUR_MODE, mode)});
    if (maker.error)
      return *maker.error;
    int64_t count = 0;
    if (cudnnStatus_t s = dnn.cudnnBackendGetAttribute(
            heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr))
      return makeError(cudnnErrorCode(s),
                       dnn.failure("cudnnBackendGetAttribute (the engine "
                                   "heuristics' results)",
                                   s));
    std::vector<BackendDescriptor> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
      BackendDescriptor config =
          maker.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, {}, false);
      if (maker.error)
        return *maker.error;
      raw.push_back(config.get());
      configs.push_back(std::move(config));
    }
    int64_t found = 0;
    if (count > 0)
      if (cudnnStatus_t s = dnn.cudnnBackendGetAttribute(
              heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
              CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &found, raw.data()))
        return makeError(cudnnErrorCode(s),
                         dnn.failure("cudnnBackendGetAttribute (the engine "
                                     "heuristics' results)",
                                     s));
    for (int64_t i = 0; i < found && i < count && plans.size() < most; ++i) {
      ++tried;
      DescriptorMaker planMaker(dnn);
      cudnnBackendDescriptor_t config = raw[size_t(i)];
      if (refuseTf32 && roundsFloatInputs(dnn, config)) {
        lastFailure = "the engines left use TF32, which the module does not "
                      "allow (stridec --allow-tf32 does)";
        continue;
      }
      BackendDescriptor plan =
          planMaker.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
                         {one(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, handle),
                          descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config)});
      if (planMaker.error) {
        lastFailure = planMaker.error->message;
        continue;
      }
      ExecutionPlan finalized{std::move(plan), 0};
      int64_t elements = 0;
      if (cudnnStatus_t s = dnn.cudnnBackendGetAttribute(
              finalized.plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
              CUDNN_TYPE_INT64, 1, &elements, &finalized.workspaceBytes))
        return makeError(cudnnErrorCode(s),
                         dnn.failure("cudnnBackendGetAttribute (the execution "
                                     "plan's workspace size)",
                                     s));
      plans.push_back(std::move(finalized));
    }
  }
  if (!plans.empty())
    return plans;
  return makeError(ErrorCode::Incompatible,
                   "cuDNN " + dnn.versionText() + " (" + dnn.path +
                       ") has no engine for " + problem +
                       " on this device (" + str(tried) +
                       " configurations of its heuristics tried; " +
                       lastFailure + ")");
}

} // namespace

Result<ExecutionPlan> buildExecutionPlan(const Cudnn &dnn, cudnnHandle_t handle,
                                         const BackendDescriptor &graph,
                                         const std::string &problem,
                                         bool refuseTf32) {
  Result<std::vector<ExecutionPlan>> first =
      finalizedPlans(dnn, handle, graph, problem, refuseTf32, 1);
  if (!first)
    return first.error();
  return std::move(first->front());
}

Result<std::vector<ExecutionPlan>>
buildExecutionPlans(const Cudnn &dnn, cudnnHandle_t handle,
                    const BackendDescriptor &graph, const std::string &problem,
                    bool refuseTf32) {
  return finalizedPlans(dnn, handle, graph, problem, refuseTf32,
                        std::numeric_limits<size_t>::max());
}

Status executePlan(const Cudnn &dnn, cudnnHandle_t handle,
                   const ExecutionPlan &plan, const std::vector<int64_t> &uids,
                   const std::vector<void *> &pointers, void *workspace) {
  DescriptorMaker maker(dnn);
  BackendDescriptor pack =
      maker.make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR,
                 {integers(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, uids),
                  addresses(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, pointers),
                  address(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, workspace)});
  if (maker.error)
    return *maker.error;
  if (cudnnStatus_t s =
          dnn.cudnnBackendExecute(handle, plan.plan.get(), pack.get()))
    return makeError(cudnnErrorCode(s), dnn.failure("cudnnBackendExecute", s));
  return Status::ok();
}

} // namespace stride
