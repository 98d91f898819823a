// softmax over rows of 1024 bf16 (f32 arithmetic, as PyTorch)
func.func @softmax(%x: tensor<?x1024xbf16>) -> tensor<?x1024xbf16> {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xbf16>
  return %s : tensor<?x1024xbf16>
}
