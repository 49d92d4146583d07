// Five index_adds over two index tensors (issue 16): three over the argument
// %iu (uniform, rows of 36 and 64 elements), two over the constant %ih (two
// hot rows: long rows). The index_adds over one index share one index
// analysis (stride-share-index-analysis): the first of each ranks it, the
// others read its counts, buckets and ranks, and the last zeroes the counts.
func.func @shared(%src: !stride.tensor<600x36xf32>, %src2: !stride.tensor<600x64xf32>,
    %iu: !stride.tensor<600xi64>, %x: !stride.tensor<50x36xf32>, %y: !stride.tensor<50x64xf32>)
    -> (!stride.tensor<50x36xf32>, !stride.tensor<50x64xf32>, !stride.tensor<50x36xf32>,
        !stride.tensor<50x36xf32>, !stride.tensor<50x64xf32>) {
  %zeros = stride.full 0.0 : !stride.tensor<50x36xf32>
  %a = stride.index_add %x, %iu, %src dim 0 : !stride.tensor<50x36xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xf32> -> !stride.tensor<50x36xf32>
  %b = stride.index_add %y, %iu, %src2 dim 0 : !stride.tensor<50x64xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x64xf32> -> !stride.tensor<50x64xf32>
  %c = stride.index_add %zeros, %iu, %src dim 0 : !stride.tensor<50x36xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xf32> -> !stride.tensor<50x36xf32>
  // Two hot rows, 3 and 41, in random order.
  %ih = stride.constant dense<[3, 3, 41, 3, 3, 3, 3, 3, 3, 41, 41, 3, 41, 3, 3, 3, 3, 3, 3, 3, 3, 41, 41, 3, 41, 41, 3, 41, 3, 3, 3, 3, 3, 41, 41, 3, 3, 3, 41, 41, 3, 41, 3, 3, 3, 3, 3, 3, 3, 41, 41, 41, 41, 41, 41, 41, 41, 3, 3, 3, 41, 41, 41, 41, 3, 41, 3, 3, 41, 41, 41, 3, 41, 3, 41, 3, 3, 41, 41, 3, 41, 41, 3, 41, 41, 3, 41, 41, 41, 41, 3, 3, 3, 41, 41, 41, 3, 41, 3, 41, 3, 41, 41, 3, 41, 3, 3, 3, 3, 41, 41, 3, 41, 3, 3, 3, 41, 3, 41, 41, 3, 41, 41, 41, 3, 3, 41, 3, 41, 3, 3, 3, 3, 3, 41, 41, 3, 3, 3, 41, 41, 41, 3, 3, 41, 3, 3, 41, 41, 3, 3, 3, 41, 41, 41, 41, 41, 41, 41, 41, 3, 41, 3, 41, 41, 3, 41, 3, 3, 3, 41, 3, 3, 41, 3, 3, 3, 3, 41, 41, 3, 3, 41, 3, 3, 41, 41, 41, 41, 3, 3, 41, 3, 41, 3, 41, 3, 41, 3, 41, 3, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 3, 41, 3, 41, 3, 3, 41, 41, 41, 41, 41, 3, 41, 3, 41, 41, 41, 3, 41, 41, 41, 41, 3, 41, 41, 41, 41, 3, 3, 41, 3, 3, 41, 3, 41, 3, 3, 3, 3, 3, 3, 41, 41, 41, 41, 3, 3, 3, 3, 3, 3, 41, 3, 3, 41, 3, 41, 3, 41, 3, 3, 3, 41, 41, 41, 41, 41, 41, 41, 41, 3, 41, 3, 41, 3, 41, 41, 3, 41, 41, 3, 3, 3, 3, 3, 41, 3, 3, 3, 41, 3, 41, 41, 3, 3, 41, 41, 3, 3, 3, 41, 41, 41, 41, 41, 3, 3, 3, 41, 41, 3, 41, 3, 3, 3, 41, 3, 3, 3, 41, 41, 41, 3, 41, 41, 41, 41, 3, 3, 41, 41, 41, 41, 3, 3, 3, 3, 3, 41, 3, 41, 3, 3, 3, 41, 3, 41, 3, 3, 3, 3, 3, 41, 41, 41, 3, 3, 3, 41, 41, 3, 41, 41, 41, 41, 41, 41, 3, 41, 41, 41, 3, 3, 41, 41, 3, 41, 41, 41, 3, 3, 41, 3, 3, 3, 41, 41, 3, 41, 3, 41, 3, 3, 41, 3, 41, 3, 41, 41, 3, 3, 41, 3, 41, 41, 3, 41, 41, 3, 3, 41, 3, 3, 41, 41, 41, 41, 3, 3, 41, 3, 41, 3, 41, 3, 3, 41, 3, 41, 3, 3, 41, 3, 41, 41, 3, 3, 3, 3, 41, 41, 3, 3, 3, 3, 3, 41, 3, 41, 41, 3, 41, 41, 41, 3, 41, 41, 41, 3, 41, 3, 3, 3, 41, 3, 41, 3, 3, 3, 41, 3, 3, 3, 3, 3, 41, 3, 41, 41, 41, 41, 3, 41, 41, 3, 3, 3, 3, 41, 3, 3, 41, 41, 41, 3, 3, 41, 3, 41, 41, 41, 3, 41, 41, 41, 3, 3, 41, 41, 41, 41, 41, 41, 3, 3, 3, 41, 41, 41, 41, 3, 3, 41, 41, 41, 3, 3, 3, 41, 3, 41, 41, 41, 3, 41, 41, 41, 3, 41, 41, 41, 41, 3, 41, 3, 41, 41, 3, 3, 41, 41, 3, 41, 41, 3, 41, 3, 3, 41, 3, 41, 41, 3, 41, 3, 41, 41, 41, 41, 41, 41, 3, 3, 41, 3, 3, 3, 3, 3, 41, 41, 3, 3, 41, 41, 41, 41, 3, 41]> : tensor<600xi64> : !stride.tensor<600xi64>
  %h1 = stride.index_add %x, %ih, %src dim 0 : !stride.tensor<50x36xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xf32> -> !stride.tensor<50x36xf32>
  %h2 = stride.index_add %y, %ih, %src2 dim 0 : !stride.tensor<50x64xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x64xf32> -> !stride.tensor<50x64xf32>
  return %a, %b, %c, %h1, %h2 : !stride.tensor<50x36xf32>, !stride.tensor<50x64xf32>,
      !stride.tensor<50x36xf32>, !stride.tensor<50x36xf32>, !stride.tensor<50x64xf32>
}
