//===- TgcShapeFunctions.cpp - symbolic shape functions of tgc ops --------===//
//
// SymbolicShapeOpInterface for every tgc op: from the symbolic shapes of the
// operands (AffineExprs over ShapeEnv symbols), the symbolic shapes of the
// results, and the constraints the op needs to be well defined.
//
// Rules (DESIGN.md, "No silent concretization"):
// * A size is never compared with its hint and never replaced by a number:
//   what an op needs is a constraint (`size(dim) >= k` for topk), not an
//   equality with the example value.
// * Result sizes are computed from the operands even where the result type
//   is static (the driver checks them against the type). The result type is
//   read only by ops whose shape it defines: constant, full, iota, reshape,
//   expand.
// * Structural properties (ranks, dims in range, static sizes that must
//   agree) are the verifiers' job; shape functions assume verified IR.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tgc;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// "tgc.topk", for reasons.
static StringRef opName(Operation *op) { return op->getName().getStringRef(); }

/// A copy of the symbolic shape of `v`. (ShapeInferenceContext::getShape
/// returns a reference into a map that a later getShape or setShape may
/// reallocate, so shape functions keep copies.)
static SymShape shapeOf(ShapeInferenceContext &ctx, Value v) {
  return SymShape(ctx.getShape(v));
}

static bool isConstant(ShapeInferenceContext &ctx, AffineExpr e, int64_t v) {
  std::optional<int64_t> c = ctx.getEnv().getConstant(e);
  return c && *c == v;
}

/// The product of `sizes` (1 for none): an element count.
static AffineExpr product(ShapeInferenceContext &ctx,
                          ArrayRef<AffineExpr> sizes) {
  AffineExpr p = ctx.getEnv().constant(1);
  for (AffineExpr s : sizes)
    p = p * s;
  return p;
}

/// The shape a result type defines: static sizes as constants, each `?`
/// the value of the next of `dynamicSizes`, in order.
static SymShape shapeFromType(ShapeInferenceContext &ctx, RankedTensorType type,
                              ValueRange dynamicSizes) {
  SymShape shape;
  auto next = dynamicSizes.begin();
  for (int64_t s : type.getShape()) {
    if (!ShapedType::isDynamic(s)) {
      shape.push_back(ctx.getEnv().constant(s));
      continue;
    }
    assert(next != dynamicSizes.end() && "too few size operands");
    shape.push_back(ctx.getIndexValue(*next++));
  }
  return shape;
}

/// Every result gets the shape of `input`.
static LogicalResult inferSameShape(ShapeInferenceContext &ctx, Value input,
                                    ValueRange results) {
  SymShape shape = shapeOf(ctx, input);
  for (Value r : results)
    ctx.setShape(r, shape);
  return success();
}

/// PyTorch broadcasting of all `operands` into `result`.
static LogicalResult inferBroadcast(ShapeInferenceContext &ctx, Operation *op,
                                    ValueRange operands, Value result) {
  SmallVector<SymShape> shapes;
  for (Value v : operands)
    shapes.push_back(shapeOf(ctx, v));
  SmallVector<ArrayRef<AffineExpr>> refs(shapes.begin(), shapes.end());
  FailureOr<SymShape> shape = ctx.broadcast(refs, opName(op));
  if (failed(shape))
    return failure();
  ctx.setShape(result, *shape);
  return success();
}

/// `input` with `dims` removed, or set to 1 with `keepdim`. A 0-d input
/// reduces over its only "dim 0" to a 0-d result.
static SymShape reducedShape(ShapeInferenceContext &ctx,
                             ArrayRef<AffineExpr> input, ArrayRef<int64_t> dims,
                             bool keepdim) {
  SymShape shape;
  for (auto [i, size] : llvm::enumerate(input)) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      shape.push_back(size);
    else if (keepdim)
      shape.push_back(ctx.getEnv().constant(1));
  }
  return shape;
}

/// Requires `lhs[i] == rhs[i]` for every i; the reason is
/// "<prefix><i><what>".
static LogicalResult requireSameSizes(ShapeInferenceContext &ctx,
                                      ArrayRef<AffineExpr> lhs,
                                      ArrayRef<AffineExpr> rhs,
                                      const Twine &prefix, StringRef what) {
  for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(lhs, rhs))) {
    auto [a, b] = pair;
    if (failed(ctx.require(ConstraintKind::eq, a, b, prefix + Twine(i) + what)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Slices and windows
//===----------------------------------------------------------------------===//

/// Length of x[start:end:step] along a dimension of size `n` with Python's
/// rules: negative bounds count from the end, both are clamped to [0, n],
/// INT64_MAX as `end` means "to the end". Exact for every n >= 0; min/max
/// are ShapeEnv Min/Max symbols, which fold when the ranges decide them.
static AffineExpr sliceLength(ShapeEnv &env, AffineExpr n, int64_t start,
                              int64_t end, int64_t step) {
  if (std::optional<int64_t> size = env.getConstant(n))
    return env.constant(sliceSize(*size, start, end, step));
  auto c = [&](int64_t v) { return env.constant(v); };
  bool toEnd = end == std::numeric_limits<int64_t>::max();
  AffineExpr length;
  if (toEnd && start == 0) {
    length = n;
  } else if (toEnd && start > 0) {
    // n - min(start, n)
    length = env.createMax({n - start, c(0)});
  } else if (toEnd) {
    // n - max(n + start, 0)
    length = env.createMin({c(-start), n});
  } else if ((start >= 0) == (end >= 0) && end <= start) {
    // Both bounds from one side, end before start: empty for every n.
    length = c(0);
  } else if (start >= 0 && end >= 0) {
    // min(end, n) - min(start, n)
    length = env.createMin({env.createMax({n - start, c(0)}), c(end - start)});
  } else if (start < 0 && end < 0) {
    // max(n + end, 0) - max(n + start, 0)
    length = env.createMin({env.createMax({n + end, c(0)}), c(end - start)});
  } else if (start >= 0) {
    // end < 0: max(n + end, 0) - min(start, n), clamped at 0.
    length = env.createMax({n + (end - start), c(0)});
  } else {
    // start < 0 <= end: min(end, n) - max(n + start, 0), clamped at 0.
    length = env.createMax(
        {env.createMin({c(end), n}) - env.createMax({n + start, c(0)}), c(0)});
  }
  return step == 1 ? length : length.ceilDiv(step);
}

/// One spatial dimension of a convolution or pooling window: the output
/// size, after requiring that the window fits the padded input.
///
/// Floor mode: (in + 2p - d(k-1) - 1) floordiv s + 1.
/// Ceil mode: (in + 2p - d(k-1) - 1 + s - 1) floordiv s + 1, then PyTorch's
/// correction "drop the last window when it starts in the right padding",
/// `(out - 1) * s >= in + p  ->  out - 1`. The windows that start before
/// in + p number (in + p - 1) floordiv s + 1, and the correction removes at
/// most one window, so the corrected size is exactly
/// min(ceil-mode size, (in + p - 1) floordiv s + 1): a Min symbol that
/// folds whenever the ranges decide it (always, for a static input).
static FailureOr<AffineExpr> windowOutputExpr(ShapeInferenceContext &ctx,
                                              Operation *op, int64_t dim,
                                              AffineExpr in, AffineExpr kernel,
                                              int64_t stride, int64_t padding,
                                              int64_t dilation, bool ceilMode) {
  ShapeEnv &env = ctx.getEnv();
  AffineExpr span = (kernel - 1) * dilation + 1;
  AffineExpr padded = in + 2 * padding;
  // In ceil mode a window may be wider than the padded input when it
  // starts inside it (one output): PyTorch requires an output size >= 1.
  if (failed(ctx.require(ConstraintKind::ge,
                         ceilMode ? padded + (stride - 1) : padded, span,
                         opName(op) + " needs the window (dilation * " +
                             "(kernel - 1) + 1) to fit dim " + Twine(dim) +
                             " plus padding (2 * " + Twine(padding) + ")" +
                             (ceilMode ? " and stride - 1" : ""))))
    return failure();
  if (ceilMode && padding == 0 &&
      failed(ctx.require(ConstraintKind::ge, in, env.constant(1),
                         opName(op) + " needs dim " + Twine(dim) +
                             " to hold a window's start")))
    return failure();
  AffineExpr numerator = padded - span;
  if (!ceilMode)
    return numerator.floorDiv(stride) + 1;
  AffineExpr ceilSize = (numerator + (stride - 1)).floorDiv(stride) + 1;
  AffineExpr startsInside = (in + (padding - 1)).floorDiv(stride) + 1;
  return env.createMin({ceilSize, startsInside});
}

/// [N, C, H, W] or [C, H, W] -> [..., channels, H', W'].
static LogicalResult
inferWindowed(ShapeInferenceContext &ctx, Operation *op, Value input,
              AffineExpr channels, ArrayRef<AffineExpr> kernel,
              ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
              ArrayRef<int64_t> dilation, bool ceilMode, Value result) {
  SymShape shape = shapeOf(ctx, input);
  int64_t rank = shape.size();
  shape[rank - 3] = channels;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t dim = rank - 2 + i;
    FailureOr<AffineExpr> size =
        windowOutputExpr(ctx, op, dim, shape[dim], kernel[i], stride[i],
                         padding[i], dilation[i], ceilMode);
    if (failed(size))
      return failure();
    shape[dim] = *size;
  }
  ctx.setShape(result, shape);
  return success();
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ctx.setShape(getResult(), shapeFromType(ctx, getType(), {}));
  return success();
}

LogicalResult FullOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ctx.setShape(getResult(), shapeFromType(ctx, getType(), getDynamicSizes()));
  return success();
}

LogicalResult PhiloxUniformOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ctx.setShape(getResult(), shapeFromType(ctx, getType(), getDynamicSizes()));
  return success();
}

LogicalResult IotaOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SmallVector<Value, 1> sizes;
  if (Value size = getSize())
    sizes.push_back(size);
  ctx.setShape(getResult(), shapeFromType(ctx, getType(), sizes));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise: same shape in and out
//===----------------------------------------------------------------------===//

#define TGC_SAME_SHAPE_OP(OP)                                                  \
  LogicalResult OP::inferSymbolicShapes(ShapeInferenceContext &ctx) {          \
    return inferSameShape(ctx, getInput(), getResult());                       \
  }

TGC_SAME_SHAPE_OP(NegOp)
TGC_SAME_SHAPE_OP(AbsOp)
TGC_SAME_SHAPE_OP(ReluOp)
TGC_SAME_SHAPE_OP(ExpOp)
TGC_SAME_SHAPE_OP(Exp2Op)
TGC_SAME_SHAPE_OP(Expm1Op)
TGC_SAME_SHAPE_OP(LogOp)
TGC_SAME_SHAPE_OP(Log2Op)
TGC_SAME_SHAPE_OP(Log1pOp)
TGC_SAME_SHAPE_OP(SqrtOp)
TGC_SAME_SHAPE_OP(RsqrtOp)
TGC_SAME_SHAPE_OP(SinOp)
TGC_SAME_SHAPE_OP(CosOp)
TGC_SAME_SHAPE_OP(TanhOp)
TGC_SAME_SHAPE_OP(SigmoidOp)
TGC_SAME_SHAPE_OP(ErfOp)
TGC_SAME_SHAPE_OP(SiluOp)
TGC_SAME_SHAPE_OP(ReciprocalOp)
TGC_SAME_SHAPE_OP(FloorOp)
TGC_SAME_SHAPE_OP(CeilOp)
TGC_SAME_SHAPE_OP(RoundOp)
TGC_SAME_SHAPE_OP(LogicalNotOp)
TGC_SAME_SHAPE_OP(GeluOp)
TGC_SAME_SHAPE_OP(ClampOp)
TGC_SAME_SHAPE_OP(ConvertOp)
// Softmax-like ops normalize along `dim`; a size-0 dim is well defined
// (empty result), so there is no constraint.
TGC_SAME_SHAPE_OP(SoftmaxOp)
TGC_SAME_SHAPE_OP(LogSoftmaxOp)

#undef TGC_SAME_SHAPE_OP

//===----------------------------------------------------------------------===//
// Elementwise with broadcasting
//===----------------------------------------------------------------------===//

#define TGC_BROADCAST_BINARY_OP(OP)                                            \
  LogicalResult OP::inferSymbolicShapes(ShapeInferenceContext &ctx) {          \
    return inferBroadcast(ctx, *this, {getLhs(), getRhs()}, getResult());      \
  }

TGC_BROADCAST_BINARY_OP(AddOp)
TGC_BROADCAST_BINARY_OP(SubOp)
TGC_BROADCAST_BINARY_OP(MulOp)
TGC_BROADCAST_BINARY_OP(PowOp)
TGC_BROADCAST_BINARY_OP(MaximumOp)
TGC_BROADCAST_BINARY_OP(MinimumOp)
TGC_BROADCAST_BINARY_OP(RemainderOp)
TGC_BROADCAST_BINARY_OP(Atan2Op)
TGC_BROADCAST_BINARY_OP(LogicalAndOp)
TGC_BROADCAST_BINARY_OP(LogicalOrOp)
TGC_BROADCAST_BINARY_OP(DivOp)
TGC_BROADCAST_BINARY_OP(CmpOp)

#undef TGC_BROADCAST_BINARY_OP

LogicalResult WhereOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  return inferBroadcast(ctx, *this,
                        {getCondition(), getTrueValue(), getFalseValue()},
                        getResult());
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Reductions with an identity (sum, mean, var, a finite non-negative norm)
// require nothing of the sizes: var and norm return nan/inf for too few
// elements, as in PyTorch. Those without one (amax, max, argmax, an
// infinite or negative norm) need each reduced dim to be non-empty: a
// constraint `size >= 1` (implied, so no guard, where 0/1 specialization
// gives the size the range [2, inf]; a static 0 is a verifier error).
static LogicalResult requireNonEmpty(ShapeInferenceContext &ctx, Operation *op,
                                     ArrayRef<AffineExpr> input,
                                     ArrayRef<int64_t> dims) {
  for (int64_t d : dims)
    if (d >= 0 && d < static_cast<int64_t>(input.size()) &&
        failed(ctx.require(ConstraintKind::ge, input[d],
                           ctx.getEnv().constant(1),
                           opName(op) + " needs dim " + Twine(d) +
                               " to be non-empty (the reduction has no "
                               "identity)")))
      return failure();
  return success();
}

static bool hasIdentity(Operation *op) {
  if (isa<AmaxOp, AminOp>(op))
    return false;
  if (auto norm = dyn_cast<NormOp>(op)) {
    double p = norm.getP().convertToDouble();
    return p >= 0 && !std::isinf(p);
  }
  return true;
}

#define TGC_REDUCE_OP(OP)                                                      \
  LogicalResult OP::inferSymbolicShapes(ShapeInferenceContext &ctx) {          \
    SymShape input = shapeOf(ctx, getInput());                                 \
    if (!hasIdentity(*this) &&                                                 \
        failed(requireNonEmpty(ctx, *this, input, getDims())))                 \
      return failure();                                                        \
    ctx.setShape(getResult(),                                                  \
                 reducedShape(ctx, input, getDims(), getKeepdim()));           \
    return success();                                                          \
  }

TGC_REDUCE_OP(SumOp)
TGC_REDUCE_OP(MeanOp)
TGC_REDUCE_OP(AmaxOp)
TGC_REDUCE_OP(AminOp)
TGC_REDUCE_OP(VarOp)
TGC_REDUCE_OP(NormOp)

#undef TGC_REDUCE_OP

#define TGC_DIM_REDUCE_OP(OP, ...)                                             \
  LogicalResult OP::inferSymbolicShapes(ShapeInferenceContext &ctx) {          \
    int64_t dim = static_cast<int64_t>(getDim());                              \
    SymShape input = shapeOf(ctx, getInput());                                 \
    if (failed(requireNonEmpty(ctx, *this, input, dim)))                       \
      return failure();                                                        \
    SymShape shape = reducedShape(ctx, input, dim, getKeepdim());              \
    for (Value result : {__VA_ARGS__})                                         \
      ctx.setShape(result, shape);                                             \
    return success();                                                          \
  }

TGC_DIM_REDUCE_OP(ArgmaxOp, getResult())
TGC_DIM_REDUCE_OP(ArgminOp, getResult())
TGC_DIM_REDUCE_OP(MaxOp, getValues(), getIndices())
TGC_DIM_REDUCE_OP(MinOp, getValues(), getIndices())

#undef TGC_DIM_REDUCE_OP

LogicalResult TopkOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ShapeEnv &env = ctx.getEnv();
  int64_t k = static_cast<int64_t>(getK());
  int64_t dim = static_cast<int64_t>(getDim());
  SymShape shape = shapeOf(ctx, getInput());
  // A 0-d input is a 1-element vector; the result stays 0-d.
  AffineExpr size = shape.empty() ? env.constant(1) : shape[dim];
  if (failed(ctx.require(ConstraintKind::ge, size, env.constant(k),
                         "tgc.topk needs k (" + Twine(k) + ") <= size of dim " +
                             Twine(dim))))
    return failure();
  if (!shape.empty())
    shape[dim] = env.constant(k);
  ctx.setShape(getValues(), shape);
  ctx.setShape(getIndices(), shape);
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  RankedTensorType type = getType();
  SymShape input = shapeOf(ctx, getInput());
  AffineExpr count = product(ctx, input);
  SymShape shape;
  auto numDynamic = llvm::count_if(type.getShape(), ShapedType::isDynamic);
  if (getDynamicSizes().empty() && numDynamic == 1) {
    // PyTorch's -1: the element count divided by the known sizes.
    int64_t known = 1;
    for (int64_t s : type.getShape())
      if (!ShapedType::isDynamic(s))
        known *= s;
    if (known == 0)
      return emitOpError("cannot infer the `?` size of ")
             << type << ": the static sizes have 0 elements, so any size "
             << "would do";
    if (failed(ctx.require(ConstraintKind::divisible, count,
                           ctx.getEnv().constant(known),
                           "tgc.reshape needs the element count to be a "
                           "multiple of " +
                               Twine(known) + " (the static sizes)")))
      return failure();
    for (int64_t s : type.getShape())
      shape.push_back(ShapedType::isDynamic(s) ? count.floorDiv(known)
                                               : ctx.getEnv().constant(s));
  } else {
    shape = shapeFromType(ctx, type, getDynamicSizes());
  }
  if (failed(ctx.require(ConstraintKind::eq, count, product(ctx, shape),
                         "tgc.reshape preserves the element count")))
    return failure();
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult PermuteOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape input = shapeOf(ctx, getInput());
  SymShape shape;
  for (int64_t p : getPermutation())
    shape.push_back(input[p]);
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult ExpandOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  RankedTensorType inType = getInput().getType(), outType = getType();
  SymShape input = shapeOf(ctx, getInput());
  int64_t offset = outType.getRank() - inType.getRank();
  auto next = getDynamicSizes().begin();
  SymShape shape;
  for (int64_t i = 0; i < outType.getRank(); ++i) {
    int64_t o = outType.getDimSize(i);
    bool aligned = i >= offset;
    if (!ShapedType::isDynamic(o))
      shape.push_back(ctx.getEnv().constant(o));
    else if (aligned && inType.isDynamicDim(i - offset))
      shape.push_back(input[i - offset]); // keeps its size (PyTorch's -1)
    else
      shape.push_back(ctx.getIndexValue(*next++));
    if (!aligned)
      continue;
    // Only a size-1 dim stretches. A symbolic size is not 1 (sizes 0 and 1
    // are specialized), so it must be the result's.
    AffineExpr e = input[i - offset];
    if (isConstant(ctx, e, 1))
      continue;
    if (failed(ctx.require(ConstraintKind::eq, e, shape.back(),
                           "tgc.expand: dim " + Twine(i - offset) +
                               " of the input is not 1, so it must equal "
                               "dim " +
                               Twine(i) + " of the result")))
      return failure();
  }
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult SliceOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  int64_t dim = static_cast<int64_t>(getDim());
  SymShape shape = shapeOf(ctx, getInput());
  shape[dim] = sliceLength(
      ctx.getEnv(), shape[dim], static_cast<int64_t>(getStart()),
      static_cast<int64_t>(getEnd()), static_cast<int64_t>(getStep()));
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult ConcatOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  int64_t dim = static_cast<int64_t>(getDim());
  SymShape shape = shapeOf(ctx, getInputs().front());
  for (auto [idx, v] : llvm::enumerate(getInputs().drop_front())) {
    SymShape other = shapeOf(ctx, v);
    for (int64_t d = 0, e = shape.size(); d < e; ++d) {
      if (d == dim) {
        shape[d] = shape[d] + other[d];
        continue;
      }
      if (failed(ctx.require(ConstraintKind::eq, other[d], shape[d],
                             "tgc.concat: dim " + Twine(d) + " of input " +
                                 Twine(idx + 1) + " must equal input 0's")))
        return failure();
    }
  }
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult SqueezeOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape input = shapeOf(ctx, getInput());
  ArrayRef<int64_t> dims = getDims();
  SymShape shape;
  for (auto [i, size] : llvm::enumerate(input)) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(i))) {
      shape.push_back(size);
      continue;
    }
    // Static 1 by the verifier: dropped by require when it is.
    if (failed(
            ctx.require(ConstraintKind::eq, size, ctx.getEnv().constant(1),
                        "tgc.squeeze: dim " + Twine(i) + " must have size 1")))
      return failure();
  }
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult UnsqueezeOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape shape = shapeOf(ctx, getInput());
  shape.insert(shape.begin() + static_cast<int64_t>(getDim()),
               ctx.getEnv().constant(1));
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult PadOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape shape = shapeOf(ctx, getInput());
  for (auto [size, low, high] : llvm::zip_equal(shape, getLow(), getHigh()))
    size = size + (low + high);
  ctx.setShape(getResult(), shape);
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  int64_t dim = static_cast<int64_t>(getDim());
  SymShape input = shapeOf(ctx, getInput());
  SymShape index = shapeOf(ctx, getIndex());
  for (int64_t d = 0, e = index.size(); d < e; ++d) {
    if (d == dim)
      continue;
    if (failed(ctx.require(ConstraintKind::le, index[d], input[d],
                           "tgc.gather needs dim " + Twine(d) +
                               " of the index <= dim " + Twine(d) +
                               " of the input")))
      return failure();
  }
  ctx.setShape(getResult(), index);
  return success();
}

LogicalResult IndexSelectOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  int64_t dim = static_cast<int64_t>(getDim());
  SymShape shape = shapeOf(ctx, getInput());
  SymShape index = shapeOf(ctx, getIndex());
  shape[dim] = index.empty() ? ctx.getEnv().constant(1) : index[0];
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult EmbeddingOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape shape = shapeOf(ctx, getIndices());
  shape.push_back(ctx.getDim(getWeight(), 1));
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult ScatterAddOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  int64_t dim = static_cast<int64_t>(getDim());
  SymShape base = shapeOf(ctx, getBase());
  SymShape index = shapeOf(ctx, getIndex());
  SymShape src = shapeOf(ctx, getSrc());
  auto require = [&](ConstraintKind kind, AffineExpr lhs, AffineExpr rhs,
                     const Twine &what) {
    return ctx.require(kind, lhs, rhs, "tgc.scatter_add needs " + what);
  };
  for (int64_t d = 0, e = base.size(); d < e; ++d) {
    std::string at = (" in dim " + Twine(d)).str();
    if (isSliceForm()) {
      LogicalResult ok =
          d == dim ? require(ConstraintKind::eq, src[d], index[0],
                             "src's size along dim == the index's length")
                   : require(ConstraintKind::eq, src[d], base[d],
                             "src's size == base's" + at);
      if (failed(ok))
        return failure();
      continue;
    }
    if (failed(require(ConstraintKind::le, index[d], src[d],
                       "the index's size <= src's" + at)))
      return failure();
    if (d != dim && failed(require(ConstraintKind::le, index[d], base[d],
                                   "the index's size <= base's" + at)))
      return failure();
  }
  ctx.setShape(getResult(), base);
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  AffineExpr one = ctx.getEnv().constant(1);
  SymShape lhs = shapeOf(ctx, getLhs()), rhs = shapeOf(ctx, getRhs());
  // torch.matmul's rank rules: [k] is [1, k] on the left and [k, 1] on the
  // right, and the added dim is dropped from the result.
  bool lhsVector = lhs.size() == 1, rhsVector = rhs.size() == 1;
  if (lhsVector)
    lhs.insert(lhs.begin(), one);
  if (rhsVector)
    rhs.push_back(one);
  if (failed(ctx.require(ConstraintKind::eq, rhs[rhs.size() - 2], lhs.back(),
                         "tgc.matmul contraction sizes must be equal")))
    return failure();
  ArrayRef<AffineExpr> lhsBatch = ArrayRef<AffineExpr>(lhs).drop_back(2);
  ArrayRef<AffineExpr> rhsBatch = ArrayRef<AffineExpr>(rhs).drop_back(2);
  SymShape shape;
  if (!lhsBatch.empty() || !rhsBatch.empty()) {
    FailureOr<SymShape> batch =
        ctx.broadcast({lhsBatch, rhsBatch}, "tgc.matmul batch dims");
    if (failed(batch))
      return failure();
    shape = *batch;
  }
  if (!lhsVector)
    shape.push_back(lhs[lhs.size() - 2]);
  if (!rhsVector)
    shape.push_back(rhs.back());
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult BmmOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape lhs = shapeOf(ctx, getLhs()), rhs = shapeOf(ctx, getRhs());
  if (failed(ctx.require(ConstraintKind::eq, rhs[0], lhs[0],
                         "tgc.bmm batch sizes must be equal")) ||
      failed(ctx.require(ConstraintKind::eq, rhs[1], lhs[2],
                         "tgc.bmm contraction sizes must be equal")))
    return failure();
  ctx.setShape(getResult(), {lhs[0], lhs[1], rhs[2]});
  return success();
}

LogicalResult LinearOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape shape = shapeOf(ctx, getInput());
  SymShape weight = shapeOf(ctx, getWeight());
  if (failed(ctx.require(ConstraintKind::eq, shape.back(), weight[1],
                         "tgc.linear: the input's last dim must equal the "
                         "weight's in_features (dim 1)")))
    return failure();
  if (Value bias = getBias())
    if (failed(ctx.require(ConstraintKind::eq, ctx.getDim(bias, 0), weight[0],
                           "tgc.linear: the bias size must equal the "
                           "weight's out_features (dim 0)")))
      return failure();
  shape.back() = weight[0];
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult CholeskyOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape shape = shapeOf(ctx, getInput());
  int64_t rank = shape.size();
  if (failed(ctx.require(ConstraintKind::eq, shape[rank - 1], shape[rank - 2],
                         "tgc.cholesky needs square matrices")))
    return failure();
  ctx.setShape(getResult(), shape);
  return success();
}

//===----------------------------------------------------------------------===//
// Neural-network operators
//===----------------------------------------------------------------------===//

/// weight/bias of a normalization have the shape of the trailing
/// `normalizedRank` dims of the input.
static LogicalResult requireNormalizedShape(ShapeInferenceContext &ctx,
                                            Operation *op,
                                            ArrayRef<AffineExpr> input,
                                            int64_t normalizedRank, Value param,
                                            StringRef name) {
  if (!param)
    return success();
  int64_t offset = input.size() - normalizedRank;
  SymShape shape = shapeOf(ctx, param);
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (failed(ctx.require(ConstraintKind::eq, size, input[offset + i],
                           opName(op) + ": dim " + Twine(i) + " of the " +
                               name + " must equal dim " + Twine(offset + i) +
                               " of the input")))
      return failure();
  }
  return success();
}

LogicalResult LayerNormOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape shape = shapeOf(ctx, getInput());
  int64_t normalizedRank = static_cast<int64_t>(getNormalizedRank());
  if (failed(requireNormalizedShape(ctx, *this, shape, normalizedRank,
                                    getWeight(), "weight")) ||
      failed(requireNormalizedShape(ctx, *this, shape, normalizedRank,
                                    getBias(), "bias")))
    return failure();
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult RmsNormOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape shape = shapeOf(ctx, getInput());
  if (failed(requireNormalizedShape(ctx, *this, shape,
                                    static_cast<int64_t>(getNormalizedRank()),
                                    getWeight(), "weight")))
    return failure();
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult
ScaledDotProductAttentionOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  SymShape q = shapeOf(ctx, getQuery());
  SymShape k = shapeOf(ctx, getKey());
  SymShape v = shapeOf(ctx, getValue());
  AffineExpr l = q[q.size() - 2], s = k[k.size() - 2];
  if (failed(ctx.require(ConstraintKind::eq, k.back(), q.back(),
                         "tgc.scaled_dot_product_attention: query and key "
                         "embedding sizes must be equal")) ||
      failed(ctx.require(ConstraintKind::eq, v[v.size() - 2], s,
                         "tgc.scaled_dot_product_attention: key and value "
                         "sequence lengths must be equal")))
    return failure();
  ArrayRef<AffineExpr> qBatch = ArrayRef<AffineExpr>(q).drop_back(2);
  ArrayRef<AffineExpr> kBatch = ArrayRef<AffineExpr>(k).drop_back(2);
  ArrayRef<AffineExpr> vBatch = ArrayRef<AffineExpr>(v).drop_back(2);
  SymShape shape;
  if (!qBatch.empty() || !kBatch.empty() || !vBatch.empty()) {
    FailureOr<SymShape> batch = ctx.broadcast(
        {qBatch, kBatch, vBatch}, "tgc.scaled_dot_product_attention batch");
    if (failed(batch))
      return failure();
    shape = *batch;
  }
  if (Value mask = getMask()) {
    // The mask is added to the scores [batch..., L, S]: it broadcasts *to*
    // them, so the broadcast must leave the scores' shape unchanged.
    SymShape scores = shape;
    scores.push_back(l);
    scores.push_back(s);
    SymShape maskShape = shapeOf(ctx, mask);
    FailureOr<SymShape> broadcast = ctx.broadcast(
        {scores, maskShape}, "tgc.scaled_dot_product_attention mask");
    if (failed(broadcast) ||
        failed(requireSameSizes(ctx, *broadcast, scores,
                                "tgc.scaled_dot_product_attention: the mask "
                                "must not widen dim ",
                                " of the scores")))
      return failure();
  }
  shape.push_back(l);
  shape.push_back(v.back());
  ctx.setShape(getResult(), shape);
  return success();
}

LogicalResult Conv2dOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  int64_t groups = static_cast<int64_t>(getGroups());
  SymShape weight = shapeOf(ctx, getWeight());
  AffineExpr channels =
      ctx.getDim(getInput(), getInput().getType().getRank() - 3);
  if (failed(ctx.require(ConstraintKind::eq, channels, weight[1] * groups,
                         "tgc.conv2d: input channels must equal weight dim "
                         "1 * groups (" +
                             Twine(groups) + ")")))
    return failure();
  if (groups > 1 &&
      failed(ctx.require(ConstraintKind::divisible, weight[0],
                         ctx.getEnv().constant(groups),
                         "tgc.conv2d: output channels must be a multiple of "
                         "groups (" +
                             Twine(groups) + ")")))
    return failure();
  if (Value bias = getBias())
    if (failed(ctx.require(ConstraintKind::eq, ctx.getDim(bias, 0), weight[0],
                           "tgc.conv2d: the bias size must equal the output "
                           "channels (weight dim 0)")))
      return failure();
  return inferWindowed(ctx, *this, getInput(), weight[0],
                       {weight[2], weight[3]}, getStride(), getPadding(),
                       getDilation(), /*ceilMode=*/false, getResult());
}

/// The output gradient's spatial sizes are the convolution's window
/// outputs over the input's `in` (expressions) with `kernel`.
static LogicalResult
requireWindowOutputs(ShapeInferenceContext &ctx, Operation *op,
                     ArrayRef<AffineExpr> in, ArrayRef<AffineExpr> kernel,
                     const SymShape &dy, ArrayRef<int64_t> stride,
                     ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation) {
  for (int i = 0; i < 2; ++i) {
    FailureOr<AffineExpr> out =
        windowOutputExpr(ctx, op, 2 + i, in[i], kernel[i], stride[i],
                         padding[i], dilation[i], /*ceilMode=*/false);
    if (failed(out) ||
        failed(ctx.require(ConstraintKind::eq, dy[2 + i], *out,
                           op->getName().getStringRef() +
                               ": the output gradient's spatial sizes must "
                               "be the convolution's output sizes")))
      return failure();
  }
  return success();
}

LogicalResult
Conv2dBackwardInputOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ShapeEnv &env = ctx.getEnv();
  int64_t groups = static_cast<int64_t>(getGroups());
  SymShape dy = shapeOf(ctx, getGradOutput());
  SymShape weight = shapeOf(ctx, getWeight());
  ArrayRef<int64_t> shape = getResult().getType().getShape();
  if (failed(ctx.require(ConstraintKind::eq, weight[0], dy[1],
                         "tgc.conv2d_backward_input: the weight's output "
                         "channels must be the output gradient's")))
    return failure();
  SymShape result{dy[0], weight[1] * groups, env.constant(shape[2]),
                  env.constant(shape[3])};
  if (failed(requireWindowOutputs(ctx, *this, {result[2], result[3]},
                                  {weight[2], weight[3]}, dy, getStride(),
                                  getPadding(), getDilation())))
    return failure();
  ctx.setShape(getResult(), result);
  return success();
}

LogicalResult
Conv2dBackwardWeightOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ShapeEnv &env = ctx.getEnv();
  int64_t groups = static_cast<int64_t>(getGroups());
  SymShape dy = shapeOf(ctx, getGradOutput());
  SymShape x = shapeOf(ctx, getInput());
  ArrayRef<int64_t> kernel = getKernel();
  SymShape k{env.constant(kernel[0]), env.constant(kernel[1])};
  if (failed(ctx.require(ConstraintKind::eq, x[0], dy[0],
                         "tgc.conv2d_backward_weight: the input's batch must "
                         "be the output gradient's")) ||
      (groups > 1 &&
       failed(ctx.require(ConstraintKind::divisible, x[1], env.constant(groups),
                          "tgc.conv2d_backward_weight: input channels must "
                          "be a multiple of groups (" +
                              Twine(groups) + ")"))) ||
      failed(requireWindowOutputs(ctx, *this, {x[2], x[3]}, k, dy, getStride(),
                                  getPadding(), getDilation())))
    return failure();
  ctx.setShape(getResult(), {dy[1], x[1].floorDiv(groups), k[0], k[1]});
  return success();
}

LogicalResult MaxPool2dOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ShapeEnv &env = ctx.getEnv();
  ArrayRef<int64_t> kernel = getKernel();
  AffineExpr channels =
      ctx.getDim(getInput(), getInput().getType().getRank() - 3);
  return inferWindowed(ctx, *this, getInput(), channels,
                       {env.constant(kernel[0]), env.constant(kernel[1])},
                       getStride(), getPadding(), getDilation(), getCeilMode(),
                       getResult());
}

LogicalResult AvgPool2dOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  ShapeEnv &env = ctx.getEnv();
  ArrayRef<int64_t> kernel = getKernel();
  AffineExpr channels =
      ctx.getDim(getInput(), getInput().getType().getRank() - 3);
  int64_t dilation[2] = {1, 1};
  return inferWindowed(ctx, *this, getInput(), channels,
                       {env.constant(kernel[0]), env.constant(kernel[1])},
                       getStride(), getPadding(), dilation, getCeilMode(),
                       getResult());
}

//===----------------------------------------------------------------------===//
// Out buffers
//===----------------------------------------------------------------------===//

LogicalResult WriteOutOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  // The buffer's sizes are related to the value's by constraints (guards on
  // the buffer), never assumed: `topk(x[s0], 10, out=v[10])` needs nothing
  // of s0 here.
  SymShape value = shapeOf(ctx, getValue());
  SymShape out = shapeOf(ctx, getOut());
  return requireSameSizes(ctx, out, value, "tgc.write_out: dim ",
                          " of the value must equal the out buffer's");
}

//===----------------------------------------------------------------------===//
// Fusion groups: the shapes of the ops inside, yielded out.
//===----------------------------------------------------------------------===//

LogicalResult FusionGroupOp::inferSymbolicShapes(ShapeInferenceContext &ctx) {
  Block &block = getBody().front();
  for (auto [arg, input] : llvm::zip(block.getArguments(), getInputs()))
    ctx.setShape(arg, ctx.getShape(input));
  for (Operation &op : block.without_terminator()) {
    auto iface = dyn_cast<SymbolicShapeOpInterface>(op);
    if (!iface)
      continue;
    ctx.setCurrentOp(&op);
    if (failed(iface.inferSymbolicShapes(ctx)))
      return failure();
  }
  ctx.setCurrentOp(*this);
  auto yield = cast<YieldOp>(block.getTerminator());
  for (auto [result, value] : llvm::zip(getResults(), yield.getValues()))
    ctx.setShape(result, ctx.getShape(value));
  return success();
}

LogicalResult YieldOp::inferSymbolicShapes(ShapeInferenceContext &) {
  return success();
}
