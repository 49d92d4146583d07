// Gathers and scatters fused with pointwise ops, with indices read from
// inputs (random in [0, 4]) or computed in the kernel. Run with integer
// inputs in [0, 4].
func.func @scatter(%t: !stride.tensor<5x7xf32>, %idx: !stride.tensor<3x4xi64>,
                   %table: !stride.tensor<10x6xf32>, %ids: !stride.tensor<7xi64>,
                   %src: !stride.tensor<7x6xf32>, %big: !stride.tensor<4x5xf32>,
                   %cube: !stride.tensor<4x3x5xf32>, %row: !stride.tensor<4x5xf32>,
                   %iw: !stride.tensor<10x6xi32>, %isrc: !stride.tensor<7x6xi32>)
    -> (!stride.tensor<3x4xf32>, !stride.tensor<7x6xf32>, !stride.tensor<10x6xf32>,
        !stride.tensor<5x7xf32>, !stride.tensor<5x7xf32>, !stride.tensor<4x3x5xf32>,
        !stride.tensor<10x6xi32>) {
  %0 = stride.kernel "gather_scaled" ins(%t, %idx : !stride.tensor<5x7xf32>, !stride.tensor<3x4xi64>)
      -> (!stride.tensor<3x4xf32>) {
  ^bb0(%a: !stride.tensor<5x7xf32>, %i: !stride.tensor<3x4xi64>):
    %g = stride.gather %a, %i dim 0 : !stride.tensor<5x7xf32>, !stride.tensor<3x4xi64>
        -> !stride.tensor<3x4xf32>
    %two = stride.full 2.0 : !stride.tensor<3x4xf32>
    %m = stride.mul %g, %two : !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
    stride.yield %m : !stride.tensor<3x4xf32>
  }
  %1 = stride.kernel "embedding_relu" ins(%table, %ids : !stride.tensor<10x6xf32>, !stride.tensor<7xi64>)
      -> (!stride.tensor<7x6xf32>) {
  ^bb0(%a: !stride.tensor<10x6xf32>, %i: !stride.tensor<7xi64>):
    %e = stride.index_select %a, %i dim 0 : !stride.tensor<10x6xf32>, !stride.tensor<7xi64>
        -> !stride.tensor<7x6xf32>
    %r = stride.relu %e : !stride.tensor<7x6xf32> -> !stride.tensor<7x6xf32>
    stride.yield %r : !stride.tensor<7x6xf32>
  }
  %2 = stride.kernel "index_add_fused" ins(%table, %ids, %src : !stride.tensor<10x6xf32>,
      !stride.tensor<7xi64>, !stride.tensor<7x6xf32>) -> (!stride.tensor<10x6xf32>) {
  ^bb0(%a: !stride.tensor<10x6xf32>, %i: !stride.tensor<7xi64>, %s: !stride.tensor<7x6xf32>):
    %one = stride.full 1.0 : !stride.tensor<10x6xf32>
    %base = stride.add %a, %one : !stride.tensor<10x6xf32>, !stride.tensor<10x6xf32> -> !stride.tensor<10x6xf32>
    %three = stride.full 3.0 : !stride.tensor<7x6xf32>
    %scaled = stride.mul %s, %three : !stride.tensor<7x6xf32>, !stride.tensor<7x6xf32> -> !stride.tensor<7x6xf32>
    %r = stride.index_add %base, %i, %scaled dim 0 : !stride.tensor<10x6xf32>,
        !stride.tensor<7xi64>, !stride.tensor<7x6xf32> -> !stride.tensor<10x6xf32>
    stride.yield %r : !stride.tensor<10x6xf32>
  }
  %3 = stride.kernel "scatter_add_2d" ins(%idx, %big : !stride.tensor<3x4xi64>, !stride.tensor<4x5xf32>)
      -> (!stride.tensor<5x7xf32>) {
  ^bb0(%i: !stride.tensor<3x4xi64>, %s: !stride.tensor<4x5xf32>):
    %z = stride.full 0.5 : !stride.tensor<5x7xf32>
    %r = stride.scatter_add %z, %i, %s dim 0 : !stride.tensor<5x7xf32>, !stride.tensor<3x4xi64>,
        !stride.tensor<4x5xf32> -> !stride.tensor<5x7xf32>
    stride.yield %r : !stride.tensor<5x7xf32>
  }
  %4 = stride.kernel "scatter_iota" ins(%t, %big : !stride.tensor<5x7xf32>, !stride.tensor<4x5xf32>)
      -> (!stride.tensor<5x7xf32>) {
  ^bb0(%a: !stride.tensor<5x7xf32>, %s: !stride.tensor<4x5xf32>):
    %i = stride.iota dim 1 : !stride.tensor<4x2xi64>
    %r = stride.scatter %a, %i, %s dim 1 : !stride.tensor<5x7xf32>, !stride.tensor<4x2xi64>,
        !stride.tensor<4x5xf32> -> !stride.tensor<5x7xf32>
    stride.yield %r : !stride.tensor<5x7xf32>
  }
  %5 = stride.kernel "select_scatter_sigmoid" ins(%cube, %row : !stride.tensor<4x3x5xf32>, !stride.tensor<4x5xf32>)
      -> (!stride.tensor<4x3x5xf32>) {
  ^bb0(%a: !stride.tensor<4x3x5xf32>, %r: !stride.tensor<4x5xf32>):
    %s = stride.select_scatter %a, %r dim 1 index 2 : !stride.tensor<4x3x5xf32>,
        !stride.tensor<4x5xf32> -> !stride.tensor<4x3x5xf32>
    %g = stride.sigmoid %s : !stride.tensor<4x3x5xf32> -> !stride.tensor<4x3x5xf32>
    stride.yield %g : !stride.tensor<4x3x5xf32>
  }
  %6 = stride.kernel "int_index_add" ins(%iw, %ids, %isrc : !stride.tensor<10x6xi32>,
      !stride.tensor<7xi64>, !stride.tensor<7x6xi32>) -> (!stride.tensor<10x6xi32>) {
  ^bb0(%a: !stride.tensor<10x6xi32>, %i: !stride.tensor<7xi64>, %s: !stride.tensor<7x6xi32>):
    %r = stride.index_add %a, %i, %s dim 0 : !stride.tensor<10x6xi32>,
        !stride.tensor<7xi64>, !stride.tensor<7x6xi32> -> !stride.tensor<10x6xi32>
    stride.yield %r : !stride.tensor<10x6xi32>
  }
  return %0, %1, %2, %3, %4, %5, %6 : !stride.tensor<3x4xf32>, !stride.tensor<7x6xf32>,
      !stride.tensor<10x6xf32>, !stride.tensor<5x7xf32>, !stride.tensor<5x7xf32>,
      !stride.tensor<4x3x5xf32>, !stride.tensor<10x6xi32>
}
