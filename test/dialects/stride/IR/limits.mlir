// The limits that stop a hostile graph from exhausting resources (rank <= 16,
// at most 2^40 elements, every address below 2^48) are checked by the tensor
// type's verifier, and no size, stride or offset computation overflows: huge
// dims, strides and offsets are refused with a message at the type, and view
// arithmetic that would overflow is refused at the op.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

// Exactly at the limits: accepted.
func.func @f(%a: !stride.tensor<1099511627776xi8>,
             %b: !stride.tensor<2xf32, strides = [281474976710655]>,
             %c: !stride.tensor<0x1099511627776xf32>,
             %d: !stride.tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>,
             %e: !stride.tensor<1xf32, strides = [9223372036854775807]>) {
  return
}

// -----

// expected-error @+1 {{the tensor has more than 2^40 elements, the limit on a tensor's size}}
func.func @f(%x: !stride.tensor<1099511627777xf32>) { return }

// -----

// expected-error @+1 {{the tensor has more than 2^40 elements, the limit on a tensor's size}}
func.func @f(%x: !stride.tensor<4611686018427387904xf32>) { return }

// -----

// The product of the dims overflows int64 (2^124).
// expected-error @+1 {{the tensor has more than 2^40 elements, the limit on a tensor's size}}
func.func @f(%x: !stride.tensor<4611686018427387904x4611686018427387904xf32>) { return }

// -----

// An empty tensor may not have huge dims either: code that multiplies some
// of its dims must not overflow.
// expected-error @+1 {{the non-zero dims of this empty tensor multiply to more than 2^40, the limit on a tensor's size}}
func.func @f(%x: !stride.tensor<0x4611686018427387904xf32>) { return }

// -----

// expected-error @+1 {{the non-zero dims of this empty tensor multiply to more than 2^40, the limit on a tensor's size}}
func.func @f(%x: !stride.tensor<2097152x0x1048576xf32>) { return }

// -----

// A dim beyond int64 is a syntax error.
// expected-error @+1 {{invalid dimension}}
func.func @f(%x: !stride.tensor<9223372036854775808xf32>) { return }

// -----

// (3 - 1) * 2^62 overflows int64.
// expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
func.func @f(%x: !stride.tensor<3xf32, strides = [4611686018427387904]>) { return }

// -----

// expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
func.func @f(%x: !stride.tensor<2x2xf32, strides = [9223372036854775807, 9223372036854775807]>) { return }

// -----

// The largest address is exactly INT64_MAX, so one past it overflows (found
// by stride-graph-fuzzer).
// expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
func.func @f(%x: !stride.tensor<2xf32, strides = [9223372036854775807]>) { return }

// -----

// expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
func.func @f(%x: !stride.tensor<2xf32, strides = [9223372036854775806], offset = 1>) { return }

// -----

// One past the largest address is 2^48 + 1.
// expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
func.func @f(%x: !stride.tensor<2xf32, strides = [281474976710656]>) { return }

// -----

// offset + the largest address overflows int64.
// expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
func.func @f(%x: !stride.tensor<4xf32, offset = 9223372036854775807>) { return }

// -----

// expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
func.func @f(%x: !stride.tensor<0xf32, offset = 9223372036854775807>) { return }

// -----

// Views: a result type beyond the limits is refused by the type verifier.
func.func @f(%x: !stride.tensor<1xf32>) {
  // expected-error @+1 {{the tensor has more than 2^40 elements, the limit on a tensor's size}}
  %0 = stride.expand %x : !stride.tensor<1xf32> -> !stride.tensor<4611686018427387904xf32, strides = [0]>
  return
}

// -----

// Broadcasting to 2^40 elements of one address is fine.
func.func @f(%x: !stride.tensor<1xf32>) {
  %0 = stride.expand %x : !stride.tensor<1xf32> -> !stride.tensor<1048576x1048576xf32, strides = [0, 0]>
  return
}

// -----

func.func @f(%x: !stride.tensor<0xf32>) {
  // expected-error @+1 {{the non-zero dims of this empty tensor multiply to more than 2^40, the limit on a tensor's size}}
  %0 = stride.view %x : !stride.tensor<0xf32> -> !stride.tensor<4611686018427387904x0xf32>
  return
}

// -----

func.func @f(%x: !stride.tensor<8xf32>) {
  // expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
  %0 = stride.as_strided %x : !stride.tensor<8xf32> -> !stride.tensor<2x2xf32, strides = [9223372036854775807, 1]>
  return
}

// -----

func.func @f(%x: !stride.tensor<8xf32>) {
  // expected-error @+1 {{the layout reaches beyond storage address 2^48, the limit on a tensor's storage}}
  %0 = stride.as_strided %x : !stride.tensor<8xf32> -> !stride.tensor<2xf32, strides = [1], offset = 9223372036854775807>
  return
}

// -----

// A huge step: the result's size is computed without overflow (one element,
// whose stride does not matter, so any stride of a size-1 dim is legal).
func.func @f(%x: !stride.tensor<4xf32>, %y: !stride.tensor<1xf32>) {
  %0 = stride.slice %x dim 0 start 0 end 4 step 9223372036854775807 : !stride.tensor<4xf32> -> !stride.tensor<1xf32, strides = [9223372036854775807]>
  %1 = stride.slice_scatter %x, %y dim 0 start 1 end 4 step 9223372036854775807 : !stride.tensor<4xf32>, !stride.tensor<1xf32> -> !stride.tensor<4xf32>
  return
}

// -----

// The result's stride, 2 * 2^62, does not fit in int64.
func.func @f(%x: !stride.tensor<4x2xf32>) {
  // expected-error @+1 {{'stride.slice' op the result's stride, stride 2 of dim 0 times step 4611686018427387904, overflows a 64-bit integer}}
  %0 = stride.slice %x dim 0 start 0 end 4 step 4611686018427387904 : !stride.tensor<4x2xf32> -> !stride.tensor<1x2xf32>
  return
}

// -----

func.func @f(%x: !stride.tensor<4x2xf32>, %y: !stride.tensor<1x2xf32>) {
  // expected-error @+1 {{'stride.slice_scatter' op the result's stride, stride 2 of dim 0 times step 4611686018427387904, overflows a 64-bit integer}}
  %0 = stride.slice_scatter %x, %y dim 0 start 0 end 4 step 4611686018427387904 : !stride.tensor<4x2xf32>, !stride.tensor<1x2xf32> -> !stride.tensor<4x2xf32>
  return
}

// -----

// start and end must lie in [0, size]: huge values are refused, not
// multiplied.
func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.slice' op the range [9223372036854775807, 9223372036854775807) must satisfy 0 <= start <= end <= 4 (the size of dim 0)}}
  %0 = stride.slice %x dim 0 start 9223372036854775807 end 9223372036854775807 step 1 : !stride.tensor<4xf32> -> !stride.tensor<0xf32>
  return
}

// -----

func.func @f(%x: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.select' op index -9223372036854775808 is out of range [0, 4) of dim 0}}
  %0 = stride.select %x dim 0 index -9223372036854775808 : !stride.tensor<4xf32> -> !stride.tensor<f32>
  return
}

// -----

// A size-1 dim with a huge stride: views of it keep that stride, and the
// products they form with it are checked.
func.func @f(%x: !stride.tensor<2x1xf32, strides = [1, 9223372036854775807]>) {
  %0 = stride.view %x : !stride.tensor<2x1xf32, strides = [1, 9223372036854775807]> -> !stride.tensor<2xf32>
  %1 = stride.unsqueeze %x dim 2 : !stride.tensor<2x1xf32, strides = [1, 9223372036854775807]> -> !stride.tensor<2x1x1xf32, strides = [1, 9223372036854775807, 1]>
  %2 = stride.select %x dim 1 index 0 : !stride.tensor<2x1xf32, strides = [1, 9223372036854775807]> -> !stride.tensor<2xf32>
  return
}

// -----

// unsqueeze before a size-1 dim with the largest stride: size * stride still
// fits.
func.func @f(%x: !stride.tensor<1x2xf32, strides = [9223372036854775807, 1]>) {
  %0 = stride.unsqueeze %x dim 0 : !stride.tensor<1x2xf32, strides = [9223372036854775807, 1]> -> !stride.tensor<1x1x2xf32, strides = [9223372036854775807, 9223372036854775807, 1]>
  return
}
