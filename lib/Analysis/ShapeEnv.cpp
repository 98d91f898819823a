//===- ShapeEnv.cpp - symbolic sizes, ranges and constraints --------------===//

#include "tgc/Analysis/ShapeEnv.h"

#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <numeric>

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
  /// The greatest common divisor of the coefficients and the constant (0
  /// for the zero polynomial).
  int64_t content() const {
    int64_t g = std::abs(constant);
    for (auto &[m, c] : terms)
      g = std::gcd(g, std::abs(c));
    return g;
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
      return atom(
          {"~d" + std::to_string(cast<AffineDimExpr>(e).getPosition()), e});
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
        // A factor common to the dividend and the divisor cancels (the
        // dividend over it is an integer): (s * 256) floordiv 16384 is
        // s floordiv 64, and (s * 256) mod 16384 is (s mod 64) * 256. One
        // form per quotient is what lets a reshape's sizes compare equal.
        if (int64_t h = std::gcd(lhs.content(), c); c > 0 && h > 1) {
          Poly reduced;
          for (auto &[m, coeff] : lhs.terms)
            reduced.terms[m] = coeff / h;
          reduced.constant = lhs.constant / h;
          AffineExpr l = fromPoly(reduced);
          AffineExpr r = getAffineConstantExpr(c / h, env.getContext());
          if (e.getKind() == AffineExprKind::Mod)
            return toPoly(l % r).scaled(h);
          return toPoly(e.getKind() == AffineExprKind::FloorDiv ? l.floorDiv(r)
                                                                : l.ceilDiv(r));
        }
      }
      AffineExpr l = fromPoly(lhs), r = fromPoly(rhs);
      AffineExpr canon = e.getKind() == AffineExprKind::FloorDiv ? l.floorDiv(r)
                         : e.getKind() == AffineExprKind::CeilDiv ? l.ceilDiv(r)
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

std::optional<int64_t> ShapeEnv::evaluate(AffineExpr expr,
                                          ArrayRef<int64_t> values) const {
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

std::optional<std::pair<unsigned, AffineExpr>> ShapeEnv::solveEquality(
    AffineExpr lhs, AffineExpr rhs,
    llvm::function_ref<bool(unsigned, AffineExpr)> dependsOn) const {
  PolyBuilder builder(*this, substitutions);
  Poly d = builder.toPoly(lhs);
  d += builder.toPoly(rhs).scaled(-1);
  // An exact quotient is a multiple: with s divisible by m (a recorded or
  // implied fact), c * (s floordiv m) == 0 is c * s == 0 after multiplying
  // the equation by m. A reshape's `s1 * 256 floordiv 16384 == s0` (the
  // batch recovered from rows of 64) becomes `s1 == s0 * 64`.
  for (unsigned round = 0; round < 4; ++round) {
    std::optional<std::pair<Monomial, int64_t>> exact;
    unsigned sym = 0;
    int64_t m = 0;
    for (auto &[mono, coeff] : d.terms) {
      if (mono.size() != 1)
        continue;
      auto div = dyn_cast<AffineBinaryOpExpr>(mono.front().expr);
      if (!div || div.getKind() != AffineExprKind::FloorDiv)
        continue;
      std::optional<unsigned> s = loneSymbol(*this, div.getLHS());
      auto divisor = dyn_cast<AffineConstantExpr>(div.getRHS());
      if (!s || !divisor || divisor.getValue() <= 1 ||
          decide(ConstraintKind::divisible, div.getLHS(), div.getRHS()) !=
              Truth::True)
        continue;
      exact = {mono, coeff};
      sym = *s;
      m = divisor.getValue();
      break;
    }
    if (!exact)
      break;
    // (Coefficients that would overflow: no solution rather than a wrong
    // one.)
    int64_t unused;
    if (__builtin_mul_overflow(d.constant, m, &unused) ||
        llvm::any_of(d.terms, [&](auto &term) {
          return __builtin_mul_overflow(term.second, m, &unused);
        }))
      return std::nullopt;
    Poly scaled = d.scaled(m);
    scaled.terms.erase(exact->first);
    scaled += builder.toPoly(symbol(sym)).scaled(exact->second);
    d = scaled;
  }
  if (int64_t g = d.content(); g > 1) {
    for (auto &[mono, coeff] : d.terms)
      coeff /= g;
    d.constant /= g;
  }
  // A symbol with coefficient +-1: the latest one is replaced.
  std::optional<std::pair<unsigned, AffineExpr>> best;
  for (auto &[mono, coeff] : d.terms) {
    if (mono.size() != 1 || (coeff != 1 && coeff != -1))
      continue;
    std::optional<unsigned> s = loneSymbol(*this, mono.front().expr);
    if (!s || (best && best->first > *s))
      continue;
    Poly rest = d;
    rest.terms.erase(mono);
    AffineExpr by = builder.fromPoly(rest.scaled(-coeff));
    if (!dependsOn(*s, by))
      best = {*s, canonicalize(by)};
  }
  return best;
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
  // Whether `e` depends on symbol `s`: directly, or through the operands of
  // a min/max symbol or a substitution in it. Replacing `s` by such an `e`
  // would define `s` in terms of itself (and materializing it would
  // recurse forever).
  auto dependsOn = [&](unsigned s, AffineExpr e) {
    SmallVector<AffineExpr> work{e};
    llvm::DenseSet<unsigned> seen;
    bool found = false;
    while (!work.empty() && !found) {
      AffineExpr x = work.pop_back_val();
      x.walk([&](AffineExpr sub) {
        auto se = dyn_cast<AffineSymbolExpr>(sub);
        if (!se || found)
          return;
        unsigned p = se.getPosition();
        if (p == s) {
          found = true;
          return;
        }
        if (!seen.insert(p).second)
          return;
        const SymbolInfo &info = symbols[p];
        if (info.kind == SymbolKind::Min || info.kind == SymbolKind::Max)
          work.append(info.operands.begin(), info.operands.end());
        auto it = substitutions.find(p);
        if (it != substitutions.end())
          work.push_back(it->second);
      });
    }
    return found;
  };
  if (ls && rs) {
    unsigned later = std::max(*ls, *rs), earlier = std::min(*ls, *rs);
    if (!dependsOn(later, symbol(earlier))) {
      replaced = later;
      by = symbol(earlier);
    } else if (!dependsOn(earlier, symbol(later))) {
      replaced = earlier;
      by = symbol(later);
    }
  } else if (ls && !dependsOn(*ls, rhs)) {
    replaced = *ls;
    by = rhs;
  } else if (rs && !dependsOn(*rs, lhs)) {
    replaced = *rs;
    by = lhs;
  }
  if (!replaced && !ls && !rs) {
    if (std::optional<std::pair<unsigned, AffineExpr>> solved =
            solveEquality(lhs, rhs, dependsOn)) {
      replaced = solved->first;
      by = solved->second;
    }
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
