//===- TgcGpuDialect.h - tgc_gpu dialect ------------------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGCGPU_IR_TGCGPUDIALECT_H
#define TGC_DIALECT_TGCGPU_IR_TGCGPUDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "tgc/Dialect/TgcGpu/IR/TgcGpuOpsDialect.h.inc"

#include "tgc/Dialect/TgcGpu/IR/TgcGpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tgc/Dialect/TgcGpu/IR/TgcGpuAttrs.h.inc"

#endif // TGC_DIALECT_TGCGPU_IR_TGCGPUDIALECT_H
