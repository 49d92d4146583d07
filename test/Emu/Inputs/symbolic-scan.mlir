// Scans over symbolic sizes (python-free-docs/symbolic-sizes.md, rows in
// [1, 2000]): a cumsum along rows of a static length (70: a block of 128
// threads per row) and a symbolic count; a cumsum along the symbolic dim
// itself (rows elements a row, 3 rows: a block of 1024 threads per row at
// the largest length, chunks of 1024 to the length at run time); and an
// i64 cumsum of a comparison (transformers' mask builder counts sequence
// starts so). symbolic-scan.test runs it at several row counts against
// the reference interpreter on the function instantiated at each.
func.func @scans(%x: !stride.tensor<[rows, 70], f32> {stride.name = "x"},
                 %y: !stride.tensor<[rows, 3], f32> {stride.name = "y"})
    -> (!stride.tensor<[rows, 70], f32>, !stride.tensor<[rows, 3], f32>,
        !stride.tensor<[rows, 70], i64>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 2000]>]}
{
  %e = stride.exp %x : !stride.tensor<[rows, 70], f32> -> !stride.tensor<[rows, 70], f32>
  %a = stride.cumsum %e dim 1 : !stride.tensor<[rows, 70], f32> -> !stride.tensor<[rows, 70], f32>
  %b = stride.cumsum %y dim 0 : !stride.tensor<[rows, 3], f32> -> !stride.tensor<[rows, 3], f32>
  %zero = stride.full 0.0 : !stride.tensor<[rows, 70], f32>
  %pos = stride.cmp gt, %x, %zero : !stride.tensor<[rows, 70], f32>, !stride.tensor<[rows, 70], f32> -> !stride.tensor<[rows, 70], i1>
  %n = stride.cast %pos : !stride.tensor<[rows, 70], i1> -> !stride.tensor<[rows, 70], i64>
  %c = stride.cumsum %n dim 1 : !stride.tensor<[rows, 70], i64> -> !stride.tensor<[rows, 70], i64>
  return %a, %b, %c : !stride.tensor<[rows, 70], f32>, !stride.tensor<[rows, 3], f32>, !stride.tensor<[rows, 70], i64>
}
