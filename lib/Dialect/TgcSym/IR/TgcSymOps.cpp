//===- TgcSymOps.cpp - tgc_sym dialect operations -------------------------===//
//
// Verifiers, the size-list syntax and readable descriptions of sizes and
// constraints (shared with tgc_guard).
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

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
// Custom directives
//===----------------------------------------------------------------------===//

ParseResult mlir::tgc::sym::parseSizeList(
    OpAsmParser &parser, SmallVectorImpl<OpAsmParser::UnresolvedOperand> &sizes,
    AffineMapAttr &map) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute mapAttr;
  // The attribute list is only where the upstream parser puts the map; the
  // caller stores `map` (as a property).
  NamedAttrList ignored;
  if (parser.parseAffineMapOfSSAIds(sizes, mapAttr, "map", ignored,
                                    OpAsmParser::Delimiter::Square))
    return failure();
  map = dyn_cast_or_null<AffineMapAttr>(mapAttr);
  if (!map)
    return parser.emitError(loc, "expected a list of size expressions");
  return success();
}

void mlir::tgc::sym::printSizeList(OpAsmPrinter &printer, Operation *,
                                   OperandRange sizes, AffineMapAttr map) {
  // The upstream printer requires one operand per map input; an op that
  // breaks this fails verification, but may still be printed (debugging).
  if (!map || map.getValue().getNumInputs() != sizes.size()) {
    printer << "[<<invalid size list " << map << ">>]";
    return;
  }
  printer << '[';
  printer.printAffineMapOfSSAIds(map, sizes);
  printer << ']';
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

namespace {
/// Prints affine expressions with operand names instead of `d0`, in the
/// spelling of MLIR's own printer (`s0 - 1`, `-s0`, `s0 floordiv 2`), with
/// parentheses around every nested binary operation of higher precedence.
class ExprPrinter {
public:
  ExprPrinter(ArrayRef<std::string> names, llvm::raw_ostream &os)
      : names(names), os(os) {}

  void print(AffineExpr expr, bool tight = false) {
    switch (expr.getKind()) {
    case AffineExprKind::Constant:
      os << cast<AffineConstantExpr>(expr).getValue();
      return;
    case AffineExprKind::DimId: {
      unsigned pos = cast<AffineDimExpr>(expr).getPosition();
      if (pos < names.size())
        os << names[pos];
      else
        os << 'd' << pos;
      return;
    }
    case AffineExprKind::SymbolId:
      os << "symbol" << cast<AffineSymbolExpr>(expr).getPosition();
      return;
    case AffineExprKind::Add:
      printAdd(cast<AffineBinaryOpExpr>(expr), tight);
      return;
    case AffineExprKind::Mul:
    case AffineExprKind::Mod:
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
      printMulLike(cast<AffineBinaryOpExpr>(expr), tight);
      return;
    }
  }

private:
  /// The constant `c` when `expr` is `e * c`.
  static std::optional<int64_t> getConstantFactor(AffineExpr expr) {
    auto mul = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!mul || mul.getKind() != AffineExprKind::Mul)
      return std::nullopt;
    if (auto cst = dyn_cast<AffineConstantExpr>(mul.getRHS()))
      return cst.getValue();
    return std::nullopt;
  }

  void printAdd(AffineBinaryOpExpr expr, bool tight) {
    if (tight)
      os << '(';
    print(expr.getLHS());
    AffineExpr rhs = expr.getRHS();
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    std::optional<int64_t> factor = getConstantFactor(rhs);
    auto cst = dyn_cast<AffineConstantExpr>(rhs);
    if (factor && *factor < 0 && *factor != kMin) {
      os << " - ";
      print(cast<AffineBinaryOpExpr>(rhs).getLHS(), /*tight=*/true);
      if (*factor != -1)
        os << " * " << -*factor;
    } else if (cst && cst.getValue() < 0 && cst.getValue() != kMin) {
      os << " - " << -cst.getValue();
    } else {
      os << " + ";
      print(rhs);
    }
    if (tight)
      os << ')';
  }

  void printMulLike(AffineBinaryOpExpr expr, bool tight) {
    if (expr.getKind() == AffineExprKind::Mul) {
      auto cst = dyn_cast<AffineConstantExpr>(expr.getRHS());
      if (cst && cst.getValue() == -1) {
        os << '-';
        print(expr.getLHS(), /*tight=*/true);
        return;
      }
    }
    if (tight)
      os << '(';
    print(expr.getLHS(), /*tight=*/true);
    switch (expr.getKind()) {
    case AffineExprKind::Mul:
      os << " * ";
      break;
    case AffineExprKind::Mod:
      os << " mod ";
      break;
    case AffineExprKind::FloorDiv:
      os << " floordiv ";
      break;
    default:
      os << " ceildiv ";
      break;
    }
    print(expr.getRHS(), /*tight=*/true);
    if (tight)
      os << ')';
  }

  ArrayRef<std::string> names;
  llvm::raw_ostream &os;
};
} // namespace

/// Names of `sizes` for ExprPrinter: `d<i>` where a value has no name.
static SmallVector<std::string> getSizeNames(ValueRange sizes, unsigned depth);

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
      ExprPrinter(names, os).print(expr);
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

std::string mlir::tgc::sym::describeExpr(AffineExpr expr, ValueRange sizes) {
  SmallVector<std::string> names = getSizeNames(sizes, /*depth=*/0);
  std::string text;
  llvm::raw_string_ostream os(text);
  ExprPrinter(names, os).print(expr);
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
  ExprPrinter printer(names, os);
  AffineExpr lhs = map.getResult(0), rhs = map.getResult(1);
  switch (kind) {
  case ConstraintKind::eq:
  case ConstraintKind::ge:
  case ConstraintKind::le:
    printer.print(lhs);
    os << (kind == ConstraintKind::eq   ? " == "
           : kind == ConstraintKind::ge ? " >= "
                                        : " <= ");
    printer.print(rhs);
    break;
  case ConstraintKind::divisible:
    printer.print(lhs, /*tight=*/true);
    os << " mod ";
    printer.print(rhs, /*tight=*/true);
    os << " == 0";
    break;
  case ConstraintKind::broadcastable:
    os << "broadcastable(";
    printer.print(lhs);
    os << ", ";
    printer.print(rhs);
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
  if (map.getNumSymbols() != 0)
    return op->emitOpError()
           << what << " must not have affine symbols (got "
           << map.getNumSymbols() << "); sizes are map dimensions";
  if (map.getNumDims() != numSizes)
    return op->emitOpError()
           << what << " has " << map.getNumDims()
           << " dimensions but there are " << numSizes << " size operands";
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
  auto tensorType = dyn_cast<RankedTensorType>(argTypes[arg]);
  if (!tensorType)
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

/// The first tgc_sym.symbol named `name` in the scope of `op` (its nearest
/// isolated-from-above ancestor: a function or a guard set), not looking
/// into nested isolated operations.
static SymbolOp findFirstSymbolNamed(Operation *op, StringRef name) {
  Operation *scope = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (!scope)
    return {};
  SymbolOp first;
  scope->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (nested != scope && nested->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return WalkResult::skip();
    auto symbol = dyn_cast<SymbolOp>(nested);
    if (symbol && symbol.getName() == name) {
      first = symbol;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return first;
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
  SymbolOp first = findFirstSymbolNamed(*this, getName());
  if (first && first != *this) {
    InFlightDiagnostic diag = emitOpError()
                              << "name '" << getName()
                              << "' is already used by another symbol in "
                                 "this function or guard set";
    diag.attachNote(first.getLoc()) << "first used here";
    return diag;
  }
  return success();
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
