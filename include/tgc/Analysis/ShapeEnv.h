//===- ShapeEnv.h - symbolic sizes, ranges and constraints -----*- C++ -*-===//
//
// TGC's symbolic size library (the counterpart of PyTorch's ShapeEnv):
//
// * Symbols stand for sizes that are not fixed at compile time. Each has a
//   value range [lower, upper] (upper may be infinite), an origin (argument
//   and dimension it is read from, for input symbols) and a hint (the example
//   value).
// * Size expressions are AffineExprs over symbols (AffineSymbolExpr(i) is
//   symbol i), semi-affine where needed (s0 * s1 from flattening). max/min
//   are symbols of kind Min/Max defined by their operand expressions, so that
//   everything else stays affine. `canonicalize` puts an expression into a
//   polynomial normal form (with the substitutions in force), so equal sizes
//   compare equal.
// * Constraints (==, >=, <=, divisible, broadcastable), each with an origin
//   location and a reason, are decided and implied through MLIR's Presburger
//   library: `s0 >= 10` implies `s0 >= 3`; a constraint implied by the ranges
//   is true and never becomes a guard; an equality between a symbol and an
//   expression becomes a substitution, as PyTorch's replacements do.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_ANALYSIS_SHAPEENV_H
#define TGC_ANALYSIS_SHAPEENV_H

#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tgc {

using sym::ConstraintKind;

/// An integer interval [lower, upper]; no upper means +infinity. Sizes are
/// never negative, but expressions (differences) may be.
struct SizeRange {
  std::optional<int64_t> lower = 0; // none: -infinity
  std::optional<int64_t> upper;     // none: +infinity

  static SizeRange exactly(int64_t v) { return {v, v}; }
  static SizeRange unbounded() { return {std::nullopt, std::nullopt}; }
  bool contains(int64_t v) const {
    return (!lower || *lower <= v) && (!upper || v <= *upper);
  }
  bool isConstant() const { return lower && upper && *lower == *upper; }
  SizeRange intersect(const SizeRange &other) const;
  bool operator==(const SizeRange &o) const {
    return lower == o.lower && upper == o.upper;
  }
  /// "[2, inf]", "[-inf, 5]", "[3, 3]".
  std::string str() const;
};

enum class SymbolKind {
  Input,    ///< a size read from an argument (origin arg/dim)
  Unbacked, ///< a size known only at run time inside the function
  Min,      ///< the minimum of its operand expressions
  Max,      ///< the maximum of its operand expressions
};

struct SymbolInfo {
  std::string name;
  SymbolKind kind = SymbolKind::Input;
  SizeRange range;
  std::optional<int64_t> hint;
  std::optional<int64_t> arg, dim; ///< origin of an Input symbol
  SmallVector<AffineExpr> operands; ///< Min/Max operands
};

/// A relation between two size expressions that a program needs to be well
/// defined, with where and why it was required.
struct SizeConstraint {
  ConstraintKind kind;
  AffineExpr lhs, rhs;
  Location loc;
  std::string reason;
};

enum class Truth { True, False, Unknown };

class ShapeEnv {
public:
  explicit ShapeEnv(MLIRContext *ctx);

  MLIRContext *getContext() const { return ctx; }

  //===--------------------------------------------------------------------===//
  // Symbols
  //===--------------------------------------------------------------------===//

  /// Adds a symbol and returns its expression (AffineSymbolExpr(i)).
  AffineExpr addSymbol(SymbolInfo info);
  /// A fresh data-dependent size, named `u<N>` unless a name is given.
  AffineExpr addUnbacked(StringRef name = "",
                         SizeRange range = SizeRange{0, std::nullopt});
  /// min/max of at least one expression. Folds when the result is decided
  /// by the ranges (e.g. min(s0, 10) with s0 >= 10 is 10).
  AffineExpr createMin(ArrayRef<AffineExpr> exprs, StringRef name = "");
  AffineExpr createMax(ArrayRef<AffineExpr> exprs, StringRef name = "");

  unsigned getNumSymbols() const { return symbols.size(); }
  const SymbolInfo &getSymbol(unsigned i) const { return symbols[i]; }
  /// The Input symbol read from (arg, dim), if any.
  std::optional<unsigned> lookupInput(int64_t arg, int64_t dim) const;
  std::optional<unsigned> lookupName(StringRef name) const;

  AffineExpr constant(int64_t v) const;
  AffineExpr symbol(unsigned i) const;

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  /// Polynomial normal form with substitutions applied: two expressions are
  /// equal for all symbol values iff (for polynomials, and for div/mod terms
  /// up to their canonical operands) their canonical forms are identical.
  AffineExpr canonicalize(AffineExpr expr) const;
  bool isEqual(AffineExpr a, AffineExpr b) const {
    return canonicalize(a) == canonicalize(b);
  }
  std::optional<int64_t> getConstant(AffineExpr expr) const;

  /// Interval evaluation of an expression from the symbol ranges.
  SizeRange bounds(AffineExpr expr) const;

  /// Value of an expression for concrete symbol values (one per symbol;
  /// Min/Max symbols are computed from their operands). std::nullopt on
  /// division by zero or overflow.
  std::optional<int64_t> evaluate(AffineExpr expr,
                                  ArrayRef<int64_t> symbolValues) const;

  /// "s0 * 2 + 1", with symbol names.
  std::string str(AffineExpr expr) const;

  //===--------------------------------------------------------------------===//
  // Constraints
  //===--------------------------------------------------------------------===//

  /// Whether `c` holds for every value of the symbols within their ranges
  /// that satisfies the recorded constraints (True), for none (False), or
  /// depends on the values (Unknown).
  Truth decide(ConstraintKind kind, AffineExpr lhs, AffineExpr rhs) const;
  Truth decide(const SizeConstraint &c) const {
    return decide(c.kind, c.lhs, c.rhs);
  }

  /// Whether `premises` (plus the symbol ranges, plus the recorded
  /// constraints when `useRecorded`) imply `conclusion`.
  bool implies(ArrayRef<SizeConstraint> premises,
               const SizeConstraint &conclusion,
               bool useRecorded = false) const;

  /// Records a constraint the program needs. Returns its truth before
  /// recording: False means the program is wrong for every input (nothing
  /// is recorded; the caller reports it); True means it always holds
  /// (nothing is recorded); Unknown means it is recorded, refines symbol
  /// ranges where it bounds a lone symbol by a constant, and, for an
  /// equality between a symbol and an expression not containing it,
  /// becomes a substitution (the later symbol is replaced).
  Truth require(SizeConstraint c);

  ArrayRef<SizeConstraint> getConstraints() const { return constraints; }

  /// Substitution in force for symbol i, if any (already canonical).
  std::optional<AffineExpr> getSubstitution(unsigned i) const;
  /// The symbols that have a substitution, in increasing order.
  SmallVector<unsigned> getSubstitutedSymbols() const {
    SmallVector<unsigned> out;
    for (auto &entry : substitutions)
      out.push_back(entry.first);
    llvm::sort(out);
    return out;
  }

  /// Concrete check of a constraint for given symbol values.
  std::optional<bool> evaluate(const SizeConstraint &c,
                               ArrayRef<int64_t> symbolValues) const;

  /// "s0 >= 10", "s1 == s0", "s0 mod 4 == 0", "broadcastable(s0, 4)".
  std::string str(const SizeConstraint &c) const;

private:
  /// For an equality neither side of which is a lone symbol: a symbol it
  /// determines (coefficient +-1 after common factors are divided out and
  /// exact quotients multiplied out) and its value, unless that value
  /// depends on the symbol.
  std::optional<std::pair<unsigned, AffineExpr>>
  solveEquality(AffineExpr lhs, AffineExpr rhs,
                llvm::function_ref<bool(unsigned, AffineExpr)> dependsOn) const;

  MLIRContext *ctx;
  SmallVector<SymbolInfo> symbols;
  SmallVector<SizeConstraint> constraints;
  DenseMap<unsigned, AffineExpr> substitutions;
  unsigned numUnbacked = 0;
};

} // namespace mlir::tgc

#endif // TGC_ANALYSIS_SHAPEENV_H
