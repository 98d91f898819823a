//===- TgcSymOps.cpp - tgc_sym dialect operations -------------------------===//
//
// Verifiers, the size-list syntax and readable descriptions of sizes and
// constraints (shared with tgc_guard).
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "llvm/ADT/StringMap.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::tgc::sym;

#include "tgc/Dialect/TgcSym/IR/TgcSymEnums.cpp.inc"

#define GET_OP_CLASSES
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.cpp.inc"

void TgcSymDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Size expressions: printing
//===----------------------------------------------------------------------===//

namespace {
/// Where an expression is printed, by what the grammar accepts there (see
/// parseSizeList): anything, a term (an operand of `*`-like operators on
/// the left, or of `+`/`-` on the right) or a factor (an operand of
/// `*`-like operators on the right, or of unary `-`).
enum class ExprContext { Sum, Term, Factor };

/// Prints size expressions in the syntax parseSizeList reads, with
/// `printSymbol(i)` in place of affine symbol `i`: left-associative
/// operators with MLIR's precedence, parentheses only where the grammar
/// needs them, and MLIR's `a - b`, `a - b * 2`, `a - 3` and `-a` spellings
/// where reading them back rebuilds the same expression. Every expression
/// built with the AffineExpr operators (which parseSizeList uses) reads
/// back as itself.
class SizeExprPrinter {
public:
  SizeExprPrinter(llvm::raw_ostream &os,
                  llvm::function_ref<void(unsigned)> printSymbol)
      : os(os), printSymbol(printSymbol) {}

  void print(AffineExpr expr, ExprContext context = ExprContext::Sum) {
    switch (expr.getKind()) {
    case AffineExprKind::Constant:
      os << cast<AffineConstantExpr>(expr).getValue();
      return;
    case AffineExprKind::SymbolId:
      printSymbol(cast<AffineSymbolExpr>(expr).getPosition());
      return;
    case AffineExprKind::DimId:
      // Not a size list (verification fails); print something readable.
      os << 'd' << cast<AffineDimExpr>(expr).getPosition();
      return;
    case AffineExprKind::Add:
      printAdd(cast<AffineBinaryOpExpr>(expr), context);
      return;
    case AffineExprKind::Mul:
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod:
      printMulLike(cast<AffineBinaryOpExpr>(expr), context);
      return;
    }
  }

private:
  static constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

  /// `c` when `expr` is the constant `c`.
  static std::optional<int64_t> getConstant(AffineExpr expr) {
    if (auto cst = dyn_cast<AffineConstantExpr>(expr))
      return cst.getValue();
    return std::nullopt;
  }

  /// `(x, c)` when `expr` is `x * c` with a constant `c`.
  static std::optional<std::pair<AffineExpr, int64_t>>
  getScaled(AffineExpr expr) {
    auto mul = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!mul || mul.getKind() != AffineExprKind::Mul)
      return std::nullopt;
    if (std::optional<int64_t> factor = getConstant(mul.getRHS()))
      return std::make_pair(mul.getLHS(), *factor);
    return std::nullopt;
  }

  void printAdd(AffineBinaryOpExpr expr, ExprContext context) {
    bool parens = context != ExprContext::Sum;
    if (parens)
      os << '(';
    AffineExpr lhs = expr.getLHS(), rhs = expr.getRHS();
    print(lhs, ExprContext::Sum);
    auto scaled = getScaled(rhs);
    std::optional<int64_t> cst = getConstant(rhs);
    // Each subtraction is used only when the parser's reading of it,
    // `lhs + (x * k) * -1`, is this very expression.
    if (scaled && scaled->second == -1 && lhs - scaled->first == expr) {
      os << " - ";
      print(scaled->first, ExprContext::Term);
    } else if (scaled && scaled->second < -1 && scaled->second != kMin &&
               lhs - scaled->first * -scaled->second == expr) {
      os << " - ";
      print(scaled->first, ExprContext::Term);
      os << " * " << -scaled->second;
    } else if (cst && *cst < 0 && *cst != kMin) {
      os << " - " << -*cst;
    } else {
      os << " + ";
      print(rhs, ExprContext::Term);
    }
    if (parens)
      os << ')';
  }

  void printMulLike(AffineBinaryOpExpr expr, ExprContext context) {
    // `-x` is a factor: it needs no parentheses.
    auto scaled = getScaled(expr);
    if (scaled && scaled->second == -1 && scaled->first * -1 == expr &&
        !isa<AffineConstantExpr>(scaled->first)) {
      os << '-';
      print(scaled->first, ExprContext::Factor);
      return;
    }
    bool parens = context == ExprContext::Factor;
    if (parens)
      os << '(';
    print(expr.getLHS(), ExprContext::Term);
    switch (expr.getKind()) {
    case AffineExprKind::Mul:
      os << " * ";
      break;
    case AffineExprKind::FloorDiv:
      os << " floordiv ";
      break;
    case AffineExprKind::CeilDiv:
      os << " ceildiv ";
      break;
    default:
      os << " mod ";
      break;
    }
    print(expr.getRHS(), ExprContext::Factor);
    if (parens)
      os << ')';
  }

  llvm::raw_ostream &os;
  llvm::function_ref<void(unsigned)> printSymbol;
};

//===----------------------------------------------------------------------===//
// Size expressions: parsing
//===----------------------------------------------------------------------===//

/// Reads the bracketed size list of parseSizeList into expressions over
/// affine symbols, one per distinct operand in order of appearance.
class SizeListParser {
public:
  SizeListParser(OpAsmParser &parser,
                 SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands)
      : parser(parser), operands(operands),
        context(parser.getBuilder().getContext()) {}

  ParseResult parseList(SmallVectorImpl<AffineExpr> &results) {
    if (parser.parseLSquare())
      return failure();
    if (succeeded(parser.parseOptionalRSquare()))
      return success();
    do {
      FailureOr<AffineExpr> expr = parseSum();
      if (failed(expr))
        return failure();
      results.push_back(*expr);
    } while (succeeded(parser.parseOptionalComma()));
    if (failed(parser.parseOptionalRSquare()))
      return parser.emitError(parser.getCurrentLocation(),
                              "expected ',' or ']' after a size expression");
    return success();
  }

private:
  /// Nesting (parentheses, unary minus) beyond this is an error rather than
  /// a deep recursion.
  static constexpr unsigned kMaxDepth = 256;

  /// sum := term (('+' | '-') term)*
  FailureOr<AffineExpr> parseSum() {
    SMLoc loc = parser.getCurrentLocation();
    FailureOr<AffineExpr> lhs = parseTerm();
    if (failed(lhs))
      return failure();
    while (true) {
      bool plus = succeeded(parser.parseOptionalPlus());
      if (!plus && failed(parser.parseOptionalMinus()))
        return lhs;
      FailureOr<AffineExpr> rhs = parseTerm();
      if (failed(rhs))
        return failure();
      if (plus)
        lhs = combine(loc, AffineExprKind::Add, *lhs, *rhs);
      else if (FailureOr<AffineExpr> negated = negate(loc, *rhs);
               succeeded(negated))
        lhs = combine(loc, AffineExprKind::Add, *lhs, *negated);
      else
        return failure();
      if (failed(lhs))
        return failure();
    }
  }

  /// term := factor (('*' | 'floordiv' | 'ceildiv' | 'mod') factor)*
  FailureOr<AffineExpr> parseTerm() {
    SMLoc loc = parser.getCurrentLocation();
    FailureOr<AffineExpr> lhs = parseFactor();
    if (failed(lhs))
      return failure();
    while (true) {
      AffineExprKind kind;
      if (succeeded(parser.parseOptionalStar()))
        kind = AffineExprKind::Mul;
      else if (succeeded(parser.parseOptionalKeyword("floordiv")))
        kind = AffineExprKind::FloorDiv;
      else if (succeeded(parser.parseOptionalKeyword("ceildiv")))
        kind = AffineExprKind::CeilDiv;
      else if (succeeded(parser.parseOptionalKeyword("mod")))
        kind = AffineExprKind::Mod;
      else
        return lhs;
      SMLoc rhsLoc = parser.getCurrentLocation();
      FailureOr<AffineExpr> rhs = parseFactor();
      if (failed(rhs))
        return failure();
      if (kind != AffineExprKind::Mul)
        if (auto cst = dyn_cast<AffineConstantExpr>(*rhs);
            cst && cst.getValue() <= 0)
          return parser.emitError(rhsLoc, "expected a positive divisor, got ")
                 << cst.getValue();
      lhs = combine(loc, kind, *lhs, *rhs);
      if (failed(lhs))
        return failure();
    }
  }

  /// factor := '-' factor | integer | ssa-size | '(' sum ')'
  /// `-` followed by an integer is a negative literal (so that the smallest
  /// int64_t can be written).
  FailureOr<AffineExpr> parseFactor() {
    SMLoc loc = parser.getCurrentLocation();
    if (depth >= kMaxDepth)
      return parser.emitError(loc, "size expression is nested too deeply");
    DepthGuard guard(depth);
    // Read all leading minus signs here: the integer parser would take a
    // `-` for the sign of an integer and then insist on one.
    unsigned negations = 0;
    while (succeeded(parser.parseOptionalMinus()))
      ++negations;
    FailureOr<std::optional<int64_t>> literal = parseLiteral(negations > 0);
    if (failed(literal))
      return failure();
    FailureOr<AffineExpr> expr = failure();
    if (*literal) {
      expr = getAffineConstantExpr(**literal, context);
      if (negations > 0)
        --negations;
    } else {
      expr = parsePrimary();
    }
    for (; succeeded(expr) && negations > 0; --negations)
      expr = negate(loc, *expr);
    return expr;
  }

  /// An SSA size value or a parenthesized sum.
  FailureOr<AffineExpr> parsePrimary() {
    SMLoc loc = parser.getCurrentLocation();
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult parsedOperand = parser.parseOptionalOperand(operand);
    if (parsedOperand.has_value()) {
      if (failed(*parsedOperand))
        return failure();
      return getAffineSymbolExpr(getSymbolPosition(operand), context);
    }
    if (succeeded(parser.parseOptionalLParen())) {
      FailureOr<AffineExpr> inner = parseSum();
      if (failed(inner) || parser.parseRParen())
        return failure();
      return inner;
    }
    return parser.emitError(loc, "expected a size expression: an SSA size "
                                 "value, an integer or '('");
  }

  /// A decimal integer if one is next (negated when `negative`), nullopt if
  /// not, failure if it does not fit in 64 bits.
  FailureOr<std::optional<int64_t>> parseLiteral(bool negative) {
    SMLoc loc = parser.getCurrentLocation();
    APInt value;
    // The current token is not `-` (parseFactor consumed them all), so
    // this reads an unsigned integer.
    OptionalParseResult parsed = parser.parseOptionalDecimalInteger(value);
    if (!parsed.has_value())
      return std::optional<int64_t>();
    if (failed(*parsed))
      return failure();
    value = value.zext(std::max(value.getBitWidth(), 64u) + 1);
    if (negative)
      value.negate();
    if (value.getSignificantBits() > 64)
      return parser.emitError(loc, "integer does not fit in 64 bits");
    return std::optional<int64_t>(value.getSExtValue());
  }

  /// `-expr`, with an error for the one constant that cannot be negated.
  FailureOr<AffineExpr> negate(SMLoc loc, AffineExpr expr) {
    auto minusOne = getAffineConstantExpr(-1, context);
    return combine(loc, AffineExprKind::Mul, expr, minusOne);
  }

  /// `lhs kind rhs` through the AffineExpr operators (which simplify), with
  /// an error where two constants would overflow when folded. `a + (b + c)`
  /// is built as `(a + b) + c`: MLIR's printer drops those parentheses in
  /// the generic form, which then would not read back as the same map.
  FailureOr<AffineExpr> combine(SMLoc loc, AffineExprKind kind, AffineExpr lhs,
                                AffineExpr rhs) {
    if (auto sum = dyn_cast<AffineBinaryOpExpr>(rhs);
        kind == AffineExprKind::Add && sum &&
        sum.getKind() == AffineExprKind::Add) {
      FailureOr<AffineExpr> partial = combine(loc, kind, lhs, sum.getLHS());
      if (failed(partial))
        return failure();
      return combine(loc, kind, *partial, sum.getRHS());
    }
    auto lhsCst = dyn_cast<AffineConstantExpr>(lhs);
    auto rhsCst = dyn_cast<AffineConstantExpr>(rhs);
    if (lhsCst && rhsCst) {
      int64_t result;
      bool overflow = false;
      if (kind == AffineExprKind::Add)
        overflow = llvm::AddOverflow(lhsCst.getValue(), rhsCst.getValue(),
                                     result);
      else if (kind == AffineExprKind::Mul)
        overflow = llvm::MulOverflow(lhsCst.getValue(), rhsCst.getValue(),
                                     result);
      if (overflow)
        return parser.emitError(loc, "size expression overflows 64 bits");
    }
    return getAffineBinaryOpExpr(kind, lhs, rhs);
  }

  /// The symbol of `operand`: a new one the first time it appears.
  unsigned getSymbolPosition(const OpAsmParser::UnresolvedOperand &operand) {
    for (auto [i, known] : llvm::enumerate(operands))
      if (known.name == operand.name && known.number == operand.number)
        return i;
    operands.push_back(operand);
    return operands.size() - 1;
  }

  struct DepthGuard {
    explicit DepthGuard(unsigned &depth) : depth(depth) { ++depth; }
    ~DepthGuard() { --depth; }
    unsigned &depth;
  };

  OpAsmParser &parser;
  SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands;
  MLIRContext *context;
  unsigned depth = 0;
};
} // namespace

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

ParseResult mlir::tgc::sym::parseSizeList(
    OpAsmParser &parser, SmallVectorImpl<OpAsmParser::UnresolvedOperand> &sizes,
    AffineMapAttr &map) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<AffineExpr> results;
  if (SizeListParser(parser, operands).parseList(results))
    return failure();
  MLIRContext *context = parser.getBuilder().getContext();
  // Simplification may drop an operand (`%a - %a`) or move one before
  // another: number the symbols by where the results use them, which is
  // where printSizeList prints them, so that the printed list reads back
  // as the same map and operands. Renumbering rebuilds the expressions,
  // and MLIR orders the operands of `+` and `*` by symbol position, so
  // repeat until the numbering holds (in practice, at most twice).
  for (unsigned attempt = 0; attempt < 4; ++attempt) {
    SmallVector<unsigned> order;
    for (AffineExpr result : results)
      result.walk([&](AffineExpr expr) {
        if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
          if (!llvm::is_contained(order, symbol.getPosition()))
            order.push_back(symbol.getPosition());
      });
    if (order.size() == operands.size() &&
        llvm::all_of(llvm::enumerate(order),
                     [](auto it) { return it.index() == it.value(); }))
      break;
    SmallVector<AffineExpr> replacements(operands.size(),
                                         getAffineConstantExpr(0, context));
    SmallVector<OpAsmParser::UnresolvedOperand> used;
    for (auto [newPos, oldPos] : llvm::enumerate(order)) {
      replacements[oldPos] = getAffineSymbolExpr(newPos, context);
      used.push_back(operands[oldPos]);
    }
    for (AffineExpr &result : results)
      result = result.replaceSymbols(replacements);
    operands = std::move(used);
  }
  sizes.append(operands.begin(), operands.end());
  map = AffineMapAttr::get(
      AffineMap::get(/*dimCount=*/0, operands.size(), results, context));
  return success();
}

void mlir::tgc::sym::printSizeList(OpAsmPrinter &printer, Operation *,
                                   OperandRange sizes, AffineMapAttr map) {
  // An op that breaks the convention fails verification, but may still be
  // printed (debugging).
  if (!map || map.getValue().getNumDims() != 0 ||
      map.getValue().getNumSymbols() != sizes.size()) {
    printer << "[<<invalid size list " << map << ">>]";
    return;
  }
  llvm::raw_ostream &os = printer.getStream();
  auto printSymbol = [&](unsigned pos) {
    if (pos < sizes.size())
      printer.printOperand(sizes[pos]);
    else
      os << "<<symbol " << pos << ">>";
  };
  SizeExprPrinter exprPrinter(os, printSymbol);
  os << '[';
  llvm::interleaveComma(map.getValue().getResults(), os,
                        [&](AffineExpr expr) { exprPrinter.print(expr); });
  os << ']';
}

ParseResult mlir::tgc::sym::parseUpperBound(OpAsmParser &parser,
                                            IntegerAttr &upper) {
  if (succeeded(parser.parseOptionalKeyword("inf"))) {
    upper = {};
    return success();
  }
  int64_t value;
  if (parser.parseInteger(value))
    return failure();
  upper = parser.getBuilder().getI64IntegerAttr(value);
  return success();
}

void mlir::tgc::sym::printUpperBound(OpAsmPrinter &printer, Operation *,
                                     IntegerAttr upper) {
  if (upper)
    printer << upper.getInt();
  else
    printer << "inf";
}

//===----------------------------------------------------------------------===//
// Descriptions
//===----------------------------------------------------------------------===//


/// Names of `sizes` for describing expressions: `d<i>` where a value has no
/// name.
static SmallVector<std::string> getSizeNames(ValueRange sizes, unsigned depth);

/// Prints `expr` with affine symbol `i` as `names[i]` (`s<i>` out of range).
static void printNamedExpr(llvm::raw_ostream &os, AffineExpr expr,
                           ArrayRef<std::string> names,
                           ExprContext context = ExprContext::Sum) {
  SizeExprPrinter(os, [&](unsigned pos) {
    if (pos < names.size())
      os << names[pos];
    else
      os << 's' << pos;
  }).print(expr, context);
}

static std::string describeSizeImpl(Value size, StringRef fallback,
                                    unsigned depth) {
  Operation *def = size.getDefiningOp();
  if (!def)
    return fallback.str();
  if (auto symbol = dyn_cast<SymbolOp>(def))
    return symbol.getName().str();
  // Unnamed min/max are spelled out; the depth limit keeps invalid (cyclic)
  // IR from recursing forever.
  auto spell = [&](StringRef fn, std::optional<StringRef> name, AffineMap map,
                   ValueRange operands) -> std::string {
    if (name)
      return name->str();
    if (depth > 4)
      return fn.str() + "(...)";
    SmallVector<std::string> names = getSizeNames(operands, depth + 1);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << fn << '(';
    llvm::interleaveComma(map.getResults(), os, [&](AffineExpr expr) {
      printNamedExpr(os, expr, names);
    });
    os << ')';
    return text;
  };
  if (auto min = dyn_cast<MinOp>(def))
    return spell("min", min.getName(), min.getMap(), min.getSizes());
  if (auto max = dyn_cast<MaxOp>(def))
    return spell("max", max.getName(), max.getMap(), max.getSizes());
  return fallback.str();
}

static SmallVector<std::string> getSizeNames(ValueRange sizes, unsigned depth) {
  SmallVector<std::string> names;
  for (auto [i, size] : llvm::enumerate(sizes))
    names.push_back(describeSizeImpl(size, "d" + std::to_string(i), depth));
  return names;
}

std::string mlir::tgc::sym::describeSize(Value size, StringRef fallback) {
  return describeSizeImpl(size, fallback, /*depth=*/0);
}

void mlir::tgc::sym::printSizeExpr(
    llvm::raw_ostream &os, AffineExpr expr,
    llvm::function_ref<void(unsigned)> printSymbol) {
  SizeExprPrinter(os, printSymbol).print(expr);
}

ConstraintKind mlir::tgc::sym::flipConstraint(ConstraintKind kind) {
  switch (kind) {
  case ConstraintKind::ge:
    return ConstraintKind::le;
  case ConstraintKind::le:
    return ConstraintKind::ge;
  default:
    return kind;
  }
}

std::string mlir::tgc::sym::describeExpr(AffineExpr expr, ValueRange sizes) {
  SmallVector<std::string> names = getSizeNames(sizes, /*depth=*/0);
  std::string text;
  llvm::raw_string_ostream os(text);
  printNamedExpr(os, expr, names);
  return text;
}

std::string mlir::tgc::sym::describeConstraint(ConstraintKind kind,
                                               AffineMap map,
                                               ValueRange sizes) {
  if (map.getNumResults() != 2)
    return "<invalid constraint>";
  SmallVector<std::string> names = getSizeNames(sizes, /*depth=*/0);
  std::string text;
  llvm::raw_string_ostream os(text);
  AffineExpr lhs = map.getResult(0), rhs = map.getResult(1);
  switch (kind) {
  case ConstraintKind::eq:
  case ConstraintKind::ge:
  case ConstraintKind::le:
    printNamedExpr(os, lhs, names);
    os << (kind == ConstraintKind::eq   ? " == "
           : kind == ConstraintKind::ge ? " >= "
                                        : " <= ");
    printNamedExpr(os, rhs, names);
    break;
  case ConstraintKind::divisible:
    // Parenthesized beyond the grammar's needs: `(s0 * 3) mod 4 == 0`.
    printNamedExpr(os, lhs, names, ExprContext::Factor);
    os << " mod ";
    printNamedExpr(os, rhs, names, ExprContext::Factor);
    os << " == 0";
    break;
  case ConstraintKind::broadcastable:
    os << "broadcastable(";
    printNamedExpr(os, lhs, names);
    os << ", ";
    printNamedExpr(os, rhs, names);
    os << ')';
    break;
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Verification helpers
//===----------------------------------------------------------------------===//

bool mlir::tgc::sym::isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name.drop_front(),
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

LogicalResult mlir::tgc::sym::verifySizeMap(Operation *op, AffineMap map,
                                            unsigned numSizes, StringRef what) {
  if (map.getNumDims() != 0)
    return op->emitOpError()
           << what << " must not have dimensions (got " << map.getNumDims()
           << "); sizes are map symbols";
  if (map.getNumSymbols() != numSizes)
    return op->emitOpError()
           << what << " has " << map.getNumSymbols()
           << " symbols but there are " << numSizes << " size operands";
  // The parser rejects these; maps built in C++ or written as attributes
  // could still have them.
  std::optional<int64_t> badDivisor;
  for (AffineExpr result : map.getResults())
    result.walk([&](AffineExpr expr) {
      auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
      if (!binary || binary.getKind() == AffineExprKind::Add ||
          binary.getKind() == AffineExprKind::Mul)
        return;
      auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
      if (divisor && divisor.getValue() <= 0 && !badDivisor)
        badDivisor = divisor.getValue();
    });
  if (badDivisor)
    return op->emitOpError() << what << " divides by " << *badDivisor
                             << "; constant divisors must be positive";
  return success();
}

LogicalResult mlir::tgc::sym::verifyConstraint(Operation *op,
                                               ConstraintKind kind,
                                               AffineMap map,
                                               ValueRange sizes) {
  if (failed(verifySizeMap(op, map, sizes.size(), "constraint map")))
    return failure();
  if (map.getNumResults() != 2)
    return op->emitOpError()
           << "expected 2 expressions [lhs, rhs], got " << map.getNumResults();
  auto lhs = dyn_cast<AffineConstantExpr>(map.getResult(0));
  auto rhs = dyn_cast<AffineConstantExpr>(map.getResult(1));
  if (kind == ConstraintKind::divisible && rhs && rhs.getValue() <= 0)
    return op->emitOpError()
           << "divisible needs a positive divisor, got " << rhs.getValue();
  if (!lhs || !rhs)
    return success();
  int64_t l = lhs.getValue(), r = rhs.getValue();
  bool holds = false;
  switch (kind) {
  case ConstraintKind::eq:
    holds = l == r;
    break;
  case ConstraintKind::ge:
    holds = l >= r;
    break;
  case ConstraintKind::le:
    holds = l <= r;
    break;
  case ConstraintKind::divisible:
    holds = l % r == 0;
    break;
  case ConstraintKind::broadcastable:
    holds = l == r || l == 1 || r == 1;
    break;
  }
  if (!holds)
    return op->emitOpError() << "constraint is always false: "
                             << describeConstraint(kind, map, sizes);
  return success();
}

LogicalResult mlir::tgc::sym::verifyArgumentDim(Operation *op,
                                                FunctionOpInterface function,
                                                int64_t arg, int64_t dim) {
  ArrayRef<Type> argTypes = function.getArgumentTypes();
  if (arg < 0 || arg >= static_cast<int64_t>(argTypes.size()))
    return op->emitOpError() << "arg " << arg << " is out of range: @"
                             << SymbolTable::getSymbolName(function).getValue()
                             << " has " << argTypes.size() << " arguments";
  // A memref once the function is bufferized (the guard sets of GPU
  // functions outlive bufferization).
  auto tensorType = dyn_cast<ShapedType>(argTypes[arg]);
  if (!isa<RankedTensorType, MemRefType>(argTypes[arg]))
    return op->emitOpError()
           << "arg " << arg << " must be a ranked tensor, got "
           << argTypes[arg];
  if (dim < 0 || dim >= tensorType.getRank())
    return op->emitOpError() << "dim " << dim << " is out of range: arg " << arg
                             << " has rank " << tensorType.getRank();
  return success();
}

//===----------------------------------------------------------------------===//
// SymbolOp
//===----------------------------------------------------------------------===//

void SymbolOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

/// Symbol names are unique in a scope (the nearest isolated-from-above
/// ancestor: a function or a guard set, not looking into nested isolated
/// operations). Checked once per scope, by its first symbol in program
/// order, with one walk: each symbol walking its scope made verification
/// quadratic (3,000 inputs: 3,000 symbols, verified after every pass).
static LogicalResult verifyUniqueSymbolNames(SymbolOp op) {
  Operation *scope = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (!scope)
    return success();
  // Whether a symbol comes before `op`: looking back from `op` and from
  // each of its ancestors below the scope (symbols sit next to each other,
  // so this usually stops at the previous op).
  auto hasSymbol = [&](Operation *root) {
    bool found = false;
    root->walk<WalkOrder::PreOrder>([&](Operation *nested) {
      if (nested != root && nested->hasTrait<OpTrait::IsIsolatedFromAbove>())
        return WalkResult::skip();
      if (isa<SymbolOp>(nested)) {
        found = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return found;
  };
  for (Operation *cur = op; cur && cur != scope; cur = cur->getParentOp())
    for (Operation *prev = cur->getPrevNode(); prev; prev = prev->getPrevNode())
      if (isa<SymbolOp>(prev) || (prev->getNumRegions() && hasSymbol(prev)))
        return success(); // an earlier symbol checks the scope
  llvm::StringMap<SymbolOp> seen;
  LogicalResult result = success();
  scope->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (nested != scope && nested->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return WalkResult::skip();
    auto symbol = dyn_cast<SymbolOp>(nested);
    if (!symbol)
      return WalkResult::advance();
    auto [it, inserted] = seen.try_emplace(symbol.getName(), symbol);
    if (!inserted) {
      InFlightDiagnostic diag = symbol.emitOpError()
                                << "name '" << symbol.getName()
                                << "' is already used by another symbol in "
                                   "this function or guard set";
      diag.attachNote(it->second.getLoc()) << "first used here";
      result = failure();
    }
    return WalkResult::advance();
  });
  return result;
}

LogicalResult SymbolOp::verify() {
  if (!isIdentifier(getName()))
    return emitOpError() << "name '" << getName()
                         << "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
  int64_t lower = getLower();
  if (lower < 0)
    return emitOpError() << "lower bound " << lower << " is negative";
  std::optional<int64_t> upper = getUpper();
  if (upper && *upper < lower)
    return emitOpError() << "upper bound " << *upper
                         << " is less than lower bound " << lower;
  if (std::optional<int64_t> hint = getHint();
      hint && (*hint < lower || (upper && *hint > *upper))) {
    InFlightDiagnostic diag = emitOpError()
                              << "hint " << *hint << " is outside the range ["
                              << lower << ", ";
    if (upper)
      diag << *upper;
    else
      diag << "inf";
    return diag << "]";
  }
  if (getArg().has_value() != getDim().has_value())
    return emitOpError() << "'arg' and 'dim' must be given together";
  if (hasSource()) {
    if (*getArg() < 0)
      return emitOpError() << "arg index " << *getArg() << " is negative";
    if (*getDim() < 0)
      return emitOpError() << "dim index " << *getDim() << " is negative";
    if (auto function = (*this)->getParentOfType<FunctionOpInterface>())
      if (failed(verifyArgumentDim(*this, function, *getArg(), *getDim())))
        return failure();
  }
  return verifyUniqueSymbolNames(*this);
}

//===----------------------------------------------------------------------===//
// MinOp, MaxOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyMinMax(Operation *op, AffineMap map,
                                  unsigned numSizes,
                                  std::optional<StringRef> name) {
  if (name && !isIdentifier(*name))
    return op->emitOpError()
           << "name '" << *name
           << "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (failed(verifySizeMap(op, map, numSizes, "size map")))
    return failure();
  if (map.getNumResults() < 2)
    return op->emitOpError()
           << "expected at least 2 expressions, got " << map.getNumResults();
  return success();
}

LogicalResult MinOp::verify() {
  return verifyMinMax(*this, getMap(), getSizes().size(), getName());
}

LogicalResult MaxOp::verify() {
  return verifyMinMax(*this, getMap(), getSizes().size(), getName());
}

void MinOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  if (std::optional<StringRef> name = getName())
    setNameFn(getResult(), *name);
}

void MaxOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  if (std::optional<StringRef> name = getName())
    setNameFn(getResult(), *name);
}

//===----------------------------------------------------------------------===//
// BindOp
//===----------------------------------------------------------------------===//

LogicalResult BindOp::verify() {
  AffineMap shape = getShape();
  if (failed(verifySizeMap(*this, shape, getSizes().size(), "shape map")))
    return failure();
  auto type = cast<RankedTensorType>(getTensor().getType());
  if (static_cast<int64_t>(shape.getNumResults()) != type.getRank())
    return emitOpError() << "has " << shape.getNumResults()
                         << " size expressions for a tensor of rank "
                         << type.getRank();
  for (auto [dim, expr] : llvm::enumerate(shape.getResults())) {
    if (type.isDynamicDim(dim))
      continue;
    auto cst = dyn_cast<AffineConstantExpr>(expr);
    if (!cst || cst.getValue() != type.getDimSize(dim))
      return emitOpError() << "dim " << dim << " is static ("
                           << type.getDimSize(dim) << ") but bound to "
                           << describeExpr(expr, getSizes());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConstrainOp
//===----------------------------------------------------------------------===//

LogicalResult ConstrainOp::verify() {
  if (getReason().empty())
    return emitOpError() << "reason must not be empty";
  return verifyConstraint(*this, getKind(), getMap(), getSizes());
}

std::string ConstrainOp::describe() {
  return describeConstraint(getKind(), getMap(), getSizes());
}
