//===- SymbolicIR.h - tgc_sym IR <-> ShapeEnv -------------------*- C++ -*-===//
//
// Passes keep symbolic shapes in the IR (tgc_sym.symbol/min/max/bind/
// constrain) and reason about them in a ShapeEnv. SymbolicIR maps between
// the two: it loads the tgc_sym ops of a block into a ShapeEnv, turns size
// lists (an affine map over !tgc_sym.size operands) into expressions, and
// materializes expressions back as size lists, creating the symbol, min and
// max ops they need.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_ANALYSIS_SYMBOLICIR_H
#define TGC_ANALYSIS_SYMBOLICIR_H

#include "tgc/Analysis/ShapeEnv.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tgc {

class SymbolicIR {
public:
  explicit SymbolicIR(ShapeEnv &env) : env(env) {}

  ShapeEnv &getEnv() { return env; }

  /// Registers a tgc_sym.symbol/min/max op (its operands first). When
  /// `actualSizes` is set, symbol ranges are taken as [0, inf] (the sizes
  /// a guard function reads are only known to be sizes) instead of the
  /// op's range.
  AffineExpr addSymbolOp(Operation *op, bool actualSizes = false);
  /// Registers every tgc_sym.symbol/min/max op directly in `block`.
  void addSymbolOps(Block &block, bool actualSizes = false);

  /// The expression an SSA size stands for (registers its defining op when
  /// needed).
  AffineExpr exprOf(Value size);
  /// The expressions of a size list (map over `operands`).
  SmallVector<AffineExpr> exprsOf(AffineMap map, ValueRange operands);

  /// The SSA value of a ShapeEnv symbol, if it has one.
  Value valueOf(unsigned symbol) const { return symbolValues.lookup(symbol); }

  /// Materializes `exprs` as a size list: the operands and the map whose
  /// symbols are those operands. Missing symbols (min/max/unbacked) get ops
  /// created at `builder`'s insertion point. With `canonicalize` off, the
  /// expressions are kept as given (a recorded constraint must not be
  /// rewritten by the substitution it introduced: `s1 == s0` would become
  /// `s0 == s0`).
  std::pair<SmallVector<Value>, AffineMap>
  materialize(OpBuilder &builder, Location loc, ArrayRef<AffineExpr> exprs,
              bool canonicalize = true);

  /// Associates an existing SSA value with a ShapeEnv symbol.
  void mapSymbol(unsigned symbol, Value value);

  /// Where materialize() creates the ops of missing symbols: before `op`
  /// (by default at the builder it is given). A symbol may be used in
  /// several regions (an unbacked size read in both branches of an
  /// scf.if); created at the function's entry it dominates every use.
  void setSymbolInsertionPoint(Operation *op) { symbolPoint = op; }

private:
  Value materializeSymbol(OpBuilder &builder, Location loc, unsigned symbol);

  ShapeEnv &env;
  DenseMap<Value, AffineExpr> valueExprs;
  DenseMap<unsigned, Value> symbolValues;
  Operation *symbolPoint = nullptr;
};

} // namespace mlir::tgc

#endif // TGC_ANALYSIS_SYMBOLICIR_H
