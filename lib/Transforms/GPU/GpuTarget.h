//===- GpuTarget.h - the GPU that kernels are built for ---------*- C++ -*-===//
//
// What the kernel strategies need to know about their GPU: its hardware
// facts, the tuning measured on it, and how a kernel exchanges values
// across a warp and waits at a barrier. The strategies ask the target and
// never spell these themselves, so another GPU is another GpuTarget (a
// subclass setting its facts and, where its hardware differs, overriding
// the operations), not edits in every strategy.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_GPU_GPUTARGET_H
#define TGC_LIB_TRANSFORMS_GPU_GPUTARGET_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace mlir::tgc::gpu_kernels {

struct GpuTarget {
  virtual ~GpuTarget() = default;

  //--- Operations ---------------------------------------------------------
  /// `v` from the lane `offset` away in a butterfly (lane ^ offset) of the
  /// warp. The default is gpu.shuffle xor on 32-bit lanes: narrower values
  /// travel widened, 64-bit ones are split by the shuffle patterns.
  virtual Value shuffleXor(OpBuilder &b, Location loc, Value v,
                           int64_t offset) const;
  /// Waits for the block's threads (gpu.barrier by default).
  virtual void barrier(OpBuilder &b, Location loc) const;

  llvm::StringRef name;

  //--- Hardware -----------------------------------------------------------
  int64_t warpSize;
  int64_t maxThreadsPerBlock;
  int64_t multiprocessors;

  //--- Row kernels (RowKernels.cpp) ---------------------------------------
  /// Rows of a static length up to this get one warp each (a block of 256
  /// threads would leave most idle).
  int64_t warpRowLimit;
  /// Longer static rows of at most this many bytes also get a warp each
  /// when the warp reads them in 16-byte chunks, all in registers.
  int64_t warpRowBytes;
  /// Row elements per thread that a row kernel keeps in registers.
  int64_t registerRowSlots;
  /// 1-D reductions (rows = 0) of a static length up to this run as one
  /// block (a row kernel); longer or dynamic ones as a two-stage tree.
  int64_t singleBlockRow;

  //--- Two-stage tree reductions (TreeKernels.cpp) ------------------------
  /// Threads of the first stage, enough loads in flight for the device's
  /// bandwidth; each reads about `treeUnroll` elements per loop step.
  int64_t treeWorkers;
  /// At most this many partial results, in a scratch region of
  /// treePartials * 8 bytes at the end of the arena.
  int64_t treePartials;
  int64_t treeUnroll;
  /// Threads of a block of the second stage.
  int64_t treeFinalThreads;
  /// At most this many partials per output when a thread reads each
  /// output's column (a thread of the second stage combines every 32nd).
  int64_t treeColumnSplit;

  /// The NVIDIA H100 (sm_90), the device the numbers were measured on.
  static const GpuTarget &h100();
};

} // namespace mlir::tgc::gpu_kernels

#endif // TGC_LIB_TRANSFORMS_GPU_GPUTARGET_H
