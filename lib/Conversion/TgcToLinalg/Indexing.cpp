//===- Indexing.cpp - tgc to linalg: gathers and scatter_add --------------===//
//
// Each op is a linalg.generic over the result that reads its source with
// tensor.extract at data-dependent coordinates. PyTorch rejects an index
// outside [0, size) (negative ones included) for all three, so:
// * a cf.assert, computed by a reduction over the index tensor before the
//   generic, aborts with the op's name when an index is out of range (or,
//   with `checksInKernels`, the GPU's device asserts, a cf.assert inside
//   the generic on each index it reads);
// * inside the generic every data-dependent coordinate is clamped to
//   [0, size - 1], and a source that may be empty is not read at all, so
//   that nothing reads out of bounds even with the asserts compiled out.
// scatter_add is a loop nest over its positions instead (a linalg.generic
// cannot write at computed coordinates): the same assert, and an update
// skipped where a coordinate is out of bounds.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

Value indexValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}

/// A scalar of an index tensor (i32 or i64) as an index (sign-extended).
Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// Asserts that every element of `indices` is in [0, size).
void assertIndicesInRange(OpBuilder &b, Location loc, Value indices, Value size,
                          StringRef opName) {
  Value ok = buildAllOf(
      b, loc, indices, [&](OpBuilder &nb, Location l, Value v) -> Value {
        Value i = toIndex(nb, l, v);
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        Value nonNegative =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, i, zero);
        Value below =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, i, size);
        return arith::AndIOp::create(nb, l, nonNegative, below);
      });
  auto assert =
      cf::AssertOp::create(b, loc, ok, (opName + ": index out of range").str());
  assert->setAttr(kIndexCheckAttrName, b.getUnitAttr());
}

/// Asserts inside a generic's body that `i` (an index) is in [0, size):
/// the GPU kernel that reads it calls `__assertfail` when it is not
/// (index-checks-in-kernels).
void assertIndexInBody(OpBuilder &b, Location loc, Value i, Value size,
                       StringRef opName) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value nonNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero);
  Value below =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, size);
  Value ok = arith::AndIOp::create(b, loc, nonNegative, below);
  cf::AssertOp::create(b, loc, ok, (opName + ": index out of range").str());
}

/// Patterns whose index check is a reduction and a top-level cf.assert, or
/// a cf.assert in the body (`checksInKernels`).
template <typename Op> struct CheckedIndexPattern : OpConversionPattern<Op> {
  CheckedIndexPattern(MLIRContext *context, bool checksInKernels)
      : OpConversionPattern<Op>(context), checksInKernels(checksInKernels) {}

  /// The index `v` (an element of the index tensor) as a clamped index,
  /// asserted first inside the body when checks are in kernels.
  Value checkedIndex(OpBuilder &b, Location l, Value v, Value size,
                     StringRef opName) const {
    Value i = toIndex(b, l, v);
    if (checksInKernels)
      assertIndexInBody(b, l, i, size, opName);
    return clampIndex(b, l, i, size);
  }
  void checkAll(OpBuilder &b, Location loc, Value indices, Value size,
                StringRef opName) const {
    if (!checksInKernels)
      assertIndicesInRange(b, loc, indices, size, opName);
  }

  bool checksInKernels;
};

/// An i1 that is true when every size in `dims` is non-zero, or null when
/// that is statically known (so the source can be read unconditionally).
Value buildNonEmpty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims) {
  Value all;
  for (OpFoldResult d : dims) {
    std::optional<int64_t> c = getConstantIntValue(d);
    if (c && *c > 0)
      continue;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value nonZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          indexValue(b, loc, d), zero);
    all =
        all ? arith::AndIOp::create(b, loc, all, nonZero).getResult() : nonZero;
  }
  return all;
}

/// `source[coords]`, or zero when `nonEmpty` (if given) is false: a source
/// with a zero size has nothing to read, whatever the (clamped) coordinates.
Value readSource(OpBuilder &b, Location loc, Value source, ValueRange coords,
                 Value nonEmpty) {
  if (!nonEmpty)
    return tensor::ExtractOp::create(b, loc, source, coords);
  Type element = cast<RankedTensorType>(source.getType()).getElementType();
  auto ifOp = scf::IfOp::create(
      b, loc, nonEmpty,
      [&](OpBuilder &tb, Location l) {
        Value v = tensor::ExtractOp::create(tb, l, source, coords);
        scf::YieldOp::create(tb, l, v);
      },
      [&](OpBuilder &eb, Location l) {
        scf::YieldOp::create(eb, l, createScalarConstant(eb, l, element, 0));
      });
  return ifOp.getResult(0);
}

/// out[i...] = input[i_0, ..., index[i...], ..., i_{r-1}] with the index in
/// dimension `dim`. The index's other sizes must not exceed the input's:
/// asserted when not static, and those coordinates are clamped too.
struct GatherLowering : CheckedIndexPattern<GatherOp> {
  using CheckedIndexPattern::CheckedIndexPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), index = adaptor.getIndex();
    auto inType = cast<RankedTensorType>(input.getType());
    auto idxType = cast<RankedTensorType>(index.getType());
    auto resultType = op.getResult().getType();
    int64_t rank = inType.getRank(), dim = op.getDim();
    if (idxType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "index rank differs");
    StringRef name = op->getName().getStringRef();
    SmallVector<OpFoldResult> inDims = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> idxDims = getDims(rewriter, loc, index);

    // Sizes other than `dim`: index <= input, unless statically true.
    SmallVector<bool> clampDim(rank, false);
    Value fits;
    for (int64_t k = 0; k < rank; ++k) {
      if (k == dim)
        continue;
      int64_t i = idxType.getDimSize(k), s = inType.getDimSize(k);
      if (!ShapedType::isDynamic(i) && !ShapedType::isDynamic(s) && i <= s)
        continue;
      clampDim[k] = true;
      Value le = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle,
                                       indexValue(rewriter, loc, idxDims[k]),
                                       indexValue(rewriter, loc, inDims[k]));
      fits = fits ? arith::AndIOp::create(rewriter, loc, fits, le).getResult()
                  : le;
    }
    if (fits)
      cf::AssertOp::create(rewriter, loc, fits,
                           (name + ": index is larger than the input in a "
                                   "dimension other than dim")
                               .str());
    // A rank-0 input is a one-element vector (index 0 only).
    Value size =
        rank == 0 ? arith::ConstantIndexOp::create(rewriter, loc, 1).getResult()
                  : indexValue(rewriter, loc, inDims[dim]);
    checkAll(rewriter, loc, index, size, name);
    Value nonEmpty = buildNonEmpty(rewriter, loc, inDims);

    Value init = createEmpty(rewriter, loc, resultType, idxDims);
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, index, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t k = 0; k < rank; ++k) {
            if (k == dim) {
              coords.push_back(checkedIndex(b, l, args[0], size, name));
              continue;
            }
            Value i = linalg::IndexOp::create(b, l, k);
            if (clampDim[k])
              i = clampIndex(b, l, i, indexValue(b, l, inDims[k]));
            coords.push_back(i);
          }
          linalg::YieldOp::create(b, l,
                                  readSource(b, l, input, coords, nonEmpty));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// out[..., j, ...] = input[..., index[j], ...] along `dim`; a rank-0 index
/// keeps `dim` with size 1.
struct IndexSelectLowering : CheckedIndexPattern<IndexSelectOp> {
  using CheckedIndexPattern::CheckedIndexPattern;
  LogicalResult
  matchAndRewrite(IndexSelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), index = adaptor.getIndex();
    auto idxType = cast<RankedTensorType>(index.getType());
    auto resultType = op.getResult().getType();
    int64_t rank = resultType.getRank(), dim = op.getDim();
    if (idxType.getRank() > 1 || rank == 0)
      return rewriter.notifyMatchFailure(op, "index rank > 1 or rank-0 input");
    SmallVector<OpFoldResult> inDims = getDims(rewriter, loc, input);
    Value size = indexValue(rewriter, loc, inDims[dim]);
    StringRef name = op->getName().getStringRef();
    checkAll(rewriter, loc, index, size, name);
    Value nonEmpty = buildNonEmpty(rewriter, loc, inDims[dim]);

    SmallVector<OpFoldResult> outDims(inDims);
    outDims[dim] = idxType.getRank() == 1
                       ? getDims(rewriter, loc, index)[0]
                       : OpFoldResult(rewriter.getIndexAttr(1));
    Value init = createEmpty(rewriter, loc, resultType, outDims);
    SmallVector<AffineExpr> idxExprs;
    if (idxType.getRank() == 1)
      idxExprs.push_back(rewriter.getAffineDimExpr(dim));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, idxExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, index, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t k = 0; k < rank; ++k)
            coords.push_back(
                k == dim ? checkedIndex(b, l, args[0], size, name)
                         : linalg::IndexOp::create(b, l, k).getResult());
          linalg::YieldOp::create(b, l,
                                  readSource(b, l, input, coords, nonEmpty));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// out[i..., e] = weight[indices[i...], e].
struct EmbeddingLowering : CheckedIndexPattern<EmbeddingOp> {
  using CheckedIndexPattern::CheckedIndexPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value weight = adaptor.getWeight(), indices = adaptor.getIndices();
    if (cast<RankedTensorType>(weight.getType()).getRank() != 2)
      return rewriter.notifyMatchFailure(op, "weight is not rank 2");
    auto resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    SmallVector<OpFoldResult> wDims = getDims(rewriter, loc, weight);
    Value numRows = indexValue(rewriter, loc, wDims[0]);
    StringRef name = op->getName().getStringRef();
    checkAll(rewriter, loc, indices, numRows, name);
    Value nonEmpty = buildNonEmpty(rewriter, loc, wDims[0]);

    SmallVector<OpFoldResult> outDims = getDims(rewriter, loc, indices);
    outDims.push_back(wDims[1]);
    Value init = createEmpty(rewriter, loc, resultType, outDims);
    SmallVector<AffineExpr> idxExprs;
    for (int64_t k = 0; k + 1 < rank; ++k)
      idxExprs.push_back(rewriter.getAffineDimExpr(k));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, idxExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, indices, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row = checkedIndex(b, l, args[0], numRows, name);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          linalg::YieldOp::create(
              b, l, readSource(b, l, weight, {row, col}, nonEmpty));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// out = base; out[..., index(p), ...] += src[p] for every position p of
/// the index (torch.scatter_add) or of src (the slice form, torch.index_add,
/// where index(p) = index[p[dim]]). A loop nest over the positions in
/// row-major order, carrying the result tensor: the loops before `dim`
/// write disjoint elements (tgc.parallel); `dim`'s loop and those after it
/// may hit one element twice (tgc.parallel_atomic_add).
struct ScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = adaptor.getBase(), index = adaptor.getIndex(),
          src = adaptor.getSrc();
    auto baseType = cast<RankedTensorType>(base.getType());
    auto idxType = cast<RankedTensorType>(index.getType());
    auto srcType = cast<RankedTensorType>(src.getType());
    Type element = baseType.getElementType();
    int64_t rank = baseType.getRank(), dim = op.getDim();
    bool sliceForm = op.isSliceForm();
    StringRef name = op->getName().getStringRef();
    SmallVector<OpFoldResult> baseDims = getDims(rewriter, loc, base);
    SmallVector<OpFoldResult> idxDims = getDims(rewriter, loc, index);
    SmallVector<OpFoldResult> srcDims = getDims(rewriter, loc, src);
    auto dimValue = [&](ArrayRef<OpFoldResult> dims, int64_t d) {
      return indexValue(rewriter, loc, dims[d]);
    };

    // Sizes the types leave open: asserted (PyTorch's size checks), and
    // the coordinates they bound checked again per update, so that nothing
    // is read or written out of bounds with the asserts compiled out.
    SmallVector<OpFoldResult> domain(sliceForm ? srcDims : idxDims);
    SmallVector<int64_t> domainShape(sliceForm ? srcType.getShape()
                                               : idxType.getShape());
    if (sliceForm) {
      // Along dim, the slice form visits the index's positions.
      domain[dim] = idxDims[0];
      domainShape[dim] = idxType.getDimSize(0);
    }
    SmallVector<bool> checkBase(rank, false), checkSrc(rank, false);
    Value fits;
    auto require = [&](arith::CmpIPredicate pred, Value a, Value b) {
      Value holds = arith::CmpIOp::create(rewriter, loc, pred, a, b);
      fits = fits
                 ? arith::AndIOp::create(rewriter, loc, fits, holds).getResult()
                 : holds;
    };
    auto requireLe = [&](Value a, Value b) {
      require(arith::CmpIPredicate::sle, a, b);
    };
    auto unknownLe = [](int64_t a, int64_t b) {
      return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a > b;
    };
    for (int64_t d = 0; d < rank; ++d) {
      int64_t n = domainShape[d];
      if (d != dim && unknownLe(n, baseType.getDimSize(d))) {
        checkBase[d] = true;
        // The slice form's src has base's sizes but along dim.
        require(sliceForm ? arith::CmpIPredicate::eq
                          : arith::CmpIPredicate::sle,
                dimValue(domain, d), dimValue(baseDims, d));
      }
      if (!sliceForm && unknownLe(n, srcType.getDimSize(d))) {
        checkSrc[d] = true;
        requireLe(dimValue(domain, d), dimValue(srcDims, d));
      }
    }
    if (sliceForm && (ShapedType::isDynamic(idxType.getDimSize(0)) ||
                      ShapedType::isDynamic(srcType.getDimSize(dim)))) {
      checkSrc[dim] = true;
      require(arith::CmpIPredicate::eq, dimValue(srcDims, dim),
              dimValue(idxDims, 0));
    }
    if (fits)
      cf::AssertOp::create(
          rewriter, loc, fits,
          (name + ": index, src and base sizes do not match").str());
    Value size = dimValue(baseDims, dim);
    assertIndicesInRange(rewriter, loc, index, size, name);

    // The loops update their result in place: a splat base (the zeros of
    // an embedding's backward, a constant or a full) becomes a fill here;
    // a base computed by another op is updated in place (bufferization
    // copies it where it is still read later); a function's argument, or a
    // view of one, is copied first (as tgc-to-linalg's write_out reads
    // are), since bufferization takes arguments as writable.
    Value outside = outsideFusionGroup(op.getBase());
    Operation *def = outside.getDefiningOp();
    // Through views of either dialect (a tgc.reshape of the argument may
    // be in a fusion group of its own, or already a tensor.collapse_shape:
    // x.reshape(-1).scatter_add(...) then added into the caller's x).
    // A view in a fusion group of its own is followed into the group.
    Value origin = outside;
    while (Operation *view = origin.getDefiningOp()) {
      if (auto group = dyn_cast<FusionGroupOp>(view)) {
        Operation *yield = group.getBody().front().getTerminator();
        origin = yield->getOperand(cast<OpResult>(origin).getResultNumber());
        continue;
      }
      if (!isa<ReshapeOp, PermuteOp, ExpandOp, SliceOp, SqueezeOp, UnsqueezeOp,
               tensor::CollapseShapeOp, tensor::ExpandShapeOp,
               tensor::ExtractSliceOp, tensor::CastOp, tensor::ReshapeOp>(view))
        break;
      origin = outsideFusionGroup(view->getOperand(0));
    }
    bool ofArgument = isa<BlockArgument>(origin);
    TypedAttr splat;
    if (auto full = dyn_cast_or_null<FullOp>(def))
      splat = full.getValue();
    DenseElementsAttr dense;
    if (def && matchPattern(outside, m_Constant(&dense)) && dense.isSplat())
      splat = dense.getSplatValue<TypedAttr>();
    if (splat)
      base = createFilled(rewriter, loc, baseType, baseDims,
                          arith::ConstantOp::create(rewriter, loc, splat));
    else if (!def || ofArgument)
      base = bufferization::AllocTensorOp::create(rewriter, loc, baseType,
                                                  /*dynamicSizes=*/ValueRange{},
                                                  /*copy=*/base);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(rank, c0), steps(rank, c1), ubs;
    for (int64_t d = 0; d < rank; ++d)
      ubs.push_back(dimValue(domain, d));
    bool isFloat = isa<FloatType>(element);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{base},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange acc) -> scf::ValueVector {
          SmallVector<Value> idxAt = sliceForm ? SmallVector<Value>{ivs[dim]}
                                               : SmallVector<Value>(ivs);
          Value target =
              toIndex(b, l, tensor::ExtractOp::create(b, l, index, idxAt));
          Value ok = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, target,
                                    c0),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, target,
                                    size));
          auto andLess = [&](Value i, Value n) {
            ok = arith::AndIOp::create(
                b, l, ok,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, n));
          };
          for (int64_t d = 0; d < rank; ++d) {
            if (checkBase[d])
              andLess(ivs[d], indexValue(b, l, baseDims[d]));
            if (checkSrc[d])
              andLess(ivs[d], indexValue(b, l, srcDims[d]));
          }
          SmallVector<Value> outAt(ivs);
          outAt[dim] = target;
          auto update = scf::IfOp::create(
              b, l, ok,
              [&](OpBuilder &tb, Location tl) {
                Value v = tensor::ExtractOp::create(tb, tl, src, ivs);
                Value old = tensor::ExtractOp::create(tb, tl, acc[0], outAt);
                Value sum =
                    isFloat ? arith::AddFOp::create(tb, tl, old, v).getResult()
                            : arith::AddIOp::create(tb, tl, old, v).getResult();
                scf::YieldOp::create(
                    tb, tl,
                    tensor::InsertOp::create(tb, tl, sum, acc[0], outAt)
                        .getResult());
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, acc[0]);
              });
          return {update.getResult(0)};
        });
    for (auto [d, loop] : llvm::enumerate(nest.loops))
      loop->setAttr(static_cast<int64_t>(d) < dim ? kParallelLoopAttrName
                                                  : kAtomicAddLoopAttrName,
                    rewriter.getUnitAttr());
    rewriter.replaceOp(op, nest.results[0]);
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcIndexingToLinalgPatterns(RewritePatternSet &patterns,
                                                    bool checksInKernels) {
  patterns.add<GatherLowering, IndexSelectLowering, EmbeddingLowering>(
      patterns.getContext(), checksInKernels);
  patterns.add<ScatterAddLowering>(patterns.getContext());
}
