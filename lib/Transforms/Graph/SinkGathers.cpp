//===- SinkGathers.cpp - gather an elementwise op's operands -------------===//
//
// tgc-sink-gathers: `tgc.gather` of an elementwise op's result becomes the
// elementwise op of gathered operands (see Passes.td). A loss's
// `nll_loss(log_softmax(x), target)`, with log_softmax in primitives (the
// training graphs' decomposition), then reads `x` at the targets and the
// row statistics, instead of a whole `[rows, classes]` result written
// only to read one element per row. And `tgc.embedding` of expanded
// indices becomes the expansion of the embedding of the indices (BERT's
// token-type ids, expanded over the batch).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "Pointwise.h"
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

/// How a pointwise op's operands reach the index's points: kept (constant
/// along the gathered dim: they broadcast to the index's points as to the
/// input's; a size-1 dim of an input of size 1 along it is gathered, as the
/// index's size may be larger), or gathered (the input's shape). None when
/// an operand is neither (broadcast along another dim, dynamic sizes).
std::optional<SmallVector<bool>>
gatheredOperands(Operation *op, RankedTensorType inType, int64_t dim) {
  if (!isPointwiseOp(op) || op->getNumResults() != 1 ||
      op->getResult(0).getType() !=
          RankedTensorType::get(
              inType.getShape(),
              cast<RankedTensorType>(op->getResult(0).getType())
                  .getElementType()))
    return std::nullopt;
  int64_t rank = inType.getRank();
  SmallVector<bool> gathered;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    // Aligned on the right (broadcasting): the operand's dim for `dim`.
    int64_t own = dim - (rank - type.getRank());
    if (own < 0 || (type.getDimSize(own) == 1 && inType.getDimSize(dim) != 1)) {
      gathered.push_back(false);
      continue;
    }
    if (type.getShape() != inType.getShape())
      return std::nullopt;
    gathered.push_back(true);
  }
  return gathered;
}

/// Sinks one gather through a whole tree of pointwise ops at once, each
/// value gathered once (a value read along two paths, as `x * sigmoid(x)`,
/// would otherwise be gathered once per path: exponential in the depth).
struct SinkGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Pointwise ops deeper than this are gathered, not sunk through.
  static constexpr unsigned kMaxDepth = 256;

  LogicalResult matchAndRewrite(GatherOp gather,
                                PatternRewriter &rewriter) const override {
    auto inType = gather.getInput().getType();
    auto indexType = gather.getIndex().getType();
    int64_t rank = inType.getRank(), dim = gather.getDim();
    if (rank == 0 || !inType.hasStaticShape() || !indexType.hasStaticShape())
      return rewriter.notifyMatchFailure(gather, "rank 0 or dynamic sizes");
    // The index covers the input in every other dim: each result point
    // reads its own row of the operands (no slice of them needed).
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && indexType.getDimSize(d) != inType.getDimSize(d))
        return rewriter.notifyMatchFailure(gather, "index narrower than input");
    Operation *root = gather.getInput().getDefiningOp();
    if (!root || !gatheredOperands(root, inType, dim))
      return rewriter.notifyMatchFailure(gather, "not a pointwise op");
    DenseMap<Value, Value> memo;
    rewriter.setInsertionPoint(gather);
    Value sunk = sink(rewriter, gather, gather.getInput(), inType, memo, 0);
    rewriter.replaceOp(gather, sunk);
    if (root->use_empty())
      rewriter.eraseOp(root);
    return success();
  }

  /// `value` (of the gather input's shape) at the index's points.
  Value sink(PatternRewriter &rewriter, GatherOp gather, Value value,
             RankedTensorType inType, DenseMap<Value, Value> &memo,
             unsigned depth) const {
    if (Value known = memo.lookup(value))
      return known;
    auto type = cast<RankedTensorType>(value.getType());
    auto resultType = RankedTensorType::get(
        gather.getIndex().getType().getShape(), type.getElementType());
    int64_t dim = gather.getDim();
    Operation *op = value.getDefiningOp();
    std::optional<SmallVector<bool>> gathered;
    if (op && depth < kMaxDepth)
      gathered = gatheredOperands(op, inType, dim);
    Value result;
    if (!gathered) {
      result = GatherOp::create(rewriter, gather.getLoc(), resultType, value,
                                gather.getIndex(), dim);
    } else {
      IRMapping mapping;
      for (auto [operand, g] : llvm::zip(op->getOperands(), *gathered))
        if (g)
          mapping.map(operand,
                      sink(rewriter, gather, operand, inType, memo, depth + 1));
      Operation *clone = rewriter.clone(*op, mapping);
      clone->getResult(0).setType(resultType);
      result = clone->getResult(0);
    }
    memo[value] = result;
    return result;
  }
};

/// `embedding(W, expand(i))` as `expand(embedding(W, i))`: the rows that
/// the expanded indices pick are the rows `i` picks, expanded. BERT
/// gathers its token-type ids per position ([1, T]) and expands them over
/// the batch ([B, T]) before the lookup: a copy of the indices and B times
/// the rows, where the lookup of [1, T] rows and a broadcast that its
/// consumer (the embeddings' sum) reads in place do the same. The same
/// values are checked against W's rows (an index out of range is an error
/// either way, at the lookup's location). Static sizes only, and not an
/// expansion to no elements.
struct EmbeddingOfExpand : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    auto expand = op.getIndices().getDefiningOp<ExpandOp>();
    if (!expand)
      return rewriter.notifyMatchFailure(op, "indices not expanded");
    auto indexType = cast<RankedTensorType>(expand.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    if (!indexType.hasStaticShape() || !resultType.hasStaticShape() ||
        indexType.getEncoding() || resultType.getEncoding() ||
        !expand.getDynamicSizes().empty())
      return rewriter.notifyMatchFailure(op, "dynamic sizes");
    // An empty expansion looks nothing up, so it checks no index (as
    // eager); the lookup of the unexpanded indices would.
    if (resultType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "no elements");
    SmallVector<int64_t> shape(indexType.getShape());
    shape.push_back(resultType.getShape().back());
    auto rowsType = RankedTensorType::get(shape, resultType.getElementType());
    Value rows = EmbeddingOp::create(rewriter, op.getLoc(), rowsType,
                                     op.getWeight(), expand.getInput());
    rewriter.replaceOpWithNewOp<ExpandOp>(op, resultType, rows, ValueRange{});
    return success();
  }
};

struct SinkGathers : tgc::impl::TgcSinkGathersBase<SinkGathers> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkGather, EmbeddingOfExpand>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
