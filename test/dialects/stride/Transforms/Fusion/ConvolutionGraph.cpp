//===- ConvolutionGraph.cpp - Random convolution graphs for the emulator --===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each graph is one stride.convolution and what a model puts after it: 1-D,
// 2-D or 3-D, grouped (depthwise too) or not, transposed at times, with
// odd sizes, strides, padding, dilation and output padding; in f32, f16,
// bf16 (one cuDNN call, or a cuBLASLt product for a pointwise one) or f64
// (the decomposition); the input row-major or channels-last (a permute of
// an [N, X.., C] tensor); a bias at times; then, at times, a per-channel
// multiply and add (an inference batch norm, which stride-fold-into-
// convolution folds into the weights), a residual add (row-major or
// channels-last) and a ReLU, each of which cuDNN's epilogue or the product's
// may take.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include <algorithm>
#include <string>
#include <vector>

namespace stride::test {

namespace {

using Value = GraphValue;

class ConvolutionGraphBuilder : GraphBuilder {
public:
  explicit ConvolutionGraphBuilder(uint64_t seed) : GraphBuilder(seed) {}

  std::string build();

private:
  Value argument(const Dims &shape) {
    return GraphBuilder::argument(shape, dtype);
  }
  /// A view that keeps `from`'s offset.
  Value view(const Value &from, const std::string &op,
             const std::string &attributes, Dims shape, Dims strides) {
    return GraphBuilder::view(from, op, attributes, std::move(shape),
                              std::move(strides), from.offset);
  }
  Value image(const Dims &shape);
  Value perChannel(const Dims &shape);
  void drawGeometry();

  std::string dtype;
  int64_t spatial = 2, groups = 1;
  bool transposed = false;
  Dims input, weight, result, stride, padding, dilation, outputPadding;
};

/// An [N, C, X..] value: row-major, or channels-last (the permute of an
/// [N, X.., C] argument).
Value ConvolutionGraphBuilder::image(const Dims &shape) {
  if (rng.chance(50))
    return argument(shape);
  int64_t rank = int64_t(shape.size());
  Dims stored{shape[0]}, toImage{0, rank - 1};
  for (int64_t d = 2; d < rank; ++d) {
    stored.push_back(shape[size_t(d)]);
    toImage.push_back(d - 1);
  }
  stored.push_back(shape[1]);
  Value last = argument(stored);
  return view(last, "permute", " dims [" + joinDims(toImage, ", ") + "]",
              permuted(last.shape, toImage), permuted(last.strides, toImage));
}

/// A [C] argument broadcast over the other dims of `shape` ([N, C, X..]).
Value ConvolutionGraphBuilder::perChannel(const Dims &shape) {
  Value channels = argument({shape[1]});
  Dims viewed(shape.size(), 1), strides(shape.size(), 0);
  viewed[1] = shape[1];
  strides[1] = 1;
  Value v = view(channels, "view", "", viewed, rowMajor(viewed));
  return view(v, "expand", "", shape, strides);
}

/// Sizes, groups, strides, padding and dilation whose result has every
/// size at least 1.
void ConvolutionGraphBuilder::drawGeometry() {
  static const int64_t channelChoices[] = {1, 2, 3, 4, 8};
  static const int64_t multiplierChoices[] = {1, 2, 3};
  static const int64_t sizes1[] = {3, 8, 13, 17};
  static const int64_t sizes2[] = {1, 3, 4, 5, 7, 8};
  static const int64_t sizes3[] = {2, 3, 4};
  static const int64_t kernels[] = {1, 1, 2, 3, 3, 5};
  int64_t draw = rng.below(100);
  spatial = draw < 60 ? 2 : (draw < 85 ? 1 : 3);
  int64_t batch = rng.range(1, 2);
  int64_t inChannels = pick(channelChoices);
  groups = rng.chance(25) ? inChannels : (inChannels % 2 == 0 && rng.chance(30) ? 2 : 1);
  int64_t outChannels = groups * pick(multiplierChoices);
  transposed = rng.chance(15);
  input = {batch, inChannels};
  weight = transposed ? Dims{inChannels, outChannels / groups}
                      : Dims{outChannels, inChannels / groups};
  result = {batch, outChannels};
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t x = spatial == 1 ? pick(sizes1) : (spatial == 2 ? pick(sizes2) : pick(sizes3));
    int64_t k = pick(kernels), s = rng.range(1, 2), l = rng.chance(20) ? 2 : 1;
    int64_t p = rng.range(0, 2);
    int64_t span = l * (k - 1);
    if (!transposed && x + 2 * p - span - 1 < 0)
      p = (span + 2 - x) / 2; // the least padding that leaves one output
    int64_t y, extra = 0;
    if (transposed) {
      p = std::min(p, span / 2); // so the result keeps at least one element
      if (rng.chance(30) && std::max(s, l) > 1)
        extra = std::max(s, l) - 1;
      y = (x - 1) * s - 2 * p + span + extra + 1;
    } else {
      y = (x + 2 * p - span - 1) / s + 1;
    }
    input.push_back(x);
    weight.push_back(k);
    result.push_back(y);
    stride.push_back(s);
    padding.push_back(p);
    dilation.push_back(l);
    outputPadding.push_back(extra);
  }
}

std::string ConvolutionGraphBuilder::build() {
  static const char *dtypes[] = {"f32", "f16", "bf16", "f64"};
  dtype = dtypes[rng.below(4)];
  drawGeometry();
  Value x = image(input);
  Value w = argument(weight);
  std::string operands = x.name + ", " + w.name;
  std::string types = type(x) + ", " + type(w);
  if (rng.chance(40)) {
    Value b = argument({result[1]});
    operands += " bias " + b.name;
    types += ", " + type(b);
  }
  std::string attributes = " stride [" + joinDims(stride, ", ") +
                           "] padding [" + joinDims(padding, ", ") +
                           "] dilation [" + joinDims(dilation, ", ") +
                           "] groups " + std::to_string(groups);
  bool extra = false;
  for (int64_t e : outputPadding)
    extra |= e != 0;
  if (transposed)
    attributes += " transposed" +
                  (extra ? " output_padding [" + joinDims(outputPadding, ", ") + "]"
                         : std::string());
  Value y{"%c", result, rowMajor(result), 0, dtype};
  body += "  %c = stride.convolution " + operands + attributes + " : " +
          types + " -> " + type(y) + "\n";
  if (rng.chance(30)) {
    y = pointwise("mul", {y, perChannel(result)}, result);
    y = pointwise("add", {y, perChannel(result)}, result);
  }
  if (rng.chance(30))
    y = pointwise("add", {y, image(result)}, result);
  if (rng.chance(40))
    y = pointwise("relu", {y}, result);
  return function({y});
}

} // namespace

std::string generateConvolutionGraph(uint64_t seed) {
  return ConvolutionGraphBuilder(seed).build();
}

} // namespace stride::test
