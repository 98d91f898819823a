//===- Decompose.cpp - composites into primitives that fuse better --------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"
#include "tgc/Transforms/Tf32.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCDECOMPOSE
#include "tgc/Transforms/Graph/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// `x` reshaped to `shape`, whose `?` sizes are those of `x` at `from`
/// (a result size given as the input's own size keeps the reshape a view).
Value reshape(PatternRewriter &rewriter, Location loc, Value x,
              ArrayRef<int64_t> shape, ArrayRef<std::pair<int64_t, Value>> from) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (ShapedType::isDynamic(shape[d]))
      for (auto [dim, source] : from)
        if (dim == d)
          sizes.push_back(source);
  auto result = RankedTensorType::get(shape, type.getElementType());
  if (result == type)
    return x;
  return ReshapeOp::create(rewriter, loc, result, x, sizes);
}

/// conv2d 1x1 (unit stride, no padding, one group) as
/// reshape(matmul(W[O, C], X[N, C, H*W])) [+ bias[O, 1]].
struct PointwiseConv : OpRewritePattern<Conv2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    auto outType = cast<RankedTensorType>(op.getType());
    Type element = inType.getElementType();
    if (op.getGroups() != 1 || llvm::any_of(op.getStride(), [](int64_t s) {
          return s != 1;
        }) || llvm::any_of(op.getPadding(), [](int64_t p) { return p != 0; }))
      return rewriter.notifyMatchFailure(op, "not a pointwise convolution");
    if (!wType.hasStaticShape() || wType.getDimSize(2) != 1 ||
        wType.getDimSize(3) != 1)
      return rewriter.notifyMatchFailure(op, "not a static 1x1 kernel");
    int64_t rank = inType.getRank();
    bool batched = rank == 4;
    ArrayRef<int64_t> in = inType.getShape();
    if (llvm::any_of(in.drop_front(batched ? 1 : 0), ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic channels or spatial size");
    if (op.getBias() && !(element.isF32() || element.isF64()))
      return rewriter.notifyMatchFailure(
          op, "16-bit conv adds its bias before rounding");
    int64_t c = in[rank - 3], h = in[rank - 2], w = in[rank - 1];
    int64_t o = wType.getDimSize(0);
    SmallVector<std::pair<int64_t, Value>> batch;
    SmallVector<int64_t> flatShape, productShape;
    if (batched) {
      Value n = tensor::DimOp::create(rewriter, loc, op.getInput(), 0);
      batch.emplace_back(0, n);
      flatShape.push_back(in[0]);
      productShape.push_back(in[0]);
    }
    flatShape.append({c, h * w});
    productShape.append({o, h * w});
    Value x = reshape(rewriter, loc, op.getInput(), flatShape, batch);
    Value weight = reshape(rewriter, loc, op.getWeight(), {o, c}, {});
    auto productType = RankedTensorType::get(productShape, element);
    Value y = MatmulOp::create(rewriter, loc, productType, weight, x);
    // A convolution's TF32 flag governs it, not a matmul's.
    copyTf32Mark(op, y);
    if (Value bias = op.getBias()) {
      Value column = reshape(rewriter, loc, bias, {o, 1}, {});
      y = AddOp::create(rewriter, loc, productType, y, column);
    }
    SmallVector<std::pair<int64_t, Value>> outBatch;
    if (batched)
      outBatch.emplace_back(0, tensor::DimOp::create(rewriter, loc, y, 0));
    rewriter.replaceOp(
        op, reshape(rewriter, loc, y, outType.getShape(), outBatch));
    return success();
  }
};

/// Whether a pool's one window covers its whole static input (no padding,
/// unit dilation): the output is 1x1.
template <typename PoolOp>
bool isGlobal(PoolOp op, ArrayRef<int64_t> dilation) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t rank = type.getRank();
  ArrayRef<int64_t> kernel = op.getKernel();
  return kernel.size() == 2 && !type.isDynamicDim(rank - 2) &&
         !type.isDynamicDim(rank - 1) &&
         kernel[0] == type.getDimSize(rank - 2) &&
         kernel[1] == type.getDimSize(rank - 1) &&
         llvm::all_of(op.getPadding(), [](int64_t p) { return p == 0; }) &&
         llvm::all_of(dilation, [](int64_t d) { return d == 1; });
}

struct GlobalMaxPool : OpRewritePattern<MaxPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2dOp op,
                                PatternRewriter &rewriter) const override {
    if (!isGlobal(op, op.getDilation()))
      return rewriter.notifyMatchFailure(op, "not a global pool");
    int64_t rank = op.getInput().getType().getRank();
    rewriter.replaceOpWithNewOp<AmaxOp>(
        op, op.getType(), op.getInput(),
        rewriter.getDenseI64ArrayAttr({rank - 2, rank - 1}),
        rewriter.getUnitAttr());
    return success();
  }
};

struct GlobalAvgPool : OpRewritePattern<AvgPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPool2dOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getDivisorOverride() || !isGlobal(op, {}))
      return rewriter.notifyMatchFailure(op, "not a global mean");
    int64_t rank = op.getInput().getType().getRank();
    rewriter.replaceOpWithNewOp<MeanOp>(
        op, op.getType(), op.getInput(),
        rewriter.getDenseI64ArrayAttr({rank - 2, rank - 1}),
        rewriter.getUnitAttr());
    return success();
  }
};

struct TgcDecomposePass : tgc::impl::TgcDecomposeBase<TgcDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PointwiseConv, GlobalMaxPool, GlobalAvgPool>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
