// stride-outline-executable: a convolution that stride-convolution-library
// did not keep for cuDNN (nor stride-decompose-convolution rewrite) has no
// plan step.
// RUN: stride-opt --stride-outline-executable -split-input-file -verify-diagnostics %s

func.func @not_kept(%x: !stride.tensor<1x2x5xf32>, %w: !stride.tensor<3x2x3xf32>) -> !stride.tensor<1x3x3xf32> {
  // expected-error @+1 {{has no library call in the plan; stride-convolution-library keeps the ones cuDNN takes fused}}
  %y = stride.convolution %x, %w stride [1] padding [0] dilation [1] groups 1 : !stride.tensor<1x2x5xf32>, !stride.tensor<3x2x3xf32> -> !stride.tensor<1x3x3xf32>
  return %y : !stride.tensor<1x3x3xf32>
}

// -----

func.func @transposed_bias(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<4x3x2xf32>, %b: !stride.tensor<3xf32>) -> !stride.tensor<1x3x11xf32> {
  // expected-error @+1 {{is transposed and has a bias, which cuDNN's data gradient does not add}}
  %t = stride.convolution %x, %w bias %b stride [2] padding [0] dilation [1] groups 1 transposed output_padding [1] {stride.keep_fused} : !stride.tensor<1x4x5xf32>, !stride.tensor<4x3x2xf32>, !stride.tensor<3xf32> -> !stride.tensor<1x3x11xf32>
  return %t : !stride.tensor<1x3x11xf32>
}
