//===- LowerStridedCopies.cpp - non-contiguous copies as loops -----------===//
//
// memref.copy between memrefs that are not both contiguous becomes a loop
// nest of loads and stores (parallel outside kernels) instead of a call to
// the runtime's element-at-a-time `memrefCopy`.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCLOWERSTRIDEDCOPIES
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// What memref-to-llvm copies with one memcpy (its MemRefCopyOpLowering's
/// rule): an identity layout, or a static shape laid out row-major
/// without gaps.
bool isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  return memref.getLayout().isIdentity() ||
         (memref.hasStaticShape() && memref.getNumElements() > 0 &&
          memref::isStaticShapeAndContiguousRowMajor(memref));
}

void lowerCopy(IRRewriter &b, memref::CopyOp copy) {
  Location loc = copy.getLoc();
  Value source = copy.getSource(), target = copy.getTarget();
  auto type = cast<MemRefType>(source.getType());
  int64_t rank = type.getRank();
  b.setInsertionPoint(copy);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> sizes;
  // Static sizes as constants: tgc-serialize-small-loops reads them.
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? Value(memref::DimOp::create(b, loc, source, d))
                        : Value(arith::ConstantIndexOp::create(
                              b, loc, type.getDimSize(d))));
  auto body = [&](OpBuilder &nb, Location nl, ValueRange ivs) {
    Value v = memref::LoadOp::create(nb, nl, source, ivs);
    memref::StoreOp::create(nb, nl, v, target, ivs);
  };
  // The innermost dimension as a serial loop around the element.
  auto inner = [&](OpBuilder &nb, Location nl, ValueRange outer) {
    scf::ForOp::create(nb, nl, zero, sizes.back(), one, ValueRange{},
                       [&](OpBuilder &fb, Location fl, Value iv, ValueRange) {
                         SmallVector<Value> ivs(outer);
                         ivs.push_back(iv);
                         body(fb, fl, ivs);
                         scf::YieldOp::create(fb, fl);
                       });
  };
  bool inKernel =
      copy->getParentOfType<scf::ParallelOp>() ||
      copy->getParentOfType<scf::ForallOp>() || copy->getParentOfType<scf::ForOp>();
  SmallVector<Value> lbs(rank - 1, zero), steps(rank - 1, one);
  ArrayRef<Value> outerSizes = ArrayRef<Value>(sizes).drop_back();
  if (rank == 1) {
    if (inKernel)
      inner(b, loc, {});
    else
      scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{sizes[0]},
                              ValueRange{one},
                              [&](OpBuilder &nb, Location nl, ValueRange ivs) {
                                body(nb, nl, ivs);
                              });
  } else if (inKernel) {
    scf::buildLoopNest(b, loc, lbs, outerSizes, steps,
                       [&](OpBuilder &nb, Location nl, ValueRange ivs) {
                         inner(nb, nl, ivs);
                       });
  } else {
    scf::ParallelOp::create(b, loc, lbs, outerSizes, steps,
                            [&](OpBuilder &nb, Location nl, ValueRange ivs) {
                              inner(nb, nl, ivs);
                            });
  }
  b.eraseOp(copy);
}

struct TgcLowerStridedCopiesPass
    : impl::TgcLowerStridedCopiesBase<TgcLowerStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto type = dyn_cast<MemRefType>(copy.getSource().getType());
      if (!type || type.getRank() == 0 ||
          !isa<MemRefType>(copy.getTarget().getType()))
        return;
      if (isContiguous(copy.getSource().getType()) &&
          isContiguous(copy.getTarget().getType()))
        return;
      copies.push_back(copy);
    });
    IRRewriter b(&getContext());
    for (memref::CopyOp copy : copies)
      lowerCopy(b, copy);
  }
};

} // namespace
} // namespace mlir::tgc
