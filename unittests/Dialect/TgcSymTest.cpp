//===- TgcSymTest.cpp - tgc_sym size lists and descriptions ---------------===//
//
// The size-list syntax of tgc_sym and tgc_guard (maps over affine symbols,
// semi-affine products and quotients), its round trip, and the describe()
// texts that guard and recompile messages print.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace mlir::tgc;

namespace {

class TgcSymTest : public ::testing::Test {
protected:
  TgcSymTest() {
    context.loadDialect<sym::TgcSymDialect, guard::TgcGuardDialect,
                        func::FuncDialect>();
  }

  /// Parses `source`, failing the test (with the diagnostics) if it does
  /// not parse and verify.
  OwningOpRef<ModuleOp> parse(StringRef source) {
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += diag.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << diagnostics << "while parsing:\n" << source.str();
    return module;
  }

  /// The first error `source` produces, or "" when it parses.
  std::string parseError(StringRef source) {
    std::string first;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (first.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
        first = diag.str();
      return success();
    });
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (module)
      return "";
    return first.empty() ? "<no message>" : first;
  }

  /// The custom form of `op`.
  static std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  /// The ops of type OpT in `module`, in order.
  template <typename OpT>
  static SmallVector<OpT> collect(ModuleOp module) {
    SmallVector<OpT> ops;
    module->walk([&](OpT op) { ops.push_back(op); });
    return ops;
  }

  /// The names of the tgc_sym.symbols `sizes` are.
  static SmallVector<std::string> names(ValueRange sizes) {
    SmallVector<std::string> result;
    for (Value size : sizes)
      result.push_back(sym::describeSize(size));
    return result;
  }

  AffineExpr s(unsigned pos) { return getAffineSymbolExpr(pos, &context); }
  AffineExpr c(int64_t value) { return getAffineConstantExpr(value, &context); }

  MLIRContext context;
};

/// A function with tgc_sym symbols a, b, c and `body` after them.
std::string withSymbols(StringRef body) {
  return (R"mlir(
func.func @f(%x: tensor<?x?xf32>, %flat: tensor<?xf32>) {
  %a = tgc_sym.symbol "a" range [1, inf] from arg 0 dim 0
  %b = tgc_sym.symbol "b" range [1, inf] from arg 0 dim 1
  %c = tgc_sym.symbol "c" range [1, inf]
)mlir" + body + R"mlir(
  return
}
)mlir")
      .str();
}

//===----------------------------------------------------------------------===//
// Maps built by the parser
//===----------------------------------------------------------------------===//

TEST_F(TgcSymTest, ProductOfTwoSizesIsASymbolProduct) {
  OwningOpRef<ModuleOp> module =
      parse(withSymbols("tgc_sym.bind %flat [%a * %b] : tensor<?xf32>"));
  ASSERT_TRUE(module);
  auto binds = collect<sym::BindOp>(*module);
  ASSERT_EQ(binds.size(), 1u);
  AffineMap map = binds[0].getShape();
  EXPECT_EQ(map.getNumDims(), 0u);
  EXPECT_EQ(map.getNumSymbols(), 2u);
  ASSERT_EQ(map.getNumResults(), 1u);
  EXPECT_EQ(map.getResult(0), s(0) * s(1));
  EXPECT_FALSE(map.getResult(0).isPureAffine());
  EXPECT_EQ(names(binds[0].getSizes()),
            (SmallVector<std::string>{"a", "b"}));
}

TEST_F(TgcSymTest, Precedence) {
  OwningOpRef<ModuleOp> module = parse(withSymbols(R"mlir(
  %0 = tgc_sym.min [%a + %b * 2, (%a + %b) * 2, %a - %b - 1,
                    %a floordiv %b mod 3, %a * %b floordiv %c,
                    %a * (%b floordiv %c), %a ceildiv 4 + %b mod %c,
                    %a + (%b + %c * 2), %a - (%b + %c)]
)mlir"));
  ASSERT_TRUE(module);
  auto mins = collect<sym::MinOp>(*module);
  ASSERT_EQ(mins.size(), 1u);
  AffineMap map = mins[0].getMap();
  ASSERT_EQ(map.getNumSymbols(), 3u);
  SmallVector<AffineExpr> expected = {
      s(0) + s(1) * 2,
      (s(0) + s(1)) * 2,
      (s(0) - s(1)) - 1,
      s(0).floorDiv(s(1)) % 3,
      (s(0) * s(1)).floorDiv(s(2)),
      s(0) * s(1).floorDiv(s(2)),
      s(0).ceilDiv(4) + s(1) % s(2),
      // Sums are built left-nested (MLIR's printer needs that).
      (s(0) + s(1)) + s(2) * 2,
      s(0) - (s(1) + s(2)),
  };
  ASSERT_EQ(map.getNumResults(), expected.size());
  for (auto [i, expr] : llvm::enumerate(expected))
    EXPECT_EQ(map.getResult(i), expr) << "result " << i;
}

TEST_F(TgcSymTest, RepeatedOperandIsOneSymbol) {
  OwningOpRef<ModuleOp> module =
      parse(withSymbols("%0 = tgc_sym.max [%b * %b, %b + %b, %b]"));
  ASSERT_TRUE(module);
  auto max = collect<sym::MaxOp>(*module).front();
  AffineMap map = max.getMap();
  EXPECT_EQ(map.getNumSymbols(), 1u);
  EXPECT_EQ(map.getResult(0), s(0) * s(0));
  EXPECT_EQ(map.getResult(1), s(0) * 2);
  EXPECT_EQ(names(max.getSizes()), (SmallVector<std::string>{"b"}));
}

TEST_F(TgcSymTest, NegationAndLiterals) {
  OwningOpRef<ModuleOp> module = parse(withSymbols(R"mlir(
  %0 = tgc_sym.min [-3, -%a, - -%a, -(%a + 1), -%a * 2,
                    -9223372036854775808, 9223372036854775807, %a - -2]
)mlir"));
  ASSERT_TRUE(module);
  AffineMap map = collect<sym::MinOp>(*module).front().getMap();
  SmallVector<AffineExpr> expected = {
      c(-3),
      s(0) * -1,
      s(0),
      (s(0) + 1) * -1,
      s(0) * -2,
      c(std::numeric_limits<int64_t>::min()),
      c(std::numeric_limits<int64_t>::max()),
      s(0) + 2,
  };
  ASSERT_EQ(map.getNumResults(), expected.size());
  for (auto [i, expr] : llvm::enumerate(expected))
    EXPECT_EQ(map.getResult(i), expr) << "result " << i;
}

TEST_F(TgcSymTest, SymbolsNumberedByUse) {
  // %c cancels out: it is not an operand. %b comes first in the results.
  OwningOpRef<ModuleOp> module =
      parse(withSymbols("%0 = tgc_sym.min [%c - %c + %b, %a * %b]"));
  ASSERT_TRUE(module);
  auto min = collect<sym::MinOp>(*module).front();
  EXPECT_EQ(names(min.getSizes()), (SmallVector<std::string>{"b", "a"}));
  AffineMap map = min.getMap();
  EXPECT_EQ(map.getNumSymbols(), 2u);
  EXPECT_EQ(map.getResult(0), s(0));
  EXPECT_EQ(map.getResult(1), s(1) * s(0));
}

TEST_F(TgcSymTest, MalformedExpressions) {
  auto errorFor = [&](StringRef list) {
    return parseError(withSymbols(("%0 = tgc_sym.min " + list).str()));
  };
  // The message, after the "custom op 'tgc_sym.min' " prefix if any.
  auto expectError = [&](StringRef list, StringRef message) {
    std::string error = errorFor(list);
    EXPECT_TRUE(StringRef(error).ends_with(message))
        << list.str() << ": got '" << error << "', expected '"
        << message.str() << "'";
  };
  const char *expectedOperand =
      "expected a size expression: an SSA size value, an integer or '('";
  expectError("[%a +, 1]", expectedOperand);
  expectError("[%a * ]", expectedOperand);
  expectError("[%a mod]", expectedOperand);
  expectError("[symbol(%a), 1]", expectedOperand);
  expectError("[(%a, 1]", "expected ')'");
  expectError("[%a), 1]", "expected ',' or ']' after a size expression");
  expectError("[%a %b]", "expected ',' or ']' after a size expression");
  expectError("[%a floordiv 0, 1]", "expected a positive divisor, got 0");
  expectError("[%a ceildiv -2, 1]", "expected a positive divisor, got -2");
  expectError("[9223372036854775808, 1]", "integer does not fit in 64 bits");
  expectError("[9223372036854775807 * 2, 1]",
              "size expression overflows 64 bits");
  expectError("[" + std::string(300, '(') + "%a" + std::string(300, ')') +
                  ", 1]",
              "size expression is nested too deeply");
  expectError("[%x, 1]", "expects different type than prior uses: "
                         "'!tgc_sym.size' vs 'tensor<?x?xf32>'");
  // Well-formed lists parse.
  EXPECT_EQ(errorFor("[" + std::string(200, '(') + "%a" +
                     std::string(200, ')') + ", 1]"),
            "");
  EXPECT_EQ(errorFor("[%a, 1]"), "");
}

//===----------------------------------------------------------------------===//
// Round trip
//===----------------------------------------------------------------------===//

/// Evaluates a size expression with symbol `i` = `values[i]` (divisors are
/// positive in these tests).
int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> values) {
  if (auto cst = dyn_cast<AffineConstantExpr>(expr))
    return cst.getValue();
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return values[symbol.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t l = evaluate(binary.getLHS(), values);
  int64_t r = evaluate(binary.getRHS(), values);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv:
    return l / r - (l % r != 0 && (l < 0) != (r < 0));
  case AffineExprKind::CeilDiv:
    return l / r + (l % r != 0 && (l < 0) == (r < 0));
  case AffineExprKind::Mod:
    return ((l % r) + r) % r;
  default:
    ADD_FAILURE() << "unexpected expression";
    return 0;
  }
}

/// Random expression text over %a, %b, %c, written with more spaces and
/// parentheses than the printer uses, with its value for a=7, b=3, c=5.
struct RandomExpr {
  std::string text;
  int64_t value;
};

RandomExpr randomExpr(std::mt19937 &rng, unsigned depth) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  if (depth == 0 || pick(4) == 0) {
    switch (pick(5)) {
    case 0:
      return {"%a", 7};
    case 1:
      return {"%b", 3};
    case 2:
      return {"%c", 5};
    default: {
      int64_t value = pick(11) - 5;
      return {std::to_string(value), value};
    }
    }
  }
  RandomExpr lhs = randomExpr(rng, depth - 1);
  int op = pick(7);
  if (op == 6)
    return {"-(" + lhs.text + ")", -lhs.value};
  RandomExpr rhs = randomExpr(rng, depth - 1);
  // Divisors must be positive: use a symbol or a positive constant.
  if (op >= 3 && op <= 5 && rhs.value <= 0)
    rhs = pick(2) ? RandomExpr{"%b", 3} : RandomExpr{"4", 4};
  std::string l = "(" + lhs.text + ")", r = "(" + rhs.text + ")";
  int64_t x = lhs.value, y = rhs.value;
  switch (op) {
  case 0:
    return {l + " + " + r, x + y};
  case 1:
    return {l + " - " + r, x - y};
  case 2:
    return {l + " * " + r, x * y};
  case 3:
    return {l + " floordiv " + r,
            x / y - (x % y != 0 && (x < 0) != (y < 0))};
  case 4:
    return {l + " ceildiv " + r, x / y + (x % y != 0 && (x < 0) == (y < 0))};
  default:
    return {l + " mod " + r, ((x % y) + y) % y};
  }
}

TEST_F(TgcSymTest, RandomListsRoundTrip) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 300; ++trial) {
    SmallVector<RandomExpr> exprs;
    std::string list;
    for (int i = 0; i < 3; ++i) {
      exprs.push_back(randomExpr(rng, 4));
      list += (i ? ", " : "") + exprs.back().text;
    }
    OwningOpRef<ModuleOp> first =
        parse(withSymbols("%0 = tgc_sym.min [" + list + "]"));
    ASSERT_TRUE(first);
    auto min1 = collect<sym::MinOp>(*first).front();
    // The parsed map computes what the text says.
    llvm::StringMap<int64_t> byName = {{"a", 7}, {"b", 3}, {"c", 5}};
    SmallVector<int64_t> values;
    for (const std::string &name : names(min1.getSizes()))
      values.push_back(byName.lookup(name));
    for (auto [i, expr] : llvm::enumerate(exprs))
      EXPECT_EQ(evaluate(min1.getMap().getResult(i), values), expr.value)
          << list;
    // The printed form reads back as the same map and operands.
    std::string printed = print(*first);
    OwningOpRef<ModuleOp> second = parse(printed);
    ASSERT_TRUE(second);
    auto min2 = collect<sym::MinOp>(*second).front();
    EXPECT_EQ(min1.getMap(), min2.getMap())
        << list << "\nprinted as\n"
        << print(min1);
    EXPECT_EQ(names(min1.getSizes()), names(min2.getSizes()));
    EXPECT_EQ(print(*second), printed);
    // So does the generic form, which prints the affine_map itself.
    std::string generic;
    llvm::raw_string_ostream os(generic);
    (*first)->print(os, OpPrintingFlags().printGenericOpForm());
    OwningOpRef<ModuleOp> third = parse(generic);
    ASSERT_TRUE(third);
    EXPECT_EQ(min1.getMap(), collect<sym::MinOp>(*third).front().getMap())
        << list << "\nprinted as\n"
        << generic;
  }
}

TEST_F(TgcSymTest, MapsBuiltInCxxRoundTrip) {
  // Maps built with the AffineExpr operators, symbols in any order.
  OwningOpRef<ModuleOp> module = parse(withSymbols(""));
  ASSERT_TRUE(module);
  auto function = collect<func::FuncOp>(*module).front();
  SmallVector<Value> sizes;
  for (auto symbol : collect<sym::SymbolOp>(*module))
    sizes.push_back(symbol.getResult());
  OpBuilder builder(function.getBody().front().getTerminator());
  SmallVector<AffineMap> maps = {
      AffineMap::get(0, 3, {s(1) * s(0), s(2) - s(0) * 3}, &context),
      AffineMap::get(0, 3, {s(2).floorDiv(s(1)) + 1, s(0) % 4 - s(2)},
                     &context),
      AffineMap::get(0, 3, {(s(0) + s(1)) * (s(2) - 2), -(s(1) * s(2))},
                     &context),
      AffineMap::get(0, 3, {s(0) + (s(1) + s(2)), s(0) - (s(1) - s(2))},
                     &context),
      AffineMap::get(0, 3, {s(0) * (s(1) * s(2)), s(0).ceilDiv(s(1) % s(2))},
                     &context),
  };
  for (AffineMap map : maps)
    sym::MinOp::create(builder, builder.getUnknownLoc(),
                       sym::SizeType::get(&context), sizes, map, StringAttr());
  std::string printed = print(*module);
  OwningOpRef<ModuleOp> reparsed = parse(printed);
  ASSERT_TRUE(reparsed);
  auto mins = collect<sym::MinOp>(*reparsed);
  ASSERT_EQ(mins.size(), maps.size());
  // Same values for a few assignments of a, b, c.
  for (SmallVector<int64_t> original : {SmallVector<int64_t>{7, 3, 5},
                                        SmallVector<int64_t>{11, 4, 6},
                                        SmallVector<int64_t>{2, 9, 4}}) {
    llvm::StringMap<int64_t> byName = {
        {"a", original[0]}, {"b", original[1]}, {"c", original[2]}};
    for (auto [map, min] : llvm::zip(maps, mins)) {
      SmallVector<int64_t> values;
      for (const std::string &name : names(min.getSizes()))
        values.push_back(byName.lookup(name));
      for (unsigned i = 0; i < map.getNumResults(); ++i)
        EXPECT_EQ(evaluate(min.getMap().getResult(i), values),
                  evaluate(map.getResult(i), original))
            << printed;
    }
  }
  // From then on the text is stable.
  EXPECT_EQ(print(*parse(print(*reparsed))), print(*reparsed));
}

TEST_F(TgcSymTest, PrintedForms) {
  OwningOpRef<ModuleOp> module = parse(withSymbols(R"mlir(
  tgc_sym.bind %flat [%a * %b] : tensor<?xf32>
  tgc_sym.bind %x [((%a + 1) * ((%b - 2))), -(%a * %b)] : tensor<?x?xf32>
  tgc_sym.bind %x [%a floordiv %b + 1, %c mod 4 - %a * 3] : tensor<?x?xf32>
)mlir"));
  ASSERT_TRUE(module);
  auto binds = collect<sym::BindOp>(*module);
  ASSERT_EQ(binds.size(), 3u);
  EXPECT_EQ(print(binds[0]), "tgc_sym.bind %arg1 [%a * %b] : tensor<?xf32>");
  EXPECT_EQ(print(binds[1]), "tgc_sym.bind %arg0 [(%a + 1) * (%b - 2), "
                             "-(%a * %b)] : tensor<?x?xf32>");
  EXPECT_EQ(print(binds[2]), "tgc_sym.bind %arg0 [%a floordiv %b + 1, "
                             "%c mod 4 - %a * 3] : tensor<?x?xf32>");
}

//===----------------------------------------------------------------------===//
// Descriptions
//===----------------------------------------------------------------------===//

TEST_F(TgcSymTest, ConstraintDescriptions) {
  OwningOpRef<ModuleOp> module = parse(withSymbols(R"mlir(
  %m = tgc_sym.min [%a, 64]
  %n = tgc_sym.max "n" [%a, %b]
  tgc_sym.constrain ge [%a * 2, 10] reason "r"
  tgc_sym.constrain eq [%b, %a * 2] reason "r"
  tgc_sym.constrain le [%a * %b, %m] reason "r"
  tgc_sym.constrain divisible [%a * 3, 4] reason "r"
  tgc_sym.constrain divisible [%a, %b] reason "r"
  tgc_sym.constrain broadcastable [%a, %n] reason "r"
  tgc_sym.constrain eq [%c - %a floordiv %b * 2, 1] reason "r"
)mlir"));
  ASSERT_TRUE(module);
  SmallVector<std::string> described;
  for (auto constrain : collect<sym::ConstrainOp>(*module))
    described.push_back(constrain.describe());
  EXPECT_EQ(described, (SmallVector<std::string>{
                           "a * 2 >= 10",
                           "b == a * 2",
                           "a * b <= min(a, 64)",
                           "(a * 3) mod 4 == 0",
                           "a mod b == 0",
                           "broadcastable(a, n)",
                           "c - a floordiv b * 2 == 1",
                       }));
}

TEST_F(TgcSymTest, GuardDescriptions) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func private @f(%x: tensor<?x?xf32>, %y: tensor<?xf32>,
                     %out: tensor<*xf16>, %k: i64, %n: index)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 8 from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [2, inf] from arg 0 dim 1
  %s2 = tgc_sym.symbol "s2" range [0, inf] from arg 1 dim 0
  %m = tgc_sym.min [%s0, %s1 + 2]
  tgc_guard.dtype arg 0 is f32 reason "r"
  tgc_guard.rank arg 0 is 2 reason "r"
  tgc_guard.device arg 0 is "cuda:0" reason "r"
  tgc_guard.contiguous arg 0 reason "r"
  tgc_guard.aligned arg 0 to 16 reason "r"
  tgc_guard.no_alias arg 0, arg 2 reason "r"
  tgc_guard.scalar arg 3 in [3, 3] reason "r"
  tgc_guard.scalar arg 4 in [-inf, 100] reason "r"
  tgc_guard.range %s0 in [10, inf] reason "r"
  tgc_guard.range %m in [7, 7] reason "r"
  tgc_guard.relation eq [%s1, %s0 * 2] reason "r"
  tgc_guard.relation eq [%s2, %s0 * %s1] reason "r"
  tgc_guard.relation divisible [%s0, 8] reason "r"
  tgc_guard.relation broadcastable [%s2, %s1] reason "r"
}
)mlir");
  ASSERT_TRUE(module);
  SmallVector<std::string> described;
  module->walk([&](guard::GuardOpInterface check) {
    described.push_back(check.describe());
  });
  EXPECT_EQ(described, (SmallVector<std::string>{
                           "dtype(arg0) == f32",
                           "rank(arg0) == 2",
                           "device(arg0) == cuda:0",
                           "arg0 contiguous",
                           "arg0 aligned to 16",
                           "arg0 does not alias arg2",
                           "arg3 == 3",
                           "arg4 <= 100",
                           "s0 >= 10",
                           "min(s0, s1 + 2) == 7",
                           "s1 == s0 * 2",
                           "s2 == s0 * s1",
                           "s0 mod 8 == 0",
                           "broadcastable(s2, s1)",
                       }));
}

} // namespace
