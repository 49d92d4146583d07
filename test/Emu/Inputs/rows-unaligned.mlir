// Rows held in registers in groups of 4 consecutive elements (vector width
// 4), read from layouts that do not align every group: a softmax over a
// slice of rows starting 2 elements in (each group's elements loaded one by
// one, stored 4 at a time), and a LayerNorm-like kernel whose weight is a
// slice starting 1 element in, beside an aligned row (the row's groups
// loaded 4 at a time, the weight's one by one), and a bf16 softmax (groups
// of 8) over a slice 4 elements in: aligned to 4, not to 8.
func.func @unaligned(%a: !stride.tensor<5x404xf32>, %x: !stride.tensor<3x512xf32>,
                     %w: !stride.tensor<513xf32>, %h: !stride.tensor<3x1032xbf16>)
    -> (!stride.tensor<5x400xf32>, !stride.tensor<3x512xf32>, !stride.tensor<3x1024xbf16>) {
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
  %hs = stride.slice %h dim 1 start 4 end 1028 step 1 : !stride.tensor<3x1032xbf16>
      -> !stride.tensor<3x1024xbf16, strides = [1032, 1], offset = 4>
  %hm = stride.max %hs dims [1] keepdim : !stride.tensor<3x1024xbf16, strides = [1032, 1], offset = 4> -> !stride.tensor<3x1xbf16>
  %hmb = stride.expand %hm : !stride.tensor<3x1xbf16> -> !stride.tensor<3x1024xbf16, strides = [1, 0]>
  %hd = stride.sub %hs, %hmb : !stride.tensor<3x1024xbf16, strides = [1032, 1], offset = 4>, !stride.tensor<3x1024xbf16, strides = [1, 0]> -> !stride.tensor<3x1024xbf16>
  %he = stride.exp %hd : !stride.tensor<3x1024xbf16> -> !stride.tensor<3x1024xbf16>
  %hsum = stride.sum %he dims [1] keepdim : !stride.tensor<3x1024xbf16> -> !stride.tensor<3x1xbf16>
  %hsb = stride.expand %hsum : !stride.tensor<3x1xbf16> -> !stride.tensor<3x1024xbf16, strides = [1, 0]>
  %hy = stride.div %he, %hsb : !stride.tensor<3x1024xbf16>, !stride.tensor<3x1024xbf16, strides = [1, 0]> -> !stride.tensor<3x1024xbf16>
  return %y, %z, %hy : !stride.tensor<5x400xf32>, !stride.tensor<3x512xf32>, !stride.tensor<3x1024xbf16>
}
