// A long chain of serial kernels with stack buffers (openmp=false: no
// parallel region frees them): each blocked, packed matmul has a 32 KiB
// panel. The buffers of all kernels were at the function's entry, adding
// up past the stack (a 1 MiB one here: 40 x 32 KiB, and the process
// died); now each serial kernel's buffers are freed after it
// (tgc-hoist-allocas). Each product is scaled by 1/32 so that the chain
// stays well-conditioned (tanh of saturated values flips signs on the
// last bit).

// RUN: ulimit -s 1024 && tgc-run %s --openmp=false --check reference --json | FileCheck %s
// CHECK: "reference_ok": true

func.func @chain(%x: tensor<128x256xf32>, %w: tensor<256x512xf32>, %v: tensor<512x256xf32>) -> tensor<128x256xf32> {
  %k = tgc.constant dense<0.03125> : tensor<f32>
  %a0 = tgc.matmul %x, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p0 = tgc.mul %a0, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t0 = tgc.tanh %p0 : tensor<128x512xf32>
  %b0 = tgc.matmul %t0, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q0 = tgc.mul %b0, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s0 = tgc.tanh %q0 : tensor<128x256xf32>
  %a1 = tgc.matmul %s0, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p1 = tgc.mul %a1, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t1 = tgc.tanh %p1 : tensor<128x512xf32>
  %b1 = tgc.matmul %t1, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q1 = tgc.mul %b1, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s1 = tgc.tanh %q1 : tensor<128x256xf32>
  %a2 = tgc.matmul %s1, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p2 = tgc.mul %a2, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t2 = tgc.tanh %p2 : tensor<128x512xf32>
  %b2 = tgc.matmul %t2, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q2 = tgc.mul %b2, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s2 = tgc.tanh %q2 : tensor<128x256xf32>
  %a3 = tgc.matmul %s2, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p3 = tgc.mul %a3, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t3 = tgc.tanh %p3 : tensor<128x512xf32>
  %b3 = tgc.matmul %t3, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q3 = tgc.mul %b3, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s3 = tgc.tanh %q3 : tensor<128x256xf32>
  %a4 = tgc.matmul %s3, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p4 = tgc.mul %a4, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t4 = tgc.tanh %p4 : tensor<128x512xf32>
  %b4 = tgc.matmul %t4, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q4 = tgc.mul %b4, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s4 = tgc.tanh %q4 : tensor<128x256xf32>
  %a5 = tgc.matmul %s4, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p5 = tgc.mul %a5, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t5 = tgc.tanh %p5 : tensor<128x512xf32>
  %b5 = tgc.matmul %t5, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q5 = tgc.mul %b5, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s5 = tgc.tanh %q5 : tensor<128x256xf32>
  %a6 = tgc.matmul %s5, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p6 = tgc.mul %a6, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t6 = tgc.tanh %p6 : tensor<128x512xf32>
  %b6 = tgc.matmul %t6, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q6 = tgc.mul %b6, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s6 = tgc.tanh %q6 : tensor<128x256xf32>
  %a7 = tgc.matmul %s6, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p7 = tgc.mul %a7, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t7 = tgc.tanh %p7 : tensor<128x512xf32>
  %b7 = tgc.matmul %t7, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q7 = tgc.mul %b7, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s7 = tgc.tanh %q7 : tensor<128x256xf32>
  %a8 = tgc.matmul %s7, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p8 = tgc.mul %a8, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t8 = tgc.tanh %p8 : tensor<128x512xf32>
  %b8 = tgc.matmul %t8, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q8 = tgc.mul %b8, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s8 = tgc.tanh %q8 : tensor<128x256xf32>
  %a9 = tgc.matmul %s8, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p9 = tgc.mul %a9, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t9 = tgc.tanh %p9 : tensor<128x512xf32>
  %b9 = tgc.matmul %t9, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q9 = tgc.mul %b9, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s9 = tgc.tanh %q9 : tensor<128x256xf32>
  %a10 = tgc.matmul %s9, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p10 = tgc.mul %a10, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t10 = tgc.tanh %p10 : tensor<128x512xf32>
  %b10 = tgc.matmul %t10, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q10 = tgc.mul %b10, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s10 = tgc.tanh %q10 : tensor<128x256xf32>
  %a11 = tgc.matmul %s10, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p11 = tgc.mul %a11, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t11 = tgc.tanh %p11 : tensor<128x512xf32>
  %b11 = tgc.matmul %t11, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q11 = tgc.mul %b11, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s11 = tgc.tanh %q11 : tensor<128x256xf32>
  %a12 = tgc.matmul %s11, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p12 = tgc.mul %a12, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t12 = tgc.tanh %p12 : tensor<128x512xf32>
  %b12 = tgc.matmul %t12, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q12 = tgc.mul %b12, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s12 = tgc.tanh %q12 : tensor<128x256xf32>
  %a13 = tgc.matmul %s12, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p13 = tgc.mul %a13, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t13 = tgc.tanh %p13 : tensor<128x512xf32>
  %b13 = tgc.matmul %t13, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q13 = tgc.mul %b13, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s13 = tgc.tanh %q13 : tensor<128x256xf32>
  %a14 = tgc.matmul %s13, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p14 = tgc.mul %a14, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t14 = tgc.tanh %p14 : tensor<128x512xf32>
  %b14 = tgc.matmul %t14, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q14 = tgc.mul %b14, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s14 = tgc.tanh %q14 : tensor<128x256xf32>
  %a15 = tgc.matmul %s14, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p15 = tgc.mul %a15, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t15 = tgc.tanh %p15 : tensor<128x512xf32>
  %b15 = tgc.matmul %t15, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q15 = tgc.mul %b15, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s15 = tgc.tanh %q15 : tensor<128x256xf32>
  %a16 = tgc.matmul %s15, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p16 = tgc.mul %a16, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t16 = tgc.tanh %p16 : tensor<128x512xf32>
  %b16 = tgc.matmul %t16, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q16 = tgc.mul %b16, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s16 = tgc.tanh %q16 : tensor<128x256xf32>
  %a17 = tgc.matmul %s16, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p17 = tgc.mul %a17, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t17 = tgc.tanh %p17 : tensor<128x512xf32>
  %b17 = tgc.matmul %t17, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q17 = tgc.mul %b17, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s17 = tgc.tanh %q17 : tensor<128x256xf32>
  %a18 = tgc.matmul %s17, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p18 = tgc.mul %a18, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t18 = tgc.tanh %p18 : tensor<128x512xf32>
  %b18 = tgc.matmul %t18, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q18 = tgc.mul %b18, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s18 = tgc.tanh %q18 : tensor<128x256xf32>
  %a19 = tgc.matmul %s18, %w : tensor<128x256xf32>, tensor<256x512xf32> -> tensor<128x512xf32>
  %p19 = tgc.mul %a19, %k : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf32>
  %t19 = tgc.tanh %p19 : tensor<128x512xf32>
  %b19 = tgc.matmul %t19, %v : tensor<128x512xf32>, tensor<512x256xf32> -> tensor<128x256xf32>
  %q19 = tgc.mul %b19, %k : tensor<128x256xf32>, tensor<f32> -> tensor<128x256xf32>
  %s19 = tgc.tanh %q19 : tensor<128x256xf32>
  return %s19 : tensor<128x256xf32>
}
