//===- TgcOps.cpp - tgc dialect operations --------------------------------===//
//
// Verifiers and result type inference. Shape arithmetic lives in
// ShapeRules.cpp (shared with the unit tests); folders in TgcFolders.cpp.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tgc;

static constexpr int64_t kDyn = ShapedType::kDynamic;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `T` when lhs, rhs and result types are all T, else `T1, T2 -> T3`.
static ParseResult parseBroadcastTypes(OpAsmParser &parser, Type &lhs,
                                       Type &rhs, Type &result) {
  if (parser.parseType(lhs))
    return failure();
  if (failed(parser.parseOptionalComma())) {
    rhs = result = lhs;
    return success();
  }
  return failure(parser.parseType(rhs) || parser.parseArrow() ||
                 parser.parseType(result));
}

static void printBroadcastTypes(OpAsmPrinter &printer, Operation *, Type lhs,
                                Type rhs, Type result) {
  if (lhs == rhs && rhs == result) {
    printer << lhs;
    return;
  }
  printer << lhs << ", " << rhs << " -> " << result;
}

#include "tgc/Dialect/Tgc/IR/TgcEnums.cpp.inc"
#include "tgc/Dialect/Tgc/IR/TgcInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tgc/Dialect/Tgc/IR/TgcOps.cpp.inc"

void TgcDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "tgc/Dialect/Tgc/IR/TgcOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static int64_t numDynamicDims(RankedTensorType t) {
  return llvm::count_if(t.getShape(), ShapedType::isDynamic);
}

/// Checks that `dim` indexes a tensor of rank `rank` (`inclusive` allows
/// `rank` itself, for insertion points).
static LogicalResult checkDim(std::optional<Location> loc, StringRef what,
                              int64_t dim, int64_t rank,
                              bool inclusive = false) {
  int64_t limit = inclusive ? rank + 1 : rank;
  if (dim < 0 || dim >= limit)
    return emitOptionalError(
        loc, what, " ", dim, " is out of range for rank ", rank,
        " (expected 0 <= ", what, " < ", limit,
        "; negative dims are normalized by the importer)");
  return success();
}

static bool isIntegral(const APFloat &v) { return v.isInteger(); }

//===----------------------------------------------------------------------===//
// Creation ops
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  auto type = dyn_cast<ShapedType>(getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("value must have a static shape, got ")
           << getValue().getType();
  return success();
}

/// The value of a scalar typed attribute must have the tensor's element type.
static LogicalResult checkScalarOfElementType(Operation *op, StringRef what,
                                              TypedAttr value,
                                              Type elementType) {
  if (!isa<IntegerAttr, FloatAttr>(value))
    return op->emitOpError() << what << " must be an integer or float "
                             << "attribute, got " << value;
  if (value.getType() != elementType)
    return op->emitOpError()
           << what << " has type " << value.getType()
           << " but the result element type is " << elementType;
  return success();
}

/// A creation op's index operands: one per `?` size of its result type.
static LogicalResult checkDynamicSizes(Operation *op, RankedTensorType type,
                                       ValueRange sizes) {
  if (static_cast<int64_t>(sizes.size()) != numDynamicDims(type))
    return op->emitOpError("expected ")
           << numDynamicDims(type) << " size operands for the `?` sizes of "
           << type << ", got " << sizes.size();
  return success();
}

LogicalResult FullOp::verify() {
  auto type = getResult().getType();
  if (failed(checkScalarOfElementType(*this, "value", getValue(),
                                      type.getElementType())))
    return failure();
  return checkDynamicSizes(*this, type, getDynamicSizes());
}

LogicalResult PhiloxUniformOp::verify() {
  return checkDynamicSizes(*this, getResult().getType(), getDynamicSizes());
}

LogicalResult IotaOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1)
    return emitOpError("result must be rank 1, got ") << type;
  if (failed(checkScalarOfElementType(*this, "start", getStart(),
                                      type.getElementType())) ||
      failed(checkScalarOfElementType(*this, "step", getStep(),
                                      type.getElementType())))
    return failure();
  bool zeroStep = false;
  if (auto f = dyn_cast<FloatAttr>(getStep()))
    zeroStep = f.getValue().isZero();
  else if (auto i = dyn_cast<IntegerAttr>(getStep()))
    zeroStep = i.getValue().isZero();
  if (zeroStep)
    return emitOpError("step must be non-zero");
  bool dynamic = ShapedType::isDynamic(type.getDimSize(0));
  if (dynamic != static_cast<bool>(getSize()))
    return emitOpError(dynamic ? "a `?` length needs a size operand"
                               : "a static length takes no size operand");
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("needs at least one of `min` and `max`");
  if (getMin() && getMax() &&
      getMin()->compare(*getMax()) == APFloat::cmpGreaterThan)
    return emitOpError("min (") << getMin()->convertToDouble()
                                << ") is greater than max ("
                                << getMax()->convertToDouble() << ")";
  if (isa<IntegerType>(getInput().getType().getElementType())) {
    for (std::optional<APFloat> bound : {getMin(), getMax()})
      if (bound && !isIntegral(*bound))
        return emitOpError("bounds of an integer clamp must be integral, got ")
               << bound->convertToDouble();
  }
  return success();
}

LogicalResult DivOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferElementwiseResult(
      loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()}, nullptr,
      types);
}

LogicalResult DivOp::verify() {
  if (getRounding() == RoundingMode::true_div &&
      !isa<FloatType>(getLhs().getType().getElementType()))
    return emitOpError("true division needs floating-point operands (PyTorch "
                       "promotes integer division; insert tgc.convert) or "
                       "rounding = trunc / floor");
  return success();
}

LogicalResult CmpOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferElementwiseResult(
      loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
      IntegerType::get(ctx, 1), types);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto cond = cast<RankedTensorType>(adaptor.getCondition().getType());
  auto t = cast<RankedTensorType>(adaptor.getTrueValue().getType());
  auto f = cast<RankedTensorType>(adaptor.getFalseValue().getType());
  if (t.getElementType() != f.getElementType())
    return emitOptionalError(loc, "true and false values have different "
                                  "element types (",
                             t.getElementType(), " vs ", f.getElementType(),
                             "): insert tgc.convert");
  ShapeResult shape =
      broadcastShapes({cond.getShape(), t.getShape(), f.getShape()});
  if (!shape)
    return emitOptionalError(loc, shape.error);
  types.push_back(RankedTensorType::get(*shape.shape, t.getElementType()));
  return success();
}

LogicalResult ConvertOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (in.getRank() != out.getRank())
    return emitOpError("changes the rank (") << in << " -> " << out << ")";
  for (auto [i, a, b] : llvm::enumerate(in.getShape(), out.getShape()))
    if (!sizesCompatible(a, b))
      return emitOpError("changes the size of dimension ")
             << i << " (" << in << " -> " << out << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type (")
           << in.getElementType() << " -> " << out.getElementType()
           << "): use tgc.convert";
  int64_t numDyn = numDynamicDims(out);
  int64_t numSizes = getDynamicSizes().size();
  if (numSizes != numDyn && !(numSizes == 0 && numDyn == 1))
    return emitOpError("expected ")
           << numDyn << " size operands for the `?` sizes of " << out
           << (numDyn == 1 ? " (or none, to infer it)" : "") << ", got "
           << numSizes;
  // Element counts must agree when both are known; with one inferred `?`
  // the static part of the result must divide the input's count.
  if (in.hasStaticShape()) {
    int64_t inCount = in.getNumElements();
    if (out.hasStaticShape()) {
      if (out.getNumElements() != inCount)
        return emitOpError("element count mismatch: ")
               << in << " has " << inCount << " elements but " << out
               << " has " << out.getNumElements();
    } else if (numSizes == 0) {
      int64_t staticPart = 1;
      for (int64_t s : out.getShape())
        if (!ShapedType::isDynamic(s))
          staticPart *= s;
      if (staticPart == 0 ? inCount != 0 : inCount % staticPart != 0)
        return emitOpError("element count mismatch: ")
               << in << " has " << inCount
               << " elements, not a multiple of the " << staticPart
               << " given by the static sizes of " << out;
    }
  }
  return success();
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOptionalError(loc, "permutation has ", perm.size(),
                             " entries for an input of rank ", rank);
  llvm::SmallBitVector seen(rank);
  Shape shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen.test(p))
      return emitOptionalError(loc, "[", perm, "] is not a permutation of 0..",
                               rank - 1);
    seen.set(p);
    shape.push_back(in.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ExpandOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type (")
           << in.getElementType() << " -> " << out.getElementType() << ")";
  if (out.getRank() < in.getRank())
    return emitOpError("cannot expand rank ")
           << in.getRank() << " to the lower rank " << out.getRank();
  int64_t offset = out.getRank() - in.getRank();
  int64_t needed = 0;
  for (int64_t i = 0; i < out.getRank(); ++i) {
    int64_t o = out.getDimSize(i);
    int64_t s = i >= offset ? in.getDimSize(i - offset) : 1;
    if (i >= offset && ShapedType::isDynamic(s)) {
      // A `?` input dim keeps its size: the result dim must be `?` too or
      // its static size (the input's must then match at run time).
      continue;
    }
    if (ShapedType::isDynamic(o)) {
      ++needed;
      continue;
    }
    if (s != 1 && s != o)
      return emitOpError("cannot expand dimension ")
             << (i - offset) << " of size " << s << " to " << o
             << " (only size-1 dimensions stretch)";
  }
  if (static_cast<int64_t>(getDynamicSizes().size()) != needed)
    return emitOpError("expected ")
           << needed
           << " size operands (one per `?` result size not aligned with a "
              "`?` input size), got "
           << getDynamicSizes().size();
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  int64_t step = static_cast<int64_t>(adaptor.getStep());
  if (failed(checkDim(loc, "dim", dim, in.getRank())))
    return failure();
  if (step < 1)
    return emitOptionalError(loc, "step must be >= 1, got ", step);
  Shape shape(in.getShape());
  shape[dim] = sliceSize(in.getDimSize(dim),
                         static_cast<int64_t>(adaptor.getStart()),
                         static_cast<int64_t>(adaptor.getEnd()), step);
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "needs at least one input");
  auto first = cast<RankedTensorType>(inputs.front().getType());
  int64_t rank = first.getRank();
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  if (failed(checkDim(loc, "dim", dim, rank)))
    return failure();
  Shape shape(first.getShape());
  for (auto [idx, v] : llvm::enumerate(inputs.drop_front())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "input ", idx + 1, " has element type ",
                               t.getElementType(), " but input 0 has ",
                               first.getElementType());
    if (t.getRank() != rank)
      return emitOptionalError(loc, "input ", idx + 1, " has rank ",
                               t.getRank(), " but input 0 has rank ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t s = t.getDimSize(d);
      if (d == dim) {
        shape[d] = ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(s)
                       ? kDyn
                       : shape[d] + s;
        continue;
      }
      if (!sizesCompatible(shape[d], s))
        return emitOptionalError(loc, "input ", idx + 1, " has size ", s,
                                 " in dimension ", d, " where input 0 has ",
                                 shape[d]);
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = s;
    }
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t rank = in.getRank();
  llvm::SmallBitVector drop(rank);
  for (int64_t d : adaptor.getDims()) {
    if (failed(checkDim(loc, "dim", d, rank)))
      return failure();
    if (drop.test(d))
      return emitOptionalError(loc, "dim ", d, " is listed twice");
    if (in.getDimSize(d) != 1)
      return emitOptionalError(
          loc, "dimension ", d, " has size ",
          ShapedType::isDynamic(in.getDimSize(d))
              ? std::string("?")
              : std::to_string(in.getDimSize(d)),
          ": only dimensions of static size 1 can be squeezed");
    drop.set(d);
  }
  Shape shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop.test(d))
      shape.push_back(in.getDimSize(d));
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  if (failed(checkDim(loc, "dim", dim, in.getRank(), /*inclusive=*/true)))
    return failure();
  Shape shape(in.getShape());
  shape.insert(shape.begin() + dim, 1);
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return emitOptionalError(loc, "low and high must list one amount per "
                                  "dimension (rank ",
                             rank, "), got ", low.size(), " and ",
                             high.size());
  auto value = dyn_cast<TypedAttr>(adaptor.getValue());
  if (!value || !isa<IntegerAttr, FloatAttr>(value) ||
      value.getType() != in.getElementType())
    return emitOptionalError(loc, "padding value must be a scalar of the "
                                  "element type ",
                             in.getElementType());
  Shape shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return emitOptionalError(loc, "padding of dimension ", d,
                               " is negative: negative padding is a slice, "
                               "use tgc.slice");
    int64_t s = in.getDimSize(d);
    shape.push_back(ShapedType::isDynamic(s) ? kDyn : s + low[d] + high[d]);
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  auto index = cast<RankedTensorType>(adaptor.getIndex().getType());
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  if (failed(checkDim(loc, "dim", dim, std::max<int64_t>(in.getRank(), 1))))
    return failure();
  if (index.getRank() != in.getRank())
    return emitOptionalError(loc, "index rank (", index.getRank(),
                             ") differs from the input rank (", in.getRank(),
                             ")");
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t i = index.getDimSize(d), s = in.getDimSize(d);
    if (d != dim && !ShapedType::isDynamic(i) && !ShapedType::isDynamic(s) &&
        i > s)
      return emitOptionalError(loc, "index size ", i, " in dimension ", d,
                               " exceeds the input size ", s);
  }
  types.push_back(
      RankedTensorType::get(index.getShape(), in.getElementType()));
  return success();
}

LogicalResult IndexSelectOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  auto index = cast<RankedTensorType>(adaptor.getIndex().getType());
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  if (in.getRank() == 0)
    return emitOptionalError(loc, "input must have rank >= 1");
  if (failed(checkDim(loc, "dim", dim, in.getRank())))
    return failure();
  if (index.getRank() > 1)
    return emitOptionalError(loc, "index must have rank 0 or 1, got ",
                             index.getRank());
  Shape shape(in.getShape());
  shape[dim] = index.getRank() == 0 ? 1 : index.getDimSize(0);
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (weight.getRank() != 2)
    return emitOptionalError(loc, "weight must have rank 2 ([num, dim]), got ",
                             weight);
  Shape shape(indices.getShape());
  shape.push_back(weight.getDimSize(1));
  types.push_back(RankedTensorType::get(shape, weight.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

static LogicalResult checkSameElement(std::optional<Location> loc,
                                      StringRef op, ArrayRef<Value> values) {
  Type element;
  for (Value v : values) {
    if (!v)
      continue;
    Type e = tensorTypeOf(v).getElementType();
    if (element && e != element)
      return emitOptionalError(loc, op, " operands have different element "
                                        "types (",
                               element, " vs ", e, "): insert tgc.convert");
    element = e;
  }
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(checkSameElement(loc, "matmul",
                              {adaptor.getLhs(), adaptor.getRhs()})))
    return failure();
  auto lhs = tensorTypeOf(adaptor.getLhs());
  ShapeResult shape =
      matmulShape(lhs.getShape(), tensorTypeOf(adaptor.getRhs()).getShape());
  if (!shape)
    return emitOptionalError(loc, shape.error);
  types.push_back(RankedTensorType::get(*shape.shape, lhs.getElementType()));
  return success();
}

LogicalResult BmmOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  if (failed(checkSameElement(loc, "bmm",
                              {adaptor.getLhs(), adaptor.getRhs()})))
    return failure();
  auto lhs = tensorTypeOf(adaptor.getLhs());
  auto rhs = tensorTypeOf(adaptor.getRhs());
  if (lhs.getRank() != 3 || rhs.getRank() != 3)
    return emitOptionalError(loc, "bmm operands must have rank 3, got ", lhs,
                             " and ", rhs);
  if (!sizesCompatible(lhs.getDimSize(0), rhs.getDimSize(0)))
    return emitOptionalError(loc, "bmm batch sizes differ: ",
                             lhs.getDimSize(0), " vs ", rhs.getDimSize(0));
  if (!sizesCompatible(lhs.getDimSize(2), rhs.getDimSize(1)))
    return emitOptionalError(loc, "bmm contraction sizes differ: ",
                             formatShape(lhs.getShape()), " x ",
                             formatShape(rhs.getShape()));
  int64_t batch = ShapedType::isDynamic(lhs.getDimSize(0))
                      ? rhs.getDimSize(0)
                      : lhs.getDimSize(0);
  types.push_back(RankedTensorType::get(
      {batch, lhs.getDimSize(1), rhs.getDimSize(2)}, lhs.getElementType()));
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(checkSameElement(
          loc, "linear",
          {adaptor.getInput(), adaptor.getWeight(), adaptor.getBias()})))
    return failure();
  auto in = tensorTypeOf(adaptor.getInput());
  auto weight = tensorTypeOf(adaptor.getWeight());
  if (in.getRank() < 1)
    return emitOptionalError(loc, "linear input must have rank >= 1");
  if (weight.getRank() != 2)
    return emitOptionalError(loc, "linear weight must have rank 2 ([out, "
                                  "in]), got ",
                             weight);
  int64_t inFeatures = in.getDimSize(in.getRank() - 1);
  if (!sizesCompatible(inFeatures, weight.getDimSize(1)))
    return emitOptionalError(loc, "linear input has ", inFeatures,
                             " features but the weight expects ",
                             weight.getDimSize(1));
  int64_t outFeatures = weight.getDimSize(0);
  if (Value bias = adaptor.getBias()) {
    auto b = tensorTypeOf(bias);
    if (b.getRank() != 1 || !sizesCompatible(b.getDimSize(0), outFeatures))
      return emitOptionalError(loc, "linear bias must be [", outFeatures,
                               "], got ", b);
    if (ShapedType::isDynamic(outFeatures))
      outFeatures = b.getDimSize(0);
  }
  Shape shape(in.getShape());
  shape.back() = outFeatures;
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult CholeskyOp::verify() {
  auto t = getInput().getType();
  if (t.getRank() < 2)
    return emitOpError("expects a matrix or a batch of matrices (rank >= 2), "
                       "got rank ")
           << t.getRank();
  int64_t n = t.getDimSize(t.getRank() - 2), m = t.getDimSize(t.getRank() - 1);
  if (!sizesCompatible(n, m))
    return emitOpError("expects square matrices, got ")
           << n << "x" << m;
  return success();
}

//===----------------------------------------------------------------------===//
// Neural-network operators
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult verifySoftmaxLike(OpTy op) {
  int64_t rank = op.getInput().getType().getRank();
  return checkDim(op.getLoc(), "dim", static_cast<int64_t>(op.getDim()),
                  std::max<int64_t>(rank, 1));
}

LogicalResult SoftmaxOp::verify() { return verifySoftmaxLike(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxLike(*this); }

/// Checks weight/bias of a normalization against the trailing
/// `normalizedRank` dimensions of the input.
static LogicalResult verifyNormalization(Operation *op, RankedTensorType in,
                                         int64_t normalizedRank,
                                         ArrayRef<std::pair<StringRef, Value>>
                                             params) {
  if (normalizedRank < 1 || normalizedRank > in.getRank())
    return op->emitOpError("normalized_rank must be in [1, ")
           << in.getRank() << "] for an input of rank " << in.getRank()
           << ", got " << normalizedRank;
  ArrayRef<int64_t> normalized = in.getShape().take_back(normalizedRank);
  for (auto [name, v] : params) {
    if (!v)
      continue;
    auto t = tensorTypeOf(v);
    if (t.getElementType() != in.getElementType())
      return op->emitOpError()
             << name << " has element type " << t.getElementType()
             << " but the input has " << in.getElementType();
    if (t.getRank() != normalizedRank ||
        !llvm::all_of(llvm::zip(t.getShape(), normalized), [](auto p) {
          return sizesCompatible(std::get<0>(p), std::get<1>(p));
        }))
      return op->emitOpError()
             << name << " must have the normalized shape "
             << formatShape(normalized) << ", got "
             << formatShape(t.getShape());
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  if (getEps().isNegative())
    return emitOpError("eps must be non-negative");
  return verifyNormalization(
      *this, getInput().getType(),
      static_cast<int64_t>(getNormalizedRank()),
      {{"weight", getWeight()}, {"bias", getBias()}});
}

LogicalResult RmsNormOp::verify() {
  if (getEps() && getEps()->isNegative())
    return emitOpError("eps must be non-negative");
  return verifyNormalization(*this, getInput().getType(),
                             static_cast<int64_t>(getNormalizedRank()),
                             {{"weight", getWeight()}});
}

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto q = tensorTypeOf(adaptor.getQuery());
  auto k = tensorTypeOf(adaptor.getKey());
  auto v = tensorTypeOf(adaptor.getValue());
  if (failed(checkSameElement(loc, "attention",
                              {adaptor.getQuery(), adaptor.getKey(),
                               adaptor.getValue()})))
    return failure();
  if (q.getRank() < 2 || k.getRank() < 2 || v.getRank() < 2)
    return emitOptionalError(loc, "query, key and value must have rank >= 2");
  int64_t l = q.getDimSize(q.getRank() - 2), e = q.getDimSize(q.getRank() - 1);
  int64_t s = k.getDimSize(k.getRank() - 2);
  if (!sizesCompatible(e, k.getDimSize(k.getRank() - 1)))
    return emitOptionalError(loc, "query and key embedding sizes differ: ",
                             e, " vs ", k.getDimSize(k.getRank() - 1));
  if (!sizesCompatible(s, v.getDimSize(v.getRank() - 2)))
    return emitOptionalError(loc, "key and value sequence lengths differ: ",
                             s, " vs ", v.getDimSize(v.getRank() - 2));
  ShapeResult batch = broadcastShapes({q.getShape().drop_back(2),
                                       k.getShape().drop_back(2),
                                       v.getShape().drop_back(2)});
  if (!batch)
    return emitOptionalError(loc, "attention batch dimensions: ", batch.error);
  if (Value mask = adaptor.getMask()) {
    if (adaptor.getCausal())
      return emitOptionalError(loc, "causal attention takes no explicit mask "
                                    "(as in PyTorch)");
    auto m = tensorTypeOf(mask);
    if (!m.getElementType().isInteger(1) &&
        m.getElementType() != q.getElementType())
      return emitOptionalError(loc, "mask must be i1 or ", q.getElementType(),
                               ", got ", m.getElementType());
    Shape scores(*batch.shape);
    scores.push_back(l);
    scores.push_back(s);
    ShapeResult withMask = broadcastShapes({scores, m.getShape()});
    if (!withMask || withMask.shape->size() != scores.size())
      return emitOptionalError(
          loc, "mask ", formatShape(m.getShape()),
          " does not broadcast to the attention scores ", formatShape(scores));
  }
  Shape shape(*batch.shape);
  shape.push_back(l);
  shape.push_back(v.getDimSize(v.getRank() - 1));
  types.push_back(RankedTensorType::get(shape, q.getElementType()));
  return success();
}

/// Output [.., C, H', W'] of a window op over `in` ([N, C, H, W] or
/// [C, H, W]) with `channels` output channels.
static LogicalResult inferWindowed(std::optional<Location> loc,
                                   StringRef opName, RankedTensorType in,
                                   int64_t channels, ArrayRef<int64_t> kernel,
                                   ArrayRef<int64_t> stride,
                                   ArrayRef<int64_t> padding,
                                   ArrayRef<int64_t> dilation, bool ceilMode,
                                   Type element,
                                   SmallVectorImpl<Type> &types) {
  int64_t rank = in.getRank();
  Shape shape(in.getShape());
  shape[rank - 3] = channels;
  for (int i = 0; i < 2; ++i) {
    if (padding[i] * 2 > kernel[i] && opName != "conv2d")
      return emitOptionalError(loc, "padding (", padding[i],
                               ") must be at most half the kernel size (",
                               kernel[i], ")");
    std::string error;
    std::optional<int64_t> out =
        windowOutputSize(in.getDimSize(rank - 2 + i), kernel[i], stride[i],
                         padding[i], dilation[i], ceilMode, error);
    if (!out)
      return emitOptionalError(loc, opName, " spatial dimension ", i, ": ",
                               error);
    shape[rank - 2 + i] = *out;
  }
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto in = tensorTypeOf(adaptor.getInput());
  auto w = tensorTypeOf(adaptor.getWeight());
  if (failed(checkSameElement(
          loc, "conv2d",
          {adaptor.getInput(), adaptor.getWeight(), adaptor.getBias()})))
    return failure();
  if (in.getRank() != 3 && in.getRank() != 4)
    return emitOptionalError(loc, "conv2d input must have rank 4 ([N, C, H, "
                                  "W]) or 3 ([C, H, W]), got rank ",
                             in.getRank());
  if (w.getRank() != 4)
    return emitOptionalError(loc, "conv2d weight must have rank 4 ([O, C / "
                                  "groups, kH, kW]), got rank ",
                             w.getRank());
  if (failed(checkWindowPair(loc, "stride", adaptor.getStride(), 1)) ||
      failed(checkWindowPair(loc, "padding", adaptor.getPadding(), 0)) ||
      failed(checkWindowPair(loc, "dilation", adaptor.getDilation(), 1)))
    return failure();
  int64_t groups = static_cast<int64_t>(adaptor.getGroups());
  if (groups < 1)
    return emitOptionalError(loc, "groups must be >= 1, got ", groups);
  int64_t c = in.getDimSize(in.getRank() - 3), o = w.getDimSize(0);
  if (!ShapedType::isDynamic(c) && c % groups != 0)
    return emitOptionalError(loc, "input channels (", c,
                             ") are not divisible by groups (", groups, ")");
  if (!ShapedType::isDynamic(o) && o % groups != 0)
    return emitOptionalError(loc, "output channels (", o,
                             ") are not divisible by groups (", groups, ")");
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(w.getDimSize(1)) &&
      c / groups != w.getDimSize(1))
    return emitOptionalError(loc, "weight expects ", w.getDimSize(1),
                             " input channels per group but the input has ",
                             c, " channels in ", groups, " groups");
  if (Value bias = adaptor.getBias()) {
    auto b = tensorTypeOf(bias);
    if (b.getRank() != 1 || !sizesCompatible(b.getDimSize(0), o))
      return emitOptionalError(loc, "conv2d bias must be [", o, "], got ", b);
  }
  Shape kernel = {w.getDimSize(2), w.getDimSize(3)};
  for (int64_t &k : kernel)
    if (ShapedType::isDynamic(k))
      return emitOptionalError(loc, "conv2d kernel sizes must be static");
  return inferWindowed(loc, "conv2d", in, o, kernel, adaptor.getStride(),
                       adaptor.getPadding(), adaptor.getDilation(),
                       /*ceilMode=*/false, in.getElementType(), types);
}

static LogicalResult checkPoolInput(std::optional<Location> loc,
                                    StringRef name, RankedTensorType in) {
  if (in.getRank() != 3 && in.getRank() != 4)
    return emitOptionalError(loc, name, " input must have rank 4 ([N, C, H, "
                                        "W]) or 3 ([C, H, W]), got rank ",
                             in.getRank());
  return success();
}

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto in = tensorTypeOf(adaptor.getInput());
  if (failed(checkPoolInput(loc, "max_pool2d", in)) ||
      failed(checkWindowPair(loc, "kernel", adaptor.getKernel(), 1)) ||
      failed(checkWindowPair(loc, "stride", adaptor.getStride(), 1)) ||
      failed(checkWindowPair(loc, "padding", adaptor.getPadding(), 0)) ||
      failed(checkWindowPair(loc, "dilation", adaptor.getDilation(), 1)))
    return failure();
  return inferWindowed(loc, "max_pool2d", in,
                       in.getDimSize(in.getRank() - 3), adaptor.getKernel(),
                       adaptor.getStride(), adaptor.getPadding(),
                       adaptor.getDilation(), adaptor.getCeilMode(),
                       in.getElementType(), types);
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto in = tensorTypeOf(adaptor.getInput());
  if (failed(checkPoolInput(loc, "avg_pool2d", in)) ||
      failed(checkWindowPair(loc, "kernel", adaptor.getKernel(), 1)) ||
      failed(checkWindowPair(loc, "stride", adaptor.getStride(), 1)) ||
      failed(checkWindowPair(loc, "padding", adaptor.getPadding(), 0)))
    return failure();
  if (auto divisor = adaptor.getDivisorOverride())
    if (static_cast<int64_t>(*divisor) < 1)
      return emitOptionalError(loc, "divisor_override must be >= 1, got ",
                               static_cast<int64_t>(*divisor));
  int64_t dilation[2] = {1, 1};
  return inferWindowed(loc, "avg_pool2d", in,
                       in.getDimSize(in.getRank() - 3), adaptor.getKernel(),
                       adaptor.getStride(), adaptor.getPadding(), dilation,
                       adaptor.getCeilMode(), in.getElementType(), types);
}

//===----------------------------------------------------------------------===//
// Out buffers
//===----------------------------------------------------------------------===//

LogicalResult WriteOutOp::verify() {
  auto value = getValue().getType(), out = getOut().getType();
  auto arg = dyn_cast<BlockArgument>(getOut());
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  if (!arg || !func || arg.getOwner() != &func.getFunctionBody().front())
    return emitOpError("out must be an argument of the enclosing function "
                       "(the caller's buffer)");
  if (value.getElementType() != out.getElementType())
    return emitOpError("value element type ")
           << value.getElementType() << " differs from the out buffer's "
           << out.getElementType();
  if (value.getRank() != out.getRank())
    return emitOpError("value rank ")
           << value.getRank() << " differs from the out buffer's rank "
           << out.getRank();
  for (auto [i, a, b] : llvm::enumerate(value.getShape(), out.getShape()))
    if (!sizesCompatible(a, b))
      return emitOpError("value size ")
             << a << " differs from the out buffer's size " << b
             << " in dimension " << i;
  return success();
}

void WriteOutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // The caller's buffer is written: the op must never be erased or moved
  // across other writes to it.
  effects.emplace_back(MemoryEffects::Write::get(), &getOutMutable());
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

void FusionGroupOp::build(OpBuilder &builder, OperationState &state,
                          StringRef kind, ValueRange inputs,
                          TypeRange resultTypes) {
  state.addAttribute(getKindAttrName(state.name),
                     builder.getStringAttr(kind));
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value v : inputs)
    block->addArgument(v.getType(), v.getLoc());
}

LogicalResult FusionGroupOp::verify() {
  static constexpr StringRef kinds[] = {"elementwise", "reduction", "rows",
                                        "matmul",      "convolution", "single"};
  if (!llvm::is_contained(kinds, getKind()))
    return emitOpError("unknown kind '")
           << getKind()
           << "' (expected elementwise, reduction, rows, matmul, convolution "
              "or single)";
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("has ")
           << getInputs().size() << " inputs but its block has "
           << block.getNumArguments() << " arguments";
  for (auto [i, arg, input] :
       llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError("block argument ")
             << i << " has type " << arg.getType() << " but input " << i
             << " has type " << input.getType();
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().getTypes() << " but its results are "
           << getResultTypes();
  return success();
}
