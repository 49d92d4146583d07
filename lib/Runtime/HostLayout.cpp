//===- HostLayout.cpp - Runtime checks and layout copies without a GPU ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Host arrays are dense and C-ordered; device storage follows the module
// signature's layout (strides and storage offset in elements). These
// functions check host inputs against the signature and move elements
// between the two forms. Nothing here touches CUDA, so tests run anywhere.
//
//===----------------------------------------------------------------------===//

#include "stride/Runtime/Runtime.h"

#include "stride/Module/ModuleSymbols.h"

#include "stride/Support/Layout.h"

#include <algorithm>
#include <cstring>

namespace stride {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string describeArray(DType dtype, const std::vector<int64_t> &shape) {
  return std::string(dtypeName(dtype)) + " of shape " + formatDims(shape);
}

std::string inputNames(const GraphSignature &signature) {
  std::string s;
  for (size_t i = 0; i < signature.inputs.size(); ++i)
    s += (i ? ", " : "") + signature.inputs[i].name;
  return s;
}

/// True when the layout's addresses are offset + the C-order linear index,
/// so a dense array maps onto storage with one memcpy.
bool isRowMajorAtOffset(const TensorSignature &t) {
  return isRowMajor(Layout{t.shape, t.strides, 0});
}

/// Calls fn(linearIndex, address) for every element in C order.
template <typename Fn>
void forEachElement(const TensorSignature &t, int64_t numElements, Fn fn) {
  size_t rank = t.shape.size();
  std::vector<int64_t> index(rank, 0);
  int64_t address = t.storageOffset;
  for (int64_t linear = 0; linear < numElements; ++linear) {
    fn(linear, address);
    // Advance the odometer from the innermost dim.
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < t.shape[d]) {
        address += t.strides[d];
        break;
      }
      address -= (t.shape[d] - 1) * t.strides[d];
      index[d] = 0;
    }
  }
}

/// C-order multi-index of a linear index, for messages.
std::vector<int64_t> unravel(int64_t linear, const std::vector<int64_t> &shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

int archMajor(int arch) { return arch / 10; }
int archMinor(int arch) { return arch % 10; }

} // namespace

std::vector<std::optional<int64_t>>
boundInputValues(const ModuleDesc &desc, const std::vector<HostArray> &inputs) {
  std::vector<std::optional<int64_t>> values(desc.signature.inputs.size());
  for (const ValueBinding &v : desc.valueBindings) {
    if (v.input >= inputs.size() || v.input >= values.size())
      continue;
    const HostArray &a = inputs[v.input];
    if (a.dtype == DType::I64 && a.data.size() == 8) {
      int64_t value;
      std::memcpy(&value, a.data.data(), 8);
      values[v.input] = value;
    } else if (a.dtype == DType::I32 && a.data.size() == 4) {
      int32_t value;
      std::memcpy(&value, a.data.data(), 4);
      values[v.input] = value;
    }
  }
  return values;
}

/// The symbols' values the inputs' shapes and values bind.
static Result<SymbolValues> valuesForInputs(const ModuleDesc &desc,
                                            const std::vector<HostArray> &inputs) {
  std::vector<std::vector<int64_t>> shapes;
  for (const HostArray &a : inputs)
    shapes.push_back(a.shape);
  Result<SymbolValues> values = bindModuleSymbols(desc, shapes);
  if (values)
    bindValueSymbols(desc, boundInputValues(desc, inputs), *values);
  return values;
}

Result<ModuleDesc> instantiateForInputs(const ModuleDesc &desc,
                                        const std::vector<HostArray> &inputs) {
  if (desc.symbols.empty())
    return desc;
  Result<SymbolValues> values = valuesForInputs(desc, inputs);
  if (!values)
    return values.error();
  return instantiateModule(desc, *values);
}

Result<std::vector<bool>> stepsRunForInputs(const ModuleDesc &desc,
                                            const std::vector<HostArray> &inputs) {
  std::vector<bool> runs(desc.steps.size(), true);
  if (desc.symbols.empty())
    return runs;
  Result<SymbolValues> values = valuesForInputs(desc, inputs);
  if (!values)
    return values.error();
  for (size_t i = 0; i < desc.steps.size(); ++i)
    runs[i] = stepRuns(desc.steps[i], desc, *values);
  return runs;
}

Status checkInputs(const GraphSignature &signature,
                   const std::vector<HostArray> &inputs) {
  size_t expected = signature.inputs.size();
  if (inputs.size() != expected)
    return makeError(ErrorCode::InvalidArgument,
                     "'" + signature.entryName + "' takes " + str(expected) +
                         (expected == 1 ? " input" : " inputs") +
                         (expected ? " (" + inputNames(signature) + ")" : "") +
                         ", but " + str(inputs.size()) +
                         (inputs.size() == 1 ? " was" : " were") + " given");
  for (size_t i = 0; i < expected; ++i) {
    const TensorSignature &t = signature.inputs[i];
    const HostArray &a = inputs[i];
    std::string what = "input '" + t.name + "' (" + str(i + 1) + " of " +
                       str(expected) + ")";
    if (a.dtype != t.dtype || a.shape != t.shape)
      return makeError(ErrorCode::InvalidArgument,
                       what + " expects " + describeArray(t.dtype, t.shape) +
                           ", but was given " +
                           describeArray(a.dtype, a.shape));
    auto numElements = checkedNumElements(a.shape);
    uint64_t neededBytes =
        numElements ? uint64_t(*numElements) * dtypeSize(a.dtype) : 0;
    if (!numElements || a.data.size() != neededBytes)
      return makeError(ErrorCode::InvalidArgument,
                       what + ": the array holds " + str(a.data.size()) +
                           " bytes of data, but " +
                           describeArray(a.dtype, a.shape) + " needs " +
                           str(neededBytes));
  }
  return Status::ok();
}

Status checkArchCompatible(const ModuleDesc &desc, const std::string &moduleName,
                           int ccMajor, int ccMinor,
                           const std::string &deviceDescription) {
  std::optional<int> arch = parseSmArch(desc.target.arch);
  if (!arch)
    return makeError(ErrorCode::Incompatible,
                     moduleName + ": the target arch \"" + desc.target.arch +
                         "\" is not of the form sm_NN");
  int deviceArch = ccMajor * 10 + ccMinor;
  std::string device = deviceDescription + " has compute capability " +
                       str(ccMajor) + "." + str(ccMinor);
  std::string fix = ". Recompile the graph with `stridec --arch=sm_" +
                    str(deviceArch) + "`";
  for (const ExecutableDesc &executable : desc.executables) {
    const CodeImage &image = executable.image;
    if (image.kind == CodeKind::Cubin &&
        (archMajor(*arch) != ccMajor || archMinor(*arch) > ccMinor))
      return makeError(ErrorCode::Incompatible,
                       moduleName + ": compiled to a CUBIN for " +
                           desc.target.arch + ", but " + device + " (sm_" +
                           str(deviceArch) +
                           "); a CUBIN for sm_XY runs only on GPUs of compute "
                           "capability X.Y "
                           "or a later X.Z" +
                           fix);
    if (image.kind == CodeKind::Ptx && *arch > deviceArch)
      return makeError(ErrorCode::Incompatible,
                       moduleName + ": compiled to PTX for compute_" +
                           str(*arch) + ", but " + device + " (sm_" +
                           str(deviceArch) +
                           "); PTX runs only on GPUs of its compute capability "
                           "or newer" +
                           fix);
  }
  return Status::ok();
}

Result<std::vector<uint8_t>> packToStorage(const HostArray &dense,
                                           const TensorSignature &t,
                                           int64_t storageBytes) {
  std::vector<uint8_t> storage(static_cast<size_t>(storageBytes), 0);
  size_t elementSize = dtypeSize(t.dtype);
  int64_t numElements = static_cast<int64_t>(dense.data.size() / elementSize);
  if (isRowMajorAtOffset(t)) {
    if (!dense.data.empty())
      std::memcpy(storage.data() + t.storageOffset * elementSize,
                  dense.data.data(), dense.data.size());
    return storage;
  }
  // Broadcast (overlapping) layouts map several elements to one address; the
  // kernels read one value there, so the given values must agree.
  bool mayOverlap = !checkNonOverlapping(t.shape, t.strides).ok();
  std::vector<int64_t> writtenBy;
  if (mayOverlap)
    writtenBy.assign(storage.size() / elementSize, -1);
  std::string conflict;
  forEachElement(t, numElements, [&](int64_t linear, int64_t address) {
    const uint8_t *src = dense.data.data() + linear * elementSize;
    uint8_t *dst = storage.data() + address * elementSize;
    if (mayOverlap) {
      int64_t &first = writtenBy[address];
      if (first >= 0 && std::memcmp(dst, src, elementSize) != 0 &&
          conflict.empty())
        conflict = "input '" + t.name + "' has a broadcast layout (shape " +
                   formatDims(t.shape) + ", strides " + formatDims(t.strides) +
                   ") that stores elements " + formatDims(unravel(first, t.shape)) +
                   " and " + formatDims(unravel(linear, t.shape)) +
                   " at one address, but the given array holds different "
                   "values there";
      if (first < 0)
        first = linear;
    }
    std::memcpy(dst, src, elementSize);
  });
  if (!conflict.empty())
    return makeError(ErrorCode::InvalidArgument, conflict);
  return storage;
}

HostArray unpackFromStorage(const uint8_t *storage, const TensorSignature &t) {
  HostArray out;
  out.dtype = t.dtype;
  out.shape = t.shape;
  size_t elementSize = dtypeSize(t.dtype);
  int64_t numElements = checkedNumElements(t.shape).value_or(0);
  out.data.resize(static_cast<size_t>(numElements) * elementSize);
  if (isRowMajorAtOffset(t)) {
    if (!out.data.empty())
      std::memcpy(out.data.data(), storage + t.storageOffset * elementSize,
                  out.data.size());
    return out;
  }
  forEachElement(t, numElements, [&](int64_t linear, int64_t address) {
    std::memcpy(out.data.data() + linear * elementSize,
                storage + address * elementSize, elementSize);
  });
  return out;
}

Result<std::vector<std::pair<size_t, std::vector<uint8_t>>>>
packStates(const ModuleDesc &desc, const StateValues &values) {
  std::vector<std::pair<size_t, std::vector<uint8_t>>> packed;
  std::vector<bool> given(desc.states.size(), false);
  for (const auto &[name, array] : values) {
    auto state = std::find_if(desc.states.begin(), desc.states.end(),
                              [&](const StateDesc &s) {
                                return s.tensor.name == name;
                              });
    if (state == desc.states.end()) {
      std::string names;
      for (const StateDesc &s : desc.states)
        names += (names.empty() ? "'" : ", '") + s.tensor.name + "'";
      return makeError(ErrorCode::InvalidArgument,
                       "the module has no state named '" + name +
                           "' (its states: " +
                           (names.empty() ? "none" : names) + ")");
    }
    size_t index = size_t(state - desc.states.begin());
    if (given[index])
      return makeError(ErrorCode::InvalidArgument,
                       "state '" + name + "' is given twice");
    given[index] = true;
    const TensorSignature &t = state->tensor;
    GraphSignature one{"state", {t}, {}};
    if (Status s = checkInputs(one, {array}); !s)
      return makeError(ErrorCode::InvalidArgument,
                       "state '" + name + "' expects " +
                           describeArray(t.dtype, t.shape) + ", but was given " +
                           describeArray(array.dtype, array.shape) +
                           (array.dtype == t.dtype && array.shape == t.shape
                                ? " with " + str(array.data.size()) +
                                      " bytes of data"
                                : ""));
    Result<std::vector<uint8_t>> storage =
        packToStorage(array, t, *storageBytes(t));
    if (!storage)
      return storage.error();
    packed.emplace_back(index, std::move(*storage));
  }
  return packed;
}

std::vector<uint8_t> initialStateStorage(const ModuleDesc &desc,
                                         size_t index) {
  const StateDesc &state = desc.states[index];
  if (!state.init.empty())
    return state.init.toVector();
  return std::vector<uint8_t>(size_t(*storageBytes(state.tensor)), 0);
}

} // namespace stride
