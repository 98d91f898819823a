//===- Reduction.cpp - tgc to linalg: reductions --------------------------===//
//
// sum, mean, amax, amin, var, norm, argmax, argmin, max, min and topk.
//
// Reductions are linalg.generic ops with reduction iterators over the
// reduced dims, whose outputs have the kept dims; a second elementwise
// generic finishes (divides, takes the root, rounds to the element type)
// and `keepdim` restores the reduced dims as size 1 with
// tensor.expand_shape. Float sums accumulate in f32 (f64 for f64) and round
// once; integer sums wrap.
//
// Semantics that PyTorch defines and that are easy to get wrong:
// * amax/amin/max/min/norm(+-inf) propagate NaN; argmax/argmin/max/min
//   return the first occurrence of the extreme, and the first NaN when there
//   is one (ATen's greater_or_nan / less_or_nan). The combiner compares
//   (value, index) pairs, so it does not depend on the iteration order.
// * Reductions without an identity (amax, amin, argmax, argmin, max, min,
//   norm with p = +-inf) over an empty dimension are an error in PyTorch: a
//   static empty dimension fails to match, a `?` one is checked by
//   cf.assert.
// * var divides by N - correction when N > correction and by 0 otherwise
//   (inf or NaN, as ATen's WelfordOps::project).
// * topk: NaN is larger than every number (first for largest, last for
//   smallest); equal values come in index order. (PyTorch leaves the order
//   of ties unspecified; the values always agree.) The result is always
//   sorted, which `sorted = false` permits.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

SmallVector<bool> getReducedMask(int64_t rank, ArrayRef<int64_t> dims) {
  SmallVector<bool> reduced(rank, false);
  for (int64_t d : dims)
    if (d >= 0 && d < rank)
      reduced[d] = true;
  return reduced;
}

bool hasStaticEmptyReducedDim(RankedTensorType type, ArrayRef<bool> reduced) {
  for (auto [d, r] : llvm::enumerate(reduced))
    if (r && type.getDimSize(d) == 0)
      return true;
  return false;
}

Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

/// The maximum (or minimum) of two scalars, NaN-propagating.
Value extremeOf(OpBuilder &b, Location loc, Value x, Value y, bool largest) {
  if (isa<FloatType>(x.getType())) {
    if (largest)
      return arith::MaximumFOp::create(b, loc, x, y);
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  if (largest)
    return arith::MaxSIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

/// An elementwise map over the kept-dims tensor `kept`, rounded to
/// `element`.
Value mapKept(OpBuilder &b, Location loc, Value kept, Type element,
              function_ref<Value(OpBuilder &, Location, Value)> body) {
  auto type = cast<RankedTensorType>(kept.getType());
  return buildElementwise(b, loc, type.clone(element), kept, nullptr,
                          [&](OpBuilder &nb, Location nloc, ValueRange args) {
                            return body(nb, nloc, args[0]);
                          });
}

/// The keepdim shape (when asked) and the op's declared result type.
Value finishReduction(OpBuilder &b, Location loc, Value kept,
                      ArrayRef<bool> reduced, bool keepdim, Type resultType) {
  if (keepdim)
    kept = expandUnitDims(b, loc, kept, reduced);
  return castToType(b, loc, kept, resultType);
}

/// Sum of `transform(x)` over the reduced dims, in `accType`.
Value buildSum(OpBuilder &b, Location loc, Value input, ArrayRef<bool> reduced,
               Type accType,
               function_ref<Value(OpBuilder &, Location, Value)> transform) {
  Value zero = createScalarConstant(b, loc, accType, 0.0);
  return buildReduction(b, loc, input, reduced, {}, zero,
                        [&](OpBuilder &nb, Location nloc, ValueRange args) {
                          Value x = convertScalar(nb, nloc, args[0], accType);
                          if (transform)
                            x = transform(nb, nloc, x);
                          return SmallVector<Value>{
                              addScalars(nb, nloc, args[1], x)};
                        })[0];
}

/// The mean over the reduced dims, kept dims, in `accType` (float).
Value buildMean(OpBuilder &b, Location loc, Value input, ArrayRef<bool> reduced,
                Type accType) {
  Value sum = buildSum(b, loc, input, reduced, accType, nullptr);
  Value count = indexToScalar(
      b, loc, getSelectedSizesProduct(b, loc, input, reduced), accType);
  return mapKept(b, loc, sum, accType,
                 [&](OpBuilder &nb, Location nloc, Value s) -> Value {
                   return arith::DivFOp::create(nb, nloc, s, count);
                 });
}

/// cf.assert (or failure, for a static zero) that no reduced dim is empty.
LogicalResult checkNonEmpty(PatternRewriter &rewriter, Operation *op,
                            Value input, ArrayRef<bool> reduced) {
  auto type = cast<RankedTensorType>(input.getType());
  if (hasStaticEmptyReducedDim(type, reduced))
    return rewriter.notifyMatchFailure(
        op, "reduction without identity over an empty dimension (an error "
            "in PyTorch)");
  std::string message = (op->getName().getStringRef() +
                         ": cannot reduce over an empty dimension (the "
                         "operation has no identity)")
                            .str();
  assertDynamicSizesNonZero(rewriter, op->getLoc(), input, reduced, message);
  return success();
}

//===----------------------------------------------------------------------===//
// sum, mean, amax, amin, var, norm
//===----------------------------------------------------------------------===//

FailureOr<Value> lowerKept(PatternRewriter &rewriter, SumOp op, Value input,
                           ArrayRef<bool> reduced) {
  Location loc = op.getLoc();
  Type element = getElementTypeOrSelf(input.getType());
  Type accType = getReductionAccumulatorType(element);
  Value sum = buildSum(rewriter, loc, input, reduced, accType, nullptr);
  return convertTensor(rewriter, loc, sum, element);
}

FailureOr<Value> lowerKept(PatternRewriter &rewriter, MeanOp op, Value input,
                           ArrayRef<bool> reduced) {
  Location loc = op.getLoc();
  Type element = getElementTypeOrSelf(input.getType());
  Value mean =
      buildMean(rewriter, loc, input, reduced, getReductionAccumulatorType(element));
  return convertTensor(rewriter, loc, mean, element);
}

template <typename OpTy>
FailureOr<Value> lowerExtreme(PatternRewriter &rewriter, OpTy op, Value input,
                              ArrayRef<bool> reduced, bool largest) {
  Location loc = op.getLoc();
  if (failed(checkNonEmpty(rewriter, op, input, reduced)))
    return failure();
  Type element = getElementTypeOrSelf(input.getType());
  Value init = createExtremeValue(rewriter, loc, element, largest);
  return buildReduction(rewriter, loc, input, reduced, {}, init,
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          return SmallVector<Value>{
                              extremeOf(b, l, args[1], args[0], largest)};
                        })[0];
}

FailureOr<Value> lowerKept(PatternRewriter &rewriter, AmaxOp op, Value input,
                           ArrayRef<bool> reduced) {
  return lowerExtreme(rewriter, op, input, reduced, /*largest=*/true);
}

FailureOr<Value> lowerKept(PatternRewriter &rewriter, AminOp op, Value input,
                           ArrayRef<bool> reduced) {
  return lowerExtreme(rewriter, op, input, reduced, /*largest=*/false);
}

FailureOr<Value> lowerKept(PatternRewriter &rewriter, VarOp op, Value input,
                           ArrayRef<bool> reduced) {
  Location loc = op.getLoc();
  Type element = getElementTypeOrSelf(input.getType());
  Type accType = getReductionAccumulatorType(element);
  Value mean = buildMean(rewriter, loc, input, reduced, accType);
  Value zero = createScalarConstant(rewriter, loc, accType, 0.0);
  Value m2 = buildReduction(rewriter, loc, input, reduced, mean, zero,
                            [&](OpBuilder &b, Location l, ValueRange args) {
                              Value x = convertScalar(b, l, args[0], accType);
                              Value d = arith::SubFOp::create(b, l, x, args[1]);
                              Value sq = arith::MulFOp::create(b, l, d, d);
                              return SmallVector<Value>{
                                  arith::AddFOp::create(b, l, args[2], sq)};
                            })[0];
  // N - correction when positive, else 0 (ATen: inf or NaN).
  Value count = arith::IndexCastOp::create(
      rewriter, loc, rewriter.getI64Type(),
      getSelectedSizesProduct(rewriter, loc, input, reduced));
  Value correction = arith::ConstantOp::create(
      rewriter, loc, rewriter.getI64IntegerAttr(op.getCorrection()));
  Value positive = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sgt, count, correction);
  Value difference = arith::SubIOp::create(rewriter, loc, count, correction);
  Value zeroI64 =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
  Value divisorInt =
      arith::SelectOp::create(rewriter, loc, positive, difference, zeroI64);
  Value divisor = convertScalar(rewriter, loc, divisorInt, accType);
  return mapKept(rewriter, loc, m2, element,
                 [&](OpBuilder &b, Location l, Value s) -> Value {
                   return arith::DivFOp::create(b, l, s, divisor);
                 });
}

FailureOr<Value> lowerKept(PatternRewriter &rewriter, NormOp op, Value input,
                           ArrayRef<bool> reduced) {
  Location loc = op.getLoc();
  Type element = getElementTypeOrSelf(input.getType());
  Type accType = getReductionAccumulatorType(element);
  double p = op.getP().convertToDouble();
  auto abs = [&](OpBuilder &b, Location l, Value x) -> Value {
    return math::AbsFOp::create(b, l, x);
  };
  if (std::isinf(p)) {
    bool largest = p > 0;
    if (failed(checkNonEmpty(rewriter, op, input, reduced)))
      return failure();
    Value init = createExtremeValue(rewriter, loc, accType, largest);
    Value r = buildReduction(
        rewriter, loc, input, reduced, {}, init,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = abs(b, l, convertScalar(b, l, args[0], accType));
          return SmallVector<Value>{extremeOf(b, l, args[1], x, largest)};
        })[0];
    return convertTensor(rewriter, loc, r, element);
  }
  if (p == 0.0) {
    // The number of non-zero elements (NaN counts).
    Value sum =
        buildSum(rewriter, loc, input, reduced, accType,
                 [&](OpBuilder &b, Location l, Value x) -> Value {
                   Value zero = createScalarConstant(b, l, accType, 0);
                   Value one = createScalarConstant(b, l, accType, 1);
                   Value nonZero = arith::CmpFOp::create(
                       b, l, arith::CmpFPredicate::UNE, x, zero);
                   return arith::SelectOp::create(b, l, nonZero, one, zero);
                 });
    return convertTensor(rewriter, loc, sum, element);
  }
  if (p == 1.0) {
    Value sum = buildSum(rewriter, loc, input, reduced, accType, abs);
    return convertTensor(rewriter, loc, sum, element);
  }
  if (p == 2.0) {
    Value sum = buildSum(rewriter, loc, input, reduced, accType,
                         [](OpBuilder &b, Location l, Value x) -> Value {
                           return arith::MulFOp::create(b, l, x, x);
                         });
    return mapKept(rewriter, loc, sum, element,
                   [](OpBuilder &b, Location l, Value s) -> Value {
                     return math::SqrtOp::create(b, l, s);
                   });
  }
  Value sum =
      buildSum(rewriter, loc, input, reduced, accType,
               [&](OpBuilder &b, Location l, Value x) -> Value {
                 Value exponent = createScalarConstant(b, l, accType, p);
                 return math::PowFOp::create(b, l, abs(b, l, x), exponent);
               });
  return mapKept(rewriter, loc, sum, element,
                 [&](OpBuilder &b, Location l, Value s) -> Value {
                   Value inverse = createScalarConstant(b, l, accType, 1.0 / p);
                   return math::PowFOp::create(b, l, s, inverse);
                 });
}

template <typename OpTy> struct ReduceLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<bool> reduced = getReducedMask(type.getRank(), op.getDims());
    FailureOr<Value> kept = lowerKept(rewriter, op, input, reduced);
    if (failed(kept))
      return failure();
    rewriter.replaceOp(op,
                       finishReduction(rewriter, op.getLoc(), *kept, reduced,
                                       op.getKeepdim(), op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// argmax, argmin, max, min
//===----------------------------------------------------------------------===//

/// Values and i64 indices of the maximum (or minimum) along `dim`, kept
/// dims. ATen's greater_or_nan: NaN beats numbers, and equal values (NaN
/// included) go to the lower index.
FailureOr<std::pair<Value, Value>> buildArgExtreme(PatternRewriter &rewriter,
                                                   Operation *op, Value input,
                                                   int64_t dim, bool largest) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  Type i64 = rewriter.getI64Type();
  Value zeroIndex = createScalarConstant(rewriter, loc, i64, 0);
  if (type.getRank() == 0) {
    // A 0-d tensor is its own extreme, at index 0.
    Value indices = createFilled(rewriter, loc, type.clone(i64), {}, zeroIndex);
    return std::make_pair(input, indices);
  }
  SmallVector<bool> reduced = getReducedMask(type.getRank(), {dim});
  if (failed(checkNonEmpty(rewriter, op, input, reduced)))
    return failure();
  Value init = createExtremeValue(rewriter, loc, element, largest);
  SmallVector<Value> results = buildReduction(
      rewriter, loc, input, reduced, {}, ValueRange{init, zeroIndex},
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = args[0], acc = args[1], accIndex = args[2];
        Value i = arith::IndexCastOp::create(
            b, l, b.getI64Type(), linalg::IndexOp::create(b, l, dim));
        Value earlier =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, accIndex);
        Value better, equal;
        if (isa<FloatType>(element)) {
          better = arith::CmpFOp::create(b, l,
                                         largest ? arith::CmpFPredicate::OGT
                                                 : arith::CmpFPredicate::OLT,
                                         x, acc);
          equal =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, x, acc);
        } else {
          better = arith::CmpIOp::create(b, l,
                                         largest ? arith::CmpIPredicate::sgt
                                                 : arith::CmpIPredicate::slt,
                                         x, acc);
          equal = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, acc);
        }
        Value take = arith::OrIOp::create(
            b, l, better, arith::AndIOp::create(b, l, equal, earlier));
        if (isa<FloatType>(element)) {
          Value xNaN =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
          Value accNaN =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, acc, acc);
          Value accNumber = arith::XOrIOp::create(
              b, l, accNaN,
              arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
          Value takeNaN = arith::OrIOp::create(b, l, accNumber, earlier);
          Value takeNumber = arith::AndIOp::create(b, l, accNumber, take);
          take = arith::SelectOp::create(b, l, xNaN, takeNaN, takeNumber);
        }
        return SmallVector<Value>{
            arith::SelectOp::create(b, l, take, x, acc),
            arith::SelectOp::create(b, l, take, i, accIndex)};
      });
  return std::make_pair(results[0], results[1]);
}

/// argmax/argmin (one result: the indices) and max/min along a dim (two
/// results: the values and the indices).
template <typename OpTy> struct ArgExtremeLowering : OpRewritePattern<OpTy> {
  ArgExtremeLowering(MLIRContext *ctx, bool largest)
      : OpRewritePattern<OpTy>(ctx), largest(largest) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value input = op.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t dim = static_cast<int64_t>(op.getDim());
    auto result = buildArgExtreme(rewriter, op, input, dim, largest);
    if (failed(result))
      return failure();
    SmallVector<bool> reduced = getReducedMask(rank, {dim});
    Value extremes[] = {result->first, result->second};
    SmallVector<Value> replacements;
    for (auto [value, type] :
         llvm::zip(ArrayRef<Value>(extremes).take_back(op->getNumResults()),
                   op->getResultTypes()))
      replacements.push_back(finishReduction(rewriter, op.getLoc(), value,
                                             reduced, op.getKeepdim(), type));
    rewriter.replaceOp(op, replacements);
    return success();
  }
  bool largest;
};

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

/// Whether `x` goes before `y` in topk's order: NaN is the largest value.
Value topkBefore(OpBuilder &b, Location loc, Value x, Value y, bool largest) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(
        b, loc, largest ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
        x, y);
  if (largest) {
    // y is a number, and x is NaN or greater.
    Value yNumber =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, y, y);
    Value greater =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT, x, y);
    return arith::AndIOp::create(b, loc, yNumber, greater);
  }
  // x is a number, and y is NaN or greater.
  Value xNumber =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x);
  Value less = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULT, x, y);
  return arith::AndIOp::create(b, loc, xNumber, less);
}

/// For each position of the other dims, the elements along `dim` are
/// inserted in index order into a sorted buffer of k slots (the result
/// row): an element that does not beat the last of k filled slots is
/// skipped; otherwise the slots it beats shift down by one.
struct TopkLowering : OpRewritePattern<TopkOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopkOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    Type i64 = rewriter.getI64Type();
    int64_t k = static_cast<int64_t>(op.getK());
    int64_t dim = static_cast<int64_t>(op.getDim());
    bool largest = op.getLargest();
    int64_t rank = type.getRank();
    Type valuesType = op.getValues().getType();
    Type indicesType = op.getIndices().getType();
    Value zeroIndex = createScalarConstant(rewriter, loc, i64, 0);

    if (rank == 0) {
      // A 0-d tensor is a 1-element vector to PyTorch.
      if (k != 1)
        return rewriter.notifyMatchFailure(op, "k != 1 on a 0-d tensor");
      Value indices =
          createFilled(rewriter, loc, type.clone(i64), {}, zeroIndex);
      rewriter.replaceOp(op, {castToType(rewriter, loc, input, valuesType),
                              castToType(rewriter, loc, indices, indicesType)});
      return success();
    }

    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, input);
    Value size = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[dim]);
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = k;
    SmallVector<OpFoldResult> resultSizes(sizes);
    resultSizes[dim] = rewriter.getIndexAttr(k);
    Value zero = createScalarConstant(rewriter, loc, element, 0.0);
    Value values =
        createFilled(rewriter, loc, RankedTensorType::get(shape, element),
                     resultSizes, zero);
    Value indices =
        createFilled(rewriter, loc, RankedTensorType::get(shape, i64),
                     resultSizes, zeroIndex);
    if (k == 0) {
      rewriter.replaceOp(op, {castToType(rewriter, loc, values, valuesType),
                              castToType(rewriter, loc, indices, indicesType)});
      return success();
    }
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value cK = arith::ConstantIndexOp::create(rewriter, loc, k);
    Value cLast = arith::ConstantIndexOp::create(rewriter, loc, k - 1);
    if (type.isDynamicDim(dim)) {
      Value fits = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::sge, size, cK);
      cf::AssertOp::create(rewriter, loc, fits,
                           "tgc.topk: k is larger than the size of the "
                           "dimension");
    }

    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim)
        continue;
      lbs.push_back(c0);
      ubs.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]));
      steps.push_back(c1);
    }
    auto withDim = [&](ValueRange outer, Value at) {
      SmallVector<Value> indices(outer);
      indices.insert(indices.begin() + dim, at);
      return indices;
    };

    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{values, indices},
        [&](OpBuilder &b, Location l, ValueRange outer,
            ValueRange rows) -> scf::ValueVector {
          auto scan = scf::ForOp::create(
              b, l, c0, size, c1, ValueRange{rows[0], rows[1], c0},
              [&](OpBuilder &b, Location l, Value j, ValueRange state) {
                Value vals = state[0], idxs = state[1], count = state[2];
                Value x =
                    tensor::ExtractOp::create(b, l, input, withDim(outer, j));
                Value jI64 = arith::IndexCastOp::create(b, l, i64, j);
                Value last = tensor::ExtractOp::create(b, l, vals,
                                                       withDim(outer, cLast));
                Value full = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::eq, count, cK);
                Value beatsLast = topkBefore(b, l, x, last, largest);
                Value skip = arith::AndIOp::create(
                    b, l, full,
                    arith::XOrIOp::create(
                        b, l, beatsLast,
                        arith::ConstantOp::create(b, l, b.getBoolAttr(true))));
                auto insert = scf::IfOp::create(
                    b, l, skip,
                    [&](OpBuilder &b, Location l) {
                      scf::YieldOp::create(b, l, ValueRange{vals, idxs});
                    },
                    [&](OpBuilder &b, Location l) {
                      // Slots from the last down to the first: slot `pos`
                      // takes x when x beats it but not the slot before,
                      // the previous slot's element when x beats both.
                      auto shift = scf::ForOp::create(
                          b, l, c0, cK, c1, ValueRange{vals, idxs},
                          [&](OpBuilder &b, Location l, Value q,
                              ValueRange buffers) {
                            Value v = buffers[0], ix = buffers[1];
                            Value pos = arith::SubIOp::create(b, l, cLast, q);
                            Value prev = arith::MaxSIOp::create(
                                b, l, arith::SubIOp::create(b, l, pos, c1), c0);
                            auto beats = [&](Value slot) -> Value {
                              Value empty = arith::CmpIOp::create(
                                  b, l, arith::CmpIPredicate::sge, slot, count);
                              Value y = tensor::ExtractOp::create(
                                  b, l, v, withDim(outer, slot));
                              return arith::OrIOp::create(
                                  b, l, empty, topkBefore(b, l, x, y, largest));
                            };
                            Value beatsPos = beats(pos);
                            Value hasPrev = arith::CmpIOp::create(
                                b, l, arith::CmpIPredicate::sgt, pos, c0);
                            Value beatsPrev = arith::AndIOp::create(
                                b, l, hasPrev, beats(prev));
                            SmallVector<Value> atPos = withDim(outer, pos);
                            SmallVector<Value> atPrev = withDim(outer, prev);
                            Value oldV =
                                tensor::ExtractOp::create(b, l, v, atPos);
                            Value oldI =
                                tensor::ExtractOp::create(b, l, ix, atPos);
                            Value prevV =
                                tensor::ExtractOp::create(b, l, v, atPrev);
                            Value prevI =
                                tensor::ExtractOp::create(b, l, ix, atPrev);
                            Value newV = arith::SelectOp::create(
                                b, l, beatsPos,
                                arith::SelectOp::create(b, l, beatsPrev, prevV,
                                                        x),
                                oldV);
                            Value newI = arith::SelectOp::create(
                                b, l, beatsPos,
                                arith::SelectOp::create(b, l, beatsPrev, prevI,
                                                        jI64),
                                oldI);
                            Value v2 =
                                tensor::InsertOp::create(b, l, newV, v, atPos);
                            Value ix2 =
                                tensor::InsertOp::create(b, l, newI, ix, atPos);
                            scf::YieldOp::create(b, l, ValueRange{v2, ix2});
                          });
                      scf::YieldOp::create(b, l, shift.getResults());
                    });
                Value next = arith::MinSIOp::create(
                    b, l, arith::AddIOp::create(b, l, count, c1), cK);
                scf::YieldOp::create(
                    b, l,
                    ValueRange{insert.getResult(0), insert.getResult(1), next});
              });
          return {scan.getResult(0), scan.getResult(1)};
        });
    // Each row (the loops over the other dims) has its own slots.
    for (scf::ForOp loop : nest.loops)
      loop->setAttr(kParallelLoopAttrName, rewriter.getUnitAttr());
    rewriter.replaceOp(
        op, {castToType(rewriter, loc, nest.results[0], valuesType),
             castToType(rewriter, loc, nest.results[1], indicesType)});
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcReductionToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering<SumOp>, ReduceLowering<MeanOp>,
               ReduceLowering<AmaxOp>, ReduceLowering<AminOp>,
               ReduceLowering<VarOp>, ReduceLowering<NormOp>, TopkLowering>(
      ctx);
  patterns.add<ArgExtremeLowering<ArgmaxOp>>(ctx, /*largest=*/true);
  patterns.add<ArgExtremeLowering<ArgminOp>>(ctx, /*largest=*/false);
  patterns.add<ArgExtremeLowering<MaxOp>>(ctx, /*largest=*/true);
  patterns.add<ArgExtremeLowering<MinOp>>(ctx, /*largest=*/false);
}
