//===- Utils.cpp - shared helpers of the tgc-to-linalg patterns -----------===//

#include "Utils.h"

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Dialect/Tgc/IR/ShapeRules.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::tgc;

SmallVector<OpFoldResult> mlir::tgc::getDims(OpBuilder &b, Location loc,
                                             Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

Value mlir::tgc::createEmpty(OpBuilder &b, Location loc,
                             RankedTensorType type,
                             ArrayRef<OpFoldResult> dims) {
  SmallVector<Value> dynamic;
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, dims[i]));
  return tensor::EmptyOp::create(b, loc, type, dynamic);
}

Type mlir::tgc::getOpmathType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value mlir::tgc::convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth() ||
        (fromFloat.isF16() && toFloat.isBF16()) ||
        (fromFloat.isBF16() && toFloat.isF16())) {
      // f16 <-> bf16 goes through f32 (neither holds the other).
      if (fromFloat.getWidth() == toFloat.getWidth()) {
        Value f32 = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
        return arith::TruncFOp::create(b, loc, to, f32);
      }
      return arith::ExtFOp::create(b, loc, to, v);
    }
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (to.isInteger(1)) {
    // x != 0 (NaN != 0 is true, as in PyTorch).
    if (fromFloat) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   zero);
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (from.isInteger(1)) {
    if (toFloat)
      return arith::UIToFPOp::create(b, loc, to, v);
    return arith::ExtUIOp::create(b, loc, to, v);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, v);
  if (toFloat)
    return arith::SIToFPOp::create(b, loc, to, v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
}

Value mlir::tgc::createScalarConstant(OpBuilder &b, Location loc, Type type,
                                      double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value mlir::tgc::buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    ValueRange operands, Type computeType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  SmallVector<OpFoldResult> dims(rank, OpFoldResult());
  for (Value operand : operands) {
    auto type = cast<RankedTensorType>(operand.getType());
    int64_t offset = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t size = type.getDimSize(d);
      if (size == 1 && resultType.getDimSize(offset + d) != 1) {
        exprs.push_back(getAffineConstantExpr(0, ctx));
        continue;
      }
      exprs.push_back(getAffineDimExpr(offset + d, ctx));
      if (!dims[offset + d] && (ShapedType::isDynamic(size) || size != 1 ||
                                resultType.getDimSize(offset + d) == 1)) {
        if (ShapedType::isDynamic(size))
          dims[offset + d] =
              tensor::DimOp::create(b, loc, operand, d).getResult();
        else
          dims[offset + d] = b.getIndexAttr(size);
      }
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!dims[d])
      dims[d] = b.getIndexAttr(resultType.isDynamicDim(d)
                                   ? 1
                                   : resultType.getDimSize(d));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = createEmpty(b, loc, resultType, dims);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type resultElement = resultType.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, operands, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> scalars;
        for (Value a : args.drop_back())
          scalars.push_back(computeType ? convertScalar(nb, nloc, a,
                                                        computeType)
                                        : a);
        Value r = body(nb, nloc, scalars);
        linalg::YieldOp::create(nb, nloc,
                                convertScalar(nb, nloc, r, resultElement));
      });
  return generic.getResult(0);
}

Value mlir::tgc::buildAllOf(
    OpBuilder &b, Location loc, Value tensor,
    function_ref<Value(OpBuilder &, Location, Value)> predicate) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t rank = type.getRank();
  auto accType = RankedTensorType::get({}, b.getI1Type());
  Value init = tensor::EmptyOp::create(b, loc, accType, ValueRange{});
  Value trueValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  init = linalg::FillOp::create(b, loc, trueValue, init).getResult(0);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, ArrayRef<AffineExpr>{}, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, accType, tensor, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value holds = predicate(nb, nloc, args[0]);
        linalg::YieldOp::create(
            nb, nloc, arith::AndIOp::create(nb, nloc, args[1], holds)
                          .getResult());
      });
  return tensor::ExtractOp::create(b, loc, generic.getResult(0), ValueRange{});
}

Value mlir::tgc::buildNumElements(OpBuilder &b, Location loc,
                                  ArrayRef<OpFoldResult> dims) {
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (OpFoldResult d : dims)
    count = arith::MulIOp::create(b, loc, count,
                                  getValueOrCreateConstantIndexOp(b, loc, d));
  return count;
}

Value mlir::tgc::clampIndex(OpBuilder &b, Location loc, Value idx,
                            Value size) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, size, one);
  Value low = arith::MaxSIOp::create(b, loc, idx, zero);
  return arith::MinSIOp::create(b, loc, low, last);
}

//===----------------------------------------------------------------------===//
// Reductions, contractions and windows (Reduction.cpp, LinearAlgebra.cpp,
// NN.cpp)
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

Value mlir::tgc::castToType(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

Type mlir::tgc::getAccumulatorType(Type elementType) {
  if (isa<FloatType>(elementType) && !elementType.isF64())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Type mlir::tgc::getReductionAccumulatorType(Type elementType) {
  if (elementType.isF32())
    return Float64Type::get(elementType.getContext());
  return getAccumulatorType(elementType);
}

Value mlir::tgc::buildMulAddContraction(
    OpBuilder &b, Location loc, Value lhs, Value rhs, Value init,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators) {
  Type accType = cast<RankedTensorType>(init.getType()).getElementType();
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value x = convertScalar(nb, l, args[0], accType);
               Value y = convertScalar(nb, l, args[1], accType);
               Value r;
               if (isa<FloatType>(accType))
                 r = arith::AddFOp::create(
                     nb, l, args[2], arith::MulFOp::create(nb, l, x, y));
               else
                 r = arith::AddIOp::create(
                     nb, l, args[2], arith::MulIOp::create(nb, l, x, y));
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

Value mlir::tgc::createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                              ArrayRef<OpFoldResult> dims, Value value) {
  Value empty = createEmpty(b, loc, type, dims);
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

Value mlir::tgc::createExtremeValue(OpBuilder &b, Location loc, Type type,
                                    bool lowest) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(type, APFloat::getInf(floatType.getFloatSemantics(),
                                             /*Negative=*/lowest)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value = lowest ? APInt::getSignedMinValue(width)
                       : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value mlir::tgc::indexToScalar(OpBuilder &b, Location loc, Value index,
                               Type type) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return convertScalar(b, loc, i64, type);
}

Value mlir::tgc::convertTensor(OpBuilder &b, Location loc, Value tensor,
                               Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  return buildElementwise(
      b, loc, type.clone(elementType), tensor, nullptr,
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

AffineMap mlir::tgc::getSelectedDimsMap(MLIRContext *ctx,
                                        ArrayRef<bool> select) {
  SmallVector<AffineExpr> exprs;
  for (auto [d, selected] : llvm::enumerate(select))
    if (selected)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(select.size(), 0, exprs, ctx);
}

Value mlir::tgc::getSelectedSizesProduct(OpBuilder &b, Location loc,
                                         Value tensor, ArrayRef<bool> select) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t staticProduct = 1;
  Value product;
  for (auto [d, selected] : llvm::enumerate(select)) {
    if (!selected)
      continue;
    if (!type.isDynamicDim(d)) {
      staticProduct *= type.getDimSize(d);
      continue;
    }
    Value size = tensor::DimOp::create(b, loc, tensor, d);
    product = product ? arith::MulIOp::create(b, loc, product, size) : size;
  }
  Value constant = arith::ConstantIndexOp::create(b, loc, staticProduct);
  if (!product)
    return constant;
  if (staticProduct == 1)
    return product;
  return arith::MulIOp::create(b, loc, product, constant);
}

SmallVector<Value> mlir::tgc::buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<bool> reduced,
    ValueRange keptInputs, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<bool> kept =
      llvm::map_to_vector(reduced, [](bool r) { return !r; });
  SmallVector<int64_t> keptShape;
  SmallVector<OpFoldResult> keptSizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d])
      continue;
    keptShape.push_back(type.getDimSize(d));
    keptSizes.push_back(tensor::getMixedSize(b, loc, input, d));
  }
  AffineMap keptMap = getSelectedDimsMap(ctx, kept);
  SmallVector<Value> outputs;
  SmallVector<Type> resultTypes;
  for (Value init : inits) {
    auto outType = RankedTensorType::get(keptShape, init.getType());
    outputs.push_back(createFilled(b, loc, outType, keptSizes, init));
    resultTypes.push_back(outType);
  }
  SmallVector<Value> inputs{input};
  llvm::append_range(inputs, keptInputs);
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  maps.append(keptInputs.size() + inits.size(), keptMap);
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduced)
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, outputs, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return SmallVector<Value>(generic.getResults());
}

Value mlir::tgc::buildMapOverInput(
    OpBuilder &b, Location loc, Value input, ValueRange extraInputs,
    ArrayRef<AffineMap> extraMaps, Type resultElement,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  auto resultType = type.clone(resultElement);
  Value init = createEmpty(b, loc, resultType, getDims(b, loc, input));
  SmallVector<Value> inputs{input};
  llvm::append_range(inputs, extraInputs);
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  llvm::append_range(maps, extraMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc,
                                convertScalar(nb, nloc, r, resultElement));
      });
  return generic.getResult(0);
}

SmallVector<ReassociationIndices>
mlir::tgc::getUnitDimsReassociation(ArrayRef<bool> unit) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [d, isUnit] : llvm::enumerate(unit)) {
    pending.push_back(d);
    if (!isUnit) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !groups.empty())
    llvm::append_range(groups.back(), pending);
  return groups;
}

Value mlir::tgc::expandUnitDims(OpBuilder &b, Location loc, Value value,
                                ArrayRef<bool> unit) {
  if (llvm::none_of(unit, [](bool u) { return u; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = getDims(b, loc, value);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> outputSizes;
  int64_t source = 0;
  for (bool isUnit : unit) {
    if (isUnit) {
      shape.push_back(1);
      outputSizes.push_back(b.getIndexAttr(1));
      continue;
    }
    shape.push_back(type.getDimSize(source));
    outputSizes.push_back(sizes[source]);
    ++source;
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      getUnitDimsReassociation(unit), outputSizes);
}

Value mlir::tgc::collapseUnitDims(OpBuilder &b, Location loc, Value value,
                                  ArrayRef<bool> unit) {
  if (llvm::none_of(unit, [](bool u) { return u; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (auto [d, isUnit] : llvm::enumerate(unit))
    if (!isUnit)
      shape.push_back(type.getDimSize(d));
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      getUnitDimsReassociation(unit));
}

void mlir::tgc::broadcastLeadingDims(OpBuilder &b, Location loc,
                                     ValueRange operands,
                                     ArrayRef<int64_t> leadingRanks,
                                     SmallVectorImpl<int64_t> &shape,
                                     SmallVectorImpl<OpFoldResult> &sizes) {
  int64_t rank = 0;
  for (int64_t r : leadingRanks)
    rank = std::max(rank, r);
  shape.assign(rank, 1);
  sizes.assign(rank, b.getIndexAttr(1));
  SmallVector<bool> fromDynamic(rank, false);
  for (auto [operand, leadingRank] : llvm::zip(operands, leadingRanks)) {
    auto type = cast<RankedTensorType>(operand.getType());
    int64_t offset = rank - leadingRank;
    for (int64_t d = 0; d < leadingRank; ++d) {
      int64_t size = type.getDimSize(d);
      int64_t &s = shape[offset + d];
      if (size == 1)
        continue;
      if (ShapedType::isDynamic(size)) {
        // `?` against a static n != 1 is n (the guards make it so); the
        // first `?` gives the size otherwise.
        if (s == 1) {
          s = ShapedType::kDynamic;
          sizes[offset + d] =
              tensor::DimOp::create(b, loc, operand, d).getResult();
        }
        continue;
      }
      s = size;
      sizes[offset + d] = b.getIndexAttr(size);
    }
  }
}

SmallVector<AffineExpr>
mlir::tgc::getBroadcastBatchExprs(MLIRContext *ctx, RankedTensorType type,
                                  int64_t leadingRank,
                                  ArrayRef<int64_t> batchShape) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = batchShape.size() - leadingRank;
  for (int64_t d = 0; d < leadingRank; ++d) {
    if (type.getDimSize(d) == 1 && batchShape[offset + d] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(offset + d, ctx));
  }
  return exprs;
}

Value mlir::tgc::createIndexInBounds(OpBuilder &b, Location loc, Value index,
                                     Value extent) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, extent));
}

Value mlir::tgc::buildBroadcastBatchMatmul(OpBuilder &b, Location loc,
                                           Value lhs, Value rhs,
                                           bool transposeRhs, Type accType) {
  MLIRContext *ctx = b.getContext();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t lhsBatch = lhsType.getRank() - 2, rhsBatch = rhsType.getRank() - 2;
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  broadcastLeadingDims(b, loc, {lhs, rhs}, {lhsBatch, rhsBatch}, shape, sizes);
  int64_t batch = shape.size();
  // Loops: batch..., n, m, k.
  AffineExpr n = getAffineDimExpr(batch, ctx);
  AffineExpr m = getAffineDimExpr(batch + 1, ctx);
  AffineExpr k = getAffineDimExpr(batch + 2, ctx);
  SmallVector<AffineExpr> lhsExprs =
      getBroadcastBatchExprs(ctx, lhsType, lhsBatch, shape);
  lhsExprs.append({n, k});
  SmallVector<AffineExpr> rhsExprs =
      getBroadcastBatchExprs(ctx, rhsType, rhsBatch, shape);
  if (transposeRhs)
    rhsExprs.append({m, k});
  else
    rhsExprs.append({k, m});
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < batch; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  outExprs.append({n, m});
  int64_t loops = batch + 3;
  SmallVector<AffineMap> maps{AffineMap::get(loops, 0, lhsExprs, ctx),
                              AffineMap::get(loops, 0, rhsExprs, ctx),
                              AffineMap::get(loops, 0, outExprs, ctx)};

  shape.push_back(lhsType.getDimSize(lhsType.getRank() - 2));
  sizes.push_back(tensor::getMixedSize(b, loc, lhs, lhsType.getRank() - 2));
  int64_t mDim = transposeRhs ? rhsType.getRank() - 2 : rhsType.getRank() - 1;
  shape.push_back(rhsType.getDimSize(mDim));
  sizes.push_back(tensor::getMixedSize(b, loc, rhs, mDim));
  return buildMulAddReduction(b, loc, lhs, rhs, shape, sizes, accType, maps);
}

Value mlir::tgc::buildMulAddReduction(OpBuilder &b, Location loc, Value lhs,
                                      Value rhs, ArrayRef<int64_t> shape,
                                      ArrayRef<OpFoldResult> sizes,
                                      Type accType, ArrayRef<AffineMap> maps) {
  auto outType = RankedTensorType::get(shape, accType);
  Value zero = createScalarConstant(b, loc, accType, 0.0);
  Value init = createFilled(b, loc, outType, sizes, zero);
  SmallVector<utils::IteratorType> iterators(maps.front().getNumDims(),
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  return buildMulAddContraction(b, loc, lhs, rhs, init, maps, iterators);
}

void mlir::tgc::assertDynamicSizesNonZero(OpBuilder &b, Location loc,
                                          Value tensor, ArrayRef<bool> select,
                                          StringRef message) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value ok;
  Value zero;
  for (auto [d, selected] : llvm::enumerate(select)) {
    if (!selected || !type.isDynamicDim(d))
      continue;
    if (!zero)
      zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value size = tensor::DimOp::create(b, loc, tensor, d);
    Value nonZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, size, zero);
    ok = ok ? arith::AndIOp::create(b, loc, ok, nonZero) : nonZero;
  }
  if (ok)
    cf::AssertOp::create(b, loc, ok, message);
}

//===----------------------------------------------------------------------===//
// Windows (convolution and pooling)
//===----------------------------------------------------------------------===//

FailureOr<WindowSize> mlir::tgc::getWindowSize(OpBuilder &b, Location loc,
                                    OpFoldResult input, int64_t kernel,
                                    int64_t stride, int64_t padding,
                                    int64_t dilation, bool ceilMode,
                                    StringRef opName) {
  int64_t span = dilation * (kernel - 1) + 1;
  if (std::optional<int64_t> staticInput = getConstantIntValue(input)) {
    std::string error;
    std::optional<int64_t> out = windowOutputSize(
        *staticInput, kernel, stride, padding, dilation, ceilMode, error);
    if (!out)
      return failure();
    int64_t needed = (*out - 1) * stride + span;
    int64_t extra = std::max<int64_t>(0, needed - (*staticInput + 2 * padding));
    return WindowSize{b.getIndexAttr(*out), b.getIndexAttr(padding + extra)};
  }
  Value size = cast<Value>(input);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value numerator = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, size, constant(2 * padding)),
      constant(span));
  // In ceil mode a window may be wider than the padded input (one output
  // when it starts inside it): windowOutputSize's rule.
  if (ceilMode)
    numerator = arith::AddIOp::create(b, loc, numerator, constant(stride - 1));
  Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                     numerator, constant(0));
  cf::AssertOp::create(
      b, loc, fits,
      (opName + ": the window does not fit the padded input").str());
  Value out = arith::AddIOp::create(
      b, loc, arith::DivSIOp::create(b, loc, numerator, constant(stride)),
      constant(1));
  if (!ceilMode)
    return WindowSize{out, b.getIndexAttr(padding)};
  // The last window must start inside the input or the left padding.
  Value lastStart = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, out, constant(1)),
      constant(stride));
  Value outside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::sge, lastStart,
      arith::AddIOp::create(b, loc, size, constant(padding)));
  out = arith::SelectOp::create(
      b, loc, outside, arith::SubIOp::create(b, loc, out, constant(1)), out);
  Value needed = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc,
                            arith::SubIOp::create(b, loc, out, constant(1)),
                            constant(stride)),
      constant(span));
  Value extra = arith::MaxSIOp::create(
      b, loc,
      arith::SubIOp::create(
          b, loc, needed,
          arith::AddIOp::create(b, loc, size, constant(2 * padding))),
      constant(0));
  return WindowSize{
      out, arith::AddIOp::create(b, loc, extra, constant(padding)).getResult()};
}

/// `input` [N, C, H, W] padded by `padding` before and `high` after H and W
/// with `value`; unchanged when there is nothing to pad.
Value mlir::tgc::padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> padding, ArrayRef<OpFoldResult> high,
                 Value value) {
  bool none = padding[0] == 0 && padding[1] == 0 &&
              llvm::all_of(high, [](OpFoldResult h) {
                return isConstantIntValue(h, 0);
              });
  if (none)
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> lowPads{b.getIndexAttr(0), b.getIndexAttr(0),
                                    b.getIndexAttr(padding[0]),
                                    b.getIndexAttr(padding[1])};
  SmallVector<OpFoldResult> highPads{b.getIndexAttr(0), b.getIndexAttr(0),
                                     high[0], high[1]};
  SmallVector<int64_t> shape(type.getShape());
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> h = getConstantIntValue(high[i]);
    if (type.isDynamicDim(2 + i) || !h)
      shape[2 + i] = ShapedType::kDynamic;
    else
      shape[2 + i] += padding[i] + *h;
  }
  return tensor::PadOp::create(b, loc, type.clone(shape), input, lowPads,
                               highPads, value);
}

/// Static shape of an OpFoldResult size.
Value mlir::tgc::outsideFusionGroup(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  auto group =
      arg ? dyn_cast_or_null<FusionGroupOp>(arg.getOwner()->getParentOp())
          : FusionGroupOp();
  return group ? group.getInputs()[arg.getArgNumber()] : v;
}

int64_t mlir::tgc::staticSize(OpFoldResult size) {
  return getConstantIntValue(size).value_or(ShapedType::kDynamic);
}

Value mlir::tgc::readWindowElement(OpBuilder &b, Location loc, Value input,
                                   Value n, Value c, ArrayRef<Value> out,
                                   ArrayRef<Value> k, ArrayRef<int64_t> stride,
                                   ArrayRef<int64_t> dilation,
                                   ArrayRef<int64_t> padding,
                                   ArrayRef<Value> extents, Value outside,
                                   bool checkUnpadded) {
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = constant(0), inside;
  SmallVector<Value> at{n, c};
  for (int i = 0; i < 2; ++i) {
    Value pos = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, out[i], constant(stride[i])),
        arith::MulIOp::create(b, loc, k[i], constant(dilation[i])));
    if (padding[i] == 0 && !checkUnpadded) {
      at.push_back(pos);
      continue;
    }
    pos = arith::SubIOp::create(b, loc, pos, constant(padding[i]));
    Value ok = createIndexInBounds(b, loc, pos, extents[i]);
    inside =
        inside ? arith::AndIOp::create(b, loc, inside, ok).getResult() : ok;
    at.push_back(arith::SelectOp::create(b, loc, ok, pos, zero));
  }
  Value v = tensor::ExtractOp::create(b, loc, input, at);
  return inside ? arith::SelectOp::create(b, loc, inside, v, outside).getResult()
                : v;
}

Value mlir::tgc::groupChannel(OpBuilder &b, Location loc, Value index,
                              int64_t perGroup, int64_t otherPerGroup,
                              Value within, int64_t groups) {
  if (groups == 1)
    return within;
  Value group = arith::DivUIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, perGroup));
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, group, arith::ConstantIndexOp::create(b, loc, otherPerGroup)),
      within);
}
