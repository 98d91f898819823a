//===- OrderLoops.cpp - contiguous innermost loops for contractions -------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCORDERLOOPS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// Whether `e` is `d`, or a sum with `d` as one term (with coefficient 1)
/// and no other use of `d`: stepping `d` by one steps `e` by one.
bool stepsByOne(AffineExpr e, unsigned d) {
  if (auto dim = dyn_cast<AffineDimExpr>(e))
    return dim.getPosition() == d;
  auto add = dyn_cast<AffineBinaryOpExpr>(e);
  if (!add || add.getKind() != AffineExprKind::Add)
    return false;
  AffineExpr l = add.getLHS(), r = add.getRHS();
  if (stepsByOne(l, d))
    return !r.isFunctionOfDim(d);
  if (stepsByOne(r, d))
    return !l.isFunctionOfDim(d);
  return false;
}

/// How loop `d` walks an operand of indexing map `map`.
enum class Walk { Independent, Contiguous, Strided };

Walk walkOf(AffineMap map, unsigned d) {
  ArrayRef<AffineExpr> results = map.getResults();
  bool depends = llvm::any_of(
      results, [&](AffineExpr e) { return e.isFunctionOfDim(d); });
  if (!depends)
    return Walk::Independent;
  bool innerOnly = llvm::none_of(results.drop_back(), [&](AffineExpr e) {
    return e.isFunctionOfDim(d);
  });
  return innerOnly && stepsByOne(results.back(), d) ? Walk::Contiguous
                                                    : Walk::Strided;
}

/// The loop to run innermost, or none to keep the order.
std::optional<unsigned> chooseInnermost(linalg::GenericOp op) {
  unsigned loops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Candidates: loops no operand walks with a stride. Score: the operands
  // walked contiguously; a parallel loop wins a tie (it vectorizes
  // without reassociation), then the current innermost loop.
  auto score = [&](unsigned d) -> std::optional<std::tuple<int, int, int>> {
    int contiguous = 0;
    for (AffineMap map : maps) {
      switch (walkOf(map, d)) {
      case Walk::Strided:
        return std::nullopt;
      case Walk::Contiguous:
        ++contiguous;
        break;
      case Walk::Independent:
        break;
      }
    }
    if (contiguous == 0)
      return std::nullopt;
    return std::make_tuple(contiguous,
                           iterators[d] == utils::IteratorType::parallel,
                           d == loops - 1);
  };
  std::optional<unsigned> best;
  std::optional<std::tuple<int, int, int>> bestScore;
  for (unsigned d = 0; d < loops; ++d) {
    std::optional<std::tuple<int, int, int>> s = score(d);
    if (s && (!bestScore || *s > *bestScore)) {
      best = d;
      bestScore = s;
    }
  }
  if (!best || *best == loops - 1)
    return std::nullopt;
  return best;
}

struct TgcOrderLoopsPass : impl::TgcOrderLoopsBase<TgcOrderLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() > 0)
        generics.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      std::optional<unsigned> inner = chooseInnermost(op);
      if (!inner)
        continue;
      SmallVector<unsigned> order;
      for (unsigned d = 0; d < op.getNumLoops(); ++d)
        if (d != *inner)
          order.push_back(d);
      order.push_back(*inner);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order)))
        op.emitWarning() << "tgc-order-loops: could not reorder the loops";
    }
  }
};

} // namespace
} // namespace mlir::tgc
