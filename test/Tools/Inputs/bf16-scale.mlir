// y = x * 2 + b in bf16 and z = f32(x) * s: bf16 inputs from f32 or
// ml_dtypes bfloat16 ('<V2') .npy files, bf16 outputs written either way
// (test/Tools/stride-run-bf16.test, test/Emu/bf16-files.test).
func.func @bf16_scale(%x: !stride.tensor<8xbf16>, %b: !stride.tensor<8xbf16>,
                      %s: !stride.tensor<8xf32>)
    -> (!stride.tensor<8xbf16>, !stride.tensor<8xf32>) {
  %two = stride.full 2.0 : !stride.tensor<8xbf16>
  %p = stride.mul %x, %two : !stride.tensor<8xbf16>, !stride.tensor<8xbf16> -> !stride.tensor<8xbf16>
  %y = stride.add %p, %b : !stride.tensor<8xbf16>, !stride.tensor<8xbf16> -> !stride.tensor<8xbf16>
  %w = stride.cast %x : !stride.tensor<8xbf16> -> !stride.tensor<8xf32>
  %z = stride.mul %w, %s : !stride.tensor<8xf32>, !stride.tensor<8xf32> -> !stride.tensor<8xf32>
  return %y, %z : !stride.tensor<8xbf16>, !stride.tensor<8xf32>
}
