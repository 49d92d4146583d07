//===- CudnnConvolution.cpp - The cuDNN convolution routine ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `cudnn.convolution`: one convolution as cuDNN 9's graph API computes it,
// forward (`conv_fprop`, with the bias, a residual and a relu applied in
// the same graph), data
// gradient (`conv_dgrad`: a transposed convolution) or weight gradient
// (`conv_wgrad`). The compiler decides everything
// (python-free-docs/convolution.md, "The cuDNN step"); this routine checks
// the step's descriptor when the executable loads, then, in each
// invocation, builds the graph from the descriptor (every tensor's dims and
// strides: channels-last is a stride order; a 1-D convolution as 2-D with
// a unit dim), chooses an execution plan with cuDNN's heuristics (once per
// problem and invocation) and grows the workspace the invocation's
// convolution steps share to what the plan needs. A run is one
// cudnnBackendExecute on the invocation's stream.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"
#include "CudnnGraph.h"
#include "CudnnSession.h"
#include "DescriptorReader.h"
#include "RuntimeImpl.h"

namespace stride {

namespace {

//--- The descriptor ----------------------------------------------------===//

struct DTypeEntry {
  const char *name;
  cudnnDataType_t type;
  int64_t bytes;
};
constexpr DTypeEntry kDTypes[] = {{"f16", CUDNN_DATA_HALF, 2},
                                  {"bf16", CUDNN_DATA_BFLOAT16, 2},
                                  {"f32", CUDNN_DATA_FLOAT, 4}};

struct KindEntry {
  const char *name;
  cudnnBackendDescriptorType_t operation;
};
constexpr KindEntry kKinds[] = {
    {"fprop", CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR},
    {"dgrad", CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR},
    {"wgrad", CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR}};

// The uid of each tensor in the variant pack.
enum Uid : int64_t { kX = 1, kW, kY, kBias, kResidual };

/// A tensor of the step: its name in messages, uid, dims and strides (as
/// the descriptor gives them), and element offset in its buffer.
struct Operand {
  const char *name;
  Uid uid;
  Dims dims, strides;
  int64_t offset = 0;
};

/// A `cudnn.convolution` descriptor, read and checked.
struct ConvolutionProblem {
  const KindEntry *kind = nullptr;
  const DTypeEntry *dtype = nullptr;
  /// The convolution's name in the graph (its node).
  std::string name;
  Dims xDims, wDims, yDims, xStrides, wStrides, yStrides;
  ConvolutionParameters parameters;
  bool bias = false, tf32 = false;
  /// The epilogue, after the bias: a residual of y's dims and strides
  /// added, then a relu.
  bool residual = false, relu = false;
  std::vector<int64_t> offsets;

  bool forward() const { return kind == &kKinds[0]; }
  size_t spatialRank() const { return xDims.size() - 2; }

  /// The step's tensors, in buffer order: what it reads, then what it
  /// writes.
  std::vector<Operand> operands() const {
    Operand x{"x", kX, xDims, xStrides}, w{"w", kW, wDims, wStrides},
        y{"y", kY, yDims, yStrides};
    std::vector<Operand> all;
    if (forward()) {
      all = {x, w};
      if (bias)
        all.push_back({"bias", kBias, {yDims[1]}, {1}});
      if (residual)
        all.push_back({"residual", kResidual, yDims, yStrides});
      all.push_back(y);
    } else if (kind == &kKinds[1]) {
      all = {y, w, x};
    } else {
      all = {x, y, w};
    }
    for (size_t i = 0; i < all.size() && i < offsets.size(); ++i)
      all[i].offset = offsets[i];
    return all;
  }

  /// "convolution 'conv1' (bf16 fprop, x [64, 3, 224, 224] strides [..],
  /// ..., stride [2, 2], padding [3, 3]/[3, 3], dilation [1, 1], bias)".
  std::string describe() const {
    std::string text = "convolution " + quoted(name) + " (" + dtype->name +
                       " " + kind->name;
    for (const Operand &o : operands())
      if (o.uid != kBias && o.uid != kResidual)
        text += ", " + std::string(o.name) + " " + listDims(o.dims) +
                " strides " + listDims(o.strides);
    text += ", stride " + listDims(parameters.stride) + ", padding " +
            listDims(parameters.prePadding) + "/" +
            listDims(parameters.postPadding) + ", dilation " +
            listDims(parameters.dilation);
    return text + (bias ? ", bias" : "") + (residual ? ", residual" : "") +
           (relu ? ", relu" : "") + (tf32 ? ", TF32" : "") + ")";
  }

  /// What the graph and plan depend on: everything but the offsets and
  /// the name.
  std::string planKey() const {
    std::string key = "convolution";
    key.append(" ").append(dtype->name).append(" ").append(kind->name);
    key.append(bias ? " bias" : "").append(tf32 ? " tf32" : "");
    key.append(residual ? " residual" : "").append(relu ? " relu" : "");
    for (const Operand &o : operands())
      key.append(" ").append(listDims(o.dims)).append(listDims(o.strides));
    for (const Dims *d :
         {&parameters.stride, &parameters.prePadding, &parameters.postPadding,
          &parameters.dilation})
      key.append(listDims(*d));
    return key;
  }
};

const std::vector<std::string> kFields = {
    "kind",    "dtype",       "name",         "x_dims",   "w_dims",
    "y_dims",  "x_strides",   "w_strides",    "y_strides", "stride",
    "pre_padding", "post_padding", "dilation", "bias",     "tf32",
    "offsets", "residual", "relu"};

/// A field that must be 0 or 1.
bool flag(DescriptorReader &r, const char *name) {
  int64_t v = r.integer(name);
  if (v != 0 && v != 1)
    r.fail("field " + quoted(name) + " is " + str(v) + "; it must be 0 or 1");
  return v == 1;
}

/// The text of field `name` (the convolution's name), or "" without it.
std::string textField(const LibraryCallContext &context, const char *name) {
  for (const DescriptorField &f : context.call.descriptor)
    if (f.name == name)
      return f.text;
  return "";
}

void readFields(DescriptorReader &r, const LibraryCallContext &context,
                ConvolutionProblem &p) {
  p.kind = r.choice("kind", kKinds);
  p.dtype = r.choice("dtype", kDTypes);
  p.name = textField(context, "name");
  const DescriptorField *x = nullptr;
  for (const DescriptorField &f : context.call.descriptor)
    if (f.name == "x_dims")
      x = &f;
  size_t rank = x ? x->ints.size() : 0;
  if (x && (rank < 3 || rank > 5)) {
    r.fail("field 'x_dims' has " + str(int64_t(rank)) +
           " integers; it must be 3 to 5 ([N, C, spatial..] with 1 to 3 "
           "spatial dims)");
    return;
  }
  const char *dimsAre = "N, C and the spatial dims";
  p.xDims = r.integers("x_dims", rank, dimsAre);
  p.wDims = r.integers("w_dims", rank, "K, C / groups and the kernel dims");
  p.yDims = r.integers("y_dims", rank, dimsAre);
  p.xStrides = r.integers("x_strides", rank, "x's strides in elements");
  p.wStrides = r.integers("w_strides", rank, "w's strides in elements");
  p.yStrides = r.integers("y_strides", rank, "y's strides in elements");
  size_t spatial = rank > 2 ? rank - 2 : 0;
  const char *onePerDim = "one per spatial dim";
  p.parameters.stride = r.integers("stride", spatial, onePerDim);
  p.parameters.prePadding = r.integers("pre_padding", spatial, onePerDim);
  p.parameters.postPadding = r.integers("post_padding", spatial, onePerDim);
  p.parameters.dilation = r.integers("dilation", spatial, onePerDim);
  p.bias = flag(r, "bias");
  p.tf32 = flag(r, "tf32");
  // Absent in modules written before epilogues: none.
  p.residual = r.has("residual") && flag(r, "residual");
  p.relu = r.has("relu") && flag(r, "relu");
  if (r.has("offsets"))
    p.offsets = r.integers("offsets", p.operands().size(),
                           "each buffer's element offset, in buffer order");
  r.refuseUnknownFields();
}

/// The dims and parameters go together as a convolution.
void checkShapes(DescriptorReader &r, const ConvolutionProblem &p) {
  for (const Dims *d : {&p.xDims, &p.wDims, &p.yDims})
    for (int64_t v : *d)
      if (v < 1)
        return r.fail("gives dims " + listDims(*d) +
                      "; every dim must be at least 1");
  if (p.bias && !p.forward())
    return r.fail("adds a bias to a " + std::string(p.kind->name) +
                  "; only fprop takes one");
  if ((p.residual || p.relu) && !p.forward())
    return r.fail("gives a " + std::string(p.kind->name) +
                  " an epilogue (residual or relu); only fprop takes one");
  int64_t c = p.xDims[1], k = p.wDims[0], perGroup = p.wDims[1];
  if (c % perGroup != 0 || k % (c / perGroup) != 0 || p.yDims[1] != k ||
      p.yDims[0] != p.xDims[0])
    return r.fail("gives x " + listDims(p.xDims) + ", w " +
                  listDims(p.wDims) + " and y " + listDims(p.yDims) +
                  ", which are not one grouped convolution (x's channels a "
                  "multiple of w's dim 1, the groups dividing w's dim 0, "
                  "y's channels w's dim 0, one batch)");
  for (size_t d = 0; d < p.spatialRank(); ++d) {
    int64_t s = p.parameters.stride[d], l = p.parameters.dilation[d];
    int64_t pre = p.parameters.prePadding[d], post = p.parameters.postPadding[d];
    if (s < 1 || l < 1 || pre < 0 || post < 0)
      return r.fail("gives spatial dim " + str(int64_t(d)) + " stride " +
                    str(s) + ", dilation " + str(l) + " and padding " +
                    str(pre) + "/" + str(post) + "; stride and dilation must "
                    "be at least 1, padding at least 0");
    int64_t span = l * (p.wDims[d + 2] - 1) + 1;
    int64_t expected = (p.xDims[d + 2] + pre + post - span) / s + 1;
    if (p.xDims[d + 2] + pre + post < span || expected != p.yDims[d + 2])
      return r.fail("gives spatial dim " + str(int64_t(d)) + " x size " +
                    str(p.xDims[d + 2]) + ", kernel " + str(p.wDims[d + 2]) +
                    " and y size " + str(p.yDims[d + 2]) +
                    ", which the stride, padding and dilation do not give");
  }
}

/// Each operand's strides, alignment and extent in its buffer.
void checkBuffers(DescriptorReader &r, const ConvolutionProblem &p,
                  const std::vector<int64_t> &bufferBytes) {
  std::vector<Operand> operands = p.operands();
  if (bufferBytes.size() != operands.size())
    return r.fail("of a " + std::string(p.kind->name) +
                  (p.bias ? " with a bias" : "") +
                  (p.residual ? " and a residual" : "") + " takes " +
                  str(int64_t(operands.size())) + " buffers, but the step "
                  "has " + str(int64_t(bufferBytes.size())));
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand &o = operands[i];
    if (o.offset < 0 || o.offset * p.dtype->bytes % 16 != 0)
      return r.fail("field 'offsets' gives " + std::string(o.name) +
                    " the offset " + str(o.offset) + "; each must be at least "
                    "0 and a multiple of 16 bytes, as cuDNN reads aligned "
                    "addresses");
    for (int64_t s : o.strides)
      if (s < 0)
        return r.fail("gives " + std::string(o.name) + " strides " +
                      listDims(o.strides) + "; strides must not be negative");
    std::optional<int64_t> reach =
        tensorReachBytes(o.dims, o.strides, o.offset, p.dtype->bytes);
    if (!reach || *reach > bufferBytes[i])
      return r.fail("gives " + std::string(o.name) + " dims " +
                    listDims(o.dims) + " and strides " + listDims(o.strides) +
                    ", which reach past its buffer (buffer " + str(int64_t(i)) +
                    " of the step, " + str(bufferBytes[i]) + " bytes)");
  }
}

Result<ConvolutionProblem> readProblem(const LibraryCallContext &context) {
  DescriptorReader r(context, kFields);
  ConvolutionProblem p;
  readFields(r, context, p);
  if (!r.firstError())
    checkShapes(r, p);
  if (!r.firstError())
    checkBuffers(r, p, context.bufferBytes);
  if (r.firstError())
    return *r.firstError();
  return p;
}

//--- The graph -----------------------------------------------------------===//

/// A 1-D convolution's tensor as 2-D: a unit spatial dim before the one it
/// has, whose stride continues the spatial dim's.
Dims withUnitDim(const Dims &d, int64_t unit) {
  return {d[0], d[1], unit, d[2]};
}
Dims unitStride(const Dims &dims, const Dims &strides) {
  return withUnitDim(strides, strides[2] * dims[2]);
}

/// The graph of one step: the convolution, and for a forward with an
/// epilogue, the bias added, the residual added and the relu applied in
/// floats to the convolution's virtual result, the last into y.
class ConvolutionGraph {
public:
  ConvolutionGraph(const Cudnn &dnn, const ConvolutionProblem &p)
      : g(dnn), p(p) {}

  CudnnGraph &build() {
    ConvolutionParameters parameters = p.parameters;
    if (p.spatialRank() == 1) {
      parameters.stride.insert(parameters.stride.begin(), 1);
      parameters.prePadding.insert(parameters.prePadding.begin(), 0);
      parameters.postPadding.insert(parameters.postPadding.begin(), 0);
      parameters.dilation.insert(parameters.dilation.begin(), 1);
    }
    const GraphTensor *x = tensor(kX, p.xDims, p.xStrides);
    const GraphTensor *w = tensor(kW, p.wDims, p.wStrides);
    const GraphTensor *y = tensor(kY, p.yDims, p.yStrides);
    int stages = int(p.bias) + int(p.residual) + int(p.relu);
    if (stages == 0) {
      g.convolution(p.kind->operation, x, w, y, parameters);
      return g;
    }
    // The product in floats, in y's layout, then each stage of the
    // epilogue, in floats until the last writes y.
    const GraphTensor *value = stage(y, stages);
    g.convolution(p.kind->operation, x, w, value, parameters);
    if (p.bias) {
      Dims biasDims(y->dims.size(), 1), biasStrides(y->dims.size(), 1);
      biasDims[1] = p.yDims[1];
      biasStrides[0] = p.yDims[1];
      const GraphTensor *sum = stage(y, --stages);
      g.pointwise(CUDNN_POINTWISE_ADD, value,
                  g.tensor(kBias, p.dtype->type, biasDims, biasStrides), sum);
      value = sum;
    }
    if (p.residual) {
      const GraphTensor *sum = stage(y, --stages);
      g.pointwise(CUDNN_POINTWISE_ADD, value,
                  tensor(kResidual, p.yDims, p.yStrides), sum);
      value = sum;
    }
    if (p.relu)
      g.pointwise(CUDNN_POINTWISE_RELU_FWD, value, nullptr, stage(y, --stages));
    return g;
  }

private:
  /// What a stage writes when `left` stages (it included) are left: y for
  /// the last, a float intermediate in y's layout before it.
  const GraphTensor *stage(const GraphTensor *y, int left) {
    if (left == 0)
      return y;
    return g.intermediate(CUDNN_DATA_FLOAT, y->dims, y->strides);
  }

  const GraphTensor *tensor(Uid uid, const Dims &dims, const Dims &strides) {
    if (p.spatialRank() != 1)
      return g.tensor(uid, p.dtype->type, dims, strides);
    return g.tensor(uid, p.dtype->type, withUnitDim(dims, 1),
                    unitStride(dims, strides));
  }

  CudnnGraph g;
  const ConvolutionProblem &p;
};

//--- The step ------------------------------------------------------------===//

/// The objects of a problem: the graph, the finalized operation graph and
/// the plan (destroyed in reverse order).
struct ConvolutionPlan {
  ConvolutionPlan(const Cudnn &dnn, const ConvolutionProblem &p)
      : graph(dnn, p) {}
  ConvolutionGraph graph;
  BackendDescriptor opGraph;
  ExecutionPlan plan;
};

/// A `cudnn.convolution` step, ready for any invocation.
class PreparedConvolution final : public PreparedLibraryCall {
public:
  PreparedConvolution(const Cudnn &dnn, const CudaDriver &cu,
                      ConvolutionProblem p)
      : dnn(dnn), cu(cu), p(std::move(p)) {}

  Result<std::unique_ptr<LibraryCallInstance>>
  instantiate(LibrarySessions &sessions) const override;

  const Cudnn &dnn;
  const CudaDriver &cu;
  const ConvolutionProblem p;
};

/// A `cudnn.convolution` step in one invocation: its plan; its workspace
/// is the one the invocation's convolution steps share (the largest any
/// needs), as they run one after another.
class ConvolutionInstance final : public LibraryCallInstance {
public:
  ConvolutionInstance(const PreparedConvolution &step,
                      std::shared_ptr<CudnnSession> session)
      : step(step), session(std::move(session)) {}

  Status create() {
    Result<std::shared_ptr<const ConvolutionPlan>> found = sharedPlan();
    if (!found)
      return found.error();
    shared = std::move(*found);
    if (Status s = session->reserveSharedWorkspace(
            step.cu, shared->plan.workspaceBytes);
        !s)
      return s;
    for (const Operand &o : step.p.operands())
      uids.push_back(o.uid);
    pointers.resize(uids.size());
    return Status::ok();
  }

  Status enqueue(const uint64_t *buffers, CUstream stream) override {
    const Cudnn &dnn = step.dnn;
    std::vector<Operand> operands = step.p.operands();
    for (size_t i = 0; i < operands.size(); ++i)
      pointers[i] = reinterpret_cast<void *>(
          buffers[i] + uint64_t(operands[i].offset * step.p.dtype->bytes));
    dnn.clearLastError();
    if (cudnnStatus_t s = dnn.cudnnSetStream(session->handle, stream))
      return makeError(cudnnErrorCode(s), dnn.failure("cudnnSetStream", s));
    void *scratch = shared->plan.workspaceBytes
                        ? session->sharedWorkspaceAddress()
                        : nullptr;
    return executePlan(dnn, session->handle, shared->plan, uids, pointers,
                       scratch);
  }

private:
  /// The session's plan for this step's problem, built on first use.
  Result<std::shared_ptr<const ConvolutionPlan>> sharedPlan() {
    const ConvolutionProblem &p = step.p;
    std::string key = p.planKey();
    if (auto found = session->plans.find(key); found != session->plans.end())
      return std::static_pointer_cast<const ConvolutionPlan>(found->second);
    step.dnn.clearLastError();
    auto built = std::make_shared<ConvolutionPlan>(step.dnn, p);
    CudnnGraph &g = built->graph.build();
    Result<BackendDescriptor> finalized = g.finalize(session->handle);
    if (!finalized)
      return named(finalized.error());
    built->opGraph = std::move(*finalized);
    bool refuseTf32 = p.dtype->type == CUDNN_DATA_FLOAT && !p.tf32;
    Result<ExecutionPlan> chosen = buildExecutionPlan(
        step.dnn, session->handle, built->opGraph, p.describe(), refuseTf32);
    if (!chosen)
      return named(chosen.error());
    built->plan = std::move(*chosen);
    session->plans.emplace(key, built);
    return std::shared_ptr<const ConvolutionPlan>(std::move(built));
  }

  /// `error` as a failure of this step's convolution (the invocation
  /// prefixes the step).
  Error named(const Error &error) const {
    if (error.message.find(step.p.describe()) != std::string::npos)
      return error;
    return makeError(error.code,
                     error.message + ", for " + step.p.describe());
  }

  const PreparedConvolution &step;
  std::shared_ptr<CudnnSession> session;
  std::shared_ptr<const ConvolutionPlan> shared;
  std::vector<int64_t> uids;
  std::vector<void *> pointers;
};

Result<std::unique_ptr<LibraryCallInstance>>
PreparedConvolution::instantiate(LibrarySessions &sessions) const {
  Result<std::shared_ptr<CudnnSession>> s = cudnnSession(dnn, sessions);
  if (!s)
    return s.error();
  auto instance = std::make_unique<ConvolutionInstance>(*this, std::move(*s));
  if (Status created = instance->create(); !created)
    return created.error();
  return std::unique_ptr<LibraryCallInstance>(std::move(instance));
}

} // namespace

namespace {

/// The step's checked problem and cuDNN, loaded.
Result<std::pair<ConvolutionProblem, const Cudnn *>>
loadProblem(const LibraryCallContext &context) {
  Result<ConvolutionProblem> problem = readProblem(context);
  if (!problem)
    return problem.error();
  Result<const Cudnn *> dnn = loadCudnn(context.where);
  if (!dnn)
    return dnn.error();
  return std::make_pair(std::move(*problem), *dnn);
}

} // namespace

Result<std::unique_ptr<PreparedLibraryCall>>
prepareCudnnConvolution(const LibraryCallContext &context, LibrarySessions &) {
  auto loaded = loadProblem(context);
  if (!loaded)
    return loaded.error();
  return std::unique_ptr<PreparedLibraryCall>(new PreparedConvolution(
      *loaded->second, context.cu, std::move(loaded->first)));
}

Status buildCudnnConvolutionGraph(const LibraryCallContext &context) {
  auto loaded = loadProblem(context);
  if (!loaded)
    return loaded.error();
  ConvolutionGraph graph(*loaded->second, loaded->first);
  Result<BackendDescriptor> finalized = graph.build().finalize(nullptr);
  if (!finalized)
    return finalized.error();
  return Status::ok();
}

} // namespace stride
