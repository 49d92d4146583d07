// The gradient of an embedding table: the upstream gradient rows, scaled,
// are accumulated into the rows their token ids selected. Duplicate ids
// accumulate.
func.func @embedding_grad(%ids: !stride.tensor<512xi64>,
                          %grad: !stride.tensor<512x64xf32>,
                          %scale: !stride.tensor<512x64xf32>)
    -> !stride.tensor<1000x64xf32> {
  %zeros = stride.full 0.0 : !stride.tensor<1000x64xf32>
  %scaled = stride.mul %grad, %scale : !stride.tensor<512x64xf32>,
      !stride.tensor<512x64xf32> -> !stride.tensor<512x64xf32>
  %table = stride.index_add %zeros, %ids, %scaled dim 0
      : !stride.tensor<1000x64xf32>, !stride.tensor<512xi64>,
        !stride.tensor<512x64xf32> -> !stride.tensor<1000x64xf32>
  return %table : !stride.tensor<1000x64xf32>
}
