// a column sum (x.sum(0)): a two-stage tree with threads along the columns
func.func @colsum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = tgc.sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
