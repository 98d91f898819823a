// layer norm over rows of 1024 bf16 (f32 arithmetic, as PyTorch)
func.func @layernorm(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>, %b: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %l = tgc.layer_norm %x weight(%w : tensor<1024xbf16>) bias(%b : tensor<1024xbf16>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x1024xbf16>
  return %l : tensor<?x1024xbf16>
}
