// x W^T in bf16, no epilogue: cuBLASLt alone, the baseline of the
// epilogue cases
func.func @gemm(%x: tensor<?x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<?x4096xbf16> {
  %h = tgc.linear %x, %w : tensor<?x4096xbf16>, tensor<4096x4096xbf16> -> tensor<?x4096xbf16>
  return %h : tensor<?x4096xbf16>
}
