// Outputs that alias an input (python-free-docs/embedding.md, "Aliased
// outputs"): %w returned as it is and a slice of it (rows 1 and 2) come
// back as views of the caller's tensor, beside a fresh exp.
func.func @aliases(%x: !stride.tensor<2x3xf32>, %w: !stride.tensor<4x3xf32>)
    -> (!stride.tensor<2x3xf32>, !stride.tensor<4x3xf32>,
        !stride.tensor<2x3xf32, strides = [3, 1], offset = 3>) {
  %e = stride.exp %x : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %s = stride.slice %w dim 0 start 1 end 3 step 1 : !stride.tensor<4x3xf32>
      -> !stride.tensor<2x3xf32, strides = [3, 1], offset = 3>
  return %e, %w, %s : !stride.tensor<2x3xf32>, !stride.tensor<4x3xf32>,
      !stride.tensor<2x3xf32, strides = [3, 1], offset = 3>
}
