// One module for every row count: an MLP over x [rows, 64], rows in
// [1, 512]: x @ w1 + b1, GELU, @ w2 + b2 (the bias epilogue), and
// relu(x @ w3) (the ReLU epilogue) scaled by a constant broadcast over the
// rows (a kernel reads the view of the constant). The products become cuBLASLt calls whose
// rows are a size expression; the GELU is a kernel with a size parameter.
// The attributes line is the only line that names the symbols' ranges, so
// that symbolic-mlp.test instantiates the function at a static row count
// for the reference interpreter by replacing `[rows, N], f32` and dropping
// it.
func.func @mlp(%x: !stride.tensor<[rows, 64], f32> {stride.name = "x"},
               %w1: !stride.tensor<64x256xf32> {stride.name = "w1"},
               %b1: !stride.tensor<256xf32> {stride.name = "b1"},
               %w2: !stride.tensor<256x64xf32> {stride.name = "w2"},
               %b2: !stride.tensor<64xf32> {stride.name = "b2"},
               %w3: !stride.tensor<64x32xf32> {stride.name = "w3"})
    -> (!stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 32], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 512]>]}
{
  %h = stride.matmul %x, %w1 : !stride.tensor<[rows, 64], f32>, !stride.tensor<64x256xf32> -> !stride.tensor<[rows, 256], f32>
  %be1 = stride.expand %b1 : !stride.tensor<256xf32> -> !stride.tensor<[rows, 256], f32, strides = [0, 1]>
  %a = stride.add %h, %be1 : !stride.tensor<[rows, 256], f32>, !stride.tensor<[rows, 256], f32, strides = [0, 1]> -> !stride.tensor<[rows, 256], f32>
  %g = stride.gelu %a : !stride.tensor<[rows, 256], f32> -> !stride.tensor<[rows, 256], f32>
  %o = stride.matmul %g, %w2 : !stride.tensor<[rows, 256], f32>, !stride.tensor<256x64xf32> -> !stride.tensor<[rows, 64], f32>
  %be2 = stride.expand %b2 : !stride.tensor<64xf32> -> !stride.tensor<[rows, 64], f32, strides = [0, 1]>
  %y = stride.add %o, %be2 : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1]> -> !stride.tensor<[rows, 64], f32>
  %p = stride.matmul %x, %w3 : !stride.tensor<[rows, 64], f32>, !stride.tensor<64x32xf32> -> !stride.tensor<[rows, 32], f32>
  %r = stride.relu %p : !stride.tensor<[rows, 32], f32> -> !stride.tensor<[rows, 32], f32>
  %c = stride.constant dense<[0.5, -1.0, 1.5, 2.0, -0.25, 0.75, 1.0, -2.0, 0.125, 3.0, -0.5, 1.25, 0.25, -1.5, 2.5, 0.0, 1.0, 0.5, -0.75, 1.75, -3.0, 0.375, 2.25, -1.25, 0.625, 1.5, -0.125, 0.875, -2.5, 1.125, 0.25, -0.625]> : tensor<32xf32> : !stride.tensor<32xf32>
  %ce = stride.expand %c : !stride.tensor<32xf32> -> !stride.tensor<[rows, 32], f32, strides = [0, 1]>
  %s = stride.mul %r, %ce : !stride.tensor<[rows, 32], f32>, !stride.tensor<[rows, 32], f32, strides = [0, 1]> -> !stride.tensor<[rows, 32], f32>
  return %y, %s : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 32], f32>
}
