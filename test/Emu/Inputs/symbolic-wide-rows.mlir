// Rows longer than a block holds in registers over a symbolic row count
// (rows in [1, 3]): softmax over f32 rows of 40000, split over a
// thread-block cluster of 5 blocks on sm_90 (the grid at run time whole
// clusters: the count times 5 blocks), and a bf16 layer norm over rows of
// 40000 whose row is held in one block's shared memory (x only, 2 bytes an
// element). Each symbolic shape is spelled `[rows, N], T` and the
// attributes line is the only line that names the range, so that
// symbolic-reductions.test instantiates the function with sed.
func.func @wide(%s: !stride.tensor<[rows, 40000], f32> {stride.name = "s"},
                %h: !stride.tensor<[rows, 40000], bf16> {stride.name = "h"})
    -> (!stride.tensor<[rows, 40000], f32>, !stride.tensor<[rows, 40000], bf16>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 3]>]}
{
  %sm = stride.max %s dims [1] keepdim : !stride.tensor<[rows, 40000], f32> -> !stride.tensor<[rows, 1], f32>
  %smb = stride.expand %sm : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 40000], f32, strides = [1, 0]>
  %sd = stride.sub %s, %smb : !stride.tensor<[rows, 40000], f32>, !stride.tensor<[rows, 40000], f32, strides = [1, 0]> -> !stride.tensor<[rows, 40000], f32>
  %se = stride.exp %sd : !stride.tensor<[rows, 40000], f32> -> !stride.tensor<[rows, 40000], f32>
  %ss = stride.sum %se dims [1] keepdim : !stride.tensor<[rows, 40000], f32> -> !stride.tensor<[rows, 1], f32>
  %ssb = stride.expand %ss : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 40000], f32, strides = [1, 0]>
  %sy = stride.div %se, %ssb : !stride.tensor<[rows, 40000], f32>, !stride.tensor<[rows, 40000], f32, strides = [1, 0]> -> !stride.tensor<[rows, 40000], f32>
  %hm = stride.mean %h dims [1] keepdim : !stride.tensor<[rows, 40000], bf16> -> !stride.tensor<[rows, 1], bf16>
  %hmb = stride.expand %hm : !stride.tensor<[rows, 1], bf16> -> !stride.tensor<[rows, 40000], bf16, strides = [1, 0]>
  %hd = stride.sub %h, %hmb : !stride.tensor<[rows, 40000], bf16>, !stride.tensor<[rows, 40000], bf16, strides = [1, 0]> -> !stride.tensor<[rows, 40000], bf16>
  %hq = stride.mul %hd, %hd : !stride.tensor<[rows, 40000], bf16>, !stride.tensor<[rows, 40000], bf16> -> !stride.tensor<[rows, 40000], bf16>
  %hv = stride.mean %hq dims [1] keepdim : !stride.tensor<[rows, 40000], bf16> -> !stride.tensor<[rows, 1], bf16>
  %eps = stride.full 1.0e-05 : !stride.tensor<[rows, 1], bf16>
  %hve = stride.add %hv, %eps : !stride.tensor<[rows, 1], bf16>, !stride.tensor<[rows, 1], bf16> -> !stride.tensor<[rows, 1], bf16>
  %hr = stride.rsqrt %hve : !stride.tensor<[rows, 1], bf16> -> !stride.tensor<[rows, 1], bf16>
  %hrb = stride.expand %hr : !stride.tensor<[rows, 1], bf16> -> !stride.tensor<[rows, 40000], bf16, strides = [1, 0]>
  %hy = stride.mul %hd, %hrb : !stride.tensor<[rows, 40000], bf16>, !stride.tensor<[rows, 40000], bf16, strides = [1, 0]> -> !stride.tensor<[rows, 40000], bf16>
  return %sy, %hy : !stride.tensor<[rows, 40000], f32>, !stride.tensor<[rows, 40000], bf16>
}
