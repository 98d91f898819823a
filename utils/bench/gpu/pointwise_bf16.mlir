// relu(x + y) * 2 in bf16
func.func @pointwise(%x: tensor<?x?xbf16>, %y: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %a = tgc.add %x, %y : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xbf16>
  %r = tgc.relu %a : tensor<?x?xbf16>
  %two = tgc.constant dense<2.0> : tensor<bf16>
  %m = tgc.mul %r, %two : tensor<?x?xbf16>, tensor<bf16> -> tensor<?x?xbf16>
  return %m : tensor<?x?xbf16>
}
