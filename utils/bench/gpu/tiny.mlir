// x + 1 on one element: the per-call overhead
func.func @tiny(%x: tensor<1xf32>) -> tensor<1xf32> {
  %one = tgc.constant dense<1.0> : tensor<f32>
  %y = tgc.add %x, %one : tensor<1xf32>, tensor<f32> -> tensor<1xf32>
  return %y : tensor<1xf32>
}
