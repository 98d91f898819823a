//===- ShapeRules.cpp - PyTorch shape rules -------------------------------===//

#include "tgc/Dialect/Tgc/IR/ShapeRules.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::tgc;

static constexpr int64_t kDyn = ShapedType::kDynamic;

static std::string sizeStr(int64_t s) {
  return ShapedType::isDynamic(s) ? "?" : std::to_string(s);
}

std::string mlir::tgc::formatShape(ArrayRef<int64_t> shape) {
  std::string out = "[";
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(shape, os, [&](int64_t s) { os << sizeStr(s); });
  os << "]";
  return out;
}

ShapeResult mlir::tgc::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  Shape result(rank, 1);
  // Which operand fixed each static result size, for error messages.
  SmallVector<int> fixedBy(rank, -1);
  for (auto [operandIdx, shape] : llvm::enumerate(shapes)) {
    size_t offset = rank - shape.size();
    for (auto [i, size] : llvm::enumerate(shape)) {
      int64_t &r = result[offset + i];
      if (size == 1)
        continue;
      if (ShapedType::isDynamic(size)) {
        // `?` against 1 stays `?`; against a static n it must be n (or 1).
        if (r == 1)
          r = kDyn;
        continue;
      }
      if (ShapedType::isDynamic(r) || r == 1) {
        r = size;
        fixedBy[offset + i] = operandIdx;
        continue;
      }
      if (r != size) {
        std::string msg;
        llvm::raw_string_ostream os(msg);
        os << "shapes " << formatShape(shapes[fixedBy[offset + i]])
           << " and " << formatShape(shape)
           << " are not broadcast-compatible: size " << r << " vs " << size
           << " at dimension " << (offset + i) << " of the result";
        return ShapeResult::fail(msg);
      }
    }
  }
  return ShapeResult::ok(std::move(result));
}

ShapeResult mlir::tgc::matmulShape(ArrayRef<int64_t> lhs,
                                   ArrayRef<int64_t> rhs) {
  if (lhs.empty() || rhs.empty())
    return ShapeResult::fail("matmul operands must have rank >= 1, got " +
                             formatShape(lhs) + " and " + formatShape(rhs));
  // 1-D operands are promoted: [k] -> [1, k] on the left, [k, 1] on the
  // right; the added dimension is removed from the result.
  Shape l(lhs), r(rhs);
  bool lhsVec = l.size() == 1, rhsVec = r.size() == 1;
  if (lhsVec)
    l.insert(l.begin(), 1);
  if (rhsVec)
    r.push_back(1);
  int64_t lk = l.back(), rk = r[r.size() - 2];
  if (!sizesCompatible(lk, rk))
    return ShapeResult::fail(
        "matmul contraction sizes differ: " + formatShape(lhs) + " x " +
        formatShape(rhs) + " contracts " + sizeStr(lk) + " with " +
        sizeStr(rk));
  ArrayRef<int64_t> lBatch = ArrayRef<int64_t>(l).drop_back(2);
  ArrayRef<int64_t> rBatch = ArrayRef<int64_t>(r).drop_back(2);
  ShapeResult batch = broadcastShapes({lBatch, rBatch});
  if (!batch)
    return ShapeResult::fail("matmul batch dimensions: " + batch.error);
  Shape result = *batch.shape;
  if (!lhsVec)
    result.push_back(l[l.size() - 2]);
  if (!rhsVec)
    result.push_back(r.back());
  return ShapeResult::ok(std::move(result));
}

ShapeResult mlir::tgc::reduceShape(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> dims, bool keepdim) {
  int64_t rank = input.size();
  SmallVector<bool> reduced(rank, false);
  if (dims.empty() && rank > 0)
    return ShapeResult::fail("expected at least one reduction dimension");
  for (int64_t d : dims) {
    // Rank-0 tensors reduce like PyTorch's: dim 0 (or -1) is accepted.
    if (rank == 0 && d == 0)
      continue;
    if (d < 0 || d >= rank)
      return ShapeResult::fail("reduction dimension " + std::to_string(d) +
                               " is out of range for rank " +
                               std::to_string(rank) +
                               " (negative dims are normalized by the "
                               "importer)");
    if (reduced[d])
      return ShapeResult::fail("reduction dimension " + std::to_string(d) +
                               " is listed twice");
    reduced[d] = true;
  }
  Shape result;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      result.push_back(input[i]);
    else if (keepdim)
      result.push_back(1);
  }
  return ShapeResult::ok(std::move(result));
}

std::optional<int64_t> mlir::tgc::windowOutputSize(
    int64_t input, int64_t kernel, int64_t stride, int64_t padding,
    int64_t dilation, bool ceilMode, std::string &error) {
  if (kernel <= 0 || stride <= 0 || dilation <= 0 || padding < 0) {
    error = "kernel, stride and dilation must be positive and padding "
            "non-negative";
    return std::nullopt;
  }
  if (ShapedType::isDynamic(input))
    return kDyn;
  // PyTorch's pooling_output_shape / conv output size (division rounding
  // down: in ceil mode a window may be wider than the padded input, as
  // max_pool1d(k=2, ceil_mode=True) of one element, which has one output).
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t numerator = input + 2 * padding - span + (ceilMode ? stride - 1 : 0);
  int64_t out = (numerator >= 0 ? numerator / stride
                                : -((-numerator + stride - 1) / stride)) +
                1;
  // The last window must start inside the input or the left padding.
  if (ceilMode && (out - 1) * stride >= input + padding)
    --out;
  if (out < 1) {
    error = "window of size " + std::to_string(span) +
            " does not fit the padded input of size " +
            std::to_string(input + 2 * padding);
    return std::nullopt;
  }
  return out;
}

int64_t mlir::tgc::sliceSize(int64_t size, int64_t start, int64_t end,
                             int64_t step) {
  if (ShapedType::isDynamic(size))
    return kDyn;
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t s = clamp(start), e = clamp(end);
  if (e <= s)
    return 0;
  return (e - s + step - 1) / step;
}

bool mlir::tgc::areCompatibleTensorTypes(TypeRange inferred,
                                         TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [i, a] : llvm::zip(inferred, actual)) {
    auto ti = dyn_cast<RankedTensorType>(i);
    auto ta = dyn_cast<RankedTensorType>(a);
    if (!ti || !ta) {
      if (i != a)
        return false;
      continue;
    }
    if (ti.getElementType() != ta.getElementType() ||
        ti.getRank() != ta.getRank())
      return false;
    for (auto [si, sa] : llvm::zip(ti.getShape(), ta.getShape()))
      if (!sizesCompatible(si, sa))
        return false;
  }
  return true;
}

LogicalResult mlir::tgc::inferElementwiseResult(std::optional<Location> loc,
                                                ArrayRef<Type> operandTypes,
                                                Type resultElement,
                                                SmallVectorImpl<Type> &types) {
  SmallVector<ArrayRef<int64_t>> shapes;
  Type element;
  for (Type t : operandTypes) {
    auto tt = dyn_cast<RankedTensorType>(t);
    if (!tt)
      return emitOptionalError(loc, "expected ranked tensor operands");
    if (element && tt.getElementType() != element)
      return emitOptionalError(
          loc, "operand element types differ (", element, " vs ",
          tt.getElementType(),
          "): type promotion is explicit, insert tgc.convert");
    element = tt.getElementType();
    shapes.push_back(tt.getShape());
  }
  ShapeResult shape = broadcastShapes(shapes);
  if (!shape)
    return emitOptionalError(loc, shape.error);
  types.push_back(
      RankedTensorType::get(*shape.shape, resultElement ? resultElement
                                                        : element));
  return success();
}

LogicalResult mlir::tgc::inferReduceResult(std::optional<Location> loc,
                                           Type inputType,
                                           ArrayRef<int64_t> dims,
                                           bool keepdim, Type resultElement,
                                           SmallVectorImpl<Type> &types) {
  auto tt = dyn_cast<RankedTensorType>(inputType);
  if (!tt)
    return emitOptionalError(loc, "expected a ranked tensor input");
  ShapeResult shape = reduceShape(tt.getShape(), dims, keepdim);
  if (!shape)
    return emitOptionalError(loc, shape.error);
  types.push_back(RankedTensorType::get(
      *shape.shape, resultElement ? resultElement : tt.getElementType()));
  return success();
}

LogicalResult mlir::tgc::checkWindowPair(std::optional<Location> loc,
                                         StringRef name,
                                         ArrayRef<int64_t> values,
                                         int64_t minimum) {
  if (values.size() != 2)
    return emitOptionalError(loc, name, " must have 2 entries (H, W), got ",
                             values.size());
  for (int64_t v : values)
    if (v < minimum)
      return emitOptionalError(loc, name, " entries must be >= ", minimum,
                               ", got ", v);
  return success();
}
