//===- ShapeInference.cpp - symbolic shape propagation --------------------===//

#include "tgc/Analysis/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tgc;

SymShape ShapeInferenceContext::getShape(Value v) {
  auto it = shapes.find(v);
  if (it != shapes.end())
    return it->second;
  SymShape shape;
  if (auto type = dyn_cast<RankedTensorType>(v.getType())) {
    for (int64_t size : type.getShape())
      shape.push_back(ShapedType::isDynamic(size) ? env.addUnbacked()
                                                  : env.constant(size));
  }
  shapes[v] = shape;
  return shape;
}

void ShapeInferenceContext::setShape(Value v, ArrayRef<AffineExpr> shape) {
  SymShape canonical;
  for (AffineExpr e : shape)
    canonical.push_back(env.canonicalize(e));
  shapes[v] = std::move(canonical);
}

AffineExpr ShapeInferenceContext::getIndexValue(Value v) {
  auto it = indexValues.find(v);
  if (it != indexValues.end())
    return env.canonicalize(it->second);

  auto nonNegative = [&](AffineExpr e) {
    std::optional<int64_t> lo = env.bounds(e).lower;
    return lo && *lo >= 0;
  };
  auto binary = [&](Operation *op) {
    return std::make_pair(getIndexValue(op->getOperand(0)),
                          getIndexValue(op->getOperand(1)));
  };
  AffineExpr result;
  if (Operation *def = v.getDefiningOp()) {
    APInt cst;
    if (matchPattern(v, m_ConstantInt(&cst))) {
      result = env.constant(cst.getSExtValue());
    } else {
      result =
          llvm::TypeSwitch<Operation *, AffineExpr>(def)
              .Case([&](tensor::DimOp dim) -> AffineExpr {
                std::optional<int64_t> index = dim.getConstantIndex();
                auto type = dyn_cast<RankedTensorType>(
                    dim.getSource().getType());
                if (!index || !type || *index < 0 || *index >= type.getRank())
                  return {};
                return getDim(dim.getSource(), *index);
              })
              .Case([&](arith::IndexCastOp cast) {
                return getIndexValue(cast.getIn());
              })
              .Case<arith::AddIOp, index::AddOp>([&](Operation *op) {
                auto [a, b] = binary(op);
                return a + b;
              })
              .Case<arith::SubIOp, index::SubOp>([&](Operation *op) {
                auto [a, b] = binary(op);
                return a - b;
              })
              .Case<arith::MulIOp, index::MulOp>([&](Operation *op) {
                auto [a, b] = binary(op);
                return a * b;
              })
              .Case<arith::FloorDivSIOp, index::FloorDivSOp>(
                  [&](Operation *op) -> AffineExpr {
                    auto [a, b] = binary(op);
                    if (!env.getConstant(b) || *env.getConstant(b) <= 0)
                      return {};
                    return a.floorDiv(b);
                  })
              .Case<arith::CeilDivSIOp, index::CeilDivSOp>(
                  [&](Operation *op) -> AffineExpr {
                    auto [a, b] = binary(op);
                    if (!env.getConstant(b) || *env.getConstant(b) <= 0)
                      return {};
                    return a.ceilDiv(b);
                  })
              // Truncating division and remainder agree with floor/mod
              // for non-negative operands only.
              .Case<arith::DivSIOp, arith::DivUIOp, index::DivSOp,
                    index::DivUOp>([&](Operation *op) -> AffineExpr {
                auto [a, b] = binary(op);
                if (!nonNegative(a) || !env.getConstant(b) ||
                    *env.getConstant(b) <= 0)
                  return {};
                return a.floorDiv(b);
              })
              .Case<arith::RemSIOp, arith::RemUIOp, index::RemSOp,
                    index::RemUOp>([&](Operation *op) -> AffineExpr {
                auto [a, b] = binary(op);
                if (!nonNegative(a) || !env.getConstant(b) ||
                    *env.getConstant(b) <= 0)
                  return {};
                return a % b;
              })
              .Case<arith::MinSIOp, index::MinSOp>([&](Operation *op) {
                auto [a, b] = binary(op);
                return env.createMin({a, b});
              })
              .Case<arith::MaxSIOp, index::MaxSOp>([&](Operation *op) {
                auto [a, b] = binary(op);
                return env.createMax({a, b});
              })
              .Default([](Operation *) { return AffineExpr(); });
    }
  }
  if (!result)
    result = env.addUnbacked("", SizeRange::unbounded());
  result = env.canonicalize(result);
  indexValues[v] = result;
  return result;
}

LogicalResult ShapeInferenceContext::require(ConstraintKind kind,
                                             AffineExpr lhs, AffineExpr rhs,
                                             const Twine &reason) {
  Location loc = currentOp ? currentOp->getLoc() : UnknownLoc::get(getContext());
  SizeConstraint c{kind, lhs, rhs, loc, reason.str()};
  // Print before recording: recording may substitute symbols away.
  std::string text = env.str(
      SizeConstraint{kind, env.canonicalize(lhs), env.canonicalize(rhs), loc,
                     ""});
  Truth t = env.require(c);
  if (t == Truth::False) {
    InFlightDiagnostic diag = currentOp ? currentOp->emitOpError()
                                        : emitError(loc);
    diag << c.reason << ": requires " << text
         << ", which no input size allows";
    return failure();
  }
  if (t == Truth::Unknown)
    required.push_back({std::move(c), currentOp});
  return success();
}

FailureOr<SymShape>
ShapeInferenceContext::broadcast(ArrayRef<ArrayRef<AffineExpr>> operandShapes,
                                 StringRef what) {
  size_t rank = 0;
  for (ArrayRef<AffineExpr> s : operandShapes)
    rank = std::max(rank, s.size());
  SymShape result;
  for (size_t i = 0; i < rank; ++i) {
    AffineExpr cur;
    for (ArrayRef<AffineExpr> shape : operandShapes) {
      if (shape.size() + i < rank)
        continue; // this operand has no dimension here
      AffineExpr e = env.canonicalize(shape[shape.size() - rank + i]);
      if (!cur || env.isEqual(cur, e)) {
        cur = cur ? cur : e;
        continue;
      }
      std::optional<int64_t> c0 = env.getConstant(cur);
      std::optional<int64_t> c1 = env.getConstant(e);
      if (c1 == 1)
        continue;
      if (c0 == 1) {
        cur = e;
        continue;
      }
      std::string reason = (what + " operands must broadcast in dimension " +
                            Twine(i) + " of the result")
                               .str();
      // Sizes that may differ: a size broadcasts only when it is
      // statically 1 (the compiled loops index a `?` dimension directly), so
      // they must be equal. A `?` that is 1 at run time fails this guard
      // and the function is recompiled with that size specialized, as
      // PyTorch does.
      if (failed(require(ConstraintKind::eq, e, cur, reason)))
        return failure();
      cur = env.canonicalize(c0 ? cur : e);
    }
    result.push_back(env.canonicalize(cur));
  }
  return result;
}
