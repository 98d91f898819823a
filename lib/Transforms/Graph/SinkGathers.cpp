//===- SinkGathers.cpp - gather an elementwise op's operands -------------===//
//
// tgc-sink-gathers: `tgc.gather` of an elementwise op's result becomes the
// elementwise op of gathered operands (see Passes.td). A loss's
// `nll_loss(log_softmax(x), target)`, with log_softmax in primitives (the
// training graphs' decomposition), then reads `x` at the targets and the
// row statistics, instead of a whole `[rows, classes]` result written
// only to read one element per row.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCSINKGATHERS
#include "tgc/Transforms/Graph/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Elementwise ops whose result at a point depends only on their operands
/// (broadcast) at that point. (Not philox_uniform: its value depends on
/// the element's position.)
bool isPointwise(Operation *op) {
  return isa<NegOp, AbsOp, ReluOp, ExpOp, Exp2Op, Expm1Op, LogOp, Log2Op,
             Log1pOp, SqrtOp, RsqrtOp, SinOp, CosOp, TanhOp, SigmoidOp, ErfOp,
             SiluOp, ReciprocalOp, FloorOp, CeilOp, RoundOp, LogicalNotOp,
             GeluOp, ClampOp, AddOp, SubOp, MulOp, PowOp, MaximumOp, MinimumOp,
             RemainderOp, Atan2Op, LogicalAndOp, LogicalOrOp, DivOp, CmpOp,
             WhereOp, ConvertOp>(op);
}

struct SinkGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp gather,
                                PatternRewriter &rewriter) const override {
    // (The op's other users keep it: the gathered copy computes the
    // index's points only, at most as many as the op's.)
    Operation *op = gather.getInput().getDefiningOp();
    if (!op || !isPointwise(op) || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(gather, "not a pointwise op");
    auto inType = gather.getInput().getType();
    auto indexType = gather.getIndex().getType();
    if (!inType.hasStaticShape() || !indexType.hasStaticShape())
      return rewriter.notifyMatchFailure(gather, "dynamic sizes");
    int64_t rank = inType.getRank(), dim = gather.getDim();
    // The index covers the input in every other dim: each result point
    // reads its own row of the operands (no slice of them needed).
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && indexType.getDimSize(d) != inType.getDimSize(d))
        return rewriter.notifyMatchFailure(gather, "index narrower than input");
    // Which operands are gathered (checked for all before any IR changes).
    SmallVector<bool> gathered;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type || !type.hasStaticShape())
        return rewriter.notifyMatchFailure(gather,
                                           "operand not a static tensor");
      // Aligned on the right (broadcasting): the operand's dim for `dim`.
      // One that is constant along it broadcasts to the index's points as
      // it does to the input's (a size-1 dim of an input of size 1 along
      // `dim` is gathered: the index's size may be larger).
      int64_t own = dim - (rank - type.getRank());
      if (own < 0 ||
          (type.getDimSize(own) == 1 && inType.getDimSize(dim) != 1)) {
        gathered.push_back(false);
        continue;
      }
      if (type.getShape() != inType.getShape())
        return rewriter.notifyMatchFailure(gather,
                                           "operand broadcast elsewhere");
      gathered.push_back(true);
    }
    SmallVector<Value> operands;
    for (auto [operand, gather_] : llvm::zip(op->getOperands(), gathered)) {
      if (!gather_) {
        operands.push_back(operand);
        continue;
      }
      auto type = cast<RankedTensorType>(operand.getType());
      auto result =
          RankedTensorType::get(indexType.getShape(), type.getElementType());
      operands.push_back(GatherOp::create(rewriter, gather.getLoc(), result,
                                          operand, gather.getIndex(), dim));
    }
    IRMapping mapping;
    mapping.map(op->getOperands(), operands);
    rewriter.setInsertionPoint(gather);
    Operation *clone = rewriter.clone(*op, mapping);
    clone->getResult(0).setType(gather.getType());
    clone->setLoc(op->getLoc());
    rewriter.replaceOp(gather, clone->getResults());
    if (op->use_empty())
      rewriter.eraseOp(op);
    return success();
  }
};

struct SinkGathers : tgc::impl::TgcSinkGathersBase<SinkGathers> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkGather>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
