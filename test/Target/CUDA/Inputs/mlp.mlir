// A two-layer MLP block: x + W2 relu(W1 x + b1) + b2 (torch.nn.Linear
// weights, [out, in]), on 8 tokens of width 32.
func.func @mlp(%x: !stride.tensor<8x32xf32> {stride.name = "x"},
               %w1: !stride.tensor<64x32xf32> {stride.name = "w1"},
               %b1: !stride.tensor<64xf32> {stride.name = "b1"},
               %w2: !stride.tensor<32x64xf32> {stride.name = "w2"},
               %b2: !stride.tensor<32xf32> {stride.name = "b2"})
    -> (!stride.tensor<8x32xf32> {stride.name = "y"}) {
  %w1t = stride.permute %w1 dims [1, 0] : !stride.tensor<64x32xf32>
      -> !stride.tensor<32x64xf32, strides = [1, 32], offset = 0>
  %h = stride.matmul %x, %w1t : !stride.tensor<8x32xf32>,
      !stride.tensor<32x64xf32, strides = [1, 32], offset = 0> -> !stride.tensor<8x64xf32>
  %b1e = stride.expand %b1 : !stride.tensor<64xf32>
      -> !stride.tensor<8x64xf32, strides = [0, 1], offset = 0>
  %hb = stride.add %h, %b1e : !stride.tensor<8x64xf32>,
      !stride.tensor<8x64xf32, strides = [0, 1], offset = 0> -> !stride.tensor<8x64xf32>
  %a = stride.relu %hb : !stride.tensor<8x64xf32> -> !stride.tensor<8x64xf32>
  %w2t = stride.permute %w2 dims [1, 0] : !stride.tensor<32x64xf32>
      -> !stride.tensor<64x32xf32, strides = [1, 64], offset = 0>
  %o = stride.matmul %a, %w2t : !stride.tensor<8x64xf32>,
      !stride.tensor<64x32xf32, strides = [1, 64], offset = 0> -> !stride.tensor<8x32xf32>
  %b2e = stride.expand %b2 : !stride.tensor<32xf32>
      -> !stride.tensor<8x32xf32, strides = [0, 1], offset = 0>
  %ob = stride.add %o, %b2e : !stride.tensor<8x32xf32>,
      !stride.tensor<8x32xf32, strides = [0, 1], offset = 0> -> !stride.tensor<8x32xf32>
  %y = stride.add %ob, %x : !stride.tensor<8x32xf32>, !stride.tensor<8x32xf32>
      -> !stride.tensor<8x32xf32>
  return %y : !stride.tensor<8x32xf32>
}
