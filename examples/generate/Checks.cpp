//===- Checks.cpp - stride-generate's --expect-* options ------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Checks.h"

#include "Compare.h"

#include <cstring>
#include <filesystem>
#include <ostream>

namespace stride::generate {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (int64_t d : shape)
    text += (text.empty() ? "" : ", ") + str(d);
  return "[" + text + "]";
}

/// Reads `path` and checks its dtype, rank, `dims` (-1: any) and that dim
/// `atLeastDim` holds at least `newTokens`; `expected` says what it should
/// be.
Result<HostArray> readExpected(const std::string &path, DType dtype,
                               std::vector<int64_t> dims, size_t atLeastDim,
                               int64_t newTokens, const std::string &expected) {
  Result<HostArray> array = readNpyFile(path);
  if (!array)
    return array.error();
  bool fits = array->dtype == dtype && array->shape.size() == dims.size();
  for (size_t d = 0; fits && d < dims.size(); ++d)
    fits = d == atLeastDim ? array->shape[d] >= newTokens
                           : array->shape[d] == dims[d];
  if (fits)
    return array;
  return makeError(ErrorCode::InvalidArgument,
                   path + ": holds " + std::string(dtypeName(array->dtype)) +
                       " " + shapeText(array->shape) + ", expected " +
                       expected + " for --new-tokens " + str(newTokens));
}

int64_t tokenAt(const HostArray &a, int64_t row, int64_t column) {
  int64_t value = 0;
  std::memcpy(&value, a.data.data() + 8 * (row * a.shape[1] + column), 8);
  return value;
}

/// `a` as f32 (logits of any float dtype).
HostArray asF32(const HostArray &a) {
  HostArray f{DType::F32, a.shape, std::vector<uint8_t>(a.data.size() /
                                                        dtypeSize(a.dtype) * 4)};
  for (int64_t i = 0; i < a.numElements(); ++i) {
    float v = float(elementAsDouble(a, i));
    std::memcpy(f.data.data() + 4 * i, &v, 4);
  }
  return f;
}

} // namespace

Result<HostArray> readExpectedTokens(const std::string &path,
                                     const Protocol &protocol,
                                     int64_t newTokens) {
  int64_t batch = protocol.decodeStep.batch;
  return readExpected(path, DType::I64, {batch, -1}, 1, newTokens,
                      "i64 [" + str(batch) + ", n] with n >= " +
                          str(newTokens) + " (B sequences of tokens)");
}

Status checkTokens(const HostArray &generated, const HostArray &expected,
                   const std::string &expectedPath) {
  int64_t batch = generated.shape[0], steps = generated.shape[1];
  for (int64_t n = 0; n < steps; ++n)
    for (int64_t s = 0; s < batch; ++s) {
      int64_t got = tokenAt(generated, s, n), want = tokenAt(expected, s, n);
      if (got != want)
        return makeError(ErrorCode::InvalidArgument,
                         "token " + str(n + 1) + " of " + str(steps) +
                             " (step " + str(n + 1) +
                             (n == 0 ? ", the prefill" : "") + ", sequence " +
                             str(s) + ") differs from " + expectedPath +
                             ": generated " + str(got) + ", expected " +
                             str(want));
    }
  return Status::ok();
}

Result<HostArray> readExpectedLogits(const std::string &path,
                                     const Protocol &protocol,
                                     int64_t newTokens) {
  int64_t batch = protocol.decodeStep.batch;
  int64_t vocabulary = protocol.decodeStep.vocabulary;
  return readExpected(path, DType::F32, {-1, batch, vocabulary}, 0, newTokens,
                      "f32 [n, " + str(batch) + ", " + str(vocabulary) +
                          "] with n >= " + str(newTokens) +
                          " (each step's logits)");
}

LogitsCheck logitsCheck(HostArray expected, std::string path, double rtol,
                        std::ostream &out) {
  return [expected = std::move(expected), path = std::move(path), rtol,
          &out](int64_t step, const HostArray &logits) -> Status {
    HostArray actual = asF32(logits);
    HostArray want{DType::F32, actual.shape, {}};
    size_t bytes = actual.data.size();
    const uint8_t *first = expected.data.data() + size_t(step) * bytes;
    want.data.assign(first, first + bytes);
    Comparison c = compareArrays(actual, want, rtol);
    std::string name = "logits of step " + str(step + 1);
    out << describeComparison(name, c) << "\n";
    if (c.ok)
      return Status::ok();
    return makeError(ErrorCode::InvalidArgument,
                     name + " differ from " + path + " beyond --rtol " +
                         std::to_string(rtol) + ": " + c.worstElement);
  };
}

Result<StateValues> readExpectedStates(const std::string &dir,
                                       const Protocol &protocol) {
  if (!std::filesystem::is_directory(dir))
    return makeError(ErrorCode::NotFound,
                     dir + ": no such directory (--expect-states takes a "
                           "folder of <state>.npy files, one per state of " +
                           protocol.decodeName + ")");
  StateValues values;
  for (const StateDesc &state : protocol.decode.states) {
    const TensorSignature &t = state.tensor;
    std::string path = (std::filesystem::path(dir) / (t.name + ".npy")).string();
    if (!std::filesystem::exists(path))
      return makeError(ErrorCode::NotFound,
                       path + ": no file for state '" + t.name + "' of " +
                           protocol.decodeName +
                           " (--expect-states needs one per state)");
    Result<HostArray> array = readInputNpy(path, t.dtype, t.shape, t.name);
    if (!array)
      return makeError(array.error().code, "state '" + t.name + "': " +
                                               array.error().message);
    values.emplace_back(t.name, std::move(*array));
  }
  return values;
}

Status checkStates(Generator &generator, const StateValues &expected,
                   double rtol, std::ostream &out) {
  int64_t differing = 0;
  for (const auto &[name, want] : expected) {
    Result<HostArray> actual = generator.readState(name);
    if (!actual)
      return actual.error();
    Comparison c = compareArrays(*actual, want, rtol);
    out << describeComparison("state " + name, c) << "\n";
    differing += c.ok ? 0 : 1;
  }
  if (differing == 0)
    return Status::ok();
  return makeError(ErrorCode::InvalidArgument,
                   str(differing) + " of " + str(int64_t(expected.size())) +
                       " states differ from --expect-states beyond --rtol " +
                       std::to_string(rtol));
}

} // namespace stride::generate
