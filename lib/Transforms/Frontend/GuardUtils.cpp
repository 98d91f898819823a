//===- GuardUtils.cpp - building and reading guards -----------------------===//

#include "tgc/Transforms/GuardUtils.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tgc;

std::string mlir::tgc::formatLocation(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (f.getFilename().getValue() + ":" + Twine(f.getLine()) + ":" +
            Twine(f.getColumn()))
        .str();
  if (auto n = dyn_cast<NameLoc>(loc)) {
    std::string child = formatLocation(n.getChildLoc());
    return child == "unknown location"
               ? n.getName().str()
               : n.getName().str() + " (" + child + ")";
  }
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(c.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations()) {
      std::string s = formatLocation(l);
      if (s != "unknown location")
        return s;
    }
  return "unknown location";
}

static std::optional<unsigned> loneInput(ShapeEnv &env, AffineExpr e) {
  auto s = dyn_cast<AffineSymbolExpr>(e);
  if (!s || env.getSymbol(s.getPosition()).kind != SymbolKind::Input)
    return std::nullopt;
  return s.getPosition();
}

void mlir::tgc::createSizeGuard(OpBuilder &builder, SymbolicIR &ir,
                                ShapeEnv &env, Location loc,
                                ConstraintKind kind, AffineExpr lhs,
                                AffineExpr rhs, StringRef reason) {
  lhs = env.canonicalize(lhs);
  rhs = env.canonicalize(rhs);
  if (kind == ConstraintKind::ge || kind == ConstraintKind::le ||
      kind == ConstraintKind::eq) {
    // Normalize to `symbol kind constant`.
    if (!loneInput(env, lhs) && loneInput(env, rhs)) {
      std::swap(lhs, rhs);
      kind = sym::flipConstraint(kind);
    }
    auto c = dyn_cast<AffineConstantExpr>(rhs);
    if (loneInput(env, lhs) && c && c.getValue() >= 0) {
      auto [operands, map] = ir.materialize(builder, loc, {lhs});
      int64_t v = c.getValue();
      int64_t lower = kind == ConstraintKind::le ? 0 : v;
      IntegerAttr upper = kind == ConstraintKind::ge
                              ? IntegerAttr()
                              : builder.getI64IntegerAttr(v);
      guard::RangeOp::create(builder, loc, operands.front(), lower, upper,
                             reason);
      return;
    }
  }
  auto [operands, map] = ir.materialize(builder, loc, {lhs, rhs});
  guard::RelationOp::create(builder, loc, kind, operands, map, reason);
}

SmallVector<SizeConstraint> mlir::tgc::constraintsOfGuard(Operation *guard,
                                                          SymbolicIR &ir) {
  ShapeEnv &env = ir.getEnv();
  SmallVector<SizeConstraint> out;
  Location loc = guard->getLoc();
  if (auto range = dyn_cast<guard::RangeOp>(guard)) {
    AffineExpr v = ir.exprOf(range.getSize());
    out.push_back({ConstraintKind::ge, v, env.constant(range.getLower()), loc,
                   range.getReason().str()});
    if (std::optional<int64_t> upper = range.getUpper())
      out.push_back({ConstraintKind::le, v, env.constant(*upper), loc,
                     range.getReason().str()});
  } else if (auto rel = dyn_cast<guard::RelationOp>(guard)) {
    SmallVector<AffineExpr> sides = ir.exprsOf(rel.getMap(), rel.getSizes());
    if (sides.size() == 2)
      out.push_back(
          {rel.getKind(), sides[0], sides[1], loc, rel.getReason().str()});
  }
  return out;
}
