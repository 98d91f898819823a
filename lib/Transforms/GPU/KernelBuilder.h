//===- KernelBuilder.h - what every GPU kernel strategy builds with -*- C++
//-*-===//
//
// The state the kernels of one function share (KernelContext) and the
// helpers every strategy builds a kernel with (KernelBuilder): kernel
// operands, the kernel function and its launch, loop bodies cloned at
// given indices, grid-stride loops and warp and block reductions.
// Private to lib/Transforms/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_GPU_KERNELBUILDER_H
#define TGC_LIB_TRANSFORMS_GPU_KERNELBUILDER_H

#include "GpuTarget.h"
#include "tgc/Dialect/TgcGpu/IR/TgcGpuDialect.h"
#include "tgc/Transforms/Fills.h"
#include "tgc/Transforms/LoopExtents.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tgc::gpu_kernels {

/// The options of tgc-gpu-form-kernels that the strategies read (the rest
/// of their parameters come from each kernel's #tgc_gpu.strategy).
struct KernelOptions {
  /// The grid cap of grid-stride kernels.
  int64_t maxBlocks;
};

/// What the kernels of one function share.
struct KernelContext {
  KernelContext(func::FuncOp func, gpu::GPUModuleOp gpuModule,
                const KernelOptions &options, const GpuTarget &target)
      : func(func), gpuModule(gpuModule), options(options), target(target),
        sizeClasses(func) {}

  func::FuncOp func;
  gpu::GPUModuleOp gpuModule;
  KernelOptions options;
  const GpuTarget &target;
  /// Argument sizes the guards check equal: loops over them run equally
  /// far (getLoopExtents).
  ArgSizeClasses sizeClasses;
  /// Kernels built so far (the suffix of their names).
  int64_t counter = 0;
  /// The launch of the last kernel built.
  gpu::LaunchFuncOp lastLaunch;
  /// The scratch region of tree reductions (TreeKernels.cpp).
  memref::AllocOp scratchArena;
  Value scratchAt;
  DenseMap<Type, Value> partialViews;
};

/// Moves the vector stores of an unrolled elementwise loop body after all
/// its loads (keeping their order), so that every chunk's loads are in
/// flight together: the back end cannot hoist a load above a store to a
/// buffer that may alias it. Each chunk reads and writes only its own
/// elements (an in-place output is the same element of its input), so the
/// chunks commute.
void sinkStores(Block *body);

/// A fill (tgc::isScalarFill) of +0.
bool isZeroFill(linalg::GenericOp op);

/// The value of a splat constant tensor (a scalar such as softmax's
/// epsilon, after bufferization a memref.get_global), if `v` is one.
std::optional<TypedAttr> splatGlobal(Value v);

/// The single combiner of a reduction generic (`out = combine(out, f(in))`)
/// and its neutral element, if it has one.
struct Combiner {
  Operation *op = nullptr;
  TypedAttr neutral;
};

/// The combiner of `op`, if it is a reduction with a single one.
std::optional<Combiner> matchCombiner(linalg::GenericOp op);

/// Builds one kernel at a time: registers the host values it reads, creates
/// the kernel function, and launches it. Each strategy derives from it.
class KernelBuilder {
public:
  /// A builder of the kernel(s) of `strategy`.
  KernelBuilder(KernelContext &ctx, tgc_gpu::StrategyAttr strategy)
      : ctx(ctx), func(ctx.func), gpuModule(ctx.gpuModule), target(ctx.target),
        blockSize(strategy.getThreads()), maxBlocks(ctx.options.maxBlocks),
        vectorize(strategy.getVectors()),
        rowRegisters(strategy.getRegisters()) {}

protected:
  /// Registers a host value the kernel reads; constants are rematerialized
  /// inside the kernel instead.
  LogicalResult addOperand(Value v, Operation *user);

  /// Registers the operands of `op` and the values its regions capture.
  LogicalResult addOperands(Operation *op);

  /// The loop sizes of `op` as host index values (before `op`).
  SmallVector<Value> hostLoopSizes(OpBuilder &b, linalg::GenericOp op);

  /// The loop sizes of `op` (host values before `hb`'s point), registered
  /// as kernel operands with `op`'s operands and captured values, into
  /// `sizes`.
  LogicalResult addLoopSizesAndOperands(OpBuilder &hb, linalg::GenericOp op,
                                        SmallVectorImpl<Value> &sizes);

  /// Creates the kernel for the registered operands and maps them to its
  /// arguments. The caller builds the body at the returned builder.
  OpBuilder startKernel(Location loc, StringRef kind);

  /// The kernel's value of a host value (`b` is unused: rematerialized
  /// values go to the top of the kernel).
  Value kval(OpBuilder &, Value host);

  void finishKernel(OpBuilder &kb, OpBuilder &hb, Location loc, Value grid,
                    int64_t threads);

  SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                              ValueRange ivs);

  /// The values `op`'s body yields at loop indices `ivs`; `accs` (when not
  /// empty) replace the reads of the outputs they are set for.
  SmallVector<Value> emitBody(OpBuilder &b, linalg::GenericOp op,
                              ValueRange ivs, ValueRange accs = {},
                              ArrayRef<Value> given = {});

  /// Clones `op` (from `region`) at `b`, the host values it or the ops
  /// nested in it read (a gather's guarded load) mapped to the kernel's.
  void cloneInKernel(OpBuilder &b, Operation &op, Region &region,
                     IRMapping &map);

  /// Stores `values` into the outputs (those selected by `only`, if set).
  void storeOutputs(OpBuilder &b, linalg::GenericOp op, ValueRange ivs,
                    ArrayRef<Value> values, ArrayRef<bool> only = {});

  /// Row-major indices of `linear` in `sizes`.
  SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                 ArrayRef<Value> sizes);

  /// A grid-stride loop's first index (this thread's global id) and step
  /// (the threads of the grid).
  std::pair<Value, Value> gridStride(OpBuilder &b, Location loc);

  Value product(OpBuilder &b, Location loc, ArrayRef<Value> values);

  /// Blocks for `total` items of work, `perBlock` per block:
  /// max(min(ceildiv(total, perBlock), cap), 1) (no cap when 0). A grid of
  /// at least one block: a launch of none is invalid.
  Value gridSize(OpBuilder &hb, Location loc, Value total, int64_t perBlock,
                 int64_t cap = 0);

  Value combine(OpBuilder &b, Operation *combiner, Value x, Value y);

  Value warpReduce(OpBuilder &b, Location loc, Operation *combiner, Value v);

  /// Every thread's partial `v` combined over the block; every thread gets
  /// the total. `scratch` holds one value per warp.
  Value blockReduce(OpBuilder &b, Location loc, const Combiner &c, Value v,
                    Value tid, Value scratch);

  KernelContext &ctx;
  func::FuncOp func;
  gpu::GPUModuleOp gpuModule;
  const GpuTarget &target;
  /// Threads per block of the kernel being built.
  int64_t blockSize;
  int64_t maxBlocks;
  /// The strategy's `vectors` and `registers`.
  bool vectorize, rowRegisters;

  // Per kernel.
  SmallVector<Value> hostOperands;
  IRMapping toKernel;
  gpu::GPUFuncOp kernel;
  /// Values kval rematerializes go before this op at the top of the
  /// kernel, so that they dominate every use.
  Operation *anchor = nullptr;
};

} // namespace mlir::tgc::gpu_kernels

#endif // TGC_LIB_TRANSFORMS_GPU_KERNELBUILDER_H
