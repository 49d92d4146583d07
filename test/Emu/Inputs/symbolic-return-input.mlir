// A graph of symbolic sizes that returns its input and a view of it: both
// outputs are the caller's storage handed back (aliased outputs), checked
// against the input's extent at the symbols' largest values.
func.func @passthrough(%x: !stride.tensor<[batch, seq], f32> {stride.name = "x"})
    -> (!stride.tensor<[batch, seq], f32>, !stride.tensor<[seq, batch], f32, strides = [1, seq], offset = 0>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [8, 4096], multiple_of = 8>]} {
  %t = stride.permute %x dims [1, 0] : !stride.tensor<[batch, seq], f32> -> !stride.tensor<[seq, batch], f32, strides = [1, seq], offset = 0>
  return %x, %t : !stride.tensor<[batch, seq], f32>, !stride.tensor<[seq, batch], f32, strides = [1, seq], offset = 0>
}
