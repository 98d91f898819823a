// 20 x (Linear(256, 256) + ReLU)
func.func @mlp20(%x: tensor<?x256xf32>, %w0: tensor<256x256xf32>, %b0: tensor<256xf32>, %w1: tensor<256x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x256xf32>, %b2: tensor<256xf32>, %w3: tensor<256x256xf32>, %b3: tensor<256xf32>, %w4: tensor<256x256xf32>, %b4: tensor<256xf32>, %w5: tensor<256x256xf32>, %b5: tensor<256xf32>, %w6: tensor<256x256xf32>, %b6: tensor<256xf32>, %w7: tensor<256x256xf32>, %b7: tensor<256xf32>, %w8: tensor<256x256xf32>, %b8: tensor<256xf32>, %w9: tensor<256x256xf32>, %b9: tensor<256xf32>, %w10: tensor<256x256xf32>, %b10: tensor<256xf32>, %w11: tensor<256x256xf32>, %b11: tensor<256xf32>, %w12: tensor<256x256xf32>, %b12: tensor<256xf32>, %w13: tensor<256x256xf32>, %b13: tensor<256xf32>, %w14: tensor<256x256xf32>, %b14: tensor<256xf32>, %w15: tensor<256x256xf32>, %b15: tensor<256xf32>, %w16: tensor<256x256xf32>, %b16: tensor<256xf32>, %w17: tensor<256x256xf32>, %b17: tensor<256xf32>, %w18: tensor<256x256xf32>, %b18: tensor<256xf32>, %w19: tensor<256x256xf32>, %b19: tensor<256xf32>) -> tensor<?x256xf32> {
  %h0 = tgc.linear %x, %w0, %b0 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r0 = tgc.relu %h0 : tensor<?x256xf32>
  %h1 = tgc.linear %r0, %w1, %b1 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r1 = tgc.relu %h1 : tensor<?x256xf32>
  %h2 = tgc.linear %r1, %w2, %b2 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r2 = tgc.relu %h2 : tensor<?x256xf32>
  %h3 = tgc.linear %r2, %w3, %b3 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r3 = tgc.relu %h3 : tensor<?x256xf32>
  %h4 = tgc.linear %r3, %w4, %b4 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r4 = tgc.relu %h4 : tensor<?x256xf32>
  %h5 = tgc.linear %r4, %w5, %b5 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r5 = tgc.relu %h5 : tensor<?x256xf32>
  %h6 = tgc.linear %r5, %w6, %b6 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r6 = tgc.relu %h6 : tensor<?x256xf32>
  %h7 = tgc.linear %r6, %w7, %b7 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r7 = tgc.relu %h7 : tensor<?x256xf32>
  %h8 = tgc.linear %r7, %w8, %b8 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r8 = tgc.relu %h8 : tensor<?x256xf32>
  %h9 = tgc.linear %r8, %w9, %b9 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r9 = tgc.relu %h9 : tensor<?x256xf32>
  %h10 = tgc.linear %r9, %w10, %b10 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r10 = tgc.relu %h10 : tensor<?x256xf32>
  %h11 = tgc.linear %r10, %w11, %b11 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r11 = tgc.relu %h11 : tensor<?x256xf32>
  %h12 = tgc.linear %r11, %w12, %b12 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r12 = tgc.relu %h12 : tensor<?x256xf32>
  %h13 = tgc.linear %r12, %w13, %b13 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r13 = tgc.relu %h13 : tensor<?x256xf32>
  %h14 = tgc.linear %r13, %w14, %b14 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r14 = tgc.relu %h14 : tensor<?x256xf32>
  %h15 = tgc.linear %r14, %w15, %b15 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r15 = tgc.relu %h15 : tensor<?x256xf32>
  %h16 = tgc.linear %r15, %w16, %b16 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r16 = tgc.relu %h16 : tensor<?x256xf32>
  %h17 = tgc.linear %r16, %w17, %b17 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r17 = tgc.relu %h17 : tensor<?x256xf32>
  %h18 = tgc.linear %r17, %w18, %b18 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r18 = tgc.relu %h18 : tensor<?x256xf32>
  %h19 = tgc.linear %r18, %w19, %b19 : tensor<?x256xf32>, tensor<256x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %r19 = tgc.relu %h19 : tensor<?x256xf32>
  return %r19 : tensor<?x256xf32>
}
