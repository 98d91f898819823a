//===- InitAllDialects.cpp - every dialect TGC's tools know ---------------===//

#include "tgc/InitAllDialects.h"

#include "tgc/Dialect/Tgc/IR/TgcDialect.h"
#include "tgc/Dialect/TgcGpu/IR/TgcGpuDialect.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardDialect.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

void mlir::tgc::registerTgcDialects(DialectRegistry &registry) {
  registry.insert<tgc::TgcDialect, tgc::sym::TgcSymDialect,
                  tgc::guard::TgcGuardDialect, tgc::tgc_gpu::TgcGpuDialect>();
}

void mlir::tgc::registerAllTgcDialects(DialectRegistry &registry) {
  registerTgcDialects(registry);
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
                  LLVM::LLVMDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, omp::OpenMPDialect,
                  scf::SCFDialect, tensor::TensorDialect,
                  vector::VectorDialect>();
  // The interface models of upstream dialects (bufferization, value
  // bounds, tiling, ...) are registered together with the dialects by
  // registerAllDialects, as mlir-opt does; the extensions (convert-to-llvm
  // interfaces, inliner) by registerAllExtensions.
  registerAllDialects(registry);
  registerAllExtensions(registry);
}
