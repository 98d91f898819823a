//===- Elementwise.cpp - tgc to linalg: elementwise ops -------------------===//
//
// Unary and broadcasting binary math, comparisons, where, convert, clamp and
// gelu, each a linalg.generic built by buildElementwise (Utils.h): f16/bf16
// computed in f32 and rounded once. The scalar bodies follow PyTorch's CPU
// kernels (ATen/native/cpu/{Unary,Binary}OpsKernel.cpp, Activation.cpp)
// where IEEE arithmetic leaves a choice: signed zeros of relu and clamp,
// Python-style remainder and floor division, integer pow with negative
// exponents.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tgc;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return createScalarConstant(b, loc, type, value);
}

Value cmpf(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value x,
           Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}

Value cmpi(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
           Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value select(OpBuilder &b, Location loc, Value c, Value t, Value f) {
  return arith::SelectOp::create(b, loc, c, t, f);
}

/// 1 / (1 + e^-x), as PyTorch's sigmoid kernel.
Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value denom = arith::AddFOp::create(b, loc, constant(b, loc, t, 1.0), e);
  return arith::DivFOp::create(b, loc, constant(b, loc, t, 1.0), denom);
}

/// Integer division that is defined for every divisor: a zero divisor (the
/// caller asserts there is none) divides by 1, and -1 negates with
/// wrap-around (INT_MIN / -1 is INT_MIN, as two's complement gives; a
/// hardware sdiv would trap). Returns the truncated quotient and remainder.
std::pair<Value, Value> safeDivRem(OpBuilder &b, Location loc, Value x,
                                   Value y) {
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0), one = constant(b, loc, t, 1);
  Value minusOne = constant(b, loc, t, -1);
  Value isZero = cmpi(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value isMinusOne = cmpi(b, loc, arith::CmpIPredicate::eq, y, minusOne);
  Value unsafe = arith::OrIOp::create(b, loc, isZero, isMinusOne);
  Value divisor = select(b, loc, unsafe, one, y);
  Value q = arith::DivSIOp::create(b, loc, x, divisor);
  Value r = arith::RemSIOp::create(b, loc, x, divisor);
  Value negated = arith::SubIOp::create(b, loc, zero, x);
  q = select(b, loc, isMinusOne, negated, q);
  r = select(b, loc, isMinusOne, zero, r);
  return {q, r};
}

/// PyTorch's remainder: the sign of the divisor. `r` is the truncated
/// remainder (fmod for floats).
Value pythonRemainder(OpBuilder &b, Location loc, Value r, Value y) {
  Type t = r.getType();
  Value zero = constant(b, loc, t, 0);
  Value nonZero, rNeg, yNeg, sum;
  if (isa<FloatType>(t)) {
    nonZero = cmpf(b, loc, arith::CmpFPredicate::UNE, r, zero);
    rNeg = cmpf(b, loc, arith::CmpFPredicate::OLT, r, zero);
    yNeg = cmpf(b, loc, arith::CmpFPredicate::OLT, y, zero);
    sum = arith::AddFOp::create(b, loc, r, y);
  } else {
    nonZero = cmpi(b, loc, arith::CmpIPredicate::ne, r, zero);
    rNeg = cmpi(b, loc, arith::CmpIPredicate::slt, r, zero);
    yNeg = cmpi(b, loc, arith::CmpIPredicate::slt, y, zero);
    sum = arith::AddIOp::create(b, loc, r, y);
  }
  Value signsDiffer = arith::XOrIOp::create(b, loc, rNeg, yNeg);
  Value adjust = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
  return select(b, loc, adjust, sum, r);
}

/// PyTorch's div_floor_floating (Python's float floor division): exact
/// where floor(x / y) would round (1 // 0.1 is 9, not 10).
Value floatFloorDiv(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0.0), one = constant(b, loc, t, 1.0);
  Value half = constant(b, loc, t, 0.5);
  Value mod = arith::RemFOp::create(b, loc, x, y);
  Value div =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, x, mod), y);
  Value modNonZero = cmpf(b, loc, arith::CmpFPredicate::UNE, mod, zero);
  Value yNeg = cmpf(b, loc, arith::CmpFPredicate::OLT, y, zero);
  Value modNeg = cmpf(b, loc, arith::CmpFPredicate::OLT, mod, zero);
  Value adjust = arith::AndIOp::create(
      b, loc, modNonZero, arith::XOrIOp::create(b, loc, yNeg, modNeg));
  div = select(b, loc, adjust, arith::SubFOp::create(b, loc, div, one), div);
  Value floorDiv = math::FloorOp::create(b, loc, div);
  Value roundUp = cmpf(b, loc, arith::CmpFPredicate::OGT,
                       arith::SubFOp::create(b, loc, div, floorDiv), half);
  floorDiv = select(b, loc, roundUp,
                    arith::AddFOp::create(b, loc, floorDiv, one), floorDiv);
  Value basic = arith::DivFOp::create(b, loc, x, y);
  // A zero quotient takes the sign of x / y. That quotient is finite here
  // (div == 0 means |x| < |y|), so basic * 0 is copysign(0, basic), without
  // math.copysign, which the CPU pipeline's math lowering cannot legalize.
  Value divIsZero = cmpf(b, loc, arith::CmpFPredicate::OEQ, div, zero);
  floorDiv = select(b, loc, divIsZero,
                    arith::MulFOp::create(b, loc, basic, zero), floorDiv);
  Value yIsZero = cmpf(b, loc, arith::CmpFPredicate::OEQ, y, zero);
  return select(b, loc, yIsZero, basic, floorDiv);
}

/// PyTorch's integer pow: a negative exponent gives 0 except for bases 1
/// and -1 (and math.ipowi only ever sees non-negative exponents).
Value integerPow(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0), one = constant(b, loc, t, 1);
  Value minusOne = constant(b, loc, t, -1);
  Value yNeg = cmpi(b, loc, arith::CmpIPredicate::slt, y, zero);
  Value exponent = arith::MaxSIOp::create(b, loc, y, zero);
  Value positive = math::IPowIOp::create(b, loc, x, exponent);
  Value odd = cmpi(b, loc, arith::CmpIPredicate::ne,
                   arith::AndIOp::create(b, loc, y, one), zero);
  Value xIsOne = cmpi(b, loc, arith::CmpIPredicate::eq, x, one);
  Value xIsMinusOne = cmpi(b, loc, arith::CmpIPredicate::eq, x, minusOne);
  Value negative = select(
      b, loc, xIsOne, one,
      select(b, loc, xIsMinusOne, select(b, loc, odd, minusOne, one), zero));
  return select(b, loc, yNeg, negative, positive);
}

//===----------------------------------------------------------------------===//
// Scalar bodies, one per op
//===----------------------------------------------------------------------===//

/// The scalar computation of an elementwise op. `args` are the operands'
/// scalars in the op's compute type (getOpmathType of the first operand's
/// element type, or the raw scalars for where and convert).
template <typename OpTy>
Value scalarBody(OpTy op, OpBuilder &b, Location loc, ValueRange args);

#define TGC_SCALAR_BODY(OpTy)                                                  \
  template <>                                                                  \
  Value scalarBody<OpTy>([[maybe_unused]] OpTy op, OpBuilder & b,              \
                         Location loc, ValueRange args)

/// Float unary ops that are one math op.
#define TGC_MATH_UNARY(OpTy, MathOpTy)                                         \
  TGC_SCALAR_BODY(OpTy) { return MathOpTy::create(b, loc, args[0]); }

TGC_MATH_UNARY(ExpOp, math::ExpOp)
TGC_MATH_UNARY(Exp2Op, math::Exp2Op)
TGC_MATH_UNARY(Expm1Op, math::ExpM1Op)
TGC_MATH_UNARY(LogOp, math::LogOp)
TGC_MATH_UNARY(Log2Op, math::Log2Op)
TGC_MATH_UNARY(Log1pOp, math::Log1pOp)
TGC_MATH_UNARY(SqrtOp, math::SqrtOp)
TGC_MATH_UNARY(RsqrtOp, math::RsqrtOp)
TGC_MATH_UNARY(SinOp, math::SinOp)
TGC_MATH_UNARY(CosOp, math::CosOp)
TGC_MATH_UNARY(TanhOp, math::TanhOp)
TGC_MATH_UNARY(ErfOp, math::ErfOp)
TGC_MATH_UNARY(FloorOp, math::FloorOp)
TGC_MATH_UNARY(CeilOp, math::CeilOp)
TGC_MATH_UNARY(RoundOp, math::RoundEvenOp)
#undef TGC_MATH_UNARY

TGC_SCALAR_BODY(NegOp) {
  Value x = args[0];
  if (isFloat(x))
    return arith::NegFOp::create(b, loc, x);
  return arith::SubIOp::create(b, loc, constant(b, loc, x.getType(), 0), x);
}

TGC_SCALAR_BODY(AbsOp) {
  if (isFloat(args[0]))
    return math::AbsFOp::create(b, loc, args[0]);
  // `x < 0 ? 0 - x : x` (wraps for the minimum like PyTorch); math.absi has
  // no libm lowering.
  Value x = args[0];
  Value zero = constant(b, loc, x.getType(), 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  Value negated = arith::SubIOp::create(b, loc, zero, x);
  return arith::SelectOp::create(b, loc, negative, negated, x);
}

// PyTorch's relu is clamp_min(x, 0): `x < 0 ? 0 : x`, so NaN stays NaN and
// -0.0 stays -0.0 (arith.maximumf would give +0.0).
TGC_SCALAR_BODY(ReluOp) {
  Value x = args[0];
  Value zero = constant(b, loc, x.getType(), 0);
  Value negative = isFloat(x)
                       ? cmpf(b, loc, arith::CmpFPredicate::OLT, x, zero)
                       : cmpi(b, loc, arith::CmpIPredicate::slt, x, zero);
  return select(b, loc, negative, zero, x);
}

TGC_SCALAR_BODY(SigmoidOp) { return sigmoid(b, loc, args[0]); }

// x / (1 + e^-x), as PyTorch's silu kernel.
TGC_SCALAR_BODY(SiluOp) {
  Value x = args[0];
  Type t = x.getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value denom = arith::AddFOp::create(b, loc, constant(b, loc, t, 1.0), e);
  return arith::DivFOp::create(b, loc, x, denom);
}

TGC_SCALAR_BODY(ReciprocalOp) {
  return arith::DivFOp::create(b, loc, constant(b, loc, args[0].getType(), 1.0),
                               args[0]);
}

TGC_SCALAR_BODY(LogicalNotOp) {
  return arith::XOrIOp::create(
      b, loc, args[0], arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
}

// The operation order of PyTorch's GeluKernelImpl.
TGC_SCALAR_BODY(GeluOp) {
  Value x = args[0];
  Type t = x.getType();
  auto mul = [&](Value p, Value q) -> Value {
    return arith::MulFOp::create(b, loc, p, q);
  };
  auto add = [&](Value p, Value q) -> Value {
    return arith::AddFOp::create(b, loc, p, q);
  };
  Value one = constant(b, loc, t, 1.0), half = constant(b, loc, t, 0.5);
  if (op.getApproximate() == GeluApproximation::none) {
    // x * 0.5 * (1 + erf(x * M_SQRT1_2))
    Value erf = math::ErfOp::create(
        b, loc, mul(x, constant(b, loc, t, 0.70710678118654752440)));
    return mul(mul(x, half), add(one, erf));
  }
  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
  double beta = M_SQRT2 * M_2_SQRTPI * 0.5;
  Value cube = mul(mul(x, x), x);
  Value inner = mul(constant(b, loc, t, beta),
                    add(x, mul(constant(b, loc, t, 0.044715), cube)));
  return mul(mul(half, x), add(one, math::TanhOp::create(b, loc, inner)));
}

#define TGC_ARITH_BINARY(OpTy, FloatOpTy, IntOpTy)                             \
  TGC_SCALAR_BODY(OpTy) {                                                      \
    if (isFloat(args[0]))                                                      \
      return FloatOpTy::create(b, loc, args[0], args[1]);                      \
    return IntOpTy::create(b, loc, args[0], args[1]);                          \
  }

TGC_ARITH_BINARY(AddOp, arith::AddFOp, arith::AddIOp)
TGC_ARITH_BINARY(SubOp, arith::SubFOp, arith::SubIOp)
TGC_ARITH_BINARY(MulOp, arith::MulFOp, arith::MulIOp)
// NaN-propagating (torch.maximum / minimum), unlike maxnumf.
TGC_ARITH_BINARY(MaximumOp, arith::MaximumFOp, arith::MaxSIOp)
TGC_ARITH_BINARY(MinimumOp, arith::MinimumFOp, arith::MinSIOp)
#undef TGC_ARITH_BINARY

/// The value of `v` when it is a float constant with one value (a scalar
/// exponent, as the tracer makes `torch.pow(x, 3.0)`'s).
static std::optional<double> floatSplat(Value v) {
  DenseElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)) || !dense.isSplat() ||
      !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

TGC_SCALAR_BODY(PowOp) {
  if (!isFloat(args[0]))
    return integerPow(b, loc, args[0], args[1]);
  // PyTorch's kernels for a scalar exponent (pow_tensor_scalar, CPU and
  // CUDA, also for a 0-d CPU tensor): 2, 3 and -2 as products, 0.5 as sqrt,
  // -0.5 as rsqrt, -1 as a reciprocal, 1 as a copy. Their special values
  // follow (sqrt(-0) = -0, sqrt(-inf) = NaN, where powf gives +0 and
  // +inf), and libdevice's powf, a large inline body, is not compiled:
  // GPT-2's tanh-GELU kernel was 2355 PTX lines and 153 ms of ptxas.
  if (std::optional<double> e = floatSplat(outsideFusionGroup(op.getRhs()))) {
    Value x = args[0];
    Type t = x.getType();
    auto mul = [&](Value l, Value r) {
      return arith::MulFOp::create(b, loc, l, r).getResult();
    };
    auto reciprocal = [&](Value d) {
      return arith::DivFOp::create(b, loc, constant(b, loc, t, 1.0), d)
          .getResult();
    };
    if (*e == 1.0)
      return x;
    if (*e == 2.0)
      return mul(x, x);
    if (*e == 3.0)
      return mul(mul(x, x), x);
    if (*e == -2.0)
      return reciprocal(mul(x, x));
    if (*e == -1.0)
      return reciprocal(x);
    if (*e == 0.5)
      return math::SqrtOp::create(b, loc, x);
    if (*e == -0.5)
      return math::RsqrtOp::create(b, loc, x);
  }
  return math::PowFOp::create(b, loc, args[0], args[1]);
}

TGC_SCALAR_BODY(Atan2Op) {
  return math::Atan2Op::create(b, loc, args[0], args[1]);
}

TGC_SCALAR_BODY(LogicalAndOp) {
  return arith::AndIOp::create(b, loc, args[0], args[1]);
}

TGC_SCALAR_BODY(LogicalOrOp) {
  return arith::OrIOp::create(b, loc, args[0], args[1]);
}

TGC_SCALAR_BODY(RemainderOp) {
  Value x = args[0], y = args[1];
  if (isFloat(x))
    return pythonRemainder(b, loc, arith::RemFOp::create(b, loc, x, y), y);
  return pythonRemainder(b, loc, safeDivRem(b, loc, x, y).second, y);
}

TGC_SCALAR_BODY(DivOp) {
  Value x = args[0], y = args[1];
  RoundingMode mode = op.getRounding();
  if (isFloat(x)) {
    switch (mode) {
    case RoundingMode::true_div:
      return arith::DivFOp::create(b, loc, x, y);
    case RoundingMode::trunc:
      return math::TruncOp::create(b, loc, arith::DivFOp::create(b, loc, x, y));
    case RoundingMode::floor:
      return floatFloorDiv(b, loc, x, y);
    }
  }
  // Integers (true division is rejected by the verifier and the pattern).
  auto [q, r] = safeDivRem(b, loc, x, y);
  if (mode == RoundingMode::trunc)
    return q;
  // Floor: one less when the remainder is non-zero and the signs differ.
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0);
  Value signsDiffer = arith::XOrIOp::create(
      b, loc, cmpi(b, loc, arith::CmpIPredicate::slt, x, zero),
      cmpi(b, loc, arith::CmpIPredicate::slt, y, zero));
  Value inexact = cmpi(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value adjust = arith::AndIOp::create(b, loc, signsDiffer, inexact);
  return select(b, loc, adjust,
                arith::SubIOp::create(b, loc, q, constant(b, loc, t, 1)), q);
}

// Ordered float predicates, except ne (NaN != x is true); bools compare
// unsigned (false < true), other integers signed.
TGC_SCALAR_BODY(CmpOp) {
  Value x = args[0], y = args[1];
  CmpPredicate p = op.getPredicate();
  if (isFloat(x)) {
    arith::CmpFPredicate fp;
    switch (p) {
    case CmpPredicate::eq:
      fp = arith::CmpFPredicate::OEQ;
      break;
    case CmpPredicate::ne:
      fp = arith::CmpFPredicate::UNE;
      break;
    case CmpPredicate::lt:
      fp = arith::CmpFPredicate::OLT;
      break;
    case CmpPredicate::le:
      fp = arith::CmpFPredicate::OLE;
      break;
    case CmpPredicate::gt:
      fp = arith::CmpFPredicate::OGT;
      break;
    case CmpPredicate::ge:
      fp = arith::CmpFPredicate::OGE;
      break;
    }
    return cmpf(b, loc, fp, x, y);
  }
  bool isBool = x.getType().isInteger(1);
  arith::CmpIPredicate ip;
  switch (p) {
  case CmpPredicate::eq:
    ip = arith::CmpIPredicate::eq;
    break;
  case CmpPredicate::ne:
    ip = arith::CmpIPredicate::ne;
    break;
  case CmpPredicate::lt:
    ip = isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case CmpPredicate::le:
    ip = isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case CmpPredicate::gt:
    ip = isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case CmpPredicate::ge:
    ip = isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  }
  return cmpi(b, loc, ip, x, y);
}

TGC_SCALAR_BODY(WhereOp) { return select(b, loc, args[0], args[1], args[2]); }

// buildElementwise converts the yielded input scalar to the result element
// type with convertScalar.
TGC_SCALAR_BODY(ConvertOp) { return args[0]; }

#undef TGC_SCALAR_BODY

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Ops whose scalars are passed through unconverted (no arithmetic on them,
/// or operands of different element types).
template <typename OpTy>
constexpr bool kRawScalars = llvm::is_one_of<OpTy, WhereOp, ConvertOp>::value;

/// Integer divisions assert before the loop that no divisor is zero
/// (PyTorch raises ZeroDivisionError); the loop divides safely regardless.
template <typename OpTy>
constexpr bool kChecksIntegerDivisor =
    llvm::is_one_of<OpTy, DivOp, RemainderOp>::value;

/// Asserts that no element of `divisor` is zero, unless the result is empty
/// (`dividend` or `divisor` empty: they broadcast).
void assertNonZeroDivisor(OpBuilder &b, Location loc, Value dividend,
                          Value divisor, StringRef opName) {
  Value noZero =
      buildAllOf(b, loc, divisor, [](OpBuilder &nb, Location nloc, Value v) {
        Value zero = createScalarConstant(nb, nloc, v.getType(), 0);
        return cmpi(nb, nloc, arith::CmpIPredicate::ne, v, zero);
      });
  Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  Value empty =
      cmpi(b, loc, arith::CmpIPredicate::eq,
           buildNumElements(b, loc, getDims(b, loc, dividend)), zeroIndex);
  Value ok = arith::OrIOp::create(b, loc, noZero, empty);
  cf::AssertOp::create(b, loc, ok,
                       (opName + ": integer division by zero").str());
}

template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ValueRange operands = adaptor.getOperands();
    Type element =
        cast<RankedTensorType>(operands[0].getType()).getElementType();
    if constexpr (std::is_same_v<OpTy, DivOp>) {
      if (op.getRounding() == RoundingMode::true_div &&
          !isa<FloatType>(element))
        return rewriter.notifyMatchFailure(op, "integer true division");
    }
    if constexpr (kChecksIntegerDivisor<OpTy>) {
      if (isa<IntegerType>(element))
        assertNonZeroDivisor(rewriter, loc, operands[0], operands[1],
                             op->getName().getStringRef());
    }
    Type computeType = kRawScalars<OpTy> ? Type() : getOpmathType(element);
    Value result =
        buildElementwise(rewriter, loc, resultType, operands, computeType,
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           return scalarBody<OpTy>(op, b, l, args);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A bound of clamp as a constant of the compute type, holding the bound
/// rounded to the element type as PyTorch does (Scalar::to<scalar_t>).
/// Fails where PyTorch raises: a bound that overflows the element type. A
/// NaN bound fails too (PyTorch versions disagree on it).
FailureOr<Value> clampBound(OpBuilder &b, Location loc, APFloat bound,
                            Type element, Type computeType) {
  if (bound.isNaN())
    return failure();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    bool losesInfo = false;
    APFloat::opStatus status =
        bound.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
    if (status & APFloat::opOverflow)
      return failure();
    bool ignored = false;
    bound.convert(cast<FloatType>(computeType).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &ignored);
    return Value(
        arith::ConstantOp::create(b, loc, b.getFloatAttr(computeType, bound)));
  }
  unsigned width = element.getIntOrFloatBitWidth();
  APSInt value(width, /*isUnsigned=*/false);
  bool isExact = false;
  if (bound.convertToInteger(value, APFloat::rmTowardZero, &isExact) !=
          APFloat::opOK ||
      !isExact)
    return failure();
  return Value(
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(computeType, value)));
}

/// `min(max(x, lo), hi)` with PyTorch's comparisons: `x < lo ? lo : x`, then
/// `x > hi ? hi : x`, so NaN stays NaN and equal zeros keep x's sign.
struct ClampLowering : OpConversionPattern<ClampOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ClampOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    Type element = resultType.getElementType();
    Type computeType = getOpmathType(element);
    Value lo, hi;
    if (std::optional<APFloat> min = op.getMin()) {
      FailureOr<Value> v =
          clampBound(rewriter, loc, *min, element, computeType);
      if (failed(v))
        return rewriter.notifyMatchFailure(
            op, "min is NaN or not representable in the element type");
      lo = *v;
    }
    if (std::optional<APFloat> max = op.getMax()) {
      FailureOr<Value> v =
          clampBound(rewriter, loc, *max, element, computeType);
      if (failed(v))
        return rewriter.notifyMatchFailure(
            op, "max is NaN or not representable in the element type");
      hi = *v;
    }
    Value result = buildElementwise(
        rewriter, loc, resultType, adaptor.getInput(), computeType,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0];
          bool fp = isFloat(x);
          if (lo) {
            Value below = fp ? cmpf(b, l, arith::CmpFPredicate::OLT, x, lo)
                             : cmpi(b, l, arith::CmpIPredicate::slt, x, lo);
            x = select(b, l, below, lo, x);
          }
          if (hi) {
            Value above = fp ? cmpf(b, l, arith::CmpFPredicate::OGT, x, hi)
                             : cmpi(b, l, arith::CmpIPredicate::sgt, x, hi);
            x = select(b, l, above, hi, x);
          }
          return x;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<
      // Unary.
      ElementwiseLowering<NegOp>, ElementwiseLowering<AbsOp>,
      ElementwiseLowering<ReluOp>, ElementwiseLowering<ExpOp>,
      ElementwiseLowering<Exp2Op>, ElementwiseLowering<Expm1Op>,
      ElementwiseLowering<LogOp>, ElementwiseLowering<Log2Op>,
      ElementwiseLowering<Log1pOp>, ElementwiseLowering<SqrtOp>,
      ElementwiseLowering<RsqrtOp>, ElementwiseLowering<SinOp>,
      ElementwiseLowering<CosOp>, ElementwiseLowering<TanhOp>,
      ElementwiseLowering<SigmoidOp>, ElementwiseLowering<ErfOp>,
      ElementwiseLowering<SiluOp>, ElementwiseLowering<ReciprocalOp>,
      ElementwiseLowering<FloorOp>, ElementwiseLowering<CeilOp>,
      ElementwiseLowering<RoundOp>, ElementwiseLowering<LogicalNotOp>,
      ElementwiseLowering<GeluOp>,
      // Binary, ternary, conversion.
      ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
      ElementwiseLowering<MulOp>, ElementwiseLowering<PowOp>,
      ElementwiseLowering<MaximumOp>, ElementwiseLowering<MinimumOp>,
      ElementwiseLowering<RemainderOp>, ElementwiseLowering<Atan2Op>,
      ElementwiseLowering<LogicalAndOp>, ElementwiseLowering<LogicalOrOp>,
      ElementwiseLowering<DivOp>, ElementwiseLowering<CmpOp>,
      ElementwiseLowering<WhereOp>, ElementwiseLowering<ConvertOp>,
      ClampLowering>(patterns.getContext());
}
