//===- ShapeOps.cpp - creation, shape manipulation and indexing -----------===//
//
// Ops that move elements without arithmetic: they copy raw elements, so
// values pass through bit for bit. Indices out of range are errors, never
// reads outside a tensor.
//
//===----------------------------------------------------------------------===//

#include "ReferenceOps.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <array>
#include <cstring>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::ref;
using namespace mlir::tgc::ref::eval;

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

FailureOr<HostTensor> eval::tensorFromElements(Operation *op,
                                               ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  std::optional<DType> dtype = dtypeOf(type.getElementType());
  if (!dtype || !type.hasStaticShape())
    return op->emitOpError() << "constant of type " << type
                             << " is not supported by the reference "
                                "interpreter";
  HostTensor t(*dtype, type.getShape());
  if (t.numel() != type.getNumElements())
    return t; // not allocated: evalOp reports it
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    int64_t i = 0;
    if (isFloatDType(*dtype)) {
      for (APFloat v : dense.getValues<APFloat>())
        t.setFloat(i++, v.convertToDouble());
    } else {
      for (APInt v : dense.getValues<APInt>())
        t.setInt(i++, *dtype == DType::I1
                          ? static_cast<int64_t>(v.getZExtValue())
                          : v.getSExtValue());
    }
    return t;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    ArrayRef<char> data = resource.getData();
    if (*dtype != DType::I1 && data.size() == t.byteSize()) {
      if (!data.empty())
        std::memcpy(t.data(), data.data(), data.size());
      return t;
    }
    return op->emitOpError()
           << "dense resource constant has " << data.size()
           << " bytes of data where " << t.byteSize() << " are expected";
  }
  return op->emitOpError() << "constant attribute " << attr
                           << " is not supported by the reference "
                              "interpreter";
}

/// Stores a scalar integer or float attribute into every element.
static void fill(HostTensor &t, TypedAttr value) {
  if (auto f = dyn_cast<FloatAttr>(value)) {
    double v = f.getValueAsDouble();
    for (int64_t i = 0; i < t.numel(); ++i)
      t.setFloat(i, v);
    return;
  }
  auto i = cast<IntegerAttr>(value);
  int64_t v = i.getType().isInteger(1)
                  ? static_cast<int64_t>(i.getValue().getZExtValue())
                  : i.getValue().getSExtValue();
  for (int64_t j = 0; j < t.numel(); ++j)
    t.setInt(j, v);
}

static LogicalResult evalFull(FullOp op, Frame &frame) {
  FailureOr<Dims> shape =
      shapeWithDynamicSizes(op, op.getResult(), op.getDynamicSizes(), frame);
  if (failed(shape))
    return failure();
  HostTensor r(dtypeOfValue(op.getResult()), *shape);
  fill(r, op.getValue());
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalIota(IotaOp op, Frame &frame) {
  FailureOr<Dims> shape = shapeWithDynamicSizes(
      op, op.getResult(),
      op.getSize() ? ValueRange(op.getSize()) : ValueRange(), frame);
  if (failed(shape))
    return failure();
  HostTensor r(dtypeOfValue(op.getResult()), *shape);
  if (auto start = dyn_cast<FloatAttr>(op.getStart())) {
    double s = start.getValueAsDouble();
    double step = cast<FloatAttr>(op.getStep()).getValueAsDouble();
    for (int64_t i = 0; i < r.numel(); ++i)
      r.setFloat(i, s + static_cast<double>(i) * step);
  } else {
    auto s = static_cast<uint64_t>(
        cast<IntegerAttr>(op.getStart()).getValue().getSExtValue());
    auto step = static_cast<uint64_t>(
        cast<IntegerAttr>(op.getStep()).getValue().getSExtValue());
    for (int64_t i = 0; i < r.numel(); ++i)
      r.setInt(i, static_cast<int64_t>(s + static_cast<uint64_t>(i) * step));
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// Philox4x32-10's first word (Random123's constants), as the lowering
/// computes it in the kernels.
static uint32_t philoxFirstWord(std::array<uint32_t, 4> c,
                                std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
    uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0],
         static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1],
         static_cast<uint32_t>(p0)};
  }
  return c[0];
}

static LogicalResult evalPhiloxUniform(PhiloxUniformOp op, Frame &frame) {
  FailureOr<Dims> shape =
      shapeWithDynamicSizes(op, op.getResult(), op.getDynamicSizes(), frame);
  if (failed(shape))
    return failure();
  auto seed = static_cast<uint64_t>(frame.tensor(op.getSeed()).getInt(0));
  uint64_t stream = op.getStream();
  HostTensor r(dtypeOfValue(op.getResult()), *shape);
  for (int64_t i = 0; i < r.numel(); ++i) {
    auto at = static_cast<uint64_t>(i);
    uint32_t word = philoxFirstWord(
        {static_cast<uint32_t>(at), static_cast<uint32_t>(at >> 32),
         static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)},
        {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
    // Rounded to f32 first, as the kernels do, then to the element type.
    float u = static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
    r.setFloat(i, static_cast<double>(u));
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

EvalResult eval::evalCreationOp(Operation *op, Frame &frame) {
  if (auto philox = dyn_cast<PhiloxUniformOp>(op))
    return evalPhiloxUniform(philox, frame);
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    FailureOr<HostTensor> t = tensorFromElements(op, constant.getValue());
    if (failed(t))
      return failure();
    frame.setTensor(constant.getResult(), std::move(*t));
    return success();
  }
  if (auto full = dyn_cast<FullOp>(op))
    return evalFull(full, frame);
  if (auto iota = dyn_cast<IotaOp>(op))
    return evalIota(iota, frame);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

/// The same bytes with another shape of the same element count.
static HostTensor withShape(const HostTensor &x, ArrayRef<int64_t> shape) {
  HostTensor r(x.dtype(), shape);
  if (r.byteSize())
    std::memcpy(r.data(), x.data(), r.byteSize());
  return r;
}

static LogicalResult evalReshape(ReshapeOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  auto type = op.getResult().getType();
  Dims shape(type.getShape());
  if (op.getDynamicSizes().empty() && type.getNumDynamicDims() == 1) {
    // PyTorch's -1: the size that keeps the element count.
    int64_t known = 1, inferred = 0;
    for (auto [d, s] : llvm::enumerate(shape)) {
      if (ShapedType::isDynamic(s))
        inferred = d;
      else
        known *= s;
    }
    if (known == 0)
      return op.emitOpError()
             << "cannot infer the `?` size of " << type << " for " << x.numel()
             << " elements: any size fits";
    if (x.numel() % known != 0)
      return op.emitOpError() << "cannot reshape " << shapeStr(x.shape())
                              << " (" << x.numel() << " elements) to " << type
                              << ": the count is not a multiple of " << known;
    shape[inferred] = x.numel() / known;
  } else {
    FailureOr<Dims> sized =
        shapeWithDynamicSizes(op, op.getResult(), op.getDynamicSizes(), frame);
    if (failed(sized))
      return failure();
    shape = *sized;
  }
  if (product(shape) != x.numel())
    return op.emitOpError() << "cannot reshape " << shapeStr(x.shape()) << " ("
                            << x.numel() << " elements) to " << shapeStr(shape)
                            << " (" << product(shape) << " elements)";
  frame.setTensor(op.getResult(), withShape(x, shape));
  return success();
}

static LogicalResult evalPermute(PermuteOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  ArrayRef<int64_t> perm = op.getPermutation();
  Dims shape, inStrides = stridesOf(x.shape()), strides;
  for (int64_t p : perm) {
    shape.push_back(x.shape()[p]);
    strides.push_back(inStrides[p]);
  }
  HostTensor r(x.dtype(), shape);
  SmallVector<int64_t> index;
  for (int64_t i = 0; i < r.numel(); ++i) {
    unravel(i, shape, index);
    int64_t from = 0;
    for (auto [d, v] : llvm::enumerate(index))
      from += v * strides[d];
    copyElement(x, from, r, i);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalExpand(ExpandOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  auto inType = op.getInput().getType();
  auto type = op.getResult().getType();
  int64_t rank = type.getRank(), offset = rank - x.rank();
  Dims shape(type.getShape());
  auto sizes = op.getDynamicSizes();
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    if (d >= offset && inType.isDynamicDim(d - offset)) {
      shape[d] = x.shape()[d - offset]; // PyTorch's -1: keep the size
      continue;
    }
    if (next == sizes.size())
      return op.emitOpError() << "has too few size operands";
    shape[d] = frame.scalar(sizes[next++]);
    if (shape[d] < 0)
      return op.emitOpError() << "size operand for dimension " << d
                              << " is negative (" << shape[d] << ")";
  }
  for (int64_t d = offset; d < rank; ++d) {
    int64_t s = x.shape()[d - offset];
    if (s != 1 && s != shape[d])
      return op.emitOpError()
             << "cannot expand " << shapeStr(x.shape()) << " to "
             << shapeStr(shape) << ": dimension " << (d - offset)
             << " has size " << s << " (only size-1 dimensions stretch)";
  }
  std::vector<int64_t> from = broadcastIndices(x.shape(), shape);
  HostTensor r(x.dtype(), shape);
  for (int64_t i = 0; i < r.numel(); ++i)
    copyElement(x, from[i], r, i);
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalSlice(SliceOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  auto dim = static_cast<int64_t>(op.getDim());
  auto step = static_cast<int64_t>(op.getStep());
  int64_t size = x.shape()[dim];
  // Python slicing: negative bounds count from the end, then clamp.
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t start = clamp(static_cast<int64_t>(op.getStart()));
  int64_t end = clamp(static_cast<int64_t>(op.getEnd()));
  int64_t length = end > start ? (end - start + step - 1) / step : 0;
  Dims shape(x.shape());
  shape[dim] = length;
  int64_t outer = product(x.shape().take_front(dim));
  int64_t inner = product(x.shape().drop_front(dim + 1));
  HostTensor r(x.dtype(), shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < length; ++j)
      for (int64_t i = 0; i < inner; ++i)
        copyElement(x, (o * size + start + j * step) * inner + i, r,
                    (o * length + j) * inner + i);
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalConcat(ConcatOp op, Frame &frame) {
  auto dim = static_cast<int64_t>(op.getDim());
  const HostTensor &first = frame.tensor(op.getInputs().front());
  Dims shape(first.shape());
  shape[dim] = 0;
  for (auto [n, v] : llvm::enumerate(op.getInputs())) {
    const HostTensor &t = frame.tensor(v);
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != dim && t.shape()[d] != first.shape()[d])
        return op.emitOpError()
               << "input " << n << " has shape " << shapeStr(t.shape())
               << " but input 0 has " << shapeStr(first.shape())
               << ": they differ in dimension " << d;
    shape[dim] += t.shape()[dim];
  }
  HostTensor r(first.dtype(), shape);
  int64_t outer = product(ArrayRef<int64_t>(shape).take_front(dim));
  int64_t inner = product(ArrayRef<int64_t>(shape).drop_front(dim + 1));
  int64_t offset = 0;
  for (Value v : op.getInputs()) {
    const HostTensor &t = frame.tensor(v);
    int64_t size = t.shape()[dim];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < size; ++j)
        for (int64_t i = 0; i < inner; ++i)
          copyElement(t, (o * size + j) * inner + i, r,
                      (o * shape[dim] + offset + j) * inner + i);
    offset += size;
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalSqueeze(SqueezeOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  ArrayRef<int64_t> dims = op.getDims();
  Dims shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    bool drop = llvm::is_contained(dims, d);
    if (drop && x.shape()[d] != 1)
      return op.emitOpError()
             << "dimension " << d << " has size " << x.shape()[d] << ", not 1";
    if (!drop)
      shape.push_back(x.shape()[d]);
  }
  frame.setTensor(op.getResult(), withShape(x, shape));
  return success();
}

static LogicalResult evalUnsqueeze(UnsqueezeOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  Dims shape(x.shape());
  shape.insert(shape.begin() + static_cast<int64_t>(op.getDim()), 1);
  frame.setTensor(op.getResult(), withShape(x, shape));
  return success();
}

static LogicalResult evalPad(PadOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  ArrayRef<int64_t> low = op.getLow(), high = op.getHigh();
  Dims shape(x.shape());
  for (int64_t d = 0; d < x.rank(); ++d)
    shape[d] += low[d] + high[d];
  HostTensor r(x.dtype(), shape);
  fill(r, cast<TypedAttr>(op.getValue()));
  Dims strides = stridesOf(shape);
  SmallVector<int64_t> index;
  for (int64_t i = 0; i < x.numel(); ++i) {
    unravel(i, x.shape(), index);
    int64_t to = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      to += (index[d] + low[d]) * strides[d];
    copyElement(x, i, r, to);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

EvalResult eval::evalShapeOp(Operation *op, Frame &frame) {
  if (auto reshape = dyn_cast<ReshapeOp>(op))
    return evalReshape(reshape, frame);
  if (auto permute = dyn_cast<PermuteOp>(op))
    return evalPermute(permute, frame);
  if (auto expand = dyn_cast<ExpandOp>(op))
    return evalExpand(expand, frame);
  if (auto slice = dyn_cast<SliceOp>(op))
    return evalSlice(slice, frame);
  if (auto concat = dyn_cast<ConcatOp>(op))
    return evalConcat(concat, frame);
  if (auto squeeze = dyn_cast<SqueezeOp>(op))
    return evalSqueeze(squeeze, frame);
  if (auto unsqueeze = dyn_cast<UnsqueezeOp>(op))
    return evalUnsqueeze(unsqueeze, frame);
  if (auto pad = dyn_cast<PadOp>(op))
    return evalPad(pad, frame);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

/// Index values must lie in [0, size): PyTorch's gather, index_select and
/// embedding reject negative indices too.
static LogicalResult checkIndex(Operation *op, int64_t index, int64_t size,
                                const HostTensor &indices, int64_t at,
                                StringRef what) {
  if (index >= 0 && index < size)
    return success();
  SmallVector<int64_t> position;
  unravel(at, indices.shape(), position);
  return op->emitOpError() << "index " << index << " at position "
                           << shapeStr(position) << " is out of range for "
                           << what << " of size " << size;
}

static LogicalResult evalGather(GatherOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  const HostTensor &index = frame.tensor(op.getIndex());
  auto dim = static_cast<int64_t>(op.getDim());
  // A 0-d input is a one-element vector.
  Dims inShape(x.shape()), idxShape(index.shape());
  if (inShape.empty()) {
    inShape.push_back(1);
    idxShape.push_back(1);
  }
  for (int64_t d = 0, e = inShape.size(); d < e; ++d)
    if (d != dim && idxShape[d] > inShape[d])
      return op.emitOpError() << "index shape " << shapeStr(index.shape())
                              << " exceeds the input shape "
                              << shapeStr(x.shape()) << " in dimension " << d;
  Dims inStrides = stridesOf(inShape);
  HostTensor r(x.dtype(), index.shape());
  SmallVector<int64_t> position;
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t v = index.getInt(i);
    if (failed(checkIndex(op, v, inShape[dim], index, i,
                          "dimension " + std::to_string(dim))))
      return failure();
    unravel(i, idxShape, position);
    position[dim] = v;
    int64_t from = 0;
    for (auto [d, p] : llvm::enumerate(position))
      from += p * inStrides[d];
    copyElement(x, from, r, i);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalIndexSelect(IndexSelectOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  const HostTensor &index = frame.tensor(op.getIndex());
  auto dim = static_cast<int64_t>(op.getDim());
  int64_t count = index.numel(), size = x.shape()[dim];
  Dims shape(x.shape());
  shape[dim] = count;
  int64_t outer = product(x.shape().take_front(dim));
  int64_t inner = product(x.shape().drop_front(dim + 1));
  HostTensor r(x.dtype(), shape);
  for (int64_t j = 0; j < count; ++j) {
    int64_t v = index.getInt(j);
    if (failed(checkIndex(op, v, size, index, j,
                          "dimension " + std::to_string(dim))))
      return failure();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        copyElement(x, (o * size + v) * inner + i, r,
                    (o * count + j) * inner + i);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

static LogicalResult evalEmbedding(EmbeddingOp op, Frame &frame) {
  const HostTensor &weight = frame.tensor(op.getWeight());
  const HostTensor &indices = frame.tensor(op.getIndices());
  int64_t rows = weight.shape()[0], width = weight.shape()[1];
  Dims shape(indices.shape());
  shape.push_back(width);
  HostTensor r(weight.dtype(), shape);
  for (int64_t i = 0; i < indices.numel(); ++i) {
    int64_t v = indices.getInt(i);
    if (failed(checkIndex(op, v, rows, indices, i, "the embedding table")))
      return failure();
    for (int64_t c = 0; c < width; ++c)
      copyElement(weight, v * width + c, r, i * width + c);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// out = base, then out[position with dim replaced by the index] += src at
/// each position of the index (or of src, in the slice form), in row-major
/// order; floats add in the element type (each sum rounded), integers wrap.
static LogicalResult evalScatterAdd(ScatterAddOp op, Frame &frame) {
  const HostTensor &base = frame.tensor(op.getBase());
  const HostTensor &index = frame.tensor(op.getIndex());
  const HostTensor &src = frame.tensor(op.getSrc());
  auto dim = static_cast<int64_t>(op.getDim());
  bool sliceForm = op.isSliceForm();
  int64_t rank = base.rank();
  Dims domain(sliceForm ? src.shape() : index.shape());
  for (int64_t d = 0; d < rank; ++d) {
    bool fits = sliceForm
                    ? (d == dim ? src.shape()[d] == index.shape()[0]
                                : src.shape()[d] == base.shape()[d])
                    : index.shape()[d] <= src.shape()[d] &&
                          (d == dim || index.shape()[d] <= base.shape()[d]);
    if (!fits)
      return op.emitOpError()
             << "index shape " << shapeStr(index.shape()) << ", src shape "
             << shapeStr(src.shape()) << " and base shape "
             << shapeStr(base.shape()) << " do not match in dimension " << d;
  }
  Dims baseStrides = stridesOf(base.shape()),
       srcStrides = stridesOf(src.shape());
  HostTensor r(base);
  bool isFloat = isFloatDType(base.dtype());
  SmallVector<int64_t> position;
  for (int64_t i = 0, e = product(domain); i < e; ++i) {
    unravel(i, domain, position);
    int64_t at = sliceForm ? position[dim] : i;
    int64_t v = index.getInt(at);
    if (failed(checkIndex(op, v, base.shape()[dim], index, at,
                          "dimension " + std::to_string(dim))))
      return failure();
    int64_t from = 0, to = 0;
    for (int64_t d = 0; d < rank; ++d) {
      from += position[d] * srcStrides[d];
      to += (d == dim ? v : position[d]) * baseStrides[d];
    }
    if (isFloat)
      r.setFloat(to, r.getFloat(to) + src.getFloat(from));
    else
      r.setInt(to,
               static_cast<int64_t>(static_cast<uint64_t>(r.getInt(to)) +
                                    static_cast<uint64_t>(src.getInt(from))));
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

EvalResult eval::evalIndexingOp(Operation *op, Frame &frame) {
  if (auto scatter = dyn_cast<ScatterAddOp>(op))
    return evalScatterAdd(scatter, frame);
  if (auto gather = dyn_cast<GatherOp>(op))
    return evalGather(gather, frame);
  if (auto select = dyn_cast<IndexSelectOp>(op))
    return evalIndexSelect(select, frame);
  if (auto embedding = dyn_cast<EmbeddingOp>(op))
    return evalEmbedding(embedding, frame);
  return std::nullopt;
}
