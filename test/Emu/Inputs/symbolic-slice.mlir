// Slices of symbolic bounds of an input, read by one kernel at the
// addresses their types give: p [rows + 1, 64] sliced [1, rows + 1) and
// [0, rows) (a difference of neighbours, as torch.diff), and its last row
// [rows, rows + 1) (an offset of rows*64) broadcast over the rows.
// symbolic-sizes.test runs it at several row counts.
func.func @neighbours(%x: !stride.tensor<[rows, 64], f32> {stride.name = "x"},
                      %p: !stride.tensor<[rows + 1, 64], f32> {stride.name = "p"})
    -> !stride.tensor<[rows, 64], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]}
{
  %next = stride.slice %p dim 0 start 1 end rows + 1 step 1 : !stride.tensor<[rows + 1, 64], f32> -> !stride.tensor<[rows, 64], f32, offset = 64>
  %prev = stride.slice %p dim 0 start 0 end rows step 1 : !stride.tensor<[rows + 1, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %last = stride.slice %p dim 0 start rows end rows + 1 step 1 : !stride.tensor<[rows + 1, 64], f32> -> !stride.tensor<[1, 64], f32, strides = [64, 1], offset = rows*64>
  %lastRows = stride.expand %last : !stride.tensor<[1, 64], f32, strides = [64, 1], offset = rows*64> -> !stride.tensor<[rows, 64], f32, strides = [0, 1], offset = rows*64>
  %d = stride.sub %next, %prev : !stride.tensor<[rows, 64], f32, offset = 64>, !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %m = stride.mul %d, %lastRows : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1], offset = rows*64> -> !stride.tensor<[rows, 64], f32>
  %r = stride.add %m, %x : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  return %r : !stride.tensor<[rows, 64], f32>
}
