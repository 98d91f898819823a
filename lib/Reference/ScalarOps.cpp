//===- ScalarOps.cpp - sizes: tensor.dim, arith and index ops -------------===//
//
// The integer and index arithmetic a tgc function uses to compute sizes.
// Scalars are held as int64, sign-extended from their bit width (index is
// 64 bits); every result is wrapped to its width.
//
//===----------------------------------------------------------------------===//

#include "ReferenceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tgc::ref;
using namespace mlir::tgc::ref::eval;

namespace {
enum class IntBinary {
  Add,
  Sub,
  Mul,
  DivS,
  DivU,
  FloorDivS,
  CeilDivS,
  CeilDivU,
  RemS,
  RemU,
  MinS,
  MaxS,
  MinU,
  MaxU,
  And,
  Or,
  Xor,
  Shl,
  ShrS,
  ShrU
};

/// ult/ule/... map onto signed ones after an unsigned reinterpretation.
enum class IntCmp { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };
} // namespace

static unsigned bitWidth(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth();
  return 64; // index
}

/// Sign-extends the low `width` bits.
static int64_t signExtend(uint64_t v, unsigned width) {
  if (width >= 64)
    return static_cast<int64_t>(v);
  unsigned shift = 64 - width;
  return static_cast<int64_t>(v << shift) >> shift;
}

/// The low `width` bits, zero-extended.
static uint64_t zeroExtend(int64_t v, unsigned width) {
  auto u = static_cast<uint64_t>(v);
  return width >= 64 ? u : u & ((uint64_t(1) << width) - 1);
}

static std::optional<IntBinary> binaryKind(Operation *op) {
  using K = IntBinary;
  return llvm::TypeSwitch<Operation *, std::optional<IntBinary>>(op)
      .Case<arith::AddIOp, index::AddOp>([](auto) { return K::Add; })
      .Case<arith::SubIOp, index::SubOp>([](auto) { return K::Sub; })
      .Case<arith::MulIOp, index::MulOp>([](auto) { return K::Mul; })
      .Case<arith::DivSIOp, index::DivSOp>([](auto) { return K::DivS; })
      .Case<arith::DivUIOp, index::DivUOp>([](auto) { return K::DivU; })
      .Case<arith::FloorDivSIOp, index::FloorDivSOp>(
          [](auto) { return K::FloorDivS; })
      .Case<arith::CeilDivSIOp, index::CeilDivSOp>(
          [](auto) { return K::CeilDivS; })
      .Case<arith::CeilDivUIOp, index::CeilDivUOp>(
          [](auto) { return K::CeilDivU; })
      .Case<arith::RemSIOp, index::RemSOp>([](auto) { return K::RemS; })
      .Case<arith::RemUIOp, index::RemUOp>([](auto) { return K::RemU; })
      .Case<arith::MinSIOp, index::MinSOp>([](auto) { return K::MinS; })
      .Case<arith::MaxSIOp, index::MaxSOp>([](auto) { return K::MaxS; })
      .Case<arith::MinUIOp, index::MinUOp>([](auto) { return K::MinU; })
      .Case<arith::MaxUIOp, index::MaxUOp>([](auto) { return K::MaxU; })
      .Case<arith::AndIOp, index::AndOp>([](auto) { return K::And; })
      .Case<arith::OrIOp, index::OrOp>([](auto) { return K::Or; })
      .Case<arith::XOrIOp, index::XOrOp>([](auto) { return K::Xor; })
      .Case<arith::ShLIOp, index::ShlOp>([](auto) { return K::Shl; })
      .Case<arith::ShRSIOp, index::ShrSOp>([](auto) { return K::ShrS; })
      .Case<arith::ShRUIOp, index::ShrUOp>([](auto) { return K::ShrU; })
      .Default([](Operation *) { return std::nullopt; });
}

/// `a op b` on `width`-bit integers; nullopt on division by zero.
static std::optional<int64_t> evalBinary(IntBinary kind, int64_t a, int64_t b,
                                         unsigned width) {
  using K = IntBinary;
  uint64_t ua = zeroExtend(a, width), ub = zeroExtend(b, width);
  auto ua64 = static_cast<uint64_t>(a), ub64 = static_cast<uint64_t>(b);
  bool isDiv = kind == K::DivS || kind == K::DivU || kind == K::FloorDivS ||
               kind == K::CeilDivS || kind == K::CeilDivU || kind == K::RemS ||
               kind == K::RemU;
  if (isDiv && b == 0)
    return std::nullopt;
  // INT_MIN / -1 overflows: wrap (the result is INT_MIN, the remainder 0).
  bool overflow = b == -1 && a == signExtend(uint64_t(1) << (width - 1), width);
  uint64_t r = 0;
  switch (kind) {
  case K::Add:
    r = ua64 + ub64;
    break;
  case K::Sub:
    r = ua64 - ub64;
    break;
  case K::Mul:
    r = ua64 * ub64;
    break;
  case K::DivS:
    r = overflow ? ua64 : static_cast<uint64_t>(a / b);
    break;
  case K::DivU:
    r = ua / ub;
    break;
  case K::FloorDivS: {
    if (overflow) {
      r = ua64;
      break;
    }
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
      --q;
    r = static_cast<uint64_t>(q);
    break;
  }
  case K::CeilDivS: {
    if (overflow) {
      r = ua64;
      break;
    }
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) == (b < 0)))
      ++q;
    r = static_cast<uint64_t>(q);
    break;
  }
  case K::CeilDivU:
    r = ua / ub + (ua % ub != 0);
    break;
  case K::RemS:
    r = overflow ? 0 : static_cast<uint64_t>(a % b);
    break;
  case K::RemU:
    r = ua % ub;
    break;
  case K::MinS:
    r = static_cast<uint64_t>(std::min(a, b));
    break;
  case K::MaxS:
    r = static_cast<uint64_t>(std::max(a, b));
    break;
  case K::MinU:
    r = std::min(ua, ub);
    break;
  case K::MaxU:
    r = std::max(ua, ub);
    break;
  case K::And:
    r = ua64 & ub64;
    break;
  case K::Or:
    r = ua64 | ub64;
    break;
  case K::Xor:
    r = ua64 ^ ub64;
    break;
  case K::Shl:
    r = ub >= width ? 0 : ua << ub;
    break;
  case K::ShrS:
    r = static_cast<uint64_t>(ub >= width ? (a < 0 ? -1 : 0)
                                          : a >> static_cast<int64_t>(ub));
    break;
  case K::ShrU:
    r = ub >= width ? 0 : ua >> ub;
    break;
  }
  return signExtend(r, width);
}

static bool evalCmp(IntCmp pred, int64_t a, int64_t b, unsigned width) {
  uint64_t ua = zeroExtend(a, width), ub = zeroExtend(b, width);
  switch (pred) {
  case IntCmp::Eq:
    return a == b;
  case IntCmp::Ne:
    return a != b;
  case IntCmp::Slt:
    return a < b;
  case IntCmp::Sle:
    return a <= b;
  case IntCmp::Sgt:
    return a > b;
  case IntCmp::Sge:
    return a >= b;
  case IntCmp::Ult:
    return ua < ub;
  case IntCmp::Ule:
    return ua <= ub;
  case IntCmp::Ugt:
    return ua > ub;
  case IntCmp::Uge:
    return ua >= ub;
  }
  return false;
}

EvalResult eval::evalScalarOp(Operation *op, Frame &frame) {
  auto setResult = [&](int64_t v) -> LogicalResult {
    Value r = op->getResult(0);
    frame.setScalar(
        r, signExtend(static_cast<uint64_t>(v), bitWidth(r.getType())));
    return success();
  };

  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    if (!isa<RankedTensorType>(dim.getSource().getType()))
      return dim.emitOpError() << "on an unranked tensor is not supported";
    const HostTensor &t = frame.tensor(dim.getSource());
    int64_t d = frame.scalar(dim.getIndex());
    if (d < 0 || d >= t.rank())
      return dim.emitOpError()
             << "dimension " << d << " is out of range for a tensor of rank "
             << t.rank();
    return setResult(t.shape()[d]);
  }

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return setResult(i.getValue().getSExtValue());
    if (auto e = dyn_cast<ElementsAttr>(c.getValue())) {
      FailureOr<HostTensor> t = tensorFromElements(op, e);
      if (failed(t))
        return failure();
      frame.setTensor(c.getResult(), std::move(*t));
      return success();
    }
    return c.emitOpError() << "value " << c.getValue()
                           << " is not supported by the reference interpreter";
  }
  if (auto c = dyn_cast<index::ConstantOp>(op))
    return setResult(c.getValue().getSExtValue());
  if (auto c = dyn_cast<index::BoolConstantOp>(op))
    return setResult(c.getValue() ? 1 : 0);

  if (std::optional<IntBinary> kind = binaryKind(op)) {
    unsigned width = bitWidth(op->getResult(0).getType());
    std::optional<int64_t> r =
        evalBinary(*kind, frame.scalar(op->getOperand(0)),
                   frame.scalar(op->getOperand(1)), width);
    if (!r)
      return op->emitOpError() << "integer division by zero";
    return setResult(*r);
  }

  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    if (!cmp.getLhs().getType().isIntOrIndex())
      return std::nullopt;
    auto pred = static_cast<IntCmp>(static_cast<int>(cmp.getPredicate()));
    return setResult(evalCmp(pred, frame.scalar(cmp.getLhs()),
                             frame.scalar(cmp.getRhs()),
                             bitWidth(cmp.getLhs().getType())));
  }
  if (auto cmp = dyn_cast<index::CmpOp>(op)) {
    auto pred = static_cast<IntCmp>(static_cast<int>(cmp.getPred()));
    return setResult(evalCmp(pred, frame.scalar(cmp.getLhs()),
                             frame.scalar(cmp.getRhs()), 64));
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    if (!select.getType().isIntOrIndex() ||
        !select.getCondition().getType().isInteger(1))
      return std::nullopt;
    return setResult(frame.scalar(select.getCondition())
                         ? frame.scalar(select.getTrueValue())
                         : frame.scalar(select.getFalseValue()));
  }

  // Casts: sign- or zero-extension of the source's bits, then truncation to
  // the result's width (setResult).
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp, index::CastSOp>(
          op)) {
    if (!op->getOperand(0).getType().isIntOrIndex())
      return std::nullopt;
    return setResult(frame.scalar(op->getOperand(0)));
  }
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp, index::CastUOp>(op)) {
    Value in = op->getOperand(0);
    if (!in.getType().isIntOrIndex())
      return std::nullopt;
    return setResult(static_cast<int64_t>(
        zeroExtend(frame.scalar(in), bitWidth(in.getType()))));
  }
  return std::nullopt;
}
