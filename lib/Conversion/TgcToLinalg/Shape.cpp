//===- Shape.cpp - tgc to linalg: creation and shape ops ------------------===//
//
// constant, full and iota create tensors; reshape, squeeze and unsqueeze
// become tensor.collapse_shape / expand_shape (tensor.reshape when a reshape
// is not a pure collapse or expansion); permute is linalg.transpose, expand
// a linalg.broadcast or linalg.generic, slice a tensor.extract_slice with
// Python's clamping computed at run time for `?` sizes, concat a buffer
// with a copy of each input into a subview of it, pad a tensor.pad.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// `v` as `type` (a tensor.cast when the static sizes differ).
Value castIfNeeded(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

Value indexValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value || value.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute "
                                             "of the result type");
    // A large splat is a fill: as a constant it would become a global of
    // every element (a splat of 10^12 elements hung the LLVM translation).
    auto dense = dyn_cast<DenseElementsAttr>(value);
    RankedTensorType type = op.getType();
    if (dense && dense.isSplat() && type.getNumElements() > kSplatFillElements) {
      Location loc = op.getLoc();
      Value scalar = arith::ConstantOp::create(
          rewriter, loc, dense.getSplatValue<TypedAttr>());
      Value empty = tensor::EmptyOp::create(rewriter, loc, type, ValueRange{});
      rewriter.replaceOp(
          op, linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0));
      return success();
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }

  static constexpr int64_t kSplatFillElements = 1024;
};

struct FullLowering : OpConversionPattern<FullOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FullOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    Value value = arith::ConstantOp::create(rewriter, loc, op.getValue());
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, type, adaptor.getDynamicSizes());
    rewriter.replaceOp(
        op, linalg::FillOp::create(rewriter, loc, value, empty).getResult(0));
    return success();
  }
};

/// `start + i * step`, computed as torch.arange does on CPU: in the
/// accumulate type (f32 for f16/bf16, f64 for f32 and f64, i64 for
/// integers), then rounded to the element type.
struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    Type element = type.getElementType();
    Type acc;
    if (isa<FloatType>(element))
      acc = element.isF16() || element.isBF16() ? rewriter.getF32Type()
                                                : rewriter.getF64Type();
    else
      acc = rewriter.getI64Type();
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, type,
        adaptor.getSize() ? ValueRange{adaptor.getSize()} : ValueRange{});
    Value start = convertScalar(
        rewriter, loc, arith::ConstantOp::create(rewriter, loc, op.getStart()),
        acc);
    Value step = convertScalar(
        rewriter, loc, arith::ConstantOp::create(rewriter, loc, op.getStep()),
        acc);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(1)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, empty, maps,
        {utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value v = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
          Value r;
          if (isa<FloatType>(acc)) {
            v = arith::SIToFPOp::create(b, l, acc, v);
            r = arith::AddFOp::create(b, l, start,
                                      arith::MulFOp::create(b, l, step, v));
          } else {
            r = arith::AddIOp::create(b, l, start,
                                      arith::MulIOp::create(b, l, step, v));
          }
          linalg::YieldOp::create(b, l, convertScalar(b, l, r, element));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reshape
//===----------------------------------------------------------------------===//

/// Groups the dims of `big` into `small.size()` contiguous groups whose
/// products are provably `small`'s sizes once the element counts agree
/// (which the caller asserts). Every group but one ("the dynamic group") is
/// all static with a non-zero product equal to its size in `small`; all
/// `?` sizes of both shapes fall in the dynamic group, so that the element
/// count equality fixes it too. Zero-sized static groups are refused: they
/// would make the element count equality vacuous.
std::optional<SmallVector<ReassociationIndices>>
matchSegment(ArrayRef<int64_t> big, ArrayRef<int64_t> small) {
  int64_t m = big.size(), n = small.size();
  if (n == 0 || m < n)
    return std::nullopt;
  int64_t numDynamicSmall = llvm::count_if(small, ShapedType::isDynamic);
  if (numDynamicSmall > 1)
    return std::nullopt;
  // Greedily matches small[j] with big dims from `pos` in direction `dir`.
  auto matchGroup = [&](int64_t j, int64_t &pos, int64_t limit, int64_t dir,
                        ReassociationIndices &group) -> bool {
    int64_t target = small[j];
    if (ShapedType::isDynamic(target) || target == 0)
      return false;
    int64_t product = 1;
    do {
      if (pos == limit || ShapedType::isDynamic(big[pos]))
        return false;
      product *= big[pos];
      group.push_back(pos);
      pos += dir;
      if (product == 0 || product > target)
        return false;
    } while (product != target);
    if (dir < 0)
      std::reverse(group.begin(), group.end());
    return true;
  };
  for (int64_t k = 0; k < n; ++k) {
    if (numDynamicSmall == 1 && !ShapedType::isDynamic(small[k]))
      continue;
    SmallVector<ReassociationIndices> groups(n);
    int64_t left = 0, right = m - 1;
    bool ok = true;
    for (int64_t j = 0; ok && j < k; ++j)
      ok = matchGroup(j, left, m, 1, groups[j]);
    for (int64_t j = n - 1; ok && j > k; --j)
      ok = matchGroup(j, right, left - 1, -1, groups[j]);
    if (!ok || left > right)
      continue;
    bool dynamic = ShapedType::isDynamic(small[k]);
    int64_t product = 1;
    for (int64_t i = left; i <= right; ++i) {
      groups[k].push_back(i);
      if (ShapedType::isDynamic(big[i]))
        dynamic = true;
      else
        product *= big[i];
    }
    if (!dynamic && product != small[k])
      continue;
    return groups;
  }
  return std::nullopt;
}

/// As matchSegment, where `anchors` are (big dim, small dim) pairs of `?`
/// sizes known to be equal (a result size given as the input's own size):
/// each anchor is a group of its own, and the dims between two anchors are
/// matched as a segment. At most one segment may hold `?` sizes besides
/// the anchors, so that the element count equality still fixes it; unit
/// dims between anchors join a neighbouring anchor's group.
std::optional<SmallVector<ReassociationIndices>>
matchReassociation(ArrayRef<int64_t> big, ArrayRef<int64_t> small,
                   ArrayRef<std::pair<int64_t, int64_t>> anchors) {
  int64_t m = big.size(), n = small.size();
  if (anchors.empty())
    return matchSegment(big, small);
  SmallVector<ReassociationIndices> groups(n);
  int64_t b = 0, s = 0, dynamicSegments = 0;
  // Matches big[b, bEnd) with small[s, sEnd); `unitsTo` is the small dim
  // whose group takes the big dims when the small side is empty.
  auto segment = [&](int64_t bEnd, int64_t sEnd, int64_t unitsTo) -> bool {
    ArrayRef<int64_t> bs = big.slice(b, bEnd - b);
    ArrayRef<int64_t> ss = small.slice(s, sEnd - s);
    if (llvm::any_of(bs, ShapedType::isDynamic) ||
        llvm::any_of(ss, ShapedType::isDynamic))
      if (++dynamicSegments > 1)
        return false;
    if (ss.empty()) {
      if (bs.empty())
        return true;
      if (unitsTo < 0 || llvm::any_of(bs, [](int64_t d) { return d != 1; }))
        return false;
      for (int64_t i = b; i < bEnd; ++i)
        groups[unitsTo].push_back(i);
      return true;
    }
    std::optional<SmallVector<ReassociationIndices>> sub =
        matchSegment(bs, ss);
    if (!sub)
      return false;
    for (auto [j, group] : llvm::enumerate(*sub))
      for (int64_t i : group)
        groups[s + j].push_back(b + i);
    return true;
  };
  for (auto [bi, si] : anchors) {
    if (bi < b || si < s || !segment(bi, si, si))
      return matchSegment(big, small);
    groups[si].push_back(bi);
    b = bi + 1;
    s = si + 1;
  }
  if (!segment(m, n, s - 1))
    return matchSegment(big, small);
  for (ReassociationIndices &group : groups)
    llvm::sort(group);
  return groups;
}

/// Reshape in row-major order. The `?` result sizes come from the index
/// operands, or the one inferred `?` is the element count divided by the
/// product of the static result sizes; unless both shapes are static, the
/// element counts are asserted equal first (PyTorch's "shape is invalid
/// for input of size N"), which also makes the collapse/expand forms exact.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto outType = op.getResult().getType();
    ArrayRef<int64_t> inShape = inType.getShape(),
                      outShape = outType.getShape();
    ValueRange sizes = adaptor.getDynamicSizes();
    int64_t numDynamic = outType.getNumDynamicDims();
    bool inferred = numDynamic == 1 && sizes.empty();
    int64_t staticPart = 1;
    for (int64_t s : outShape)
      if (!ShapedType::isDynamic(s))
        staticPart *= s;
    if (inferred && staticPart == 0)
      return rewriter.notifyMatchFailure(
          op, "the inferred size is ambiguous (static sizes include 0)");
    if (!inferred && static_cast<int64_t>(sizes.size()) != numDynamic)
      return rewriter.notifyMatchFailure(op, "wrong number of size operands");

    // The form: collapse_shape or expand_shape when the groups are provably
    // right once the element counts agree, else tensor.reshape.
    int64_t inRank = inType.getRank(), outRank = outType.getRank();
    // Result sizes given as the input's own sizes pair those dims (seen
    // through the fusion group the op is in).
    auto outside = outsideFusionGroup;
    SmallVector<std::pair<int64_t, int64_t>> anchors; // (in dim, out dim)
    if (!inferred) {
      unsigned next = 0;
      for (auto [p, s] : llvm::enumerate(outShape)) {
        if (!ShapedType::isDynamic(s))
          continue;
        auto dim = outside(op.getDynamicSizes()[next++])
                       .getDefiningOp<tensor::DimOp>();
        std::optional<int64_t> index =
            dim ? dim.getConstantIndex() : std::nullopt;
        if (dim && outside(dim.getSource()) == outside(op.getInput()) &&
            index &&
            ShapedType::isDynamic(inShape[*index]) &&
            (anchors.empty() || anchors.back().first < *index))
          anchors.emplace_back(*index, p);
      }
    }
    std::optional<SmallVector<ReassociationIndices>> collapse, expand;
    if (inRank > 0 && outRank > 0) {
      if (inRank >= outRank) {
        collapse = matchReassociation(inShape, outShape, anchors);
      } else {
        SmallVector<std::pair<int64_t, int64_t>> swapped;
        for (auto [i, o] : anchors)
          swapped.emplace_back(o, i);
        expand = matchReassociation(outShape, inShape, swapped);
        // expand-strided-metadata crashes on a memref.expand_shape group
        // with several `?` sizes (LLVM 22).
        if (expand && llvm::any_of(*expand, [&](const auto &group) {
              return llvm::count_if(group, [&](int64_t i) {
                       return ShapedType::isDynamic(outShape[i]);
                     }) > 1;
            }))
          expand.reset();
      }
    }

    // Every `?` size of both sides is an anchor and the static parts agree:
    // the element counts agree by construction.
    int64_t inStatic = 1;
    for (int64_t s : inShape)
      if (!ShapedType::isDynamic(s))
        inStatic *= s;
    bool countsAgree =
        !inferred && inStatic == staticPart &&
        static_cast<int64_t>(anchors.size()) == numDynamic &&
        numDynamic == static_cast<int64_t>(inType.getNumDynamicDims());

    SmallVector<OpFoldResult> outDims;
    if (inType.hasStaticShape() && outType.hasStaticShape()) {
      for (int64_t s : outShape)
        outDims.push_back(rewriter.getIndexAttr(s));
    } else if (countsAgree) {
      unsigned next = 0;
      for (int64_t s : outShape)
        outDims.push_back(ShapedType::isDynamic(s)
                              ? OpFoldResult(sizes[next++])
                              : OpFoldResult(rewriter.getIndexAttr(s)));
    } else if (!(collapse && inferred)) {
      // (A collapse with the inferred size holds by construction: the
      // static groups match, the dynamic group is the rest.)
      Value inCount =
          buildNumElements(rewriter, loc, getDims(rewriter, loc, input));
      Value inferredSize;
      if (inferred) {
        Value divisor =
            arith::ConstantIndexOp::create(rewriter, loc, staticPart);
        inferredSize = arith::DivUIOp::create(rewriter, loc, inCount, divisor);
      }
      unsigned next = 0;
      for (int64_t s : outShape) {
        if (!ShapedType::isDynamic(s))
          outDims.push_back(rewriter.getIndexAttr(s));
        else
          outDims.push_back(inferred ? inferredSize : sizes[next++]);
      }
      Value outCount = buildNumElements(rewriter, loc, outDims);
      Value same = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, inCount, outCount);
      cf::AssertOp::create(rewriter, loc, same,
                           "tgc.reshape: the result shape does not have the "
                           "input's element count");
    }

    Value result;
    if (inRank == 0 && outRank == 0) {
      result = input;
    } else if (outRank == 0 || inRank == 0) {
      // One element: every size of the other side is 1.
      if (inRank == 0) {
        auto ones = RankedTensorType::get(SmallVector<int64_t>(outRank, 1),
                                          inType.getElementType());
        result = tensor::ExpandShapeOp::create(
            rewriter, loc, ones, input, ArrayRef<ReassociationIndices>{});
      } else {
        auto ones = RankedTensorType::get(SmallVector<int64_t>(inRank, 1),
                                          inType.getElementType());
        result = tensor::CollapseShapeOp::create(
            rewriter, loc, castIfNeeded(rewriter, loc, input, ones),
            ArrayRef<ReassociationIndices>{});
      }
    } else if (collapse) {
      result =
          inRank == outRank
              ? input
              : tensor::CollapseShapeOp::create(rewriter, loc, input, *collapse)
                    .getResult();
    } else if (expand) {
      // The source dim of each group is `?` exactly when the group has a
      // `?` (expand_shape's rule); the element count fixes the one group
      // where the two sides may differ.
      SmallVector<int64_t> srcShape(inShape);
      for (auto [j, group] : llvm::enumerate(*expand)) {
        bool dynamic = false;
        int64_t product = 1;
        for (int64_t i : group) {
          if (ShapedType::isDynamic(outShape[i]))
            dynamic = true;
          else
            product *= outShape[i];
        }
        srcShape[j] = dynamic ? ShapedType::kDynamic : product;
      }
      Value src = castIfNeeded(
          rewriter, loc, input,
          RankedTensorType::get(srcShape, inType.getElementType()));
      result = tensor::ExpandShapeOp::create(rewriter, loc, outType, src,
                                             *expand, outDims);
    }
    if (!result) {
      SmallVector<Value> shapeValues;
      for (OpFoldResult d : outDims)
        shapeValues.push_back(indexValue(rewriter, loc, d));
      Value shape = tensor::FromElementsOp::create(rewriter, loc, shapeValues);
      result = tensor::ReshapeOp::create(rewriter, loc, outType, input, shape);
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, outType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Permute, expand
//===----------------------------------------------------------------------===//

struct PermuteLowering : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> perm = op.getPermutation();
    SmallVector<OpFoldResult> inDims = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> outDims;
    for (int64_t p : perm)
      outDims.push_back(inDims[p]);
    auto outType = op.getResult().getType();
    Value init = createEmpty(rewriter, loc, outType, outDims);
    auto transpose =
        linalg::TransposeOp::create(rewriter, loc, input, init, perm);
    rewriter.replaceOp(op, transpose.getResult()[0]);
    return success();
  }
};

/// Input dims align with the result's trailing dims. A static-1 input dim
/// stretches (read at 0); other input dims keep their size.
struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto outType = op.getResult().getType();
    int64_t rank = outType.getRank(), offset = rank - inType.getRank();
    ValueRange sizes = adaptor.getDynamicSizes();
    SmallVector<OpFoldResult> outDims;
    SmallVector<AffineExpr> inExprs;
    bool stretches = false;
    unsigned next = 0;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t o = outType.getDimSize(i);
      int64_t s = i >= offset ? inType.getDimSize(i - offset) : 1;
      if (i >= offset && ShapedType::isDynamic(s)) {
        // A `?` input dim keeps its size.
        outDims.push_back(
            tensor::DimOp::create(rewriter, loc, input, i - offset)
                .getResult());
      } else if (ShapedType::isDynamic(o)) {
        if (next >= sizes.size())
          return rewriter.notifyMatchFailure(op, "too few size operands");
        outDims.push_back(sizes[next++]);
      } else {
        outDims.push_back(rewriter.getIndexAttr(o));
      }
      if (i < offset)
        continue;
      if (s == 1) {
        inExprs.push_back(rewriter.getAffineConstantExpr(0));
        stretches |= o != 1;
      } else {
        inExprs.push_back(rewriter.getAffineDimExpr(i));
      }
    }
    if (next != sizes.size())
      return rewriter.notifyMatchFailure(op, "too many size operands");
    Value init = createEmpty(rewriter, loc, outType, outDims);
    if (!stretches) {
      // Only new leading dims: linalg.broadcast (or nothing at all).
      if (offset == 0) {
        rewriter.replaceOp(op, castIfNeeded(rewriter, loc, input, outType));
        return success();
      }
      SmallVector<int64_t> added =
          llvm::to_vector(llvm::seq<int64_t>(0, offset));
      auto broadcast =
          linalg::BroadcastOp::create(rewriter, loc, input, init, added);
      rewriter.replaceOp(op, broadcast.getResult()[0]);
      return success();
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, inExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, outType, input, init, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Slice, concat
//===----------------------------------------------------------------------===//

/// x[start:end:step] along `dim`: negative bounds count from the end, both
/// are clamped to [0, size], the length is max(end - start, 0) ceildiv step.
/// Computed at compile time for a static size, else at run time.
struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t dim = op.getDim(), start = op.getStart(), end = op.getEnd(),
            step = op.getStep();
    if (step < 1)
      return rewriter.notifyMatchFailure(op, "step < 1");
    int64_t rank = inType.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    strides[dim] = rewriter.getIndexAttr(step);
    int64_t size = inType.getDimSize(dim);
    if (!ShapedType::isDynamic(size)) {
      auto clamp = [&](int64_t v) {
        if (v < 0)
          v += size;
        return std::min(std::max<int64_t>(v, 0), size);
      };
      int64_t s = clamp(start), e = clamp(end);
      int64_t count = e <= s ? 0 : (e - s + step - 1) / step;
      if (count == 0) {
        // extract_slice rejects any static offset into a dim it does not
        // read (even 0 into a size-0 dim): an empty slice is a tensor.empty.
        SmallVector<int64_t> shape(inType.getShape());
        shape[dim] = 0;
        sizes[dim] = rewriter.getIndexAttr(0);
        Value empty = createEmpty(
            rewriter, loc,
            RankedTensorType::get(shape, inType.getElementType()), sizes);
        rewriter.replaceOp(
            op, castIfNeeded(rewriter, loc, empty, op.getResult().getType()));
        return success();
      }
      offsets[dim] = rewriter.getIndexAttr(s);
      sizes[dim] = rewriter.getIndexAttr(count);
    } else {
      Value n = indexValue(rewriter, loc, sizes[dim]);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      // The bound is a compile-time constant, so is its sign.
      auto clamp = [&](int64_t v) -> Value {
        if (v < 0) {
          Value c = arith::ConstantIndexOp::create(rewriter, loc, v);
          return arith::MaxSIOp::create(
              rewriter, loc, arith::AddIOp::create(rewriter, loc, c, n), zero);
        }
        Value c = arith::ConstantIndexOp::create(rewriter, loc, v);
        return arith::MinSIOp::create(rewriter, loc, c, n);
      };
      Value s = clamp(start);
      Value e = end == std::numeric_limits<int64_t>::max() ? n : clamp(end);
      Value length = arith::MaxSIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, e, s), zero);
      Value stepValue = arith::ConstantIndexOp::create(rewriter, loc, step);
      Value count = step == 1 ? length
                              : arith::CeilDivUIOp::create(rewriter, loc,
                                                           length, stepValue)
                                    .getResult();
      // Offset 0 for an empty slice keeps the offset in bounds should the
      // size become static later.
      Value isEmpty = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, count, zero);
      offsets[dim] =
          arith::SelectOp::create(rewriter, loc, isEmpty, zero, s).getResult();
      sizes[dim] = count;
    }
    // Another dim of static size 0 (a batch of 0 specialized statically):
    // extract_slice rejects the static offset 0 into it, and the slice has
    // no elements anyway.
    bool otherEmpty = false;
    for (int64_t d = 0; d < rank; ++d)
      otherEmpty |= d != dim && inType.getDimSize(d) == 0;
    if (otherEmpty) {
      SmallVector<int64_t> shape(inType.getShape());
      std::optional<int64_t> count = getConstantIntValue(sizes[dim]);
      shape[dim] = count ? *count : ShapedType::kDynamic;
      Value empty = createEmpty(
          rewriter, loc, RankedTensorType::get(shape, inType.getElementType()),
          sizes);
      rewriter.replaceOp(
          op, castIfNeeded(rewriter, loc, empty, op.getResult().getType()));
      return success();
    }
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, input, offsets,
                                                 sizes, strides);
    rewriter.replaceOp(
        op, castIfNeeded(rewriter, loc, slice, op.getResult().getType()));
    return success();
  }
};

/// Up to this many inputs a concat is a chain of tensor.insert_slice.
constexpr size_t kInsertSliceInputs = 8;

/// tensor.empty of the result, then each input inserted at its offset.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    auto outType = op.getResult().getType();
    int64_t dim = op.getDim(), rank = outType.getRank();
    if (inputs.size() == 1) {
      rewriter.replaceOp(op, castIfNeeded(rewriter, loc, inputs[0], outType));
      return success();
    }
    SmallVector<SmallVector<OpFoldResult>> inDims;
    for (Value v : inputs)
      inDims.push_back(getDims(rewriter, loc, v));
    SmallVector<OpFoldResult> outDims(inDims.front());
    // Other dims agree: take a static size where an input has one.
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim)
        continue;
      for (auto &dims : inDims)
        if (isa<Attribute>(dims[d]))
          outDims[d] = dims[d];
    }
    // Offsets along `dim`: static while the sizes before are.
    auto add = [&](OpFoldResult a, OpFoldResult b) -> OpFoldResult {
      std::optional<int64_t> ca = getConstantIntValue(a),
                             cb = getConstantIntValue(b);
      if (ca && cb)
        return rewriter.getIndexAttr(*ca + *cb);
      return arith::AddIOp::create(rewriter, loc, indexValue(rewriter, loc, a),
                                   indexValue(rewriter, loc, b))
          .getResult();
    };
    SmallVector<OpFoldResult> offsetsAlongDim = {rewriter.getIndexAttr(0)};
    for (auto &dims : inDims)
      offsetsAlongDim.push_back(add(offsetsAlongDim.back(), dims[dim]));
    outDims[dim] = offsetsAlongDim.back();
    // A buffer and one copy of each input into its slice, written at the
    // memref level: a chain of tensor.insert_slice (one per input) made
    // one-shot bufferization's alias analysis superlinear in the number of
    // inputs (150 inputs took 15 s), and tensor.concat bufferizes each
    // slice's offset as one affine map over all the sizes before it
    // (quadratic IR). Offsets here are running sums; the buffer is an
    // ordinary allocation (planned in the arena when it does not escape).
    SmallVector<Value> dynamicSizes;
    for (auto [d, size] : llvm::enumerate(outDims))
      if (outType.isDynamicDim(d))
        dynamicSizes.push_back(indexValue(rewriter, loc, size));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    if (inputs.size() <= kInsertSliceInputs) {
      // Few inputs: a tensor.empty and a chain of tensor.insert_slice, which
      // empty-tensor elimination turns into each producer writing its
      // slice of the result (no copy per input).
      Value result =
          tensor::EmptyOp::create(rewriter, loc, outType.getShape(),
                                  outType.getElementType(), dynamicSizes);
      for (auto [i, v] : llvm::enumerate(inputs)) {
        if (getConstantIntValue(inDims[i][dim]) == 0)
          continue; // an empty input copies nothing
        SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
        offsets[dim] = offsetsAlongDim[i];
        // The input's own sizes: static exactly where its type is, as
        // insert_slice's verifier requires.
        result = tensor::InsertSliceOp::create(rewriter, loc, v, result,
                                               offsets, inDims[i], strides);
      }
      rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, outType));
      return success();
    }
    auto bufferType =
        MemRefType::get(outType.getShape(), outType.getElementType());
    Value buffer =
        memref::AllocOp::create(rewriter, loc, bufferType, dynamicSizes,
                                rewriter.getI64IntegerAttr(64));
    for (auto [i, v] : llvm::enumerate(inputs)) {
      if (getConstantIntValue(inDims[i][dim]) == 0)
        continue; // an empty input copies nothing
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[dim] = offsetsAlongDim[i];
      SmallVector<OpFoldResult> sizes(inDims[i]);
      for (int64_t d = 0; d < rank; ++d)
        if (d != dim)
          sizes[d] = outDims[d];
      Value slice = memref::SubViewOp::create(rewriter, loc, buffer, offsets,
                                              sizes, strides);
      bufferization::MaterializeInDestinationOp::create(
          rewriter, loc, TypeRange{}, v, slice, /*restrict=*/false,
          /*writable=*/true);
    }
    rewriter.replaceOp(op, bufferization::ToTensorOp::create(
                               rewriter, loc, outType, buffer,
                               /*restrict=*/true, /*writable=*/true));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Squeeze, unsqueeze, pad
//===----------------------------------------------------------------------===//

struct SqueezeLowering : OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    SmallVector<bool> unit(inType.getRank(), false);
    for (int64_t d : op.getDims()) {
      if (inType.getDimSize(d) != 1)
        return rewriter.notifyMatchFailure(op, "squeezed dim is not 1");
      unit[d] = true;
    }
    Value result = input;
    if (!op.getDims().empty())
      result = tensor::CollapseShapeOp::create(rewriter, loc, input,
                                               getUnitDimsReassociation(unit));
    rewriter.replaceOp(
        op, castIfNeeded(rewriter, loc, result, op.getResult().getType()));
    return success();
  }
};

struct UnsqueezeLowering : OpConversionPattern<UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t dim = op.getDim();
    SmallVector<bool> unit(inType.getRank() + 1, false);
    unit[dim] = true;
    SmallVector<int64_t> shape(inType.getShape());
    shape.insert(shape.begin() + dim, 1);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, input);
    dims.insert(dims.begin() + dim, rewriter.getIndexAttr(1));
    auto type = RankedTensorType::get(shape, inType.getElementType());
    Value result = tensor::ExpandShapeOp::create(
        rewriter, loc, type, input, getUnitDimsReassociation(unit), dims);
    rewriter.replaceOp(
        op, castIfNeeded(rewriter, loc, result, op.getResult().getType()));
    return success();
  }
};

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "padding value is not typed");
    Value padValue = arith::ConstantOp::create(rewriter, loc, value);
    SmallVector<OpFoldResult> low, high;
    for (int64_t l : op.getLow())
      low.push_back(rewriter.getIndexAttr(l));
    for (int64_t h : op.getHigh())
      high.push_back(rewriter.getIndexAttr(h));
    auto pad = tensor::PadOp::create(rewriter, loc, Type(), adaptor.getInput(),
                                     low, high, padValue);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, pad.getResult(),
                                        op.getResult().getType()));
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcShapeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, FullLowering, IotaLowering, ReshapeLowering,
               PermuteLowering, ExpandLowering, SliceLowering, ConcatLowering,
               SqueezeLowering, UnsqueezeLowering, PadLowering>(
      patterns.getContext());
}
