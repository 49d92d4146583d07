// 21 layers of pointwise ops, a row sum and its broadcast (210 ops),
// for stride-reduce's tests: with stridec --test-inject-fault=add every
// stride.add is compiled as a subtraction.
func.func @layers(%x: !stride.tensor<4x8xf32> {stride.name = "x"}, %w: !stride.tensor<4x8xf32> {stride.name = "w"}) -> !stride.tensor<4x8xf32> {
  %m0 = stride.mul %x, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t0 = stride.tanh %m0 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s0 = stride.sum %t0 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e0 = stride.expand %s0 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d0 = stride.sub %t0, %e0 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g0 = stride.sigmoid %d0 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a0 = stride.add %g0, %x : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n0 = stride.neg %a0 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p0 = stride.mul %n0, %g0 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r0 = stride.tanh %p0 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m1 = stride.mul %r0, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t1 = stride.tanh %m1 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s1 = stride.sum %t1 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e1 = stride.expand %s1 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d1 = stride.sub %t1, %e1 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g1 = stride.sigmoid %d1 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a1 = stride.add %g1, %r0 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n1 = stride.neg %a1 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p1 = stride.mul %n1, %g1 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r1 = stride.tanh %p1 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m2 = stride.mul %r1, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t2 = stride.tanh %m2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s2 = stride.sum %t2 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e2 = stride.expand %s2 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d2 = stride.sub %t2, %e2 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g2 = stride.sigmoid %d2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a2 = stride.add %g2, %r1 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n2 = stride.neg %a2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p2 = stride.mul %n2, %g2 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r2 = stride.tanh %p2 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m3 = stride.mul %r2, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t3 = stride.tanh %m3 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s3 = stride.sum %t3 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e3 = stride.expand %s3 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d3 = stride.sub %t3, %e3 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g3 = stride.sigmoid %d3 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a3 = stride.add %g3, %r2 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n3 = stride.neg %a3 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p3 = stride.mul %n3, %g3 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r3 = stride.tanh %p3 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m4 = stride.mul %r3, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t4 = stride.tanh %m4 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s4 = stride.sum %t4 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e4 = stride.expand %s4 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d4 = stride.sub %t4, %e4 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g4 = stride.sigmoid %d4 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a4 = stride.add %g4, %r3 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n4 = stride.neg %a4 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p4 = stride.mul %n4, %g4 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r4 = stride.tanh %p4 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m5 = stride.mul %r4, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t5 = stride.tanh %m5 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s5 = stride.sum %t5 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e5 = stride.expand %s5 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d5 = stride.sub %t5, %e5 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g5 = stride.sigmoid %d5 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a5 = stride.add %g5, %r4 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n5 = stride.neg %a5 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p5 = stride.mul %n5, %g5 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r5 = stride.tanh %p5 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m6 = stride.mul %r5, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t6 = stride.tanh %m6 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s6 = stride.sum %t6 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e6 = stride.expand %s6 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d6 = stride.sub %t6, %e6 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g6 = stride.sigmoid %d6 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a6 = stride.add %g6, %r5 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n6 = stride.neg %a6 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p6 = stride.mul %n6, %g6 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r6 = stride.tanh %p6 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m7 = stride.mul %r6, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t7 = stride.tanh %m7 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s7 = stride.sum %t7 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e7 = stride.expand %s7 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d7 = stride.sub %t7, %e7 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g7 = stride.sigmoid %d7 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a7 = stride.add %g7, %r6 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n7 = stride.neg %a7 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p7 = stride.mul %n7, %g7 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r7 = stride.tanh %p7 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m8 = stride.mul %r7, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t8 = stride.tanh %m8 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s8 = stride.sum %t8 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e8 = stride.expand %s8 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d8 = stride.sub %t8, %e8 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g8 = stride.sigmoid %d8 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a8 = stride.add %g8, %r7 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n8 = stride.neg %a8 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p8 = stride.mul %n8, %g8 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r8 = stride.tanh %p8 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m9 = stride.mul %r8, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t9 = stride.tanh %m9 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s9 = stride.sum %t9 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e9 = stride.expand %s9 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d9 = stride.sub %t9, %e9 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g9 = stride.sigmoid %d9 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a9 = stride.add %g9, %r8 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n9 = stride.neg %a9 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p9 = stride.mul %n9, %g9 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r9 = stride.tanh %p9 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m10 = stride.mul %r9, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t10 = stride.tanh %m10 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s10 = stride.sum %t10 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e10 = stride.expand %s10 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d10 = stride.sub %t10, %e10 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g10 = stride.sigmoid %d10 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a10 = stride.add %g10, %r9 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n10 = stride.neg %a10 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p10 = stride.mul %n10, %g10 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r10 = stride.tanh %p10 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m11 = stride.mul %r10, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t11 = stride.tanh %m11 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s11 = stride.sum %t11 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e11 = stride.expand %s11 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d11 = stride.sub %t11, %e11 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g11 = stride.sigmoid %d11 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a11 = stride.add %g11, %r10 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n11 = stride.neg %a11 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p11 = stride.mul %n11, %g11 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r11 = stride.tanh %p11 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m12 = stride.mul %r11, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t12 = stride.tanh %m12 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s12 = stride.sum %t12 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e12 = stride.expand %s12 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d12 = stride.sub %t12, %e12 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g12 = stride.sigmoid %d12 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a12 = stride.add %g12, %r11 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n12 = stride.neg %a12 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p12 = stride.mul %n12, %g12 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r12 = stride.tanh %p12 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m13 = stride.mul %r12, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t13 = stride.tanh %m13 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s13 = stride.sum %t13 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e13 = stride.expand %s13 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d13 = stride.sub %t13, %e13 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g13 = stride.sigmoid %d13 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a13 = stride.add %g13, %r12 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n13 = stride.neg %a13 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p13 = stride.mul %n13, %g13 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r13 = stride.tanh %p13 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m14 = stride.mul %r13, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t14 = stride.tanh %m14 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s14 = stride.sum %t14 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e14 = stride.expand %s14 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d14 = stride.sub %t14, %e14 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g14 = stride.sigmoid %d14 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a14 = stride.add %g14, %r13 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n14 = stride.neg %a14 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p14 = stride.mul %n14, %g14 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r14 = stride.tanh %p14 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m15 = stride.mul %r14, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t15 = stride.tanh %m15 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s15 = stride.sum %t15 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e15 = stride.expand %s15 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d15 = stride.sub %t15, %e15 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g15 = stride.sigmoid %d15 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a15 = stride.add %g15, %r14 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n15 = stride.neg %a15 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p15 = stride.mul %n15, %g15 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r15 = stride.tanh %p15 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m16 = stride.mul %r15, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t16 = stride.tanh %m16 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s16 = stride.sum %t16 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e16 = stride.expand %s16 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d16 = stride.sub %t16, %e16 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g16 = stride.sigmoid %d16 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a16 = stride.add %g16, %r15 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n16 = stride.neg %a16 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p16 = stride.mul %n16, %g16 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r16 = stride.tanh %p16 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m17 = stride.mul %r16, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t17 = stride.tanh %m17 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s17 = stride.sum %t17 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e17 = stride.expand %s17 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d17 = stride.sub %t17, %e17 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g17 = stride.sigmoid %d17 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a17 = stride.add %g17, %r16 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n17 = stride.neg %a17 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p17 = stride.mul %n17, %g17 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r17 = stride.tanh %p17 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m18 = stride.mul %r17, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t18 = stride.tanh %m18 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s18 = stride.sum %t18 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e18 = stride.expand %s18 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d18 = stride.sub %t18, %e18 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g18 = stride.sigmoid %d18 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a18 = stride.add %g18, %r17 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n18 = stride.neg %a18 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p18 = stride.mul %n18, %g18 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r18 = stride.tanh %p18 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m19 = stride.mul %r18, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t19 = stride.tanh %m19 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s19 = stride.sum %t19 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e19 = stride.expand %s19 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d19 = stride.sub %t19, %e19 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g19 = stride.sigmoid %d19 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a19 = stride.add %g19, %r18 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n19 = stride.neg %a19 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p19 = stride.mul %n19, %g19 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r19 = stride.tanh %p19 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %m20 = stride.mul %r19, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %t20 = stride.tanh %m20 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s20 = stride.sum %t20 dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e20 = stride.expand %s20 : !stride.tensor<4x1xf32> -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d20 = stride.sub %t20, %e20 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %g20 = stride.sigmoid %d20 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %a20 = stride.add %g20, %r19 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %n20 = stride.neg %a20 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %p20 = stride.mul %n20, %g20 : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r20 = stride.tanh %p20 : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  return %r20 : !stride.tensor<4x8xf32>
}
