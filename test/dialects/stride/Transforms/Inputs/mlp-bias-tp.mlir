// An MLP with biases, as aten.addmm imports (the product, then the
// broadcast bias added): up (column-parallel: each rank adds its block of
// the bias) and down (row-parallel: the bias is added to the all-reduced
// sum, once). For tensor-parallel.test.
!x = !stride.tensor<4x8xf32>
!h = !stride.tensor<4x16xf32>
func.func @forward(%x: !x {stride.name = "x"}) -> (!x {stride.name = "y"}) {
  %wu = stride.constant dense<[[0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8], [0.2, 0.1, -0.3, 0.5, 0.4, -0.6, 0.2, 0.1], [-0.3, 0.2, 0.1, -0.1, 0.6, 0.5, -0.4, 0.3], [0.4, -0.1, 0.2, 0.3, -0.2, 0.1, 0.5, 0.6], [0.5, 0.6, -0.7, 0.1, 0.2, 0.3, -0.1, 0.2], [-0.6, 0.3, 0.4, 0.2, 0.1, -0.5, 0.3, 0.4], [0.7, -0.4, 0.5, -0.6, 0.3, 0.2, 0.1, -0.2], [0.8, 0.5, 0.6, 0.7, -0.4, 0.1, 0.2, 0.3], [0.1, 0.1, 0.2, -0.2, 0.3, 0.3, -0.4, 0.4], [-0.2, 0.2, 0.3, 0.3, -0.4, 0.4, 0.5, 0.5], [0.3, -0.3, 0.4, 0.4, 0.5, -0.5, 0.6, 0.6], [0.4, 0.4, -0.5, 0.5, 0.6, 0.6, -0.7, 0.7], [-0.5, 0.5, 0.6, -0.6, 0.7, 0.7, 0.8, -0.8], [0.6, -0.6, 0.7, 0.7, -0.8, 0.8, 0.1, 0.1], [0.7, 0.7, -0.8, 0.8, 0.1, -0.1, 0.2, 0.2], [-0.8, 0.8, 0.1, 0.1, 0.2, 0.2, -0.3, 0.3]]> : tensor<16x8xf32> : !stride.tensor<16x8xf32>
  %wut = stride.permute %wu dims [1, 0] : !stride.tensor<16x8xf32> -> !stride.tensor<8x16xf32, strides = [1, 8]>
  %up = stride.matmul %x, %wut : !x, !stride.tensor<8x16xf32, strides = [1, 8]> -> !h
  %bu = stride.constant dense<[0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 0.25, -0.25, 0.75, -0.75, 1.25, -1.25, 1.75, -1.75]> : tensor<16xf32> : !stride.tensor<16xf32>
  %bue = stride.expand %bu : !stride.tensor<16xf32> -> !stride.tensor<4x16xf32, strides = [0, 1]>
  %upb = stride.add %up, %bue : !h, !stride.tensor<4x16xf32, strides = [0, 1]> -> !h
  %a = stride.relu %upb : !h -> !h
  %wd = stride.constant dense<0.25> : tensor<8x16xf32> : !stride.tensor<8x16xf32>
  %wdt = stride.permute %wd dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16]>
  %down = stride.matmul %a, %wdt : !h, !stride.tensor<16x8xf32, strides = [1, 16]> -> !x
  %bd = stride.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32> : !stride.tensor<8xf32>
  %bde = stride.expand %bd : !stride.tensor<8xf32> -> !stride.tensor<4x8xf32, strides = [0, 1]>
  %y = stride.add %down, %bde : !x, !stride.tensor<4x8xf32, strides = [0, 1]> -> !x
  return %y : !x
}
