// stride-tensor-parallel on a small LLaMA-style decoder (Inputs/llama-tp.mlir:
// 4 query heads, 2 key/value heads of dim 2, hidden 8, MLP 16, vocabulary
// 12): rank 1 of 2. Every weight is rank 1's block; the collectives sit
// where the ranks combine their parts. tensor-parallel.test checks the
// ranks' results against the unsplit graph's.
// RUN: stride-opt %S/Inputs/llama-tp.mlir --pass-pipeline='builtin.module(func.func(stride-tensor-parallel{world-size=2 rank=1}))' | FileCheck %s

// The embedding, split along the hidden dim, then gathered.
// CHECK:      %[[E:.*]] = stride.index_select %{{.*}}, %arg0 dim 0 : <12x4xf32, {{.*}}> -> <4x4xf32,
// CHECK-NEXT: %[[X0:.*]] = stride.all_gather %[[E]] dim 1 world_size 2 : <4x4xf32, {{.*}}> -> <4x8xf32,
// Column-parallel query (2 of 4 heads), key and value (1 of 2 heads).
// CHECK:      stride.permute %{{.*}} dims [1, 0] : <4x8xf32, {{.*}}> -> <8x4xf32,
// CHECK-NEXT: %[[Q:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x4xf32, {{.*}}> -> <4x4xf32,
// CHECK:      %[[K:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x2xf32, {{.*}}> -> <4x2xf32,
// CHECK:      %[[V:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x2xf32, {{.*}}> -> <4x2xf32,
// CHECK:      stride.view %[[Q]] : <4x4xf32, {{.*}}> -> <1x4x2x2xf32,
// RoPE's cos and sin: the broadcast shrinks to the rank's heads.
// CHECK:      stride.expand %{{.*}} : <1x1x4x2xf32, {{.*}}> -> <1x2x4x2xf32, strides = [8, 0, 2, 1]
// The attention: 2 query heads, 1 key/value head.
// CHECK:      stride.attention {{.*}} causal : <1x2x4x2xf32, {{.*}}>, <1x1x4x2xf32, {{.*}}>, <1x1x4x2xf32, {{.*}}> -> <1x2x4x2xf32,
// Row-parallel output projection: rank 1's 4 rows of the weight, then the
// all-reduce before the residual add.
// CHECK:      stride.view %{{.*}} : <1x4x2x2xf32, {{.*}}> -> <4x4xf32,
// CHECK:      %[[O:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x4xf32, {{.*}}>, <4x8xf32, {{.*}}> -> <4x8xf32,
// CHECK-NEXT: %[[OR:.*]] = stride.all_reduce %[[O]] sum world_size 2
// CHECK-NEXT: stride.add %[[X0]], %[[OR]]
// The MLP: gate and up by columns (8 of 16), down by rows.
// CHECK:      %[[G:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x8xf32, {{.*}}> -> <4x8xf32,
// CHECK:      %[[U:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x8xf32, {{.*}}> -> <4x8xf32,
// CHECK:      stride.sigmoid %[[G]]
// CHECK:      %[[D:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x8xf32, {{.*}}> -> <4x8xf32,
// CHECK-NEXT: %[[DR:.*]] = stride.all_reduce %[[D]] sum world_size 2
// CHECK-NEXT: %[[X2:.*]] = stride.add %{{.*}}, %[[DR]]
// The LM head by columns (6 of 12 words), gathered where it is returned.
// CHECK:      %[[LM:.*]] = stride.matmul %{{.*}}, %{{.*}} : <4x8xf32, {{.*}}>, <8x6xf32, {{.*}}> -> <4x6xf32,
// CHECK-NEXT: %[[L:.*]] = stride.all_gather %[[LM]] dim 1 world_size 2 : <4x6xf32, {{.*}}> -> <4x12xf32,
// CHECK-NEXT: return %[[L]], %[[X2]]

// No unsplit weight is left (the embedding table and the LM head are
// 12x8, the MLP's 16x8 and 8x16).
// RUN: stride-opt %S/Inputs/llama-tp.mlir --pass-pipeline='builtin.module(func.func(stride-tensor-parallel{world-size=2 rank=1}))' | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS-NOT: tensor<12x8xf32>
// WEIGHTS-NOT: tensor<16x8xf32>
// WEIGHTS-NOT: tensor<8x16xf32>

// RUN: stride-opt %S/Inputs/llama-tp.mlir --pass-pipeline='builtin.module(func.func(stride-tensor-parallel{world-size=2 rank=0}))' | FileCheck %s --check-prefix=RANK0
// RUN: stride-opt %S/Inputs/llama-tp.mlir --pass-pipeline='builtin.module(func.func(stride-tensor-parallel{world-size=2 rank=1}))' | FileCheck %s --check-prefix=RANK1
// The rank's block of the embedding table (the first constant): columns
// 0..3 or 4..7 of row 0, [-0.923, 0.392, -0.712, -0.075, 0.343, 0.586,
// -0.094, -0.003].
// RANK0: stride.constant dense<{{\[\[}}-0.922999978, 3.920000e-01, -7.120000e-01, -7.500000e-02]
// RANK1: stride.constant dense<{{\[\[}}3.430000e-01, 5.860000e-01, -9.400000e-02, -3.000000e-03]
