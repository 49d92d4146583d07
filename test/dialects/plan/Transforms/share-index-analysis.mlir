// stride-share-index-analysis: default-mode segmented index_adds over one
// index buffer and row count share the first one's counts, buckets and
// long rows' pages; only the first ranks the index (phase 1), only the last zeroes the
// counts. Another row count, or --deterministic, keeps its own analysis.
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels --stride-outline-executable --stride-place-constants --stride-share-index-analysis %s | FileCheck %s
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels="deterministic=true" --stride-outline-executable --stride-place-constants --stride-share-index-analysis %s | FileCheck %s --check-prefix=DET

// Three index_adds over %i into 50 rows: the first ranks (phase 1) and
// keeps the counts, the second and third run no phase 1; the one into 40
// rows has an analysis of its own.
// CHECK-LABEL: plan.executable @shared_kernels
// CHECK: stride.kernel "index_add_kernel" {{.*}}launches = [#stride.launch<grid = 3, block = 256, phase = 1>, #stride.launch<grid = 106, block = 32, phase = 2>]
// CHECK-SAME: index_analysis = first>
// CHECK: stride.kernel "index_add_kernel_1" {{.*}}launches = [#stride.launch<grid = 106, block = 32, phase = 2>]
// CHECK-SAME: index_analysis = reused>
// CHECK: stride.kernel "neg_index_add" {{.*}}launches = [#stride.launch<grid = 106, block = 32, phase = 2>]
// CHECK-SAME: index_analysis = last>
// CHECK: stride.kernel "index_add_kernel_2" {{.*}}launches = [#stride.launch<grid = 3, block = 256, phase = 1>,
// CHECK-SAME: bucket = 32, pages = {{[0-9]+}}, hash_entries = {{[0-9]+}}>
// The others bind the first one's counts, buckets, pages' hash table and
// pages; their partial sums and progress counters stay theirs.
// CHECK-LABEL: func.func @shared(
// CHECK: %[[I:.*]] = plan.input %arg2
// CHECK: %[[C0:.*]] = plan.alloc 208 bytes zeroed
// CHECK-NEXT: %[[C1:.*]] = plan.alloc 6400 bytes zeroed
// CHECK-NEXT: %[[C2:.*]] = plan.alloc 1536 bytes zeroed
// CHECK-NEXT: %[[C3:.*]] = plan.alloc 4464 bytes zeroed
// CHECK: plan.dispatch @shared_kernels::@index_add_kernel(%{{.*}}, %[[I]], %{{.*}}, %{{.*}}, %[[C0]], %[[C1]], %[[C2]], %[[C3]], %{{.*}}, %{{.*}})
// CHECK-NOT: plan.alloc {{6400|1536|4464}} bytes
// CHECK: plan.dispatch @shared_kernels::@index_add_kernel_1(%{{.*}}, %[[I]], %{{.*}}, %{{.*}}, %[[C0]], %[[C1]], %[[C2]], %[[C3]], %{{.*}}, %{{.*}})
// CHECK-NOT: plan.alloc {{6400|1536|4464}} bytes
// CHECK: plan.dispatch @shared_kernels::@neg_index_add(%{{.*}}, %[[I]], %{{.*}}, %{{.*}}, %[[C0]], %[[C1]], %[[C2]], %[[C3]], %{{.*}}, %{{.*}})
// CHECK: plan.alloc 5120 bytes zeroed
// CHECK: plan.dispatch @shared_kernels::@index_add_kernel_2(

// --deterministic: each sorts its own index (four phase-1 launches).
// DET-COUNT-4: phase = 1>
// DET-NOT: phase = 1>
// DET-NOT: index_analysis

func.func @shared(%src: !stride.tensor<600x36xf32>, %src2: !stride.tensor<600x64xf32>,
    %i: !stride.tensor<600xi64>, %x: !stride.tensor<50x36xf32>, %y: !stride.tensor<50x64xf32>,
    %z: !stride.tensor<40x36xf32>)
    -> (!stride.tensor<50x36xf32>, !stride.tensor<50x64xf32>, !stride.tensor<50x36xf32>,
        !stride.tensor<40x36xf32>) {
  %a = stride.index_add %x, %i, %src dim 0 : !stride.tensor<50x36xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xf32> -> !stride.tensor<50x36xf32>
  %b = stride.index_add %y, %i, %src2 dim 0 : !stride.tensor<50x64xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x64xf32> -> !stride.tensor<50x64xf32>
  %n = stride.neg %x : !stride.tensor<50x36xf32> -> !stride.tensor<50x36xf32>
  %c = stride.index_add %n, %i, %src dim 0 : !stride.tensor<50x36xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xf32> -> !stride.tensor<50x36xf32>
  %d = stride.index_add %z, %i, %src dim 0 : !stride.tensor<40x36xf32>,
      !stride.tensor<600xi64>, !stride.tensor<600x36xf32> -> !stride.tensor<40x36xf32>
  return %a, %b, %c, %d : !stride.tensor<50x36xf32>, !stride.tensor<50x64xf32>,
      !stride.tensor<50x36xf32>, !stride.tensor<40x36xf32>
}
