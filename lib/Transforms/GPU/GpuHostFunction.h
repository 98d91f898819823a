//===- GpuHostFunction.h - the host side of tgc-gpu-form-kernels -*- C++
//-*-===//
//
// Private to lib/Transforms/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_GPU_GPUHOSTFUNCTION_H
#define TGC_LIB_TRANSFORMS_GPU_GPUHOSTFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tgc::gpu_kernels {

/// Results that are not buffers of their own (a constant, an argument, a
/// buffer returned twice) become copies in new allocations.
void freshResults(func::FuncOp func);

/// Generics and copies read a `memref.cast` of a strided view to the
/// identity layout through the view itself (its type keeps the strides).
void readStridedViewsDirectly(func::FuncOp func);

/// memref.copy as an elementwise generic (a copy kernel).
void copiesToGenerics(func::FuncOp func);

/// A store into or a load from a reshape's shape buffer (host sizes).
bool isShapeAccess(Operation *op);

/// The host read of an i1 flag that only asserts use (a gather's indices
/// in range, a division's divisor nonzero): a device-side check.
bool isFlagCheck(Operation *op);

/// The flag a check reads and the views of it (the same bytes).
SmallPtrSet<Value, 4> flagViews(memref::LoadOp load);

/// The generics before each flag check that write its flag.
DenseMap<Operation *, SmallVector<linalg::GenericOp>>
flagProducers(func::FuncOp func);

/// Moves each flag check, with what reads it, right after the last kernel
/// made from a generic that wrote its flag (`flagKernels`).
void checksAfterTheirKernels(
    func::FuncOp func, const DenseMap<Operation *, Operation *> &flagKernels);

/// Whether `op` stays on the host: sizes, shape buffers, flag checks,
/// launches, GEMMs and the views and allocations the launch plan reads.
bool isHostOp(Operation *op);

/// math.ipowi as a squaring loop inside the kernel.
void populateIPowIToLoopPatterns(RewritePatternSet &patterns);

/// Divisions of a block by one f32 value as one reciprocal and products.
void divisionsToReciprocals(gpu::GPUModuleOp module);

} // namespace mlir::tgc::gpu_kernels

#endif // TGC_LIB_TRANSFORMS_GPU_GPUHOSTFUNCTION_H
