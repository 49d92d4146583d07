//===- FakeCudnn.cpp - A libcudnn.so.9 that runs its graphs on the host ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For tests only: the cuDNN entry points the runtime binds
// (lib/Runtime/Cudnn.h), for use with the fake CUDA driver, whose device
// addresses are host addresses. The backend descriptors are checked as
// cuDNN would check them when finalized (required attributes, shapes that
// go together, each virtual tensor produced before it is read), and
// cudnnBackendExecute interprets the operation graph on the host in double
// precision: matmul (a batch dimension of an operand may divide the
// result's, as GQA's heads do), pointwise (ADD, SUB, MUL, DIV, EXP, LOG,
// IDENTITY, CMP_GE, BINARY_SELECT, GEN_INDEX, RELU_FWD; a dimension of 1
// broadcast),
// reduction (ADD, MAX over the dimensions the output has 1 or a divisor of
// the input's), reshape (the same elements under new dimensions and
// strides) and the three convolutions (forward, data and weight gradient;
// cross-correlation, groups from the channels). Before version 9.6, a matmul into a float tensor of the variant
// pack (dQ's accumulator) adds to what it holds, as cuDNN's did. So the runtime's attention graphs compute real results here,
// which the tests compare with a host reference. Every intermediate is a
// double (no rounding to bf16 between operations). The environment makes it
// fail:
//
//   STRIDE_FAKE_CUDNN_CREATE=S          cudnnCreate returns status S
//   STRIDE_FAKE_CUDNN_FINALIZE=T:S      finalizing a descriptor of type T
//                                       (cudnnBackendDescriptorType_t)
//                                       returns status S
//   STRIDE_FAKE_CUDNN_NO_ENGINE=1       the heuristics give no configuration
//   STRIDE_FAKE_CUDNN_EXECUTE=S         cudnnBackendExecute returns status S
//   STRIDE_FAKE_CUDNN_VERSION=N         cudnnGetVersion returns N (91900)
//   STRIDE_FAKE_CUDNN_TF32=1            every engine notes tensor cores
//
// Each mode of the heuristics (A, FALLBACK) gives STRIDE_FAKE_CUDNN_ENGINES
// configurations (1), numbered in the order the runtime asks for them:
// mode A's 0 to N - 1, FALLBACK's N to 2N - 1. Every one computes the same;
// each may be given its own behavior with a list of values by number (the
// last one for the numbers after it):
//
//   STRIDE_FAKE_CUDNN_WORKSPACE=B,...   a plan needs B bytes (1024); an
//                                       execution whose tensors lie in the
//                                       plan's workspace is refused
//   STRIDE_FAKE_CUDNN_ENGINE_MS=T,...   an execution takes T ms (0) on the
//                                       fake driver's clock, which its
//                                       events measure
//                                       (stride_fake_cuda_spend)
//   STRIDE_FAKE_CUDNN_REFUSED=0|1,...   1: the configuration does not
//                                       finalize as an execution plan
//                                       (CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
//
// and stride_fake_cudnn_counts() reports what it was asked ("handles=1
// heuristics=2 plans=2 executions=3 engine0=2 engine3=1": live handles,
// heuristics and plans finalized, executions, and the executions of each
// configuration that ran);
// stride_fake_cudnn_last_graph() names the operations of the operation
// graph finalized last, in order ("conv_fprop add add relu"). Built
// twice: with STRIDE_FAKE_CUDNN_WITHOUT_EXECUTE it lacks cudnnBackendExecute.
//
//===----------------------------------------------------------------------===//

#include <cudnn_graph.h>

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

FAKE_API size_t cudnnGetVersion();

namespace {

std::atomic<int> liveHandles{0}, heuristics{0}, plans{0}, executions{0};
/// The executions of each configuration.
std::map<int64_t, int> executionsOf;
thread_local std::string lastError;

cudnnStatus_t statusFromEnv(const char *name) {
  const char *value = std::getenv(name);
  return value ? cudnnStatus_t(std::atoi(value)) : CUDNN_STATUS_SUCCESS;
}

/// Entry `index` of the comma-separated list in variable `name` (the last
/// one past its end), or `fallback` without the variable.
double listed(const char *name, int64_t index, double fallback) {
  const char *list = std::getenv(name);
  if (!list)
    return fallback;
  for (; index > 0 && std::strchr(list, ','); --index)
    list = std::strchr(list, ',') + 1;
  return std::atof(list);
}

/// The configurations each mode of the heuristics gives.
int64_t enginesPerMode() {
  if (std::getenv("STRIDE_FAKE_CUDNN_NO_ENGINE"))
    return 0;
  const char *n = std::getenv("STRIDE_FAKE_CUDNN_ENGINES");
  return n ? std::atoll(n) : 1;
}

/// The workspace a plan of configuration `engine` needs.
int64_t workspaceBytes(int64_t engine) {
  return int64_t(listed("STRIDE_FAKE_CUDNN_WORKSPACE", engine, 1024));
}


cudnnStatus_t refuse(cudnnStatus_t status, std::string why) {
  lastError = "fake cuDNN: " + why;
  return status;
}

/// A tensor as the operations see it, copied out of its descriptor.
struct TensorSpec {
  int64_t uid = 0;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  std::vector<int64_t> dims, strides;
  bool isVirtual = false, byValue = false;

  int64_t extent() const {
    int64_t e = 1;
    for (size_t i = 0; i < dims.size(); ++i)
      e += (dims[i] - 1) * strides[i];
    return e;
  }
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    return n;
  }
};

/// An operation of a finalized graph.
struct Op {
  cudnnBackendDescriptorType_t kind;
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_ADD;
  cudnnReduceTensorOp_t reduce = CUDNN_REDUCE_TENSOR_ADD;
  int64_t axis = 0;
  TensorSpec x, b, t, y; // matmul: a = x, b = b, c = y
  bool hasB = false, hasT = false;
  /// A convolution: the forward's tensors and its parameters (x, b and y
  /// above are what it reads and writes).
  TensorSpec convX, convW, convY;
  std::vector<int64_t> convStride, convPad, convDilation;
};

using Program = std::vector<Op>;

struct Desc {
  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  std::map<int, std::vector<uint8_t>> attrs; // by attribute name
  std::map<int, int64_t> counts;
  std::shared_ptr<const Program> program; // graph, engine config, plan
  int64_t engine = 0;                     // engine config, plan
  TensorSpec tensor;                      // a finalized tensor
  Op op;                                  // a finalized operation

  bool has(cudnnBackendAttributeName_t a) const { return attrs.count(a); }
  template <typename T> T get(cudnnBackendAttributeName_t a, T fallback) const {
    auto it = attrs.find(a);
    if (it == attrs.end() || it->second.size() < sizeof(T))
      return fallback;
    T v;
    std::memcpy(&v, it->second.data(), sizeof(T));
    return v;
  }
  template <typename T> std::vector<T> all(cudnnBackendAttributeName_t a) const {
    auto it = attrs.find(a);
    std::vector<T> v;
    if (it == attrs.end())
      return v;
    v.resize(it->second.size() / sizeof(T));
    std::memcpy(v.data(), it->second.data(), v.size() * sizeof(T));
    return v;
  }
  Desc *ref(cudnnBackendAttributeName_t a) const {
    return get<Desc *>(a, nullptr);
  }
};

size_t sizeOf(cudnnBackendAttributeType_t t) {
  switch (t) {
  case CUDNN_TYPE_HANDLE: case CUDNN_TYPE_VOID_PTR:
  case CUDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(void *);
  case CUDNN_TYPE_INT64: return 8;
  case CUDNN_TYPE_FLOAT: return 4;
  case CUDNN_TYPE_DOUBLE: return 8;
  case CUDNN_TYPE_BOOLEAN: return sizeof(bool);
  case CUDNN_TYPE_INT32: return 4;
  default: return 4; // the enumerations
  }
}

cudnnStatus_t checkTensor(Desc &d) {
  for (auto a : {CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_ATTR_TENSOR_DIMENSIONS,
                 CUDNN_ATTR_TENSOR_STRIDES, CUDNN_ATTR_TENSOR_UNIQUE_ID,
                 CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT})
    if (!d.has(a))
      return refuse(CUDNN_STATUS_BAD_PARAM,
                    "a tensor lacks attribute " + std::to_string(a));
  TensorSpec &t = d.tensor;
  t.type = d.get(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT);
  t.dims = d.all<int64_t>(CUDNN_ATTR_TENSOR_DIMENSIONS);
  t.strides = d.all<int64_t>(CUDNN_ATTR_TENSOR_STRIDES);
  t.uid = d.get<int64_t>(CUDNN_ATTR_TENSOR_UNIQUE_ID, 0);
  t.isVirtual = d.get(CUDNN_ATTR_TENSOR_IS_VIRTUAL, false);
  t.byValue = d.get(CUDNN_ATTR_TENSOR_IS_BY_VALUE, false);
  if (t.dims.size() != t.strides.size() || t.dims.empty())
    return refuse(CUDNN_STATUS_BAD_PARAM, "dimensions and strides differ");
  for (int64_t x : t.dims)
    if (x < 1)
      return refuse(CUDNN_STATUS_BAD_PARAM, "a dimension below 1");
  return CUDNN_STATUS_SUCCESS;
}

/// The finalized tensor that attribute `a` of `d` names, or null.
const TensorSpec *tensorOf(const Desc &d, cudnnBackendAttributeName_t a) {
  Desc *t = d.ref(a);
  return t && t->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR && t->finalized
             ? &t->tensor
             : nullptr;
}

/// Whether `from` reaches `to` by broadcasting (1) or grouping (a divisor).
bool fits(const TensorSpec &from, const TensorSpec &to) {
  if (from.dims.size() != to.dims.size())
    return false;
  for (size_t i = 0; i < to.dims.size(); ++i)
    if (to.dims[i] % from.dims[i] != 0)
      return false;
  return true;
}

bool binaryMode(cudnnPointwiseMode_t m) {
  return m == CUDNN_POINTWISE_ADD || m == CUDNN_POINTWISE_SUB ||
         m == CUDNN_POINTWISE_MUL || m == CUDNN_POINTWISE_DIV ||
         m == CUDNN_POINTWISE_CMP_GE || m == CUDNN_POINTWISE_BINARY_SELECT;
}

/// A convolution operation: its tensors by role, its descriptor's
/// parameters, and shapes that go together.
cudnnStatus_t checkConvolution(const Desc &d, Op &op) {
  // The attributes of x, w, y and the descriptor, by operation.
  cudnnBackendAttributeName_t names[3][4] = {
      {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC}};
  int which = d.type == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR
                  ? 0
              : d.type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
                  ? 1
                  : 2;
  const TensorSpec *x = tensorOf(d, names[which][0]),
                   *w = tensorOf(d, names[which][1]),
                   *y = tensorOf(d, names[which][2]);
  Desc *conv = d.ref(names[which][3]);
  if (!x || !w || !y || !conv || !conv->finalized)
    return refuse(CUDNN_STATUS_BAD_PARAM,
                  "a convolution lacks a tensor or its descriptor");
  op.convX = *x, op.convW = *w, op.convY = *y;
  op.convStride = conv->all<int64_t>(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
  op.convPad = conv->all<int64_t>(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
  op.convDilation = conv->all<int64_t>(CUDNN_ATTR_CONVOLUTION_DILATIONS);
  size_t rank = x->dims.size();
  if (rank < 4 || w->dims.size() != rank || y->dims.size() != rank ||
      op.convStride.size() != rank - 2 || x->dims[1] % w->dims[1] != 0 ||
      y->dims[1] != w->dims[0] || x->dims[0] != y->dims[0])
    return refuse(CUDNN_STATUS_BAD_PARAM,
                  "convolution shapes do not go together");
  // What it reads (x, b) and writes (y).
  const TensorSpec *reads[3][2] = {{x, w}, {y, w}, {x, y}};
  const TensorSpec *writes[3] = {y, x, w};
  op.x = *reads[which][0], op.b = *reads[which][1], op.y = *writes[which];
  op.hasB = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t checkOperation(Desc &d) {
  Op &op = d.op;
  op.kind = d.type;
  auto need = [&](const TensorSpec *t, TensorSpec &into, const char *what) {
    if (!t)
      return refuse(CUDNN_STATUS_BAD_PARAM,
                    std::string("an operation lacks its ") + what);
    into = *t;
    return CUDNN_STATUS_SUCCESS;
  };
  cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
  switch (d.type) {
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: {
    Desc *pw = d.ref(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR);
    if (!pw || !pw->finalized)
      return refuse(CUDNN_STATUS_BAD_PARAM, "no pointwise descriptor");
    op.mode = pw->get(CUDNN_ATTR_POINTWISE_MODE, CUDNN_POINTWISE_ADD);
    op.axis = pw->get<int64_t>(CUDNN_ATTR_POINTWISE_AXIS, -1);
    if ((s = need(tensorOf(d, CUDNN_ATTR_OPERATION_POINTWISE_XDESC), op.x, "x")) ||
        (s = need(tensorOf(d, CUDNN_ATTR_OPERATION_POINTWISE_YDESC), op.y, "y")))
      return s;
    op.hasB = binaryMode(op.mode);
    op.hasT = op.mode == CUDNN_POINTWISE_BINARY_SELECT;
    if (op.hasB &&
        (s = need(tensorOf(d, CUDNN_ATTR_OPERATION_POINTWISE_BDESC), op.b, "b")))
      return s;
    if (op.hasT &&
        (s = need(tensorOf(d, CUDNN_ATTR_OPERATION_POINTWISE_TDESC), op.t, "t")))
      return s;
    if (!fits(op.x, op.y) || (op.hasB && !fits(op.b, op.y)) ||
        (op.hasT && !fits(op.t, op.y)))
      return refuse(CUDNN_STATUS_BAD_PARAM, "pointwise shapes differ");
    if (op.mode == CUDNN_POINTWISE_GEN_INDEX &&
        (op.axis < 0 || op.axis >= int64_t(op.y.dims.size())))
      return refuse(CUDNN_STATUS_BAD_PARAM, "GEN_INDEX without an axis");
    return CUDNN_STATUS_SUCCESS;
  }
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: {
    Desc *m = d.ref(CUDNN_ATTR_OPERATION_MATMUL_DESC);
    if (!m || !m->finalized)
      return refuse(CUDNN_STATUS_BAD_PARAM, "no matmul descriptor");
    if ((s = need(tensorOf(d, CUDNN_ATTR_OPERATION_MATMUL_ADESC), op.x, "a")) ||
        (s = need(tensorOf(d, CUDNN_ATTR_OPERATION_MATMUL_BDESC), op.b, "b")) ||
        (s = need(tensorOf(d, CUDNN_ATTR_OPERATION_MATMUL_CDESC), op.y, "c")))
      return s;
    const auto &a = op.x.dims, &b = op.b.dims, &c = op.y.dims;
    if (a.size() != 4 || b.size() != 4 || c.size() != 4 || a[2] != c[2] ||
        b[3] != c[3] || a[3] != b[2] || c[0] % a[0] || c[1] % a[1] ||
        c[0] % b[0] || c[1] % b[1])
      return refuse(CUDNN_STATUS_BAD_PARAM, "matmul shapes do not go together");
    return CUDNN_STATUS_SUCCESS;
  }
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: {
    Desc *r = d.ref(CUDNN_ATTR_OPERATION_REDUCTION_DESC);
    if (!r || !r->finalized)
      return refuse(CUDNN_STATUS_BAD_PARAM, "no reduction descriptor");
    op.reduce = r->get(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_REDUCE_TENSOR_ADD);
    if ((s = need(tensorOf(d, CUDNN_ATTR_OPERATION_REDUCTION_XDESC), op.x, "x")) ||
        (s = need(tensorOf(d, CUDNN_ATTR_OPERATION_REDUCTION_YDESC), op.y, "y")))
      return s;
    if (!fits(op.y, op.x))
      return refuse(CUDNN_STATUS_BAD_PARAM, "reduction shapes differ");
    return CUDNN_STATUS_SUCCESS;
  }
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    return checkConvolution(d, op);
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
    if ((s = need(tensorOf(d, CUDNN_ATTR_OPERATION_RESHAPE_XDESC), op.x, "x")) ||
        (s = need(tensorOf(d, CUDNN_ATTR_OPERATION_RESHAPE_YDESC), op.y, "y")))
      return s;
    if (op.x.count() != op.y.count() || !op.y.isVirtual)
      return refuse(CUDNN_STATUS_BAD_PARAM, "reshape to another size");
    return CUDNN_STATUS_SUCCESS;
  default:
    return refuse(CUDNN_STATUS_NOT_SUPPORTED, "an unknown operation");
  }
}

/// The names of the operations of the operation graph finalized last.
std::string lastGraph;

/// An operation's name in stride_fake_cudnn_last_graph().
std::string nameOf(const Op &o) {
  switch (o.kind) {
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR: return "conv_fprop";
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR: return "conv_dgrad";
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR: return "conv_wgrad";
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: return "matmul";
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: return "reduction";
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: return "reshape";
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: break;
  default: return "operation";
  }
  switch (o.mode) {
  case CUDNN_POINTWISE_ADD: return "add";
  case CUDNN_POINTWISE_SUB: return "sub";
  case CUDNN_POINTWISE_MUL: return "mul";
  case CUDNN_POINTWISE_DIV: return "div";
  case CUDNN_POINTWISE_EXP: return "exp";
  case CUDNN_POINTWISE_LOG: return "log";
  case CUDNN_POINTWISE_IDENTITY: return "identity";
  case CUDNN_POINTWISE_CMP_GE: return "cmp_ge";
  case CUDNN_POINTWISE_BINARY_SELECT: return "select";
  case CUDNN_POINTWISE_GEN_INDEX: return "gen_index";
  case CUDNN_POINTWISE_RELU_FWD: return "relu";
  default: return "pointwise";
  }
}

cudnnStatus_t checkGraph(Desc &d) {
  if (!d.has(CUDNN_ATTR_OPERATIONGRAPH_HANDLE))
    return refuse(CUDNN_STATUS_BAD_PARAM, "the graph has no handle");
  auto program = std::make_shared<Program>();
  std::set<int64_t> produced;
  for (Desc *op : d.all<Desc *>(CUDNN_ATTR_OPERATIONGRAPH_OPS)) {
    if (!op || !op->finalized)
      return refuse(CUDNN_STATUS_BAD_PARAM, "an operation is not finalized");
    const Op &o = op->op;
    for (const TensorSpec *in : {&o.x, o.hasB ? &o.b : nullptr,
                                 o.hasT ? &o.t : nullptr})
      if (in && in->isVirtual && !produced.count(in->uid))
        return refuse(CUDNN_STATUS_BAD_PARAM,
                      "virtual tensor " + std::to_string(in->uid) +
                          " is read before an operation writes it");
    if (!produced.insert(o.y.uid).second)
      return refuse(CUDNN_STATUS_BAD_PARAM,
                    "tensor " + std::to_string(o.y.uid) + " written twice");
    program->push_back(o);
  }
  if (program->empty())
    return refuse(CUDNN_STATUS_BAD_PARAM, "an empty graph");
  lastGraph.clear();
  for (const Op &o : *program)
    lastGraph += (lastGraph.empty() ? "" : " ") + nameOf(o);
  d.program = program;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize(Desc &d) {
  switch (d.type) {
  case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return checkTensor(d);
  case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
    if (!d.has(CUDNN_ATTR_POINTWISE_MODE) || !d.has(CUDNN_ATTR_POINTWISE_MATH_PREC))
      return refuse(CUDNN_STATUS_BAD_PARAM, "a pointwise descriptor lacks its mode");
    if (d.get(CUDNN_ATTR_POINTWISE_MODE, CUDNN_POINTWISE_ADD) ==
            CUDNN_POINTWISE_GEN_INDEX &&
        !d.has(CUDNN_ATTR_POINTWISE_AXIS))
      return refuse(CUDNN_STATUS_BAD_PARAM, "GEN_INDEX lacks its axis");
    return CUDNN_STATUS_SUCCESS;
  case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: {
    size_t n = size_t(d.get<int64_t>(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 0));
    for (auto a : {CUDNN_ATTR_CONVOLUTION_DILATIONS,
                   CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
                   CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
                   CUDNN_ATTR_CONVOLUTION_POST_PADDINGS})
      if (n == 0 || d.all<int64_t>(a).size() != n)
        return refuse(CUDNN_STATUS_BAD_PARAM,
                      "a convolution descriptor's parameters are not one per "
                      "spatial dim");
    return d.has(CUDNN_ATTR_CONVOLUTION_COMP_TYPE) &&
                   d.has(CUDNN_ATTR_CONVOLUTION_CONV_MODE)
               ? CUDNN_STATUS_SUCCESS
               : refuse(CUDNN_STATUS_BAD_PARAM, "an incomplete convolution");
  }
  case CUDNN_BACKEND_MATMUL_DESCRIPTOR:
    return d.has(CUDNN_ATTR_MATMUL_COMP_TYPE)
               ? CUDNN_STATUS_SUCCESS
               : refuse(CUDNN_STATUS_BAD_PARAM, "no compute type");
  case CUDNN_BACKEND_REDUCTION_DESCRIPTOR:
    return d.has(CUDNN_ATTR_REDUCTION_OPERATOR) &&
                   d.has(CUDNN_ATTR_REDUCTION_COMP_TYPE)
               ? CUDNN_STATUS_SUCCESS
               : refuse(CUDNN_STATUS_BAD_PARAM, "an incomplete reduction");
  case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
  case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    return checkOperation(d);
  case CUDNN_BACKEND_ENGINE_DESCRIPTOR: return CUDNN_STATUS_SUCCESS;
  case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return checkGraph(d);
  case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: {
    Desc *g = d.ref(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
    if (!g || !g->finalized || !d.has(CUDNN_ATTR_ENGINEHEUR_MODE))
      return refuse(CUDNN_STATUS_BAD_PARAM, "heuristics without a graph");
    d.program = g->program;
    ++heuristics;
    return CUDNN_STATUS_SUCCESS;
  }
  case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: {
    Desc *c = d.ref(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
    if (!c || !c->program || !d.has(CUDNN_ATTR_EXECUTION_PLAN_HANDLE))
      return refuse(CUDNN_STATUS_BAD_PARAM, "a plan without configuration");
    if (listed("STRIDE_FAKE_CUDNN_REFUSED", c->engine, 0) != 0)
      return refuse(CUDNN_STATUS_NOT_SUPPORTED_SHAPE,
                    "configuration " + std::to_string(c->engine) +
                        " refused as asked");
    d.program = c->program;
    d.engine = c->engine;
    ++plans;
    return CUDNN_STATUS_SUCCESS;
  }
  case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
    if (d.all<int64_t>(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS).size() !=
            d.all<void *>(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS).size() ||
        !d.has(CUDNN_ATTR_VARIANT_PACK_WORKSPACE))
      return refuse(CUDNN_STATUS_BAD_PARAM, "an incomplete variant pack");
    return CUDNN_STATUS_SUCCESS;
  default: return refuse(CUDNN_STATUS_NOT_SUPPORTED, "an unknown descriptor");
  }
}

//--- Execution on the host -----------------------------------------------===//

#ifndef STRIDE_FAKE_CUDNN_WITHOUT_EXECUTE

/// Tells the fake CUDA driver, if it is loaded, that work took `ms`.
void spend(double ms) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!driver)
    return;
  if (auto f = reinterpret_cast<void (*)(double)>(
          dlsym(driver, "stride_fake_cuda_spend")))
    f(ms);
  dlclose(driver);
}

double decode(cudnnDataType_t type, const void *base, int64_t i) {
  switch (type) {
  case CUDNN_DATA_FLOAT: return static_cast<const float *>(base)[i];
  case CUDNN_DATA_BFLOAT16: {
    uint32_t bits = uint32_t(static_cast<const uint16_t *>(base)[i]) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  default: { // half
    _Float16 half;
    std::memcpy(&half, static_cast<const uint16_t *>(base) + i, 2);
    return double(half);
  }
  }
}

void encode(cudnnDataType_t type, void *base, int64_t i, double value) {
  float f = float(value);
  if (type == CUDNN_DATA_FLOAT) {
    static_cast<float *>(base)[i] = f;
    return;
  }
  uint16_t h;
  if (type == CUDNN_DATA_BFLOAT16) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
    h = uint16_t(bits >> 16);
  } else {
    _Float16 half = _Float16(f);
    std::memcpy(&h, &half, 2);
  }
  static_cast<uint16_t *>(base)[i] = h;
}

/// Each tensor's values during one execution.
class Memory {
public:
  Memory(const std::map<int64_t, void *> &pointers) : pointers(pointers) {}

  double read(const TensorSpec &t, const std::vector<int64_t> &at,
              const std::vector<int64_t> &outer) {
    int64_t offset = 0;
    for (size_t i = 0; i < t.dims.size(); ++i)
      offset += at[i] / (outer[i] / t.dims[i]) * t.strides[i];
    if (t.isVirtual)
      return storage(t)[size_t(offset)];
    return decode(t.byValue ? CUDNN_DATA_FLOAT : t.type, pointers.at(t.uid),
                  t.byValue ? 0 : offset);
  }
  void write(const TensorSpec &t, const std::vector<int64_t> &at,
             double value) {
    int64_t offset = 0;
    for (size_t i = 0; i < t.dims.size(); ++i)
      offset += at[i] * t.strides[i];
    if (t.isVirtual)
      storage(t)[size_t(offset)] = value;
    else
      encode(t.type, pointers.at(t.uid), offset, value);
  }
  std::vector<double> &storage(const TensorSpec &t) {
    std::vector<double> &s = virtuals[t.uid];
    if (s.size() < size_t(t.extent()))
      s.resize(size_t(t.extent()));
    return s;
  }

private:
  const std::map<int64_t, void *> &pointers;
  std::map<int64_t, std::vector<double>> virtuals;
};

/// Calls `f(index)` for every index of `dims`.
template <typename F> void forEach(const std::vector<int64_t> &dims, F f) {
  std::vector<int64_t> at(dims.size(), 0);
  for (;;) {
    f(at);
    size_t i = dims.size();
    while (i-- > 0) {
      if (++at[i] < dims[i])
        break;
      at[i] = 0;
    }
    if (i == size_t(-1))
      return;
  }
}

double pointwise(const Op &op, double x, double b, double t,
                 const std::vector<int64_t> &at) {
  switch (op.mode) {
  case CUDNN_POINTWISE_ADD: return x + b;
  case CUDNN_POINTWISE_SUB: return x - b;
  case CUDNN_POINTWISE_MUL: return x * b;
  case CUDNN_POINTWISE_DIV: return x / b;
  case CUDNN_POINTWISE_EXP: return std::exp(x);
  case CUDNN_POINTWISE_LOG: return std::log(x);
  case CUDNN_POINTWISE_IDENTITY: return x;
  case CUDNN_POINTWISE_CMP_GE: return x >= b ? 1 : 0;
  case CUDNN_POINTWISE_BINARY_SELECT: return t != 0 ? x : b;
  case CUDNN_POINTWISE_GEN_INDEX: return double(at[size_t(op.axis)]);
  case CUDNN_POINTWISE_RELU_FWD: return std::isnan(x) ? x : x > 0 ? x : 0;
  default: return NAN;
  }
}

/// A convolution: each pair of a y and an x element that a window joins,
/// summed into what the operation writes.
void runConvolution(const Op &op, Memory &m) {
  const TensorSpec &x = op.convX, &w = op.convW, &y = op.convY;
  bool forward = op.kind == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
  bool data = op.kind == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
  std::map<std::vector<int64_t>, double> sums;
  forEach(op.y.dims, [&](const std::vector<int64_t> &at) { sums[at] = 0; });
  int64_t perGroup = w.dims[1], outPerGroup = w.dims[0] / (x.dims[1] / perGroup);
  size_t spatial = x.dims.size() - 2;
  std::vector<int64_t> windows = w.dims;
  windows[0] = 1; // one output channel at a time
  forEach(y.dims, [&](const std::vector<int64_t> &yAt) {
    forEach(windows, [&](const std::vector<int64_t> &tap) {
      std::vector<int64_t> wAt = tap, xAt = yAt;
      wAt[0] = yAt[1];
      xAt[1] = yAt[1] / outPerGroup * perGroup + tap[1];
      for (size_t d = 0; d < spatial; ++d) {
        xAt[d + 2] = yAt[d + 2] * op.convStride[d] - op.convPad[d] +
                     tap[d + 2] * op.convDilation[d];
        if (xAt[d + 2] < 0 || xAt[d + 2] >= x.dims[d + 2])
          return;
      }
      if (forward)
        sums[yAt] += m.read(x, xAt, x.dims) * m.read(w, wAt, w.dims);
      else if (data)
        sums[xAt] += m.read(y, yAt, y.dims) * m.read(w, wAt, w.dims);
      else
        sums[wAt] += m.read(y, yAt, y.dims) * m.read(x, xAt, x.dims);
    });
  });
  for (const auto &[at, v] : sums)
    m.write(op.y, at, v);
}

cudnnStatus_t run(const Program &program, Memory &m) {
  for (const Op &op : program) {
    const std::vector<int64_t> &out = op.y.dims;
    switch (op.kind) {
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
      if (op.mode != CUDNN_POINTWISE_GEN_INDEX &&
          std::isnan(pointwise(op, 1, 1, 1, out)))
        return refuse(CUDNN_STATUS_NOT_SUPPORTED, "a pointwise mode");
      forEach(out, [&](const std::vector<int64_t> &at) {
        double x = op.mode == CUDNN_POINTWISE_GEN_INDEX ? 0 : m.read(op.x, at, out);
        double b = op.hasB ? m.read(op.b, at, out) : 0;
        double t = op.hasT ? m.read(op.t, at, out) : 0;
        m.write(op.y, at, pointwise(op, x, b, t, at));
      });
      break;
    case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: {
      int64_t k = op.x.dims[3];
      bool accumulates = cudnnGetVersion() < 90600 && !op.y.isVirtual &&
                         op.y.type == CUDNN_DATA_FLOAT;
      std::vector<int64_t> aOuter = out, bOuter = out;
      aOuter[3] = k;
      bOuter[2] = k;
      forEach(out, [&](const std::vector<int64_t> &at) {
        double sum = 0;
        std::vector<int64_t> ai = at, bi = at;
        for (int64_t l = 0; l < k; ++l) {
          ai[3] = l;
          bi[2] = l;
          sum += m.read(op.x, ai, aOuter) * m.read(op.b, bi, bOuter);
        }
        // Before 9.6 a float accumulator in the workspace (dQ's) adds to
        // what it holds, which the caller zeroes.
        if (accumulates)
          sum += m.read(op.y, at, out);
        m.write(op.y, at, sum);
      });
      break;
    }
    case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: {
      bool max = op.reduce == CUDNN_REDUCE_TENSOR_MAX;
      if (!max && op.reduce != CUDNN_REDUCE_TENSOR_ADD)
        return refuse(CUDNN_STATUS_NOT_SUPPORTED, "a reduction operator");
      std::map<std::vector<int64_t>, double> acc;
      const std::vector<int64_t> &in = op.x.dims;
      forEach(in, [&](const std::vector<int64_t> &at) {
        std::vector<int64_t> to(at.size());
        for (size_t i = 0; i < at.size(); ++i)
          to[i] = at[i] / (in[i] / out[i]);
        double v = m.read(op.x, at, in);
        auto [it, fresh] = acc.emplace(to, v);
        if (!fresh)
          it->second = max ? std::max(it->second, v) : it->second + v;
      });
      for (const auto &[at, v] : acc)
        m.write(op.y, at, v);
      break;
    }
    case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: {
      // The same memory: y's element at offset o is x's at offset o.
      std::vector<double> &y = m.storage(op.y);
      forEach(op.x.dims, [&](const std::vector<int64_t> &at) {
        int64_t offset = 0;
        for (size_t i = 0; i < at.size(); ++i)
          offset += at[i] * op.x.strides[i];
        if (size_t(offset) >= y.size())
          y.resize(size_t(offset) + 1);
        y[size_t(offset)] = m.read(op.x, at, op.x.dims);
      });
      break;
    }
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      runConvolution(op, m);
      break;
    default: return refuse(CUDNN_STATUS_NOT_SUPPORTED, "an operation");
    }
  }
  return CUDNN_STATUS_SUCCESS;
}
#endif

} // namespace

FAKE_API size_t cudnnGetVersion() {
  const char *v = std::getenv("STRIDE_FAKE_CUDNN_VERSION");
  return v ? size_t(std::atol(v)) : 91900;
}

FAKE_API const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (int(status)) {
  case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
  case CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN:
    return "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN";
  case CUDNN_STATUS_NOT_SUPPORTED_SHAPE:
    return "CUDNN_STATUS_NOT_SUPPORTED_SHAPE";
  case CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED:
    return "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED";
  case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
  case CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED:
    return "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED";
  default: return "CUDNN_STATUS_INTERNAL_ERROR";
  }
}

FAKE_API void cudnnGetLastErrorString(char *message, size_t max) {
  if (max == 0)
    return;
  std::strncpy(message, lastError.c_str(), max - 1);
  message[max - 1] = 0;
  lastError.clear();
}

FAKE_API cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  if (cudnnStatus_t s = statusFromEnv("STRIDE_FAKE_CUDNN_CREATE"))
    return s;
  *handle = reinterpret_cast<cudnnHandle_t>(new int(0));
  ++liveHandles;
  return CUDNN_STATUS_SUCCESS;
}

FAKE_API cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete reinterpret_cast<int *>(handle);
  --liveHandles;
  return CUDNN_STATUS_SUCCESS;
}

FAKE_API cudnnStatus_t cudnnSetStream(cudnnHandle_t, cudaStream_t) {
  return CUDNN_STATUS_SUCCESS;
}

FAKE_API cudnnStatus_t
cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type,
                             cudnnBackendDescriptor_t *descriptor) {
  auto *d = new Desc;
  d->type = type;
  *descriptor = d;
  return CUDNN_STATUS_SUCCESS;
}

FAKE_API cudnnStatus_t
cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  delete static_cast<Desc *>(descriptor);
  return CUDNN_STATUS_SUCCESS;
}

FAKE_API cudnnStatus_t cudnnBackendSetAttribute(
    cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
    cudnnBackendAttributeType_t type, int64_t count, const void *values) {
  auto *d = static_cast<Desc *>(descriptor);
  if (!d || d->finalized || count < 0 || (count > 0 && !values))
    return refuse(CUDNN_STATUS_BAD_PARAM, "a bad attribute");
  const auto *bytes = static_cast<const uint8_t *>(values);
  d->attrs[name].assign(bytes, bytes + size_t(count) * sizeOf(type));
  d->counts[name] = count;
  return CUDNN_STATUS_SUCCESS;
}

FAKE_API cudnnStatus_t cudnnBackendGetAttribute(
    cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t name,
    cudnnBackendAttributeType_t, int64_t requested, int64_t *count,
    void *values) {
  auto *d = static_cast<Desc *>(descriptor);
  if (!d || !d->finalized)
    return refuse(CUDNN_STATUS_BAD_PARAM, "not finalized");
  if (name == CUDNN_ATTR_ENGINEHEUR_RESULTS) {
    int64_t available = enginesPerMode();
    int64_t first = d->get(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_HEUR_MODE_A) ==
                            CUDNN_HEUR_MODE_FALLBACK
                        ? available
                        : 0;
    *count = requested == 0 ? available : std::min(requested, available);
    for (int64_t i = 0; i < *count && requested > 0; ++i) {
      Desc *config = static_cast<Desc **>(values)[i];
      config->program = d->program;
      config->engine = first + i;
      config->finalized = true;
    }
    return CUDNN_STATUS_SUCCESS;
  }
  // An engine configuration's engine, and its numerical notes: none, or
  // tensor cores with STRIDE_FAKE_CUDNN_TF32=1.
  if (name == CUDNN_ATTR_ENGINECFG_ENGINE) {
    Desc *engine = static_cast<Desc **>(values)[0];
    engine->finalized = true;
    *count = 1;
    return CUDNN_STATUS_SUCCESS;
  }
  if (name == CUDNN_ATTR_ENGINE_NUMERICAL_NOTE) {
    bool tf32 = std::getenv("STRIDE_FAKE_CUDNN_TF32");
    *count = tf32 && requested > 0 ? 1 : 0;
    if (*count)
      static_cast<cudnnBackendNumericalNote_t *>(values)[0] =
          CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
    return CUDNN_STATUS_SUCCESS;
  }
  if (name == CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE) {
    *static_cast<int64_t *>(values) = workspaceBytes(d->engine);
    *count = 1;
    return CUDNN_STATUS_SUCCESS;
  }
  return refuse(CUDNN_STATUS_NOT_SUPPORTED, "an attribute the fake lacks");
}

FAKE_API cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  auto *d = static_cast<Desc *>(descriptor);
  if (const char *fail = std::getenv("STRIDE_FAKE_CUDNN_FINALIZE")) {
    const char *colon = std::strchr(fail, ':');
    if (colon && std::atoi(fail) == int(d->type))
      return refuse(cudnnStatus_t(std::atoi(colon + 1)), "refused as asked");
  }
  cudnnStatus_t s = finalize(*d);
  d->finalized = s == CUDNN_STATUS_SUCCESS;
  return s;
}

#ifndef STRIDE_FAKE_CUDNN_WITHOUT_EXECUTE
FAKE_API cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle,
                                           cudnnBackendDescriptor_t plan,
                                           cudnnBackendDescriptor_t pack) {
  ++executions;
  if (cudnnStatus_t s = statusFromEnv("STRIDE_FAKE_CUDNN_EXECUTE"))
    return refuse(s, "execution failed as asked");
  auto *p = static_cast<Desc *>(plan), *v = static_cast<Desc *>(pack);
  if (!handle || !p || !p->finalized || !p->program || !v || !v->finalized)
    return refuse(CUDNN_STATUS_BAD_PARAM, "execute without a plan or pack");
  std::vector<int64_t> uids = v->all<int64_t>(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
  std::vector<void *> at = v->all<void *>(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
  std::map<int64_t, void *> pointers;
  for (size_t i = 0; i < uids.size(); ++i)
    if (!pointers.emplace(uids[i], at[i]).second || !at[i])
      return refuse(CUDNN_STATUS_BAD_PARAM,
                    "uid " + std::to_string(uids[i]) + " twice or null");
  for (const Op &op : *p->program)
    for (const TensorSpec *t : {&op.x, &op.b, &op.t, &op.y})
      if (t->uid && !t->isVirtual && !pointers.count(t->uid))
        return refuse(CUDNN_STATUS_BAD_PARAM,
                      "no address for uid " + std::to_string(t->uid));
  // The plan's workspace is its own: no tensor may lie in it.
  int64_t needed = workspaceBytes(p->engine);
  auto *workspace = static_cast<char *>(
      v->get<void *>(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, nullptr));
  if (needed > 0 && !workspace)
    return refuse(CUDNN_STATUS_BAD_PARAM, "no workspace");
  for (const auto &[uid, address] : pointers)
    if (static_cast<char *>(address) >= workspace &&
        static_cast<char *>(address) < workspace + needed)
      return refuse(CUDNN_STATUS_BAD_PARAM,
                    "uid " + std::to_string(uid) +
                        " lies in the plan's workspace of " +
                        std::to_string(needed) + " bytes");
  ++executionsOf[p->engine];
  spend(listed("STRIDE_FAKE_CUDNN_ENGINE_MS", p->engine, 0));
  Memory memory(pointers);
  return run(*p->program, memory);
}
#endif

FAKE_API const char *stride_fake_cudnn_last_graph() {
  return lastGraph.c_str();
}

FAKE_API const char *stride_fake_cudnn_counts() {
  static thread_local std::string text;
  text = "handles=" + std::to_string(liveHandles) +
         " heuristics=" + std::to_string(heuristics) +
         " plans=" + std::to_string(plans) +
         " executions=" + std::to_string(executions);
  for (const auto &[engine, count] : executionsOf)
    text += " engine" + std::to_string(engine) + "=" + std::to_string(count);
  return text.c_str();
}
