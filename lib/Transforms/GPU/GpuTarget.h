//===- GpuTarget.h - the GPU that kernels are built for ---------*- C++ -*-===//
//
// What the kernel strategies need to know about their GPU: its hardware
// facts and the tuning measured on it. Kernels use the GPU dialect's warp
// shuffles and barriers, which the NVVM (and ROCDL) lowerings provide, so
// another GPU is another GpuTarget, not edits in every strategy.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_GPU_GPUTARGET_H
#define TGC_LIB_TRANSFORMS_GPU_GPUTARGET_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace mlir::tgc::gpu_kernels {

struct GpuTarget {
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

inline const GpuTarget &GpuTarget::h100() {
  static const GpuTarget target{
      /*name=*/"h100",
      /*warpSize=*/32,
      /*maxThreadsPerBlock=*/1024,
      /*multiprocessors=*/132,
      // Measured on an H100: rows of 1024 f32 are faster with a block per
      // row (softmax 62 us) than a warp (68 us).
      /*warpRowLimit=*/256,
      // Measured (device time, back to back): rows of 1024 bf16 (2 KiB),
      // softmax 14.2 us with a warp against 17.1 with a block of 128,
      // layer norm 11.7 against 13.2; rows of 1024 f32 (4 KiB) are faster
      // with a block (27.4 against 28.5).
      /*warpRowBytes=*/2048,
      /*registerRowSlots=*/32,
      /*singleBlockRow=*/16384,
      // 262144 threads keep the 132 SMs' loads in flight.
      /*treeWorkers=*/262144,
      /*treePartials=*/262144,
      /*treeUnroll=*/8,
      /*treeFinalThreads=*/1024,
      /*treeColumnSplit=*/256,
  };
  return target;
}

} // namespace mlir::tgc::gpu_kernels

#endif // TGC_LIB_TRANSFORMS_GPU_GPUTARGET_H
