//===- KeepOuterLoops.cpp - LLVM does not unroll outer loops --------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "LoopWork.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <algorithm>
#include <optional>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCKEEPOUTERLOOPS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// Whether `loop`'s body holds another loop.
bool holdsLoop(scf::ForOp loop) {
  WalkResult found = loop.getBody()->walk([](Operation *op) {
    return isa<LoopLikeOpInterface>(op) ? WalkResult::interrupt()
                                        : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// How many copies of the innermost bodies full unrolling of `loop` makes:
/// its trip count times the sum of those of the loops directly nested in
/// it (1 when none); none when a trip count is not a constant or a nested
/// loop is not an scf.for.
std::optional<int64_t> unrolledCopies(scf::ForOp loop) {
  std::optional<int64_t> trips = constantTripCount(
      loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  if (!trips)
    return std::nullopt;
  int64_t inner = 0;
  bool known = true;
  loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto nested = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> n = unrolledCopies(nested);
      if (!n) {
        known = false;
        return WalkResult::interrupt();
      }
      inner = saturatingAdd(inner, *n);
      return WalkResult::skip();
    }
    if (isa<LoopLikeOpInterface>(op)) {
      known = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!known)
    return std::nullopt;
  return saturatingMul(*trips, std::max<int64_t>(inner, 1));
}

struct KeepOuterLoops : impl::TgcKeepOuterLoopsBase<KeepOuterLoops> {
  using TgcKeepOuterLoopsBase::TgcKeepOuterLoopsBase;

  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kLoopAnnotation) || !holdsLoop(loop))
        return;
      // A small nest (a 3 x 3 window's taps) is LLVM's to unroll whole.
      std::optional<int64_t> copies = unrolledCopies(loop);
      if (copies && *copies <= smallNest)
        return;
      disableUnrolling(loop);
    });
  }
};

} // namespace
} // namespace mlir::tgc
