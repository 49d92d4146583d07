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

// Additive masks, as eager attention adds them: where(keep, 0, lowest)
// over the lower triangle becomes the causal flag (@additive_causal), a
// mask of zeros is dropped (@additive_zero), and one whose masked value
// -10000 is above every float type's lowest stays (@additive_small).
func.func @additive_causal(%q: !t, %k: !t, %v: !t) -> !t {
  %rows = stride.iota dim 0 : !stride.tensor<8x8xi64>
  %cols = stride.iota dim 1 : !stride.tensor<8x8xi64>
  %tri = stride.cmp le, %cols, %rows : !stride.tensor<8x8xi64>, !stride.tensor<8x8xi64> -> !stride.tensor<8x8xi1>
  %zero = stride.full 0.0 : !stride.tensor<8x8xbf16>
  %min = stride.full -3.3895313892515355E+38 : !stride.tensor<8x8xbf16>
  %add = stride.where %tri, %zero, %min : !stride.tensor<8x8xi1>, !stride.tensor<8x8xbf16>, !stride.tensor<8x8xbf16> -> !stride.tensor<8x8xbf16>
  %m = stride.expand %add : !stride.tensor<8x8xbf16> -> !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0>
  %q8 = stride.slice %q dim 2 start 0 end 8 step 1 : !t -> !stride.tensor<2x4x8x16xbf16, strides = [512, 128, 16, 1], offset = 0>
  %o = stride.attention %q8, %k, %v mask %m scale 0.25
      : !stride.tensor<2x4x8x16xbf16, strides = [512, 128, 16, 1], offset = 0>, !t, !t,
        !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0> -> !t
  return %o : !t
}

func.func @additive_zero(%q: !t, %k: !t, %v: !t) -> !t {
  %zero = stride.full 0.0 : !stride.tensor<8x8xbf16>
  %m = stride.expand %zero : !stride.tensor<8x8xbf16> -> !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0>
  %o = stride.attention %q, %k, %v mask %m scale 0.25
      : !t, !t, !t, !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0> -> !t
  return %o : !t
}

func.func @additive_small(%q: !t, %k: !t, %v: !t) -> !t {
  %rows = stride.iota dim 0 : !stride.tensor<8x8xi64>
  %cols = stride.iota dim 1 : !stride.tensor<8x8xi64>
  %tri = stride.cmp le, %cols, %rows : !stride.tensor<8x8xi64>, !stride.tensor<8x8xi64> -> !stride.tensor<8x8xi1>
  %zero = stride.full 0.0 : !stride.tensor<8x8xbf16>
  %small = stride.full -10000.0 : !stride.tensor<8x8xbf16>
  %add = stride.where %tri, %zero, %small : !stride.tensor<8x8xi1>, !stride.tensor<8x8xbf16>, !stride.tensor<8x8xbf16> -> !stride.tensor<8x8xbf16>
  %m = stride.expand %add : !stride.tensor<8x8xbf16> -> !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0>
  %q8 = stride.slice %q dim 2 start 0 end 8 step 1 : !t -> !stride.tensor<2x4x8x16xbf16, strides = [512, 128, 16, 1], offset = 0>
  %o = stride.attention %q8, %k, %v mask %m scale 0.25
      : !stride.tensor<2x4x8x16xbf16, strides = [512, 128, 16, 1], offset = 0>, !t, !t,
        !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0> -> !t
  return %o : !t
}

// Eager attention with transformers' additive causal mask: recognized, then
// folded into the flag.
!s = !stride.tensor<2x4x8x8xbf16>
!r = !stride.tensor<2x4x8x1xbf16>
!rb = !stride.tensor<2x4x8x8xbf16, strides = [32, 8, 1, 0], offset = 0>
func.func @eager_causal(%q: !t, %k: !t, %v: !t) -> !t {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !t -> !stride.tensor<2x4x16x8xbf16, strides = [512, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !t, !stride.tensor<2x4x16x8xbf16, strides = [512, 128, 1, 16], offset = 0> -> !s
  %c = stride.full 0.25 : !stride.tensor<bf16>
  %ce = stride.expand %c : !stride.tensor<bf16> -> !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !s, !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 0, 0], offset = 0> -> !s
  %rows = stride.iota dim 0 : !stride.tensor<8x8xi64>
  %cols = stride.iota dim 1 : !stride.tensor<8x8xi64>
  %tri = stride.cmp le, %cols, %rows : !stride.tensor<8x8xi64>, !stride.tensor<8x8xi64> -> !stride.tensor<8x8xi1>
  %zero = stride.full 0.0 : !stride.tensor<8x8xbf16>
  %min = stride.full -3.3895313892515355E+38 : !stride.tensor<8x8xbf16>
  %add = stride.where %tri, %zero, %min : !stride.tensor<8x8xi1>, !stride.tensor<8x8xbf16>, !stride.tensor<8x8xbf16> -> !stride.tensor<8x8xbf16>
  %m = stride.expand %add : !stride.tensor<8x8xbf16> -> !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0>
  %x = stride.add %s1, %m : !s, !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0> -> !s
  %mx = stride.max %x dims [3] keepdim : !s -> !r
  %mxe = stride.expand %mx : !r -> !rb
  %sh = stride.sub %x, %mxe : !s, !rb -> !s
  %e = stride.exp %sh : !s -> !s
  %sm = stride.sum %e dims [3] keepdim : !s -> !r
  %sme = stride.expand %sm : !r -> !rb
  %p = stride.div %e, %sme : !s, !rb -> !s
  %o = stride.matmul %p, %v : !s, !t -> !t
  return %o : !t
}
