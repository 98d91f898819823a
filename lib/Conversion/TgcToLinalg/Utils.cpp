//===- Utils.cpp - shared helpers of the tgc-to-linalg patterns -----------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
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
