//===- TgcGpuBase.td - tgc_gpu dialect definition -----------*- tablegen -*-===//

#ifndef TGC_DIALECT_TGCGPU_IR_TGCGPUBASE_TD
#define TGC_DIALECT_TGCGPU_IR_TGCGPUBASE_TD

include "mlir/IR/OpBase.td"

def TgcGpu_Dialect : Dialect {
  let name = "tgc_gpu";
  let cppNamespace = "::mlir::tgc::tgc_gpu";
  let summary = "What the GPU code generation passes decide, as verified attributes";
  let description = [{
    The GPU path decides, before it builds anything, how each piece of a
    bufferized function runs: which contractions cuBLASLt runs (and with
    which epilogue), and which kernel strategy runs each segment of a
    fusion group. `tgc-gpu-select-strategy` writes these decisions as
    attributes of this dialect on the `linalg.generic`s and host loop nests
    it decided for; `tgc-gpu-form-kernels` builds the kernels they name and
    the launch plan reads the GEMMs. The decisions are visible in the IR
    (`tgc-opt --tgc-gpu-select-strategy`), testable one pass at a time,
    and verified when they are parsed or set: a GEMM's loop roles must
    cover the generic's loops once each, a strategy's parameters must fit
    its kind.

    ```mlir
    linalg.generic {..., tgc_gpu.gemm = #tgc_gpu.gemm<m = [0],
                         n = 1, k = 2, trans_a = false, trans_b = true,
                         epilogue = bias_relu>} ...
    linalg.generic {..., tgc_gpu.strategy = #tgc_gpu.strategy<flat,
                         kernel = 3, threads = 256, vector = 4>} ...
    ```

    The dialect has no operations: the IR around the attributes is linalg,
    memref, scf and gpu.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    /// The discardable attributes this dialect verifies.
    static constexpr llvm::StringLiteral kGemmAttrName = "tgc_gpu.gemm";
    static constexpr llvm::StringLiteral kGemmEpilogueOfAttrName =
        "tgc_gpu.gemm_epilogue_of";
    static constexpr llvm::StringLiteral kConvAttrName = "tgc_gpu.conv";
    static constexpr llvm::StringLiteral kStrategyAttrName =
        "tgc_gpu.strategy";
    static constexpr llvm::StringLiteral kVectorAlignAttrName =
        "tgc_gpu.vector_align";
    /// On a gpu.launch_func: per kernel operand, how the kernel uses it
    /// (kAccess* bits: 1 read, 2 written, 0 not a buffer or not known),
    /// for the bytes a launch moves in reports.
    static constexpr llvm::StringLiteral kOperandAccessAttrName =
        "tgc_gpu.operand_access";
    static constexpr int32_t kAccessRead = 1;
    static constexpr int32_t kAccessWrite = 2;
  }];
}

#endif // TGC_DIALECT_TGCGPU_IR_TGCGPUBASE_TD
