// RUN: stride-opt %s --pass-pipeline='builtin.module(func.func(stride-tensor-parallel{world-size=2 rank=0}))' | FileCheck %s
// RUN: stride-run %s --random-inputs --seed 3 --output-dir %t.full > /dev/null
// RUN: stride-run %s --tensor-parallel 2 --random-inputs --seed 3 --expect %t.full --rtol 1e-5 | FileCheck %s --check-prefix=RANKS

// An attention whose result is laid out heads inside tokens (as the fused
// attention of an export gives it, so that merging the heads needs no copy):
// each rank's part keeps that dim order, and the view that merges the
// rank's heads still needs no copy.
// CHECK:      stride.attention {{.*}} -> <1x2x4x2xf32, strides = [16, 2, 4, 1]
// CHECK-NEXT: stride.permute {{.*}} -> <1x4x2x2xf32, strides = [16, 4, 2, 1]
// CHECK-NEXT: stride.view {{.*}} -> <4x4xf32
// CHECK:      stride.all_reduce
// RANKS-COUNT-2: out: match
func.func @forward(%x: !stride.tensor<4x8xf32> {stride.name = "x"}) -> (!stride.tensor<4x8xf32> {stride.name = "out"}) {
  %q_w = stride.constant dense<[[-0.176, -0.349, 0.151, -0.428, 0.036, -0.134, -0.442, 0.007], [-0.463, -0.066, -0.430, -0.409, -0.075, 0.327, -0.376, -0.277], [0.127, 0.448, 0.077, -0.103, 0.476, -0.453, 0.358, -0.210], [-0.356, -0.382, -0.192, 0.316, -0.319, 0.082, 0.139, -0.128], [0.048, -0.437, -0.440, -0.294, 0.180, -0.072, -0.186, 0.086], [-0.047, -0.200, 0.294, 0.199, -0.256, 0.074, 0.025, 0.375], [0.229, -0.212, 0.480, -0.382, -0.082, 0.257, -0.348, -0.011], [-0.461, 0.168, 0.265, 0.073, 0.375, -0.186, 0.195, 0.094]]> : tensor<8x8xf32> : !stride.tensor<8x8xf32>
  %q = stride.matmul %x, %q_w : !stride.tensor<4x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<4x8xf32>
  %k_w = stride.constant dense<[[0.080, -0.044, 0.340, 0.445, -0.026, 0.164, -0.439, 0.201], [0.147, 0.493, 0.322, -0.215, -0.114, 0.169, -0.477, -0.038], [-0.332, -0.383, -0.441, 0.268, -0.371, -0.252, -0.109, 0.371], [-0.419, -0.051, 0.049, 0.383, 0.319, 0.364, -0.222, -0.085], [-0.141, 0.384, 0.458, -0.349, -0.324, -0.268, -0.267, -0.015], [0.089, -0.237, -0.496, -0.081, -0.131, 0.066, 0.453, 0.190], [0.015, 0.118, 0.176, -0.446, 0.400, 0.280, 0.375, 0.298], [-0.108, -0.101, -0.396, 0.134, -0.438, -0.433, -0.291, -0.338]]> : tensor<8x8xf32> : !stride.tensor<8x8xf32>
  %k = stride.matmul %x, %k_w : !stride.tensor<4x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<4x8xf32>
  %v_w = stride.constant dense<[[-0.160, -0.447, -0.500, -0.349, -0.399, -0.136, -0.474, 0.374], [0.114, -0.351, -0.248, -0.153, -0.136, -0.377, 0.349, 0.493], [-0.034, -0.016, -0.414, -0.398, -0.157, -0.235, 0.329, -0.339], [-0.477, 0.451, 0.028, -0.353, 0.043, -0.473, 0.028, 0.479], [0.363, 0.196, -0.239, -0.133, -0.333, 0.272, 0.033, 0.279], [-0.170, -0.277, 0.312, 0.485, 0.353, 0.306, 0.318, 0.240], [-0.273, 0.018, -0.144, -0.471, -0.472, -0.221, -0.241, 0.193], [0.457, -0.053, 0.437, 0.488, 0.455, -0.135, -0.280, -0.273]]> : tensor<8x8xf32> : !stride.tensor<8x8xf32>
  %v = stride.matmul %x, %v_w : !stride.tensor<4x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<4x8xf32>
  %q4 = stride.view %q : !stride.tensor<4x8xf32> -> !stride.tensor<1x4x4x2xf32>
  %qh = stride.permute %q4 dims [0, 2, 1, 3] : !stride.tensor<1x4x4x2xf32> -> !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>
  %k4 = stride.view %k : !stride.tensor<4x8xf32> -> !stride.tensor<1x4x4x2xf32>
  %kh = stride.permute %k4 dims [0, 2, 1, 3] : !stride.tensor<1x4x4x2xf32> -> !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>
  %v4 = stride.view %v : !stride.tensor<4x8xf32> -> !stride.tensor<1x4x4x2xf32>
  %vh = stride.permute %v4 dims [0, 2, 1, 3] : !stride.tensor<1x4x4x2xf32> -> !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>
  %att = stride.attention %qh, %kh, %vh scale 0.70710678118654757 causal : !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>, !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>, !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0> -> !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>
  %att_t = stride.permute %att dims [0, 2, 1, 3] : !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0> -> !stride.tensor<1x4x4x2xf32>
  %att_f = stride.view %att_t : !stride.tensor<1x4x4x2xf32> -> !stride.tensor<4x8xf32>
  %o_w = stride.constant dense<[[-0.303, -0.296, 0.124, 0.400, 0.340, -0.021, 0.153, 0.300], [-0.415, 0.161, 0.410, 0.282, 0.250, -0.022, -0.321, 0.289], [-0.167, 0.301, 0.472, -0.104, -0.099, 0.447, 0.225, -0.330], [-0.373, -0.349, 0.405, 0.307, -0.354, 0.327, 0.480, 0.157], [-0.150, 0.049, -0.369, -0.486, 0.471, 0.150, 0.027, 0.434], [-0.066, 0.372, 0.326, -0.289, -0.248, -0.207, -0.259, 0.086], [-0.241, -0.081, -0.369, 0.410, -0.146, -0.042, 0.083, 0.404], [-0.079, 0.418, 0.002, 0.032, 0.024, -0.481, -0.060, -0.317]]> : tensor<8x8xf32> : !stride.tensor<8x8xf32>
  %o = stride.matmul %att_f, %o_w : !stride.tensor<4x8xf32>, !stride.tensor<8x8xf32> -> !stride.tensor<4x8xf32>
  return %o : !stride.tensor<4x8xf32>
}
