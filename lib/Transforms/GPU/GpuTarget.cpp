//===- GpuTarget.cpp - the GPU that kernels are built for -----------------===//
//
// The default operations (the GPU dialect's, which NVVM and ROCDL lower)
// and the H100's facts. See GpuTarget.h.
//
//===----------------------------------------------------------------------===//

#include "GpuTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::tgc::gpu_kernels;

Value GpuTarget::shuffleXor(OpBuilder &b, Location loc, Value v,
                            int64_t offset) const {
  Type type = v.getType();
  Value x = v;
  if (type.isIndex())
    x = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  else if (auto f = dyn_cast<FloatType>(type); f && f.getWidth() < 32)
    x = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  else if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() < 32)
    x = arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  Value off = arith::ConstantIntOp::create(b, loc, offset, 32);
  Value width = arith::ConstantIntOp::create(b, loc, warpSize, 32);
  Value s = gpu::ShuffleOp::create(b, loc, x, off, width, gpu::ShuffleMode::XOR)
                .getShuffleResult();
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, s);
  if (auto f = dyn_cast<FloatType>(type); f && f.getWidth() < 32)
    return arith::TruncFOp::create(b, loc, type, s);
  if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() < 32)
    return arith::TruncIOp::create(b, loc, type, s);
  return s;
}

void GpuTarget::barrier(OpBuilder &b, Location loc) const {
  gpu::BarrierOp::create(b, loc);
}

namespace {
/// The NVIDIA H100 (sm_90), the device the numbers were measured on.
struct H100 : GpuTarget {
  H100() {
    name = "h100";
    warpSize = 32;
    maxThreadsPerBlock = 1024;
    multiprocessors = 132;
    // Rows of 1024 f32 are faster with a block per row (softmax 62 us)
    // than a warp (68 us).
    warpRowLimit = 256;
    // Device time, back to back: rows of 1024 bf16 (2 KiB), softmax 14.2 us
    // with a warp against 17.1 with a block of 128, layer norm 11.7 against
    // 13.2; rows of 1024 f32 (4 KiB) are faster with a block (27.4 against
    // 28.5).
    warpRowBytes = 2048;
    registerRowSlots = 32;
    singleBlockRow = 16384;
    // 262144 threads keep the 132 SMs' loads in flight.
    treeWorkers = 262144;
    treePartials = 262144;
    treeUnroll = 8;
    treeFinalThreads = 1024;
    treeColumnSplit = 256;
  }
};
} // namespace

const GpuTarget &GpuTarget::h100() {
  static const H100 target;
  return target;
}
