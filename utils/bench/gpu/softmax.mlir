// softmax over rows of 1024 (a static hidden size, as in models)
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xf32>
  return %s : tensor<?x1024xf32>
}
