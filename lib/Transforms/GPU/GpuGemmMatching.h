//===- GpuGemmMatching.h - GEMMs and their epilogues for cuBLASLt -*- C++
//-*-===//
//
// What tgc-gpu-form-kernels hands to cuBLASLt instead of emitting a kernel:
// contractions of dense buffers (matchGemm) and the elementwise consumer a
// GEMM can run as its epilogue (bias, ReLU, tanh GELU, the rounding to a
// 16-bit output). Private to lib/Transforms/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_GPU_GPUGEMMMATCHING_H
#define TGC_LIB_TRANSFORMS_GPU_GPUGEMMMATCHING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <utility>

namespace mlir::tgc::gpu_kernels {

/// Whether every loop of `op` is parallel.
bool isAllParallel(linalg::GenericOp op);

/// Whether `exprs` are the dims `dims`, in order.
bool areDims(ArrayRef<AffineExpr> exprs, ArrayRef<unsigned> dims);

/// The dims of a contraction cuBLASLt runs, from its indexing maps (A, B,
/// C): [batch...] x M... x K times [batch...] x K x N (either operand
/// possibly transposed, A only with one M dim) into a row-major [batch...]
/// x M... x N. Sets the transposes and the loops of each role.
bool matchGemmMaps(ArrayRef<AffineMap> maps, bool &transA, bool &transB,
                   SmallVector<unsigned> &batch, SmallVector<unsigned> &m,
                   unsigned &n, unsigned &k);

/// A contraction cuBLASLt runs (matchGemmMaps) of f32, f16 or bf16
/// matrices in dense buffers. Sets the transposes and the loops of each
/// role.
bool matchGemm(linalg::GenericOp op, bool &transA, bool &transB,
               SmallVector<unsigned> &batch, SmallVector<unsigned> &m,
               unsigned &n, unsigned &k);

/// The cuBLASLt epilogue ("bias", "relu", "bias_relu", "gelu_tanh", ...)
/// that computes `epilogue` from `gemm`'s output, with its bias operand
/// (null without one); "" when `epilogue` is anything else.
StringRef matchGemmEpilogue(linalg::GenericOp gemm, linalg::GenericOp epilogue,
                            Value &bias);

/// Splits `f(round(c + bias))` that matchGemmEpilogue rejects into the bias
/// epilogue `round(c + bias)` and `f` over its output in place; nothing
/// when `epilogue` does not have that form.
std::optional<std::pair<linalg::GenericOp, linalg::GenericOp>>
splitGemmEpilogue(linalg::GenericOp gemm, linalg::GenericOp epilogue);

/// Whether only `gemm` and `epilogue` use the GEMM's output (besides
/// deallocations), or the epilogue writes it in place: then the GEMM can
/// write the epilogue's output directly.
bool onlyEpilogueReads(linalg::GenericOp gemm, linalg::GenericOp epilogue);

} // namespace mlir::tgc::gpu_kernels

#endif // TGC_LIB_TRANSFORMS_GPU_GPUGEMMMATCHING_H
