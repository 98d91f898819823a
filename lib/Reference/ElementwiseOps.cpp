//===- ElementwiseOps.cpp - unary, binary, cmp, where, convert, clamp -----===//
//
// Floats are computed in double and rounded to the result type; integers
// in int64 with wrap-around (unsigned arithmetic, then wrapped to the
// element width when stored).
//
//===----------------------------------------------------------------------===//

#include "ReferenceOps.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/Matchers.h"

#include "llvm/ADT/STLForwardCompat.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::ref;
using namespace mlir::tgc::ref::eval;

namespace {
using FloatUnary = std::function<double(double)>;
using IntUnary = std::function<int64_t(int64_t)>;
using FloatBinary = std::function<double(double, double)>;
/// nullopt: integer division by zero.
using IntBinary = std::function<std::optional<int64_t>(int64_t, int64_t)>;

/// How an elementwise op computes, for floats and for integers (bools are
/// integers 0/1). An empty function: the type is not allowed (the verifier
/// rejects it).
struct UnaryFns {
  FloatUnary onFloat;
  IntUnary onInt;
};
struct BinaryFns {
  FloatBinary onFloat;
  IntBinary onInt;
};
} // namespace

static int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
static int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
static int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

static constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

/// Truncating division; INT64_MIN / -1 wraps to INT64_MIN.
static int64_t truncDiv(int64_t a, int64_t b) {
  return (a == kInt64Min && b == -1) ? a : a / b;
}
static int64_t floorDiv(int64_t a, int64_t b) {
  if (a == kInt64Min && b == -1)
    return a;
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}
/// Python's modulus: the sign of the divisor.
static int64_t pyMod(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

/// PyTorch's integer pow: exponentiation by squaring with wrap-around; a
/// negative exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise.
static int64_t intPow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1)
      return 1;
    if (base == -1)
      return (exp % 2) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1) {
    if (e & 1)
      result *= b;
    b *= b;
  }
  return static_cast<int64_t>(result);
}

/// PyTorch's floor division of floats (c10 div_floor_floating).
static double floatFloorDiv(double a, double b) {
  if (b == 0)
    return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0)))
    div -= 1;
  if (div == 0)
    return std::copysign(0.0, a / b);
  double floordiv = std::floor(div);
  if (div - floordiv > 0.5)
    floordiv += 1;
  return floordiv;
}

/// Python's modulus of floats (PyTorch's remainder).
static double floatPyMod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0)))
    mod += b;
  return mod;
}

static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

static std::optional<UnaryFns> unaryFns(Operation *op) {
  using R = std::optional<UnaryFns>;
  auto floatOnly = [](double (*f)(double)) { return UnaryFns{f, nullptr}; };
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([](NegOp) {
        return UnaryFns{[](double x) { return -x; },
                        [](int64_t x) { return wrapSub(0, x); }};
      })
      .Case([](AbsOp) {
        return UnaryFns{[](double x) { return std::fabs(x); },
                        [](int64_t x) { return x < 0 ? wrapSub(0, x) : x; }};
      })
      .Case([](ReluOp) {
        return UnaryFns{
            [](double x) { return std::isnan(x) || x > 0 ? x : 0.0; },
            [](int64_t x) { return std::max<int64_t>(x, 0); }};
      })
      .Case([&](ExpOp) {
        return floatOnly([](double x) { return std::exp(x); });
      })
      .Case([&](Exp2Op) {
        return floatOnly([](double x) { return std::exp2(x); });
      })
      .Case([&](Expm1Op) {
        return floatOnly([](double x) { return std::expm1(x); });
      })
      .Case([&](LogOp) {
        return floatOnly([](double x) { return std::log(x); });
      })
      .Case([&](Log2Op) {
        return floatOnly([](double x) { return std::log2(x); });
      })
      .Case([&](Log1pOp) {
        return floatOnly([](double x) { return std::log1p(x); });
      })
      .Case([&](SqrtOp) {
        return floatOnly([](double x) { return std::sqrt(x); });
      })
      .Case([&](RsqrtOp) {
        return floatOnly([](double x) { return 1.0 / std::sqrt(x); });
      })
      .Case([&](SinOp) {
        return floatOnly([](double x) { return std::sin(x); });
      })
      .Case([&](CosOp) {
        return floatOnly([](double x) { return std::cos(x); });
      })
      .Case([&](TanhOp) {
        return floatOnly([](double x) { return std::tanh(x); });
      })
      .Case([&](SigmoidOp) { return floatOnly(sigmoid); })
      .Case([&](ErfOp) {
        return floatOnly([](double x) { return std::erf(x); });
      })
      .Case([&](SiluOp) {
        return floatOnly([](double x) { return x * sigmoid(x); });
      })
      .Case([&](ReciprocalOp) {
        return floatOnly([](double x) { return 1.0 / x; });
      })
      .Case([&](FloorOp) {
        return floatOnly([](double x) { return std::floor(x); });
      })
      .Case([&](CeilOp) {
        return floatOnly([](double x) { return std::ceil(x); });
      })
      // Half to even (the default rounding mode).
      .Case([&](RoundOp) {
        return floatOnly([](double x) { return std::nearbyint(x); });
      })
      .Case([](LogicalNotOp) {
        return UnaryFns{nullptr, [](int64_t x) -> int64_t { return x == 0; }};
      })
      .Case([](GeluOp gelu) {
        if (gelu.getApproximate() == GeluApproximation::tanh)
          return UnaryFns{[](double x) {
                            const double k = std::sqrt(2.0 / llvm::numbers::pi);
                            return 0.5 * x *
                                   (1.0 +
                                    std::tanh(k * (x + 0.044715 * x * x * x)));
                          },
                          nullptr};
        return UnaryFns{[](double x) {
                          return 0.5 * x *
                                 (1.0 + std::erf(x * llvm::numbers::inv_sqrt2));
                        },
                        nullptr};
      })
      .Case([](ClampOp clamp) {
        std::optional<APFloat> lo = clamp.getMin(), hi = clamp.getMax();
        double l = lo ? lo->convertToDouble()
                      : -std::numeric_limits<double>::infinity();
        double h = hi ? hi->convertToDouble()
                      : std::numeric_limits<double>::infinity();
        // Integer bounds are integral (verified); clamp in int64 with the
        // bound saturated to the int64 range.
        auto toInt = [](double v) -> int64_t {
          if (v <= -0x1.0p63)
            return kInt64Min;
          if (v >= 0x1.0p63)
            return std::numeric_limits<int64_t>::max();
          return static_cast<int64_t>(v);
        };
        int64_t il = toInt(l), ih = toInt(h);
        return UnaryFns{
            [=](double x) {
              if (std::isnan(x))
                return x;
              return std::min(std::max(x, l), h);
            },
            [=](int64_t x) { return std::min(std::max(x, il), ih); }};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// A float pow: PyTorch's kernels for a constant scalar exponent
/// (pow_tensor_scalar: 2, 3 and -2 as products, -1 as a reciprocal, 0.5 as
/// sqrt, -0.5 as rsqrt, whose signed zeros and infinities differ from
/// pow's), else std::pow. The compiled code does the same (tgc-to-linalg).
static FloatBinary floatPow(PowOp op) {
  DenseElementsAttr dense;
  Value rhs = op.getRhs();
  if (auto arg = dyn_cast<BlockArgument>(rhs))
    if (auto group =
            dyn_cast_or_null<FusionGroupOp>(arg.getOwner()->getParentOp()))
      rhs = group.getInputs()[arg.getArgNumber()];
  if (matchPattern(rhs, m_Constant(&dense)) && dense.isSplat() &&
      isa<FloatType>(dense.getElementType())) {
    double e = dense.getSplatValue<APFloat>().convertToDouble();
    if (e == 2.0)
      return [](double a, double) { return a * a; };
    if (e == 3.0)
      return [](double a, double) { return a * a * a; };
    if (e == -2.0)
      return [](double a, double) { return 1.0 / (a * a); };
    if (e == -1.0)
      return [](double a, double) { return 1.0 / a; };
    if (e == 0.5)
      return [](double a, double) { return std::sqrt(a); };
    if (e == -0.5)
      return [](double a, double) { return 1.0 / std::sqrt(a); };
  }
  return [](double a, double b) { return std::pow(a, b); };
}

static std::optional<BinaryFns> binaryFns(Operation *op) {
  using R = std::optional<BinaryFns>;
  using OptInt = std::optional<int64_t>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([](AddOp) {
        return BinaryFns{
            [](double a, double b) { return a + b; },
            [](int64_t a, int64_t b) -> OptInt { return wrapAdd(a, b); }};
      })
      .Case([](SubOp) {
        return BinaryFns{
            [](double a, double b) { return a - b; },
            [](int64_t a, int64_t b) -> OptInt { return wrapSub(a, b); }};
      })
      .Case([](MulOp) {
        return BinaryFns{
            [](double a, double b) { return a * b; },
            [](int64_t a, int64_t b) -> OptInt { return wrapMul(a, b); }};
      })
      .Case([](PowOp op) {
        return BinaryFns{floatPow(op), [](int64_t a, int64_t b) -> OptInt {
                           return intPow(a, b);
                         }};
      })
      .Case([](MaximumOp) {
        return BinaryFns{
            [](double a, double b) {
              if (std::isnan(a) || std::isnan(b))
                return std::numeric_limits<double>::quiet_NaN();
              return std::max(a, b);
            },
            [](int64_t a, int64_t b) -> OptInt { return std::max(a, b); }};
      })
      .Case([](MinimumOp) {
        return BinaryFns{
            [](double a, double b) {
              if (std::isnan(a) || std::isnan(b))
                return std::numeric_limits<double>::quiet_NaN();
              return std::min(a, b);
            },
            [](int64_t a, int64_t b) -> OptInt { return std::min(a, b); }};
      })
      .Case([](RemainderOp) {
        return BinaryFns{floatPyMod, [](int64_t a, int64_t b) -> OptInt {
                           if (b == 0)
                             return std::nullopt;
                           return pyMod(a, b);
                         }};
      })
      .Case([](Atan2Op) {
        return BinaryFns{[](double y, double x) { return std::atan2(y, x); },
                         nullptr};
      })
      .Case([](LogicalAndOp) {
        return BinaryFns{nullptr,
                         [](int64_t a, int64_t b) -> OptInt { return a && b; }};
      })
      .Case([](LogicalOrOp) {
        return BinaryFns{nullptr,
                         [](int64_t a, int64_t b) -> OptInt { return a || b; }};
      })
      .Case([](DivOp div) {
        switch (div.getRounding()) {
        case RoundingMode::trunc:
          return BinaryFns{[](double a, double b) { return std::trunc(a / b); },
                           [](int64_t a, int64_t b) -> OptInt {
                             if (b == 0)
                               return std::nullopt;
                             return truncDiv(a, b);
                           }};
        case RoundingMode::floor:
          return BinaryFns{floatFloorDiv, [](int64_t a, int64_t b) -> OptInt {
                             if (b == 0)
                               return std::nullopt;
                             return floorDiv(a, b);
                           }};
        case RoundingMode::true_div:
          break;
        }
        return BinaryFns{[](double a, double b) { return a / b; }, nullptr};
      })
      .Default([](Operation *) { return std::nullopt; });
}

static LogicalResult evalUnary(Operation *op, Frame &frame,
                               const UnaryFns &fns) {
  const HostTensor &x = frame.tensor(op->getOperand(0));
  HostTensor r(dtypeOfValue(op->getResult(0)), x.shape());
  if (isFloatDType(x.dtype())) {
    if (!fns.onFloat)
      return op->emitOpError() << "does not take " << dtypeName(x.dtype());
    for (int64_t i = 0; i < x.numel(); ++i)
      r.setFloat(i, fns.onFloat(x.getFloat(i)));
  } else {
    if (!fns.onInt)
      return op->emitOpError() << "does not take " << dtypeName(x.dtype());
    for (int64_t i = 0; i < x.numel(); ++i)
      r.setInt(i, fns.onInt(x.getInt(i)));
  }
  frame.setTensor(op->getResult(0), std::move(r));
  return success();
}

static LogicalResult evalBinary(Operation *op, Frame &frame,
                                const BinaryFns &fns) {
  const HostTensor &a = frame.tensor(op->getOperand(0));
  const HostTensor &b = frame.tensor(op->getOperand(1));
  FailureOr<Dims> shape = broadcastShapes(op, {a.shape(), b.shape()});
  if (failed(shape))
    return failure();
  std::vector<int64_t> ia = broadcastIndices(a.shape(), *shape);
  std::vector<int64_t> ib = broadcastIndices(b.shape(), *shape);
  HostTensor r(dtypeOfValue(op->getResult(0)), *shape);
  if (isFloatDType(a.dtype())) {
    if (!fns.onFloat)
      return op->emitOpError() << "does not take " << dtypeName(a.dtype());
    for (int64_t i = 0; i < r.numel(); ++i)
      r.setFloat(i, fns.onFloat(a.getFloat(ia[i]), b.getFloat(ib[i])));
  } else {
    if (!fns.onInt)
      return op->emitOpError() << "does not take " << dtypeName(a.dtype());
    for (int64_t i = 0; i < r.numel(); ++i) {
      std::optional<int64_t> v = fns.onInt(a.getInt(ia[i]), b.getInt(ib[i]));
      if (!v) {
        SmallVector<int64_t> index;
        unravel(i, *shape, index);
        return op->emitOpError() << "integer division by zero at result index "
                                 << shapeStr(index);
      }
      r.setInt(i, *v);
    }
  }
  frame.setTensor(op->getResult(0), std::move(r));
  return success();
}

template <typename T> static bool compareValues(CmpPredicate pred, T a, T b) {
  switch (pred) {
  case CmpPredicate::eq:
    return a == b;
  case CmpPredicate::ne:
    return a != b;
  case CmpPredicate::lt:
    return a < b;
  case CmpPredicate::le:
    return a <= b;
  case CmpPredicate::gt:
    return a > b;
  case CmpPredicate::ge:
    return a >= b;
  }
  return false;
}

static LogicalResult evalCmp(CmpOp op, Frame &frame) {
  const HostTensor &a = frame.tensor(op.getLhs());
  const HostTensor &b = frame.tensor(op.getRhs());
  FailureOr<Dims> shape = broadcastShapes(op, {a.shape(), b.shape()});
  if (failed(shape))
    return failure();
  std::vector<int64_t> ia = broadcastIndices(a.shape(), *shape);
  std::vector<int64_t> ib = broadcastIndices(b.shape(), *shape);
  HostTensor r(DType::I1, *shape);
  bool floats = isFloatDType(a.dtype());
  for (int64_t i = 0; i < r.numel(); ++i)
    r.setInt(i, floats ? compareValues(op.getPredicate(), a.getFloat(ia[i]),
                                       b.getFloat(ib[i]))
                       : compareValues(op.getPredicate(), a.getInt(ia[i]),
                                       b.getInt(ib[i])));
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalWhere(WhereOp op, Frame &frame) {
  const HostTensor &c = frame.tensor(op.getCondition());
  const HostTensor &t = frame.tensor(op.getTrueValue());
  const HostTensor &f = frame.tensor(op.getFalseValue());
  FailureOr<Dims> shape =
      broadcastShapes(op, {c.shape(), t.shape(), f.shape()});
  if (failed(shape))
    return failure();
  std::vector<int64_t> ic = broadcastIndices(c.shape(), *shape);
  std::vector<int64_t> it = broadcastIndices(t.shape(), *shape);
  std::vector<int64_t> iff = broadcastIndices(f.shape(), *shape);
  HostTensor r(t.dtype(), *shape);
  for (int64_t i = 0; i < r.numel(); ++i) {
    if (c.getInt(ic[i]))
      copyElement(t, it[i], r, i);
    else
      copyElement(f, iff[i], r, i);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// Tensor.to(dtype): floats convert through setFloat (rounding, truncation
/// toward zero, `!= 0`), integers and bools through setInt (wrapping).
static LogicalResult evalConvert(ConvertOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  HostTensor r(dtypeOfValue(op.getResult()), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (isFloatDType(x.dtype()))
      r.setFloat(i, x.getFloat(i));
    else
      r.setInt(i, x.getInt(i));
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

EvalResult eval::evalElementwiseOp(Operation *op, Frame &frame) {
  if (std::optional<UnaryFns> fns = unaryFns(op))
    return evalUnary(op, frame, *fns);
  if (std::optional<BinaryFns> fns = binaryFns(op))
    return evalBinary(op, frame, *fns);
  if (auto cmp = dyn_cast<CmpOp>(op))
    return evalCmp(cmp, frame);
  if (auto where = dyn_cast<WhereOp>(op))
    return evalWhere(where, frame);
  if (auto convert = dyn_cast<ConvertOp>(op))
    return evalConvert(convert, frame);
  return std::nullopt;
}
