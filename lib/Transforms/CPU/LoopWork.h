//===- LoopWork.h - how much work a parallel loop does ---------*- C++ -*-===//
//
// Shared by tgc-serialize-small-loops (work known when compiling),
// tgc-parallel-if (work known at run time) and tgc-keep-outer-loops (how
// much full unrolling would copy): a kernel's work is the trip counts of
// its parallel loop times those of the deepest chain of scf.for loops in
// its body. Also the mark that keeps a loop from LLVM's unroller.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_CPU_LOOPWORK_H
#define TGC_LIB_TRANSFORMS_CPU_LOOPWORK_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <optional>

namespace mlir::tgc {

/// Saturating products and sums of work estimates (only compared with a
/// limit).
inline int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/// The attribute that becomes `llvm.loop.unroll.disable` on `loop`'s back
/// edge (convert-scf-to-cf carries it; the LLVM dialect must be loaded).
constexpr llvm::StringLiteral kLoopAnnotation = "loop_annotation";
inline void disableUnrolling(scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  auto unroll = LLVM::LoopUnrollAttr::get(
      ctx, /*disable=*/BoolAttr::get(ctx, true), /*count=*/nullptr,
      /*runtimeDisable=*/nullptr, /*full=*/nullptr, nullptr, nullptr, nullptr);
  loop->setAttr(kLoopAnnotation,
                LLVM::LoopAnnotationAttr::get(
                    ctx, /*disableNonforced=*/nullptr, /*vectorize=*/nullptr,
                    /*interleave=*/nullptr, unroll, /*unrollAndJam=*/nullptr,
                    /*licm=*/nullptr, /*distribute=*/nullptr,
                    /*pipeline=*/nullptr, /*peeled=*/nullptr,
                    /*unswitch=*/nullptr, /*mustProgress=*/nullptr,
                    /*isVectorized=*/nullptr, /*startLoc=*/nullptr,
                    /*endLoc=*/nullptr, /*parallelAccesses=*/{}));
}

/// Iterations of one loop dimension, when its bounds are constants.
inline std::optional<int64_t> constantTripCount(Value lb, Value ub,
                                                Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb);
  std::optional<int64_t> u = getConstantIntValue(ub);
  std::optional<int64_t> s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u <= *l ? 0 : (*u - *l + *s - 1) / *s;
}

/// The scf.for loops of the deepest chain nested in `body`, outermost
/// first (the loops that run the most times per iteration of the parallel
/// loop around `body`); none when the body holds another parallel loop or
/// a data-dependent one (`stop` ops).
template <typename... Stop>
std::optional<SmallVector<scf::ForOp>> deepestForChain(Region &body) {
  SmallVector<scf::ForOp> deepest;
  bool known = true;
  body.walk([&](Operation *op) {
    if (isa<scf::WhileOp, Stop...>(op)) {
      known = false;
      return WalkResult::interrupt();
    }
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp)
      return WalkResult::advance();
    SmallVector<scf::ForOp> chain;
    for (Operation *p = forOp; p && body.isAncestor(p->getParentRegion());
         p = p->getParentOp())
      if (auto f = dyn_cast<scf::ForOp>(p))
        chain.insert(chain.begin(), f);
    if (chain.size() > deepest.size())
      deepest = chain;
    return WalkResult::advance();
  });
  if (!known)
    return std::nullopt;
  return deepest;
}

} // namespace mlir::tgc

#endif // TGC_LIB_TRANSFORMS_CPU_LOOPWORK_H
