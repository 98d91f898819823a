//===- Interpreter.cpp - reference interpreter driver ---------------------===//
//
// Walks the single block of a function op by op, binding each SSA value to
// a host tensor or an int64 scalar. Each op family lives in its own file
// (ElementwiseOps.cpp, ReductionOps.cpp, ShapeOps.cpp, LinalgOps.cpp,
// NNOps.cpp, ScalarOps.cpp); this file holds the driver, the checks every
// op gets (operands bound, results consistent with their types), the
// helpers the families share, and tgc.write_out.
//
//===----------------------------------------------------------------------===//

#include "tgc/Reference/Interpreter.h"

#include "ReferenceOps.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <cfloat>
#include <cstring>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::ref;
using namespace mlir::tgc::ref::eval;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

DType eval::dtypeOfValue(Value v) {
  return *dtypeOf(cast<ShapedType>(v.getType()).getElementType());
}

int64_t eval::product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

Dims eval::stridesOf(ArrayRef<int64_t> shape) {
  Dims strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::string eval::shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }
  return s + "]";
}

void eval::unravel(int64_t flat, ArrayRef<int64_t> shape,
                   SmallVectorImpl<int64_t> &index) {
  index.resize(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
}

FailureOr<Dims> eval::broadcastShapes(Operation *op,
                                      ArrayRef<ArrayRef<int64_t>> shapes,
                                      StringRef what) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  Dims result(rank, 1);
  for (ArrayRef<int64_t> s : shapes) {
    size_t offset = rank - s.size();
    for (auto [i, size] : llvm::enumerate(s)) {
      int64_t &r = result[offset + i];
      if (size == r || size == 1)
        continue;
      if (r == 1) {
        r = size;
        continue;
      }
      std::string list;
      for (auto [j, t] : llvm::enumerate(shapes))
        list += (j ? " and " : "") + shapeStr(t);
      return op->emitOpError()
             << what << " do not broadcast at run time: shapes " << list
             << " differ in dimension " << (offset + i) << " of the result ("
             << r << " vs " << size << ")";
    }
  }
  return result;
}

std::vector<int64_t> eval::broadcastIndices(ArrayRef<int64_t> from,
                                            ArrayRef<int64_t> to) {
  int64_t rank = to.size(), offset = rank - from.size();
  Dims fromStrides = stridesOf(from);
  // Stride in `from` of each result dim: 0 where it stretches or is new.
  Dims strides(rank, 0);
  for (int64_t d = offset; d < rank; ++d)
    if (from[d - offset] != 1)
      strides[d] = fromStrides[d - offset];
  std::vector<int64_t> indices(product(to));
  Dims counter(rank, 0);
  int64_t pos = 0;
  for (int64_t &index : indices) {
    index = pos;
    for (int64_t d = rank - 1; d >= 0; --d) {
      pos += strides[d];
      if (++counter[d] < to[d])
        break;
      pos -= strides[d] * to[d];
      counter[d] = 0;
    }
  }
  return indices;
}

/// The elements of `t` read through `get` (getFloat or getInt).
template <typename T>
static std::vector<T> readElements(const HostTensor &t,
                                   T (HostTensor::*get)(int64_t) const) {
  std::vector<T> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = (t.*get)(i);
  return v;
}

/// A tensor of `dtype` and `shape` with `values` written through `set`
/// (setFloat or setInt).
template <typename T>
static HostTensor writeElements(DType dtype, ArrayRef<int64_t> shape,
                                ArrayRef<T> values,
                                void (HostTensor::*set)(int64_t, T)) {
  HostTensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    (t.*set)(i, values[i]);
  return t;
}

std::vector<double> eval::toDoubles(const HostTensor &t) {
  return readElements(t, &HostTensor::getFloat);
}

std::vector<int64_t> eval::toInts(const HostTensor &t) {
  return readElements(t, &HostTensor::getInt);
}

HostTensor eval::fromDoubles(DType dtype, ArrayRef<int64_t> shape,
                             ArrayRef<double> values) {
  return writeElements(dtype, shape, values, &HostTensor::setFloat);
}

HostTensor eval::fromInts(DType dtype, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> values) {
  return writeElements(dtype, shape, values, &HostTensor::setInt);
}

void eval::copyElement(const HostTensor &src, int64_t from, HostTensor &dst,
                       int64_t to) {
  size_t bytes = elementBytes(src.dtype());
  std::memcpy(static_cast<char *>(dst.data()) + to * bytes,
              static_cast<const char *>(src.data()) + from * bytes, bytes);
}

double eval::machineEpsilon(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return DBL_EPSILON;
  case DType::F16:
    return 0x1.0p-10;
  case DType::BF16:
    return 0x1.0p-7;
  default:
    return FLT_EPSILON;
  }
}

FailureOr<Dims> eval::shapeWithDynamicSizes(Operation *op, Value result,
                                            ValueRange sizes, Frame &frame) {
  auto type = cast<RankedTensorType>(result.getType());
  Dims shape(type.getShape());
  size_t next = 0;
  for (auto [d, s] : llvm::enumerate(shape)) {
    if (!ShapedType::isDynamic(s))
      continue;
    if (next == sizes.size())
      return op->emitOpError()
             << "has fewer size operands than `?` sizes in " << type;
    s = frame.scalar(sizes[next++]);
    if (s < 0)
      return op->emitOpError() << "size operand for dimension " << d
                               << " is negative (" << s << ")";
  }
  if (next != sizes.size())
    return op->emitOpError()
           << "has more size operands than `?` sizes in " << type;
  return shape;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// tgc.write_out: the caller's buffer gets the value (its allocation is
/// kept, so pointers into it stay valid).
static LogicalResult evalWriteOut(WriteOutOp op, Frame &frame) {
  const HostTensor &value = frame.tensor(op.getValue());
  auto arg = cast<BlockArgument>(op.getOut());
  HostTensor &out = frame.args[arg.getArgNumber()];
  if (out.shape() != value.shape())
    return op.emitOpError()
           << "value of shape " << shapeStr(value.shape())
           << " does not match the out buffer (argument " << arg.getArgNumber()
           << ") of shape " << shapeStr(out.shape());
  if (out.dtype() != value.dtype())
    return op.emitOpError()
           << "value of type " << dtypeName(value.dtype())
           << " does not match the out buffer's " << dtypeName(out.dtype());
  if (value.byteSize())
    std::memcpy(out.data(), value.data(), value.byteSize());
  return success();
}

/// Every operand must be bound, every tensor operand and result must have a
/// TGC element type.
static LogicalResult checkOperands(Operation *op, Frame &frame) {
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
      if (!dtypeOf(t.getElementType()))
        return op->emitOpError()
               << "operand #" << i << " has an element type the reference "
               << "interpreter does not support: " << t;
      if (!frame.hasTensor(v))
        return op->emitOpError() << "operand #" << i << " has no value";
      continue;
    }
    if (!frame.hasScalar(v))
      return op->emitOpError()
             << "operand #" << i << " of type " << v.getType()
             << " has no value (the reference interpreter supports tensors "
                "and integer/index scalars)";
  }
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      if (!dtypeOf(t.getElementType()))
        return op->emitOpError()
               << "result #" << i << " has an element type the reference "
               << "interpreter does not support: " << t;
  return success();
}

/// A result's run-time shape must agree with the static sizes of its type.
static LogicalResult checkResults(Operation *op, Frame &frame) {
  for (auto [i, v] : llvm::enumerate(op->getResults())) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type) {
      if (!frame.hasScalar(v))
        return op->emitOpError() << "result #" << i << " was not computed";
      continue;
    }
    if (!frame.hasTensor(v))
      return op->emitOpError() << "result #" << i << " was not computed";
    const HostTensor &t = frame.tensor(v);
    if (t.dtype() != *dtypeOf(type.getElementType()) ||
        t.rank() != type.getRank())
      return op->emitOpError()
             << "result #" << i << " was computed as " << dtypeName(t.dtype())
             << " " << shapeStr(t.shape()) << " for type " << type
             << " (reference interpreter bug)";
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d) && type.getDimSize(d) != t.shape()[d])
        return op->emitOpError()
               << "result #" << i << " has run-time shape "
               << shapeStr(t.shape()) << ", which contradicts its type " << type
               << " in dimension " << d;
  }
  return success();
}

static LogicalResult evalOp(Operation *op, Frame &frame);

/// tgc.fusion_group (formed by tgc-fuse): its body computes what its ops
/// compute, so the oracle also runs fused IR. Matched by name, as the only
/// region op the interpreter knows: the block arguments are the inputs, the
/// terminator's operands the results.
static LogicalResult evalFusionGroup(Operation *op, Frame &frame) {
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return op->emitOpError() << "expected one region with one block";
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != op->getNumOperands())
    return op->emitOpError() << "expected one block argument per input";
  for (auto [arg, input] : llvm::zip(body.getArguments(), op->getOperands()))
    frame.setTensor(arg, frame.tensor(input));
  for (Operation &inner : body) {
    if (!inner.hasTrait<OpTrait::IsTerminator>()) {
      if (failed(evalOp(&inner, frame)))
        return failure();
      continue;
    }
    if (inner.getNumOperands() != op->getNumResults())
      return inner.emitOpError()
             << "yields " << inner.getNumOperands() << " values for "
             << op->getNumResults() << " results";
    for (auto [result, value] :
         llvm::zip(op->getResults(), inner.getOperands())) {
      if (!frame.hasTensor(value))
        return inner.emitOpError() << "yields a value that has none";
      frame.setTensor(result, frame.tensor(value));
    }
    return checkResults(op, frame);
  }
  return op->emitOpError() << "body has no terminator";
}

static LogicalResult evalOp(Operation *op, Frame &frame) {
  // Size annotations and constraints have no run-time meaning here.
  if (op->getDialect() && op->getDialect()->getNamespace() == "tgc_sym")
    return success();
  bool isFusionGroup = op->getName().getStringRef() == "tgc.fusion_group";
  if (op->getNumRegions() != 0 && !isFusionGroup)
    return op->emitOpError()
           << "has regions, which the reference interpreter does not support";
  if (failed(checkOperands(op, frame)))
    return failure();
  if (isFusionGroup)
    return evalFusionGroup(op, frame);
  if (auto writeOut = dyn_cast<WriteOutOp>(op))
    return evalWriteOut(writeOut, frame);
  for (auto family :
       {evalCreationOp, evalElementwiseOp, evalReductionOp, evalShapeOp,
        evalIndexingOp, evalLinalgOp, evalNNOp, evalScalarOp}) {
    EvalResult result = family(op, frame);
    if (!result)
      continue;
    // A result that could not be allocated has no elements: the op's
    // values are not computed, and that is an error of the op.
    std::string noMemory = HostTensor::takeAllocationFailure();
    if (!noMemory.empty())
      return op->emitOpError() << "the reference interpreter " << noMemory;
    if (failed(*result))
      return failure();
    return checkResults(op, frame);
  }
  return op->emitOpError() << "is not supported by the reference interpreter";
}

/// Binds argument `i` after checking it against the signature.
static LogicalResult bindArgument(func::FuncOp func, unsigned i,
                                  const HostTensor &arg, Frame &frame) {
  Type type = func.getArgumentTypes()[i];
  BlockArgument blockArg = func.getArgument(i);
  auto fail = [&]() {
    InFlightDiagnostic diag = func.emitError();
    diag << "argument #" << i << " of @" << func.getSymName() << " (" << type
         << "): ";
    return diag;
  };
  if (!arg.data())
    return fail() << "got a default-constructed HostTensor, which has no "
                     "elements";
  if (auto tt = dyn_cast<RankedTensorType>(type)) {
    std::optional<DType> dtype = dtypeOf(tt.getElementType());
    if (!dtype)
      return fail() << "element type not supported by the reference "
                       "interpreter";
    if (arg.dtype() != *dtype)
      return fail() << "got a tensor of " << dtypeName(arg.dtype());
    if (arg.rank() != tt.getRank())
      return fail() << "got a tensor of rank " << arg.rank() << " (shape "
                    << shapeStr(arg.shape()) << ")";
    for (int64_t d = 0; d < tt.getRank(); ++d)
      if (!tt.isDynamicDim(d) && tt.getDimSize(d) != arg.shape()[d])
        return fail() << "got shape " << shapeStr(arg.shape())
                      << ", which differs in dimension " << d;
    frame.setTensor(blockArg, arg);
    return success();
  }
  if (isa<IndexType, IntegerType>(type)) {
    if (arg.rank() != 0 || isFloatDType(arg.dtype()))
      return fail() << "a scalar is passed as a 0-d integer tensor, got "
                    << dtypeName(arg.dtype()) << " " << shapeStr(arg.shape());
    int64_t v = arg.getInt(0);
    if (auto it = dyn_cast<IntegerType>(type); it && it.getWidth() < 64) {
      // Sign-extend the low bits, as for any narrower integer.
      unsigned shift = 64 - it.getWidth();
      v = static_cast<int64_t>(static_cast<uint64_t>(v) << shift) >> shift;
    }
    frame.setScalar(blockArg, v);
    return success();
  }
  return fail() << "argument type not supported by the reference interpreter";
}

FailureOr<std::vector<HostTensor>>
mlir::tgc::ref::interpret(func::FuncOp func, MutableArrayRef<HostTensor> args) {
  if (func.isExternal())
    return func.emitError()
           << "cannot interpret the external function @" << func.getSymName();
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "the reference interpreter supports single-block functions";
  if (args.size() != func.getNumArguments())
    return func.emitError()
           << "@" << func.getSymName() << " takes " << func.getNumArguments()
           << " arguments, got " << args.size();
  Frame frame(args);
  for (unsigned i = 0; i < args.size(); ++i)
    if (failed(bindArgument(func, i, args[i], frame)))
      return failure();

  for (Operation &op : func.getBody().front()) {
    auto ret = dyn_cast<func::ReturnOp>(op);
    if (!ret) {
      if (failed(evalOp(&op, frame)))
        return failure();
      continue;
    }
    std::vector<HostTensor> results;
    for (Value v : ret.getOperands()) {
      if (frame.hasTensor(v)) {
        results.push_back(frame.tensor(v));
        continue;
      }
      if (!frame.hasScalar(v))
        return ret.emitOpError() << "returns a value of type " << v.getType()
                                 << " that the reference interpreter does "
                                    "not support";
      // i1 is held sign-extended (true is -1, as arith's casts need);
      // callers get 0/1.
      int64_t value = frame.scalar(v);
      if (v.getType().isInteger(1))
        value &= 1;
      HostTensor scalar(DType::I64, {});
      scalar.setInt(0, value);
      results.push_back(std::move(scalar));
    }
    return results;
  }
  return func.emitError() << "function body has no terminator";
}
