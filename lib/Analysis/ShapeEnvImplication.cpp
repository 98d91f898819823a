//===- ShapeEnvImplication.cpp - deciding size constraints -----------------===//
//
// ShapeEnv::implies and ShapeEnv::decide: a constraint over the symbols
// holds under the premises and the symbols' ranges when its negation is
// infeasible together with them, decided by MLIR's Presburger library over
// a linear system (non-linear monomials and div/mod quotients become
// auxiliary variables).
//
//===----------------------------------------------------------------------===//

#include "tgc/Analysis/ShapeEnv.h"

#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Analysis/Presburger/PresburgerSpace.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tgc;

//===----------------------------------------------------------------------===//
// Linear systems for the Presburger library
//===----------------------------------------------------------------------===//

namespace {
/// A conjunction of linear constraints over the symbols and auxiliary
/// variables (non-linear monomials, div/mod quotients), decided with
/// presburger::IntegerRelation.
class LinearSystem {
public:
  using Row = std::map<unsigned, int64_t>; // var -> coefficient
  struct Linear {
    Row coeffs;
    int64_t constant = 0;
  };

  LinearSystem(const ShapeEnv &env, const llvm::DenseSet<unsigned> &relevant)
      : env(env), relevant(relevant), numVars(env.getNumSymbols()) {}

  /// Adds the ranges of the relevant symbols and the definitions of the
  /// relevant min/max symbols. (In symbol order, so that the system is the
  /// same from run to run; only the relevant ones are visited: a query
  /// costs what it mentions, not the size of the environment.)
  void addSymbolFacts() {
    SmallVector<unsigned> order(relevant.begin(), relevant.end());
    llvm::sort(order);
    for (unsigned i : order) {
      if (i >= env.getNumSymbols())
        continue;
      const SymbolInfo &s = env.getSymbol(i);
      Linear v;
      v.coeffs[i] = 1;
      // A replaced symbol never appears in canonical expressions, but its
      // range still bounds the expression that replaced it.
      if (std::optional<AffineExpr> sub = env.getSubstitution(i))
        v = linearize(*sub);
      if (s.range.lower)
        addGE(v, *s.range.lower);
      if (s.range.upper)
        addLE(v, *s.range.upper);
      if (s.kind == SymbolKind::Min || s.kind == SymbolKind::Max) {
        for (AffineExpr op : s.operands) {
          Linear o = linearize(env.canonicalize(op));
          // min <= op, max >= op.
          Linear d = sub(v, o);
          if (s.kind == SymbolKind::Min)
            addLE(d, 0);
          else
            addGE(d, 0);
        }
      }
    }
  }

  Linear linearize(AffineExpr e) {
    switch (e.getKind()) {
    case AffineExprKind::Constant:
      return {{}, cast<AffineConstantExpr>(e).getValue()};
    case AffineExprKind::SymbolId: {
      Linear l;
      l.coeffs[cast<AffineSymbolExpr>(e).getPosition()] = 1;
      return l;
    }
    case AffineExprKind::Add: {
      auto b = cast<AffineBinaryOpExpr>(e);
      return add(linearize(b.getLHS()), linearize(b.getRHS()));
    }
    case AffineExprKind::Mul: {
      auto b = cast<AffineBinaryOpExpr>(e);
      if (auto c = dyn_cast<AffineConstantExpr>(b.getRHS()))
        return scale(linearize(b.getLHS()), c.getValue());
      if (auto c = dyn_cast<AffineConstantExpr>(b.getLHS()))
        return scale(linearize(b.getRHS()), c.getValue());
      return opaque(e);
    }
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod: {
      auto b = cast<AffineBinaryOpExpr>(e);
      auto c = dyn_cast<AffineConstantExpr>(b.getRHS());
      if (!c || c.getValue() <= 0)
        return opaque(e);
      // The numerator first: linearizing it may add quotients, which
      // would invalidate an iterator into `quotients` taken before.
      Linear num = linearize(b.getLHS());
      auto it = quotients.find(e);
      unsigned q;
      int64_t d = c.getValue();
      if (it != quotients.end()) {
        q = it->second;
      } else {
        q = newVar();
        quotients[e] = q;
        Linear qd;
        qd.coeffs[q] = d;
        // floor: d*q <= num <= d*q + d - 1; ceil: d*q - d + 1 <= num <= d*q.
        Linear diff = sub(num, qd);
        if (e.getKind() == AffineExprKind::CeilDiv) {
          addLE(diff, 0);
          addGE(diff, -(d - 1));
        } else {
          addGE(diff, 0);
          addLE(diff, d - 1);
        }
      }
      Linear ql;
      ql.coeffs[q] = 1;
      if (e.getKind() == AffineExprKind::Mod)
        return sub(num, scale(ql, d));
      return ql;
    }
    case AffineExprKind::DimId:
      return opaque(e);
    }
    return opaque(e);
  }

  void addGE(const Linear &l, int64_t c) { // l >= c
    Linear r = l;
    r.constant -= c;
    inequalities.push_back(r);
  }
  void addLE(const Linear &l, int64_t c) { // l <= c
    Linear r = scale(l, -1);
    r.constant += c;
    inequalities.push_back(r);
  }
  void addEQ(const Linear &l, int64_t c) {
    Linear r = l;
    r.constant -= c;
    equalities.push_back(r);
  }
  unsigned newVar() { return numVars++; }

  /// Adds the conjunction for `lhs kind rhs`; returns false when the kind
  /// cannot be expressed as one conjunction (broadcastable).
  bool addConstraint(ConstraintKind kind, AffineExpr lhs, AffineExpr rhs) {
    Linear d = sub(linearize(lhs), linearize(rhs));
    switch (kind) {
    case ConstraintKind::eq:
      addEQ(d, 0);
      return true;
    case ConstraintKind::ge:
      addGE(d, 0);
      return true;
    case ConstraintKind::le:
      addLE(d, 0);
      return true;
    case ConstraintKind::divisible: {
      auto c = dyn_cast<AffineConstantExpr>(rhs);
      if (!c || c.getValue() == 0)
        return false;
      Linear l = linearize(lhs);
      Linear t;
      t.coeffs[newVar()] = c.getValue();
      addEQ(sub(l, t), 0);
      return true;
    }
    case ConstraintKind::broadcastable:
      return false;
    }
    return false;
  }

  bool isEmpty() const {
    using namespace presburger;
    // Only the variables some constraint mentions are columns: the others
    // (every symbol of the environment has a variable) are unconstrained
    // and do not change emptiness, and the cost of the integer emptiness
    // test grows with the number of columns (a function with 300 inputs
    // has 600 symbols; each guard check was a 600-column problem).
    DenseMap<unsigned, unsigned> column;
    for (const auto *rows : {&inequalities, &equalities})
      for (const Linear &l : *rows)
        for (auto [v, c] : l.coeffs)
          if (c != 0)
            column.try_emplace(v, column.size());
    unsigned numColumns = column.size();
    IntegerRelation rel(PresburgerSpace::getSetSpace(numColumns));
    auto dense = [&](const Linear &l) {
      SmallVector<int64_t> row(numColumns + 1, 0);
      for (auto [v, c] : l.coeffs)
        if (c != 0)
          row[column.lookup(v)] += c;
      row[numColumns] = l.constant;
      return row;
    };
    // Each row once: the range facts of symbols replaced by the same
    // expression (forty batch sizes all equal to `s11 floordiv 64`) are the
    // same row many times, and the integer test's cost grows with the rows.
    std::set<SmallVector<int64_t>> seenRows;
    for (const Linear &l : inequalities)
      if (SmallVector<int64_t> row = dense(l); seenRows.insert(row).second)
        rel.addInequality(row);
    seenRows.clear();
    for (const Linear &l : equalities)
      if (SmallVector<int64_t> row = dense(l); seenRows.insert(row).second)
        rel.addEquality(row);
    // isEmpty() is a cheap sufficient test; isIntegerEmpty() is exact.
    return rel.isEmpty() || rel.isIntegerEmpty();
  }

  static Linear add(Linear a, const Linear &b) {
    for (auto [v, c] : b.coeffs)
      a.coeffs[v] += c;
    a.constant += b.constant;
    return a;
  }
  static Linear scale(Linear a, int64_t f) {
    for (auto &[v, c] : a.coeffs)
      c *= f;
    a.constant *= f;
    return a;
  }
  static Linear sub(Linear a, const Linear &b) { return add(a, scale(b, -1)); }

private:
  /// A non-linear term: a fresh variable bounded by interval evaluation.
  Linear opaque(AffineExpr e) {
    auto it = opaques.find(e);
    unsigned v;
    if (it != opaques.end()) {
      v = it->second;
    } else {
      v = newVar();
      opaques[e] = v;
      SizeRange b = env.bounds(e);
      Linear l;
      l.coeffs[v] = 1;
      if (b.lower)
        addGE(l, *b.lower);
      if (b.upper)
        addLE(l, *b.upper);
    }
    Linear l;
    l.coeffs[v] = 1;
    return l;
  }

  const ShapeEnv &env;
  const llvm::DenseSet<unsigned> &relevant;
  unsigned numVars = 0;
  DenseMap<AffineExpr, unsigned> opaques, quotients;
  std::vector<Linear> inequalities, equalities;
};
} // namespace


/// Symbols an expression mentions, with the operands of min/max symbols and
/// the replacements of substituted symbols.
static void collectSymbols(const ShapeEnv &env, AffineExpr e,
                           llvm::DenseSet<unsigned> &out) {
  e.walk([&](AffineExpr sub) {
    auto s = dyn_cast<AffineSymbolExpr>(sub);
    if (!s || !out.insert(s.getPosition()).second)
      return;
    for (AffineExpr op : env.getSymbol(s.getPosition()).operands)
      collectSymbols(env, op, out);
  });
}

/// The symbols connected to `roots` through `pool` constraints (a query
/// only needs the facts about those): a system over the whole environment
/// would make every query as slow as the largest model.
static llvm::DenseSet<unsigned>
relevantSymbols(const ShapeEnv &env, ArrayRef<AffineExpr> roots,
                ArrayRef<std::pair<AffineExpr, AffineExpr>> pool,
                SmallVectorImpl<bool> &poolUsed) {
  llvm::DenseSet<unsigned> relevant;
  for (AffineExpr r : roots)
    collectSymbols(env, r, relevant);
  poolUsed.assign(pool.size(), false);
  SmallVector<unsigned> substituted = env.getSubstitutedSymbols();
  bool changed = true;
  while (changed) {
    changed = false;
    // Substituted symbols whose replacement touches the relevant set carry
    // range facts about it.
    for (unsigned i : substituted) {
      if (relevant.count(i))
        continue;
      if (std::optional<AffineExpr> sub = env.getSubstitution(i)) {
        llvm::DenseSet<unsigned> syms;
        collectSymbols(env, *sub, syms);
        if (llvm::any_of(syms, [&](unsigned x) { return relevant.count(x); })) {
          relevant.insert(i);
          changed = true;
        }
      }
    }
    for (auto [k, c] : llvm::enumerate(pool)) {
      if (poolUsed[k])
        continue;
      llvm::DenseSet<unsigned> syms;
      collectSymbols(env, c.first, syms);
      collectSymbols(env, c.second, syms);
      if (llvm::any_of(syms, [&](unsigned x) { return relevant.count(x); })) {
        poolUsed[k] = true;
        for (unsigned x : syms)
          changed |= relevant.insert(x).second;
      }
    }
  }
  return relevant;
}

/// Conjunctions whose union is the negation of `lhs kind rhs`, each given as
/// a list of (kind, lhs, rhs) atoms; an atom kind `ne` is encoded as two
/// separate conjunctions by the caller. Returns false when not expressible.
static bool negationCases(
    const ShapeEnv &env, ConstraintKind kind, AffineExpr lhs, AffineExpr rhs,
    SmallVectorImpl<SmallVector<std::tuple<ConstraintKind, AffineExpr,
                                           AffineExpr>>> &cases) {
  AffineExpr one = env.constant(1);
  switch (kind) {
  case ConstraintKind::ge: // lhs <= rhs - 1
    cases.push_back({{ConstraintKind::le, lhs, rhs - one}});
    return true;
  case ConstraintKind::le: // lhs >= rhs + 1
    cases.push_back({{ConstraintKind::ge, lhs, rhs + one}});
    return true;
  case ConstraintKind::eq:
    cases.push_back({{ConstraintKind::ge, lhs, rhs + one}});
    cases.push_back({{ConstraintKind::le, lhs, rhs - one}});
    return true;
  case ConstraintKind::divisible:
    return false; // handled by the caller with a remainder variable
  case ConstraintKind::broadcastable: {
    // lhs != rhs && lhs != 1 && rhs != 1.
    using Atom = std::tuple<ConstraintKind, AffineExpr, AffineExpr>;
    Atom a[2] = {{ConstraintKind::ge, lhs, rhs + one},
                 {ConstraintKind::le, lhs, rhs - one}};
    Atom b[2] = {{ConstraintKind::ge, lhs, env.constant(2)},
                 {ConstraintKind::le, lhs, env.constant(0)}};
    Atom c[2] = {{ConstraintKind::ge, rhs, env.constant(2)},
                 {ConstraintKind::le, rhs, env.constant(0)}};
    for (const Atom &x : a)
      for (const Atom &y : b)
        for (const Atom &z : c)
          cases.push_back({x, y, z});
    return true;
  }
  }
  return false;
}

bool ShapeEnv::implies(ArrayRef<SizeConstraint> premises,
                       const SizeConstraint &conclusion,
                       bool useRecorded) const {
  AffineExpr lhs = canonicalize(conclusion.lhs);
  AffineExpr rhs = canonicalize(conclusion.rhs);
  struct Fact {
    ConstraintKind kind;
    AffineExpr lhs, rhs;
  };
  SmallVector<Fact> facts;
  for (const SizeConstraint &p : premises)
    facts.push_back({p.kind, canonicalize(p.lhs), canonicalize(p.rhs)});
  if (useRecorded)
    for (const SizeConstraint &p : constraints)
      facts.push_back({p.kind, canonicalize(p.lhs), canonicalize(p.rhs)});
  SmallVector<std::pair<AffineExpr, AffineExpr>> pool;
  for (const Fact &f : facts)
    pool.push_back({f.lhs, f.rhs});
  SmallVector<bool> used;
  llvm::DenseSet<unsigned> relevant =
      relevantSymbols(*this, {lhs, rhs}, pool, used);
  auto baseSystem = [&](LinearSystem &sys) {
    sys.addSymbolFacts();
    for (auto [k, f] : llvm::enumerate(facts))
      if (used[k])
        (void)sys.addConstraint(f.kind, f.lhs, f.rhs);
  };

  if (conclusion.kind == ConstraintKind::divisible) {
    auto c = dyn_cast<AffineConstantExpr>(rhs);
    if (!c || c.getValue() == 0)
      return false;
    int64_t d = std::abs(c.getValue());
    if (d == 1)
      return true;
    // Not divisible: lhs = d * q + t with 1 <= t <= d - 1.
    LinearSystem sys(*this, relevant);
    baseSystem(sys);
    LinearSystem::Linear l = sys.linearize(lhs);
    unsigned q = sys.newVar(), t = sys.newVar();
    LinearSystem::Linear qt;
    qt.coeffs[q] = d;
    qt.coeffs[t] = 1;
    sys.addEQ(LinearSystem::sub(l, qt), 0);
    LinearSystem::Linear tv;
    tv.coeffs[t] = 1;
    sys.addGE(tv, 1);
    sys.addLE(tv, d - 1);
    return sys.isEmpty();
  }

  SmallVector<SmallVector<std::tuple<ConstraintKind, AffineExpr, AffineExpr>>>
      cases;
  if (!negationCases(*this, conclusion.kind, lhs, rhs, cases))
    return false;
  for (auto &conj : cases) {
    LinearSystem sys(*this, relevant);
    baseSystem(sys);
    for (auto &[k, l, r] : conj)
      sys.addConstraint(k, l, r);
    if (!sys.isEmpty())
      return false;
  }
  return true;
}

Truth ShapeEnv::decide(ConstraintKind kind, AffineExpr lhs,
                       AffineExpr rhs) const {
  Location loc = UnknownLoc::get(ctx);
  SizeConstraint c{kind, lhs, rhs, loc, ""};
  if (implies({}, c, /*useRecorded=*/true))
    return Truth::True;
  // False when the constraint (each of its disjuncts) contradicts the facts.
  auto contradicts = [&](ConstraintKind k, AffineExpr l, AffineExpr r) {
    l = canonicalize(l);
    r = canonicalize(r);
    SmallVector<std::pair<AffineExpr, AffineExpr>> pool;
    for (const SizeConstraint &p : constraints)
      pool.push_back({canonicalize(p.lhs), canonicalize(p.rhs)});
    SmallVector<bool> used;
    llvm::DenseSet<unsigned> relevant = relevantSymbols(*this, {l, r}, pool,
                                                        used);
    LinearSystem sys(*this, relevant);
    sys.addSymbolFacts();
    for (auto [i, p] : llvm::enumerate(constraints))
      if (used[i])
        (void)sys.addConstraint(p.kind, pool[i].first, pool[i].second);
    if (!sys.addConstraint(k, l, r))
      return false;
    return sys.isEmpty();
  };
  if (kind == ConstraintKind::broadcastable) {
    AffineExpr one = constant(1);
    if (contradicts(ConstraintKind::eq, lhs, rhs) &&
        contradicts(ConstraintKind::eq, lhs, one) &&
        contradicts(ConstraintKind::eq, rhs, one))
      return Truth::False;
    return Truth::Unknown;
  }
  if (contradicts(kind, lhs, rhs))
    return Truth::False;
  return Truth::Unknown;
}
