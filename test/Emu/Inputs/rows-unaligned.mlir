// Rows held in registers in groups of 4 consecutive elements (vector width
// 4), read from layouts that do not align every group: a softmax over a
// slice of rows starting 2 elements in (each group's elements loaded one by
// one, stored 4 at a time), and a LayerNorm-like kernel whose weight is a
// slice starting 1 element in, beside an aligned row (the row's groups
// loaded 4 at a time, the weight's one by one).
func.func @unaligned(%a: !stride.tensor<5x404xf32>, %x: !stride.tensor<3x512xf32>,
                     %w: !stride.tensor<513xf32>)
    -> (!stride.tensor<5x400xf32>, !stride.tensor<3x512xf32>) {
  %s = stride.slice %a dim 1 start 2 end 402 step 1 : !stride.tensor<5x404xf32>
      -> !stride.tensor<5x400xf32, strides = [404, 1], offset = 2>
  %m = stride.max %s dims [1] keepdim : !stride.tensor<5x400xf32, strides = [404, 1], offset = 2> -> !stride.tensor<5x1xf32>
  %mb = stride.expand %m : !stride.tensor<5x1xf32> -> !stride.tensor<5x400xf32, strides = [1, 0]>
  %d = stride.sub %s, %mb : !stride.tensor<5x400xf32, strides = [404, 1], offset = 2>, !stride.tensor<5x400xf32, strides = [1, 0]> -> !stride.tensor<5x400xf32>
  %e = stride.exp %d : !stride.tensor<5x400xf32> -> !stride.tensor<5x400xf32>
  %es = stride.sum %e dims [1] keepdim : !stride.tensor<5x400xf32> -> !stride.tensor<5x1xf32>
  %esb = stride.expand %es : !stride.tensor<5x1xf32> -> !stride.tensor<5x400xf32, strides = [1, 0]>
  %y = stride.div %e, %esb : !stride.tensor<5x400xf32>, !stride.tensor<5x400xf32, strides = [1, 0]> -> !stride.tensor<5x400xf32>
  %xm = stride.mean %x dims [1] keepdim : !stride.tensor<3x512xf32> -> !stride.tensor<3x1xf32>
  %xmb = stride.expand %xm : !stride.tensor<3x1xf32> -> !stride.tensor<3x512xf32, strides = [1, 0]>
  %xd = stride.sub %x, %xmb : !stride.tensor<3x512xf32>, !stride.tensor<3x512xf32, strides = [1, 0]> -> !stride.tensor<3x512xf32>
  %ws = stride.slice %w dim 0 start 1 end 513 step 1 : !stride.tensor<513xf32>
      -> !stride.tensor<512xf32, strides = [1], offset = 1>
  %wb = stride.expand %ws : !stride.tensor<512xf32, strides = [1], offset = 1> -> !stride.tensor<3x512xf32, strides = [0, 1], offset = 1>
  %z = stride.mul %xd, %wb : !stride.tensor<3x512xf32>, !stride.tensor<3x512xf32, strides = [0, 1], offset = 1> -> !stride.tensor<3x512xf32>
  return %y, %z : !stride.tensor<5x400xf32>, !stride.tensor<3x512xf32>
}
