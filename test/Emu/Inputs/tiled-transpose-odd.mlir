// Odd sizes for the tiled transpose's split staging: rows whose 4-element
// loads start at a different element in every row (scalar loads before and
// after), tiles cut by the edge of the tensor in both dims, several tiles per
// dim (8191x8193 scaled down), and a view with an odd offset.
func.func @odd(%a: !stride.tensor<63x65xf32>, %za: !stride.tensor<65x63xf32>,
               %b: !stride.tensor<127x129xf32>, %zb: !stride.tensor<129x127xf32>,
               %c: !stride.tensor<130x67xf32>, %zc: !stride.tensor<66x130xf32>)
    -> (!stride.tensor<65x63xf32>, !stride.tensor<129x127xf32>, !stride.tensor<66x130xf32>) {
  %at = stride.permute %a dims [1, 0] : !stride.tensor<63x65xf32>
      -> !stride.tensor<65x63xf32, strides = [1, 65]>
  %r0 = stride.add %at, %za : !stride.tensor<65x63xf32, strides = [1, 65]>,
      !stride.tensor<65x63xf32> -> !stride.tensor<65x63xf32>
  %bt = stride.permute %b dims [1, 0] : !stride.tensor<127x129xf32>
      -> !stride.tensor<129x127xf32, strides = [1, 129]>
  %r1 = stride.sub %bt, %zb : !stride.tensor<129x127xf32, strides = [1, 129]>,
      !stride.tensor<129x127xf32> -> !stride.tensor<129x127xf32>
  // Columns 1..66 of a 130x67 input, transposed: offset 1, row stride 67.
  %cs = stride.slice %c dim 1 start 1 end 67 step 1 : !stride.tensor<130x67xf32>
      -> !stride.tensor<130x66xf32, strides = [67, 1], offset = 1>
  %ct = stride.permute %cs dims [1, 0] : !stride.tensor<130x66xf32, strides = [67, 1], offset = 1>
      -> !stride.tensor<66x130xf32, strides = [1, 67], offset = 1>
  %r2 = stride.mul %ct, %zc : !stride.tensor<66x130xf32, strides = [1, 67], offset = 1>,
      !stride.tensor<66x130xf32> -> !stride.tensor<66x130xf32>
  return %r0, %r1, %r2 : !stride.tensor<65x63xf32>, !stride.tensor<129x127xf32>, !stride.tensor<66x130xf32>
}
