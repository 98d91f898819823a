//===- Random.cpp - tgc to linalg: philox_uniform -------------------------===//
//
// tgc.philox_uniform is an elementwise linalg.generic: each element's
// Philox4x32-10 word computed from its row-major position with arith ops
// (32-bit multiplies with their high halves, xors and adds), so that it
// fuses into its consumers (a dropout's mask and scale) on every device.
// The seed is the generic's rank-0 input: kernels read it from memory, the
// host never does.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Random123's and PyTorch's Philox4x32 constants.
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

Value i32Const(OpBuilder &b, Location loc, uint32_t v) {
  return arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(v)));
}

/// The first word of Philox4x32-10 of `counter` under `key` (i32 values).
Value philoxFirstWord(OpBuilder &b, Location loc, std::array<Value, 4> c,
                      std::array<Value, 2> k) {
  Value m0 = i32Const(b, loc, kMul0), m1 = i32Const(b, loc, kMul1);
  Value w0 = i32Const(b, loc, kWeyl0), w1 = i32Const(b, loc, kWeyl1);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] = arith::AddIOp::create(b, loc, k[0], w0);
      k[1] = arith::AddIOp::create(b, loc, k[1], w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c[2]);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c[1]), k[0]);
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c[3]), k[1]);
    c = {n0, p1.getLow(), n2, p0.getLow()};
  }
  return c[0];
}

/// The low and high 32-bit halves of an i64.
std::array<Value, 2> halves(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  Value hi = arith::ShRUIOp::create(
      b, loc, v,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32)).getResult());
  return {arith::TruncIOp::create(b, loc, i32, v),
          arith::TruncIOp::create(b, loc, i32, hi)};
}

struct PhiloxUniformLowering : OpConversionPattern<PhiloxUniformOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PhiloxUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> dims;
    auto dynamic = adaptor.getDynamicSizes().begin();
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(type.isDynamicDim(d) ? OpFoldResult(*dynamic++)
                                          : OpFoldResult(rewriter.getIndexAttr(
                                                type.getDimSize(d))));
    Value init = createEmpty(rewriter, loc, type, dims);
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, {}, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    uint64_t stream = op.getStream();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, adaptor.getSeed(), init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          // The row-major position, as an i64.
          Value linear = arith::ConstantIndexOp::create(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            Value size = getValueOrCreateConstantIndexOp(b, l, dims[d]);
            linear = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, linear, size),
                linalg::IndexOp::create(b, l, d));
          }
          Value position =
              arith::IndexCastUIOp::create(b, l, b.getI64Type(), linear);
          auto [c0, c1] = halves(b, l, position);
          auto [k0, k1] = halves(b, l, args[0]);
          Value word = philoxFirstWord(
              b, l,
              {c0, c1, i32Const(b, l, static_cast<uint32_t>(stream)),
               i32Const(b, l, static_cast<uint32_t>(stream >> 32))},
              {k0, k1});
          // 24 random bits, exact in f32: (w >> 8) * 2^-24 in [0, 1).
          Value bits = arith::ShRUIOp::create(b, l, word, i32Const(b, l, 8));
          Value f = arith::UIToFPOp::create(b, l, b.getF32Type(), bits);
          f = arith::MulFOp::create(
              b, l, f,
              arith::ConstantOp::create(b, l,
                                        b.getF32FloatAttr(1.0f / 16777216.0f)));
          Type element = type.getElementType();
          if (element != f.getType())
            f = convertScalar(b, l, f, element);
          linalg::YieldOp::create(b, l, f);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcRandomToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<PhiloxUniformLowering>(patterns.getContext());
}
