// Masks built from constants, as transformers builds GPT-2's: the lower
// triangle ANDed with a test that is true everywhere (@causal); a mask that
// is true everywhere (@all_true); one that depends on an input (@padding).
!t = !stride.tensor<2x4x8x16xbf16>
func.func @causal(%q: !t, %k: !t, %v: !t) -> !t {
  %rows = stride.iota dim 0 : !stride.tensor<8x8xi64>
  %cols = stride.iota dim 1 : !stride.tensor<8x8xi64>
  %tri = stride.cmp le, %cols, %rows : !stride.tensor<8x8xi64>, !stride.tensor<8x8xi64> -> !stride.tensor<8x8xi1>
  %same = stride.cmp eq, %rows, %rows : !stride.tensor<8x8xi64>, !stride.tensor<8x8xi64> -> !stride.tensor<8x8xi1>
  %both = stride.and %tri, %same : !stride.tensor<8x8xi1>, !stride.tensor<8x8xi1> -> !stride.tensor<8x8xi1>
  %m = stride.expand %both : !stride.tensor<8x8xi1> -> !stride.tensor<2x4x8x8xi1, strides = [0, 0, 8, 1], offset = 0>
  %q8 = stride.slice %q dim 2 start 0 end 8 step 1 : !t -> !stride.tensor<2x4x8x16xbf16, strides = [512, 128, 16, 1], offset = 0>
  %o = stride.attention %q8, %k, %v mask %m scale 0.25
      : !stride.tensor<2x4x8x16xbf16, strides = [512, 128, 16, 1], offset = 0>, !t, !t,
        !stride.tensor<2x4x8x8xi1, strides = [0, 0, 8, 1], offset = 0> -> !t
  return %o : !t
}

func.func @all_true(%q: !t, %k: !t, %v: !t) -> !t {
  %rows = stride.iota dim 0 : !stride.tensor<8x8xi64>
  %any = stride.cmp ge, %rows, %rows : !stride.tensor<8x8xi64>, !stride.tensor<8x8xi64> -> !stride.tensor<8x8xi1>
  %m = stride.expand %any : !stride.tensor<8x8xi1> -> !stride.tensor<2x4x8x8xi1, strides = [0, 0, 8, 1], offset = 0>
  %o = stride.attention %q, %k, %v mask %m scale 0.25
      : !t, !t, !t, !stride.tensor<2x4x8x8xi1, strides = [0, 0, 8, 1], offset = 0> -> !t
  return %o : !t
}

func.func @padding(%q: !t, %k: !t, %v: !t, %keep: !stride.tensor<2x1x1x8xi1>) -> !t {
  %m = stride.expand %keep : !stride.tensor<2x1x1x8xi1> -> !stride.tensor<2x4x8x8xi1, strides = [8, 0, 0, 1], offset = 0>
  %o = stride.attention %q, %k, %v mask %m scale 0.25
      : !t, !t, !t, !stride.tensor<2x4x8x8xi1, strides = [8, 0, 0, 1], offset = 0> -> !t
  return %o : !t
}
