//===- Decompose.cpp - composites into primitives that fuse better --------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"
#include "tgc/Transforms/Tf32.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
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

/// Whether `v`, broadcast into `rank` dims, is constant along dim `d`.
bool constantAlong(Value v, int64_t d, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t at = d - (rank - type.getRank());
  return at < 0 || type.getDimSize(at) == 1;
}

/// Whether `v`, broadcast into `rank` dims, is `arange(n)` along dim `d`
/// and of size 1 along the others: an integer `tgc.iota` from 0 by 1,
/// through reshapes and unsqueezes.
bool isIotaAlong(Value v, int64_t d, int64_t rank, int64_t n) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t at = d - (rank - type.getRank());
  if (at < 0 || !type.hasStaticShape())
    return false;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.getDimSize(i) != (i == at ? n : 1))
      return false;
  Operation *def = v.getDefiningOp();
  while (def && isa<ReshapeOp, UnsqueezeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  auto iota = dyn_cast_or_null<IotaOp>(def);
  if (!iota || iota.getSize() || !iota.getType().getElementType().isInteger())
    return false;
  auto start = dyn_cast<IntegerAttr>(iota.getStart());
  auto step = dyn_cast<IntegerAttr>(iota.getStep());
  return start && step && start.getValue().isZero() && step.getValue().isOne();
}

/// Whether `v` is +0 everywhere (for floats, not -0.0).
bool isPositiveZero(Value v) {
  Attribute value;
  if (auto full = v.getDefiningOp<FullOp>())
    value = full.getValue();
  else if (DenseElementsAttr dense;
           matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    value = dense.getSplatValue<Attribute>();
  if (auto f = dyn_cast_or_null<FloatAttr>(value))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast_or_null<IntegerAttr>(value))
    return i.getValue().isZero();
  return false;
}

/// The sum over one dim of a one-hot row,
/// `sum(where(iota == t & m, a, 0), d)` with `t`, `m` and `a` constant
/// along `d` (nll_loss's backward over a vocabulary), is its one value:
/// `where(m & 0 <= t < n, a + 0.0, 0)`. The reduction reads nothing but
/// computes all n positions of every row (154 us per GPT-2 step over 50257
/// words); the fold is exact: a sum of `a` and zeros is `a`, with -0.0
/// made +0.0 as the sum makes it.
struct OneHotSum : OpRewritePattern<SumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SumOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getDims().size() != 1)
      return rewriter.notifyMatchFailure(op, "not a sum over one dim");
    auto where = op.getInput().getDefiningOp<WhereOp>();
    if (!where || !isPositiveZero(where.getFalseValue()))
      return rewriter.notifyMatchFailure(op, "not a sum of where(c, a, 0)");
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type element = inType.getElementType();
    if (element.isInteger(1))
      return rewriter.notifyMatchFailure(op, "a sum of booleans");
    int64_t rank = inType.getRank();
    int64_t d = op.getDims().front();
    if (d < 0)
      d += rank;
    if (d < 0 || d >= rank || inType.isDynamicDim(d))
      return rewriter.notifyMatchFailure(op, "not a static reduced dim");
    int64_t n = inType.getDimSize(d);
    if (!constantAlong(where.getTrueValue(), d, rank))
      return rewriter.notifyMatchFailure(op, "the value varies along the dim");
    // The condition's conjuncts: one `iota == t`, the others constant
    // along the dim.
    SmallVector<Value> conjuncts, pending = {where.getCondition()};
    while (!pending.empty()) {
      Value c = pending.pop_back_val();
      if (auto both = c.getDefiningOp<LogicalAndOp>()) {
        pending.push_back(both.getLhs());
        pending.push_back(both.getRhs());
      } else {
        conjuncts.push_back(c);
      }
    }
    Value index;
    SmallVector<Value> others;
    for (Value c : conjuncts) {
      auto cmp = c.getDefiningOp<CmpOp>();
      if (!index && cmp && cmp.getPredicate() == CmpPredicate::eq) {
        if (isIotaAlong(cmp.getLhs(), d, rank, n) &&
            constantAlong(cmp.getRhs(), d, rank)) {
          index = cmp.getRhs();
          continue;
        }
        if (isIotaAlong(cmp.getRhs(), d, rank, n) &&
            constantAlong(cmp.getLhs(), d, rank)) {
          index = cmp.getLhs();
          continue;
        }
      }
      if (!constantAlong(c, d, rank))
        return rewriter.notifyMatchFailure(op, "a condition varies along d");
      others.push_back(c);
    }
    if (!index)
      return rewriter.notifyMatchFailure(op, "no one-hot comparison");
    // The folded where's shape: the broadcast of what it reads, the sum's
    // own shape or its static reshape.
    SmallVector<int64_t> shape;
    SmallVector<Value> read = {index, where.getTrueValue()};
    read.append(others);
    for (Value v : read) {
      SmallVector<int64_t> next;
      if (!OpTrait::util::getBroadcastedShape(
              shape, cast<RankedTensorType>(v.getType()).getShape(), next))
        return rewriter.notifyMatchFailure(op, "operands do not broadcast");
      shape = next;
    }
    auto foldedType = RankedTensorType::get(shape, element);
    if (foldedType != op.getType() &&
        (!foldedType.hasStaticShape() || !op.getType().hasStaticShape() ||
         foldedType.getNumElements() != op.getType().getNumElements()))
      return rewriter.notifyMatchFailure(op, "the result needs a broadcast");

    Location loc = op.getLoc();
    Type indexElement = getElementTypeOrSelf(index.getType());
    auto scalar = [&](Type type, Attribute value) -> Value {
      auto t = RankedTensorType::get({}, type);
      return ConstantOp::create(rewriter, loc,
                                DenseElementsAttr::get(t, value));
    };
    Value cond = LogicalAndOp::create(
        rewriter, loc,
        CmpOp::create(
            rewriter, loc, CmpPredicate::ge, index,
            scalar(indexElement, rewriter.getIntegerAttr(indexElement, 0))),
        CmpOp::create(
            rewriter, loc, CmpPredicate::lt, index,
            scalar(indexElement, rewriter.getIntegerAttr(indexElement, n))));
    for (Value c : others)
      cond = LogicalAndOp::create(rewriter, loc, c, cond);
    Value value = where.getTrueValue();
    Value zero = isa<FloatType>(element)
                     ? scalar(element, rewriter.getFloatAttr(element, 0.0))
                     : scalar(element, rewriter.getIntegerAttr(element, 0));
    if (isa<FloatType>(element))
      value = AddOp::create(rewriter, loc, value, zero);
    Value result =
        WhereOp::create(rewriter, loc, foldedType, cond, value, zero);
    if (foldedType != op.getType())
      result =
          ReshapeOp::create(rewriter, loc, op.getType(), result, ValueRange{});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A concat of reshapes that merge the concat dim with dims after it, all
/// the same way, `concat([reshape(x_i)], d)`, is the reshape of the concat
/// of the `x_i` along the first of those dims: GPT-2's backward concatenates
/// the query, key and value gradients `[B, T, H, D]` merged to `[B, T, H*D]`.
/// The concat then reads its producers (transposes) without the reshape in
/// between, so each writes its slice of the result in place (empty-tensor
/// elimination) instead of a temporary that a copy moves into the slice.
/// Static shapes; a reshape is a view.
struct ConcatOfReshapes : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto outType = cast<RankedTensorType>(op.getType());
    int64_t d = op.getDim();
    if (op.getInputs().size() < 2 || !outType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not a static concat");
    SmallVector<Value> sources;
    std::optional<SmallVector<ReassociationIndices>> groups;
    for (Value in : op.getInputs()) {
      auto reshape = in.getDefiningOp<ReshapeOp>();
      if (!reshape)
        return rewriter.notifyMatchFailure(op, "an input is not a reshape");
      auto from = cast<RankedTensorType>(reshape.getInput().getType());
      auto to = cast<RankedTensorType>(in.getType());
      if (!from.hasStaticShape() || !to.hasStaticShape() ||
          from.getRank() <= to.getRank())
        return rewriter.notifyMatchFailure(op, "not a static merge of dims");
      auto these =
          getReassociationIndicesForCollapse(from.getShape(), to.getShape());
      if (!these || (groups && *these != *groups))
        return rewriter.notifyMatchFailure(op, "reshapes merge differently");
      groups = these;
      sources.push_back(reshape.getInput());
    }
    // The sources agree on every dim but the first of the concat dim's
    // group.
    int64_t e = (*groups)[d].front();
    auto first = cast<RankedTensorType>(sources.front().getType());
    SmallVector<int64_t> shape(first.getShape());
    shape[e] = 0;
    for (Value v : sources) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType() != first.getElementType())
        return rewriter.notifyMatchFailure(op, "element types differ");
      for (int64_t i = 0; i < t.getRank(); ++i)
        if (i != e && t.getDimSize(i) != first.getDimSize(i))
          return rewriter.notifyMatchFailure(op, "sources differ elsewhere");
      shape[e] += t.getDimSize(e);
    }
    auto catType = RankedTensorType::get(shape, first.getElementType());
    Value cat = ConcatOp::create(rewriter, op.getLoc(), catType, sources,
                                 rewriter.getI64IntegerAttr(e));
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, outType, cat, ValueRange{});
    return success();
  }
};

struct TgcDecomposePass : tgc::impl::TgcDecomposeBase<TgcDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PointwiseConv, GlobalMaxPool, GlobalAvgPool, OneHotSum,
                 ConcatOfReshapes>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
