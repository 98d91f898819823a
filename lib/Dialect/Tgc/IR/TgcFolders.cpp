//===- TgcFolders.cpp - tgc folders ---------------------------------------===//
//
// Folds that are exact for every input: identities (x * 1, x - 0, identity
// reshapes and permutes), compositions (permute of permute, reshape of
// reshape), and constant folding of small constants with IEEE-exact
// operations only (add, sub, mul, div, min, max, neg, abs, comparisons,
// conversions). Transcendentals are never folded: the folded value could
// differ in the last bit from the one the compiled kernel computes.
//
// Signed zero: `x + 0.0` is NOT folded for floating-point x, since
// -0.0 + 0.0 is +0.0; `x + (-0.0)` and `x - 0.0` are exact and fold.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using namespace mlir::tgc;

/// Non-splat constants are folded only up to this many elements, so folding
/// never blows up compile time or IR size.
static constexpr int64_t kMaxFoldElements = 1024;

static DenseElementsAttr foldableConstant(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return {};
  if (!dense.isSplat() && dense.getNumElements() > kMaxFoldElements)
    return {};
  return dense;
}

/// The elements of `attr` laid out for a result of `n` elements: a splat
/// repeats, anything else must already have `n` elements of the result's
/// shape.
template <typename T>
static std::optional<SmallVector<T>> elementsFor(DenseElementsAttr attr,
                                                 RankedTensorType result) {
  int64_t n = result.getNumElements();
  if (attr.isSplat())
    return SmallVector<T>(n, attr.getSplatValue<T>());
  if (cast<ShapedType>(attr.getType()).getShape() != result.getShape())
    return std::nullopt;
  return SmallVector<T>(attr.getValues<T>());
}

namespace {
using FloatBinaryFn =
    function_ref<std::optional<APFloat>(const APFloat &, const APFloat &)>;
using IntBinaryFn =
    function_ref<std::optional<APInt>(const APInt &, const APInt &)>;
} // namespace

/// Folds an elementwise binary op over two constants. Either function may
/// decline an element (std::nullopt), which declines the whole fold.
static Attribute foldBinaryConstants(Attribute lhsAttr, Attribute rhsAttr,
                                     RankedTensorType resultType,
                                     FloatBinaryFn floatFn,
                                     IntBinaryFn intFn) {
  DenseElementsAttr lhs = foldableConstant(lhsAttr);
  DenseElementsAttr rhs = foldableConstant(rhsAttr);
  if (!lhs || !rhs || !resultType.hasStaticShape())
    return {};
  if (!lhs.isSplat() || !rhs.isSplat())
    if (resultType.getNumElements() > kMaxFoldElements)
      return {};
  Type element = lhs.getElementType();
  if (isa<FloatType>(element)) {
    if (!floatFn)
      return {};
    auto l = elementsFor<APFloat>(lhs, resultType);
    auto r = elementsFor<APFloat>(rhs, resultType);
    if (!l || !r)
      return {};
    SmallVector<APFloat> out;
    for (auto [a, b] : llvm::zip(*l, *r)) {
      std::optional<APFloat> v = floatFn(a, b);
      if (!v)
        return {};
      out.push_back(*v);
    }
    if (resultType.getElementType() != element) {
      // Comparisons: the functions encode booleans as 0.0 / 1.0.
      SmallVector<bool> bits;
      for (const APFloat &v : out)
        bits.push_back(!v.isZero());
      return DenseElementsAttr::get(resultType, bits);
    }
    return DenseElementsAttr::get(resultType, out);
  }
  if (!intFn)
    return {};
  auto l = elementsFor<APInt>(lhs, resultType);
  auto r = elementsFor<APInt>(rhs, resultType);
  if (!l || !r)
    return {};
  SmallVector<APInt> out;
  for (auto [a, b] : llvm::zip(*l, *r)) {
    std::optional<APInt> v = intFn(a, b);
    if (!v)
      return {};
    out.push_back(*v);
  }
  return DenseElementsAttr::get(resultType, out);
}

template <typename FloatFn, typename IntFn>
static Attribute foldUnaryConstant(Attribute attr, RankedTensorType type,
                                   FloatFn floatFn, IntFn intFn) {
  DenseElementsAttr input = foldableConstant(attr);
  if (!input || !type.hasStaticShape())
    return {};
  if (isa<FloatType>(input.getElementType())) {
    SmallVector<APFloat> out;
    std::optional<SmallVector<APFloat>> values =
        elementsFor<APFloat>(input, type);
    for (APFloat v : *values) {
      std::optional<APFloat> r = floatFn(v);
      if (!r)
        return {};
      out.push_back(*r);
    }
    return DenseElementsAttr::get(type, out);
  }
  SmallVector<APInt> out;
  std::optional<SmallVector<APInt>> values = elementsFor<APInt>(input, type);
  for (const APInt &v : *values)
    out.push_back(intFn(v));
  return DenseElementsAttr::get(type, out);
}

/// Whether `attr` is a splat constant equal to `value` (for floats, also
/// of the given sign of zero when value is 0).
static bool isSplatOf(Attribute attr, double value, bool negativeZero = false) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  if (isa<FloatType>(dense.getElementType())) {
    APFloat v = dense.getSplatValue<APFloat>();
    if (value == 0.0)
      return v.isZero() && v.isNegative() == negativeZero;
    bool losesInfo = false;
    APFloat expected(value);
    expected.convert(v.getSemantics(), APFloat::rmNearestTiesToEven,
                     &losesInfo);
    return v.bitwiseIsEqual(expected);
  }
  return dense.getSplatValue<APInt>().getSExtValue() ==
         static_cast<int64_t>(value);
}

static constexpr auto rne = APFloat::rmNearestTiesToEven;

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult FullOp::fold(FoldAdaptor) {
  auto type = getResult().getType();
  if (!type.hasStaticShape())
    return {};
  return SplatElementsAttr::get(type, getValue());
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnaryConstant(
      adaptor.getInput(), getResult().getType(),
      [](APFloat v) -> std::optional<APFloat> { return neg(v); },
      [](const APInt &v) { return -v; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnaryConstant(
      adaptor.getInput(), getResult().getType(),
      [](APFloat v) -> std::optional<APFloat> { return abs(v); },
      [](const APInt &v) { return v.abs(); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  return foldUnaryConstant(
      adaptor.getInput(), getResult().getType(),
      [](APFloat v) -> std::optional<APFloat> {
        if (v.isNaN() || !v.isNegative())
          return v;
        if (v.isZero())
          return std::nullopt; // Leave relu(-0.0) to the kernel.
        return APFloat::getZero(v.getSemantics());
      },
      [](const APInt &v) {
        return v.isNegative() ? APInt::getZero(v.getBitWidth()) : v;
      });
}

/// `x op c` is x when the broadcast does not change x's type.
static Value identityIfSameType(Value x, Value result) {
  return x.getType() == result.getType() ? x : Value();
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  bool isFloat = isa<FloatType>(getType().getElementType());
  // x + 0 for integers; x + (-0.0) for floats (x + 0.0 is not exact at -0).
  if (isSplatOf(adaptor.getRhs(), 0.0, /*negativeZero=*/isFloat))
    if (Value x = identityIfSameType(getLhs(), getResult()))
      return x;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        APFloat r = a;
        r.add(b, rne);
        return r;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  // x - (+0) is exact for every x, including -0.0.
  if (isSplatOf(adaptor.getRhs(), 0.0, /*negativeZero=*/false))
    if (Value x = identityIfSameType(getLhs(), getResult()))
      return x;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        APFloat r = a;
        r.subtract(b, rne);
        return r;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    if (Value x = identityIfSameType(getLhs(), getResult()))
      return x;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        APFloat r = a;
        r.multiply(b, rne);
        return r;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return identityIfSameType(getLhs(), getResult());
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.sgt(b) ? a : b;
      });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return identityIfSameType(getLhs(), getResult());
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.slt(b) ? a : b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  RoundingMode mode = getRounding();
  // x / 1 is x for true division and for integers; a float floor or trunc
  // division by 1 still rounds (trunc(2.5 / 1) == 2).
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(getLhs().getType()));
  if (isSplatOf(adaptor.getRhs(), 1.0) &&
      (mode == RoundingMode::true_div || !isFloat))
    if (Value x = identityIfSameType(getLhs(), getResult()))
      return x;
  // Floating-point floor/trunc division follows PyTorch's own formula
  // (through fmod); it is left to the kernel rather than re-derived here.
  FloatBinaryFn floatFn = nullptr;
  auto trueDiv = [](const APFloat &a,
                    const APFloat &b) -> std::optional<APFloat> {
    APFloat r = a;
    r.divide(b, rne);
    return r;
  };
  if (mode == RoundingMode::true_div)
    floatFn = trueDiv;
  auto intDiv = [mode](const APInt &a,
                       const APInt &b) -> std::optional<APInt> {
    if (b.isZero() || (a.isMinSignedValue() && b.isAllOnes()))
      return std::nullopt; // Runtime error / overflow: not folded.
    APInt q = a.sdiv(b);
    if (mode == RoundingMode::floor && !(q * b == a) &&
        (a.isNegative() != b.isNegative()))
      q -= 1;
    return q;
  };
  IntBinaryFn intFn = nullptr;
  if (mode != RoundingMode::true_div)
    intFn = intDiv;
  return foldBinaryConstants(adaptor.getLhs(), adaptor.getRhs(), getType(),
                             floatFn, intFn);
}

OpFoldResult CmpOp::fold(FoldAdaptor adaptor) {
  CmpPredicate pred = getPredicate();
  auto fromCmp = [pred](APFloat::cmpResult c) {
    switch (pred) {
    case CmpPredicate::eq:
      return c == APFloat::cmpEqual;
    case CmpPredicate::ne:
      return c != APFloat::cmpEqual; // NaN != x is true.
    case CmpPredicate::lt:
      return c == APFloat::cmpLessThan;
    case CmpPredicate::le:
      return c == APFloat::cmpLessThan || c == APFloat::cmpEqual;
    case CmpPredicate::gt:
      return c == APFloat::cmpGreaterThan;
    case CmpPredicate::ge:
      return c == APFloat::cmpGreaterThan || c == APFloat::cmpEqual;
    }
    return false;
  };
  auto boolOf = [](bool b, const llvm::fltSemantics &sem) {
    return b ? APFloat::getOne(sem) : APFloat::getZero(sem);
  };
  auto intCmp = [pred](const APInt &a, const APInt &b) -> std::optional<APInt> {
    bool r = false;
    switch (pred) {
    case CmpPredicate::eq:
      r = a == b;
      break;
    case CmpPredicate::ne:
      r = a != b;
      break;
    case CmpPredicate::lt:
      r = a.slt(b);
      break;
    case CmpPredicate::le:
      r = a.sle(b);
      break;
    case CmpPredicate::gt:
      r = a.sgt(b);
      break;
    case CmpPredicate::ge:
      r = a.sge(b);
      break;
    }
    return APInt(1, r);
  };
  // i1 operands compare as unsigned (false < true), as PyTorch's bool.
  auto boolCmp = [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
    return intCmp(a.zext(8), b.zext(8));
  };
  bool isBool = getLhs().getType().getElementType().isInteger(1);
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [&](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return boolOf(fromCmp(a.compare(b)), a.getSemantics());
      },
      isBool ? IntBinaryFn(boolCmp) : IntBinaryFn(intCmp));
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  Type resultType = getResult().getType();
  if (getTrueValue() == getFalseValue() &&
      getTrueValue().getType() == resultType)
    return getTrueValue();
  auto cond = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCondition());
  if (!cond || !cond.isSplat())
    return {};
  Value chosen = cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  return chosen.getType() == resultType ? chosen : Value();
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  DenseElementsAttr input = foldableConstant(adaptor.getInput());
  auto type = getResult().getType();
  if (!input || !type.hasStaticShape())
    return {};
  Type from = input.getElementType(), to = type.getElementType();
  auto toFloat = dyn_cast<FloatType>(to);
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (isa<FloatType>(from)) {
    auto values = elementsFor<APFloat>(input, type);
    if (toFloat) {
      SmallVector<APFloat> out;
      for (APFloat v : *values) {
        bool losesInfo;
        v.convert(toFloat.getFloatSemantics(), rne, &losesInfo);
        out.push_back(v);
      }
      return DenseElementsAttr::get(type, out);
    }
    SmallVector<APInt> out;
    for (const APFloat &v : *values) {
      if (toWidth == 1) {
        out.push_back(APInt(1, !v.isZero()));
        continue;
      }
      // Truncation toward zero; NaN and out-of-range are undefined in C++
      // and are left to the kernel.
      APSInt result(toWidth, /*isUnsigned=*/false);
      bool exact;
      if (v.convertToInteger(result, APFloat::rmTowardZero, &exact) &
          APFloat::opInvalidOp)
        return {};
      out.push_back(result);
    }
    return DenseElementsAttr::get(type, out);
  }
  auto values = elementsFor<APInt>(input, type);
  bool fromBool = from.isInteger(1);
  if (toFloat) {
    SmallVector<APFloat> out;
    for (const APInt &v : *values) {
      APFloat f(toFloat.getFloatSemantics());
      f.convertFromAPInt(v, /*IsSigned=*/!fromBool, rne);
      out.push_back(f);
    }
    return DenseElementsAttr::get(type, out);
  }
  SmallVector<APInt> out;
  for (const APInt &v : *values) {
    if (toWidth == 1)
      out.push_back(APInt(1, !v.isZero()));
    else
      out.push_back(fromBool ? v.zext(toWidth) : v.sextOrTrunc(toWidth));
  }
  return DenseElementsAttr::get(type, out);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  auto in = getInput().getType(), out = getResult().getType();
  // Identity: with at most one `?`, equal types force equal shapes.
  if (in == out && llvm::count_if(out.getShape(), ShapedType::isDynamic) <= 1)
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (out.hasStaticShape())
      return dense.reshape(out);
  // reshape(reshape(x)) == reshape(x): only the element order matters.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // permute(permute(x, p1), p2) == permute(x, [p1[p2[i]]]).
  if (auto inner = getInput().getDefiningOp<PermuteOp>()) {
    ArrayRef<int64_t> p1 = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(p1[p]);
    getInputMutable().assign(inner.getInput());
    setPermutation(composed);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())) &&
        getInput().getType() == getResult().getType())
      return getInput();
    return getResult();
  }
  return {};
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  auto in = getInput().getType(), out = getResult().getType();
  if (in == out && getDynamicSizes().empty())
    return getInput();
  // A broadcast splat is a splat of the result shape.
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat() && out.hasStaticShape())
    return SplatElementsAttr::get(out, dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  auto in = getInput().getType();
  if (in != getResult().getType())
    return {};
  int64_t dim = static_cast<int64_t>(getDim());
  int64_t size = in.getDimSize(dim);
  int64_t start = static_cast<int64_t>(getStart());
  int64_t end = static_cast<int64_t>(getEnd());
  if (static_cast<int64_t>(getStep()) != 1)
    return {};
  // The whole dimension: from 0 (or -size) to its end.
  bool fromStart = start == 0 || (!ShapedType::isDynamic(size) &&
                                  (start <= -size));
  bool toEnd = end == std::numeric_limits<int64_t>::max() ||
               (!ShapedType::isDynamic(size) && end >= size);
  return fromStart && toEnd ? getInput() : Value();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 &&
      getInputs().front().getType() == getResult().getType())
    return getInputs().front();
  return {};
}

OpFoldResult SqueezeOp::fold(FoldAdaptor) {
  // squeeze(unsqueeze(x, d), [d]) == x.
  auto unsqueeze = getInput().getDefiningOp<UnsqueezeOp>();
  if (unsqueeze && getDims().size() == 1 &&
      getDims()[0] == static_cast<int64_t>(unsqueeze.getDim()) &&
      unsqueeze.getInput().getType() == getResult().getType())
    return unsqueeze.getInput();
  return {};
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  // A constant gains a size-1 dimension: the same elements.
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  auto out = getResult().getType();
  if (dense && out.hasStaticShape() &&
      (dense.isSplat() || foldableConstant(dense)))
    return dense.reshape(out);
  return {};
}

//===----------------------------------------------------------------------===//
// Data-independent values: a model's masks built from aranges
//===----------------------------------------------------------------------===//

OpFoldResult IotaOp::fold(FoldAdaptor) {
  // Integer sequences of static, small length: `start + i * step`, wrapping
  // at the element width as the kernel's integer arithmetic does.
  auto type = getResult().getType();
  auto start = dyn_cast<IntegerAttr>(getStart());
  auto step = dyn_cast<IntegerAttr>(getStep());
  if (getSize() || !type.hasStaticShape() || !start || !step ||
      !type.getElementType().isSignlessInteger() ||
      type.getNumElements() > kMaxFoldElements)
    return {};
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  APInt value = start.getValue().sextOrTrunc(width);
  APInt delta = step.getValue().sextOrTrunc(width);
  SmallVector<APInt> out;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    out.push_back(value);
    value += delta;
  }
  return DenseElementsAttr::get(type, out);
}

/// amax / amin of a splat over non-empty static dimensions: the splat.
template <typename ReduceOp>
static OpFoldResult foldExtremumOfSplat(ReduceOp op, Attribute input) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(input);
  auto inType = op.getInput().getType();
  auto out = op.getResult().getType();
  if (!dense || !dense.isSplat() || !out.hasStaticShape() ||
      !inType.hasStaticShape() || inType.getNumElements() == 0)
    return {};
  return SplatElementsAttr::get(out, dense.getSplatValue<Attribute>());
}

OpFoldResult AmaxOp::fold(FoldAdaptor adaptor) {
  return foldExtremumOfSplat(*this, adaptor.getInput());
}

OpFoldResult AminOp::fold(FoldAdaptor adaptor) {
  return foldExtremumOfSplat(*this, adaptor.getInput());
}

OpFoldResult ScaledDotProductAttentionOp::fold(FoldAdaptor adaptor) {
  // A mask that keeps everything (bool true) or adds zero is no mask, when
  // it does not broadcast the result beyond the query's leading sizes:
  // each of its sizes is 1, or the query's (or the key's length for the
  // last). Masks built from aranges fold to such splats (Hugging Face's
  // padding masks without padding).
  auto mask = dyn_cast_or_null<DenseElementsAttr>(adaptor.getMask());
  if (!mask || !mask.isSplat() || getCausal())
    return {};
  Type element = mask.getElementType();
  if (element.isInteger(1)
          ? !mask.getSplatValue<bool>()
          : !isa<FloatType>(element) || !mask.getSplatValue<APFloat>().isZero())
    return {};
  auto maskType = cast<RankedTensorType>(getMask().getType());
  auto query = getQuery().getType();
  auto key = getKey().getType();
  int64_t rank = query.getRank(), maskRank = maskType.getRank();
  if (maskRank > rank || !query.hasStaticShape() || !key.hasStaticShape())
    return {};
  for (int64_t i = 0; i < maskRank; ++i) {
    int64_t d = rank - maskRank + i; // the query's dimension it aligns with
    int64_t size = maskType.getDimSize(i);
    int64_t allowed =
        d == rank - 1 ? key.getDimSize(key.getRank() - 2) : query.getDimSize(d);
    if (size != 1 && size != allowed)
      return {};
  }
  getMaskMutable().clear();
  return getResult();
}
