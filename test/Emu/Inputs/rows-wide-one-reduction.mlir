// exp(x) divided by its row's sum (softmax without the max): one reduction
// per row, so a cluster's slot (cluster0) is written for the next row right
// after this row's reads unless a cluster barrier ends the row. 16 rows of
// 40000 over a cluster of 5 blocks; with stridec --multiprocessors=1 the
// grid has 12 clusters, so some clusters reduce two rows in turn
// (wide-rows.test).
func.func @row_fractions(%x: !stride.tensor<16x40000xf32>) -> !stride.tensor<16x40000xf32> {
  %e = stride.exp %x : !stride.tensor<16x40000xf32> -> !stride.tensor<16x40000xf32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<16x40000xf32> -> !stride.tensor<16x1xf32>
  %sb = stride.expand %s : !stride.tensor<16x1xf32> -> !stride.tensor<16x40000xf32, strides = [1, 0]>
  %y = stride.div %e, %sb : !stride.tensor<16x40000xf32>, !stride.tensor<16x40000xf32, strides = [1, 0]> -> !stride.tensor<16x40000xf32>
  return %y : !stride.tensor<16x40000xf32>
}
