// gelu(x W^T + b, approximate="tanh") in bf16: bias and GELU are one
// cuBLASLt epilogue
func.func @gemm_gelu_tanh(%x: tensor<?x4096xbf16>, %w: tensor<4096x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x4096xbf16>, tensor<4096x4096xbf16>, tensor<4096xbf16> -> tensor<?x4096xbf16>
  %g = tgc.gelu %h approximate = "tanh" : tensor<?x4096xbf16>
  return %g : tensor<?x4096xbf16>
}
