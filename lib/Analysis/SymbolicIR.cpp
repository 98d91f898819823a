//===- SymbolicIR.cpp - tgc_sym IR <-> ShapeEnv ---------------------------===//

#include "tgc/Analysis/SymbolicIR.h"

#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tgc;

static std::optional<int64_t> optInt(std::optional<int64_t> v) { return v; }

AffineExpr SymbolicIR::addSymbolOp(Operation *op, bool actualSizes) {
  Value result = op->getResult(0);
  if (auto it = valueExprs.find(result); it != valueExprs.end())
    return it->second;
  AffineExpr expr =
      llvm::TypeSwitch<Operation *, AffineExpr>(op)
          .Case([&](sym::SymbolOp s) {
            SymbolInfo info;
            info.name = s.getName().str();
            info.kind = s.hasSource() ? SymbolKind::Input
                                      : SymbolKind::Unbacked;
            info.range = actualSizes
                             ? SizeRange{0, std::nullopt}
                             : SizeRange{s.getLower(), optInt(s.getUpper())};
            info.hint = s.getHint();
            info.arg = s.getArg();
            info.dim = s.getDim();
            return env.addSymbol(std::move(info));
          })
          .Case<sym::MinOp, sym::MaxOp>([&](auto m) {
            SmallVector<AffineExpr> operands =
                exprsOf(m.getMap(), m.getSizes());
            std::string name = m.getName() ? m.getName()->str() : "";
            return isa<sym::MinOp>(op) ? env.createMin(operands, name)
                                       : env.createMax(operands, name);
          })
          .Default([&](Operation *) {
            // Not a size op: an unknown size.
            return env.addUnbacked();
          });
  valueExprs[result] = expr;
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    if (!symbolValues.count(s.getPosition()))
      symbolValues[s.getPosition()] = result;
  return expr;
}

void SymbolicIR::addSymbolOps(Block &block, bool actualSizes) {
  for (Operation &op : block)
    if (isa<sym::SymbolOp, sym::MinOp, sym::MaxOp>(op))
      addSymbolOp(&op, actualSizes);
}

AffineExpr SymbolicIR::exprOf(Value size) {
  if (auto it = valueExprs.find(size); it != valueExprs.end())
    return it->second;
  if (Operation *def = size.getDefiningOp())
    return addSymbolOp(def);
  AffineExpr e = env.addUnbacked();
  valueExprs[size] = e;
  return e;
}

SmallVector<AffineExpr> SymbolicIR::exprsOf(AffineMap map,
                                            ValueRange operands) {
  SmallVector<AffineExpr> replacements;
  for (Value v : operands)
    replacements.push_back(exprOf(v));
  // Size lists are maps over symbols (one per operand); older IR may use
  // dims, accept both.
  SmallVector<AffineExpr> dims(map.getNumDims(), env.constant(0));
  SmallVector<AffineExpr> syms(map.getNumSymbols(), env.constant(0));
  for (unsigned i = 0; i < replacements.size(); ++i) {
    if (map.getNumSymbols() == replacements.size())
      syms[i] = replacements[i];
    else if (i < dims.size())
      dims[i] = replacements[i];
  }
  SmallVector<AffineExpr> out;
  for (AffineExpr e : map.getResults())
    out.push_back(env.canonicalize(e.replaceDimsAndSymbols(dims, syms)));
  return out;
}

void SymbolicIR::mapSymbol(unsigned symbol, Value value) {
  symbolValues[symbol] = value;
  valueExprs[value] = env.symbol(symbol);
}

Value SymbolicIR::materializeSymbol(OpBuilder &builder, Location loc,
                                    unsigned symbol) {
  if (Value v = symbolValues.lookup(symbol))
    return v;
  if (symbolPoint && builder.getInsertionPoint() !=
                         Block::iterator(symbolPoint)) {
    OpBuilder atPoint(symbolPoint);
    return materializeSymbol(atPoint, loc, symbol);
  }
  const SymbolInfo &info = env.getSymbol(symbol);
  Value result;
  MLIRContext *ctx = builder.getContext();
  auto i64 = [&](std::optional<int64_t> v) -> IntegerAttr {
    return v ? builder.getI64IntegerAttr(*v) : IntegerAttr();
  };
  if (info.kind == SymbolKind::Min || info.kind == SymbolKind::Max) {
    auto [operands, map] = materialize(builder, loc, info.operands);
    StringAttr name;
    if (!info.name.empty() && sym::isIdentifier(info.name))
      name = builder.getStringAttr(info.name);
    if (info.kind == SymbolKind::Min)
      result = sym::MinOp::create(builder, loc, sym::SizeType::get(ctx),
                                  operands, AffineMapAttr::get(map), name);
    else
      result = sym::MaxOp::create(builder, loc, sym::SizeType::get(ctx),
                                  operands, AffineMapAttr::get(map), name);
  } else {
    result = sym::SymbolOp::create(
        builder, loc, sym::SizeType::get(ctx), info.name,
        info.range.lower.value_or(0), i64(info.range.upper), i64(info.hint),
        i64(info.arg), i64(info.dim));
  }
  mapSymbol(symbol, result);
  return result;
}

std::pair<SmallVector<Value>, AffineMap>
SymbolicIR::materialize(OpBuilder &builder, Location loc,
                        ArrayRef<AffineExpr> exprs, bool canonicalize) {
  SmallVector<AffineExpr> canonical;
  for (AffineExpr e : exprs)
    canonical.push_back(canonicalize ? env.canonicalize(e) : e);
  // Env symbols used, in order of first use.
  SmallVector<unsigned> used;
  for (AffineExpr e : canonical)
    e.walk([&](AffineExpr sub) {
      if (auto s = dyn_cast<AffineSymbolExpr>(sub))
        if (!llvm::is_contained(used, s.getPosition()))
          used.push_back(s.getPosition());
    });
  SmallVector<Value> operands;
  SmallVector<AffineExpr> replacements(env.getNumSymbols(),
                                       env.constant(0));
  for (auto [i, s] : llvm::enumerate(used)) {
    operands.push_back(materializeSymbol(builder, loc, s));
    replacements[s] = getAffineSymbolExpr(i, builder.getContext());
  }
  SmallVector<AffineExpr> results;
  for (AffineExpr e : canonical)
    results.push_back(e.replaceSymbols(replacements));
  return {operands, AffineMap::get(0, used.size(), results,
                                   builder.getContext())};
}
