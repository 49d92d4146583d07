// stride-share-index-analysis: default-mode segmented index_adds over one
// index buffer and row count share the first one's counts, buckets and
// ranks; only the first ranks the index (phase 1), only the last zeroes the
// counts. Another row count, or --deterministic, keeps its own analysis.
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels --stride-outline-executable --stride-place-constants --stride-share-index-analysis %s | FileCheck %s
// RUN: stride-opt --stride-pipeline="form-kernels" --stride-schedule-kernels="deterministic=true" --stride-outline-executable --stride-place-constants --stride-share-index-analysis %s | FileCheck %s --check-prefix=DET

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
