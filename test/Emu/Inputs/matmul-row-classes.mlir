// f16/bf16 products written in row classes (python-free-docs/matmul.md "Row classes"):
// each class of rows a call of its own from an aligned column, the columns
// left at the rows' ends by two more calls over all rows. By hand
// (row_classes on the op): 37 rows of a view at offset 32 with a bias
// folded into every call, 8 classes; 4 classes of 50 columns; f16 with
// fewer rows (19) than twice the classes. Decided by stride-matmul-layout:
// 2048 rows of 17 columns, 8 classes.
func.func @row_classes(%x: !stride.tensor<40x16xbf16> {stride.name = "x"},
                       %w: !stride.tensor<17x16xbf16> {stride.name = "w"},
                       %b: !stride.tensor<17xbf16> {stride.name = "b"},
                       %w50: !stride.tensor<50x16xbf16> {stride.name = "w50"},
                       %y: !stride.tensor<2048x16xbf16> {stride.name = "y"},
                       %f: !stride.tensor<19x8xf16> {stride.name = "f"},
                       %wf: !stride.tensor<21x8xf16> {stride.name = "wf"})
    -> (!stride.tensor<37x17xbf16>, !stride.tensor<40x50xbf16>,
        !stride.tensor<2048x17xbf16>, !stride.tensor<19x21xf16>) {
  %rows = stride.slice %x dim 0 start 2 end 39 step 1 : !stride.tensor<40x16xbf16>
      -> !stride.tensor<37x16xbf16, strides = [16, 1], offset = 32>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<17x16xbf16>
      -> !stride.tensor<16x17xbf16, strides = [1, 16], offset = 0>
  %p = stride.matmul %rows, %wt {row_classes = 8 : i64}
      : !stride.tensor<37x16xbf16, strides = [16, 1], offset = 32>,
      !stride.tensor<16x17xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<37x17xbf16>
  %be = stride.expand %b : !stride.tensor<17xbf16>
      -> !stride.tensor<37x17xbf16, strides = [0, 1], offset = 0>
  %biased = stride.add %p, %be : !stride.tensor<37x17xbf16>,
      !stride.tensor<37x17xbf16, strides = [0, 1], offset = 0> -> !stride.tensor<37x17xbf16>
  %w50t = stride.permute %w50 dims [1, 0] : !stride.tensor<50x16xbf16>
      -> !stride.tensor<16x50xbf16, strides = [1, 16], offset = 0>
  %q = stride.matmul %x, %w50t {row_classes = 4 : i64} : !stride.tensor<40x16xbf16>,
      !stride.tensor<16x50xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<40x50xbf16>
  %r = stride.matmul %y, %wt : !stride.tensor<2048x16xbf16>,
      !stride.tensor<16x17xbf16, strides = [1, 16], offset = 0> -> !stride.tensor<2048x17xbf16>
  %wft = stride.permute %wf dims [1, 0] : !stride.tensor<21x8xf16>
      -> !stride.tensor<8x21xf16, strides = [1, 8], offset = 0>
  %h = stride.matmul %f, %wft {row_classes = 8 : i64} : !stride.tensor<19x8xf16>,
      !stride.tensor<8x21xf16, strides = [1, 8], offset = 0> -> !stride.tensor<19x21xf16>
  return %biased, %q, %r, %h : !stride.tensor<37x17xbf16>, !stride.tensor<40x50xbf16>,
      !stride.tensor<2048x17xbf16>, !stride.tensor<19x21xf16>
}
