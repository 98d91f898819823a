//===- ShapeEnv.cpp - symbolic sizes, ranges and constraints --------------===//

#include "tgc/Analysis/ShapeEnv.h"

#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Analysis/Presburger/PresburgerSpace.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::tgc;

//===----------------------------------------------------------------------===//
// SizeRange
//===----------------------------------------------------------------------===//

SizeRange SizeRange::intersect(const SizeRange &other) const {
  SizeRange r = *this;
  if (other.lower && (!r.lower || *other.lower > *r.lower))
    r.lower = other.lower;
  if (other.upper && (!r.upper || *other.upper < *r.upper))
    r.upper = other.upper;
  return r;
}

std::string SizeRange::str() const {
  std::string s = "[";
  s += lower ? std::to_string(*lower) : "-inf";
  s += ", ";
  s += upper ? std::to_string(*upper) : "inf";
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Polynomial normal form
//===----------------------------------------------------------------------===//

namespace {
/// An atom of a monomial: a symbol or an opaque div/mod term. Atoms are
/// ordered by a key that is stable across runs: symbols by index, opaque
/// terms (after them) by their printed canonical form.
struct Atom {
  std::string key;
  AffineExpr expr;
  bool operator<(const Atom &o) const { return key < o.key; }
  bool operator==(const Atom &o) const { return key == o.key; }
};
using Monomial = std::vector<Atom>; // sorted, with repetition

struct MonomialLess {
  bool operator()(const Monomial &a, const Monomial &b) const {
    // Lower degree first, then by keys.
    if (a.size() != b.size())
      return a.size() < b.size();
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i]))
        return a[i] < b[i];
    return false;
  }
};

struct Poly {
  std::map<Monomial, int64_t, MonomialLess> terms;
  int64_t constant = 0;

  bool isConstant() const { return terms.empty(); }
  void addTerm(const Monomial &m, int64_t c) {
    if (c == 0)
      return;
    int64_t &slot = terms[m];
    slot += c;
    if (slot == 0)
      terms.erase(m);
  }
  Poly &operator+=(const Poly &o) {
    for (auto &[m, c] : o.terms)
      addTerm(m, c);
    constant += o.constant;
    return *this;
  }
  Poly scaled(int64_t f) const {
    Poly r;
    if (f == 0)
      return r;
    for (auto &[m, c] : terms)
      r.terms[m] = c * f;
    r.constant = constant * f;
    return r;
  }
  Poly operator*(const Poly &o) const {
    Poly r;
    r.constant = constant * o.constant;
    for (auto &[m, c] : terms)
      r.addTerm(m, c * o.constant);
    for (auto &[m, c] : o.terms)
      r.addTerm(m, c * constant);
    for (auto &[m1, c1] : terms)
      for (auto &[m2, c2] : o.terms) {
        Monomial m = m1;
        m.insert(m.end(), m2.begin(), m2.end());
        llvm::sort(m);
        r.addTerm(m, c1 * c2);
      }
    return r;
  }
  /// Whether every coefficient and the constant are divisible by d.
  bool divisibleBy(int64_t d) const {
    if (constant % d)
      return false;
    for (auto &[m, c] : terms)
      if (c % d)
        return false;
    return true;
  }
};
} // namespace

static int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static int64_t ceilDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}
static int64_t modInt(int64_t a, int64_t b) {
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

namespace {
/// Converts between AffineExprs and polynomials for one ShapeEnv.
class PolyBuilder {
public:
  PolyBuilder(const ShapeEnv &env,
              const DenseMap<unsigned, AffineExpr> &substitutions)
      : env(env), substitutions(substitutions) {}

  Poly toPoly(AffineExpr e) {
    switch (e.getKind()) {
    case AffineExprKind::Constant: {
      Poly p;
      p.constant = cast<AffineConstantExpr>(e).getValue();
      return p;
    }
    case AffineExprKind::SymbolId: {
      unsigned pos = cast<AffineSymbolExpr>(e).getPosition();
      auto it = substitutions.find(pos);
      if (it != substitutions.end())
        return toPoly(it->second);
      return atom({symbolKey(pos), e});
    }
    case AffineExprKind::DimId:
      return atom({"~d" + std::to_string(cast<AffineDimExpr>(e).getPosition()),
                   e});
    case AffineExprKind::Add: {
      auto b = cast<AffineBinaryOpExpr>(e);
      Poly p = toPoly(b.getLHS());
      p += toPoly(b.getRHS());
      return p;
    }
    case AffineExprKind::Mul: {
      auto b = cast<AffineBinaryOpExpr>(e);
      return toPoly(b.getLHS()) * toPoly(b.getRHS());
    }
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod: {
      auto b = cast<AffineBinaryOpExpr>(e);
      Poly lhs = toPoly(b.getLHS());
      Poly rhs = toPoly(b.getRHS());
      if (rhs.isConstant() && rhs.constant != 0) {
        int64_t c = rhs.constant;
        if (lhs.isConstant()) {
          Poly p;
          p.constant = e.getKind() == AffineExprKind::FloorDiv
                           ? floorDivInt(lhs.constant, c)
                       : e.getKind() == AffineExprKind::CeilDiv
                           ? ceilDivInt(lhs.constant, c)
                           : modInt(lhs.constant, c);
          return p;
        }
        if (lhs.divisibleBy(c)) {
          if (e.getKind() == AffineExprKind::Mod)
            return Poly();
          Poly p;
          for (auto &[m, coeff] : lhs.terms)
            p.terms[m] = coeff / c;
          p.constant = lhs.constant / c;
          return p;
        }
      }
      AffineExpr l = fromPoly(lhs), r = fromPoly(rhs);
      AffineExpr canon = e.getKind() == AffineExprKind::FloorDiv
                             ? l.floorDiv(r)
                         : e.getKind() == AffineExprKind::CeilDiv
                             ? l.ceilDiv(r)
                             : l % r;
      // The AffineExpr constructors may simplify further.
      if (canon.getKind() != e.getKind())
        return toPoly(canon);
      return atom({"~" + env.str(canon), canon});
    }
    }
    llvm_unreachable("unknown affine expression kind");
  }

  AffineExpr fromPoly(const Poly &p) {
    MLIRContext *ctx = env.getContext();
    AffineExpr result;
    for (auto &[m, c] : p.terms) {
      AffineExpr term;
      for (const Atom &a : m)
        term = term ? term * a.expr : a.expr;
      if (c != 1)
        term = term * c;
      result = result ? result + term : term;
    }
    AffineExpr constant = getAffineConstantExpr(p.constant, ctx);
    if (!result)
      return constant;
    return p.constant ? result + constant : result;
  }

private:
  static std::string symbolKey(unsigned pos) {
    // Zero-padded so that keys order like indices.
    std::string digits = std::to_string(pos);
    return "s" + std::string(10 - std::min<size_t>(10, digits.size()), '0') +
           digits;
  }
  static Poly atom(Atom a) {
    Poly p;
    p.terms[{a}] = 1;
    return p;
  }

  const ShapeEnv &env;
  const DenseMap<unsigned, AffineExpr> &substitutions;
};
} // namespace

//===----------------------------------------------------------------------===//
// ShapeEnv: symbols and expressions
//===----------------------------------------------------------------------===//

ShapeEnv::ShapeEnv(MLIRContext *ctx) : ctx(ctx) {}

AffineExpr ShapeEnv::constant(int64_t v) const {
  return getAffineConstantExpr(v, ctx);
}

AffineExpr ShapeEnv::symbol(unsigned i) const {
  return getAffineSymbolExpr(i, ctx);
}

AffineExpr ShapeEnv::addSymbol(SymbolInfo info) {
  symbols.push_back(std::move(info));
  return symbol(symbols.size() - 1);
}

AffineExpr ShapeEnv::addUnbacked(StringRef name, SizeRange range) {
  SymbolInfo info;
  info.name = name.empty() ? "u" + std::to_string(numUnbacked) : name.str();
  ++numUnbacked;
  info.kind = SymbolKind::Unbacked;
  info.range = range;
  return addSymbol(std::move(info));
}

static SizeRange minMaxRange(const ShapeEnv &env, ArrayRef<AffineExpr> exprs,
                             bool isMin) {
  SizeRange r = env.bounds(exprs.front());
  for (AffineExpr e : exprs.drop_front()) {
    SizeRange b = env.bounds(e);
    auto pick = [&](std::optional<int64_t> x, std::optional<int64_t> y,
                    bool infIsLow) -> std::optional<int64_t> {
      // For lower bounds none is -inf; for upper bounds none is +inf.
      if (!x || !y) {
        bool takeInf = isMin == infIsLow;
        if (takeInf)
          return std::nullopt;
        return x ? x : y;
      }
      return isMin ? std::min(*x, *y) : std::max(*x, *y);
    };
    r.lower = pick(r.lower, b.lower, /*infIsLow=*/true);
    r.upper = pick(r.upper, b.upper, /*infIsLow=*/false);
  }
  return r;
}

static AffineExpr createMinMax(ShapeEnv &env, ArrayRef<AffineExpr> exprs,
                               StringRef name, bool isMin) {
  assert(!exprs.empty() && "min/max of nothing");
  // Drop operands that can never be the result, and duplicates.
  SmallVector<AffineExpr> kept;
  for (AffineExpr e : exprs) {
    AffineExpr c = env.canonicalize(e);
    if (!llvm::is_contained(kept, c))
      kept.push_back(c);
  }
  SmallVector<AffineExpr> operands;
  for (AffineExpr e : kept) {
    bool dominated = llvm::any_of(kept, [&](AffineExpr o) {
      if (o == e)
        return false;
      // e can never be the result if o is always at least as small (min).
      Truth t = isMin ? env.decide(ConstraintKind::le, o, e)
                      : env.decide(ConstraintKind::ge, o, e);
      return t == Truth::True;
    });
    if (!dominated)
      operands.push_back(e);
  }
  if (operands.empty())
    operands.push_back(kept.front());
  if (operands.size() == 1)
    return operands.front();
  SymbolInfo info;
  info.kind = isMin ? SymbolKind::Min : SymbolKind::Max;
  info.range = minMaxRange(env, operands, isMin);
  info.operands.assign(operands.begin(), operands.end());
  if (!name.empty()) {
    info.name = name.str();
  } else {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << (isMin ? "min(" : "max(");
    llvm::interleaveComma(operands, os,
                          [&](AffineExpr e) { os << env.str(e); });
    os << ")";
    info.name = s;
  }
  return env.addSymbol(std::move(info));
}

AffineExpr ShapeEnv::createMin(ArrayRef<AffineExpr> exprs, StringRef name) {
  return createMinMax(*this, exprs, name, /*isMin=*/true);
}

AffineExpr ShapeEnv::createMax(ArrayRef<AffineExpr> exprs, StringRef name) {
  return createMinMax(*this, exprs, name, /*isMin=*/false);
}

std::optional<unsigned> ShapeEnv::lookupInput(int64_t arg, int64_t dim) const {
  for (auto [i, s] : llvm::enumerate(symbols))
    if (s.kind == SymbolKind::Input && s.arg == arg && s.dim == dim)
      return i;
  return std::nullopt;
}

std::optional<unsigned> ShapeEnv::lookupName(StringRef name) const {
  for (auto [i, s] : llvm::enumerate(symbols))
    if (s.name == name)
      return i;
  return std::nullopt;
}

AffineExpr ShapeEnv::canonicalize(AffineExpr expr) const {
  PolyBuilder builder(*this, substitutions);
  return builder.fromPoly(builder.toPoly(expr));
}

std::optional<int64_t> ShapeEnv::getConstant(AffineExpr expr) const {
  if (auto c = dyn_cast<AffineConstantExpr>(canonicalize(expr)))
    return c.getValue();
  SizeRange b = bounds(expr);
  if (b.isConstant())
    return b.lower;
  return std::nullopt;
}

std::optional<AffineExpr> ShapeEnv::getSubstitution(unsigned i) const {
  auto it = substitutions.find(i);
  if (it == substitutions.end())
    return std::nullopt;
  return it->second;
}

//===----------------------------------------------------------------------===//
// Interval evaluation
//===----------------------------------------------------------------------===//

namespace {
/// Extended integers for interval arithmetic: long double holds every int64
/// exactly (64-bit mantissa on x86-64) and has infinities; results outside
/// the int64 range are widened to infinity, which keeps bounds sound.
using Ext = long double;
constexpr Ext kInf = std::numeric_limits<long double>::infinity();

struct Interval {
  Ext lo, hi;
};

Ext toExt(std::optional<int64_t> v, bool isUpper) {
  if (!v)
    return isUpper ? kInf : -kInf;
  return static_cast<Ext>(*v);
}

std::optional<int64_t> fromExt(Ext v) {
  constexpr Ext limit = 9223372036854775807.0L;
  if (std::isinf(v) || std::isnan(v) || v >= limit || v <= -limit)
    return std::nullopt;
  return static_cast<int64_t>(v);
}

Ext mulExt(Ext a, Ext b) {
  if (a == 0 || b == 0)
    return 0; // 0 * inf = 0 for bounds of integer products
  return a * b;
}
} // namespace

static Interval boundsOf(const ShapeEnv &env, AffineExpr e, unsigned depth) {
  if (depth > 64)
    return {-kInf, kInf};
  switch (e.getKind()) {
  case AffineExprKind::Constant: {
    Ext v = cast<AffineConstantExpr>(e).getValue();
    return {v, v};
  }
  case AffineExprKind::SymbolId: {
    unsigned pos = cast<AffineSymbolExpr>(e).getPosition();
    if (pos >= env.getNumSymbols())
      return {-kInf, kInf};
    SizeRange r = env.getSymbol(pos).range;
    Interval i{toExt(r.lower, false), toExt(r.upper, true)};
    if (std::optional<AffineExpr> sub = env.getSubstitution(pos)) {
      Interval s = boundsOf(env, *sub, depth + 1);
      i.lo = std::max(i.lo, s.lo);
      i.hi = std::min(i.hi, s.hi);
    }
    return i;
  }
  case AffineExprKind::DimId:
    return {-kInf, kInf};
  case AffineExprKind::Add: {
    auto b = cast<AffineBinaryOpExpr>(e);
    Interval l = boundsOf(env, b.getLHS(), depth + 1);
    Interval r = boundsOf(env, b.getRHS(), depth + 1);
    return {l.lo + r.lo, l.hi + r.hi};
  }
  case AffineExprKind::Mul: {
    auto b = cast<AffineBinaryOpExpr>(e);
    Interval l = boundsOf(env, b.getLHS(), depth + 1);
    Interval r = boundsOf(env, b.getRHS(), depth + 1);
    Ext c[4] = {mulExt(l.lo, r.lo), mulExt(l.lo, r.hi), mulExt(l.hi, r.lo),
                mulExt(l.hi, r.hi)};
    return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    auto b = cast<AffineBinaryOpExpr>(e);
    Interval l = boundsOf(env, b.getLHS(), depth + 1);
    Interval r = boundsOf(env, b.getRHS(), depth + 1);
    if (r.lo <= 0 && r.hi >= 0)
      return {-kInf, kInf}; // the divisor may be zero or change sign
    bool floor = e.getKind() == AffineExprKind::FloorDiv;
    auto div = [&](Ext a, Ext d) -> Ext {
      if (std::isinf(a))
        return (a > 0) == (d > 0) ? kInf : -kInf;
      if (std::isinf(d))
        return 0;
      Ext q = a / d;
      return floor ? std::floor(q) : std::ceil(q);
    };
    Ext c[4] = {div(l.lo, r.lo), div(l.lo, r.hi), div(l.hi, r.lo),
                div(l.hi, r.hi)};
    return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }
  case AffineExprKind::Mod: {
    auto b = cast<AffineBinaryOpExpr>(e);
    Interval l = boundsOf(env, b.getLHS(), depth + 1);
    Interval r = boundsOf(env, b.getRHS(), depth + 1);
    if (r.lo <= 0)
      return {-kInf, kInf};
    // Affine mod by a positive divisor is in [0, divisor - 1], and equals
    // the dividend when that is already in [0, divisor_min - 1].
    if (l.lo >= 0 && l.hi < r.lo)
      return l;
    return {0, r.hi - 1};
  }
  }
  return {-kInf, kInf};
}

SizeRange ShapeEnv::bounds(AffineExpr expr) const {
  Interval i = boundsOf(*this, canonicalize(expr), 0);
  return {fromExt(i.lo), fromExt(i.hi)};
}

std::optional<int64_t>
ShapeEnv::evaluate(AffineExpr expr, ArrayRef<int64_t> values) const {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::SymbolId: {
    unsigned pos = cast<AffineSymbolExpr>(expr).getPosition();
    if (pos >= symbols.size())
      return std::nullopt;
    const SymbolInfo &s = symbols[pos];
    if (s.kind == SymbolKind::Min || s.kind == SymbolKind::Max) {
      std::optional<int64_t> best;
      for (AffineExpr op : s.operands) {
        std::optional<int64_t> v = evaluate(op, values);
        if (!v)
          return std::nullopt;
        if (!best || (s.kind == SymbolKind::Min ? *v < *best : *v > *best))
          best = v;
      }
      return best;
    }
    if (pos >= values.size())
      return std::nullopt;
    return values[pos];
  }
  case AffineExprKind::DimId:
    return std::nullopt;
  default:
    break;
  }
  auto b = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> l = evaluate(b.getLHS(), values);
  std::optional<int64_t> r = evaluate(b.getRHS(), values);
  if (!l || !r)
    return std::nullopt;
  int64_t out;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    if (llvm::AddOverflow(*l, *r, out))
      return std::nullopt;
    return out;
  case AffineExprKind::Mul:
    if (llvm::MulOverflow(*l, *r, out))
      return std::nullopt;
    return out;
  case AffineExprKind::FloorDiv:
    return *r == 0 ? std::nullopt : std::optional(floorDivInt(*l, *r));
  case AffineExprKind::CeilDiv:
    return *r == 0 ? std::nullopt : std::optional(ceilDivInt(*l, *r));
  case AffineExprKind::Mod:
    return *r == 0 ? std::nullopt : std::optional(modInt(*l, *r));
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string ShapeEnv::str(AffineExpr expr) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  sym::printSizeExpr(os, expr, [&](unsigned pos) {
    if (pos < symbols.size())
      os << symbols[pos].name;
    else
      os << "s" << pos;
  });
  return s;
}

std::string ShapeEnv::str(const SizeConstraint &c) const {
  std::string l = str(c.lhs), r = str(c.rhs);
  switch (c.kind) {
  case ConstraintKind::eq:
    return l + " == " + r;
  case ConstraintKind::ge:
    return l + " >= " + r;
  case ConstraintKind::le:
    return l + " <= " + r;
  case ConstraintKind::divisible:
    return l + " mod " + r + " == 0";
  case ConstraintKind::broadcastable:
    return "broadcastable(" + l + ", " + r + ")";
  }
  return "?";
}

std::optional<bool> ShapeEnv::evaluate(const SizeConstraint &c,
                                       ArrayRef<int64_t> values) const {
  std::optional<int64_t> l = evaluate(c.lhs, values);
  std::optional<int64_t> r = evaluate(c.rhs, values);
  if (!l || !r)
    return std::nullopt;
  switch (c.kind) {
  case ConstraintKind::eq:
    return *l == *r;
  case ConstraintKind::ge:
    return *l >= *r;
  case ConstraintKind::le:
    return *l <= *r;
  case ConstraintKind::divisible:
    return *r != 0 && *l % *r == 0;
  case ConstraintKind::broadcastable:
    return *l == *r || *l == 1 || *r == 1;
  }
  return std::nullopt;
}

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
    for (const Linear &l : inequalities)
      rel.addInequality(dense(l));
    for (const Linear &l : equalities)
      rel.addEquality(dense(l));
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

//===----------------------------------------------------------------------===//
// Recording constraints
//===----------------------------------------------------------------------===//

/// The symbol index if `e` is a lone (input or unbacked) symbol.
static std::optional<unsigned> loneSymbol(const ShapeEnv &env, AffineExpr e) {
  auto s = dyn_cast<AffineSymbolExpr>(e);
  if (!s)
    return std::nullopt;
  SymbolKind k = env.getSymbol(s.getPosition()).kind;
  if (k == SymbolKind::Min || k == SymbolKind::Max)
    return std::nullopt;
  return s.getPosition();
}

Truth ShapeEnv::require(SizeConstraint c) {
  Truth t = decide(c);
  if (t != Truth::Unknown)
    return t;
  constraints.push_back(c);
  AffineExpr lhs = canonicalize(c.lhs), rhs = canonicalize(c.rhs);
  ConstraintKind kind = c.kind;

  // A lone symbol bounded by a constant refines the symbol's range.
  auto refine = [&](AffineExpr symE, AffineExpr constE, ConstraintKind k) {
    std::optional<unsigned> s = loneSymbol(*this, symE);
    auto cst = dyn_cast<AffineConstantExpr>(constE);
    if (!s || !cst)
      return;
    SizeRange &r = symbols[*s].range;
    int64_t v = cst.getValue();
    if (k == ConstraintKind::ge || k == ConstraintKind::eq)
      r = r.intersect({v, std::nullopt});
    if (k == ConstraintKind::le || k == ConstraintKind::eq)
      r = r.intersect({std::nullopt, v});
  };
  if (kind == ConstraintKind::ge || kind == ConstraintKind::le ||
      kind == ConstraintKind::eq) {
    refine(lhs, rhs, kind);
    refine(rhs, lhs, sym::flipConstraint(kind));
  }

  if (kind != ConstraintKind::eq)
    return Truth::Unknown;

  // An equality with a lone symbol on one side becomes a substitution. Two
  // symbols: the later one is replaced by the earlier one.
  std::optional<unsigned> ls = loneSymbol(*this, lhs);
  std::optional<unsigned> rs = loneSymbol(*this, rhs);
  std::optional<unsigned> replaced;
  AffineExpr by;
  auto occursIn = [](unsigned s, AffineExpr e) {
    bool found = false;
    e.walk([&](AffineExpr sub) {
      if (auto se = dyn_cast<AffineSymbolExpr>(sub))
        found |= se.getPosition() == s;
    });
    return found;
  };
  if (ls && rs) {
    replaced = std::max(*ls, *rs);
    by = symbol(std::min(*ls, *rs));
  } else if (ls && !occursIn(*ls, rhs)) {
    replaced = *ls;
    by = rhs;
  } else if (rs && !occursIn(*rs, lhs)) {
    replaced = *rs;
    by = lhs;
  }
  if (!replaced)
    return Truth::Unknown;

  // The replacement inherits the replaced symbol's range where it is a
  // symbol itself (s1 == s0 with s1 in [2, 8] bounds s0 too).
  if (std::optional<unsigned> target = loneSymbol(*this, by))
    symbols[*target].range =
        symbols[*target].range.intersect(symbols[*replaced].range);
  substitutions[*replaced] = by;
  // Keep every substitution fully substituted.
  for (auto &[s, e] : substitutions)
    e = canonicalize(e);
  return Truth::Unknown;
}
