//===- Strategies.h - the GPU kernel strategies -----------------*- C++ -*-===//
//
// tgc-gpu-form-kernels turns each segment of a fusion group into kernels
// of one of five strategies:
//
// - flat: an elementwise op over contiguous buffers, read and written with
//   16-byte vectors in a grid-stride loop (FlatKernels.cpp);
// - element: a thread per point of the parallel loops, any reduction loops
//   inside the thread (FlatKernels.cpp);
// - row: one block (or warp) per row for a group of row stages, reductions
//   across the block with barriers between stages (RowKernels.cpp);
// - tree: a reduction over many elements per output as two kernels, the
//   second finishing each output and running the elementwise epilogues
//   that read it (TreeKernels.cpp);
// - loop: a sequential host loop nest (topk, cholesky) as one kernel, its
//   outer parallel loops as threads (LoopKernels.cpp).
//
// Which strategy a segment gets is decided in SelectStrategy.cpp
// (tgc-gpu-select-strategy, which records it as #tgc_gpu.strategy);
// GpuFormKernels.cpp (tgc-gpu-form-kernels) builds what it chose.
// Private to lib/Transforms/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_GPU_STRATEGIES_H
#define TGC_LIB_TRANSFORMS_GPU_STRATEGIES_H

#include "KernelBuilder.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tgc::gpu_kernels {

/// A reduction that runs as a two-stage tree: the first kernel's workers
/// each combine a chunk of one output's reduction into a partial result,
/// the second combines each output's partials with the output's initial
/// value. When every output has one chunk, the first kernel finishes the
/// outputs itself and the second is not launched (its grid is 0).
struct Tree {
  linalg::GenericOp op;
  Combiner combiner;
  SmallVector<unsigned> par, red;
  /// The output's indexing map over the parallel loops alone (dim i is
  /// par[i]).
  AffineMap outMap;
  /// Threads along the outputs, each reading a chunk of its output's
  /// column (the inputs' innermost index is a parallel loop); otherwise
  /// a warp per output and chunk, its lanes along the reduction.
  bool columns = false;
  /// The fill of the output before the reduction: the final stage uses
  /// its value instead of reading the output, and it is not launched.
  linalg::GenericOp fill;
  /// Elementwise ops after the reduction run in the final stage at each
  /// output point, reading what the tree wrote there from registers.
  SmallVector<linalg::GenericOp> epilogues;
};

//--- Selection (SelectStrategy.cpp) -----------------------------------------

/// Row stages: every op has R or R+1 loops, the first R parallel over the
/// same rows, and the last loop of an R+1-loop op is parallel or a
/// reduction with one combiner; at least one op reduces its row, and a
/// stage reads what an earlier one wrote only in its own row.
bool isRowGroup(ArrayRef<linalg::GenericOp> ops,
                const ArgSizeClasses &sizeClasses);

/// A row group without row loops whose length is dynamic or above the
/// target's singleBlockRow: its reductions run as trees instead.
bool isLongVectorGroup(ArrayRef<linalg::GenericOp> ops,
                       const GpuTarget &target);

/// Elements per 16-byte access when `op` is elementwise over contiguous
/// buffers of one element width that all index its loops directly; else 0.
unsigned flatVectorWidth(linalg::GenericOp op);

/// `op` as a two-stage tree reduction, if it is one.
std::optional<Tree> matchTree(linalg::GenericOp op, const GpuTarget &target);

/// Whether the tree of `op` writes every element `fill` fills.
bool fillCovered(linalg::GenericOp fill, linalg::GenericOp op);

/// The ops at the front of `rest` that run in `t`'s final stage.
SmallVector<linalg::GenericOp> treeEpilogues(Tree &t,
                                             ArrayRef<linalg::GenericOp> rest,
                                             func::FuncOp func,
                                             const ArgSizeClasses &sizeClasses);

//--- Kernels (one file per strategy) ----------------------------------------
// Each builds the kernels and their launches before the ops it is given
// (and leaves erasing them to the caller); ctx.lastLaunch is the last
// launch built.

/// `op` as a flat kernel with the strategy's `vector`-element vectors
/// (FlatKernels.cpp).
LogicalResult emitFlatKernel(KernelContext &ctx, linalg::GenericOp op,
                             tgc_gpu::StrategyAttr strategy);

/// `op` with a thread per point of its parallel loops (FlatKernels.cpp).
LogicalResult emitElementKernel(KernelContext &ctx, linalg::GenericOp op,
                                tgc_gpu::StrategyAttr strategy);

/// The row group `ops` as one kernel (RowKernels.cpp).
LogicalResult emitRowKernel(KernelContext &ctx, ArrayRef<linalg::GenericOp> ops,
                            tgc_gpu::StrategyAttr strategy);

/// The tree `t` (with its fill and epilogues) as two kernels
/// (TreeKernels.cpp).
LogicalResult emitTreeKernels(KernelContext &ctx, Tree &t,
                              tgc_gpu::StrategyAttr strategy);

/// The host loop nest `loop` as one kernel (LoopKernels.cpp).
LogicalResult emitLoopKernel(KernelContext &ctx, scf::ForOp loop,
                             tgc_gpu::StrategyAttr strategy);

} // namespace mlir::tgc::gpu_kernels

#endif // TGC_LIB_TRANSFORMS_GPU_STRATEGIES_H
