func.func @g(%x: !stride.tensor<3x4x8xbf16>, %w: !stride.tensor<16x8xbf16>,
    %b: !stride.tensor<32xbf16>, %a: !stride.tensor<128xbf16>)
    -> (!stride.tensor<3x4x16xbf16>, !stride.tensor<4x4xbf16>) {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<16x8xbf16>
      -> !stride.tensor<8x16xbf16, strides = [1, 8], offset = 0>
  %we = stride.expand %wt : !stride.tensor<8x16xbf16, strides = [1, 8], offset = 0>
      -> !stride.tensor<3x8x16xbf16, strides = [0, 1, 8], offset = 0>
  %bs = stride.slice %b dim 0 start 0 end 32 step 2 : !stride.tensor<32xbf16>
      -> !stride.tensor<16xbf16, strides = [2], offset = 0>
  %p = stride.matmul %x, %we bias %bs epilogue gelu_tanh : !stride.tensor<3x4x8xbf16>,
      !stride.tensor<3x8x16xbf16, strides = [0, 1, 8], offset = 0>,
      !stride.tensor<16xbf16, strides = [2], offset = 0> -> !stride.tensor<3x4x16xbf16>
  %s = stride.as_strided %a : !stride.tensor<128xbf16>
      -> !stride.tensor<4x4xbf16, strides = [32, 2], offset = 1>
  %q = stride.matmul %s, %s : !stride.tensor<4x4xbf16, strides = [32, 2], offset = 1>,
      !stride.tensor<4x4xbf16, strides = [32, 2], offset = 1> -> !stride.tensor<4x4xbf16>
  return %p, %q : !stride.tensor<3x4x16xbf16>, !stride.tensor<4x4xbf16>
}
