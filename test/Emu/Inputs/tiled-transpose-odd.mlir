// Odd sizes for the tiled transpose's split staging: rows whose 4-element
// loads start at a different element in every row (scalar loads before and
// after), tiles cut by the edge of the tensor in both dims, several tiles per
// dim (8191x8193 scaled down), and a view with an odd offset. The last kernel
// has tiles whole and cut along both dims (131x133), and reads three more
// inputs untransposed: one with the result's layout, a view whose rows start
// one element on, and a row broadcast over the rows.
func.func @odd(%a: !stride.tensor<63x65xf32>, %za: !stride.tensor<65x63xf32>,
               %b: !stride.tensor<127x129xf32>, %zb: !stride.tensor<129x127xf32>,
               %c: !stride.tensor<130x67xf32>, %zc: !stride.tensor<66x130xf32>,
               %d: !stride.tensor<133x131xf32>, %zd: !stride.tensor<131x133xf32>,
               %ze: !stride.tensor<131x134xf32>, %w: !stride.tensor<133xf32>)
    -> (!stride.tensor<65x63xf32>, !stride.tensor<129x127xf32>, !stride.tensor<66x130xf32>,
        !stride.tensor<131x133xf32>) {
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
  %dt = stride.permute %d dims [1, 0] : !stride.tensor<133x131xf32>
      -> !stride.tensor<131x133xf32, strides = [1, 131]>
  %d0 = stride.add %dt, %zd : !stride.tensor<131x133xf32, strides = [1, 131]>,
      !stride.tensor<131x133xf32> -> !stride.tensor<131x133xf32>
  %es = stride.slice %ze dim 1 start 1 end 134 step 1 : !stride.tensor<131x134xf32>
      -> !stride.tensor<131x133xf32, strides = [134, 1], offset = 1>
  %d1 = stride.mul %d0, %es : !stride.tensor<131x133xf32>,
      !stride.tensor<131x133xf32, strides = [134, 1], offset = 1> -> !stride.tensor<131x133xf32>
  %wb = stride.expand %w : !stride.tensor<133xf32> -> !stride.tensor<131x133xf32, strides = [0, 1]>
  %r3 = stride.sub %d1, %wb : !stride.tensor<131x133xf32>,
      !stride.tensor<131x133xf32, strides = [0, 1]> -> !stride.tensor<131x133xf32>
  return %r0, %r1, %r2, %r3 : !stride.tensor<65x63xf32>, !stride.tensor<129x127xf32>,
      !stride.tensor<66x130xf32>, !stride.tensor<131x133xf32>
}
