//===- ShapeEnvTest.cpp - symbolic sizes, ranges and constraints ----------===//

#include "tgc/Analysis/ShapeEnv.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace mlir::tgc;

namespace {
class ShapeEnvTest : public ::testing::Test {
protected:
  ShapeEnvTest() : env(&ctx) {}

  AffineExpr sym(StringRef name, int64_t lo = 2,
                 std::optional<int64_t> hi = std::nullopt) {
    SymbolInfo info;
    info.name = name.str();
    info.range = {lo, hi};
    return env.addSymbol(info);
  }
  AffineExpr c(int64_t v) { return env.constant(v); }
  SizeConstraint con(ConstraintKind k, AffineExpr l, AffineExpr r) {
    return {k, l, r, UnknownLoc::get(&ctx), "test"};
  }

  MLIRContext ctx;
  ShapeEnv env;
};
} // namespace

TEST_F(ShapeEnvTest, CanonicalFormMakesEqualSizesEqual) {
  AffineExpr s0 = sym("s0"), s1 = sym("s1");
  EXPECT_TRUE(env.isEqual(s0 + s1, s1 + s0));
  EXPECT_TRUE(env.isEqual(s0 * s1, s1 * s0));
  EXPECT_TRUE(env.isEqual((s0 + 1) * 2, s0 * 2 + 2));
  EXPECT_TRUE(env.isEqual((s0 * 4).floorDiv(4), s0));
  EXPECT_TRUE(env.isEqual((s0 * 4) % 2, c(0)));
  EXPECT_TRUE(env.isEqual(s0 * s1 - s1 * s0, c(0)));
  EXPECT_TRUE(env.isEqual((s0 + s1).floorDiv(3), (s1 + s0).floorDiv(3)));
  EXPECT_FALSE(env.isEqual(s0, s1));
  EXPECT_FALSE(env.isEqual(s0.floorDiv(2) * 2, s0));
  EXPECT_EQ(env.getConstant((s0 + 3) - s0), 3);
}

TEST_F(ShapeEnvTest, Printing) {
  AffineExpr s0 = sym("s0"), s1 = sym("s1");
  EXPECT_EQ(env.str(env.canonicalize(s0 * 2 + 1)), "s0 * 2 + 1");
  EXPECT_EQ(env.str(env.canonicalize(s0 - 1)), "s0 - 1");
  EXPECT_EQ(env.str(env.canonicalize(s1 * s0)), "s0 * s1");
  EXPECT_EQ(env.str(con(ConstraintKind::ge, s0, c(10))), "s0 >= 10");
  EXPECT_EQ(env.str(con(ConstraintKind::broadcastable, s0, c(4))),
            "broadcastable(s0, 4)");
  EXPECT_EQ(env.str(con(ConstraintKind::divisible, s0, c(4))),
            "s0 mod 4 == 0");
}

TEST_F(ShapeEnvTest, RangeEvaluation) {
  AffineExpr s0 = sym("s0"), s1 = sym("s1", 2, 8);
  EXPECT_EQ(env.bounds(s0 * 2 + 1), (SizeRange{5, std::nullopt}));
  EXPECT_EQ(env.bounds(s1 * s1), (SizeRange{4, 64}));
  EXPECT_EQ(env.bounds(s1.floorDiv(3)), (SizeRange{0, 2}));
  EXPECT_EQ(env.bounds(s1.ceilDiv(3)), (SizeRange{1, 3}));
  EXPECT_EQ(env.bounds(s0 % 4), (SizeRange{0, 3}));
  EXPECT_EQ(env.bounds(s1 - s0), (SizeRange{std::nullopt, 6}));
  EXPECT_EQ(env.bounds(c(7)), SizeRange::exactly(7));
}

// A quotient whose numerator holds another quotient: linearizing the inner
// one grows the quotient table while the outer one is looked up (this
// crashed on a fuzz graph of strided slices, seed 800289).
TEST_F(ShapeEnvTest, NestedQuotients) {
  AffineExpr s0 = sym("s0");
  AffineExpr nested = (s0.floorDiv(2) + 1).ceilDiv(3);
  EXPECT_TRUE(env.implies({}, con(ConstraintKind::ge, nested, c(1))));
  EXPECT_TRUE(env.implies({con(ConstraintKind::ge, s0, c(12))},
                          con(ConstraintKind::ge, nested % 5, c(0))));
  EXPECT_FALSE(env.implies({}, con(ConstraintKind::ge, nested, c(2))));
}

TEST_F(ShapeEnvTest, ImplicationThroughPresburger) {
  AffineExpr s0 = sym("s0");
  // Implied by the range [2, inf]: no guard needed.
  EXPECT_EQ(env.decide(ConstraintKind::ge, s0, c(2)), Truth::True);
  EXPECT_EQ(env.decide(ConstraintKind::ge, s0, c(10)), Truth::Unknown);
  EXPECT_TRUE(env.implies({con(ConstraintKind::ge, s0, c(10))},
                          con(ConstraintKind::ge, s0, c(3))));
  EXPECT_FALSE(env.implies({con(ConstraintKind::ge, s0, c(10))},
                           con(ConstraintKind::ge, s0, c(11))));
  EXPECT_TRUE(env.implies({con(ConstraintKind::eq, s0 % 4, c(0))},
                          con(ConstraintKind::divisible, s0, c(2))));
  EXPECT_FALSE(env.implies({con(ConstraintKind::eq, s0 % 2, c(0))},
                           con(ConstraintKind::divisible, s0, c(4))));
}

TEST_F(ShapeEnvTest, RequireRefinesRangesAndDecides) {
  AffineExpr s0 = sym("s0");
  EXPECT_EQ(env.require(con(ConstraintKind::ge, s0, c(10))), Truth::Unknown);
  EXPECT_EQ(env.getSymbol(0).range, (SizeRange{10, std::nullopt}));
  // Now implied, and recording it again adds nothing.
  EXPECT_EQ(env.require(con(ConstraintKind::ge, s0, c(3))), Truth::True);
  EXPECT_EQ(env.getConstraints().size(), 1u);
  // And the contrary is impossible.
  EXPECT_EQ(env.require(con(ConstraintKind::le, s0, c(5))), Truth::False);
  EXPECT_EQ(env.getConstraints().size(), 1u);
}

TEST_F(ShapeEnvTest, EqualitiesBecomeSubstitutions) {
  AffineExpr s0 = sym("s0"), s1 = sym("s1", 2, 100), s2 = sym("s2");
  EXPECT_EQ(env.require(con(ConstraintKind::eq, s1, s0)), Truth::Unknown);
  EXPECT_TRUE(env.isEqual(s1, s0));
  EXPECT_TRUE(env.isEqual(s1 * 2 + s0, s0 * 3));
  // s0 inherits s1's upper bound.
  EXPECT_EQ(env.getSymbol(0).range, (SizeRange{2, 100}));
  EXPECT_EQ(env.require(con(ConstraintKind::eq, s2, s1 * 2)), Truth::Unknown);
  EXPECT_EQ(env.str(env.canonicalize(s2)), "s0 * 2");
  // The replaced symbol's range still bounds its replacement.
  EXPECT_EQ(env.decide(ConstraintKind::le, s2, c(200)), Truth::True);
}

TEST_F(ShapeEnvTest, Broadcastable) {
  AffineExpr s0 = sym("s0");
  EXPECT_EQ(env.decide(ConstraintKind::broadcastable, s0, c(4)),
            Truth::Unknown);
  EXPECT_EQ(env.decide(ConstraintKind::broadcastable, s0, c(1)), Truth::True);
  AffineExpr small = sym("t", 2, 3);
  EXPECT_EQ(env.decide(ConstraintKind::broadcastable, small, c(4)),
            Truth::False);
}

TEST_F(ShapeEnvTest, MinMaxFoldWhenDecided) {
  AffineExpr s0 = sym("s0", 10);
  EXPECT_TRUE(env.isEqual(env.createMin({s0, c(10)}), c(10)));
  EXPECT_TRUE(env.isEqual(env.createMax({s0, c(3)}), s0));
  AffineExpr s1 = sym("s1");
  AffineExpr m = env.createMin({s1, c(8)});
  EXPECT_EQ(env.str(m), "min(s1, 8)");
  EXPECT_EQ(env.bounds(m), (SizeRange{2, 8}));
  EXPECT_EQ(env.evaluate(m, {0, 5, 0}), 5);
  EXPECT_EQ(env.evaluate(m, {0, 50, 0}), 8);
}

TEST_F(ShapeEnvTest, ConcreteEvaluation) {
  AffineExpr s0 = sym("s0"), s1 = sym("s1");
  EXPECT_EQ(env.evaluate(s0 * s1 + 1, {3, 4}), 13);
  EXPECT_EQ(env.evaluate((s0 - 7).floorDiv(2), {4, 0}), -2);
  EXPECT_EQ(env.evaluate(s0 % 3, {7, 0}), 1);
  EXPECT_EQ(env.evaluate(s0.floorDiv(s1), {7, 0}), std::nullopt);
  EXPECT_EQ(env.evaluate(con(ConstraintKind::ge, s0, c(10)), {7, 0}), false);
}

// Randomized soundness of `implies`: whenever it claims an implication, no
// assignment of the symbols (over a grid covering their ranges) satisfies
// the premises and violates the conclusion.
TEST_F(ShapeEnvTest, ImplicationIsSoundOnRandomConstraints) {
  AffineExpr s0 = sym("s0", 0, 24), s1 = sym("s1", 1, 24);
  std::mt19937 rng(1234);
  auto expr = [&]() -> AffineExpr {
    switch (rng() % 6) {
    case 0:
      return s0;
    case 1:
      return s1;
    case 2:
      return s0 * static_cast<int64_t>(rng() % 3 + 1) + s1;
    case 3:
      return s0 * s1;
    case 4:
      return s0.floorDiv(static_cast<int64_t>(rng() % 3 + 2));
    default:
      return c(rng() % 20);
    }
  };
  ConstraintKind kinds[] = {ConstraintKind::eq, ConstraintKind::ge,
                            ConstraintKind::le, ConstraintKind::divisible};
  int claimed = 0;
  for (int iter = 0; iter < 300; ++iter) {
    SmallVector<SizeConstraint> premises;
    for (int p = 0, n = rng() % 3; p < n; ++p)
      premises.push_back(con(kinds[rng() % 3], expr(), expr()));
    ConstraintKind k = kinds[rng() % 4];
    SizeConstraint conclusion =
        con(k, expr(), k == ConstraintKind::divisible ? c(rng() % 3 + 2)
                                                      : expr());
    if (!env.implies(premises, conclusion))
      continue;
    ++claimed;
    for (int64_t a = 0; a <= 24; ++a)
      for (int64_t b = 1; b <= 24; ++b) {
        bool premisesHold = llvm::all_of(premises, [&](auto &p) {
          return env.evaluate(p, {a, b}).value_or(false);
        });
        if (!premisesHold)
          continue;
        ASSERT_EQ(env.evaluate(conclusion, {a, b}), true)
            << "claimed " << env.str(conclusion) << " at s0=" << a
            << " s1=" << b;
      }
  }
  EXPECT_GT(claimed, 10); // the test exercises real implications
}

TEST_F(ShapeEnvTest, CommonFactorsOfQuotientsCancel) {
  AffineExpr s0 = sym("s0"), s1 = sym("s1");
  EXPECT_EQ(env.str(env.canonicalize((s0 * 256).floorDiv(16384))),
            "s0 floordiv 64");
  EXPECT_EQ(env.str(env.canonicalize((s0 * 4).ceilDiv(64))), "s0 ceildiv 16");
  EXPECT_TRUE(env.isEqual((s0 * 256) % 16384, (s0 % 64) * 256));
  EXPECT_TRUE(env.isEqual((s0 * 6 + s1 * 4).floorDiv(10),
                          (s0 * 3 + s1 * 2).floorDiv(5)));
  // The same value for every size, negative ones included.
  std::mt19937 rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    int64_t k = rng() % 12 + 1, d = rng() % 40 + 1, a = rng() % 5;
    AffineExpr num = s0 * k + s1 * (k * a) + c(k * (rng() % 7));
    for (AffineExpr e : {num.floorDiv(d), num.ceilDiv(d), num % d}) {
      AffineExpr canon = env.canonicalize(e);
      for (int64_t x = -20; x <= 20; ++x)
        for (int64_t y : {-3, 0, 5})
          ASSERT_EQ(env.evaluate(e, {x, y}), env.evaluate(canon, {x, y}))
              << env.str(e) << " vs " << env.str(canon) << " at " << x << ", "
              << y;
    }
  }
}

TEST_F(ShapeEnvTest, EqualitiesOfExpressionsSolveForASymbol) {
  AffineExpr s0 = sym("s0"), s1 = sym("s1"), s2 = sym("s2"), s3 = sym("s3");
  // Common factors: s1 * 64 == s0 * 64 is s1 == s0.
  EXPECT_EQ(env.require(con(ConstraintKind::eq, s1 * 64, s0 * 64)),
            Truth::Unknown);
  EXPECT_TRUE(env.isEqual(s1, s0));
  // Exact quotients: with s2 and s3 multiples of 64, s3 / 64 == s2 / 64 is
  // s3 == s2 (a reshape's batch recovered from rows of 64, twice).
  EXPECT_EQ(env.require(con(ConstraintKind::divisible, s2 * 256, c(16384))),
            Truth::Unknown);
  EXPECT_EQ(env.require(con(ConstraintKind::divisible, s3, c(64))),
            Truth::Unknown);
  EXPECT_EQ(env.require(con(ConstraintKind::eq, (s3 * 256).floorDiv(16384),
                            s2.floorDiv(64))),
            Truth::Unknown);
  EXPECT_TRUE(env.isEqual(s3, s2));
  EXPECT_EQ(env.decide(ConstraintKind::eq, s3 * 2, s2 * 2), Truth::True);
  // Without the divisibility the quotients' equality fixes neither size.
  ShapeEnv other(&ctx);
  SymbolInfo info;
  info.range = {2, std::nullopt};
  info.name = "a";
  AffineExpr a = other.addSymbol(info);
  info.name = "b";
  AffineExpr b = other.addSymbol(info);
  EXPECT_EQ(other.require(con(ConstraintKind::eq, a.floorDiv(64),
                              b.floorDiv(64))),
            Truth::Unknown);
  EXPECT_FALSE(other.isEqual(a, b));
}

TEST_F(ShapeEnvTest, SubstitutionsAreSoundOnRandomRequirements) {
  // Random requirements over three small sizes; after each, every value of
  // the sizes that satisfies all requirements so far gives each expression
  // the value of its canonical form (the substitutions in force), and every
  // constraint decided true holds there.
  std::mt19937 rng(99);
  int substituted = 0, claims = 0;
  for (int round = 0; round < 40; ++round) {
    ShapeEnv e(&ctx);
    SmallVector<AffineExpr> s;
    for (int i = 0; i < 3; ++i) {
      SymbolInfo info;
      info.name = "s" + std::to_string(i);
      info.range = {0, 40};
      s.push_back(e.addSymbol(info));
    }
    auto expr = [&]() -> AffineExpr {
      AffineExpr x = s[rng() % 3], y = s[rng() % 3];
      int64_t k = rng() % 4 + 1;
      switch (rng() % 5) {
      case 0:
        return x;
      case 1:
        return x * k;
      case 2:
        return (x * k).floorDiv(static_cast<int64_t>(k * (rng() % 3 + 1)));
      case 3:
        return x * k + y;
      default:
        return x.floorDiv(static_cast<int64_t>(rng() % 3 + 2)) * k;
      }
    };
    SmallVector<SizeConstraint> required;
    for (int step = 0; step < 4; ++step) {
      SizeConstraint r =
          rng() % 3 ? con(ConstraintKind::eq, expr(), expr())
                    : con(ConstraintKind::divisible, s[rng() % 3],
                          c(static_cast<int64_t>(rng() % 3 + 2)));
      if (e.require(r) == Truth::False)
        continue;
      required.push_back(r);
      SmallVector<AffineExpr> probes = {expr(), expr(), expr()};
      SizeConstraint claim = con(ConstraintKind::eq, expr(), expr());
      bool claimed = e.decide(claim) == Truth::True;
      claims += claimed;
      for (int64_t x = 0; x <= 40; ++x)
        for (int64_t y = 0; y <= 40; y += 3)
          for (int64_t z = 0; z <= 40; z += 5) {
            SmallVector<int64_t> v = {x, y, z};
            if (!llvm::all_of(required, [&](auto &q) {
                  return e.evaluate(q, v).value_or(false);
                }))
              continue;
            for (AffineExpr p : probes)
              ASSERT_EQ(e.evaluate(p, v), e.evaluate(e.canonicalize(p), v))
                  << e.str(p) << " at " << x << ", " << y << ", " << z;
            if (claimed)
              ASSERT_EQ(e.evaluate(claim, v), true)
                  << "claimed " << e.str(claim);
          }
    }
    substituted += e.getSubstitutedSymbols().size();
  }
  // The test exercises substitutions and decided equalities.
  EXPECT_GT(substituted, 30);
  EXPECT_GT(claims, 10);
}
