// a full sum (x.sum()): a two-stage tree with a warp per chunk
func.func @fullsum(%x: tensor<?x?xf32>) -> tensor<f32> {
  %s = tgc.sum %x dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
