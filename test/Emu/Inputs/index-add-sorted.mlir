// index_adds marked sorted_index, their index built as the importer builds
// an embedding bag's (a mark at each offset, summed by cumsum): 40 positions
// into 13 rows, duplicate and out-of-order offsets (empty rows, rows of many
// positions). Rows of 64 f32 (vectorized), of 3 f64 and of 1 i64 (a bag's
// size), a fused source (a gather from a table, times 2).
func.func @sorted(%offsets: !stride.tensor<12xi64>, %ids: !stride.tensor<40xi64>,
                  %table: !stride.tensor<30x64xf32>, %src: !stride.tensor<40x3xf64>)
    -> (!stride.tensor<13x64xf32>, !stride.tensor<13x3xf64>, !stride.tensor<13xi64>) {
  %z = stride.full 0.0 : !stride.tensor<41xi64>
  %one = stride.full 1.0 : !stride.tensor<12xi64>
  %marks = stride.index_add %z, %offsets, %one dim 0 : !stride.tensor<41xi64>,
      !stride.tensor<12xi64>, !stride.tensor<12xi64> -> !stride.tensor<41xi64>
  %run = stride.cumsum %marks dim 0 : !stride.tensor<41xi64> -> !stride.tensor<41xi64>
  %bag = stride.slice %run dim 0 start 0 end 40 step 1 : !stride.tensor<41xi64> -> !stride.tensor<40xi64>
  %rows = stride.index_select %table, %ids dim 0 : !stride.tensor<30x64xf32>,
      !stride.tensor<40xi64> -> !stride.tensor<40x64xf32>
  %two = stride.full 2.0 : !stride.tensor<40x64xf32>
  %scaled = stride.mul %rows, %two : !stride.tensor<40x64xf32>, !stride.tensor<40x64xf32> -> !stride.tensor<40x64xf32>
  %zf = stride.full 0.0 : !stride.tensor<13x64xf32>
  %sum = stride.index_add %zf, %bag, %scaled dim 0 {sorted_index} : !stride.tensor<13x64xf32>,
      !stride.tensor<40xi64>, !stride.tensor<40x64xf32> -> !stride.tensor<13x64xf32>
  %zd = stride.full 1.5 : !stride.tensor<13x3xf64>
  %sum3 = stride.index_add %zd, %bag, %src dim 0 {sorted_index} : !stride.tensor<13x3xf64>,
      !stride.tensor<40xi64>, !stride.tensor<40x3xf64> -> !stride.tensor<13x3xf64>
  %zi = stride.full 0.0 : !stride.tensor<13xi64>
  %ones = stride.full 1.0 : !stride.tensor<40xi64>
  %sizes = stride.index_add %zi, %bag, %ones dim 0 {sorted_index} : !stride.tensor<13xi64>,
      !stride.tensor<40xi64>, !stride.tensor<40xi64> -> !stride.tensor<13xi64>
  return %sum, %sum3, %sizes : !stride.tensor<13x64xf32>, !stride.tensor<13x3xf64>, !stride.tensor<13xi64>
}
