// An embedding as the importer writes torch's (python-free-docs/
// symbolic-sizes.md, "Ops over symbolic sizes"): ids [batch, seq] flattened,
// an index_select of a 40x16 table, the rows reshaped back to [batch, seq,
// 16] (a reshape of a computed value, mapped over the size parameters),
// then its layer norm over rows of 16 and tanh; and the same embedding in
// a kernel of its own, permuted to [seq, batch, 16] under relu (the kernel
// maps its coordinates through the permute and the reshape). Each
// symbolic shape is spelled with `batch`, `seq` and `batch*seq` and the
// attributes line is the only line that names the symbols' ranges, so that
// symbolic-reductions.test instantiates the function at static sizes with
// sed.
func.func @embedding(%ids: !stride.tensor<[batch, seq], i64> {stride.name = "ids"},
                     %table: !stride.tensor<40x16xf32> {stride.name = "table"})
    -> (!stride.tensor<[batch, seq, 16], f32>, !stride.tensor<[seq, batch, 16], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 8]>, #stride.symbol<"seq", range = [1, 40]>]}
{
  %flat = stride.view %ids : !stride.tensor<[batch, seq], i64> -> !stride.tensor<[batch*seq], i64>
  %rows = stride.index_select %table, %flat dim 0 : !stride.tensor<40x16xf32>, !stride.tensor<[batch*seq], i64> -> !stride.tensor<[batch*seq, 16], f32>
  %e = stride.view %rows : !stride.tensor<[batch*seq, 16], f32> -> !stride.tensor<[batch, seq, 16], f32>
  %m = stride.mean %e dims [2] keepdim : !stride.tensor<[batch, seq, 16], f32> -> !stride.tensor<[batch, seq, 1], f32>
  %mb = stride.expand %m : !stride.tensor<[batch, seq, 1], f32> -> !stride.tensor<[batch, seq, 16], f32, strides = [seq, 1, 0]>
  %c = stride.sub %e, %mb : !stride.tensor<[batch, seq, 16], f32>, !stride.tensor<[batch, seq, 16], f32, strides = [seq, 1, 0]> -> !stride.tensor<[batch, seq, 16], f32>
  %sq = stride.mul %c, %c : !stride.tensor<[batch, seq, 16], f32>, !stride.tensor<[batch, seq, 16], f32> -> !stride.tensor<[batch, seq, 16], f32>
  %v = stride.mean %sq dims [2] keepdim : !stride.tensor<[batch, seq, 16], f32> -> !stride.tensor<[batch, seq, 1], f32>
  %eps = stride.full 1.0e-05 : !stride.tensor<[batch, seq, 1], f32>
  %ve = stride.add %v, %eps : !stride.tensor<[batch, seq, 1], f32>, !stride.tensor<[batch, seq, 1], f32> -> !stride.tensor<[batch, seq, 1], f32>
  %r = stride.rsqrt %ve : !stride.tensor<[batch, seq, 1], f32> -> !stride.tensor<[batch, seq, 1], f32>
  %rb = stride.expand %r : !stride.tensor<[batch, seq, 1], f32> -> !stride.tensor<[batch, seq, 16], f32, strides = [seq, 1, 0]>
  %n = stride.mul %c, %rb : !stride.tensor<[batch, seq, 16], f32>, !stride.tensor<[batch, seq, 16], f32, strides = [seq, 1, 0]> -> !stride.tensor<[batch, seq, 16], f32>
  %t = stride.tanh %n : !stride.tensor<[batch, seq, 16], f32> -> !stride.tensor<[batch, seq, 16], f32>
  %rows2 = stride.index_select %table, %flat dim 0 : !stride.tensor<40x16xf32>, !stride.tensor<[batch*seq], i64> -> !stride.tensor<[batch*seq, 16], f32>
  %e2 = stride.view %rows2 : !stride.tensor<[batch*seq, 16], f32> -> !stride.tensor<[batch, seq, 16], f32>
  %p = stride.permute %e2 dims [1, 0, 2] : !stride.tensor<[batch, seq, 16], f32> -> !stride.tensor<[seq, batch, 16], f32, strides = [16, seq*16, 1]>
  %pr = stride.relu %p : !stride.tensor<[seq, batch, 16], f32, strides = [16, seq*16, 1]> -> !stride.tensor<[seq, batch, 16], f32>
  return %t, %pr : !stride.tensor<[batch, seq, 16], f32>, !stride.tensor<[seq, batch, 16], f32>
}
