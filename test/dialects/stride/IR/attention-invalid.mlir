// stride.attention and stride.attention_backward reject what
// F.scaled_dot_product_attention cannot mean, one case per diagnostic, with
// a note at the operand that is wrong.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
func.func @f(%q: !stride.tensor<4x8x16xi32>, %k: !kv, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4x8x16xi32, strides = [128, 16, 1], offset = 0>'}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !stride.tensor<4x8x16xi32>, !kv, !kv -> !stride.tensor<4x8x16xf32>
  return
}
// -----
!kv = !stride.tensor<2x2x6x16xf32>
// expected-note @+1 {{query is defined here}}
func.func @f(%q: !stride.tensor<4x8x16xf32>, %k: !kv, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op query has shape [4, 8, 16], but attention takes rank-4 tensors [batch, heads, sequence, head dim] (unsqueeze a missing batch or head dim)}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !stride.tensor<4x8x16xf32>, !kv, !kv -> !stride.tensor<4x8x16xf32>
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
// expected-note @+1 {{key is defined here}}
func.func @f(%q: !q, %k: !stride.tensor<2x2x6x16xf16>, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op key has element type 'f16' but query has 'f32'; query, key, value and the results have one element type (convert with stride.cast)}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !q, !stride.tensor<2x2x6x16xf16>, !kv -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
// expected-note @+1 {{key is defined here}}
func.func @f(%q: !q, %k: !stride.tensor<3x2x6x16xf32>, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op key has batch size 3 but query has 2; the batch dims must be equal (broadcast with stride.expand)}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !q, !stride.tensor<3x2x6x16xf32>, !kv -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
// expected-note @+1 {{value is defined here}}
func.func @f(%q: !q, %k: !kv, %v: !stride.tensor<2x2x7x16xf32>) {
  // expected-error @+1 {{'stride.attention' op value has shape [2, 2, 7, 16] but key has [2, 2, 6, 16]; value has key's batch, heads and rows (dims 0 to 2): one row per key}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !q, !kv, !stride.tensor<2x2x7x16xf32> -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
// expected-note @+1 {{key is defined here}}
func.func @f(%q: !q, %k: !stride.tensor<2x2x6x8xf32>, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op contracts query dim 3 of size 16 with key dim 3 of size 8; query and key have one head dim}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !q, !stride.tensor<2x2x6x8xf32>, !kv -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x3x6x16xf32>
// expected-note @+1 {{key is defined here}}
func.func @f(%q: !q, %k: !kv, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op query has 4 heads but key and value have 3; grouped-query attention needs a number of key/value heads that divides the query's (query head h reads key/value head h / (Hq / Hkv))}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !q, !kv, !kv -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
// expected-note @+1 {{mask is defined here}}
func.func @f(%q: !q, %k: !kv, %v: !kv, %m: !stride.tensor<2x4x8x6xi32>) {
  // expected-error @+1 {{'stride.attention' op mask has element type 'i32'; a mask is boolean (i1: true attends) or additive in the query's element type 'f32'}}
  %0 = stride.attention %q, %k, %v mask %m scale 0.25 : !q, !kv, !kv, !stride.tensor<2x4x8x6xi32> -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
func.func @f(%q: !q, %k: !kv, %v: !kv, %m: !stride.tensor<8x6xi1>) {
  // expected-error @+1 {{'stride.attention' op mask has shape [8, 6], expected [2, 4, 8, 6] (query's batch, heads and rows by key's rows; broadcast a smaller mask with stride.expand)}}
  %0 = stride.attention %q, %k, %v mask %m scale 0.25 : !q, !kv, !kv, !stride.tensor<8x6xi1> -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
func.func @f(%q: !q, %k: !kv, %v: !kv) {
  // expected-error @+2 {{'stride.attention' op result has element type 'bf16' but query has 'f32'; query, key, value and the results have one element type (convert with stride.cast)}}
  // expected-note @+1 {{result is defined here}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !q, !kv, !kv -> !stride.tensor<2x4x8x16xbf16>
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x32xf32>
func.func @f(%q: !q, %k: !stride.tensor<2x2x6x16xf32>, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op result has shape [2, 4, 8, 16], expected [2, 4, 8, 32] (query's batch, heads and rows, value's head dim)}}
  %0 = stride.attention %q, %k, %v scale 0.25 : !q, !stride.tensor<2x2x6x16xf32>, !kv -> !q
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
func.func @f(%q: !q, %k: !kv, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op logsumexp has shape [2, 4, 8, 1], expected [2, 4, 8] (one per query row: query's batch, heads and rows)}}
  %0, %1 = stride.attention %q, %k, %v scale 0.25 : !q, !kv, !kv -> !q, !stride.tensor<2x4x8x1xf32>
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf64>
!kv = !stride.tensor<2x2x6x16xf64>
func.func @f(%q: !q, %k: !kv, %v: !kv) {
  // expected-error @+1 {{'stride.attention' op result #1 must be stride tensor of f32 values, but got '!stride.tensor<2x4x8xf64, strides = [32, 8, 1], offset = 0>'}}
  %0, %1 = stride.attention %q, %k, %v scale 0.25 : !q, !kv, !kv -> !q, !stride.tensor<2x4x8xf64>
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
!lse = !stride.tensor<2x4x8xf32>
// expected-note @+1 {{grad_output is defined here}}
func.func @f(%do: !stride.tensor<2x4x8x16xbf16>, %q: !q, %k: !kv, %v: !kv, %o: !q, %lse: !lse) {
  // expected-error @+1 {{'stride.attention_backward' op grad_output has element type 'bf16' but query has 'f32'; query, key, value and the results have one element type (convert with stride.cast)}}
  %0, %1, %2 = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.25 : !stride.tensor<2x4x8x16xbf16>, !q, !kv, !kv, !q, !lse -> !q, !kv, !kv
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
!lse = !stride.tensor<2x4x8xf32>
func.func @f(%do: !stride.tensor<2x4x6x16xf32>, %q: !q, %k: !kv, %v: !kv, %o: !q, %lse: !lse) {
  // expected-error @+1 {{'stride.attention_backward' op grad_output has shape [2, 4, 6, 16], expected [2, 4, 8, 16] (the forward's result: query's batch, heads and rows, value's head dim)}}
  %0, %1, %2 = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.25 : !stride.tensor<2x4x6x16xf32>, !q, !kv, !kv, !q, !lse -> !q, !kv, !kv
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
func.func @f(%do: !q, %q: !q, %k: !kv, %v: !kv, %o: !q, %lse: !stride.tensor<2x2x8xf32>) {
  // expected-error @+1 {{'stride.attention_backward' op logsumexp has shape [2, 2, 8], expected [2, 4, 8] (one per query row: query's batch, heads and rows)}}
  %0, %1, %2 = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.25 : !q, !q, !kv, !kv, !q, !stride.tensor<2x2x8xf32> -> !q, !kv, !kv
  return
}
// -----
!q = !stride.tensor<2x4x8x16xf32>
!kv = !stride.tensor<2x2x6x16xf32>
!lse = !stride.tensor<2x4x8xf32>
func.func @f(%do: !q, %q: !q, %k: !kv, %v: !kv, %o: !q, %lse: !lse) {
  // expected-error @+1 {{'stride.attention_backward' op grad_key has shape [2, 4, 6, 16], expected [2, 2, 6, 16] (key's shape: the gradient is summed over the query heads that share a key/value head)}}
  %0, %1, %2 = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.25 : !q, !q, !kv, !kv, !q, !lse -> !q, !stride.tensor<2x4x6x16xf32>, !kv
  return
}
// -----
!q = !stride.tensor<2x4x1x16xbf16>
!kv = !stride.tensor<2x2x96x16xbf16>
func.func @f(%q: !q, %k: !kv, %v: !kv, %n: !stride.tensor<1xi32>) {
  // expected-error @+1 {{'stride.attention' op kv_length has shape [1], expected [2] (one valid key count per batch)}}
  %0 = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<1xi32>) scale 0.25 : !q, !kv, !kv -> !q
  return
}
// -----
!q = !stride.tensor<2x4x1x16xbf16>
!kv = !stride.tensor<2x2x96x16xbf16>
func.func @f(%q: !q, %k: !kv, %v: !kv, %n: !stride.tensor<2xi64>) {
  // expected-error @+1 {{'stride.attention' op operand #3 must be stride tensor of i32 values, but got '!stride.tensor<2xi64, strides = [1], offset = 0>'}}
  %0 = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<2xi64>) scale 0.25 : !q, !kv, !kv -> !q
  return
}
