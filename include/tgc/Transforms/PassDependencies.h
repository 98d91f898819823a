//===- PassDependencies.h - what TGC's pass declarations need ---*- C++ -*-===//
//
// The dialects and pass infrastructure the generated pass declarations of
// every folder under include/tgc/Transforms refer to (dependent dialects,
// option types).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_PASSDEPENDENCIES_H
#define TGC_TRANSFORMS_PASSDEPENDENCIES_H

#include "tgc/Dialect/TgcGpu/IR/TgcGpuDialect.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardDialect.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#endif // TGC_TRANSFORMS_PASSDEPENDENCIES_H
