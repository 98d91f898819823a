func.func @layernorm(%x: tensor<?x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %l = tgc.layer_norm %x weight(%w : tensor<1024xf32>) bias(%b : tensor<1024xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x1024xf32>
  return %l : tensor<?x1024xf32>
}
