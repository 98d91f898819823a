//===- TgcGpuDialect.h - tgc_gpu dialect ------------------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGCGPU_IR_TGCGPUDIALECT_H
#define TGC_DIALECT_TGCGPU_IR_TGCGPUDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Value.h"

#include "tgc/Dialect/TgcGpu/IR/TgcGpuOpsDialect.h.inc"

#include "tgc/Dialect/TgcGpu/IR/TgcGpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tgc/Dialect/TgcGpu/IR/TgcGpuAttrs.h.inc"

namespace mlir {
namespace linalg {
class GenericOp;
} // namespace linalg
namespace tgc::tgc_gpu {
/// A #tgc_gpu.conv generic's input: the one value its body reads from
/// outside (tensor.extract before bufferization, memref.load after); null
/// when there is not exactly one.
Value getConvInput(linalg::GenericOp op);

/// A #tgc_gpu.conv generic's tensors by their role in the convolution:
/// `x` [N, C, H, W], `w` [O, C / groups, kH, kW], `y` [N, O, H', W'], and
/// which of them (0, 1, 2) it writes, by the attribute's kind (the others
/// it reads). All null when the generic is not of the form.
struct ConvOperands {
  Value x, w, y;
  int written = -1;
};
ConvOperands getConvOperands(linalg::GenericOp op, ConvAttr attr);
} // namespace tgc::tgc_gpu
} // namespace mlir

#endif // TGC_DIALECT_TGCGPU_IR_TGCGPUDIALECT_H
