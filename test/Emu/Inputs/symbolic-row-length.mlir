// Reductions over rows of symbolic length (python-free-docs/
// symbolic-sizes.md, "Kernels with size arguments"), rows in [1, 5], len
// in [1, 300], wide in [1, 5000]: softmax over x [rows, len] (a warp per
// row, re-read in each phase), the mean of each row (a reduction kernel
// over a symbolic length), the sum over the rows (an outer reduction: a
// symbolic count of outputs and a symbolic length), the argmax of each row;
// a layer norm over y [rows, wide] (a block per row at the largest
// length); x plus its column index (iota, computed from the coordinates).
// Each symbolic shape is spelled with `rows`, `len` and `wide` and
// the attributes line is the only line that names the symbols' ranges, so
// that symbolic-reductions.test instantiates the function with sed.
func.func @lengths(%x: !stride.tensor<[rows, len], f32> {stride.name = "x"},
                   %y: !stride.tensor<[rows, wide], f32> {stride.name = "y"})
    -> (!stride.tensor<[rows, len], f32>, !stride.tensor<[rows], f32>,
        !stride.tensor<[1, len], f32>, !stride.tensor<[rows], i64>,
        !stride.tensor<[rows, wide], f32>, !stride.tensor<[rows, len], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 5]>, #stride.symbol<"len", range = [1, 300]>, #stride.symbol<"wide", range = [1, 5000]>]}
{
  %m = stride.max %x dims [1] keepdim : !stride.tensor<[rows, len], f32> -> !stride.tensor<[rows, 1], f32>
  %mb = stride.expand %m : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, len], f32, strides = [1, 0]>
  %d = stride.sub %x, %mb : !stride.tensor<[rows, len], f32>, !stride.tensor<[rows, len], f32, strides = [1, 0]> -> !stride.tensor<[rows, len], f32>
  %e = stride.exp %d : !stride.tensor<[rows, len], f32> -> !stride.tensor<[rows, len], f32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<[rows, len], f32> -> !stride.tensor<[rows, 1], f32>
  %sb = stride.expand %s : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, len], f32, strides = [1, 0]>
  %sm = stride.div %e, %sb : !stride.tensor<[rows, len], f32>, !stride.tensor<[rows, len], f32, strides = [1, 0]> -> !stride.tensor<[rows, len], f32>
  %mean = stride.mean %x dims [1] : !stride.tensor<[rows, len], f32> -> !stride.tensor<[rows], f32>
  %cols = stride.sum %x dims [0] keepdim : !stride.tensor<[rows, len], f32> -> !stride.tensor<[1, len], f32>
  %am = stride.argmax %x dim 1 : !stride.tensor<[rows, len], f32> -> !stride.tensor<[rows], i64>
  %ym = stride.mean %y dims [1] keepdim : !stride.tensor<[rows, wide], f32> -> !stride.tensor<[rows, 1], f32>
  %ymb = stride.expand %ym : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, wide], f32, strides = [1, 0]>
  %yc = stride.sub %y, %ymb : !stride.tensor<[rows, wide], f32>, !stride.tensor<[rows, wide], f32, strides = [1, 0]> -> !stride.tensor<[rows, wide], f32>
  %yq = stride.mul %yc, %yc : !stride.tensor<[rows, wide], f32>, !stride.tensor<[rows, wide], f32> -> !stride.tensor<[rows, wide], f32>
  %yv = stride.mean %yq dims [1] keepdim : !stride.tensor<[rows, wide], f32> -> !stride.tensor<[rows, 1], f32>
  %eps = stride.full 1.0e-05 : !stride.tensor<[rows, 1], f32>
  %yve = stride.add %yv, %eps : !stride.tensor<[rows, 1], f32>, !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 1], f32>
  %yr = stride.rsqrt %yve : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 1], f32>
  %yrb = stride.expand %yr : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, wide], f32, strides = [1, 0]>
  %yn = stride.mul %yc, %yrb : !stride.tensor<[rows, wide], f32>, !stride.tensor<[rows, wide], f32, strides = [1, 0]> -> !stride.tensor<[rows, wide], f32>
  %io = stride.iota dim 1 : !stride.tensor<[rows, len], f32>
  %xi = stride.add %x, %io : !stride.tensor<[rows, len], f32>, !stride.tensor<[rows, len], f32> -> !stride.tensor<[rows, len], f32>
  return %sm, %mean, %cols, %am, %yn, %xi : !stride.tensor<[rows, len], f32>, !stride.tensor<[rows], f32>, !stride.tensor<[1, len], f32>, !stride.tensor<[rows], i64>, !stride.tensor<[rows, wide], f32>, !stride.tensor<[rows, len], f32>
}
