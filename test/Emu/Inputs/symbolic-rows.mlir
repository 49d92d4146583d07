// One module for every row count (python-free-docs/symbolic-sizes.md, rows
// in [1, 300]): an embedding (index_select of a 50x64 table at [rows] ids),
// its layer norm (weight and bias), tanh, then softmax, all over rows of 64
// (two rows per warp: counts that fill no warp); an RMS norm of the
// embedding whose mean drops the reduced dim (read back through unsqueeze
// and expand); the embedding's sum over each row (a reduction kernel); a
// gather of the table at [rows, 64] indices; softmax and the max of each row
// of x [rows, 1280] (a block per row, a block per output). Each symbolic
// shape is spelled `[rows, N], T` or `[rows], T` and the attributes line is
// the only line that names the symbols' ranges, so that
// symbolic-reductions.test instantiates the function at a static row count
// for the reference interpreter with sed.
func.func @rows(%ids: !stride.tensor<[rows], i64> {stride.name = "ids"},
                %table: !stride.tensor<50x64xf32> {stride.name = "table"},
                %w: !stride.tensor<64xf32> {stride.name = "w"},
                %b: !stride.tensor<64xf32> {stride.name = "b"},
                %gidx: !stride.tensor<[rows, 64], i64> {stride.name = "gidx"},
                %x: !stride.tensor<[rows, 1280], f32> {stride.name = "x"})
    -> (!stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32>,
        !stride.tensor<[rows], f32>, !stride.tensor<[rows, 64], f32>,
        !stride.tensor<[rows, 1280], f32>, !stride.tensor<[rows], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 300]>]}
{
  %e = stride.index_select %table, %ids dim 0 : !stride.tensor<50x64xf32>, !stride.tensor<[rows], i64> -> !stride.tensor<[rows, 64], f32>
  // layer norm with weight and bias
  %m = stride.mean %e dims [1] keepdim : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 1], f32>
  %mb = stride.expand %m : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, 0]>
  %c = stride.sub %e, %mb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [1, 0]> -> !stride.tensor<[rows, 64], f32>
  %sq = stride.mul %c, %c : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %v = stride.mean %sq dims [1] keepdim : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 1], f32>
  %eps = stride.full 1.0e-05 : !stride.tensor<[rows, 1], f32>
  %ve = stride.add %v, %eps : !stride.tensor<[rows, 1], f32>, !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 1], f32>
  %r = stride.rsqrt %ve : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 1], f32>
  %rb = stride.expand %r : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, 0]>
  %n = stride.mul %c, %rb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [1, 0]> -> !stride.tensor<[rows, 64], f32>
  %wb = stride.expand %w : !stride.tensor<64xf32> -> !stride.tensor<[rows, 64], f32, strides = [0, 1]>
  %nw = stride.mul %n, %wb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1]> -> !stride.tensor<[rows, 64], f32>
  %bb = stride.expand %b : !stride.tensor<64xf32> -> !stride.tensor<[rows, 64], f32, strides = [0, 1]>
  %ln = stride.add %nw, %bb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1]> -> !stride.tensor<[rows, 64], f32>
  // a pointwise op, then softmax
  %t = stride.tanh %ln : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %tm = stride.max %t dims [1] keepdim : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 1], f32>
  %tmb = stride.expand %tm : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, 0]>
  %ts = stride.sub %t, %tmb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [1, 0]> -> !stride.tensor<[rows, 64], f32>
  %tx = stride.exp %ts : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %tsum = stride.sum %tx dims [1] keepdim : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 1], f32>
  %tsb = stride.expand %tsum : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, 0]>
  %sm = stride.div %tx, %tsb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [1, 0]> -> !stride.tensor<[rows, 64], f32>
  // RMS norm of the embedding, the mean without keepdim
  %esq = stride.mul %e, %e : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %ems = stride.mean %esq dims [1] : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows], f32>
  %reps = stride.full 1.0e-06 : !stride.tensor<[rows], f32>
  %rve = stride.add %ems, %reps : !stride.tensor<[rows], f32>, !stride.tensor<[rows], f32> -> !stride.tensor<[rows], f32>
  %rr = stride.rsqrt %rve : !stride.tensor<[rows], f32> -> !stride.tensor<[rows], f32>
  %rru = stride.unsqueeze %rr dim 1 : !stride.tensor<[rows], f32> -> !stride.tensor<[rows, 1], f32>
  %rrb = stride.expand %rru : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, 0]>
  %rn = stride.mul %e, %rrb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [1, 0]> -> !stride.tensor<[rows, 64], f32>
  %rms = stride.mul %rn, %wb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1]> -> !stride.tensor<[rows, 64], f32>
  // the embedding's row sums
  %es = stride.sum %e dims [1] : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows], f32>
  // a gather of the table
  %g = stride.gather %table, %gidx dim 0 : !stride.tensor<50x64xf32>, !stride.tensor<[rows, 64], i64> -> !stride.tensor<[rows, 64], f32>
  // softmax and the max over rows of 1280
  %xm = stride.max %x dims [1] keepdim : !stride.tensor<[rows, 1280], f32> -> !stride.tensor<[rows, 1], f32>
  %xmb = stride.expand %xm : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 1280], f32, strides = [1, 0]>
  %xs = stride.sub %x, %xmb : !stride.tensor<[rows, 1280], f32>, !stride.tensor<[rows, 1280], f32, strides = [1, 0]> -> !stride.tensor<[rows, 1280], f32>
  %xe = stride.exp %xs : !stride.tensor<[rows, 1280], f32> -> !stride.tensor<[rows, 1280], f32>
  %xsum = stride.sum %xe dims [1] keepdim : !stride.tensor<[rows, 1280], f32> -> !stride.tensor<[rows, 1], f32>
  %xsb = stride.expand %xsum : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 1280], f32, strides = [1, 0]>
  %xsm = stride.div %xe, %xsb : !stride.tensor<[rows, 1280], f32>, !stride.tensor<[rows, 1280], f32, strides = [1, 0]> -> !stride.tensor<[rows, 1280], f32>
  %xmax = stride.max %x dims [1] : !stride.tensor<[rows, 1280], f32> -> !stride.tensor<[rows], f32>
  return %sm, %rms, %es, %g, %xsm, %xmax : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows], f32>, !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 1280], f32>, !stride.tensor<[rows], f32>
}
