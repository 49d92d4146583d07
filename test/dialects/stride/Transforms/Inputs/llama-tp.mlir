// A small LLaMA-style decoder for stride-tensor-parallel's tests, written
// by make-llama-tp.py (random weights; run it again after changing it).
func.func @forward(%tokens: !stride.tensor<4xi64> {stride.name = "tokens"})
    -> (!stride.tensor<4x12xf32> {stride.name = "logits"}, !stride.tensor<4x8xf32> {stride.name = "hidden"}) {
  %embed = stride.constant dense<[[-0.923, 0.392, -0.712, -0.075, 0.343, 0.586, -0.094, -0.003], [-0.962, -0.135, -0.255, 0.705, 0.094, 0.511, -0.132, -0.648], [0.702, 0.64, -0.248, -0.809, 0.025, -0.008, 0.545, 0.194], [0.013, 0.15, -0.246, -0.902, -0.878, 0.884, 0.678, -0.408], [0.778, 0.045, -0.794, 0.711, 0.169, 0.866, 0.359, -0.812], [0.245, 0.574, 0.798, -0.337, 0.058, 0.402, -0.666, 0.697], [0.562, -0.9, 0.183, -0.264, -0.628, 0.209, 0.938, 0.104], [-0.773, -0.01, 0.558, 0.91, 0.43, -0.917, 0.933, 0.204], [-0.833, -0.746, -0.828, 0.33, -0.692, 0.615, -0.782, 0.07], [-0.114, -0.924, -0.995, 0.807, 0.953, -0.751, 0.469, 0.978], [0.808, 0.77, -0.325, 0.435, -0.004, 0.875, 0.406, 0.687], [0.714, -0.229, 0.425, -0.814, -0.588, 0.873, -0.191, 0.37]]> : tensor<12x8xf32> : !stride.tensor<12x8xf32>
  %x0 = stride.index_select %embed, %tokens dim 0 : !stride.tensor<12x8xf32>, !stride.tensor<4xi64> -> !stride.tensor<4x8xf32>
  %cos = stride.constant dense<[[0.151, -0.479], [0.173, 0.825], [-0.345, -0.306], [-0.628, -0.644]]> : tensor<4x2xf32> : !stride.tensor<4x2xf32>
  %cos4 = stride.view %cos : !stride.tensor<4x2xf32> -> !stride.tensor<1x1x4x2xf32>
  %sin = stride.constant dense<[[0.655, 0.412], [0.93, 0.339], [0.918, -0.556], [-0.624, -0.567]]> : tensor<4x2xf32> : !stride.tensor<4x2xf32>
  %sin4 = stride.view %sin : !stride.tensor<4x2xf32> -> !stride.tensor<1x1x4x2xf32>
  %n1_sq = stride.mul %x0, %x0 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n1_ms = stride.mean %n1_sq dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %n1_eps = stride.full 1.000000e-05 : !stride.tensor<f32>
  %n1_epse = stride.expand %n1_eps : !stride.tensor<f32> -> !stride.tensor<4x1xf32, strides = [0, 0], offset = 0>
  %n1_v = stride.add %n1_ms, %n1_epse : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32, strides = [0, 0], offset = 0> -> !stride.tensor<4x1xf32>
  %n1_r = stride.rsqrt %n1_v : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %n1_re = stride.expand %n1_r : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %n1_n = stride.mul %x0, %n1_re : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %n1_g = stride.constant dense<[-0.232, 0.979, -0.55, -0.083, -0.878, -0.946, 0.092, 0.226]> : tensor<8xf32> : !stride.tensor<8xf32>
  %n1_ge = stride.expand %n1_g : !stride.tensor<8xf32> -> !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
  %n1 = stride.mul %n1_n, %n1_ge : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x8xf32>
  %q_w = stride.constant dense<[[0.011, 0.415, 0.361, 0.451, 0.079, -0.237, -0.37, 0.264], [-0.345, -0.494, 0.199, -0.375, 0.122, -0.299, -0.075, -0.485], [-0.124, -0.172, -0.239, -0.366, 0.076, 0.193, -0.3, -0.456], [-0.232, 0.199, -0.227, 0.148, -0.426, 0.203, -0.358, -0.277], [0.23, -0.025, 0.14, -0.214, 0.168, -0.201, -0.019, -0.056], [0.412, 0.252, 0.049, 0.345, 0.11, 0.224, 0.018, 0.075], [-0.286, 0.431, 0.139, 0.32, 0.106, -0.475, -0.392, 0.382], [0.2, 0.404, 0.394, -0.269, 0.485, 0.111, 0.23, 0.017]]> : tensor<8x8xf32> : !stride.tensor<8x8xf32>
  %q_wt = stride.permute %q_w dims [1, 0] : !stride.tensor<8x8xf32> -> !stride.tensor<8x8xf32, strides = [1, 8], offset = 0>
  %q = stride.matmul %n1, %q_wt : !stride.tensor<4x8xf32>, !stride.tensor<8x8xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x8xf32>
  %k_w = stride.constant dense<[[-0.244, -0.014, -0.038, -0.203, -0.158, -0.057, -0.233, -0.361], [0.304, -0.142, -0.135, 0.283, 0.198, -0.053, -0.19, 0.296], [-0.263, -0.037, -0.126, 0.495, -0.26, 0.093, 0.027, -0.451], [-0.318, 0.386, 0.289, -0.286, -0.321, 0.438, 0.089, 0.216]]> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %k_wt = stride.permute %k_w dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %k = stride.matmul %n1, %k_wt : !stride.tensor<4x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x4xf32>
  %v_w = stride.constant dense<[[0.407, -0.239, -0.0, 0.414, -0.314, -0.245, 0.382, 0.342], [0.015, -0.366, 0.333, -0.192, 0.257, -0.245, -0.346, 0.193], [-0.107, -0.124, -0.061, -0.041, -0.029, 0.148, -0.393, 0.175], [-0.013, 0.318, -0.213, 0.167, -0.294, 0.199, 0.181, 0.044]]> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %v_wt = stride.permute %v_w dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %v = stride.matmul %n1, %v_wt : !stride.tensor<4x8xf32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x4xf32>
  %qh_4 = stride.view %q : !stride.tensor<4x8xf32> -> !stride.tensor<1x4x4x2xf32>
  %qh = stride.permute %qh_4 dims [0, 2, 1, 3] : !stride.tensor<1x4x4x2xf32> -> !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>
  %kh_4 = stride.view %k : !stride.tensor<4x4xf32> -> !stride.tensor<1x4x2x2xf32>
  %kh = stride.permute %kh_4 dims [0, 2, 1, 3] : !stride.tensor<1x4x2x2xf32> -> !stride.tensor<1x2x4x2xf32, strides = [16, 2, 4, 1], offset = 0>
  %vh_4 = stride.view %v : !stride.tensor<4x4xf32> -> !stride.tensor<1x4x2x2xf32>
  %vh = stride.permute %vh_4 dims [0, 2, 1, 3] : !stride.tensor<1x4x2x2xf32> -> !stride.tensor<1x2x4x2xf32, strides = [16, 2, 4, 1], offset = 0>
  %qr_cos = stride.expand %cos4 : !stride.tensor<1x1x4x2xf32> -> !stride.tensor<1x4x4x2xf32, strides = [0, 0, 2, 1], offset = 0>
  %qr_sin = stride.expand %sin4 : !stride.tensor<1x1x4x2xf32> -> !stride.tensor<1x4x4x2xf32, strides = [0, 0, 2, 1], offset = 0>
  %qr_x1 = stride.slice %qh dim 3 start 0 end 1 step 1 : !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0> -> !stride.tensor<1x4x4x1xf32, strides = [32, 2, 8, 1], offset = 0>
  %qr_x2 = stride.slice %qh dim 3 start 1 end 2 step 1 : !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0> -> !stride.tensor<1x4x4x1xf32, strides = [32, 2, 8, 1], offset = 1>
  %qr_nx2 = stride.neg %qr_x2 : !stride.tensor<1x4x4x1xf32, strides = [32, 2, 8, 1], offset = 1> -> !stride.tensor<1x4x4x1xf32>
  %qr_rot = stride.cat %qr_nx2, %qr_x1 dim 3 : !stride.tensor<1x4x4x1xf32>, !stride.tensor<1x4x4x1xf32, strides = [32, 2, 8, 1], offset = 0> -> !stride.tensor<1x4x4x2xf32>
  %qr_c = stride.mul %qh, %qr_cos : !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>, !stride.tensor<1x4x4x2xf32, strides = [0, 0, 2, 1], offset = 0> -> !stride.tensor<1x4x4x2xf32>
  %qr_s = stride.mul %qr_rot, %qr_sin : !stride.tensor<1x4x4x2xf32>, !stride.tensor<1x4x4x2xf32, strides = [0, 0, 2, 1], offset = 0> -> !stride.tensor<1x4x4x2xf32>
  %qr = stride.add %qr_c, %qr_s : !stride.tensor<1x4x4x2xf32>, !stride.tensor<1x4x4x2xf32> -> !stride.tensor<1x4x4x2xf32>
  %kr_cos = stride.expand %cos4 : !stride.tensor<1x1x4x2xf32> -> !stride.tensor<1x2x4x2xf32, strides = [0, 0, 2, 1], offset = 0>
  %kr_sin = stride.expand %sin4 : !stride.tensor<1x1x4x2xf32> -> !stride.tensor<1x2x4x2xf32, strides = [0, 0, 2, 1], offset = 0>
  %kr_x1 = stride.slice %kh dim 3 start 0 end 1 step 1 : !stride.tensor<1x2x4x2xf32, strides = [16, 2, 4, 1], offset = 0> -> !stride.tensor<1x2x4x1xf32, strides = [16, 2, 4, 1], offset = 0>
  %kr_x2 = stride.slice %kh dim 3 start 1 end 2 step 1 : !stride.tensor<1x2x4x2xf32, strides = [16, 2, 4, 1], offset = 0> -> !stride.tensor<1x2x4x1xf32, strides = [16, 2, 4, 1], offset = 1>
  %kr_nx2 = stride.neg %kr_x2 : !stride.tensor<1x2x4x1xf32, strides = [16, 2, 4, 1], offset = 1> -> !stride.tensor<1x2x4x1xf32>
  %kr_rot = stride.cat %kr_nx2, %kr_x1 dim 3 : !stride.tensor<1x2x4x1xf32>, !stride.tensor<1x2x4x1xf32, strides = [16, 2, 4, 1], offset = 0> -> !stride.tensor<1x2x4x2xf32>
  %kr_c = stride.mul %kh, %kr_cos : !stride.tensor<1x2x4x2xf32, strides = [16, 2, 4, 1], offset = 0>, !stride.tensor<1x2x4x2xf32, strides = [0, 0, 2, 1], offset = 0> -> !stride.tensor<1x2x4x2xf32>
  %kr_s = stride.mul %kr_rot, %kr_sin : !stride.tensor<1x2x4x2xf32>, !stride.tensor<1x2x4x2xf32, strides = [0, 0, 2, 1], offset = 0> -> !stride.tensor<1x2x4x2xf32>
  %kr = stride.add %kr_c, %kr_s : !stride.tensor<1x2x4x2xf32>, !stride.tensor<1x2x4x2xf32> -> !stride.tensor<1x2x4x2xf32>
  %att = stride.attention %qr, %kr, %vh scale 0.70710678118654757 causal : !stride.tensor<1x4x4x2xf32>, !stride.tensor<1x2x4x2xf32>, !stride.tensor<1x2x4x2xf32, strides = [16, 2, 4, 1], offset = 0> -> !stride.tensor<1x4x4x2xf32>
  %att_t = stride.permute %att dims [0, 2, 1, 3] : !stride.tensor<1x4x4x2xf32> -> !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0>
  %att_c = stride.clone %att_t : !stride.tensor<1x4x4x2xf32, strides = [32, 2, 8, 1], offset = 0> -> !stride.tensor<1x4x4x2xf32>
  %att_f = stride.view %att_c : !stride.tensor<1x4x4x2xf32> -> !stride.tensor<4x8xf32>
  %o_w = stride.constant dense<[[-0.021, 0.45, -0.141, -0.418, -0.169, -0.457, 0.391, 0.335], [-0.315, 0.129, -0.295, 0.355, -0.086, -0.441, 0.135, -0.417], [0.394, 0.428, 0.114, -0.255, 0.275, -0.461, -0.389, -0.196], [-0.428, 0.374, 0.168, 0.308, 0.157, -0.276, -0.222, 0.108], [0.291, 0.125, -0.179, 0.3, -0.09, 0.128, 0.35, 0.164], [-0.04, 0.091, -0.296, -0.063, 0.333, -0.015, -0.483, 0.314], [-0.345, -0.467, 0.079, 0.268, -0.388, -0.056, -0.038, -0.377], [0.129, -0.249, 0.191, 0.003, 0.024, -0.269, 0.263, -0.489]]> : tensor<8x8xf32> : !stride.tensor<8x8xf32>
  %o_wt = stride.permute %o_w dims [1, 0] : !stride.tensor<8x8xf32> -> !stride.tensor<8x8xf32, strides = [1, 8], offset = 0>
  %o = stride.matmul %att_f, %o_wt : !stride.tensor<4x8xf32>, !stride.tensor<8x8xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x8xf32>
  %x1 = stride.add %x0, %o : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n2_sq = stride.mul %x1, %x1 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n2_ms = stride.mean %n2_sq dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %n2_eps = stride.full 1.000000e-05 : !stride.tensor<f32>
  %n2_epse = stride.expand %n2_eps : !stride.tensor<f32> -> !stride.tensor<4x1xf32, strides = [0, 0], offset = 0>
  %n2_v = stride.add %n2_ms, %n2_epse : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32, strides = [0, 0], offset = 0> -> !stride.tensor<4x1xf32>
  %n2_r = stride.rsqrt %n2_v : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %n2_re = stride.expand %n2_r : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %n2_n = stride.mul %x1, %n2_re : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %n2_g = stride.constant dense<[-0.374, -0.795, -0.828, -0.978, 0.046, -0.856, -0.772, -0.135]> : tensor<8xf32> : !stride.tensor<8xf32>
  %n2_ge = stride.expand %n2_g : !stride.tensor<8xf32> -> !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
  %n2 = stride.mul %n2_n, %n2_ge : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x8xf32>
  %gate_w = stride.constant dense<[[0.18, -0.298, 0.157, 0.058, 0.424, 0.31, 0.492, -0.143], [0.385, -0.179, -0.217, -0.074, -0.477, 0.223, -0.412, 0.113], [-0.441, -0.073, -0.247, 0.445, -0.202, -0.144, -0.193, -0.375], [0.144, -0.197, -0.229, -0.187, -0.147, 0.293, -0.284, -0.376], [-0.169, 0.07, -0.218, -0.39, -0.143, 0.461, 0.396, -0.055], [-0.067, -0.326, 0.171, 0.221, -0.242, 0.126, -0.398, -0.185], [-0.211, 0.297, 0.118, 0.011, -0.062, 0.052, -0.018, -0.242], [0.331, 0.297, -0.113, -0.097, 0.426, -0.479, 0.266, -0.331], [-0.31, -0.15, 0.124, -0.18, 0.018, 0.013, 0.42, 0.079], [-0.23, 0.133, 0.056, -0.197, 0.224, -0.491, 0.486, 0.374], [-0.439, 0.211, -0.37, 0.491, -0.048, 0.246, -0.244, 0.154], [-0.471, 0.299, -0.234, -0.328, -0.059, 0.002, -0.454, -0.333], [-0.119, 0.044, 0.2, -0.365, 0.322, -0.141, 0.491, -0.129], [-0.052, -0.141, -0.419, 0.427, 0.091, 0.257, -0.346, -0.014], [-0.215, -0.228, -0.105, 0.126, -0.043, 0.198, 0.489, 0.09], [0.299, 0.452, 0.471, -0.152, 0.338, 0.197, -0.481, 0.32]]> : tensor<16x8xf32> : !stride.tensor<16x8xf32>
  %gate_wt = stride.permute %gate_w dims [1, 0] : !stride.tensor<16x8xf32> -> !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
  %gate = stride.matmul %n2, %gate_wt : !stride.tensor<4x8xf32>, !stride.tensor<8x16xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x16xf32>
  %up_w = stride.constant dense<[[0.397, 0.396, -0.163, 0.226, 0.328, -0.055, 0.138, -0.119], [0.421, 0.024, -0.258, -0.072, 0.087, -0.124, -0.172, 0.129], [-0.181, -0.012, -0.416, -0.182, -0.386, -0.018, -0.172, -0.123], [-0.47, 0.49, -0.289, -0.49, 0.084, -0.461, 0.071, 0.413], [-0.442, -0.026, 0.335, -0.262, -0.368, -0.442, 0.196, 0.263], [-0.073, -0.152, 0.484, -0.251, 0.3, 0.308, -0.047, 0.285], [-0.173, 0.402, 0.246, 0.123, 0.34, 0.175, 0.366, -0.147], [-0.125, 0.445, -0.065, -0.188, 0.308, -0.148, -0.082, 0.068], [-0.412, 0.341, 0.111, -0.453, -0.406, -0.206, -0.07, 0.301], [0.301, 0.24, 0.231, 0.012, -0.413, -0.149, 0.245, -0.474], [-0.258, -0.483, -0.174, -0.175, -0.021, -0.323, 0.046, -0.383], [0.289, 0.335, -0.087, 0.386, 0.164, 0.059, 0.137, -0.055], [-0.361, 0.399, -0.273, 0.374, -0.117, 0.05, 0.117, -0.139], [0.491, 0.348, -0.115, -0.162, 0.387, 0.44, -0.141, -0.369], [0.035, -0.037, -0.058, 0.102, -0.486, 0.066, 0.181, 0.052], [-0.498, 0.068, 0.417, 0.184, 0.016, -0.124, -0.284, -0.044]]> : tensor<16x8xf32> : !stride.tensor<16x8xf32>
  %up_wt = stride.permute %up_w dims [1, 0] : !stride.tensor<16x8xf32> -> !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
  %up = stride.matmul %n2, %up_wt : !stride.tensor<4x8xf32>, !stride.tensor<8x16xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x16xf32>
  %sg = stride.sigmoid %gate : !stride.tensor<4x16xf32> -> !stride.tensor<4x16xf32>
  %silu = stride.mul %gate, %sg : !stride.tensor<4x16xf32>, !stride.tensor<4x16xf32> -> !stride.tensor<4x16xf32>
  %h = stride.mul %silu, %up : !stride.tensor<4x16xf32>, !stride.tensor<4x16xf32> -> !stride.tensor<4x16xf32>
  %down_w = stride.constant dense<[[0.459, -0.349, 0.12, 0.024, -0.409, -0.257, -0.241, -0.411, -0.406, 0.328, -0.191, 0.172, -0.012, 0.016, -0.046, -0.467], [-0.428, -0.375, 0.314, 0.199, 0.461, 0.191, -0.274, 0.082, 0.164, -0.221, -0.087, 0.296, -0.293, -0.47, 0.394, -0.16], [0.107, 0.472, -0.304, -0.236, -0.164, -0.22, -0.004, -0.478, 0.307, 0.498, -0.287, -0.103, -0.125, 0.205, -0.085, 0.362], [0.448, -0.237, -0.382, 0.107, -0.438, -0.086, -0.304, 0.327, -0.096, 0.334, 0.092, 0.246, 0.166, 0.285, 0.235, 0.305], [-0.111, -0.325, -0.268, 0.316, -0.384, 0.263, -0.452, -0.485, 0.234, 0.228, 0.286, -0.131, 0.184, 0.236, -0.27, -0.378], [-0.439, -0.195, 0.276, -0.273, 0.334, 0.151, 0.454, -0.226, 0.472, 0.278, -0.453, -0.227, -0.385, -0.168, 0.084, 0.47], [0.358, -0.185, 0.083, 0.002, -0.481, -0.218, 0.003, 0.008, 0.217, -0.198, 0.482, 0.418, -0.202, -0.367, -0.277, -0.148], [-0.02, -0.065, 0.107, 0.22, -0.49, -0.371, -0.061, 0.0, 0.246, 0.252, -0.117, 0.141, -0.206, 0.01, 0.339, 0.232]]> : tensor<8x16xf32> : !stride.tensor<8x16xf32>
  %down_wt = stride.permute %down_w dims [1, 0] : !stride.tensor<8x16xf32> -> !stride.tensor<16x8xf32, strides = [1, 16], offset = 0>
  %down = stride.matmul %h, %down_wt : !stride.tensor<4x16xf32>, !stride.tensor<16x8xf32, strides = [1, 16], offset = 0> -> !stride.tensor<4x8xf32>
  %x2 = stride.add %x1, %down : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n3_sq = stride.mul %x2, %x2 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n3_ms = stride.mean %n3_sq dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %n3_eps = stride.full 1.000000e-05 : !stride.tensor<f32>
  %n3_epse = stride.expand %n3_eps : !stride.tensor<f32> -> !stride.tensor<4x1xf32, strides = [0, 0], offset = 0>
  %n3_v = stride.add %n3_ms, %n3_epse : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32, strides = [0, 0], offset = 0> -> !stride.tensor<4x1xf32>
  %n3_r = stride.rsqrt %n3_v : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %n3_re = stride.expand %n3_r : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %n3_n = stride.mul %x2, %n3_re : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %n3_g = stride.constant dense<[-0.96, 0.449, 0.152, 0.784, -0.888, -0.999, -0.397, 0.956]> : tensor<8xf32> : !stride.tensor<8xf32>
  %n3_ge = stride.expand %n3_g : !stride.tensor<8xf32> -> !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
  %n3 = stride.mul %n3_n, %n3_ge : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x8xf32>
  %lm_w = stride.constant dense<[[-0.155, 0.054, -0.285, 0.008, 0.263, -0.183, -0.419, 0.094], [-0.427, -0.469, -0.344, -0.153, -0.336, 0.463, 0.185, 0.263], [0.183, -0.182, -0.477, -0.487, -0.358, -0.133, 0.026, 0.251], [0.43, 0.339, 0.102, 0.215, 0.458, 0.441, 0.126, 0.196], [0.338, 0.367, 0.035, 0.069, 0.465, -0.209, -0.16, 0.495], [0.013, 0.096, -0.12, -0.493, 0.078, 0.297, -0.061, -0.377], [-0.416, -0.45, 0.361, 0.121, 0.299, 0.325, -0.473, 0.047], [-0.339, -0.212, -0.318, 0.018, -0.175, -0.414, 0.304, 0.345], [0.047, 0.386, 0.035, -0.337, 0.308, 0.045, -0.118, -0.405], [0.336, -0.224, 0.475, -0.272, -0.224, 0.131, 0.2, 0.43], [-0.202, -0.392, 0.32, -0.147, -0.39, -0.199, -0.156, -0.466], [0.489, 0.342, 0.061, -0.05, -0.466, 0.044, -0.159, 0.308]]> : tensor<12x8xf32> : !stride.tensor<12x8xf32>
  %lm_wt = stride.permute %lm_w dims [1, 0] : !stride.tensor<12x8xf32> -> !stride.tensor<8x12xf32, strides = [1, 8], offset = 0>
  %lm = stride.matmul %n3, %lm_wt : !stride.tensor<4x8xf32>, !stride.tensor<8x12xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x12xf32>
  return %lm, %x2 : !stride.tensor<4x12xf32>, !stride.tensor<4x8xf32>
}
