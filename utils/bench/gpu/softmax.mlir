func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
