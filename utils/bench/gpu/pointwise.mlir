// relu(x + y) * 2
func.func @pointwise(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = tgc.add %x, %y : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %r = tgc.relu %a : tensor<?x?xf32>
  %two = tgc.constant dense<2.0> : tensor<f32>
  %m = tgc.mul %r, %two : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
  return %m : tensor<?x?xf32>
}
