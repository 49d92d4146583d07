// stride-keep-weights-in-l2: the skinny products' weights (each dispatch's
// largest constant operand), in the plan's order, get L2 windows until the
// budget is spent: the first weight whole, the second its first bytes of
// what is left, the third nothing. A pointwise kernel over a constant gets
// none, nor does a second dispatch over a weight that already has one.
// RUN: stride-opt --stride-keep-weights-in-l2="bytes=12288" %s | FileCheck %s
// RUN: stride-opt --stride-keep-weights-in-l2 %s | FileCheck %s --check-prefix=NONE
// RUN: not stride-opt --stride-keep-weights-in-l2="bytes=-1" %s 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// CHECK-LABEL: func.func @steps
// CHECK: plan.dispatch @k::@scale(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}){{$}}
// CHECK: plan.dispatch @k::@product(%{{[0-9]+}}, %[[W1:[0-9]+]], %{{[0-9]+}}) {l2_resident_bytes = 8192 : i64, l2_resident_operand = 1 : i64}
// CHECK: plan.dispatch @k::@product(%{{[0-9]+}}, %[[W1]], %{{[0-9]+}}){{$}}
// CHECK: plan.dispatch @k::@product(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {l2_resident_bytes = 4096 : i64, l2_resident_operand = 1 : i64}
// CHECK: plan.dispatch @k::@product(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}){{$}}
// NONE-NOT: l2_resident
// NEGATIVE: stride-keep-weights-in-l2: bytes is -1; expected 0 (none) or more
#skinny = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 4, block = 128>], column_warps = 4>
#pointwise = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 4, block = 256>]>
plan.executable @k {
  stride.kernel "scale" attributes {stride.schedule = #pointwise} -> (!stride.tensor<1x4096xbf16>) {
  ^bb0(%x: !stride.tensor<1x4096xbf16>, %b: !stride.tensor<1x4096xbf16>):
    stride.yield %x : !stride.tensor<1x4096xbf16>
  }
  stride.kernel "product" attributes {stride.schedule = #skinny} -> (!stride.tensor<1x4xbf16>) {
  ^bb0(%x: !stride.tensor<1x4xbf16>, %w: !stride.tensor<4x1024xbf16>):
    stride.yield %x : !stride.tensor<1x4xbf16>
  }
}
func.func @steps(%x: !stride.tensor<1x1024xbf16>) -> !stride.tensor<1x4xbf16> {
  %in = plan.input %x : !stride.tensor<1x1024xbf16>
  %bias = plan.constant dense<1.0> : tensor<1x4096xbf16> as !stride.tensor<1x4096xbf16>
  %w1 = plan.constant dense<1.0> : tensor<4x1024xbf16> as !stride.tensor<4x1024xbf16>
  %w2 = plan.constant dense<2.0> : tensor<4x1024xbf16> as !stride.tensor<4x1024xbf16>
  %w3 = plan.constant dense<3.0> : tensor<4x1024xbf16> as !stride.tensor<4x1024xbf16>
  %s = plan.alloc 8192 bytes
  plan.dispatch @k::@scale(%in, %bias, %s)
  %y1 = plan.alloc 8 bytes
  plan.dispatch @k::@product(%in, %w1, %y1)
  %y1b = plan.alloc 8 bytes
  plan.dispatch @k::@product(%in, %w1, %y1b)
  %y2 = plan.alloc 8 bytes
  plan.dispatch @k::@product(%in, %w2, %y2)
  %y3 = plan.alloc 8 bytes
  plan.dispatch @k::@product(%in, %w3, %y3)
  %r = plan.output %y3 : !stride.tensor<1x4xbf16>
  return %r : !stride.tensor<1x4xbf16>
}
