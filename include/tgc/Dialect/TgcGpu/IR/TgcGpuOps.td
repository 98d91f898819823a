//===- TgcGpuOps.td - tgc_gpu dialect -----------------------*- tablegen -*-===//
//
// The dialect has attributes only (TgcGpuAttrs.td); this file is the root
// that add_mlir_dialect and the dialect doc read.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGCGPU_IR_TGCGPUOPS_TD
#define TGC_DIALECT_TGCGPU_IR_TGCGPUOPS_TD

include "tgc/Dialect/TgcGpu/IR/TgcGpuBase.td"
include "tgc/Dialect/TgcGpu/IR/TgcGpuAttrs.td"

#endif // TGC_DIALECT_TGCGPU_IR_TGCGPUOPS_TD
