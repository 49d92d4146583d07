// A graph of 64x128 tensors (11 ops: pointwise ops, row and column sums
// broadcast back, a transpose), for stride-reduce-shapes.test: with stridec
// --test-inject-fault=add its stride.add is compiled as a subtraction, and
// the reducer shrinks the graph to one add of 1x1 tensors.
func.func @wide(%x: !stride.tensor<64x128xf32> {stride.name = "x"},
                %w: !stride.tensor<64x128xf32> {stride.name = "w"})
    -> !stride.tensor<128x64xf32> {
  %m = stride.mul %x, %w : !stride.tensor<64x128xf32>, !stride.tensor<64x128xf32>
      -> !stride.tensor<64x128xf32>
  %t = stride.tanh %m : !stride.tensor<64x128xf32> -> !stride.tensor<64x128xf32>
  %rows = stride.sum %t dims [1] keepdim
      : !stride.tensor<64x128xf32> -> !stride.tensor<64x1xf32>
  %rb = stride.expand %rows : !stride.tensor<64x1xf32>
      -> !stride.tensor<64x128xf32, strides = [1, 0], offset = 0>
  %d = stride.sub %t, %rb : !stride.tensor<64x128xf32>,
      !stride.tensor<64x128xf32, strides = [1, 0], offset = 0>
      -> !stride.tensor<64x128xf32>
  %cols = stride.sum %d dims [0] keepdim
      : !stride.tensor<64x128xf32> -> !stride.tensor<1x128xf32>
  %cb = stride.expand %cols : !stride.tensor<1x128xf32>
      -> !stride.tensor<64x128xf32, strides = [0, 1], offset = 0>
  %g = stride.sigmoid %d : !stride.tensor<64x128xf32> -> !stride.tensor<64x128xf32>
  %a = stride.add %g, %cb : !stride.tensor<64x128xf32>,
      !stride.tensor<64x128xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<64x128xf32>
  %p = stride.permute %a dims [1, 0] : !stride.tensor<64x128xf32>
      -> !stride.tensor<128x64xf32, strides = [1, 128], offset = 0>
  %n = stride.neg %p : !stride.tensor<128x64xf32, strides = [1, 128], offset = 0>
      -> !stride.tensor<128x64xf32>
  return %n : !stride.tensor<128x64xf32>
}
