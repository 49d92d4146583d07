// Kernels whose views read computed values: the emitter maps coordinates
// back through each view instead of addressing memory.
func.func @views(%x: !stride.tensor<4x6xf32>, %y: !stride.tensor<6x4xf32>,
                 %z: !stride.tensor<2x12xf32>, %w: !stride.tensor<3x4xf32>,
                 %q: !stride.tensor<4x1x6xf32>)
    -> (!stride.tensor<6x4xf32>, !stride.tensor<2x12xf32>, !stride.tensor<3x4xf32>,
        !stride.tensor<3x2xf32>, !stride.tensor<2x2xf32>, !stride.tensor<4x6xf32>) {
  %0 = stride.kernel "permute_of_exp" ins(%x, %y : !stride.tensor<4x6xf32>, !stride.tensor<6x4xf32>)
      -> (!stride.tensor<6x4xf32>) {
  ^bb0(%a: !stride.tensor<4x6xf32>, %b: !stride.tensor<6x4xf32>):
    %e = stride.exp %a : !stride.tensor<4x6xf32> -> !stride.tensor<4x6xf32>
    %p = stride.permute %e dims [1, 0] : !stride.tensor<4x6xf32>
        -> !stride.tensor<6x4xf32, strides = [1, 6], offset = 0>
    %s = stride.add %p, %b : !stride.tensor<6x4xf32, strides = [1, 6], offset = 0>,
        !stride.tensor<6x4xf32> -> !stride.tensor<6x4xf32>
    stride.yield %s : !stride.tensor<6x4xf32>
  }
  %1 = stride.kernel "view_of_neg" ins(%x, %z : !stride.tensor<4x6xf32>, !stride.tensor<2x12xf32>)
      -> (!stride.tensor<2x12xf32>) {
  ^bb0(%a: !stride.tensor<4x6xf32>, %b: !stride.tensor<2x12xf32>):
    %n = stride.neg %a : !stride.tensor<4x6xf32> -> !stride.tensor<4x6xf32>
    %v = stride.view %n : !stride.tensor<4x6xf32> -> !stride.tensor<2x12xf32>
    %s = stride.sub %v, %b : !stride.tensor<2x12xf32>, !stride.tensor<2x12xf32>
        -> !stride.tensor<2x12xf32>
    stride.yield %s : !stride.tensor<2x12xf32>
  }
  %2 = stride.kernel "expand_of_select" ins(%w : !stride.tensor<3x4xf32>)
      -> (!stride.tensor<3x4xf32>) {
  ^bb0(%a: !stride.tensor<3x4xf32>):
    %r = stride.relu %a : !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
    %sel = stride.select %r dim 0 index 2 : !stride.tensor<3x4xf32>
        -> !stride.tensor<4xf32, strides = [1], offset = 8>
    %u = stride.unsqueeze %sel dim 0 : !stride.tensor<4xf32, strides = [1], offset = 8>
        -> !stride.tensor<1x4xf32, strides = [4, 1], offset = 8>
    %e = stride.expand %u : !stride.tensor<1x4xf32, strides = [4, 1], offset = 8>
        -> !stride.tensor<3x4xf32, strides = [0, 1], offset = 8>
    %m = stride.mul %r, %e : !stride.tensor<3x4xf32>,
        !stride.tensor<3x4xf32, strides = [0, 1], offset = 8> -> !stride.tensor<3x4xf32>
    stride.yield %m : !stride.tensor<3x4xf32>
  }
  %3 = stride.kernel "slice_of_relu" ins(%w : !stride.tensor<3x4xf32>)
      -> (!stride.tensor<3x2xf32>) {
  ^bb0(%a: !stride.tensor<3x4xf32>):
    %r = stride.relu %a : !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
    %sl = stride.slice %r dim 1 start 1 end 4 step 2 : !stride.tensor<3x4xf32>
        -> !stride.tensor<3x2xf32, strides = [4, 2], offset = 1>
    %t = stride.tanh %sl : !stride.tensor<3x2xf32, strides = [4, 2], offset = 1>
        -> !stride.tensor<3x2xf32>
    stride.yield %t : !stride.tensor<3x2xf32>
  }
  %4 = stride.kernel "as_strided_of_sigmoid" ins(%w : !stride.tensor<3x4xf32>)
      -> (!stride.tensor<2x2xf32>) {
  ^bb0(%a: !stride.tensor<3x4xf32>):
    %g = stride.sigmoid %a : !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
    %s = stride.as_strided %g : !stride.tensor<3x4xf32>
        -> !stride.tensor<2x2xf32, strides = [4, 3], offset = 4>
    %c = stride.clone %s : !stride.tensor<2x2xf32, strides = [4, 3], offset = 4>
        -> !stride.tensor<2x2xf32>
    stride.yield %c : !stride.tensor<2x2xf32>
  }
  %5 = stride.kernel "squeeze_of_cos" ins(%q, %x : !stride.tensor<4x1x6xf32>, !stride.tensor<4x6xf32>)
      -> (!stride.tensor<4x6xf32>) {
  ^bb0(%a: !stride.tensor<4x1x6xf32>, %b: !stride.tensor<4x6xf32>):
    %c = stride.cos %a : !stride.tensor<4x1x6xf32> -> !stride.tensor<4x1x6xf32>
    %s = stride.squeeze %c dims [1] : !stride.tensor<4x1x6xf32>
        -> !stride.tensor<4x6xf32, strides = [6, 1], offset = 0>
    %m = stride.maximum %s, %b : !stride.tensor<4x6xf32, strides = [6, 1], offset = 0>,
        !stride.tensor<4x6xf32> -> !stride.tensor<4x6xf32>
    stride.yield %m : !stride.tensor<4x6xf32>
  }
  return %0, %1, %2, %3, %4, %5 : !stride.tensor<6x4xf32>, !stride.tensor<2x12xf32>,
      !stride.tensor<3x4xf32>, !stride.tensor<3x2xf32>, !stride.tensor<2x2xf32>,
      !stride.tensor<4x6xf32>
}
